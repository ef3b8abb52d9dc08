"""Read a SEQUENCE STACKS card: its colour from the ink, its number or symbol from the middle.

The card is found and straightened as a playing card is (:mod:`vision.cards.reader`:
the paper that changed between the pictures before and after, a card-sized rectangle fitted
on the edges, warped to ``W`` x ``H``). Then, normalised by the card's own paper:

* the **middle glyph** (the big number, the wild's star, a special card's symbol) is the
  biggest ink in the middle of the card, its parts together (the small name printed under a
  symbol is left out); its mask, cropped and resized, is compared (cosine) with prototypes
  drawn from the TUNED STACKS styles only, in both ways up (a card lies either way round);
* the **colour** is the median redness and blueness of that ink over the paper (since
  session fourteen per darkness, over a few pixels round each stroke pixel): red, blue or
  neither (the special cards' dark ink).

A card is named only when the glyph is sure (score and margin over the next glyph) and the
colour fits it (a number or a wild red or blue, a special neither); otherwise it is unknown
(None) with the reason, never a guess. Thresholds were chosen on tuned styles
(``python benchmarks/stacks_cards.py --split tuned``, docs/stacks.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from .reader import W, H, _edge_score, _new_card_quads, _same_quad, pile_line_candidates, \
    read_quads, straighten
from .stacks_art import CODES, STACKS_TUNED, stacks_card_image, stacks_style

GLYPH_SIZE = (24, 24)
MIDDLE = (0.12, 0.88, 0.17, 0.83)        # x0, x1, y0, y1 of the middle, parts of W and H
INDEX_BOX = (0.32, 0.2)                  # the index corner: parts of W and H (session eleven)
# Chosen on tuned styles (docs/stacks.md, "From the camera").
MIN_SCORE = 0.85
MIN_MARGIN = 0.05
MIN_COLOUR = 0.16                        # redness or blueness of a red or blue card's ink
MAX_NEUTRAL = 0.14                       # both under this: the special cards' dark ink
# (session eleven) the corner indices, read when the middle does not name the card; chosen
# on tuned views (docs/stacks.md "Session eleven")
INDEX = True
INDEX_BLUE = 0.08                        # a blue index's blueness (thin strokes: paler)
INDEX_NOT_RED = 0.08                     # ... and its redness under minus this
INDEX_DARK_BLUE = 0.06                   # a dark index's blueness under this
INDEX_OTHER = 0.75                       # another glyph read this surely: not named
# (session fourteen) the ink's colour measured as colour per darkness over a small
# neighbourhood of each stroke pixel (the camera's JPEG keeps a thin stroke's darkness but
# smears its colour onto the paper beside it: a thin blue outline read as dark ink)
CHROMA_BOX = 5                           # the neighbourhood, straightened-card pixels
# ... so measured, red or blue from these up (below both: the dark ink), for the middle
# and for an index (chosen on tuned cards straightened on their true rectangle, seeds 5
# and 9, 1100 clear views: the middle's dark ink <= 0.131 either way, red >= 0.425, blue
# >= 0.232; an index's dark ink redness <= 0.163, blueness <= 0.141, red >= 0.357, blue
# >= 0.144). A number read in a dark ink or a special in a colour is unknown, so these
# bounds decide unknown or named, never one card for another (red and blue lie far apart)
CHROMA_RED, CHROMA_BLUE = 0.2, 0.2
INDEX_CHROMA_RED, INDEX_CHROMA_BLUE = 0.25, 0.15
#: (session fourteen) an index with ink cut by its box's edge beside it (a letter of "SC" or
#: "CH" left out: "C" alone, "S" alone, which is Skip's index) is not read
WHOLE_INDEX = True
#: (session sixteen) a frame band's corner in an index's box (an L of straight arms reaching
#: the box's right and bottom edges) is no letter cut by the box: its arms are left out of
#: the ink (and out of the neighbourhood the glyph's colour is measured on); a letter lying
#: along an arm keeps the band a cut, and every other piece at the box's edge is one as
#: before
BAND_CORNER = True
BAND_ARM = 0.6                           # an arm's run: at least this part of the box
BAND_TOUCH = 0.75                       # a letter touching an arm over more: not taken apart
#: (session sixteen) an index's ink read ``CUT_BEYOND`` of the card's width past its box's
#: right edge too (that edge lies inside the card): a piece wholly past the box (the "H" of
#: "CH" when the box ends in the gap after the "C") is a cut beside the glyph as a piece the
#: box's edge cuts is; pieces running on from inside the box are judged there, as before
CUT_BEYOND = 0.1

#: the glyph of each card: its number, W for a wild, or the special's code
SHAPES = ("1", "2", "3", "4", "5", "W", "SK", "RV", "SC", "CH", "BL")


def shape_of(code: str) -> str:
    return code[1] if code[0] in "RB" and code[1] in "12345W" else code


@dataclass
class StacksReading:
    code: str | None                      # "R3", "BW", "SK"... or None: unknown
    quad: np.ndarray | None = None
    reason: str = ""
    shape: str | None = None
    score: float = 0.0
    margin: float = 0.0
    colour: str | None = None             # "R", "B", "" (neither) or None (unsure)
    way: str = "middle"                   # named from the "middle" glyph or the "index"

    @property
    def known(self) -> bool:
        return self.code is not None


def _normalised(card: np.ndarray):
    f = card.astype(np.float32) + 1
    paper = np.percentile(f.reshape(-1, 3), 80, axis=0)
    n = np.clip(f / paper, 0, 1.2)
    dark = 1 - n.min(axis=2)
    red = n[..., 2] - (n[..., 0] + n[..., 1]) / 2
    blue = n[..., 0] - (n[..., 1] + n[..., 2]) / 2
    return dark, red, blue


def glyph_parts(card: np.ndarray, norm=None):
    """(the middle glyph's mask, cropped; the ink's redness; its blueness) of a straightened
    card, or None when the middle holds no glyph."""
    x0, x1 = int(MIDDLE[0] * W), int(MIDDLE[1] * W)
    y0, y1 = int(MIDDLE[2] * H), int(MIDDLE[3] * H)
    return _ink_glyph(norm or _normalised(card), (x0, x1, y0, y1), 0.1)


def index_parts(card: np.ndarray, norm=None):
    """(session eleven) The same for the index in the card's top-left corner (the one in the
    opposite corner is the top-left one of the card turned round), or None."""
    return _ink_glyph(norm or _normalised(card),
                      (0, int(INDEX_BOX[0] * W), 0, int(INDEX_BOX[1] * H)), 0.25, 0.55,
                      whole=WHOLE_INDEX)


def _ink_glyph(norm, box, min_h: float, max_h: float = 1.0, whole: bool = False):
    """The biggest ink in ``box`` (x0, x1, y0, y1 of the straightened card), its parts
    together, not touching the box's edge (a border, a frame band, a hand or the art
    running out of it), from ``min_h`` to ``max_h`` of the box high: (its mask, cropped; the ink's
    redness; its blueness, :func:`_ink_colour`), or None. With ``whole`` (an index: letters side by side),
    None when ink cut by the box's edge lies beside it on its line (a letter of it left
    out)."""
    dark, red, blue = norm
    x0, x1, y0, y1 = box
    d = dark[y0:y1, x0:x1]
    if d.max() < 0.25:
        return None
    t = max(0.2, 0.45 * float(np.percentile(d, 99.5)))
    ink = (d > t).astype(np.uint8)
    hh, ww = ink.shape
    band = _band_corner(ink) if whole and BAND_CORNER else None
    if band is not None:
        ink[band] = 0
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    comps, cut = [], []
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if w > 0.92 * ww or h > 0.92 * hh:           # a frame band or a border
            continue
        if x == 0 or y == 0 or x + w >= ww or y + h >= hh:   # the edge of the box
            if a >= 2:                               # (the sliver of a letter cut too)
                cut.append((x, y, w, h))
            continue
        if a < 8:
            continue
        comps.append((a, i, x, y, w, h))
    if whole and CUT_BEYOND:
        cut += _past_the_box(dark, t, box, int(CUT_BEYOND * W))
    if not comps:
        return None
    big = max(c[0] for c in comps)
    keep = [c for c in comps if c[0] >= 0.2 * big]
    # parts far from the biggest one are not the glyph (a corner index, a smudge)
    c0 = max(keep)
    cx, cy = c0[2] + c0[4] / 2, c0[3] + c0[5] / 2
    reach = 1.3 * max(c0[4], c0[5])
    keep = [c for c in keep if abs(c[2] + c[4] / 2 - cx) < reach and abs(c[3] + c[5] / 2 - cy) < reach]
    m = np.isin(lab, [c[1] for c in keep])
    ys, xs = np.nonzero(m)
    crop = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    if not min_h * hh <= crop.shape[0] <= max_h * hh:    # too small (or big) to be the glyph
        return None
    if whole and _cut_beside(cut, xs.min(), xs.max() + 1, ys.min(), ys.max() + 1):
        return None
    r, b = _ink_colour(d, red[y0:y1, x0:x1], blue[y0:y1, x0:x1], m, band)
    return crop, r, b


def _past_the_box(dark, t: float, box, beyond: int) -> list[tuple[int, int, int, int]]:
    """(session sixteen, ``CUT_BEYOND``) The pieces of ink (darker than ``t``; at least two
    pixels) wholly past ``box``'s right edge, within ``beyond`` pixels of it, as x, y, w, h
    in the box's own coordinates (x past its width). Pieces running on from inside the box
    (touching its edge) are left to the box."""
    x0, x1, y0, y1 = box
    beyond = min(beyond, dark.shape[1] - x1)
    if beyond <= 0:
        return []
    past = (dark[y0:y1, x1:x1 + beyond] > t).astype(np.uint8)
    edge = dark[y0:y1, x1 - 1] > t                # the box's last column
    n, _lab, stats, _ = cv2.connectedComponentsWithStats(past, connectivity=8)
    ww, out = x1 - x0, []
    for x, y, w, h, a in stats[1:]:
        if a < 2 or (x == 0 and edge[max(y - 1, 0):y + h + 1].any()):
            continue
        out.append((ww + int(x), int(y), int(w), int(h)))
    return out


def _band_corner(ink: np.ndarray) -> np.ndarray | None:
    """(session sixteen) The pixels of a frame band's corner in an index's box ``ink``, or
    None: the straight arms (runs along a row at least ``BAND_ARM`` of the box wide and
    along a column at least ``BAND_ARM`` of it high, both) and their frayed edges of a piece
    of ink that reaches the box's right and bottom edges and spans neither the whole box's
    width nor its height (a band or border across the whole box is left out as before),
    unless a letter of the piece lies along an arm (``BAND_TOUCH``)."""
    hh, ww = ink.shape

    def runs(k):                          # (no ink past the box: a run ends at its edge)
        return cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones(k, np.uint8),
                                borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0

    hx, vy = runs((1, max(int(BAND_ARM * ww), 1))), runs((max(int(BAND_ARM * hh), 1), 1))
    if not hx.any() or not vy.any():
        return None
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    out = np.zeros(ink.shape, bool)
    for i in range(1, n):
        x, y, w, h, _a = stats[i]
        if w > 0.92 * ww or h > 0.92 * hh or x + w < ww or y + h < hh:
            continue
        mine = lab == i
        if not ((hx & mine).any() and (vy & mine).any()):
            continue
        # beside its arms, the band's frayed edge (lines a pixel or two across) is the band
        # too; a letter touching the band (a bar's end) is its own piece once the arms are
        # out, but one lying along an arm (touching it over more than ``BAND_TOUCH`` of its
        # length) would be read with a stroke taken out: then the piece is no band corner
        # (a cut, as before)
        arms = (hx | vy) & mine
        rest = (mine & ~arms).astype(np.uint8)
        near = cv2.dilate(arms.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        k, rl, rs, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
        band, letter_along = arms.copy(), False
        for j in range(1, k):
            if min(rs[j, 2], rs[j, 3]) <= 2:
                band |= rl == j
                continue
            ys, xs = np.nonzero((rl == j) & near)
            if len(ys) and max(np.ptp(ys), np.ptp(xs)) + 1 > BAND_TOUCH * max(rs[j, 2], rs[j, 3]):
                letter_along = True
        if not letter_along:
            out |= band
    return out if out.any() else None


def _cut_beside(cut, gx0, gx1, gy0, gy1) -> bool:
    """Whether ink cut by the box's edge (``cut``: x, y, w, h of each piece) lies beside the
    glyph spanning ``gx0``..``gx1``, ``gy0``..``gy1`` on its line: most of the shorter
    one's height shared, less than half the glyph's height apart."""
    gh = gy1 - gy0
    for x, y, w, h in cut:
        shared = min(y + h, gy1) - max(y, gy0)
        gap = max(x - gx1, gx0 - (x + w))
        if shared > 0.5 * min(h, gh) and gap < 0.5 * gh:
            return True
    return False


def _ink_colour(dark, red, blue, m, out=None) -> tuple[float, float]:
    """The redness and blueness of the ink ``m`` (a mask over ``dark``, ``red``, ``blue``):
    with ``CHROMA_BOX``, the median over its pixels of the colour per darkness in the box
    round each (a thin stroke's colour smeared onto the paper beside it counted), else the
    median colour of its pixels. ``out`` (session sixteen: a frame band's arms taken out
    of the ink): pixels left out of the box round each (the colour per darkness of the rest);
    a pixel with none of them within the box is measured as without."""
    if not CHROMA_BOX:
        return float(np.median(red[m])), float(np.median(blue[m]))
    k = (CHROMA_BOX, CHROMA_BOX)
    if out is not None:
        keep = (~out).astype(np.float32)
        dark, red, blue = dark * keep, red * keep, blue * keep
    d = cv2.blur(np.ascontiguousarray(dark), k)[m]
    r = cv2.blur(np.ascontiguousarray(red), k)[m] / d
    b = cv2.blur(np.ascontiguousarray(blue), k)[m] / d
    return float(np.median(r)), float(np.median(b))


def glyph_feature(crop: np.ndarray) -> np.ndarray:
    f = cv2.resize(crop.astype(np.float32), GLYPH_SIZE, interpolation=cv2.INTER_AREA)
    f = cv2.GaussianBlur(f, (3, 3), 0.7).ravel()
    f = f - f.mean()
    f = f / (np.linalg.norm(f) or 1.0)
    aspect = crop.shape[1] / max(crop.shape[0], 1)
    f = np.append(f, 0.6 * min(aspect, 2.5))
    return f / np.linalg.norm(f)


def _views(card: np.ndarray, rng: np.random.Generator):
    """A drawn card as the reader gets it: warped to W x H with a little jitter, blurred."""
    h, w = card.shape[:2]
    for k in range(2):
        jit = rng.uniform(-0.02, 0.02, (4, 2)) * [w, h]
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]]) + np.float32(jit)
        m = cv2.getPerspectiveTransform(src, np.float32([[0, 0], [W, 0], [W, H], [0, H]]))
        v = cv2.warpPerspective(card, m, (W, H), flags=cv2.INTER_AREA,
                                borderValue=(128, 128, 128))
        if k:
            v = cv2.GaussianBlur(v, (0, 0), rng.uniform(0.5, 1.0))
        yield v
        yield np.ascontiguousarray(v[::-1, ::-1])


@functools.lru_cache(maxsize=2)
def prototypes(styles_per_family: int = 10, seed: int = 24,
               part: str = "middle") -> tuple[np.ndarray, np.ndarray]:
    """(features, shape labels) drawn from the TUNED STACKS styles only (a few seconds): of
    the middle glyph, or (``part="index"``, session eleven) of the corner index."""
    parts_of = {"middle": glyph_parts, "index": index_parts}[part]
    rng = np.random.default_rng(seed)
    feats, labels = [], []
    for fam in STACKS_TUNED:
        for k in range(styles_per_family):
            st = stacks_style(fam, 1000 + k)
            for code in CODES:
                if code[0] == "B" and code[1] in "12345W":
                    continue                     # the same glyph as the red card
                card = stacks_card_image(code, st, 210)[..., :3]
                for v in _views(card, rng):
                    parts = parts_of(v)
                    if parts is None:
                        continue
                    feats.append(glyph_feature(parts[0]))
                    labels.append(shape_of(code))
    return np.float32(feats), np.array(labels)


def _classify(crop: np.ndarray, part: str = "middle") -> list[tuple[str, float]]:
    """Each glyph's best cosine with ``crop``, best first."""
    P, L = prototypes(part=part)
    sims = P @ glyph_feature(crop)
    best: dict[str, float] = {}
    for s, lab in zip(sims, L):
        if s > best.get(lab, -2):
            best[lab] = float(s)
    return sorted(best.items(), key=lambda kv: -kv[1])


def _card_code(shape: str, colour: str) -> tuple[str | None, str]:
    """(the card of a glyph in an ink colour, or None; why not)."""
    if shape in ("1", "2", "3", "4", "5", "W"):
        if not colour:
            return None, f"a {shape} in a dark ink: a number or a wild is red or blue"
        return colour + shape, ""
    if colour:
        return None, f"a special card ({shape}) in a {'red' if colour == 'R' else 'blue'} ink"
    return shape, ""


def read_stacks_straight(card: np.ndarray) -> StacksReading:
    """Read a straightened STACKS card (``W`` x ``H``): its middle glyph, or (session
    eleven, ``INDEX``) when that does not name it, its corner indices; a card the middle
    names while an index surely reads another glyph (the middle's glyph half under
    fingers) is unknown."""
    norm = _normalised(card)
    out = _read_middle(card, norm)
    if not INDEX:
        return out
    corners = _read_corners(card, norm)
    if out.code is not None:
        other = [sh for sh, sc, mg, _ in corners if sh != out.shape
                 and sc >= MIN_SCORE and mg >= MIN_MARGIN]
        if other:
            out.reason = f"the middle reads {out.code}, an index {other[0]}"
            out.code = None
        return out
    code, why = _index_decision(corners, out)
    if code is not None:
        out.code, out.way = code, "index"
    else:
        out.reason += f"; {why}"
    return out


def _read_middle(card: np.ndarray, norm) -> StacksReading:
    parts = glyph_parts(card, norm)
    if parts is None:
        return StacksReading(None, reason="no glyph in the middle of the card")
    crop, r, b = parts
    order = _classify(crop)
    shape, score = order[0]
    margin = score - order[1][1]
    colour = _ink_colour_name(r, b)
    out = StacksReading(None, shape=shape, score=score, margin=margin, colour=colour)
    if score < MIN_SCORE or margin < MIN_MARGIN:
        out.reason = (f"the middle is not surely one glyph ({shape} {score:.2f}, "
                      f"next {order[1][0]} {order[1][1]:.2f})")
        return out
    if colour is None:
        out.reason = f"the ink is neither surely red, blue nor dark (red {r:.2f}, blue {b:.2f})"
        return out
    out.code, out.reason = _card_code(shape, colour)
    return out


def _ink_colour_name(r: float, b: float, index: bool = False) -> str | None:
    """The colour of the middle glyph's ink (or, with ``CHROMA_BOX``, an index's): "R",
    "B", "" (dark) or None (unsure)."""
    if CHROMA_BOX:
        red, blue = (INDEX_CHROMA_RED, INDEX_CHROMA_BLUE) if index else (CHROMA_RED, CHROMA_BLUE)
        neutral_red, neutral_blue = red, blue
    else:
        red = blue = MIN_COLOUR
        neutral_red = neutral_blue = MAX_NEUTRAL
    if r >= red and r > b:
        return "R"
    if b >= blue and b > r:
        return "B"
    if r < neutral_red and b < neutral_blue:
        return ""
    return None


def _index_colour(r: float, b: float) -> str | None:
    """The colour of an index's ink: "R", "B", "" (dark) or None (unsure). Measured per
    darkness (``CHROMA_BOX``, session fourteen) the index's thin strokes read as the
    middle's ink; without, they are paler and have bounds of their own."""
    if CHROMA_BOX:
        return _ink_colour_name(r, b, index=True)
    if r >= MIN_COLOUR and b < 0:
        return "R"
    if b >= INDEX_BLUE and r < -INDEX_NOT_RED:
        return "B"
    if -INDEX_NOT_RED <= r < MAX_NEUTRAL and b < INDEX_DARK_BLUE:
        return ""
    return None


def _read_corners(card: np.ndarray, norm) -> list[tuple[str, float, float, str | None]]:
    """The indices in the two opposite corners: (glyph, score, margin, ink colour) of each
    found (:func:`index_parts`; the other corner is the top-left one of the card turned
    round)."""
    turned = tuple(np.ascontiguousarray(a[::-1, ::-1]) for a in norm)
    out = []
    for n in (norm, turned):
        parts = index_parts(card, n)
        if parts is None:
            continue
        crop, r, b = parts
        order = _classify(crop, "index")
        out.append((order[0][0], order[0][1], order[0][1] - order[1][1], _index_colour(r, b)))
    return out


def _index_decision(corners, middle: StacksReading) -> tuple[str | None, str]:
    """(the card named by the corner indices, or None; why not). Named when a corner's
    index is sure (``MIN_SCORE``, ``MIN_MARGIN``) in an ink that fits it, the other corner
    does not read another glyph (``INDEX_OTHER``), and the middle, if a glyph was found
    there, does not read another one (``INDEX_OTHER``)."""
    sure = set()
    for shape, score, margin, colour in corners:
        if score >= MIN_SCORE and margin >= MIN_MARGIN and colour is not None:
            code, _ = _card_code(shape, colour)
            if code:
                sure.add((code, shape))
    if len(sure) != 1:
        return None, ("no index read surely" if not sure else
                      "the indices read " + " and ".join(sorted(c for c, _ in sure)))
    code, shape = sure.pop()
    if any(sh != shape and sc >= INDEX_OTHER for sh, sc, _, _ in corners):
        return None, f"the other index is not {code}"
    if middle.shape is not None and middle.shape != shape and middle.score >= INDEX_OTHER:
        return None, f"the index reads {code}, the middle {middle.shape}"
    return code, ""


def read_stacks_pile(after: np.ndarray, before: np.ndarray,
                     card_px: float | None = None) -> StacksReading:
    """The new top STACKS card of a pile between two pictures (as
    :func:`vision.cards.reader.read_pile`): named only when every rectangle the finder
    proposes and reads surely reads the same."""
    quads = _new_card_quads(after, before, card_px)
    quads += [r for r in (_refine(after, before, q, card_px) for q in quads) if r is not None]
    if card_px and LINES:
        # the playing-card pile reader's rectangles built on the card's own new edges (they
        # find a card whose changed picture is mostly a hand's): both of its passes, the
        # second with wider gaps bridged (the card's edges broken into short pieces by the
        # fingers over it and by a card below's edges; the first pass alone missed a Steal
        # a Chip under fingers on the cards as OpenCV 5.1 draws them)
        for q in pile_line_candidates(after, before, card_px):
            if not any(_same_quad(q, o, 0.015 * card_px) for o in quads):
                quads.append(q)
    return _agreed(after, before, quads)


#: also read the rectangles built on the new straight edges (``reader.pile_line_candidates``)
LINES = True
#: (session twelve) rectangles that name different cards: those that read the same card in
#: the picture before (a card below whose corner index shows beside the new card) are left
#: out, and the others named when they agree
BELOW = True


def _agreed(after: np.ndarray, before: np.ndarray | None, quads) -> StacksReading:
    """Each rectangle of ``quads`` straightened and read; the card named only when the ones
    read surely agree (as :func:`vision.cards.reader.read_agreed`), else unknown saying why;
    with none read surely, the reading of the rectangle most like a card. When they name
    different cards (``BELOW``), a rectangle that reads the same card in the picture before
    is a card below seen beside the new one (its corner index shows): left out, and the
    others named when they agree. The reading given back is one read by its middle glyph
    when one is (``way`` "index" only when no rectangle's middle names the card)."""
    if not quads:
        return StacksReading(None, reason="no new card found")
    reads, known = read_quads(after, quads, read_stacks_straight)
    if not known:
        return max(reads, key=lambda r: _edge_score(after, r.quad))
    codes = {r.code for r in known}
    if len(codes) > 1 and BELOW and before is not None:
        new = [r for r in known
               if read_stacks_straight(straighten(before, r.quad)).code != r.code]
        if new and len({r.code for r in new}) == 1:
            known, codes = new, {new[0].code}
    if len(codes) > 1:
        return StacksReading(None, quad=known[0].quad,
                             reason="the card's outline is doubtful: it reads "
                                    + " or ".join(sorted(codes)))
    return next((r for r in known if r.way == "middle"), known[0])



def _mag(img: np.ndarray, sigma: float) -> np.ndarray:
    g = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    m = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))
    return cv2.GaussianBlur(m, (0, 0), sigma) if sigma > 0 else m


def _refine(after: np.ndarray, before: np.ndarray, quad, card_px: float | None,
            aspect: float = 1.4):
    """The card-sized rectangle round ``quad`` whose outline is NEW: strong edges in the
    picture after that the picture before did not have (the cards below have theirs in
    both). The finder's rectangle can be a fifth of a card off, or a quarter turn, when the
    new card lies over paper like its own; this searches a third of a card round it."""
    q = np.float32(quad)
    e01, e12 = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])
    L = float(card_px or max(e01, e12))
    long_edge = (q[2] - q[1]) if e12 >= e01 else (q[1] - q[0])
    a0 = float(np.degrees(np.arctan2(long_edge[1], long_edge[0]))) - 90.0
    c0 = q.mean(axis=0)
    t = np.linspace(0, 1, 40, endpoint=False)
    hw, hh = 0.5 / aspect * L, 0.5 * L
    border = np.concatenate([np.stack([-hw + 2 * hw * t, -hh + 0 * t], 1),
                             np.stack([hw + 0 * t, -hh + 2 * hh * t], 1),
                             np.stack([hw - 2 * hw * t, hh + 0 * t], 1),
                             np.stack([-hw + 0 * t, hh - 2 * hh * t], 1)]).astype(np.float32)
    Hh, Ww = after.shape[:2]

    def search(centre, angles, steps, ma, mb):
        best_s, best = -1e9, None
        off = np.stack(np.meshgrid(steps, steps), -1).reshape(-1, 2)
        for a_deg in angles:
            a = np.deg2rad(a_deg)
            R = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            rb = border @ R.T + centre
            bx = np.clip((rb[None, :, 0] + off[:, None, 0]).astype(int), 0, Ww - 1)
            by = np.clip((rb[None, :, 1] + off[:, None, 1]).astype(int), 0, Hh - 1)
            sc = np.median(ma[by, bx] - mb[by, bx], axis=1)
            j = int(np.argmax(sc))
            if sc[j] > best_s:
                best_s, best = float(sc[j]), (centre + off[j], a_deg)
        return best

    sa, sb = _mag(after, max(1.5, 0.03 * L)), _mag(before, max(1.5, 0.03 * L))
    # the finder's rectangle may also stand across the card (a quarter turn off)
    angles = np.concatenate([np.arange(a0 - 6, a0 + 6.1, 3), np.arange(a0 + 84, a0 + 96.1, 3)])
    c, a = search(c0, angles, np.linspace(-0.35, 0.35, 15) * L, sa, sb)
    ma, mb = _mag(after, 0), _mag(before, 0)
    c, a = search(np.float32(c), np.arange(a - 2, a + 2.1, 1), np.linspace(-0.05, 0.05, 11) * L,
                  ma, mb)
    r = np.deg2rad(a)
    R = np.float32([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    corners = np.float32([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    return np.float32(corners @ R.T + c)

