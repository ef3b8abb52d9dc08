"""Read a SEQUENCE STACKS card: its colour from the ink, its number or symbol from the middle.

The card is found and straightened as a playing card is (:mod:`vision.cards.reader`:
the paper that changed between the pictures before and after, a card-sized rectangle fitted
on the edges, warped to ``W`` x ``H``). Then, normalised by the card's own paper:

* the **middle glyph** (the big number, the wild's star, a special card's symbol) is the
  biggest ink in the middle of the card, its parts together (the small name printed under a
  symbol is left out); its mask, cropped and resized, is compared (cosine) with prototypes
  drawn from the TUNED STACKS styles only, in both ways up (a card lies either way round);
* the **colour** is the median redness and blueness of that ink over the paper: red, blue
  or neither (the special cards' dark ink).

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

from .reader import W, H, _new_card_quads, _same_quad, pile_line_candidates, read_agreed
from .stacks_art import CODES, STACKS_TUNED, stacks_card_image, stacks_style

GLYPH_SIZE = (24, 24)
MIDDLE = (0.12, 0.88, 0.17, 0.83)        # x0, x1, y0, y1 of the middle, parts of W and H
# Chosen on tuned styles (docs/stacks.md, "From the camera").
MIN_SCORE = 0.85
MIN_MARGIN = 0.05
MIN_COLOUR = 0.16                        # redness or blueness of a red or blue card's ink
MAX_NEUTRAL = 0.14                       # both under this: the special cards' dark ink

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


def glyph_parts(card: np.ndarray):
    """(the middle glyph's mask, cropped; the ink's redness; its blueness) of a straightened
    card, or None when the middle holds no glyph."""
    dark, red, blue = _normalised(card)
    x0, x1 = int(MIDDLE[0] * W), int(MIDDLE[1] * W)
    y0, y1 = int(MIDDLE[2] * H), int(MIDDLE[3] * H)
    d = dark[y0:y1, x0:x1]
    if d.max() < 0.25:
        return None
    t = max(0.2, 0.45 * float(np.percentile(d, 99.5)))
    ink = (d > t).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    hh, ww = ink.shape
    comps = []
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if a < 8:
            continue
        if w > 0.92 * ww or h > 0.92 * hh:           # a frame band or a border
            continue
        if x == 0 or y == 0 or x + w >= ww or y + h >= hh:   # the edge of the middle
            continue
        comps.append((a, i, x, y, w, h))
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
    if crop.shape[0] < 0.1 * hh:                     # too small to be the middle glyph
        return None
    r = float(np.median(red[y0:y1, x0:x1][m]))
    b = float(np.median(blue[y0:y1, x0:x1][m]))
    return crop, r, b


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


@functools.lru_cache(maxsize=1)
def prototypes(styles_per_family: int = 10, seed: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """(features, shape labels) drawn from the TUNED STACKS styles only (a few seconds)."""
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
                    parts = glyph_parts(v)
                    if parts is None:
                        continue
                    feats.append(glyph_feature(parts[0]))
                    labels.append(shape_of(code))
    return np.float32(feats), np.array(labels)


def read_stacks_straight(card: np.ndarray) -> StacksReading:
    """Read a straightened STACKS card (``W`` x ``H``)."""
    parts = glyph_parts(card)
    if parts is None:
        return StacksReading(None, reason="no glyph in the middle of the card")
    crop, r, b = parts
    P, L = prototypes()
    sims = P @ glyph_feature(crop)
    best: dict[str, float] = {}
    for s, lab in zip(sims, L):
        if s > best.get(lab, -2):
            best[lab] = float(s)
    order = sorted(best.items(), key=lambda kv: -kv[1])
    shape, score = order[0]
    margin = score - order[1][1]
    if r >= MIN_COLOUR and r > b:
        colour = "R"
    elif b >= MIN_COLOUR and b > r:
        colour = "B"
    elif r < MAX_NEUTRAL and b < MAX_NEUTRAL:
        colour = ""
    else:
        colour = None
    out = StacksReading(None, shape=shape, score=score, margin=margin, colour=colour)
    if score < MIN_SCORE or margin < MIN_MARGIN:
        out.reason = (f"the middle is not surely one glyph ({shape} {score:.2f}, "
                      f"next {order[1][0]} {order[1][1]:.2f})")
        return out
    if colour is None:
        out.reason = f"the ink is neither surely red, blue nor dark (red {r:.2f}, blue {b:.2f})"
        return out
    if shape in ("1", "2", "3", "4", "5", "W"):
        if not colour:
            out.reason = f"a {shape} in a dark ink: a number or a wild is red or blue"
            return out
        out.code = colour + shape
    else:
        if colour:
            out.reason = f"a special card ({shape}) in a {'red' if colour == 'R' else 'blue'} ink"
            return out
        out.code = shape
    return out


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
    return read_agreed(after, quads, read_stacks_straight, StacksReading)


#: also read the rectangles built on the new straight edges (``reader.pile_line_candidates``)
LINES = True



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

