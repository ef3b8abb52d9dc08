"""Each seat's discard pile beside the board: where it is, and the new cards laid on it.

``seqboard calibrate`` learns a :class:`PileSpot` for each seat, from a card laid on the
spot (the picture without it and with it) or from coordinates given by hand, and checks
that the camera sees it big enough to read a card's index. The spots are kept in their own
file beside the board's calibration (``calibration.json`` -> ``calibration.piles.json``).

:class:`PileWatcher` looks at each spot in every frame: when the spot changes and then stays
still (the hand gone), the new top card is read from the pictures before and after
(:func:`vision.cards.reader.read_pile`) and reported with its seat; a card it cannot read
surely is reported as unknown (None), never guessed. See docs/cards.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: the card's long side, in pixels, the reader was built and measured with (docs/cards.md)
MIN_CARD_PX = 140
#: the square looked at round a spot, in card lengths
REGION_CARDS = 2.4


class PileError(ValueError):
    """A pile spot or file that cannot be used; the message names what is wrong."""


@dataclass(frozen=True)
class PileSpot:
    seat: int                 # 0-based seat whose discard pile lies here
    x: float                  # the spot's centre in the full camera picture, pixels
    y: float
    card_px: float            # a card's long side there, pixels

    def region(self, shape) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) of the square looked at, clipped to a picture of ``shape``."""
        h, w = shape[:2]
        half = self.card_px * REGION_CARDS / 2
        return (max(0, int(self.x - half)), max(0, int(self.y - half)),
                min(w, int(self.x + half)), min(h, int(self.y + half)))

    def to_json(self) -> dict:
        return {"seat": self.seat + 1, "x": round(self.x, 1), "y": round(self.y, 1),
                "card_px": round(self.card_px, 1)}


def spot_problems(spot: PileSpot, shape, full_width: int | None = None) -> list[str]:
    """What keeps the camera from reading cards on ``spot`` in pictures of ``shape``:
    out of view, or too small (``full_width``: the full-resolution still's width, when the
    stream is smaller; the card is read from the still)."""
    h, w = shape[:2]
    who = f"seat {spot.seat + 1}'s pile"
    out = []
    half = spot.card_px / 2
    if not (half <= spot.x <= w - half and half <= spot.y <= h - half):
        out.append(f"{who} at ({spot.x:.0f}, {spot.y:.0f}) is out of view: a card there is "
                   f"not wholly inside the {w} x {h} picture; move the pile or the camera")
    scale = (full_width / w) if full_width else 1.0
    px = spot.card_px * scale
    if px < MIN_CARD_PX:
        need = int(np.ceil(w * MIN_CARD_PX / spot.card_px))
        out.append(f"{who}: a card is {px:.0f} pixels long there, at least {MIN_CARD_PX} are "
                   f"needed to read its index; take the cards from a still at least {need} "
                   f"pixels wide, or bring the camera closer (docs/calibration.md)")
    return out


def laid_card(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The outline (4 x 2) of a card laid on the table between two pictures of the same
    view; :class:`PileError` (one line) when they differ in size or no card is found."""
    from .reader import find_new_card
    if before.shape != after.shape:
        raise PileError(f"the two pictures differ in size ({before.shape[1]} x "
                        f"{before.shape[0]} and {after.shape[1]} x {after.shape[0]})")
    quad = find_new_card(after, before, None)
    if quad is None:
        raise PileError("no card found laid between the two pictures")
    return quad


def spot_from_card(before: np.ndarray, after: np.ndarray, seat: int) -> PileSpot:
    """The spot of a card laid on the table between two pictures of the same view."""
    try:
        quad = laid_card(before, after)
    except PileError as exc:
        raise PileError(f"seat {seat + 1}: {exc}") from None
    q = np.float32(quad)
    sides = [float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4)]
    cx, cy = q.mean(axis=0)
    return PileSpot(seat, float(cx), float(cy), max(sides))


def piles_path(calibration: str | Path) -> Path:
    p = Path(calibration)
    return p.with_name(p.stem + ".piles.json")


def save_spots(path: str | Path, spots: list[PileSpot], width: int, height: int) -> None:
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps({"version": 1, "width": width, "height": height,
                               "piles": [s.to_json() for s in sorted(spots, key=lambda s: s.seat)]},
                              indent=1), "utf-8")
    tmp.replace(path)


def load_spots(path: str | Path) -> tuple[list[PileSpot], tuple[int, int]]:
    """The spots of a piles file and the picture size they were learnt in; PileError names
    the file and the key at fault."""
    path = Path(path)
    try:
        d = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise PileError(f"{path}: cannot read: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise PileError(f"{path}: not a piles file (not JSON)") from None
    if not isinstance(d, dict) or d.get("version") != 1 or not isinstance(d.get("piles"), list):
        raise PileError(f"{path}: not a piles file (expected version 1 and a 'piles' list)")
    size = (d.get("width"), d.get("height"))
    if not all(isinstance(v, int) and v > 0 for v in size):
        raise PileError(f"{path}: 'width' and 'height' must be whole numbers of pixels")
    spots = []
    for k, e in enumerate(d["piles"], 1):
        try:
            seat, x, y, px = e["seat"], e["x"], e["y"], e["card_px"]
            if not (isinstance(seat, int) and seat >= 1 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y, px))
                    and px > 0):
                raise TypeError
        except (KeyError, TypeError):
            raise PileError(f"{path}: pile {k}: expected seat (1 or more), x, y and card_px "
                            f"(pixels)") from None
        spots.append(PileSpot(seat - 1, float(x), float(y), float(px)))
    return spots, size


def parse_spot(text: str) -> PileSpot:
    """``SEAT:X,Y,CARD_PX`` typed at the command line (``2:1210,400,180``)."""
    try:
        seat, rest = text.split(":", 1)
        x, y, px = (float(v) for v in rest.split(","))
        seat_n = int(seat)
    except ValueError:
        raise PileError(f"{text[:40]!r}: expected SEAT:X,Y,CARD_PX, e.g. 2:1210,400,180") from None
    if seat_n < 1 or px <= 0:
        raise PileError(f"{text[:40]!r}: the seat counts from 1 and CARD_PX is a card's long "
                        f"side in pixels")
    return PileSpot(seat_n - 1, x, y, px)


def take_still(still, shot: list) -> tuple[np.ndarray | None, bool]:
    """The full-resolution still of one update, taken once: ``shot`` keeps it for the other
    spots. (still or None when the camera failed, whether it was taken now)."""
    if shot:
        return shot[0], False
    try:
        shot.append(still())
    except Exception:             # noqa: BLE001 - a camera error: the stream is read instead
        shot.append(None)
    return shot[0], True


class PileWatcher:
    """New cards on the discard piles, from the camera's frames (see the module text).

    ``update(frame)`` returns the cards laid since the last call: (seat, code or None)."""

    def __init__(self, spots: list[PileSpot], still_frames: int = 3, threshold: float = 12.0,
                 reader=None, still=None) -> None:
        """``still``: a function giving a full-resolution picture of the same view now (the
        Pi camera's :meth:`~vision.sources.Picamera2Source.still`), or None. With it, a pile
        whose cards are too small in the stream to read an index (under ``MIN_CARD_PX``) is
        read from a still taken when its change is seen; the stream finds the change."""
        from .reader import read_pile
        self.spots = list(spots)
        self.still = still
        self.stills_taken = 0
        self.problem: str | None = None   # why the stills are not used, said once
        self.still_frames = still_frames
        self.threshold = threshold
        self.read = reader or read_pile
        self._base: dict[int, np.ndarray] = {}      # the pile as last read (or at start)
        self._last: dict[int, np.ndarray] = {}
        self._still: dict[int, int] = {}
        self._tried: dict[int, np.ndarray] = {}     # a picture read as unknown
        self._read: dict[int, tuple] = {}   # the last card read: (code, corners, pile before)

    @staticmethod
    def _change(a: np.ndarray, b: np.ndarray) -> float:
        """How much ``b`` differs from ``a``: the share of pixels that changed, in %."""
        d = cv2.absdiff(cv2.GaussianBlur(a, (5, 5), 0), cv2.GaussianBlur(b, (5, 5), 0))
        return float((d.max(axis=2) > 30).mean() * 100)

    def _same_card(self, sp: PileSpot, reading) -> bool:
        """The card last read on this pile, in the same place (read once with a hand still
        over it, then again when the hand left): not a new card. The same card laid again
        (two decks) lies elsewhere or at another angle."""
        last = self._read.get(sp.seat)
        if last is None or last[0] != reading.code or last[1] is None or reading.quad is None:
            return False
        a, b = np.float32(last[1]), np.float32(reading.quad)
        err = min(float(np.abs(np.roll(a, r, axis=0) - b).max()) for r in range(4))
        return err < 0.08 * sp.card_px

    def _from_still(self, frame: np.ndarray, sp: PileSpot, base: np.ndarray, shot: list):
        """(after, before, card_px) of ``sp`` at the still's resolution, or None when there
        is no still to take (or it failed)."""
        if self.still is None or sp.card_px >= MIN_CARD_PX:
            return None
        still, taken = take_still(self.still, shot)
        self.stills_taken += taken
        if still is None or still.shape[1] <= frame.shape[1] or not self.same_view(frame, still, sp):
            return None
        k = still.shape[1] / frame.shape[1]
        big = PileSpot(sp.seat, sp.x * k, sp.y * k, sp.card_px * k)
        x0, y0, x1, y1 = big.region(still.shape)
        after = still[y0:y1, x0:x1]
        if after.shape[0] < 8 or after.shape[1] < 8:
            return None
        before = cv2.resize(base, (after.shape[1], after.shape[0]), interpolation=cv2.INTER_LINEAR)
        return after, before, big.card_px

    def same_view(self, frame: np.ndarray, still: np.ndarray, sp: PileSpot) -> bool:
        """Whether ``still`` shows the view of ``frame`` round the spot ``sp`` (the still
        pile: a camera whose video mode crops the sensor gives a still of a wider view, whose
        pixels do not map onto the frame's). Said once in ``self.problem`` when it does not."""
        small = cv2.resize(still, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_AREA)
        wide = PileSpot(sp.seat, sp.x, sp.y, sp.card_px * 2)
        x0, y0, x1, y1 = wide.region(frame.shape)
        a, b = (cv2.GaussianBlur(cv2.cvtColor(im[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), (5, 5), 0)
                .astype(np.float32).ravel() for im in (small, frame))
        ok = float(np.corrcoef(a, b)[0, 1]) > 0.9 if a.std() > 1 and b.std() > 1 else \
            float(np.median(np.abs(a - b))) < 12
        if not ok and self.problem is None:
            self.problem = ("the camera's full-resolution still does not show the same view as "
                            "its video frames (the video mode crops the sensor): the cards are "
                            "read from the frames; give camera.width and camera.height the "
                            "sensor's shape (docs/calibration.md)")
        return ok

    def _read_view(self, crop: np.ndarray, base: np.ndarray, sp: PileSpot, big):
        """Read the spot's picture ``crop`` against the pile before, ``base`` (both at the
        stream's size), or the still's picture ``big`` (after, before, card_px) when there is
        one; the card's corners in the stream crop's pixels."""
        if big is None:
            return self.read(crop, base, sp.card_px)
        after, _, px = big
        before = cv2.resize(base, (after.shape[1], after.shape[0]), interpolation=cv2.INTER_LINEAR)
        reading = self.read(after, before, px)
        if getattr(reading, "quad", None) is not None:
            reading.quad = np.float32(reading.quad) * (sp.card_px / px)
        return reading

    def update(self, frame: np.ndarray) -> list[tuple[int, str | None]]:
        out = []
        shot: list = []                   # the full-resolution still, taken once a frame
        for sp in self.spots:
            x0, y0, x1, y1 = sp.region(frame.shape)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            crop = frame[y0:y1, x0:x1].copy()
            base = self._base.get(sp.seat)
            if base is None:
                self._base[sp.seat] = self._last[sp.seat] = crop
                continue
            last = self._last[sp.seat]
            self._last[sp.seat] = crop
            # still: no change since the last frame (a hand moving is not still)
            self._still[sp.seat] = self._still.get(sp.seat, 0) + 1 \
                if self._change(last, crop) < 0.5 else 0
            if self._still[sp.seat] < self.still_frames:
                continue
            # share of the spot a card covers, about 1/REGION_CARDS^2 * 0.7: a fifth of it
            if self._change(base, crop) < 100 / (REGION_CARDS ** 2) / 5:
                continue
            tried = self._tried.get(sp.seat)
            if tried is not None and self._change(tried, crop) < 0.5:
                continue                  # this picture was read already: unknown
            big = self._from_still(frame, sp, base, shot)
            reading = self._read_view(crop, base, sp, big)
            self._still[sp.seat] = 0
            if sp.seat in self._read and (reading.code is None or self._same_card(sp, reading)):
                # the hand that was over the card last read has left: the same card, read
                # against the pile before it, is not a new card
                again = self._read_view(crop, self._read[sp.seat][2], sp, big)
                if self._same_card(sp, again):
                    self._base[sp.seat] = crop
                    self._tried.pop(sp.seat, None)
                    continue
            if reading.code is None:
                # unknown (a hand over the index, a blur): said once, read again when the
                # picture changes (the hand leaves); the pile before stays the reference
                if tried is None:
                    out.append((sp.seat, None))
                self._tried[sp.seat] = crop
                continue
            self._base[sp.seat] = crop
            self._tried.pop(sp.seat, None)
            self._read[sp.seat] = (reading.code, reading.quad, base)
            out.append((sp.seat, reading.code))
        return out
