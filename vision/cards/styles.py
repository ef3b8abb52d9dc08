"""Card styles: named families of printed playing cards, some HELD OUT.

A :class:`CardStyle` is drawn from a family and a seed (fonts, index size and place, pip
shape and size, print colours, paper tint, border, court pictures, misregistered plates).
:func:`card_image` draws one card face, portrait, with its alpha (rounded corners).

``shipped`` is the public-domain deck in ``engine/data/cards`` (the same pictures as
``/work/shared/cards``); the other families are procedural. Nothing tuned or trained may
see a held-out family (:data:`HELD_OUT`); the benchmark measures on them.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import cv2
import numpy as np

from vision.looks import _PIP_SPOTS, _pip

#: family -> held out?
FAMILIES: dict[str, bool] = {"shipped": False, "classic": False, "modern": False,
                             "jumbo": True, "casino": True}
TUNED = tuple(f for f, h in FAMILIES.items() if not h)
HELD_OUT = tuple(f for f, h in FAMILIES.items() if h)

RANKS = "23456789TJQKA"
SUITS = "SHDC"
CODES = tuple(r + s for s in SUITS for r in RANKS)
RED = {"H", "D"}
ONE_EYED = ("JS", "JH")        # engine.cards.ONE_EYED_JACKS; docs/rules.md
RANK_TEXT = {"T": "10"}

_FONTS = {
    "classic": (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX),
    "modern": (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX),
    # held out: faces no tuned family uses
    "jumbo": (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC),
    "casino": (cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC),
}


@dataclass(frozen=True)
class CardStyle:
    family: str
    seed: int
    paper: tuple = (246, 246, 246)
    red: tuple = (40, 30, 200)
    black: tuple = (30, 30, 30)
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    weight: float = 1.0            # stroke thickness factor of the index
    index_h: float = 0.11          # rank glyph height / card height
    index_x: float = 0.06          # index left edge / card width
    index_y: float = 0.05          # index top / card height
    pip_scale: float = 1.0
    lobe: float = 0.27
    border: int = 0                # 0 none, 1 thin line, 2 double line
    border_colour: tuple = (90, 90, 90)
    misregister: tuple = (0, 0)
    court: tuple = ((40, 140, 200), (150, 60, 40), (40, 160, 60), (30, 200, 230))
    aspect: float = 1.4            # height / width
    # training only (vision.cards.train widens the tuned families): a TrueType face drawn
    # with Pillow instead of a Hershey face, and the index glyphs' shear and width
    ttf: str = ""
    shear: float = 0.0             # x shift per unit of height (a slanted face)
    stretch: float = 1.0           # width factor of the rank glyph

    @property
    def held_out(self) -> bool:
        return FAMILIES[self.family]


def card_style(family: str, seed: int = 0) -> CardStyle:
    """A style drawn at random within ``family`` from ``seed``."""
    if family not in FAMILIES:
        raise ValueError(f"unknown card family {family!r} (known: {', '.join(FAMILIES)})")
    rng = np.random.default_rng([seed, sum(map(ord, family))])

    def jit(c, s):
        return tuple(int(np.clip(v + rng.normal(0, s), 0, 255)) for v in c)

    fonts = _FONTS.get(family, _FONTS["classic"])
    kw = dict(font=int(fonts[int(rng.integers(len(fonts)))]),
              court=tuple(jit(c, 30) for c in CardStyle.court))
    if family == "shipped":
        kw.update(paper=jit((246, 246, 246), 3), aspect=113 / 75)
    elif family == "classic":
        kw.update(paper=jit((244, 245, 246), 5), red=jit((40, 30, 200), 15),
                  black=jit((30, 30, 30), 8), weight=float(rng.uniform(0.8, 1.4)),
                  index_h=float(rng.uniform(0.09, 0.12)), pip_scale=float(rng.uniform(0.85, 1.1)),
                  lobe=float(rng.uniform(0.22, 0.32)), border=int(rng.integers(0, 2)),
                  aspect=float(rng.uniform(1.38, 1.42)))
    elif family == "modern":
        kw.update(paper=jit((225, 238, 245), 8), red=jit((50, 40, 180), 15),
                  black=jit((70, 35, 20), 12), weight=float(rng.uniform(1.0, 1.6)),
                  index_h=float(rng.uniform(0.10, 0.13)), index_x=float(rng.uniform(0.05, 0.08)),
                  pip_scale=float(rng.uniform(0.9, 1.15)), lobe=float(rng.uniform(0.2, 0.3)),
                  border=int(rng.integers(0, 3)), aspect=float(rng.uniform(1.38, 1.45)))
    elif family == "jumbo":        # held out: a big index, plain faces, pure inks
        kw.update(paper=jit((250, 250, 250), 4), red=jit((20, 20, 225), 10),
                  black=jit((15, 15, 15), 6), weight=float(rng.uniform(1.3, 2.0)),
                  index_h=float(rng.uniform(0.13, 0.155)), index_x=float(rng.uniform(0.04, 0.06)),
                  index_y=float(rng.uniform(0.03, 0.05)), pip_scale=float(rng.uniform(0.8, 0.95)),
                  lobe=float(rng.uniform(0.3, 0.36)), border=0, aspect=1.4)
    elif family == "casino":       # held out: tinted paper, faded inks, misregistered plates
        kw.update(paper=jit((200, 225, 238), 10), red=jit((70, 60, 170), 15),
                  black=jit((60, 50, 45), 10), weight=float(rng.uniform(0.9, 1.3)),
                  index_h=float(rng.uniform(0.095, 0.12)), index_x=float(rng.uniform(0.06, 0.09)),
                  index_y=float(rng.uniform(0.05, 0.08)), pip_scale=float(rng.uniform(0.95, 1.2)),
                  lobe=float(rng.uniform(0.18, 0.26)), border=int(rng.integers(1, 3)),
                  border_colour=jit((60, 60, 140), 30),
                  misregister=(int(rng.integers(-2, 3)), int(rng.integers(-2, 3))),
                  aspect=float(rng.uniform(1.36, 1.44)))
    return CardStyle(family=family, seed=seed, **kw)


def random_style(rng: np.random.Generator, split: str = "tuned") -> CardStyle:
    if split not in ("tuned", "heldout", "any"):
        raise ValueError(f"unknown split {split!r}")
    pool = {"tuned": TUNED, "heldout": HELD_OUT, "any": tuple(FAMILIES)}[split]
    return card_style(str(pool[int(rng.integers(len(pool)))]), int(rng.integers(1 << 30)))


@functools.lru_cache(maxsize=64)
def _shipped(code: str) -> np.ndarray | None:
    from engine.cards import picture_file
    name = picture_file(code)
    if name is None:
        return None
    path = os.path.join(os.path.dirname(__file__), "..", "..", "engine", "data", "cards", name)
    im = cv2.imread(os.path.normpath(path), cv2.IMREAD_UNCHANGED)
    if im is None:
        return None
    if im.ndim == 3 and im.shape[2] == 4:
        return im
    return np.dstack([im[..., :3], np.full(im.shape[:2], 255, np.uint8)])


def _index(img: np.ndarray, code: str, st: CardStyle, ink, w: int, h: int) -> None:
    """The rank over a small suit sign in the top-left corner."""
    text = RANK_TEXT.get(code[0], code[0])
    thick = max(1, int(round(st.weight * h / 160)))
    (tw, th), _ = cv2.getTextSize(text, st.font, 1.0, thick)
    scale = st.index_h * h / max(th, 1)
    (tw, th), _ = cv2.getTextSize(text, st.font, scale, thick)
    maxw = 0.2 * w
    if tw > maxw:                  # a narrow "10"
        scale *= maxw / tw
        (tw, th), _ = cv2.getTextSize(text, st.font, scale, thick)
    x0, y0 = int(st.index_x * w), int(st.index_y * h)
    if st.ttf or st.shear or st.stretch != 1.0:
        tw, th = _glyph(img, text, st, ink, x0, y0, st.index_h * h, thick, maxw)
    else:
        cv2.putText(img, text, (x0, y0 + th), st.font, scale, ink, thick, cv2.LINE_AA)
    ps = st.index_h * h * 0.8 * st.pip_scale
    _pip(img, code[1], x0 + tw / 2, y0 + th + 0.03 * h + ps / 2, ps, ink, st.lobe)


def _glyph(img, text, st: CardStyle, ink, x0: int, y0: int, height: float, thick: int,
           maxw: float) -> tuple[int, int]:
    """The rank drawn ``height`` pixels high at (x0, y0) in a TrueType face (Pillow) or a
    Hershey face, stretched and sheared (training styles only); returns its (width, height)."""
    big = 4                                          # drawn 4 times larger, then shrunk
    hh = int(round(height * big))
    if st.ttf:
        from PIL import Image, ImageDraw, ImageFont
        font = ImageFont.truetype(st.ttf, size=int(hh * 1.4))
        box = font.getbbox(text)
        pic = Image.new("L", (box[2] + 8, box[3] + 8), 0)
        ImageDraw.Draw(pic).text((4, 4), text, fill=255, font=font)
        m = np.asarray(pic)
    else:
        t = max(1, thick * big)
        (tw, th), _ = cv2.getTextSize(text, st.font, 1.0, t)
        sc = hh / max(th, 1)
        (tw, th), _ = cv2.getTextSize(text, st.font, sc, t)
        m = np.zeros((th + 4 * t + 8, tw + 4 * t + 8), np.uint8)
        cv2.putText(m, text, (2 * t + 4, th + 2 * t + 4), st.font, sc, 255, t, cv2.LINE_AA)
    ys, xs = np.nonzero(m > 40)
    if not len(ys):
        return 0, 0
    m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    gh, gw = m.shape
    sx = height / gh * st.stretch
    sy = height / gh
    if gw * sx > maxw:                                # a narrow "10"
        sx = maxw / gw
    pad = int(abs(st.shear) * gh) + 2
    A = np.float32([[sx, -st.shear * sx, pad * sx + st.shear * sx * 0], [0, sy, 0]])
    A[0, 2] = (abs(st.shear) * gh if st.shear > 0 else 0) * sx + 1
    ow = int(np.ceil((gw + abs(st.shear) * gh) * sx)) + 3
    oh = int(np.ceil(gh * sy)) + 2
    g = cv2.warpAffine(m.astype(np.float32) / 255, A, (ow, oh), flags=cv2.INTER_AREA)
    H, W = img.shape[:2]
    y1, x1 = min(H, y0 + oh), min(W, x0 + ow)
    g = g[:y1 - y0, :x1 - x0, None]
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = (roi * (1 - g) + np.float32(ink) * g).astype(np.uint8)
    return int(gw * sx), int(gh * sy)


def _court(img: np.ndarray, code: str, st: CardStyle, ink, w: int, h: int) -> None:
    """A double-headed court picture in a frame; a jack shows one eye (in profile) or two
    by suit, as the real cards do (one-eyed JS JH)."""
    rng = np.random.default_rng([st.seed, sum(map(ord, code))])
    x0, y0, x1, y1 = int(0.24 * w), int(0.1 * h), int(0.76 * w), int(0.9 * h)
    cv2.rectangle(img, (x0, y0), (x1, y1), ink, max(1, h // 150))
    half = img[y0 + 2:(y0 + y1) // 2, x0 + 2:x1 - 1]
    hh, hw = half.shape[:2]
    for _ in range(5):
        c = st.court[int(rng.integers(len(st.court)))]
        a = (int(hw * rng.uniform(0, 0.5)), int(hh * rng.uniform(0.35, 0.9)))
        b = (int(hw * rng.uniform(0.5, 1)), min(hh - 1, a[1] + int(hh * rng.uniform(0.1, 0.3))))
        cv2.rectangle(half, a, b, c, -1)
    face = (hw // 2, int(hh * 0.28))
    r = max(3, int(hw * 0.17))
    cv2.circle(half, face, r, (170, 200, 235), -1, cv2.LINE_AA)
    cv2.rectangle(half, (face[0] - r, face[1] - r - r // 2), (face[0] + r, face[1] - r // 2),
                  st.court[3] if code[0] != "J" else st.court[1], -1)        # crown or cap
    eyes = (1,) if code in ONE_EYED else (-1, 1)
    for e in eyes:
        ex = face[0] + (e * r // 2 if len(eyes) == 2 else r // 3)
        cv2.circle(half, (ex, face[1]), max(1, r // 5), (20, 20, 20), -1)
    _pip(half, code[1], hw * 0.2, hh * 0.15, hh * 0.14, ink, st.lobe)
    img[(y0 + y1) // 2:(y0 + y1) // 2 + hh, x0 + 2:x1 - 1] = half[::-1, ::-1]


def card_image(code: str, st: CardStyle, height: int = 280) -> np.ndarray:
    """One card face (BGRA, portrait, ``height`` pixels high)."""
    if code not in CODES:
        raise ValueError(f"unknown card {code!r}")
    w, h = int(round(height / st.aspect)), height
    if st.family == "shipped":
        pic = _shipped(code)
        if pic is not None:
            out = cv2.resize(pic, (w, h), interpolation=cv2.INTER_CUBIC)
            tint = np.float32(st.paper) / 246.0
            out[..., :3] = np.clip(out[..., :3].astype(np.float32) * tint, 0, 255).astype(np.uint8)
            return out
        st = card_style("classic", st.seed)
    ink = st.red if code[1] in RED else st.black
    plate = np.full((h, w, 3), st.paper, np.uint8)          # black plate
    colour = np.full((h, w, 3), st.paper, np.uint8)         # colour plate (may be shifted)
    target = colour if code[1] in RED else plate
    for turn in range(2):                                   # the index in two corners
        _index(target, code, st, ink, w, h)
        target[:] = target[::-1, ::-1]
    rank = code[0]
    if rank in "JQK":
        _court(colour, code, st, ink, w, h)
    else:
        n = 1 if rank == "A" else (10 if rank == "T" else int(rank))
        box = (0.25 * w, 0.13 * h, 0.5 * w, 0.74 * h)
        ps = (0.38 * w if n == 1 else 0.125 * w) * st.pip_scale
        for sx, sy in _PIP_SPOTS[n]:
            cx, cy = box[0] + sx * box[2], box[1] + sy * box[3]
            if sy > 0.5:       # the lower pips are printed upside down
                tmp = np.full((h, w, 3), st.paper, np.uint8)
                _pip(tmp, code[1], w - cx, h - cy, ps, ink, st.lobe)
                tmp = tmp[::-1, ::-1]
                m = np.any(tmp != np.uint8(st.paper), axis=2)
                target[m] = tmp[m]
            else:
                _pip(target, code[1], cx, cy, ps, ink, st.lobe)
    if st.misregister != (0, 0):
        colour = np.roll(colour, st.misregister, axis=(0, 1))
    paper = np.maximum(np.float32(st.paper), 1)
    out = plate.astype(np.float32) * (colour.astype(np.float32) / paper)
    out = np.clip(out, 0, 255).astype(np.uint8)
    return framed(out, st.border, st.border_colour)


def framed(img: np.ndarray, border: int, colour) -> np.ndarray:
    """A card face ``img`` (BGR, drawn in place) with its border (0 none, 1 thin, 2 double,
    in ``colour``) and rounded corners: BGRA, the corners transparent."""
    h, w = img.shape[:2]
    if border:
        m = max(2, h // 40)
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), colour, max(1, h // 200))
        if border == 2:
            m2 = m + max(2, h // 70)
            cv2.rectangle(img, (m2, m2), (w - 1 - m2, h - 1 - m2), colour, 1)
    alpha = np.zeros((h, w), np.uint8)
    r = max(2, h // 18)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return np.dstack([img, alpha])
