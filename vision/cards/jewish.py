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
own paper's light, its ink (what differs from the paper) cut out by its bounding box (a
board picture also by its box without a name the camera's blur thickened and without parts
cut in at the space's edge), and compared by normalised cross-correlation over a few scales
and small shifts (a word's wide box in a wide layout, not squeezed square), upright and
upside down (:data:`TURNS`; a quarter turn only for the two quarters a printing may turn,
once the game has shown the board is not calibrated a quarter turn off). A hand or sleeve
reaching in over the card (:func:`_cover`) is left out: the picture's box is searched from
its uncovered sides and compared over the uncovered pixels only (:func:`covered_scores`);
once the game has named clear cards, each board picture is put where this printing lays
its picture on the card instead (:meth:`JewishReferences.layout`, :func:`layout_scores`).
A card is named only when its best score clears :data:`MIN_SCORE` and beats the best of
any other card by :data:`MIN_MARGIN` (or the other bars below; chosen on tuned looks,
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
WIDE = 2.2                 # a box this much wider than high is compared in a wide layout
ASPECT_TOL = 0.35          # |log| of the ink boxes' aspect ratios compared
#: the opening keeps less than this part of the ink: the picture is strokes (a word, line
#: art), whose box is all of its ink's (a bold word's thickest parts alone gave a box of
#: a letter or two, a different one on the card kept at set-up and the card laid)
STROKES_ONLY = 0.3
REF_EXTRA = True           # a board picture also compared by its other likely boxes
REF_BLUR = 2               # ... strokes this much thicker left out (the camera's blur)
MIDDLE = (0.09, 0.91, 0.07, 0.93)   # x0, x1, y0, y1 of the card looked at for its picture
#: the quarter turns a reference picture is matched in: upright or upside down against the
#: board as calibrated (a card is straightened either end up; a board prints its pictures
#: facing a side). A board calibrated a quarter turn off shows every picture turned a
#: quarter: no card matches it (unknown, never named wrong). The pictures of the top-right
#: and bottom-left quarters of the board (which a printing may turn a quarter, as playing-
#: card boards do) are matched in the other two turns too, once a card of the other two
#: quarters has been named (:attr:`JewishReferences.quarter_ok`). docs/cards.md
TURNS = (0, 2)
#: a hand or sleeve over the card (``_cover``): its pixels are left out of the comparison
#: (masked correlation) and the picture's box is searched from its uncovered sides, at
#: these multiples of the smallest box that holds what shows
COVER_GROW = (1.0, 1.12, 1.25, 1.4, 1.6, 1.8)
COVER_SHIFT = 1
COVER_DILATE = 3           # pixels round the cover left out too (its blurred rim)
COVER_COLOUR = 0.15        # a pixel this near (any colour) a colour entering is the cover
COVER_TOL = 0.12           # a side seen on both ends: the box's size within this of it
#: the printing's layout (session thirteen): where a printing lays its picture on the card
#: and how big, against the board's picture, learned from the clear cards named in the game
#: (the median of the last LAYOUT_KEEP once LAYOUT_MIN are, their scales within
#: LAYOUT_SPREAD); a picture under a hand is then matched where each reference's picture
#: must lie, either end up, at LAYOUT_SCALES of its size and shifts of LAYOUT_SHIFT
LAYOUT = True
LAYOUT_MIN = 2
LAYOUT_KEEP = 15
LAYOUT_SPREAD = 0.06
LAYOUT_LEARN = 0.9
LAYOUT_SCALES = (0.95, 1.0, 1.05)
LAYOUT_SHIFT = 1
LAYOUT_VISIBLE = 0.5
LAYOUT_SLACK = 0.02        # ... its score there this near its best
LAYOUT_SCORE = 0.80        # its bars
LAYOUT_MARGIN = 0.15
LAYOUT_IOU = 0.5           # ... and the inks' overlap where it shows
LAYOUT_INK = 0.4           # the part of a reference's ink that must show to name it
LAYOUT_OUTSIDE = 4         # ink that shows this far outside a reference's box: not it
#: the layout match searched finer round each close reference's best window (session
#: sixteen, docs/cards.md): moved by these parts of a crop pixel, scaled by these
LAYOUT_FINE = True
FINE_SHIFTS = (-0.5, 0.0, 0.5)
FINE_SCALES = (1.0,)
FINE_DELTA = 0.25          # ... for the rows scored this near the best one
# Chosen on tuned looks (docs/cards.md, "The Jewish Edition's cards").
MIN_VISIBLE = 0.6          # the part of the picture's box not under the cover
MIN_COVER_SCORE = 0.80
MIN_COVER_MARGIN = 0.15       # 0.12 before session nine (docs/cards.md)
MIN_SCORE = 0.80
MIN_MARGIN = 0.12
#: ... or, a picture matched this well (two drawn pictures alike in their shapes' colours
#: keep the right one's margin under MIN_MARGIN), by this margin
SURE_SCORE = 0.90
SURE_MARGIN = 0.06
#: a word card (ADD, REMOVE) squeezed into the compared square keeps little of its letters:
#: its own floor (its box's shape, wide, already rules most pictures out)
MIN_WORD_SCORE = 0.55
#: a rectangle of the finder reaching off the new card (``_off_card``): an end band of it
#: (``OFF_BAND``, parts of the straightened card's length from its end) that is, in this
#: part (``OFF_PART``) of its pixels, unchanged from the picture before (the finder's
#: bar: 25 in any colour, both blurred) and unlike the new card's paper (by ``INK``) is the
#: table or a card below past the new card: the rectangle is not read. Such a rectangle,
#: card-sized, can lie a quarter turn across the card (its long side along the card's
#: short one): its picture is straightened turned a quarter, and would match a board
#: calibrated a quarter turn off, or a turned quarter's picture before the turns are
#: allowed (found on OpenCV 5.1's drawn cards; docs/cards.md)
OFF_CARD = True
OFF_BAND = (0.02, 0.12)
OFF_PART = 0.8
OFF_CHANGED = 25


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

def _ref_boxes(pic: np.ndarray) -> list:
    """The boxes a board space's picture is compared by: its ink's box (:func:`_ink_box`)
    and, when they differ from it, the box with strokes up to ``REF_BLUR`` pixels thicker
    left out (a name printed under the picture, thickened by the camera's blur at a
    space's size: on the card it is thin and left out) and the box of the parts that keep
    clear of the space's edge (a grid line, the next space's name or a shadow's edge cut
    in)."""
    first = _ink_box(pic)
    if first is None:
        return []
    out = [first]
    if not REF_EXTRA:
        return out
    more = [_ink_box(pic, thicker=REF_BLUR), _inner_box(pic)]
    for b in more:
        if b is not None and not isinstance(b, str) and all(
                max(abs(p - q) for p, q in zip(b, o)) > 2 for o in out):
            out.append(b)
    return out


def _inner_box(n: np.ndarray):
    """The box of a space's solid ink parts that keep clear of its edge, when they hold at
    least half of its solid ink; None otherwise."""
    dev = np.abs(n - 1.0).max(axis=2)
    raw = (dev > INK).astype(np.uint8)
    k = max(3, int(round(STROKE * min(n.shape[:2]))))
    solid = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    m, lab, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    if m <= 2:
        return None
    hh, ww = solid.shape
    x, y, w, h, a = (stats[1:, i] for i in range(5))
    touch = (x <= 1) | (y <= 1) | (x + w >= ww - 1) | (y + h >= hh - 1)
    if not touch.any() or a[~touch].sum() < 0.5 * a.sum():
        return None
    keep = np.isin(lab, np.nonzero(~touch)[0] + 1).astype(np.uint8)
    return _box(keep, n.shape)


def _ink_box(n: np.ndarray, side: float | None = None, edge: bool = False, thicker: int = 0):
    """The box (x0, y0, x1, y1) round the picture's ink in a paper-normalised picture ``n``:
    what differs from the paper, small parts (a caption's letters, noise) left out; None when
    there is no ink. Thin strokes (the letters of a name printed on the card or in the
    picture) are left out when there are solid shapes: the picture's box is then its shapes',
    the same on a card and on the board; a word card's box is its word's. ``side``: about
    how big the picture is, in pixels (the strokes left out are thinner than a tenth of it;
    default: the picture ``n`` is all picture, as a board space is)."""
    dev = np.abs(n - 1.0).max(axis=2)
    raw = (dev > INK).astype(np.uint8)
    k = max(3, int(round(STROKE * (side or min(n.shape[:2]))))) + thicker
    solid = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    box = None
    if int(solid.sum()) >= STROKES_ONLY * int(raw.sum()):
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


def _box_to_square(box, pad, size) -> np.ndarray:
    """The affine map of ``box`` (x0, y0, x1, y1), widened by ``pad`` of its size on each
    side (one figure, or (across, down)), onto a rectangle of ``size`` pixels (one figure
    for a square, or (width, height))."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    px, py = (pad, pad) if np.isscalar(pad) else pad
    sw, sh = (size, size) if np.isscalar(size) else size
    src = np.float32([[x0 - px * bw, y0 - py * bh], [x1 + px * bw, y0 - py * bh],
                      [x1 + px * bw, y1 + py * bh]])
    dst = np.float32([[0, 0], [sw, 0], [sw, sh]])
    return cv2.getAffineTransform(src, dst)


def _crop(n: np.ndarray, box, pad, size) -> np.ndarray:
    sw, sh = (size, size) if np.isscalar(size) else size
    return cv2.warpAffine(n, _box_to_square(box, pad, size), (int(sw), int(sh)),
                          flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=(1.0, 1.0, 1.0))


def _layout(aspect: float) -> tuple:
    """The compared picture's (width, height) for a box of this ``aspect`` (width /
    height): a square of ``TEMPLATE``; a box ``WIDE`` times wider than high (a word:
    squeezed into the square its letters kept little) twice as wide and half as high, the
    same number of pixels; a box as much higher than wide, the other way. Decided on the
    aspect rounded as the masked match groups the references' shapes (0.05 in log)."""
    la = round(float(np.log(max(aspect, 1e-3))) / 0.05) * 0.05
    T = TEMPLATE
    if la >= np.log(WIDE) - 1e-9:
        return 2 * T, T // 2
    if la <= -np.log(WIDE) + 1e-9:
        return T // 2, 2 * T
    return T, T


def _windows(c: np.ndarray, w: int, h: int, n: int) -> list:
    """Every ``w`` x ``h`` window of ``c`` shifted by 0..n-1 down and across."""
    return [c[dy:dy + h, dx:dx + w] for dy in range(n) for dx in range(n)]


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


def _middle_size() -> tuple:
    """The card's middle's (width, height) in pixels (:func:`_middle`)."""
    return int(MIDDLE[1] * W) - int(MIDDLE[0] * W), int(MIDDLE[3] * H) - int(MIDDLE[2] * H)


def _middle(card: np.ndarray) -> np.ndarray:
    if PAPER_FIELD:
        f = card.astype(np.float32) + 1
        n = np.clip(f / _paper_field(card), 0, 1.3).astype(np.float32)
    else:
        n = _normalise(card)
    x0, x1 = int(MIDDLE[0] * W), int(MIDDLE[1] * W)
    y0, y1 = int(MIDDLE[2] * H), int(MIDDLE[3] * H)
    return n[y0:y1, x0:x1]


def _cover(n: np.ndarray) -> np.ndarray | None:
    """Where a hand, a sleeve or anything reaching in over the card's edge covers the
    paper-normalised middle ``n`` (bool), or None when nothing does. What reaches in is ink
    touching the middle's edge; of it, the pixels of the colours it has where it crosses
    the edge (skin, a sleeve, a card below, the table past a rectangle a little off) are
    the cover; a picture's shape a finger touches is not (its own colour) and stays to be
    matched. (The board reader's skin test was tried and not used: it takes a picture's
    brown and orange shapes for fingers.)"""
    dev = np.abs(n - 1.0).max(axis=2)
    raw = (dev > INK).astype(np.uint8)
    k, lab, stats, _ = cv2.connectedComponentsWithStats(raw, connectivity=8)
    if k <= 1:
        return None
    hh, ww = raw.shape
    x, y, w, h = (stats[1:, i] for i in range(4))
    touch = np.nonzero((x <= 1) | (y <= 1) | (x + w >= ww - 1) | (y + h >= hh - 1))[0] + 1
    if not len(touch):
        return None
    border = np.zeros(raw.shape, bool)
    border[:3], border[-3:], border[:, :3], border[:, -3:] = True, True, True, True
    cover = np.zeros(raw.shape, bool)
    for j in touch:
        win = (slice(y[j - 1], y[j - 1] + h[j - 1]), slice(x[j - 1], x[j - 1] + w[j - 1]))
        part, nn, bd = lab[win] == j, n[win], border[win]
        entry = nn[part & bd]
        if not len(entry):
            continue
        # the entering colours: those of at least a sixth of the edge's pixels
        q = np.round(entry / COVER_COLOUR).astype(np.int64)
        key = (q[:, 0] * 64 + q[:, 1]) * 64 + q[:, 2]      # one number a colour: quicker
        _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
        near = np.zeros(part.shape, bool)
        for c in np.nonzero(cnt >= max(3, len(entry) / 6))[0]:
            col = np.median(entry[inv.ravel() == c], axis=0)
            near |= part & (np.abs(nn - col).max(axis=2) < COVER_COLOUR)
        # of those, what reaches the edge (a picture's rim of a like colour does not)
        _, ln = cv2.connectedComponents(near.astype(np.uint8), connectivity=8)
        edge_parts = np.unique(ln[near & bd])
        cover[win] |= np.isin(ln, edge_parts[edge_parts > 0])
    if not cover.any():
        return None
    g = COVER_DILATE
    return cv2.dilate(cover.astype(np.uint8), np.ones((g, g), np.uint8)).astype(bool)


def card_picture(card: np.ndarray):
    """(the picture's patches, unit vectors at each scale and shift; its ink box's aspect;
    whether a cover lies on the card, clear of the picture) of a straightened card (``W`` x
    ``H``), or None when its middle holds no ink; "edge"
    when something runs off the middle that is not told for a cover; a
    :class:`CoveredPicture` when a cover lies over or beside the picture."""
    mid = _middle(card)
    cover = _cover(mid)
    if cover is not None:
        seen = mid.copy()
        seen[cover] = 1.0
        box = _ink_box(seen, CARD_PICTURE * W)
        if box is None:
            return "edge"
        open_sides = _open_sides(box, cover)
        if any(open_sides):
            return CoveredPicture(seen, ~cover, box, open_sides)
        mid = seen                 # the cover keeps clear of the picture's box
    box = _ink_box(mid, CARD_PICTURE * W, EDGE_DROP)
    if box is None or box == "edge":
        return box
    if EDGE_OFF and (box[0] <= 1 or box[1] <= 1 or box[2] >= mid.shape[1] - 1
                     or box[3] >= mid.shape[0] - 1):
        return "edge"             # ink running off the card's middle: a hand, a card below
    aspect = (box[2] - box[0]) / max(box[3] - box[1], 1)
    # the layouts of every reference shape the card's box may be compared with
    la = np.log(max(aspect, 1e-3))
    layouts = {_layout(float(np.exp(x))) for x in np.linspace(la - ASPECT_TOL, la + ASPECT_TOL, 29)}
    patches = {}
    for w, h in layouts:
        out = []
        size = (w + 2 * SHIFT, h + 2 * SHIFT)
        for r in SCALES:
            sx, sy = r * w / (1 + 2 * REF_PAD), r * h / (1 + 2 * REF_PAD)   # the box, pixels
            c = _crop(mid, box, ((size[0] / sx - 1) / 2, (size[1] / sy - 1) / 2), size)
            out += _windows(c, w, h, 2 * SHIFT + 1)
        patches[(w, h)] = _unit(np.stack(out))
    return patches, float(aspect), cover is not None, box


def _open_sides(box, cover: np.ndarray) -> tuple:
    """Which sides (left, top, right, bottom) of the ink's ``box`` the cover comes near:
    the picture may go on under it there."""
    x0, y0, x1, y1 = box
    g = EDGE_GAP
    hh, ww = cover.shape
    ys, xs = slice(max(0, y0 - g), min(hh, y1 + g)), slice(max(0, x0 - g), min(ww, x1 + g))
    return (bool(cover[ys, max(0, x0 - g):x0 + 2].any()),
            bool(cover[max(0, y0 - g):y0 + 2, xs].any()),
            bool(cover[ys, max(0, x1 - 2):x1 + g].any()),
            bool(cover[max(0, y1 - 2):y1 + g, xs].any()))


@dataclass
class CoveredPicture:
    """A card's middle with a cover over part of its picture: the middle with the cover
    painted paper (``seen``), where it shows (``visible``), the box of the ink that shows,
    and which of its sides the cover comes near."""

    seen: np.ndarray
    visible: np.ndarray
    box: tuple
    open_sides: tuple

    def boxes(self, aspect: float):
        """The picture's possible boxes for a reference of this ``aspect`` (width / height):
        each holds what shows, keeps every side the cover does not come near, and is as
        wide as the sides seen on both ends say."""
        x0, y0, x1, y1 = self.box
        wv, hv = x1 - x0, y1 - y0
        ol, ot, orr, ob = self.open_sides
        base = max(wv, hv * aspect)
        out = []
        for f in COVER_GROW:
            bw = base * f
            bh = bw / aspect
            if (not ol and not orr and abs(bw - wv) > COVER_TOL * bw + 2) or \
                    (not ot and not ob and abs(bh - hv) > COVER_TOL * bh + 2):
                continue
            bx = x0 if not ol else (x1 - bw if not orr else (x0 + x1 - bw) / 2)
            by = y0 if not ot else (y1 - bh if not ob else (y0 + y1 - bh) / 2)
            out.append((bx, by, bx + bw, by + bh))
        return out


def _crop_mask(m: np.ndarray, box, pad, size) -> np.ndarray:
    sw, sh = (size, size) if np.isscalar(size) else size
    return cv2.warpAffine(m.astype(np.float32), _box_to_square(box, pad, size), (sw, sh),
                          flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)


def covered_scores(pic: CoveredPicture, refs: "JewishReferences", only=None) -> dict:
    """Each reference card's best masked correlation with a partly covered picture: over
    the boxes its shape allows (:meth:`CoveredPicture.boxes`) and shifts of up to
    ``COVER_SHIFT`` pixels, only where the card shows (a box less than ``MIN_VISIBLE``
    uncovered is not compared): code -> score. ``only``: which rows of
    :meth:`JewishReferences.views` are compared (default every one)."""
    codes, aspects, _ = refs.views()
    flat = refs.crops()
    if not len(codes):
        return {}
    best = np.full(len(codes), -1.0, np.float32)
    bins = np.round(aspects / 0.05).astype(int)
    barred = refs.barred()
    if only is not None:
        barred = barred | ~only
    n = 2 * COVER_SHIFT + 1
    for b in np.unique(bins[~barred]):
        idx = np.nonzero((bins == b) & ~barred)[0]
        xs, ws = [], []
        w, h = _layout(float(np.exp(b * 0.05)))       # the bin's references' layout
        size = (w + 2 * COVER_SHIFT, h + 2 * COVER_SHIFT)
        pad = ((size[0] * (1 + 2 * REF_PAD) / w - 1) / 2,
               (size[1] * (1 + 2 * REF_PAD) / h - 1) / 2)
        for box in pic.boxes(float(np.exp(b * 0.05))):
            xs += _windows(_crop(pic.seen, box, pad, size), w, h, n)
            ws += _windows(_crop_mask(pic.visible, box, pad, size) > 0.5, w, h, n)
        if not xs:
            continue
        Wt = np.stack(ws).reshape(len(ws), w * h).astype(np.float32)
        keep = Wt.mean(axis=1) >= MIN_VISIBLE
        if not keep.any():
            continue
        Wt = Wt[keep]
        X = np.stack(xs)[keep].reshape(len(Wt), w * h, 3)
        R = flat[idx]
        # correlation over the visible pixels only (weights 0 or 1), every candidate crop
        # against every reference at once
        sw = Wt.sum(axis=1)
        xc = (X - ((Wt[..., None] * X).sum(axis=1) / sw[:, None])[:, None, :]) * Wt[..., None]
        num = xc.reshape(len(Wt), -1) @ R.reshape(len(R), -1).T
        rr = np.zeros_like(num)
        for ch in range(3):
            mr = (Wt @ R[:, :, ch].T) / sw[:, None]
            rr += Wt @ (R[:, :, ch] ** 2).T - sw[:, None] * mr * mr
        den = np.sqrt(np.maximum(rr, 0) * (xc * xc).sum(axis=(1, 2))[:, None]) + 1e-6
        best[idx] = np.maximum(best[idx], (num / den).max(axis=0))
    out: dict = {}
    for code, s in zip(codes.tolist(), best.tolist()):
        if s > -1.0 and s > out.get(code, -1.0):
            out[code] = s
    return out


def _inked(v: np.ndarray) -> np.ndarray:
    """Which pixels of paper-normalised rows ``v`` (k, n, 3) are ink (by ``INK``)."""
    d = np.abs(v - 1.0)
    return np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2]) > INK


def _turned_geometry(shape, box, k: int) -> tuple:
    """A reference box's (centre across, centre down, width, height) in its picture turned
    ``k`` quarters (as :func:`np.rot90`), the centre from the picture's centre."""
    hh, ww = shape[:2]
    dx, dy = (box[0] + box[2]) / 2 - ww / 2, (box[1] + box[3]) / 2 - hh / 2
    bw, bh = box[2] - box[0], box[3] - box[1]
    for _ in range(k % 4):
        dx, dy, bw, bh = dy, -dx, bh, bw
    return float(dx), float(dy), float(bw), float(bh)


def layout_scores(pic: CoveredPicture, refs: "JewishReferences", lay, shown: dict | None = None,
                  fine: dict | None = None) -> dict:
    """Each picture card's best masked correlation with a partly covered picture, each
    reference's picture put where the printing's layout ``lay`` (:meth:`JewishReferences.
    layout`) says it lies on the card, either end up, at ``LAYOUT_SCALES`` of its size and
    shifts of up to ``LAYOUT_SHIFT`` pixels, compared over what shows: code -> score. A
    reference whose box leaves out ink that shows, or of which less than
    ``LAYOUT_VISIBLE`` shows, is not compared. The box is not searched from what shows
    (which let another picture, of a shape like the one that shows, fit it). ``fine``:
    given ``fine["run"]``, a function giving the same scores and ``shown`` searched finer
    (:func:`_layout_fine`), called only when needed."""
    s, ox, oy = lay
    codes, _, _ = refs.views()
    flat, geo, shapes = refs.crops(), refs.geometry(), refs.shapes()
    ok = ~refs.barred() & ~np.isin(codes, WORDS)
    mh, mw = pic.seen.shape[:2]
    c = LAYOUT_SHIFT
    n = 2 * c + 1
    vx0, vy0, vx1, vy1 = pic.box
    # the picture and where it shows, warped together (one call a box)
    both = np.dstack([pic.seen, pic.visible.astype(np.float32)])
    groups: dict = {}
    for i in np.nonzero(ok)[0]:
        dx, dy, bw, bh = (float(v) for v in geo[i])
        w, h = int(shapes[i]) // 1000, int(shapes[i]) % 1000
        size = (w + 2 * c, h + 2 * c)
        pad = ((size[0] * (1 + 2 * REF_PAD) / w - 1) / 2,
               (size[1] * (1 + 2 * REF_PAD) / h - 1) / 2)
        for sign in (1, -1):
            cx, cy = mw / 2 + s * dx + sign * ox, mh / 2 + s * dy + sign * oy
            for f in LAYOUT_SCALES:
                hw, hh = s * f * bw / 2, s * f * bh / 2
                gx = LAYOUT_OUTSIDE + (1 + 2 * REF_PAD) * 2 * hw * c / w
                gy = LAYOUT_OUTSIDE + (1 + 2 * REF_PAD) * 2 * hh * c / h
                if vx0 < cx - hw - gx or vx1 > cx + hw + gx or vy0 < cy - hh - gy or \
                        vy1 > cy + hh + gy:
                    continue
                box = (cx - hw, cy - hh, cx + hw, cy + hh)
                g = groups.setdefault((w, h), ([], [], [], []))
                M = _box_to_square(box, pad, size)
                cut = cv2.warpAffine(both, M, size,
                                     flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(1.0, 1.0, 1.0, 0.0))
                g[0].extend(_windows(cut[..., :3], w, h, n))
                g[1].extend(_windows(cut[..., 3], w, h, n))
                g[2].extend([i] * (n * n))
                g[3].append(M)
    best = np.full(len(codes), -1.0, np.float32)
    seen = np.full(len(codes), -1.0, np.float32)
    if getattr(refs, "_inks", None) is None or len(refs._inks) != len(flat):
        refs._inks = _inked(flat)          # the references' ink, once
    inks = refs._inks
    kept: dict = {}                        # (w, h) -> (rows, scores, window maps)
    for (w, h), (xs, ws, rows, maps) in groups.items():
        Wt = (np.stack(ws).reshape(len(ws), w * h) > 0.5).astype(np.float32)
        keep = Wt.mean(axis=1) >= LAYOUT_VISIBLE
        if not keep.any():
            continue
        rows = np.asarray(rows)[keep]
        sc, ok = _layout_match(np.stack(xs)[keep].reshape(len(rows), w * h, 3), Wt[keep],
                               flat[rows], inks[rows])
        np.maximum.at(best, rows, sc)
        np.maximum.at(seen, rows, np.where(ok, sc, -1.0))
        kept[(w, h)] = (rows, sc, _window_maps(maps, n)[keep])
    if LAYOUT_FINE and kept and fine is not None:
        def run():
            bf, sf = best.copy(), seen.copy()
            _layout_fine(both, kept, bf, sf, flat, inks)
            shown_f: dict = {}
            return _by_code(codes, bf, sf, shown_f), shown_f
        fine["run"] = run
    return _by_code(codes, best, seen, shown)


def _by_code(codes: np.ndarray, best: np.ndarray, seen: np.ndarray, shown: dict | None) -> dict:
    """Rows' scores ``best`` as each code's best (code -> score); ``shown`` filled with each
    code's best of ``seen`` (the windows passing the ink test)."""
    out: dict = {}
    for i, (code, v) in enumerate(zip(codes.tolist(), best.tolist())):
        if v > -1.0 and v > out.get(code, -1.0):
            out[code] = v
        if shown is not None and seen[i] > shown.get(code, -1.0):
            shown[code] = float(seen[i])
    return out


def _layout_match(X: np.ndarray, Wt: np.ndarray, R: np.ndarray, ink: np.ndarray) -> tuple:
    """Windows ``X`` (k, n, 3) of a partly covered picture, showing where ``Wt`` (k, n;
    0 or 1), each against its own reference ``R`` (k, n, 3) whose ink is ``ink`` (k, n):
    (masked correlation, whether enough of the reference's ink shows there and the inks
    overlap, :data:`LAYOUT_INK` and :data:`LAYOUT_IOU`)."""
    # correlation over the visible pixels (weights 0 or 1), by sums
    sw = np.maximum(Wt.sum(axis=1), 1)
    WX = Wt[..., None] * X
    sx = WX.sum(axis=1)
    sr = np.einsum("np,npc->nc", Wt, R)
    num = np.einsum("npc,npc->n", WX, R) - (sx * sr).sum(axis=1) / sw
    vx = np.einsum("npc,npc->n", WX, X) - (sx * sx).sum(axis=1) / sw
    vr = np.einsum("np,npc->n", Wt, R * R) - (sr * sr).sum(axis=1) / sw
    sc = num / (np.sqrt(np.maximum(vx, 0) * np.maximum(vr, 0)) + 1e-6)
    # the reference's own ink that shows: a card is named only from a window where
    # enough of it does (a shape or two under the hand, not all but a rim)
    vis = Wt > 0
    part = np.count_nonzero(ink & vis, axis=1) / np.maximum(np.count_nonzero(ink, axis=1), 1)
    # ... and where it shows, the card's ink lies where the reference's does
    mine = _inked(X)
    iou = np.count_nonzero(ink & mine & vis, axis=1) / np.maximum(
        np.count_nonzero((ink | mine) & vis, axis=1), 1)
    return sc, (part >= LAYOUT_INK) & (iou >= LAYOUT_IOU)


def _window_maps(Ms: list, n: int) -> np.ndarray:
    """Each window's map (:func:`_windows` of a crop by each affine map of ``Ms``, ``n`` x
    ``n`` shifts): its pixel (u, v) lies at (a u + b v + c, d u + e v + f) of the picture
    cut: rows (a, b, c, d, e, f), (len(Ms) * n * n, 6)."""
    inv = np.stack([cv2.invertAffineTransform(M) for M in Ms]).astype(np.float32)  # (m, 2, 3)
    dy, dx = np.mgrid[0:n, 0:n]
    d = np.stack([dx.ravel(), dy.ravel()], 1).astype(np.float32)                     # (n*n, 2)
    off = inv[:, None, :, 2] + np.einsum("mij,sj->msi", inv[:, :, :2], d)            # (m, s, 2)
    out = np.empty((len(Ms), n * n, 6), np.float32)
    out[..., 0], out[..., 1], out[..., 2] = inv[:, None, 0, 0], inv[:, None, 0, 1], off[..., 0]
    out[..., 3], out[..., 4], out[..., 5] = inv[:, None, 1, 0], inv[:, None, 1, 1], off[..., 1]
    return out.reshape(-1, 6)


def _layout_fine(both: np.ndarray, kept: dict, best: np.ndarray, seen: np.ndarray,
                 flat: np.ndarray, inks: np.ndarray) -> None:
    """The layout match searched finer (a rectangle a few pixels off the card): each
    reference row scored within ``FINE_DELTA`` of the best, its best window moved by
    ``FINE_SHIFTS`` of a crop pixel across and down and scaled by ``FINE_SCALES`` about
    its centre; every such window sampled from the picture and its mask (``both``) in one
    :func:`cv2.remap` a layout. ``best`` and ``seen`` (per row) are raised in place."""
    top = float(best.max())
    if top <= -1.0:
        return
    fine = [(ex, ey, g) for g in FINE_SCALES for ey in FINE_SHIFTS for ex in FINE_SHIFTS
            if (ex, ey, g) != (0, 0, 1.0)]
    E = np.float32(fine)
    for (w, h), (rows, sc, maps) in kept.items():
        # each candidate row's best window
        order = np.lexsort((-sc, rows))
        first = np.ones(len(order), bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        pick = order[first]
        pick = pick[sc[pick] >= top - FINE_DELTA]
        if not len(pick):
            continue
        m = maps[pick]                                     # (k, 6)
        uu, vv = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        wc, hc = (w - 1) / 2, (h - 1) / 2
        # the window's pixel in crop pixels, moved and scaled: (f, h, w)
        cu = wc + E[:, 2, None, None] * (uu - wc) + E[:, 0, None, None]
        cv = hc + E[:, 2, None, None] * (vv - hc) + E[:, 1, None, None]
        mx = m[:, None, None, None, 0] * cu + m[:, None, None, None, 1] * cv \
            + m[:, None, None, None, 2]
        my = m[:, None, None, None, 3] * cu + m[:, None, None, None, 4] * cv \
            + m[:, None, None, None, 5]
        k, f = len(pick), len(E)
        # one row of the map a window (OpenCV's sides stay under 32,767)
        cut = cv2.remap(both, mx.reshape(k * f, h * w).astype(np.float32),
                        my.reshape(k * f, h * w).astype(np.float32), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=(1.0, 1.0, 1.0, 0.0))
        cut = cut.reshape(k * f, h * w, 4)
        Wt = (cut[..., 3] > 0.5).astype(np.float32)
        keep = Wt.mean(axis=1) >= LAYOUT_VISIBLE
        if not keep.any():
            continue
        r = np.repeat(rows[pick], f)[keep]
        s2, ok = _layout_match(np.ascontiguousarray(cut[keep, :, :3]), Wt[keep], flat[r],
                               inks[r])
        np.maximum.at(best, r, s2)
        np.maximum.at(seen, r, np.where(ok, s2, -1.0))


def _reference_views(n: np.ndarray, box):
    """The reference's picture in each quarter turn: [(aspect in that turn, its crop in
    the layout of its shape, :func:`_layout`)]."""
    aspect = (box[2] - box[0]) / max(box[3] - box[1], 1)
    c = _crop(n, box, REF_PAD, _layout(aspect))
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
    #: per picture: a board space in the top-right or bottom-left quarter of the board (a
    #: printing may turn those a quarter); None: none is
    turned: list | None = None

    def __post_init__(self) -> None:
        self._views = None
        self._crops = None
        self._odd = None
        self._shapes = None
        if self.turned is None:
            self.turned = [False] * len(self.codes)
        #: a card of the top-left or bottom-right quarters has been named (upright or upside
        #: down, the only turns they are matched in): the board is not calibrated a quarter
        #: turn off, and the pictures of the other two quarters may be matched turned a
        #: quarter (a printing that turns them so). Learned as the game goes.
        self.quarter_ok = False
        #: where the clear cards named lay their pictures (:meth:`learn_layout`)
        self.placed: list = []

    def upright(self, code: str) -> bool:
        """Whether ``code`` is a picture of the top-left and bottom-right quarters."""
        return any(c == code and not t for c, t in zip(self.codes, self.turned)) \
            and code not in WORDS

    @property
    def words(self) -> set:
        return {c for c in self.codes if c in WORDS}

    def views(self):
        """(codes, log aspects, unit vectors): one row per reference picture and turn."""
        if self._views is None:
            codes, aspects, crops, odd, shapes, geo = [], [], [], [], [], []
            for code, pic, turned in zip(self.codes, self.pictures, self.turned):
                boxes = _ref_boxes(pic) if code not in WORDS else [_ink_box(pic)]
                for box in boxes:
                    if box is None:
                        continue
                    for k, (a, c) in enumerate(_reference_views(pic, box)):
                        if k not in TURNS and not turned:
                            continue
                        geo.append(_turned_geometry(pic.shape, box, k))
                        codes.append(code)
                        aspects.append(np.log(max(a, 1e-3)))
                        crops.append(c.reshape(-1, 3))
                        shapes.append(c.shape[1] * 1000 + c.shape[0])
                        odd.append(k not in TURNS)
            self._odd = np.array(odd, bool)
            self._geo = np.float32(geo).reshape(-1, 4)
            T = TEMPLATE
            #: each row's layout (width * 1000 + height): rows are compared only with a
            #: card's crop of the same layout
            self._shapes = np.array(shapes, int)
            self._crops = np.stack(crops) if crops else np.zeros((0, T * T, 3), np.float32)
            if crops:
                self._views = (np.array(codes), np.float32(aspects),
                               _unit(self._crops[:, :, None, :]))
            else:
                self._views = (np.array([], str), np.zeros(0, np.float32),
                               np.zeros((0, TEMPLATE * TEMPLATE * 3), np.float32))
        return self._views

    def geometry(self) -> np.ndarray:
        """Each row's box in its reference picture as turned (:func:`_turned_geometry`)."""
        self.views()
        return self._geo

    def learn_layout(self, box, row: int) -> None:
        """Keep where a clear card's picture lay (its ink ``box`` in the card's middle) and
        how big, against the reference row it was named by: the printing's layout."""
        dx, dy, bw, bh = self.geometry()[row]
        if bw < 4 or bh < 4:
            return
        mw, mh = _middle_size()
        s = 0.5 * ((box[2] - box[0]) / bw + (box[3] - box[1]) / bh)
        ox = (box[0] + box[2]) / 2 - mw / 2 - s * dx
        oy = (box[1] + box[3]) / 2 - mh / 2 - s * dy
        if oy < 0 or (oy == 0 and ox < 0):
            ox, oy = -ox, -oy        # either end up: kept one way, matched both
        self.placed.append((float(s), float(ox), float(oy)))
        del self.placed[:-LAYOUT_KEEP]

    def layout(self):
        """The printing's layout learned from the clear cards named (scale, offset across,
        offset down), or None before ``LAYOUT_MIN`` of them or when they disagree."""
        if len(self.placed) < LAYOUT_MIN:
            return None
        a = np.float32(self.placed)
        s, ox, oy = np.median(a, axis=0)
        if np.median(np.abs(a[:, 0] - s)) > LAYOUT_SPREAD * s:
            return None
        return float(s), float(ox), float(oy)

    def crops(self) -> np.ndarray:
        """The reference pictures of :meth:`views`, row by row, flattened in their layout
        (k, T * T, 3)."""
        self.views()
        return self._crops

    def shapes(self) -> np.ndarray:
        """Each row's layout of :meth:`views` (width * 1000 + height)."""
        self.views()
        return self._shapes

    def barred(self) -> np.ndarray:
        """The rows of :meth:`views` not matched now (a quarter turn, not yet allowed)."""
        self.views()
        return self._odd & (not self.quarter_ok)

    def with_word(self, code: str, card: np.ndarray) -> "JewishReferences":
        """These references with the word card ``code`` (ADD or REMOVE) as straightened from
        a picture of it (``W`` x ``H``); one of each is kept (a new one replaces the old)."""
        if code not in WORDS:
            raise ValueError(f"{code!r}: only ADD and REMOVE are kept as word cards")
        mid = _middle(card)
        if _ink_box(mid) is None:
            raise ValueError(f"the {code} card shows nothing to read (blank paper?)")
        keep = [(c, p, t) for c, p, t in zip(self.codes, self.pictures, self.turned) if c != code]
        return JewishReferences([c for c, _, _ in keep] + [code], [p for _, p, _ in keep] + [mid],
                                [t for _, _, t in keep] + [False])

    def save(self, path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays = {f"p{k}": np.round(p * 200).astype(np.uint8) for k, p in enumerate(self.pictures)}
        np.savez_compressed(tmp, codes=np.array(self.codes), version=np.int32(1),
                            turned=np.array(self.turned, bool), **arrays)
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
                # files from before the quarters were kept: every picture upright only
                turned = [bool(t) for t in d["turned"]] if "turned" in d else None
        except OSError as exc:
            raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError, EOFError):
            raise ValueError(f"{path}: not a Jewish Edition card reference file") from None
        if any(p.ndim != 3 or p.shape[2] != 3 for p in pics):
            raise ValueError(f"{path}: not a Jewish Edition card reference file")
        if turned is not None and len(turned) != len(codes):
            raise ValueError(f"{path}: not a Jewish Edition card reference file")
        return cls(codes, pics, turned)


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
    codes, pics, turned = [], [], []
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
        turned.append((r < layout.rows // 2) != (c < layout.cols // 2))
    if words is not None:
        for c, p in zip(words.codes, words.pictures):
            if c in WORDS:
                codes.append(c)
                pics.append(p)
                turned.append(False)
    return JewishReferences(codes, pics, turned)


# ---------------------------------------------------------------- reading ----------------

@dataclass
class JewishReading:
    code: str | None                      # "MENORAH", "ADD", "REMOVE", or None: unknown
    quad: np.ndarray | None = None
    reason: str = ""
    score: float = 0.0
    margin: float = 0.0
    best: str | None = None               # the likeliest card, named or not
    index: int = -1                       # which of the finder's rectangles it was read on
    row: int = -1                         # a clear card: the reference row it matched best
    box: tuple | None = None              # ... and its picture's box in the card's middle

    @property
    def known(self) -> bool:
        return self.code is not None


def scores(card: np.ndarray, refs: JewishReferences, got=None, rows: dict | None = None,
           shown: dict | None = None, fine: dict | None = None) -> dict:
    """Each reference card's best match with the straightened ``card`` (normalised cross-
    correlation, best over scales, shifts and the turns of ``TURNS``; over the uncovered
    pixels when a hand covers part of it): code -> score. ``got``: the card's
    :func:`card_picture`, when already known; ``rows``: filled with each card's best
    reference row (a clear card); ``fine``: given ``fine["run"]`` when the card is matched
    by the layout, a function giving these scores and ``shown`` searched finer
    (:func:`layout_scores`)."""
    got = card_picture(card) if got is None else got
    if got is None or isinstance(got, str):
        return {}
    if isinstance(got, CoveredPicture):
        lay = refs.layout() if LAYOUT else None
        if lay is None:
            return covered_scores(got, refs)
        codes = refs.views()[0]
        out = covered_scores(got, refs, np.isin(codes, WORDS))      # the word cards
        words = dict(out)
        out.update(layout_scores(got, refs, lay, shown, fine))
        if shown is not None:
            shown.update(words)
            shown["*"] = 1.0
        if fine and "run" in fine:
            run = fine["run"]

            def with_words():
                f, sh = run()
                f.update(words)
                sh.update(words)
                return f, sh
            fine["run"] = with_words
        return out
    patches, aspect, _, _ = got
    codes, aspects, vecs = refs.views()
    if not len(codes):
        return {}
    sims = np.full(len(codes), -1.0, np.float32)
    shapes = refs.shapes()
    for (w, h), p in patches.items():
        sel = shapes == w * 1000 + h
        if sel.any():
            sims[sel] = (vecs[sel] @ p.T).max(axis=1)
    sims[np.abs(aspects - np.log(max(aspect, 1e-3))) > ASPECT_TOL] = -1.0
    sims[refs.barred()] = -1.0
    best: dict = {}
    for i, (code, s) in enumerate(zip(codes.tolist(), sims.tolist())):
        if s > best.get(code, -1.0):
            best[code] = s
            if rows is not None:
                rows[code] = i
    return best


def read_jewish_straight(card: np.ndarray, refs: JewishReferences) -> JewishReading:
    """Read a straightened Jewish Edition card (``W`` x ``H``) against ``refs``."""
    got = card_picture(card)
    rows: dict = {}
    shown: dict = {}
    fine: dict = {}
    sc = scores(card, refs, got, rows, shown, fine) if got is not None else {}
    covered = isinstance(got, CoveredPicture)
    if not sc:
        why = "a hand covers too much of the picture" if covered else \
            "something runs off the card's middle (a hand over it?)" \
            if got == "edge" else "no picture or word on the card"
        return JewishReading(None, reason=why)
    order = sorted(sc.items(), key=lambda kv: -kv[1])
    code, s = order[0]
    second = order[1][1] if len(order) > 1 else 0.0
    out = JewishReading(None, score=s, margin=s - second, best=code)
    if not covered and code in rows:
        out.row, out.box = rows[code], got[3]
    if covered and shown:
        floor, margin = LAYOUT_SCORE, LAYOUT_MARGIN
    elif covered:
        floor, margin = MIN_COVER_SCORE, MIN_COVER_MARGIN
    elif code in WORDS and got[2]:
        # a hand over the card, clear of what is read: a word card's low floor is not
        # enough (a picture's part that shows beside a hand can take a word's wide box)
        floor, margin = MIN_COVER_SCORE, MIN_MARGIN
    else:
        floor, margin = (MIN_WORD_SCORE if code in WORDS else MIN_SCORE), MIN_MARGIN
    sure = not covered and code not in WORDS and s >= SURE_SCORE and s - second >= SURE_MARGIN
    if shown and shown.get(code, -1.0) < s - LAYOUT_SLACK:
        # matched by the layout, but not where enough of the picture's ink shows
        out.reason = f"too little of {code}'s picture shows ({s:.2f})"
        return out
    if not sure and (s < floor or s - second < margin) and not (
            covered and shown and s >= floor and _fine_confirms(code, fine, out)):
        nxt = f", next {order[1][0]} {second:.2f}" if len(order) > 1 else ""
        out.reason = f"the picture is not surely one card's ({code} {s:.2f}{nxt})"
        return out
    out.code = code
    if refs.upright(code):
        refs.quarter_ok = True
    return out


def _fine_confirms(code: str, fine: dict, out: JewishReading) -> bool:
    """Whether the layout match searched finer (:func:`_layout_fine`, a rectangle a few
    pixels off the card) names ``code``, already the likeliest and over the bar: still the
    likeliest, by ``LAYOUT_MARGIN``, and where enough of its ink shows. It may only add a
    name the coarse match was short of by its margin (``out.margin`` is then the finer
    one's); it never changes the likeliest card."""
    if "run" not in fine:
        return False
    f, shown = fine["run"]()
    order = sorted(f.items(), key=lambda kv: -kv[1])
    if not order or order[0][0] != code:
        return False
    s = order[0][1]
    second = order[1][1] if len(order) > 1 else 0.0
    if s - second < LAYOUT_MARGIN or shown.get(code, -1.0) < s - LAYOUT_SLACK:
        return False
    out.margin = s - second
    return True


def read_jewish_pile(after: np.ndarray, before: np.ndarray, card_px: float | None,
                     refs: JewishReferences) -> JewishReading:
    """The new top Jewish Edition card of a pile between two pictures: every rectangle the
    finder proposes is read; a card is named only when those read surely agree, a rectangle
    that read the same card in the picture before (a card below) left out."""
    with one_thread():
        quads = pile_quads(after, before, card_px)
        return read_jewish_quads(quads, [straighten(after, q) for q in quads],
                                 lambda i: straighten(before, quads[i]), refs)


_POOLS = None


def one_thread():
    """A context in which numpy's BLAS runs on one thread. The matching's matrix products
    are small: BLAS threads spread over the cores cost more processor time than they save
    (their busy-waiting counted: about half of it on a loaded 2-core machine, docs/cards.md
    session nine) and take the cores the camera loop needs."""
    global _POOLS
    if _POOLS is None:
        from threadpoolctl import ThreadpoolController
        _POOLS = ThreadpoolController()
    return _POOLS.limit(limits=1, user_api="blas")


def read_jewish_quads(quads: list, cards: list, before, refs: JewishReferences
                      ) -> JewishReading:
    """The decision of :func:`read_jewish_pile` over the finder's rectangles ``quads``, given
    each one's straightened card in the picture after (``cards``) and a function giving the
    ``i``-th one's in the picture before (``before(i)``, called only when needed)."""
    if not quads:
        return JewishReading(None, reason="no new card found")
    reads = []
    for i, (q, card) in enumerate(zip(quads, cards)):
        if OFF_CARD and _off_card(card, before(i)):
            reads.append(JewishReading(None, q, "the rectangle reaches off the new card",
                                       index=i))
            continue
        r = read_jewish_straight(card, refs)
        r.quad = q
        r.index = i
        if r.code and read_jewish_straight(before(i), refs).code == r.code:
            # the same card read there in the picture before: a card below, not the new one
            r = JewishReading(None, q, f"{r.code} lay there before (a card below)", r.score,
                              r.margin, r.best, i)
        reads.append(r)
    known = [r for r in reads if r.code]
    if not known:
        return max(reads, key=lambda r: r.score)
    if len({r.code for r in known}) > 1:
        return JewishReading(None, known[0].quad,
                             "the card's outline is doubtful: it reads "
                             + " or ".join(sorted({r.code for r in known})),
                             best=known[0].code)
    top = max(known, key=lambda r: r.score)
    # another rectangle likeliest another card, as well matched (though not surely), that
    # was not there before: the outline is doubtful
    for r in reads:
        if r.best and r.best != top.code and r.score >= top.score and not r.reason.endswith(
                "(a card below)"):
            b = read_jewish_straight(before(r.index), refs)
            if b.best == r.best and b.score >= r.score - 0.05:
                continue                  # likeliest the same there before: a card below
            return JewishReading(None, top.quad, f"the card's outline is doubtful: it reads "
                                 f"{top.code} or {r.best}", top.score, top.margin, top.code)
    if LAYOUT and top.row >= 0 and top.code not in WORDS and top.score >= LAYOUT_LEARN:
        refs.learn_layout(top.box, top.row)
    return top


def _off_card(card: np.ndarray, before: np.ndarray) -> bool:
    """Whether the finder's rectangle, straightened in the picture after (``card``) and
    before (``before``), reaches off the new card at one of its ends: a band there
    (``OFF_BAND``) is, in ``OFF_PART`` of its pixels, both unchanged from the picture before
    and unlike the new card's paper (what changed, its brighter part). A card's end lying
    on paper like its own (a card below) is unchanged but paper, and is kept; so is an end
    under a hand (changed)."""
    a = card[..., :3]
    d = cv2.absdiff(cv2.GaussianBlur(a, (5, 5), 0),
                    cv2.GaussianBlur(before[..., :3], (5, 5), 0)).max(axis=2)
    changed = d > OFF_CHANGED
    if int(changed.sum()) < 0.1 * changed.size:
        return False                 # hardly anything new: not told
    f = a.astype(np.float32) + 1
    paper = np.percentile(f[changed], 80, axis=0)
    hh, ww = changed.shape
    x0, x1 = int(0.05 * ww), int(0.95 * ww)
    b0, b1 = int(OFF_BAND[0] * hh), int(OFF_BAND[1] * hh)
    for ys in (slice(b0, b1), slice(hh - b1, hh - b0)):
        band = f[ys, x0:x1]
        unlike = np.abs(band / np.maximum(paper, 2) - 1).max(axis=2) > INK
        if float((~changed[ys, x0:x1] & unlike).mean()) >= OFF_PART:
            return True
    return False


def pile_quads(after: np.ndarray, before: np.ndarray, card_px: float | None) -> list:
    """The rectangles the playing-card finder proposes for the new card (its changed paper,
    and its new straight edges)."""
    tol = 0.015 * card_px if card_px else 2.5
    quads: list = []
    for q in _new_card_quads(after, before, card_px) + (
            line_candidates(after, before, card_px) if card_px else []):
        # a rectangle within a few pixels of one kept reads the same card: read once
        if not any(_same_quad(q, o, tol) for o in quads):
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
    with one_thread():
        for r in find_cards(img, read=False):
            j = read_jewish_straight(straighten(img, r.quad), refs)
            j.quad = r.quad
            out.append(j)
    return out
