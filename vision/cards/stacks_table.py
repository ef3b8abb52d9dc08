"""A SEQUENCE STACKS table as the camera above it sees it: the spots, and what changes there.

The spots (docs/stacks.md, "From the camera"): up to four **centre pile places** (the book:
"room for two SEQUENCE piles on each side of the draw deck"), the **out-of-play pile**
(special cards are played "by placing them into the out of play pile", completed piles are
set aside there) and each player's **discard pile** in front of them. They are kept in the
piles file beside the calibration (``NAME.piles.json``, :mod:`vision.cards.piles`): the
discard piles are its ``piles`` list (as ``seqboard calibrate --pile`` writes them), the
centre places and the out-of-play pile its ``stacks`` key::

    {"version": 1, "width": 1100, "height": 800,
     "piles": [{"seat": 1, "x": 350, "y": 680, "card_px": 150}, ...],
     "stacks": {"places": [{"x": 170, "y": 400, "card_px": 150}, ...],
                "out_of_play": {"x": 550, "y": 150, "card_px": 150}}}

:class:`StacksWatcher` looks at every spot in every frame. When the whole table has been
still for a few frames (the hands gone or resting) every spot that differs from what it
showed last is reported at once, as a :class:`Change`: a card **laid** there (read by
:func:`vision.cards.stacks_reader.read_stacks_pile`, None when it cannot be read surely) or
a card **taken** from there (the top of a pile, a whole pile). What the changes mean for the
game is decided by ``seqboard.modes.stacks_camera``. A change the game did not take (an
unreadable card waiting to be typed, a refused play) is :meth:`StacksWatcher.hold`: it is
not reported again until the spot changes again (the hand leaves, the card is taken back).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .piles import PileError, PileSpot, load_spots

#: the square looked at round a spot, in card lengths (STACKS spots lie close together)
REGION_CARDS = 1.6
MAX_PLACES = 4
#: the share of a spot's square (in %) that must change for a card laid or taken: a card
#: laid squarely on a pile changes little more than its ink
MIN_CHANGE = 2.5


@dataclass
class StacksSpots:
    places: list[PileSpot]            # the centre pile places, in order (seat: the place, 0-based)
    out_of_play: PileSpot | None
    discards: list[PileSpot]          # seat: the player, 0-based
    size: tuple[int, int]

    def keyed(self) -> list[tuple[tuple[str, int], PileSpot]]:
        out = [(("place", k), s) for k, s in enumerate(self.places)]
        if self.out_of_play is not None:
            out.append((("out", 0), self.out_of_play))
        out += [(("discard", s.seat), s) for s in self.discards]
        return out


def _spot(path, key: str, e, index: int = 0) -> PileSpot:
    try:
        x, y, px = e["x"], e["y"], e["card_px"]
        if not (all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y, px))
                and px > 0):
            raise TypeError
    except (KeyError, TypeError):
        raise PileError(f"{path}: {key}: expected x, y and card_px (pixels)") from None
    return PileSpot(index, float(x), float(y), float(px))


def load_stacks_spots(path: str | Path, players: int | None = None) -> StacksSpots:
    """The STACKS spots of a piles file; PileError (one line) names the file and the key."""
    path = Path(path)
    discards, size = load_spots(path)
    d = json.loads(path.read_text("utf-8"))
    st = d.get("stacks")
    if not isinstance(st, dict):
        raise PileError(f"{path}: no 'stacks' key: the centre pile places and the out-of-play "
                        f"pile are not learnt (seqboard stacks --place, docs/stacks.md)")
    places = st.get("places")
    if not isinstance(places, list) or not 1 <= len(places) <= MAX_PLACES:
        raise PileError(f"{path}: stacks.places: expected a list of 1 to {MAX_PLACES} places")
    spots = [_spot(path, f"stacks.places[{k + 1}]", e, k) for k, e in enumerate(places)]
    out = st.get("out_of_play")
    out_spot = None if out is None else _spot(path, "stacks.out_of_play", out)
    if players is not None:
        seats = {s.seat for s in discards}
        missing = [str(p + 1) for p in range(players) if p not in seats]
        if missing:
            raise PileError(f"{path}: piles: no discard pile for player {', '.join(missing)}")
        discards = [s for s in discards if s.seat < players]
    return StacksSpots(spots, out_spot, discards, size)


def save_stacks_spots(path: str | Path, spots: StacksSpots) -> None:
    """Write the spots into the piles file (its other keys kept)."""
    path = Path(path)
    d = {}
    if path.exists():
        try:
            d = json.loads(path.read_text("utf-8"))
        except ValueError:
            raise PileError(f"{path}: not a piles file (not JSON)") from None
        if not isinstance(d, dict):
            raise PileError(f"{path}: not a piles file")
    w, h = spots.size
    d.update({"version": 1, "width": w, "height": h,
              "piles": [s.to_json() for s in sorted(spots.discards, key=lambda s: s.seat)]})
    if spots.places or spots.out_of_play is not None:
        st = {"places": [{k: v for k, v in s.to_json().items() if k != "seat"}
                         for s in spots.places]}
        if spots.out_of_play is not None:
            st["out_of_play"] = {k: v for k, v in spots.out_of_play.to_json().items()
                                 if k != "seat"}
        d["stacks"] = st
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(d, indent=1), "utf-8")
    tmp.replace(path)


def parse_xy(text: str, what: str) -> tuple[float, float, float]:
    """``X,Y,CARD_PX`` typed at the command line."""
    try:
        x, y, px = (float(v) for v in text.split(","))
    except ValueError:
        raise PileError(f"{what} {text[:40]!r}: expected X,Y,CARD_PX, e.g. 400,300,150") from None
    if not all(np.isfinite((x, y, px))):
        raise PileError(f"{what} {text[:40]!r}: X, Y and CARD_PX are numbers of pixels")
    if px <= 0:
        raise PileError(f"{what} {text[:40]!r}: CARD_PX is a card's long side in pixels")
    return x, y, px


def same_place(a, b) -> bool:
    """Whether two rectangles, each ``(quad, width of the picture it was found in)``, may be
    one card lying in one place (within 6 % of the spot's square, 14 pixels of a 240-pixel
    square, and 8 degrees): the card below seen again rather than a new card laid on it."""
    if a is None or b is None:
        return False
    qa, qb = (np.float32(r[0]) / r[1] for r in (a, b))
    if float(np.linalg.norm(qa.mean(axis=0) - qb.mean(axis=0))) > 0.06:
        return False

    def angle(q):
        e = [q[(i + 1) % 4] - q[i] for i in range(4)]
        v = max(e, key=lambda d: float(np.linalg.norm(d)))
        return float(np.degrees(np.arctan2(v[1], v[0]))) % 180

    d = abs(angle(qa) - angle(qb))
    return min(d, 180 - d) < 8.0


@dataclass
class Change:
    key: tuple[str, int]              # ("place", k), ("out", 0) or ("discard", seat)
    kind: str                         # "laid" or "taken": the outlines' guess
    laid: object                      # StacksReading of the top card after, as if laid
    taken: object                     # StacksReading of the top card before, as if taken

    @property
    def reading(self):
        return self.laid if self.kind == "laid" else self.taken


def _edge(img: np.ndarray, quad) -> float:
    from .reader import _edge_score
    return _edge_score(img, np.float32(quad))


class StacksWatcher:
    """The changes on a STACKS table's spots (see the module text)."""

    def __init__(self, spots: StacksSpots, still_frames: int = 3, reader=None,
                 still=None) -> None:
        """``still``: a function giving a full-resolution picture of the same view now (the
        Pi camera's still), or None: spots whose cards are too small in the stream to read
        (under ``MIN_CARD_PX``) are then read from one still taken when the table is still
        and a change is seen, as :class:`vision.cards.piles.PileWatcher` does."""
        from .piles import PileWatcher
        from .stacks_reader import read_stacks_pile
        self.still = still
        self.stills_taken = 0
        self.problem: str | None = None   # why the stills are not used
        self._view = PileWatcher([], still=still)
        self.spots = spots.keyed()
        self.still_frames = still_frames
        self.read = reader or read_stacks_pile
        self._base: dict = {}
        self._last: dict = {}
        self._tried: dict = {}
        self._still = 0
        self._cells: dict = {}
        self._shape = None
        #: spots whose held change was undone (the spot looks as before it): set by update
        self.restored: list = []

    def _region(self, sp: PileSpot, shape):
        h, w = shape[:2]
        half = sp.card_px * REGION_CARDS / 2
        return (max(0, int(sp.x - half)), max(0, int(sp.y - half)),
                min(w, int(sp.x + half)), min(h, int(sp.y + half)))

    def _cell(self, key, sp, shape):
        """The part of the spot's square nearer to it than to any other spot: a card laid on
        a neighbouring spot is not a change here."""
        if self._shape != shape[:2]:
            self._cells, self._shape = {}, shape[:2]
        if key not in self._cells:
            x0, y0, x1, y1 = self._region(sp, shape)
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            own = np.hypot(xx - sp.x, yy - sp.y)
            cell = np.ones_like(own, bool)
            for k2, s2 in self.spots:
                if k2 != key:
                    cell &= own <= np.hypot(xx - s2.x, yy - s2.y)
            self._cells[key] = cell
        return self._cells[key]

    @staticmethod
    def _change(a: np.ndarray, b: np.ndarray) -> float:
        d = cv2.absdiff(cv2.GaussianBlur(a, (5, 5), 0), cv2.GaussianBlur(b, (5, 5), 0))
        return float((d.max(axis=2) > 30).mean() * 100)

    def update(self, frame: np.ndarray) -> list[Change]:
        crops = {}
        for key, sp in self.spots:
            x0, y0, x1, y1 = self._region(sp, frame.shape)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            crops[key] = frame[y0:y1, x0:x1].copy()
        if not self._base:
            self._base = dict(crops)
            self._last = dict(crops)
            self._first = dict(crops)
            return []
        moving = any(self._change(self._last[k], c) >= 0.5 for k, c in crops.items())
        self._last = crops
        self._still = 0 if moving else self._still + 1
        if self._still < self.still_frames:
            return []
        out = []
        shot: list = []                   # the full-resolution still, taken once
        self.restored = []
        for key, sp in self.spots:
            crop = crops.get(key)
            if crop is None:
                continue
            base = self._base[key]
            cell = self._cell(key, sp, frame.shape)
            # what changed outside the spot's own cell is a neighbour's: not seen here
            crop = np.where(cell[..., None], crop, base)
            if self._change(base, crop) < MIN_CHANGE:
                if self._tried.pop(key, None) is not None:
                    self.restored.append(key)       # back as it was (a card taken back)
                continue
            tried = self._tried.get(key)
            if tried is not None and self._change(tried, crop) < 0.5:
                continue
            self._tried[key] = crop
            out.append(self._classify(key, sp, base, crop, frame, shot))
        self._still = 0 if out else self._still
        return out

    def _classify(self, key, sp: PileSpot, before: np.ndarray, after: np.ndarray,
                  frame: np.ndarray | None = None, shot: list | None = None) -> Change:
        """Both readings, and a guess from the outlines: a card laid (its outline whole in the
        picture after, not before) or taken (whole before, not after). A card laid squarely
        on the one below leaves both outlines whole: the game's knowledge of what lay on top
        decides then (seqboard.modes.stacks_camera)."""
        laid = self.read(after, before, sp.card_px)
        taken = self.read(before, after, sp.card_px)
        score_laid = score_taken = -1e9
        if laid.quad is not None:
            score_laid = _edge(after, laid.quad) - _edge(before, laid.quad)
        if taken.quad is not None:
            score_taken = _edge(before, taken.quad) - _edge(after, taken.quad)
        kind = "taken" if score_taken > score_laid else "laid"
        laid.width = taken.width = after.shape[1]
        big = self._from_still(key, sp, frame, before, shot) if frame is not None else None
        if big is not None:               # the readings from the still; the kind from the
            a2, b2, px = big              # stream (both pictures of the same sharpness)
            laid = self.read(a2, b2, px)
            laid.width = a2.shape[1]
            t2 = self.read(b2, a2, px)
            t2.width = a2.shape[1]
            taken = t2 if t2.code else taken
        return Change(key, kind, laid, taken)

    def _from_still(self, key, sp: PileSpot, frame, base, shot):
        """(after, before, card_px) of the spot at the still's resolution, or None."""
        from .piles import MIN_CARD_PX, take_still
        if self.still is None or sp.card_px >= MIN_CARD_PX:
            return None
        still, taken = take_still(self.still, shot)
        self.stills_taken += taken
        if still is None or still.shape[1] <= frame.shape[1]:
            return None
        if not self._view.same_view(frame, still, sp):
            self.problem = self._view.problem
            return None
        k = still.shape[1] / frame.shape[1]
        big = PileSpot(sp.seat, sp.x * k, sp.y * k, sp.card_px * k)
        x0, y0, x1, y1 = self._region(big, still.shape)
        after = still[y0:y1, x0:x1]
        if after.shape[0] < 8 or after.shape[1] < 8:
            return None
        size = (after.shape[1], after.shape[0])
        before = cv2.resize(base, size, interpolation=cv2.INTER_LINEAR)
        cell = cv2.resize(self._cell(key, sp, frame.shape).astype(np.uint8), size,
                          interpolation=cv2.INTER_NEAREST).astype(bool)
        return np.where(cell[..., None], after, before), before, big.card_px

    def looks_empty(self, key) -> bool:
        """Whether the spot now (its change reported) looks as it did in the first frame
        (the table as it was set out: the centre places and the discard piles empty)."""
        now, first = self._tried.get(key), getattr(self, "_first", {}).get(key)
        return now is not None and first is not None and self._change(first, now) < MIN_CHANGE

    def picture(self, key):
        """The spot's reference picture now (what it showed when its last change was
        accepted), to be compared later with :meth:`likeness`."""
        return self._base.get(key)

    def likeness(self, key, picture) -> float | None:
        """How much of the spot's square (in %) differs between its picture now (its change
        reported) and ``picture`` (one of its earlier :meth:`picture`): under 1 % the spot
        looks as it did then (a card taken off the pile shows the pile as it was before that
        card was laid). None when either is unknown."""
        now = self._tried.get(key)
        if now is None or picture is None or picture.shape != now.shape:
            return None
        return self._change(picture, now)

    def accept(self, key) -> None:
        """The change on ``key`` is in the game: the spot as it is now is the reference."""
        tried = self._tried.pop(key, None)
        if tried is not None:
            self._base[key] = tried

    def hold(self, key) -> None:
        """The change on ``key`` is not in the game (unreadable, refused, waiting): it is
        not reported again until the spot changes again."""
        # _tried already holds the picture; nothing more to do
        return None

    def waiting(self) -> list:
        return list(self._tried)
