"""The Jewish Edition's cards: drawn in the card world, and read against the board itself.

**Drawing** (:func:`jewish_card_image`): a picture card shows the picture of its two board
spaces, drawn the way the board draws it in the look (:func:`vision.looks.card_face` at the
board's cell size, scaled up), on the printing's paper, with its border and, in some
printings, the name under it; an ``ADD`` or ``REMOVE`` card shows its word and no picture.
How a real card lays its picture out is not in the rule book: this layout is guessed.

**Reading** (:func:`read_jewish_pile`): the new top card of a pile is found and straightened
as a playing card is (:mod:`vision.cards.reader`); then its picture is matched against
references the camera itself kept (:class:`JewishReferences`): the 50 board pictures as the
calibrated camera sees them on the empty board (each space cut from the board warped flat,
:func:`board_references`), and one ADD and one REMOVE card laid at set-up
(``seqboard calibrate --word-card``). Each picture (card or board space) is normalised by its
own paper's light, its ink (what differs from the paper) cut out by its bounding box, and
compared by normalised cross-correlation over a few scales, small shifts and the four
quarter turns. A card is named only when its best score clears :data:`MIN_SCORE` and beats
the best of any other card by :data:`MIN_MARGIN` (chosen on tuned looks,
``benchmarks/jewish_cards.py --split tuned``); anything else is unknown, never a guess.
Nothing is trained: any printing whose cards and board share their pictures is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .reader import W, H, _new_card_quads, _same_quad, line_candidates, straighten

ADD, REMOVE = "ADD", "REMOVE"
WORDS = (ADD, REMOVE)
#: the board's cell, in pixels, when the references are cut from the board warped flat
REF_CELL = 48
#: the reference's picture is compared at TEMPLATE x TEMPLATE pixels (its ink's box and
#: REF_PAD round it); the card's with its box at each of SCALES times the reference's, at
#: every shift of up to SHIFT pixels
TEMPLATE = 18
REF_PAD = 0.05
SCALES = (0.9, 1.0, 1.1)
SHIFT = 2
INK = 0.2                  # what differs from the paper by this much (any colour) is ink
STROKE = 0.1               # ink thinner than this part of the picture's side is left out
CARD_PICTURE = 0.68        # about how wide a card's picture is, as a part of the card
EDGE_OFF = True            # ink running off the card's middle: unknown (a hand over it)
EDGE_DROP = False          # ... or left out when the picture keeps clear (off: docs/cards.md)
EDGE_GAP = 9               # how clear, in pixels of the straightened card
PAPER_FIELD = True         # the card's paper light fitted as a plane (uneven light)
ASPECT_TOL = 0.35          # |log| of the ink boxes' aspect ratios compared
MIDDLE = (0.09, 0.91, 0.07, 0.93)   # x0, x1, y0, y1 of the card looked at for its picture
# Chosen on tuned looks (docs/cards.md, "The Jewish Edition's cards").
MIN_SCORE = 0.80
MIN_MARGIN = 0.12
#: a word card (ADD, REMOVE) squeezed into the compared square keeps little of its letters:
#: its own floor (its box's shape, wide, already rules most pictures out)
MIN_WORD_SCORE = 0.45


# ---------------------------------------------------------------- drawing ----------------

def _printing(st) -> dict:
    """How a printing lays its Jewish cards out (guessed; drawn from the printing's seed)."""
    rng = np.random.default_rng([st.seed, 2424])
    return {"frac": float(rng.uniform(0.6, 0.76)), "dy": float(rng.uniform(-0.06, 0.0)),
            "caption": bool(rng.random() < 0.5), "word_red": bool(rng.random() < 0.4),
            "word_scale": float(rng.uniform(0.62, 0.8))}


def jewish_card_image(code: str, st, height: int = 240) -> np.ndarray:
    """One Jewish Edition card (BGRA, portrait, ``height`` pixels) in the art style ``st``
    (:func:`vision.looks.art_style`): a picture card (a name of ``jewish_pictures.txt``) or
    ``ADD`` / ``REMOVE``."""
    from vision.looks import card_face
    from vision.synth import CELL

    from .styles import framed
    w, h = int(round(height / 1.4)), height
    lay = _printing(st)
    img = np.full((h, w, 3), st.paper, np.uint8)
    if code in WORDS:
        ink = st.red if lay["word_red"] else st.black
        thick = max(2, h // 80)
        (tw, th), _ = cv2.getTextSize(code, st.font, 1.0, thick)
        scale = lay["word_scale"] * w / tw
        (tw, th), _ = cv2.getTextSize(code, st.font, scale, thick)
        cv2.putText(img, code, (int((w - tw) / 2), int(h / 2 + th / 2)), st.font, scale, ink,
                    thick, cv2.LINE_AA)
    else:
        side = int(round(lay["frac"] * w))
        face = card_face(code, CELL, st)          # the board's own picture, at its own size
        face = cv2.resize(face, (side, side), interpolation=cv2.INTER_CUBIC)
        x0 = (w - side) // 2
        y0 = int(round((h - side) / 2 + lay["dy"] * h))
        img[y0:y0 + side, x0:x0 + side] = face
        if lay["caption"]:
            text = code.capitalize()
            thick = 1
            (tw, th), _ = cv2.getTextSize(text, st.font, 1.0, thick)
            scale = min(0.55 * w / tw, 0.05 * h / max(th, 1))
            (tw, th), _ = cv2.getTextSize(text, st.font, scale, thick)
            cv2.putText(img, text, (int((w - tw) / 2), min(h - int(0.1 * h), y0 + side + th + 8)),
                        st.font, scale, st.black, thick, cv2.LINE_AA)
    return framed(img, st.border if st.border < 3 else 1, st.border_colour)


# ---------------------------------------------------------------- features ----------------

def _ink_box(n: np.ndarray, side: float | None = None, edge: bool = False):
    """The box (x0, y0, x1, y1) round the picture's ink in a paper-normalised picture ``n``:
    what differs from the paper, small parts (a caption's letters, noise) left out; None when
    there is no ink. Thin strokes (the letters of a name printed on the card or in the
    picture) are left out when there are solid shapes: the picture's box is then its shapes',
    the same on a card and on the board; a word card's box is its word's. ``side``: about
    how big the picture is, in pixels (the strokes left out are thinner than a tenth of it;
    default: the picture ``n`` is all picture, as a board space is)."""
    dev = np.abs(n - 1.0).max(axis=2)
    raw = (dev > INK).astype(np.uint8)
    k = max(3, int(round(STROKE * (side or min(n.shape[:2])))))
    solid = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    box = _box(solid, n.shape, edge)
    if box is None:
        box = _box(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)), n.shape,
                   edge)
    return box


def _box(ink: np.ndarray, shape, edge: bool = False):
    """The box round the big parts of ``ink``. ``edge``: parts touching the picture's edge
    (a hand, a card below) are left out, and the box is "edge" when what is left comes
    near them (the picture may be partly under them)."""
    k, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if k <= 1:
        return None
    hh, ww = ink.shape
    if edge:
        x, y, w, h = (stats[1:, i] for i in range(4))
        touch = (x <= 1) | (y <= 1) | (x + w >= ww - 1) | (y + h >= hh - 1)
        if touch.any():
            off = np.isin(lab, np.nonzero(touch)[0] + 1)
            stats = stats.copy()
            stats[1:, cv2.CC_STAT_AREA][touch] = 0
            if stats[1:, cv2.CC_STAT_AREA].max() < 0.004 * ink.size:
                return "edge"
            near = cv2.dilate(off.astype(np.uint8), np.ones((EDGE_GAP, EDGE_GAP), np.uint8))
            keep = (stats[1:, cv2.CC_STAT_AREA] >= 0.1 * stats[1:, cv2.CC_STAT_AREA].max())
            kept = np.isin(lab, np.nonzero(keep)[0] + 1)
            if (near.astype(bool) & kept).any():
                return "edge"
    areas = stats[1:, cv2.CC_STAT_AREA]
    big = int(areas.max())
    if big < 0.004 * ink.size:
        return None
    keep = [i + 1 for i, a in enumerate(areas) if a >= max(0.1 * big, 0.002 * ink.size)]
    x0 = min(stats[i, 0] for i in keep)
    y0 = min(stats[i, 1] for i in keep)
    x1 = max(stats[i, 0] + stats[i, 2] for i in keep)
    y1 = max(stats[i, 1] + stats[i, 3] for i in keep)
    return int(x0), int(y0), int(x1), int(y1)


def _crop(n: np.ndarray, box, pad: float, size: int) -> np.ndarray:
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    src = np.float32([[x0 - pad * bw, y0 - pad * bh], [x1 + pad * bw, y0 - pad * bh],
                      [x1 + pad * bw, y1 + pad * bh]])
    dst = np.float32([[0, 0], [size, 0], [size, size]])
    m = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(n, m, (size, size), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(1.0, 1.0, 1.0))


def _normalise(img: np.ndarray, paper=None) -> np.ndarray:
    f = img.astype(np.float32) + 1
    if paper is None:
        paper = np.percentile(f.reshape(-1, 3), 80, axis=0)
    return np.clip(f / np.maximum(np.float32(paper), 2), 0, 1.3).astype(np.float32)


def _unit(v: np.ndarray) -> np.ndarray:
    """Rows of ``v`` (k, h, w, 3) as zero-mean (per channel), unit-length vectors."""
    v = v - v.mean(axis=(1, 2), keepdims=True)
    v = v.reshape(len(v), -1)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


def _paper_field(card: np.ndarray) -> np.ndarray:
    """The card's paper light at every pixel: a plane per colour fitted on a ring of paper
    just inside the card's edge (its brighter part: ink and a finger left out)."""
    f = card.astype(np.float32) + 1
    h, w = f.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a, b = 0.04, 0.09
    ring = ((xx > a * w) & (xx < (1 - a) * w) & (yy > a * h) & (yy < (1 - a) * h)
            & ~((xx > b * w) & (xx < (1 - b) * w) & (yy > b * h) & (yy < (1 - b) * h)))
    px = f[ring]
    lum = px.sum(axis=1)
    keep = lum >= np.percentile(lum, 40)
    X = np.stack([np.ones(int(keep.sum()), np.float32), xx[ring][keep] / w - 0.5,
                  yy[ring][keep] / h - 0.5], 1)
    coef, *_ = np.linalg.lstsq(X, px[keep], rcond=None)
    field = coef[0][None, None, :] + (xx / w - 0.5)[..., None] * coef[1] \
        + (yy / h - 0.5)[..., None] * coef[2]
    return np.maximum(field, 2)


def _middle(card: np.ndarray) -> np.ndarray:
    if PAPER_FIELD:
        f = card.astype(np.float32) + 1
        n = np.clip(f / _paper_field(card), 0, 1.3).astype(np.float32)
    else:
        n = _normalise(card)
    x0, x1 = int(MIDDLE[0] * W), int(MIDDLE[1] * W)
    y0, y1 = int(MIDDLE[2] * H), int(MIDDLE[3] * H)
    return n[y0:y1, x0:x1]


def card_picture(card: np.ndarray):
    """(the picture's patches, unit vectors at each scale and shift; its ink box's aspect)
    of a straightened card (``W`` x ``H``), or None when its middle holds no ink."""
    mid = _middle(card)
    box = _ink_box(mid, CARD_PICTURE * W, EDGE_DROP)
    if box is None or box == "edge":
        return box
    if EDGE_OFF and (box[0] <= 1 or box[1] <= 1 or box[2] >= mid.shape[1] - 1
                     or box[3] >= mid.shape[0] - 1):
        return "edge"             # ink running off the card's middle: a hand, a card below
    aspect = (box[2] - box[0]) / max(box[3] - box[1], 1)
    T = TEMPLATE
    patches = []
    size = T + 2 * SHIFT
    for r in SCALES:
        span = r * T / (1 + 2 * REF_PAD)            # the box's side in the crop, pixels
        c = _crop(mid, box, (size / span - 1) / 2, size)
        for dy in range(2 * SHIFT + 1):
            for dx in range(2 * SHIFT + 1):
                patches.append(c[dy:dy + T, dx:dx + T])
    return _unit(np.stack(patches)), float(aspect)


def _reference_views(n: np.ndarray, box):
    """The reference's picture in each quarter turn: [(aspect in that turn, T x T crop)]."""
    aspect = (box[2] - box[0]) / max(box[3] - box[1], 1)
    c = _crop(n, box, REF_PAD, TEMPLATE)
    return [(aspect if k % 2 == 0 else 1 / aspect, np.ascontiguousarray(np.rot90(c, k)))
            for k in range(4)]


# ---------------------------------------------------------------- references ----------------

@dataclass
class JewishReferences:
    """The pictures a new card is matched against: (code, paper-normalised picture) pairs.

    Kept in a file beside the calibration (``calibration.jewish.npz``): the board's
    pictures cut from the empty board warped flat, and the word cards laid at set-up."""

    codes: list
    pictures: list              # float32 (h, w, 3), normalised by the paper's light

    def __post_init__(self) -> None:
        self._views = None

    @property
    def words(self) -> set:
        return {c for c in self.codes if c in WORDS}

    def views(self):
        """(codes, log aspects, unit vectors): one row per reference picture and turn."""
        if self._views is None:
            codes, aspects, crops = [], [], []
            for code, pic in zip(self.codes, self.pictures):
                box = _ink_box(pic)
                if box is None:
                    continue
                for a, c in _reference_views(pic, box):
                    codes.append(code)
                    aspects.append(np.log(max(a, 1e-3)))
                    crops.append(c)
            if crops:
                self._views = (np.array(codes), np.float32(aspects), _unit(np.stack(crops)))
            else:
                self._views = (np.array([], str), np.zeros(0, np.float32),
                               np.zeros((0, TEMPLATE * TEMPLATE * 3), np.float32))
        return self._views

    def with_word(self, code: str, card: np.ndarray) -> "JewishReferences":
        """These references with the word card ``code`` (ADD or REMOVE) as straightened from
        a picture of it (``W`` x ``H``); one of each is kept (a new one replaces the old)."""
        if code not in WORDS:
            raise ValueError(f"{code!r}: only ADD and REMOVE are kept as word cards")
        mid = _middle(card)
        if _ink_box(mid) is None:
            raise ValueError(f"the {code} card shows nothing to read (blank paper?)")
        keep = [(c, p) for c, p in zip(self.codes, self.pictures) if c != code]
        return JewishReferences([c for c, _ in keep] + [code], [p for _, p in keep] + [mid])

    def save(self, path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays = {f"p{k}": np.round(p * 200).astype(np.uint8) for k, p in enumerate(self.pictures)}
        np.savez_compressed(tmp, codes=np.array(self.codes), version=np.int32(1), **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path) -> "JewishReferences":
        """Raises ValueError naming the file when it cannot be used."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as d:
                if int(d["version"]) != 1:
                    raise ValueError
                codes = [str(c) for c in d["codes"]]
                pics = [d[f"p{k}"].astype(np.float32) / 200 for k in range(len(codes))]
        except OSError as exc:
            raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError, EOFError):
            raise ValueError(f"{path}: not a Jewish Edition card reference file") from None
        if any(p.ndim != 3 or p.shape[2] != 3 for p in pics):
            raise ValueError(f"{path}: not a Jewish Edition card reference file")
        return cls(codes, pics)


def references_path(calibration) -> Path:
    p = Path(calibration)
    return p.with_name(p.stem + ".jewish.npz")


def picture_layout(layout) -> bool:
    """Whether the board shows pictures (the Jewish Edition) rather than playing cards."""
    from engine.editions import jewish_pictures
    pics = set(jewish_pictures())
    return any(s in pics for s in layout.symbols)


def board_references(frame: np.ndarray, corners, layout, words: JewishReferences | None = None
                     ) -> JewishReferences:
    """Every board space's picture as the camera sees it on the EMPTY board in ``frame``
    (the grid's ``corners`` from the calibration): the board warped flat, each space cut
    out inside its grid lines and normalised by the paper at its edge. The word cards of
    ``words`` are kept."""
    from vision.locate import straighten as flat
    cell = REF_CELL
    board = flat(frame, np.float32(corners), layout, cell).astype(np.float32) + 1
    codes, pics = [], []
    m = max(2, cell // 16)
    for i, sym in enumerate(layout.symbols):
        if i in layout.free:
            continue
        r, c = divmod(i, layout.cols)
        sp = board[r * cell + m:(r + 1) * cell - m, c * cell + m:(c + 1) * cell - m]
        ring = np.concatenate([sp[:3].reshape(-1, 3), sp[-3:].reshape(-1, 3),
                               sp[:, :3].reshape(-1, 3), sp[:, -3:].reshape(-1, 3)])
        lum = ring.sum(axis=1)
        paper = np.median(ring[lum >= np.percentile(lum, 60)], axis=0)
        codes.append(sym)
        pics.append(np.clip(sp / np.maximum(paper, 2), 0, 1.3).astype(np.float32))
    if words is not None:
        for c, p in zip(words.codes, words.pictures):
            if c in WORDS:
                codes.append(c)
                pics.append(p)
    return JewishReferences(codes, pics)


# ---------------------------------------------------------------- reading ----------------

@dataclass
class JewishReading:
    code: str | None                      # "MENORAH", "ADD", "REMOVE", or None: unknown
    quad: np.ndarray | None = None
    reason: str = ""
    score: float = 0.0
    margin: float = 0.0
    best: str | None = None               # the likeliest card, named or not

    @property
    def known(self) -> bool:
        return self.code is not None


def scores(card: np.ndarray, refs: JewishReferences) -> dict:
    """Each reference card's best match with the straightened ``card`` (normalised cross-
    correlation, best over scales, shifts and quarter turns): code -> score."""
    got = card_picture(card)
    if got is None or got == "edge":
        return {}
    patches, aspect = got
    codes, aspects, vecs = refs.views()
    if not len(codes):
        return {}
    sims = (vecs @ patches.T).max(axis=1)
    sims[np.abs(aspects - np.log(max(aspect, 1e-3))) > ASPECT_TOL] = -1.0
    best: dict = {}
    for code, s in zip(codes.tolist(), sims.tolist()):
        if s > best.get(code, -1.0):
            best[code] = s
    return best


def read_jewish_straight(card: np.ndarray, refs: JewishReferences) -> JewishReading:
    """Read a straightened Jewish Edition card (``W`` x ``H``) against ``refs``."""
    sc = scores(card, refs)
    if not sc:
        why = "something runs off the card's middle (a hand over it?)" \
            if card_picture(card) == "edge" else "no picture or word on the card"
        return JewishReading(None, reason=why)
    order = sorted(sc.items(), key=lambda kv: -kv[1])
    code, s = order[0]
    second = order[1][1] if len(order) > 1 else 0.0
    out = JewishReading(None, score=s, margin=s - second, best=code)
    if s < (MIN_WORD_SCORE if code in WORDS else MIN_SCORE) or s - second < MIN_MARGIN:
        nxt = f", next {order[1][0]} {second:.2f}" if len(order) > 1 else ""
        out.reason = f"the picture is not surely one card's ({code} {s:.2f}{nxt})"
        return out
    out.code = code
    return out


def read_jewish_pile(after: np.ndarray, before: np.ndarray, card_px: float | None,
                     refs: JewishReferences) -> JewishReading:
    """The new top Jewish Edition card of a pile between two pictures: every rectangle the
    finder proposes is read; a card is named only when those read surely agree, a rectangle
    that read the same card in the picture before (a card below) left out."""
    quads = pile_quads(after, before, card_px)
    if not quads:
        return JewishReading(None, reason="no new card found")
    reads = []
    for q in quads:
        r = read_jewish_straight(straighten(after, q), refs)
        r.quad = q
        if r.code and read_jewish_straight(straighten(before, q), refs).code == r.code:
            # the same card read there in the picture before: a card below, not the new one
            r = JewishReading(None, q, f"{r.code} lay there before (a card below)", r.score,
                              r.margin, r.best)
        reads.append(r)
    known = [r for r in reads if r.code]
    if not known:
        return max(reads, key=lambda r: r.score)
    if len({r.code for r in known}) > 1:
        return JewishReading(None, known[0].quad,
                             "the card's outline is doubtful: it reads "
                             + " or ".join(sorted({r.code for r in known})),
                             best=known[0].code)
    return max(known, key=lambda r: r.score)


def pile_quads(after: np.ndarray, before: np.ndarray, card_px: float | None) -> list:
    """The rectangles the playing-card finder proposes for the new card (its changed paper,
    and its new straight edges)."""
    quads = _new_card_quads(after, before, card_px)
    if card_px:
        for q in line_candidates(after, before, card_px):
            if not any(_same_quad(q, o, 0.015 * card_px) for o in quads):
                quads.append(q)
    return quads


def pile_reader(refs: JewishReferences):
    """A reader for :class:`vision.cards.piles.PileWatcher`: (after, before, card_px) ->
    reading."""
    def read(after, before, card_px=None):
        return read_jewish_pile(after, before, card_px, refs)
    return read


def find_jewish_cards(img: np.ndarray, refs: JewishReferences) -> list[JewishReading]:
    """Every card-shaped paper part of a picture, read as Jewish Edition cards
    (``seqboard read --cards`` in a Jewish game)."""
    from .reader import find_cards
    out = []
    for r in find_cards(img, read=False):
        j = read_jewish_straight(straighten(img, r.quad), refs)
        j.quad = r.quad
        out.append(j)
    return out
