"""Read the new top card of a discard pile: find it, straighten it, read its index corners.

Finding: the card-sized rectangle that lies on the edges and holds the paper that changed
between the frames before and after, searched from several starts (the changed part with
the most paper; on the edges that are new, the changed parts grouped, the two biggest, and
the part wide enough to be a card); and rectangles of the card's known size built on the
straight new edges, each moved onto the card's own visible edges (:func:`line_candidates`,
:func:`refine_quad`: they find a card whose changed picture is mostly a hand's). Each
rectangle found is read; a card is named only when every rectangle that names a card names
the same one, or when exactly one card is read surely both ways (index and middle) on a
rectangle that did not read it in the picture before and every other card named is read
one way only (:func:`_settle`).

Reading (:func:`read_net`): two learned readers trained on the TUNED card families only read
the straightened card two ways: the index reader (:mod:`vision.cards.cardnet`) both index
corners, the middle reader (:mod:`vision.cards.midnet`) the whole card with its pips and
court picture. A card is named when one way reads it surely and no way reads another card
(:func:`combined_decision`); otherwise it is ``unknown`` with the reason. Thresholds were
chosen on tuned piles (docs/cards.md). Without the model file the classic reader
(:func:`read_classic`: prototypes of rank glyphs and suit signs, ``prototypes.npz``, rebuilt
by ``python -m vision.cards.train``, with a pip count) reads instead.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import cardnet

W, H = 150, 210                   # the straightened card
CORNER = (0.3, 0.38)             # the index corner, as parts of the width and height
RANK_SIZE = (14, 18)
SUIT_SIZE = (20, 20)
# Chosen on tuned families (benchmarks/cards.py --tune): see docs/cards.md.
MIN_RANK_SCORE = 0.85
MIN_RANK_MARGIN = 0.06
MIN_SUIT_SCORE = 0.90
MIN_SUIT_MARGIN = 0.03
# The learned reader (cardnet): chosen on tuned validation piles (docs/cards.md).
NET_BOTH = 0.5           # each corner, when both name the card
NET_ONE = 0.9            # the one corner, when the other sees no index (a hand over it)
NET_OTHER_NONE = 0.5     # ... and how sure that other corner is that it shows no index
# The middle reader (midnet): chosen on tuned validation piles (docs/cards.md).
MID_SURE = 0.9           # the middle alone names the card (no corner names another)
MID_CONFIRM = 0.5        # the middle confirms the card one corner alone names
MID_VETO = 0.9           # the middle names another card this surely: the corners' card is doubted
CORNER_VETO = 0.3        # a corner names another card this surely: the middle's card is doubted
#: with both index corners covered, the middle does not name a card whose pips may be partly
#: hidden (every number card but the 10: hiding pips makes a card of fewer pips; session seven)
HIDDEN_PIPS = True
FEWER_PIPS = "A23456789"
# A corner and the middle together (session seven, chosen on tuned piles, docs/cards.md)
COMBINE_CORNER = 0.8     # a corner names the card this surely (under NET_ONE) ...
COMBINE_MID = 0.3        # ... and the middle's likeliest card is the same this surely: named
DISAGREE_SURE = 0.9      # corners that disagree: one of them and the middle this sure ...
DISAGREE_OTHER = 0.7     # ... and the other corner under this: the first is named
CONFIRM_CORNER = 0.5     # the corner's likeliest card confirmed by the middle: at least this
# Rectangles that name different cards (chosen on tuned piles, docs/cards.md "Session five"
# and "Session seven")
SETTLE_SURE = 0.9        # one card read this surely two ways (a corner and the middle) ...
SETTLE_OTHER = 0.5       # ... and no other card read two ways this surely: the first is named
SETTLE_BELOW = True      # rectangles reading a card there before are left out first
SETTLE_TWO_CORNERS = True   # both corners sure count as two ways, as a corner and the middle
SETTLE_EDGE = 2.0        # none read two ways: the rectangle on edges this many times stronger
SETTLE_EDGE_MID = 0.5    # ... names its card, when the middle finds it likeliest this surely
SETTLE_AGAIN = 2         # (session ten) the card read surely two ways on this many rectangles ...
SETTLE_WEAK = 0.7        # ... outweighs one rectangle reading another card two ways under this
ASPECTS = (1.4, 1.5)               # height / width of the cards looked for
COARSE_SIDE = 14                   # points a side in the finder's first, coarse search
COARSE_STRIDE = 3                  # ... and every how many changed-paper points it counts
INK_START = True                   # (session ten) the pile reader fits on the changed ink too
PROTO_FILE = os.path.join(os.path.dirname(__file__), "prototypes.npz")


@dataclass
class CornerReading:
    rank: str | None
    suit: str | None
    rank_score: float = 0.0
    rank_margin: float = 0.0
    suit_score: float = 0.0
    suit_margin: float = 0.0

    @property
    def code(self) -> str | None:
        return self.rank + self.suit if self.rank and self.suit else None

    def sure(self) -> bool:
        return bool(self.code) and self.rank_score >= MIN_RANK_SCORE and \
            self.rank_margin >= MIN_RANK_MARGIN and self.suit_score >= MIN_SUIT_SCORE and \
            self.suit_margin >= MIN_SUIT_MARGIN


@dataclass
class CardReading:
    code: str | None                      # "5H", or None: unknown
    quad: np.ndarray | None = None        # the card's corners in the picture
    reason: str = ""
    corners: list = field(default_factory=list)
    pips: int | None = None
    probs: np.ndarray | None = None       # the learned reader's corner probabilities (2 x 53)
    middle: str | None = None             # the card the middle reader finds likeliest
    mid_probs: np.ndarray | None = None   # the middle reader's probabilities (53)
    way: str = ""                         # named from "index", "middle" or "both"

    @property
    def known(self) -> bool:
        return self.code is not None


# ---------------------------------------------------------------- features ----------------

def _feature(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    f = cv2.resize(mask.astype(np.float32), size, interpolation=cv2.INTER_AREA)
    f = cv2.GaussianBlur(f, (3, 3), 0.6).ravel()
    f = f - f.mean()
    n = np.linalg.norm(f)
    return f / n if n > 1e-6 else f


def _normalised(card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(darkness 0..1 over the paper, redness) of a straightened card."""
    f = card.astype(np.float32) + 1
    paper = np.percentile(f.reshape(-1, 3), 80, axis=0)
    n = np.clip(f / paper, 0, 1.2)
    dark = 1 - n.min(axis=2)
    red = n[..., 2] - (n[..., 0] + n[..., 1]) / 2
    return dark, red


def corner_parts(card: np.ndarray):
    """The rank glyph mask, the suit sign mask and the suit's redness in the top-left corner
    of a straightened card, or None."""
    dark, red = _normalised(card)
    cw, ch = int(W * CORNER[0]), int(H * CORNER[1])
    d = dark[:ch, :cw]
    if d.max() < 0.25:
        return None
    t = max(0.2, 0.45 * float(np.percentile(d, 99.5)))
    ink = (d > t).astype(np.uint8)
    ink = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((2, 2), np.uint8))
    # border lines and frames: long straight runs, never a stroke of the index
    hl = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, int(0.6 * cw)), np.uint8))
    vl = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((int(0.5 * ch), 1), np.uint8))
    lines = cv2.dilate(hl | vl, np.ones((3, 3), np.uint8))
    ink[lines > 0] = 0
    n, lab, stats, cent = cv2.connectedComponentsWithStats(ink, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if a < 5 or h < 3:
            continue
        if w > 0.85 * cw or h > 0.8 * ch:            # a border line or a frame
            continue
        if x + w >= cw - 1 or y + h >= ch - 1:       # runs out of the corner: the middle's art
            continue
        if x == 0 or y == 0:                         # the card's edge
            continue
        comps.append((y, x, w, h, a, i))
    if len(comps) < 2:
        return None
    big = max(c[4] for c in comps)
    comps = sorted(c for c in comps if c[4] >= 0.12 * big)      # no specks
    if len(comps) < 2:
        return None
    # the rank: the top-most component and those beside it (the 1 and 0 of 10)
    y0, x0, w0, h0 = comps[0][:4]
    rank = [c for c in comps if c[0] < y0 + 0.5 * h0 and c[0] + c[3] > y0 + 0.5 * h0]
    rb = max(c[0] + c[3] for c in rank)
    rh = rb - min(c[0] for c in rank)
    rx0 = min(c[1] for c in rank)
    rx1 = max(c[1] + c[2] for c in rank)
    # the suit: what lies just below it, roughly under it (its parts together)
    below = [c for c in comps if c not in rank and c[0] >= rb - 0.2 * rh
             and c[0] <= rb + 1.0 * rh and c[1] < rx1 + 0.4 * rh and c[1] + c[2] > rx0 - 0.4 * rh]
    if not below:
        return None
    rm = np.isin(lab, [c[5] for c in rank])
    ys, xs = np.nonzero(rm)
    rmask = rm[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    sm = np.isin(lab, [c[5] for c in below])
    ys, xs = np.nonzero(sm)
    smask = sm[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    redness = float(np.median(red[:ch, :cw][sm]))
    return rmask, smask, redness, rmask.shape[1] / max(rmask.shape[0], 1)


def rank_feature(rmask, aspect):
    f = np.append(_feature(rmask, RANK_SIZE), 0.5 * min(aspect, 2.0))
    return f / np.linalg.norm(f)


def suit_feature(smask):
    aspect = smask.shape[1] / max(smask.shape[0], 1)
    f = np.append(_feature(smask, SUIT_SIZE), 0.5 * min(aspect, 2.0))
    return f / np.linalg.norm(f)


# ---------------------------------------------------------------- prototypes --------------

@functools.lru_cache(maxsize=1)
def prototypes() -> dict:
    if os.path.exists(PROTO_FILE):
        z = np.load(PROTO_FILE)
        return {k: z[k] for k in z.files}
    from .train import build_prototypes
    return build_prototypes()


def _classify(feat, protos, labels):
    sims = protos @ feat
    best = {}
    for s, lab in zip(sims, labels):
        if s > best.get(lab, -2):
            best[lab] = float(s)
    order = sorted(best.items(), key=lambda kv: -kv[1])
    top = order[0]
    second = order[1][1] if len(order) > 1 else -1.0
    return top[0], top[1], top[1] - second


def read_corner(card: np.ndarray) -> CornerReading:
    parts = corner_parts(card)
    if parts is None:
        return CornerReading(None, None)
    rmask, smask, redness, aspect = parts
    P = prototypes()
    rank, rs, rmarg = _classify(rank_feature(rmask, aspect), P["rank_f"], P["rank_l"])
    is_red = redness > 0.12
    sf = suit_feature(smask)
    pool = P["suit_l"]
    keep = np.isin(pool, ["H", "D"] if is_red else ["S", "C"])
    suit, ss, smarg = _classify(sf, P["suit_f"][keep], pool[keep])
    return CornerReading(str(rank), str(suit), rs, rmarg, ss, smarg)


def count_pips(card: np.ndarray) -> int | None:
    """Pip-like ink blobs in the card's middle (None if it looks like a picture)."""
    dark, _ = _normalised(card)
    x0, x1, y0, y1 = int(0.22 * W), int(0.78 * W), int(0.09 * H), int(0.91 * H)
    d = dark[y0:y1, x0:x1]
    ink = (d > max(0.22, 0.5 * float(d.max()))).astype(np.uint8)
    ink = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))   # frames, specks
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = [stats[i][4] for i in range(1, n) if stats[i][4] >= 12
             and stats[i][2] < 0.9 * (x1 - x0) and stats[i][3] < 0.8 * (y1 - y0)
             and stats[i][2] > 3 and stats[i][3] > 3]
    if not areas:
        return None
    big = max(areas)
    pips = [a for a in areas if a >= 0.45 * big]
    small = [a for a in areas if 0.12 * big <= a < 0.45 * big]
    if len(small) > len(pips) + 2:                  # a picture, not pips
        return None
    return len(pips)


PIP_COUNT = {**{str(n): n for n in range(2, 10)}, "T": 10, "A": 1}


def straighten(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    q = np.float32(quad)
    e01 = np.linalg.norm(q[1] - q[0])
    e12 = np.linalg.norm(q[2] - q[1])
    if e01 > e12:                      # make the first edge a short one
        q = np.roll(q, -1, axis=0)
    dst = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    return cv2.warpPerspective(img, cv2.getPerspectiveTransform(q, dst), (W, H),
                               flags=cv2.INTER_AREA)


def read_straight(card: np.ndarray) -> CardReading:
    """Read a straightened card (``W`` x ``H``): the learned index reader on its two index
    corners (:func:`read_net`), or the classic one when the model cannot be loaded."""
    try:
        return read_net(card)
    except cardnet.ModelError:
        return read_classic(card)


def net_decision(p: np.ndarray, pips: int | None, both: float | None = None,
                 one: float | None = None, other_none: float | None = None
                 ) -> tuple[str | None, str]:
    """The card named by the two corners' probabilities ``p`` (2 x 53), or None with the
    reason. Named only when both corners name it (each at least ``NET_BOTH``), or one names
    it surely (at least ``NET_ONE``) and the other sees no index there (a hand over it);
    a number card or an ace whose pips were counted must have that many."""
    both = NET_BOTH if both is None else both
    one = NET_ONE if one is None else one
    other_none = NET_OTHER_NONE if other_none is None else other_none
    k = p.argmax(axis=1)
    names = [cardnet.CODES[i] if i != cardnet.NONE else None for i in k]
    conf = [float(p[j, k[j]]) for j in range(2)]
    if names[0] and names[1] and names[0] != names[1]:
        return None, f"the two corners disagree ({names[0]}, {names[1]})"
    if names[0] and names[1]:
        code = names[0]
        if min(conf) < both:
            return None, f"both corners read {code}, not surely ({min(conf):.2f})"
    elif names[0] or names[1]:
        j = 0 if names[0] else 1
        code = names[j]
        if conf[j] < one or float(p[1 - j, cardnet.NONE]) < other_none:
            return None, f"one corner reads {code}, nothing confirms it"
    else:
        return None, "no corner read surely"
    want = PIP_COUNT.get(code[0])
    if want is not None and pips is not None and pips != want:
        return None, f"{code} in the corners but {pips} pips in the middle"
    return code, ""


def combined_decision(p: np.ndarray, pm: np.ndarray | None, pips: int | None = None,
                      t: dict | None = None) -> tuple[str | None, str, str]:
    """(card or None, reason, way) from the index corners' probabilities ``p`` (2 x 53) and
    the middle's ``pm`` (53, or None without the middle reader). A card is named when

    - the corners name it (:func:`net_decision`) and the middle does not name another card
      (at least ``MID_VETO``), or
    - the middle names it (at least ``MID_SURE``; ``MID_CONFIRM`` when a corner names it too,
      with at least ``CONFIRM_CORNER``, session nine) and no corner names another card (at
      least ``CORNER_VETO``);
    - (session nine) the corners disagree, one of them and the middle each name it at least
      ``DISAGREE_SURE`` and the other corner's card is under ``DISAGREE_OTHER`` (a finger
      over part of that corner's rank);

    anything else is unknown. ``t`` overrides thresholds by name (the tuning grid)."""
    t = t or {}
    g = {k: t.get(k, globals()[k]) for k in ("NET_BOTH", "NET_ONE", "NET_OTHER_NONE", "MID_SURE",
                                             "MID_CONFIRM", "MID_VETO", "CORNER_VETO",
                                             "COMBINE_CORNER", "COMBINE_MID", "DISAGREE_SURE",
                                             "DISAGREE_OTHER", "CONFIRM_CORNER")}
    code, reason = net_decision(p, pips, g["NET_BOTH"], g["NET_ONE"], g["NET_OTHER_NONE"])
    if pm is None:
        return code, reason, "index" if code else ""
    m = int(np.argmax(pm))
    mid = cardnet.CODES[m] if m != cardnet.NONE else None
    mconf = float(pm[m])
    if code:
        if mid and mid != code and mconf >= g["MID_VETO"]:
            return None, f"the corners read {code} but the middle {mid} ({mconf:.2f})", ""
        return code, "", "both" if mid == code else "index"
    k = p.argmax(axis=1)
    corner = [cardnet.CODES[i] if i != cardnet.NONE else None for i in k]
    if mid is None:
        return None, reason + "; the middle reads no card", ""
    if corner[0] and corner[1] and corner[0] != corner[1] and mid in corner \
            and g["DISAGREE_SURE"] is not None:
        # the corners disagree: one of them and the middle both read surely, the other
        # corner unsure (a finger over part of its rank: a J read as a 3)
        j = corner.index(mid)
        if float(p[j, m]) >= g["DISAGREE_SURE"] and mconf >= g["DISAGREE_SURE"] \
                and float(p[1 - j, k[1 - j]]) < g["DISAGREE_OTHER"]:
            return mid, "", "both"
    other = [c for j, c in enumerate(corner) if c and c != mid and p[j, k[j]] >= g["CORNER_VETO"]]
    if other:
        return None, reason + f"; the middle reads {mid} but a corner {other[0]}", ""
    lean = max(float(p[j, m]) for j in range(2))      # the corners' belief in the middle's card
    need = g["MID_CONFIRM"] if mid in corner and lean >= g["CONFIRM_CORNER"] else g["MID_SURE"]
    if mid in corner and lean >= g["COMBINE_CORNER"]:
        need = min(need, g["COMBINE_MID"])   # a corner fairly sure and the middle agreeing
    if mconf < need:
        return None, reason + f"; the middle reads {mid}, not surely ({mconf:.2f})", ""
    if HIDDEN_PIPS and mid[0] in FEWER_PIPS and all(i == cardnet.NONE for i in k):
        # both index corners are covered: so may be some pips, and the middle counts the
        # pips it sees (a 9S with a palm over its middle shows the four pips of a 4S)
        return None, reason + f"; the middle reads {mid}, but both index corners are " \
            "covered and so may be some of its pips", ""
    want = PIP_COUNT.get(mid[0])
    if want is not None and pips is not None and pips != want:
        return None, f"the middle reads {mid} but {pips} pips were counted", ""
    return mid, "", "middle"


def _mid_probabilities(card: np.ndarray, norm: np.ndarray | None = None) -> np.ndarray | None:
    """The middle reader's probabilities, or None when its model file cannot be loaded (the
    index corners then read alone)."""
    from . import midnet
    try:
        net = midnet.shipped()
    except cardnet.ModelError:
        return None
    return net.probabilities(card, norm)


def read_net(card: np.ndarray) -> CardReading:
    norm = cardnet.paper_normalised(card)         # made once for both readers
    p = cardnet.shipped().probabilities(cardnet.corner_inputs(card, norm))
    pm = _mid_probabilities(card, norm)
    pips = None     # the pip count is not asked: on tuned piles it refused right readings only
    code, reason, way = combined_decision(p, pm, pips)
    k = p.argmax(axis=1)
    mid = None
    if pm is not None and int(np.argmax(pm)) != cardnet.NONE:
        mid = cardnet.CODES[int(np.argmax(pm))]
    return CardReading(code, reason=reason, pips=pips, probs=p, middle=mid, mid_probs=pm,
                       way=way,
                       corners=[cardnet.CODES[i] if i != cardnet.NONE else None for i in k])


def read_classic(card: np.ndarray) -> CardReading:
    """The classic reader: prototypes of the rank glyph and suit sign in each corner."""
    a = read_corner(card)
    b = read_corner(np.ascontiguousarray(card[::-1, ::-1]))
    pips = count_pips(card)
    sure = [c for c in (a, b) if c.sure()]
    out = CardReading(None, corners=[a.code, b.code], pips=pips)
    if len(sure) == 2:
        if a.code != b.code:
            out.reason = f"the two corners disagree ({a.code}, {b.code})"
            return out
        code = a.code
        want = PIP_COUNT.get(code[0])
        if want is not None and pips is not None and pips != want:
            out.reason = f"{code} in the corners but {pips} pips in the middle"
            return out
        out.code = code
        return out
    if len(sure) == 1:
        code = sure[0].code
        other = b if sure[0] is a else a
        if other.code and other.code != code:
            out.reason = f"the two corners disagree ({a.code}, {b.code})"
            return out
        if PIP_COUNT.get(code[0]) is not None and pips == PIP_COUNT[code[0]]:
            out.code = code
            return out
        out.reason = f"one corner reads {code}, nothing confirms it"
        return out
    out.reason = "no corner read surely"
    return out


# ---------------------------------------------------------------- finding -----------------

def _paper_parts(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bright, flat areas cut along edges: each card's paper a part of its own."""
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    t, _ = cv2.threshold(g, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = (g > t) & (hsv[..., 1] < 150)
    edges = cv2.Canny(cv2.GaussianBlur(g, (3, 3), 0), 20, 60)
    edges = cv2.dilate(edges, np.ones((2, 2), np.uint8))
    mask = (bright & (edges == 0)).astype(np.uint8)
    n, lab = cv2.connectedComponents(mask, connectivity=4)
    return n, lab


def _card_quad(region: np.ndarray, card_px: float | None):
    cs, _ = cv2.findContours(region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cs:
        return None
    c = max(cs, key=cv2.contourArea)
    hull = cv2.convexHull(c)
    (cx, cy), (w, h), ang = cv2.minAreaRect(hull)
    lo, hi = min(w, h), max(w, h)
    if lo < 8 or not 1.2 < hi / lo < 1.65:
        return None
    if card_px is not None and not 0.8 < hi / card_px < 1.2:
        return None
    if cv2.contourArea(hull) < 0.85 * w * h:
        return None
    return cv2.boxPoints(((cx, cy), (w + 2, h + 2), ang))


def _gradient(img: np.ndarray) -> np.ndarray:
    g = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    return cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))


def _fit_rect(after: np.ndarray, cm: np.ndarray, card_px: float | None,
              mag: np.ndarray | None = None, blurred: dict | None = None):
    """The card-sized rectangle that best lies on the picture's edges and holds the changed
    paper ``cm``: a search round the changed paper's own rectangle."""
    cs, _ = cv2.findContours(cm.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cs:
        return None
    c = max(cs, key=cv2.contourArea)
    rect = cv2.minAreaRect(cv2.convexHull(c))
    (cx, cy), (w0, h0) = rect[0], rect[1]
    L = card_px or max(w0, h0)
    if cv2.contourArea(c) < 0.05 * L * L / 1.4:
        return None
    if mag is None:
        mag = _gradient(after)
    Hh, Ww = mag.shape
    ys, xs = np.nonzero(cm)
    k = np.linspace(0, len(xs) - 1, min(len(xs), 400)).astype(int)
    pts = np.stack([xs[k], ys[k]], 1).astype(np.float32)

    def shape(aspect, n_side=40):
        """Points along the border of the card and its corners (width L/aspect, height L)."""
        t = np.linspace(0, 1, n_side, endpoint=False)
        hw, hh = 0.5 / aspect, 0.5
        border = np.concatenate([np.stack([-hw + 2 * hw * t, -hh + 0 * t], 1),
                                 np.stack([hw + 0 * t, -hh + 2 * hh * t], 1),
                                 np.stack([hw - 2 * hw * t, hh + 0 * t], 1),
                                 np.stack([-hw + 0 * t, hh - 2 * hh * t], 1)]) * L
        return border, hw, hh, np.float32([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]) * L

    def search(centre, angles, steps, mag, aspect, coarse=False):
        # the first, coarse search looks at a picture smoothed by 4 % of a card: fewer points
        # do (``COARSE_SIDE`` a side, every ``COARSE_STRIDE``-th changed-paper point)
        border, hw, hh, _ = shape(aspect, COARSE_SIDE if coarse else 40)
        pts_ = pts[::COARSE_STRIDE] if coarse else pts
        best_s, best = -1.0, None
        off = np.stack(np.meshgrid(steps, steps), -1).reshape(-1, 2)       # (k, 2)
        for a_deg in angles:
            a = np.deg2rad(a_deg)
            R = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            rb = border @ R.T + centre                                      # (b, 2)
            bx = np.clip((rb[None, :, 0] + off[:, None, 0]).astype(int), 0, Ww - 1)
            by = np.clip((rb[None, :, 1] + off[:, None, 1]).astype(int), 0, Hh - 1)
            edge = np.median(mag[by, bx], axis=1)                           # (k,)
            lp = (pts_[None] - centre - off[:, None]) @ R                   # (k, p, 2)
            inside = np.mean((np.abs(lp[..., 0]) < hw * L * 1.04)
                             & (np.abs(lp[..., 1]) < hh * L * 1.04), axis=1)
            sc = edge * inside ** 3
            j = int(np.argmax(sc))
            if sc[j] > best_s:
                best_s, best = float(sc[j]), (centre + off[j], a_deg)
        return best, best_s

    c0 = np.float32([cx, cy])
    # the smoothed edge pictures, made once for the starts that share ``mag`` (``blurred``)
    key = (id(mag), round(L, 3))
    if blurred is not None and key in blurred:
        soft, mid = blurred[key]
    else:
        soft = cv2.GaussianBlur(mag, (0, 0), max(1.5, 0.04 * L))
        mid = cv2.GaussianBlur(mag, (0, 0), max(1.0, 0.015 * L))
        if blurred is not None:
            blurred[key] = (soft, mid)
    (c, a), _ = search(c0, np.arange(0, 180, 5), np.linspace(-0.18, 0.18, 7) * L, soft, 1.45,
                       coarse=True)
    (c, a), _ = search(np.float32(c), np.arange(a - 4, a + 4.1, 2),
                       np.linspace(-0.06, 0.06, 7) * L, mid, 1.45)
    best, best_s = None, -1.0
    for aspect in ASPECTS:             # the card's own shape: 63 x 88 mm, or narrower
        (c2, a2), sc = search(np.float32(c), np.arange(a - 1.5, a + 1.6, 0.75),
                              np.linspace(-0.025, 0.025, 5) * L, mag, aspect)
        if sc > best_s:
            r = np.deg2rad(a2)
            R = np.float32([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
            best_s, best = sc, (np.float32(c2), R, shape(aspect)[3])
    c, R, corners = best
    return np.float32(corners @ R.T + c)


def find_new_card(after: np.ndarray, before: np.ndarray | None = None,
                  card_px: float | None = None) -> np.ndarray | None:
    """The corners of the new top card in ``after``: with ``before``, fitted on the paper
    that changed; without it, the most card-like part of the paper."""
    if before is None:
        found = find_cards(after, read=False)
        return found[0].quad if found else None
    quads = _new_card_quads(after, before, card_px)
    return max(quads, key=lambda q: _edge_score(after, q)) if quads else None


def _new_card_quads(after, before, card_px):
    diff = cv2.absdiff(cv2.GaussianBlur(after, (5, 5), 0), cv2.GaussianBlur(before, (5, 5), 0))
    changed = diff.max(axis=2) > 25
    if changed.sum() < 50:
        return []
    g = cv2.cvtColor(after, cv2.COLOR_BGR2GRAY)
    top = float(np.percentile(g[changed], 95))
    bright = g > 0.6 * top
    k = max(3, int((card_px or 60) * 0.06)) | 1
    cm = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    cm = cv2.morphologyEx(cm, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(cm)
    if n <= 1:
        return []
    # the new card: the changed part with the most paper in it (a hand has little); the
    # search holds that part, or only its paper (an arm touching the card is not paper)
    paper = np.bincount(lab[bright], minlength=n)
    i = 1 + int(np.argmax(paper[1:]))
    if not card_px:
        return new_card_candidates(after, lab == i, bright, card_px)
    mag_after = _gradient(after)
    quads = [_fit_rect(after, (lab == i) & bright, card_px, mag_after)]
    if card_px:
        # more starts, fitted on the edges that are new (an edge of a card below is not the
        # new card's): the changed parts grouped (a card laid on cards changes only where
        # its ink is: scattered pips), the biggest two (a bright arm may hold more paper-like
        # pixels than the card), and the part wide enough to be a card (an arm is narrower)
        mag_new = np.maximum(mag_after - cv2.dilate(_gradient(before), np.ones((3, 3))), 0)
        blurred: dict = {}
        k = int(0.3 * card_px) | 1
        grouped = _morph_coarse(cm, cv2.MORPH_CLOSE, k)
        n2, lab2, stats2, _ = cv2.connectedComponentsWithStats(grouped)
        big = [j for j in np.argsort(-stats2[:, 4]) if j != 0
               and stats2[j, 4] >= 0.15 * card_px * card_px / 1.4][:2]
        for j in big:
            quads.append(_fit_rect(after, lab2 == j, card_px, mag_new, blurred))
        core = _card_core(grouped, card_px)
        if core is not None:
            quads.append(_fit_rect(after, core, card_px, mag_new, blurred))
    return [q for q in quads if q is not None]


def ink_candidate(after: np.ndarray, before: np.ndarray, card_px: float):
    """(session ten) A rectangle fitted on the changed ink apart from solid changed parts
    (:func:`_ink_part`), on the edges that are new, or None. The pile reader's (not
    :func:`_new_card_quads`', which the STACKS and Jewish Edition readers share)."""
    diff = cv2.absdiff(cv2.GaussianBlur(after, (5, 5), 0), cv2.GaussianBlur(before, (5, 5), 0))
    ink = _ink_part(diff.max(axis=2) > 25, card_px)
    if ink is None:
        return None
    mag_new = np.maximum(_gradient(after) - cv2.dilate(_gradient(before), np.ones((3, 3))), 0)
    return _fit_rect(after, ink, card_px, mag_new)


def _ink_part(changed: np.ndarray, card_px: float) -> np.ndarray | None:
    """The changed ink apart from solid changed parts: a card laid wholly on cards of the
    same paper changes only where its ink is (scattered pips and indices), while an arm in
    view is one solid part that may hold more changed pixels, and more paper-bright ones,
    than the card (the finder's other starts then fit on the arm). What an opening by a
    fifth of a card keeps (the solid parts), grown a little, is left out; the rest grouped
    as in :func:`_new_card_quads`, the biggest group."""
    solid = _morph_coarse(changed, cv2.MORPH_OPEN, 0.2 * card_px)
    g = int(0.08 * card_px) | 1
    ink = changed & (cv2.dilate(solid, np.ones((g, g), np.uint8)) == 0)
    grouped = _morph_coarse(ink.astype(np.uint8), cv2.MORPH_CLOSE, int(0.3 * card_px) | 1)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(grouped)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, 4]))
    return lab == i


def _morph_coarse(mask: np.ndarray, op: int, diameter: float, f: int = 4) -> np.ndarray:
    """A closing or opening of ``mask`` by a disk, done at 1/``f`` of the size (a wide disk
    at full size is slow) and brought back to the mask's size."""
    h, w = mask.shape
    small = cv2.resize(mask.astype(np.float32), (max(1, w // f), max(1, h // f)),
                       interpolation=cv2.INTER_AREA)
    small = (small > (0.25 if op == cv2.MORPH_CLOSE else 0.5)).astype(np.uint8)
    k = max(3, int(diameter / f) | 1)
    out = cv2.morphologyEx(small, op, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_NEAREST)


def _card_core(cm: np.ndarray, card_px: float | None) -> np.ndarray | None:
    """The changed part wide enough to be a card: an arm (narrower than a card) and what
    touches it only thinly are cut off by an opening as wide as most of a card's width;
    the biggest part left, grown back a little, within the changed part."""
    if not card_px:
        return None
    core = _morph_coarse(cm, cv2.MORPH_OPEN, 0.5 * card_px)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(core)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, 4]))
    if stats[i, 4] < 0.25 * card_px * card_px / 1.4:
        return None
    g = int(0.12 * card_px) | 1
    grown = cv2.dilate((lab == i).astype(np.uint8), np.ones((g, g), np.uint8))
    return (grown > 0) & (cm > 0)


def new_card_candidates(after, part, bright, card_px):
    """Rectangles for the new card: fitted on the changed part, and on its paper only."""
    return [q for q in (_fit_rect(after, part, card_px), _fit_rect(after, part & bright, card_px))
            if q is not None]


def read_pile(after: np.ndarray, before: np.ndarray | None = None,
              card_px: float | None = None) -> CardReading:
    """Find and read the new top card of a pile picture. With ``before``, each rectangle the
    finder proposes is read; a card is named only if the ones read surely agree."""
    if before is None:
        quad = find_new_card(after, None, card_px)
        if quad is None:
            return CardReading(None, reason="no new card found")
        out = read_straight(straighten(after, quad))
        out.quad = quad
        return out
    return read_agreed(after, pile_quads(after, before, card_px), read_straight, CardReading,
                       before)


def pile_quads(after: np.ndarray, before: np.ndarray, card_px: float | None) -> list:
    """The rectangles the pile reader reads: the finder's (:func:`_new_card_quads`), the one
    fitted on the changed ink (``INK_START``, :func:`ink_candidate`) and those built on the
    new straight edges (``LINES``, :func:`pile_line_candidates`), the same one once."""
    quads = _new_card_quads(after, before, card_px)
    more = []
    if card_px and INK_START:
        more.append(ink_candidate(after, before, card_px))
    if card_px and LINES:
        more += pile_line_candidates(after, before, card_px)
    for q in more:
        if q is not None and not any(_same_quad(q, o, 0.015 * card_px) for o in quads):
            quads.append(q)
    return quads


def pile_line_candidates(after, before, card_px):
    """:func:`line_candidates` as the pile reader takes them: the edges' gaps bridged as
    before (``LINE_GAP``, ``LINE_SEGS`` of them, ``LINE_MOST`` kept), then, when
    ``LINE_WIDE`` is set, again with wider gaps bridged (``LINE_WIDE``: gap, edges, kept;
    session nine): a new card laid along the edge of a card below loses its own edge
    where the old one ran (the new edges are those not in the picture before), so its
    side shows as short pieces that the first pass does not join. The rectangles of both,
    the same ones once."""
    grad = _new_gradient(after, before)
    diff = cv2.absdiff(cv2.GaussianBlur(after, (5, 5), 0),
                       cv2.GaussianBlur(before, (5, 5), 0)).max(axis=2).astype(np.float32)
    out = line_candidates(after, before, card_px, grad, diff, most=LINE_MOST, gap=LINE_GAP,
                          segs_tried=LINE_SEGS)
    if LINE_WIDE:
        gap, segs, most = LINE_WIDE
        for q in line_candidates(after, before, card_px, grad, diff, most=most, gap=gap,
                                 segs_tried=segs):
            if not any(_same_quad(q, o, 0.015 * card_px) for o in out):
                out.append(q)
    return out


#: also read the rectangles built on the new straight edges (:func:`line_candidates`)
LINES = True
LINE_GAP = 0.04          # the gap bridged along a new straight edge, parts of a card's length
LINE_SEGS = 12           # the longest new straight edges each taken as part of a side
LINE_MOST = 3            # rectangles built on them kept (twice as many moved onto the edges)
LINE_WIDE = (0.12, 16, 3)  # (gap, edges, kept): a second pass with wider gaps bridged
#: settle rectangles that read different cards (:func:`_settle`)
SETTLE = True
#: a card read only where it was read in the picture before too is a card below: unknown
BELOW_GUARD = True


def _same_quad(p: np.ndarray, q: np.ndarray, tol: float) -> bool:
    """Whether two card outlines have every corner within ``tol`` pixels of each other."""
    p, q = np.float32(p), np.float32(q)
    return any(float(np.max(np.linalg.norm(np.roll(f, s, 0) - q, axis=1))) < tol
               for f in (p, p[::-1]) for s in range(4))


def read_quads(after: np.ndarray, quads, read) -> tuple[list, list]:
    """Each rectangle of ``quads`` straightened and read by ``read`` (its ``quad`` set on
    the reading): all the readings, and those that name a card."""
    reads = []
    for q in quads:
        r = read(straighten(after, q))
        r.quad = q
        reads.append(r)
    return reads, [r for r in reads if r.code]


def read_agreed(after: np.ndarray, quads, read, reading, before: np.ndarray | None = None):
    """Each rectangle of ``quads`` straightened and read by ``read``; the card named only
    when the ones read surely agree, else unknown (``reading(None, quad=..., reason=...)``)
    saying why; with none read surely, the reading of the rectangle most like a card.
    With ``before`` (the picture before the card was laid), rectangles that disagree may
    still be settled (:func:`_settle`)."""
    if not quads:
        return reading(None, reason="no new card found")
    reads, known = read_quads(after, quads, read)
    if not known:
        return max(reads, key=lambda r: _edge_score(after, r.quad))
    if len({r.code for r in known}) > 1:
        settled = _settle(known, before, read, after) if before is not None and SETTLE else None
        if settled is not None:
            return settled
        return reading(None, quad=known[0].quad,
                       reason="the card's outline is doubtful: it reads "
                              + " or ".join(sorted({r.code for r in known})))
    if before is not None and BELOW_GUARD and \
            all(read(straighten(before, r.quad)).code == r.code for r in known):
        # every rectangle that names it read the same card in the picture before: a card
        # below (a rectangle fitted off the new card), not the new one
        return reading(None, quad=known[0].quad,
                       reason=f"only a card below is read ({known[0].code}, there before)")
    return known[0]


def _two_ways(r, code: str, sure: float) -> bool:
    """Whether reading ``r`` names ``code`` two ways: a corner and the middle, or (with
    ``SETTLE_TWO_CORNERS``) both corners, each with probability at least ``sure`` (False
    for a reader without both)."""
    if r.probs is None or r.mid_probs is None or code not in cardnet.CODES:
        return False
    j = cardnet.CODES.index(code)
    if SETTLE_TWO_CORNERS:
        return sorted([float(r.probs[0, j]), float(r.probs[1, j]),
                       float(r.mid_probs[j])])[1] >= sure
    return float(r.probs[:, j].max()) >= sure and float(r.mid_probs[j]) >= sure


def _settle(known, before, read, after=None):
    """Rectangles that name different cards: the card named when exactly one of them is read
    surely both ways (a corner and the middle, each >= ``SETTLE_SURE``) on a rectangle that
    did not read it in the picture before (a card below, already there, is not the new
    card), and every other card named is read by one way only (the corners or the middle,
    the other under ``SETTLE_OTHER``: a rectangle half off the card, on a card below or on
    a hand, reads a card by its index or its middle, not by both) or was there before;
    (session ten) one other card read two ways under ``SETTLE_WEAK`` on a single rectangle
    does not stop a card read surely on ``SETTLE_AGAIN`` rectangles or more. Otherwise None
    (unknown)."""
    seen_before: dict = {}

    def there_before(r) -> bool:
        k = id(r)
        if k not in seen_before:
            seen_before[k] = read(straighten(before, r.quad)).code == r.code
        return seen_before[k]

    if SETTLE_BELOW:
        new = [r for r in known if not there_before(r)]
        if new and len({r.code for r in new}) == 1:
            return new[0]       # the others read a card below, there before
    strong = {r.code for r in known if _two_ways(r, r.code, SETTLE_SURE)
              and not there_before(r)}
    if not strong and SETTLE_EDGE:
        return _settle_by_edges(known, after, there_before)
    if len(strong) != 1:
        return None
    code = strong.pop()
    sure = [r for r in known if r.code == code and _two_ways(r, code, SETTLE_SURE)
            and not there_before(r)]
    others = [r for r in known if r.code != code and _two_ways(r, r.code, SETTLE_OTHER)
              and not there_before(r)]
    if others and not (SETTLE_AGAIN and len(sure) >= SETTLE_AGAIN and len(others) == 1
                       and not _two_ways(others[0], others[0].code, SETTLE_WEAK)):
        # another card read two ways too: unknown, unless the card is read surely on
        # several rectangles and the other on one, less surely (session ten: a rectangle
        # a sixth of a card off a king reads a jack from part of its picture at 0.64)
        return None
    return sure[0]


def _settle_by_edges(known, after, there_before):
    """Rectangles that disagree, none read surely both ways: the card of the rectangle whose
    outline lies on the strongest edges (the median edge strength along it,
    :func:`_edge_score`), when it is at least ``SETTLE_EDGE`` times that of every rectangle
    naming another card (a rectangle fitted on the card's own outline against one half on a
    card below or on a hand), a corner reads it surely (``SETTLE_SURE``) and the middle finds
    it likeliest (at least ``SETTLE_EDGE_MID``). Cards read there before are left out.
    Otherwise None (unknown)."""
    if after is None:
        return None
    cand = [r for r in known if not there_before(r)]
    if not cand:
        return None
    edge = {id(r): _edge_score(after, r.quad) for r in cand}
    best = max(cand, key=lambda r: edge[id(r)])
    if best.probs is None or best.mid_probs is None:
        return None
    j = cardnet.CODES.index(best.code)
    if int(np.argmax(best.mid_probs)) != j or float(best.mid_probs[j]) < SETTLE_EDGE_MID \
            or float(best.probs[:, j].max()) < SETTLE_SURE:
        return None
    others = [r for r in cand if r.code != best.code]
    if any(_two_ways(r, r.code, SETTLE_OTHER) for r in others):
        return None     # another card read two ways: two cards, not one and an outline off it
    if all(edge[id(best)] >= SETTLE_EDGE * edge[id(r)] for r in others):
        return best
    return None


def _edge_score(img: np.ndarray, quad: np.ndarray) -> float:
    g = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    mag = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))
    pts = np.concatenate([quad[k] + (quad[(k + 1) % 4] - quad[k]) * np.linspace(0, 1, 40)[:, None]
                          for k in range(4)])
    x = np.clip(pts[:, 0].astype(int), 0, g.shape[1] - 1)
    y = np.clip(pts[:, 1].astype(int), 0, g.shape[0] - 1)
    return float(np.median(mag[y, x]))


def find_cards(img: np.ndarray, read: bool = True) -> list[CardReading]:
    """Every card-shaped paper part in a picture, read (``seqboard read --cards``)."""
    n, lab = _paper_parts(img)
    counts = np.bincount(lab.ravel(), minlength=n)
    out = []
    for i in range(1, n):
        if counts[i] < 300:
            continue
        closed = cv2.morphologyEx((lab == i).astype(np.uint8), cv2.MORPH_CLOSE,
                                  np.ones((5, 5), np.uint8))
        quad = _card_quad(closed, None)
        if quad is None:
            continue
        side = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
        filled = np.zeros_like(closed)
        cv2.fillPoly(filled, [np.int32(quad)], 1)
        # the paper part stops short of the card's edge: fit a few sizes, keep the one that
        # lies best on the edges
        fits = [_fit_rect(img, filled & closed, float(side) * f) for f in (1.0, 1.04, 1.08, 1.12)]
        fits = [q for q in fits if q is not None]
        if not fits:
            continue
        quad = max(fits, key=lambda q: _edge_score(img, q))
        r = read_straight(straighten(img, quad)) if read else CardReading(None)
        r.quad = quad
        out.append(r)
    return out


# ---------------------------------------------------------------- refining ----------------

def _signed_gradient(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)


def _new_gradient(after: np.ndarray, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The brightness gradient of the picture after less the one before: the edges that are
    new (a card below's edge, there before, is not the new card's)."""
    ax, ay = _signed_gradient(after)
    bx, by = _signed_gradient(before)
    return ax - bx, ay - by


def _side_fits(grad, c, e, half, reach, n_along=24, diff=None):
    """For each side of the rectangle (centre ``c``, unit axes ``e`` = (e0, e1), half sides
    ``half`` = (a/2, b/2)): the line its visible edge lies on, as (angle deviation, signed
    distance of the line from ``c`` along the side's outward normal, share of the side seen),
    or None where too little of the side shows (a hand over it). The edge looked for is a
    drop in brightness going out of the card, searched ``reach`` pixels either way."""
    gx, gy = grad
    Hh, Ww = gx.shape
    out = []
    t = np.linspace(-0.8, 0.8, n_along, dtype=np.float32)
    o = np.arange(-reach, reach + 0.5, 0.5, dtype=np.float32)
    for k in range(4):
        # sides: 0 at -b/2 e1, 1 at +a/2 e0, 2 at +b/2 e1, 3 at -a/2 e0
        ax = 1 if k in (0, 2) else 0                   # the axis the normal lies along
        sign = -1.0 if k in (0, 3) else 1.0
        nrm = sign * e[ax]
        along = e[1 - ax]
        base = c + nrm * half[ax]
        pts = base[None, None, :] + (t[:, None, None] * half[1 - ax]) * along[None, None, :] \
            + o[None, :, None] * nrm[None, None, :]
        mx = pts[..., 0].astype(np.float32)
        my = pts[..., 1].astype(np.float32)
        vx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        vy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        resp = -(vx * nrm[0] + vy * nrm[1])             # brighter inside than out
        inside = (mx >= 0) & (mx < Ww - 1) & (my >= 0) & (my < Hh - 1)
        resp[~inside] = 0
        if diff is not None:
            # the new card's edge: the picture just outside it is as it was before
            ox = (mx + 4 * nrm[0]).astype(np.float32)
            oy = (my + 4 * nrm[1]).astype(np.float32)
            dv = cv2.remap(diff, ox, oy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            resp[dv > 25] = 0
        out.append((t * half[1 - ax], np.maximum(resp, 0),
                    float(nrm[0] * -along[1] + nrm[1] * along[0])))
    # each side: the straight line (offset and slope) along which the edge is strongest on
    # average; ink near a side (the index, a border line) does not run the side's length
    fits = []
    slopes = np.tan(np.deg2rad(np.arange(-3, 3.01, 0.5)))
    best_all = []
    for pos, resp, turn in out:
        n_o = resp.shape[1]
        oi = np.arange(n_o)[None, :, None]                   # (1, o, 1)
        shift = np.rint(slopes[:, None, None] * pos[None, None, :] / 0.5).astype(int)
        idx = oi + shift                                      # (s, o, t)
        valid = (idx >= 0) & (idx < n_o)
        vals = np.where(valid, resp[np.arange(len(pos))[None, None, :], np.clip(idx, 0, n_o - 1)], 0)
        line = vals.mean(axis=2)                              # (s, o)
        si, oj = np.unravel_index(int(np.argmax(line)), line.shape)
        on = vals[si, oj] > 0.5 * line[si, oj]
        best_all.append((float(line[si, oj]), float(on.mean()),
                         turn * float(np.arctan(slopes[si])), float(o[oj])))
    ref = max(b[0] for b in best_all)
    for sc, share, ang, off in best_all:
        ok = sc >= max(0.3 * ref, 6.0) and share >= 0.35
        fits.append((ang, off, share) if ok else None)
    return fits


def refine_quad(img: np.ndarray, quad: np.ndarray, card_px: float | None,
                grad=None, rounds: int = 3, diff=None) -> np.ndarray | None:
    """``quad`` moved onto the card's own edges: each side fitted on the straight edge it
    lies on where that edge shows (a hand over part of the card hides some of it), the
    rectangle turned by the sides' mean turn and each axis placed by the sides seen (both:
    between them; one: the card's known size from it). ``grad``: the gradient looked at
    (:func:`_new_gradient` for a new card on a pile); ``diff``: the change between the
    frames (an edge of the new card has the picture just outside it unchanged). None when
    no side shows."""
    if grad is None:
        grad = _signed_gradient(img)
    q = np.float32(quad)
    c = q.mean(axis=0)
    a = float(np.linalg.norm(q[1] - q[0]))
    b = float(np.linalg.norm(q[2] - q[1]))
    e0 = (q[1] - q[0]) / max(a, 1e-6)
    e1 = (q[2] - q[1]) / max(b, 1e-6)
    L = card_px or max(a, b)
    reach = 0.07 * L
    for r in range(rounds):
        fits = _side_fits(grad, c, (e0, e1), (a / 2, b / 2), reach, diff=diff)
        if not any(fits):
            return None if r == 0 else _corners(c, e0, e1, a, b)
        # turned by the sides' mean turn (each weighted by how much of it shows)
        ang = sum(f[0] * f[2] for f in fits if f) / sum(f[2] for f in fits if f)
        ang = float(np.clip(ang, -0.08, 0.08))
        R = np.float32([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        e0, e1 = R @ e0, R @ e1
        fits = _side_fits(grad, c, (e0, e1), (a / 2, b / 2), reach, diff=diff)
        d = [None if f is None else f[1] for f in fits]
        # each axis placed by its sides that show; the card keeps its known size (a line
        # drawn along a card's edge lies inside it, so the edges found are a little in)
        for e, lo, hi, size in ((e1, 0, 2, b), (e0, 3, 1, a)):
            # side lo lies at -(size/2 + d[lo]) along e, side hi at +(size/2 + d[hi])
            if d[lo] is not None and d[hi] is not None:
                mid = (d[hi] - d[lo]) / 2
            elif d[lo] is not None:
                mid = -d[lo]
            elif d[hi] is not None:
                mid = d[hi]
            else:
                mid = 0.0
            c = c + e * mid
        reach = max(2.0, 0.03 * L)
    return _corners(c, e0, e1, a, b)


def _corners(c, e0, e1, a, b) -> np.ndarray:
    return np.float32([c - e0 * a / 2 - e1 * b / 2, c + e0 * a / 2 - e1 * b / 2,
                       c + e0 * a / 2 + e1 * b / 2, c - e0 * a / 2 + e1 * b / 2])


def _rect_side_support(grad, diff, quads: np.ndarray, n_along: int = 20) -> np.ndarray:
    """For rectangles ``quads`` (k x 4 x 2): per side, the share of its length that lies on a
    new card's edge (brighter inside than out, within 2 pixels, the picture just outside as
    it was before): (k, 4)."""
    gx, gy = grad
    Hh, Ww = gx.shape
    t = np.linspace(0.1, 0.9, n_along, dtype=np.float32)
    c = quads.mean(axis=1, keepdims=True)                              # (k, 1, 2)
    out = np.zeros((len(quads), 4), np.float32)
    for k in range(4):
        p0, p1 = quads[:, k], quads[:, (k + 1) % 4]
        mid = (p0 + p1) / 2
        nrm = mid - c[:, 0]
        d = p1 - p0
        # the outward normal: perpendicular to the side, away from the centre
        perp = np.stack([-d[:, 1], d[:, 0]], 1)
        perp /= np.linalg.norm(perp, axis=1, keepdims=True) + 1e-6
        perp *= np.sign(np.sum(perp * nrm, axis=1, keepdims=True))
        best = None
        for o in (-2.0, -1.0, 0.0, 1.0):
            pts = p0[:, None] + t[None, :, None] * d[:, None] + o * perp[:, None]
            mx, my = pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32)
            vx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
            vy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
            r = -(vx * perp[:, None, 0] + vy * perp[:, None, 1])
            best = r if best is None else np.maximum(best, r)
        pts = p0[:, None] + t[None, :, None] * d[:, None] + 4 * perp[:, None]
        dv = cv2.remap(diff, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out[:, k] = np.mean((best > 25) & (dv < 25), axis=1)
    return out


def line_candidates(after, before, card_px, grad=None, diff=None, most: int = 3,
                    gap: float = 0.04, segs_tried: int = 12):
    """Rectangles of the card's known size built on the straight NEW edges of the picture
    (an edge of the picture after that was not in the picture before): each long enough
    edge taken as part of one of the card's sides (long or short, the card on either side
    of it, from either of its ends or centred on it), scored by how much of the four sides
    lies on a new card edge (a hand over the card hides some, not all), the best ``most``
    moved onto the card's edges (:func:`refine_quad`). They find a card whose changed
    picture is mostly a hand's. ``gap``: the gap bridged along a straight edge (parts of a
    card's length); ``segs_tried``: how many of the longest edges are taken."""
    if grad is None:
        grad = _new_gradient(after, before)
    if diff is None:
        diff = cv2.absdiff(cv2.GaussianBlur(after, (5, 5), 0),
                           cv2.GaussianBlur(before, (5, 5), 0)).max(axis=2).astype(np.float32)
    L = float(card_px)
    ga = cv2.GaussianBlur(cv2.cvtColor(after, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    gb = cv2.GaussianBlur(cv2.cvtColor(before, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    new = cv2.Canny(ga, 30, 90) & ~cv2.dilate(cv2.Canny(gb, 30, 90), np.ones((5, 5), np.uint8))
    segs = cv2.HoughLinesP(new, 1, np.pi / 180, max(3, int(0.12 * L)),
                           minLineLength=max(3, int(0.22 * L)), maxLineGap=int(gap * L) + 1)
    if segs is None:
        return []
    segs = sorted(segs.reshape(-1, 4).astype(np.float32), key=lambda s: -np.hypot(s[2] - s[0], s[3] - s[1]))
    hyps = []
    for x0, y0, x1, y1 in segs[:segs_tried]:
        a, b = np.float32([x0, y0]), np.float32([x1, y1])
        ln = float(np.linalg.norm(b - a))
        u = (b - a) / max(ln, 1e-6)
        n = np.float32([-u[1], u[0]])
        for aspect in ASPECTS:
            for side, other in ((L, L / aspect), (L / aspect, L)):
                if ln > 1.1 * side:
                    continue
                for sc in (a + u * side / 2, b - u * side / 2, (a + b) / 2):
                    for s in (1.0, -1.0):
                        cc = sc + s * n * other / 2
                        # corners in the finder's own order (turning as x to y), never
                        # mirrored: a mirrored card would be read mirrored
                        e0 = u if s > 0 else -u
                        hyps.append(_corners(cc, e0, s * n, side, other))
    if not hyps:
        return []
    hyps = np.float32(hyps)
    sup = _rect_side_support(grad, diff, hyps)
    score = np.sort(sup, axis=1)[:, ::-1]
    score = score[:, 0] + score[:, 1] + 0.5 * score[:, 2]      # three sides may be all there is
    out, tried = [], []
    for j in np.argsort(-score):
        if score[j] < 0.9 or len(out) >= most or len(tried) >= 2 * most:
            break
        if any(_same_quad(hyps[j], h, 0.08 * L) for h in tried):
            continue
        tried.append(hyps[j])
        r = refine_quad(after, hyps[j], card_px, grad, diff=diff)
        if r is not None and not any(_same_quad(r, o, 0.05 * L) for o in out):
            out.append(r)
    return out
