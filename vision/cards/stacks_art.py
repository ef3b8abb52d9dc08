"""SEQUENCE STACKS cards, drawn: named style families, some HELD OUT.

GUESSED: we have no picture of the real STACKS cards. What the rule book says is only what
each card is: red and blue number cards 1 to 5, red and blue wilds, and the special cards
Skip, Reverse, Steal a Card, Steal a Chip and Block. The faces drawn here are a guess of
the usual look of such cards: a big number (or a symbol) in the middle in the card's
colour, a small index in two opposite corners, the special cards in a dark ink with a
symbol and their name. docs/stacks.md ("From the camera") says so.

A :class:`StacksStyle` is drawn from a family and a seed (fonts, stroke weight, glyph size,
ink colours, paper tint, border, whether symbols are filled or outlined, whether the name
is printed). :func:`stacks_card_image` draws one card face, portrait, with its alpha, like
:func:`vision.cards.styles.card_image` does for playing cards, so that the pile scenes of
:mod:`vision.cards.scene` lay them the same way. Nothing tuned may see a held-out family.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.stacks.cards import ALL_CODES

from .styles import framed

#: family -> held out?
STACKS_FAMILIES: dict[str, bool] = {"studio": False, "bold": False, "retro": True}
STACKS_TUNED = tuple(f for f, h in STACKS_FAMILIES.items() if not h)
STACKS_HELD_OUT = tuple(f for f, h in STACKS_FAMILIES.items() if h)
CODES = ALL_CODES                 # R1..R5 RW B1..B5 BW SK RV SC CH BL
WORDS = {"RW": "WILD", "BW": "WILD", "SK": "SKIP", "RV": "REVERSE", "SC": "STEAL A CARD",
         "CH": "STEAL A CHIP", "BL": "BLOCK"}

_FONTS = {
    "studio": (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX),
    "bold": (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX),
    # held out: faces no tuned family uses
    "retro": (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC,
              cv2.FONT_HERSHEY_COMPLEX_SMALL),
}


@dataclass(frozen=True)
class StacksStyle:
    family: str
    seed: int
    paper: tuple = (246, 246, 246)
    red: tuple = (40, 30, 200)            # BGR
    blue: tuple = (170, 80, 25)
    dark: tuple = (35, 35, 35)            # the special cards' ink
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    weight: float = 1.0                   # stroke thickness factor
    glyph_h: float = 0.30                 # the middle number's height / card height
    index_h: float = 0.09
    filled: bool = True                   # symbols filled, or outlined
    words: bool = True                    # the name printed under the symbol
    border: int = 1                       # 0 none, 1 thin line, 2 double line
    band: bool = False                    # a frame band in the card's colour
    aspect: float = 1.4

    @property
    def held_out(self) -> bool:
        return STACKS_FAMILIES[self.family]


def stacks_style(family: str, seed: int = 0) -> StacksStyle:
    """A style drawn at random within ``family`` from ``seed``."""
    if family not in STACKS_FAMILIES:
        raise ValueError(f"unknown STACKS card family {family!r} "
                         f"(known: {', '.join(STACKS_FAMILIES)})")
    rng = np.random.default_rng([seed, sum(map(ord, family)), 24])

    def jit(c, s):
        return tuple(int(np.clip(v + rng.normal(0, s), 0, 255)) for v in c)

    fonts = _FONTS[family]
    kw = dict(font=int(fonts[int(rng.integers(len(fonts)))]))
    if family == "studio":
        kw.update(paper=jit((245, 246, 247), 4), red=jit((40, 30, 200), 12),
                  blue=jit((170, 80, 25), 12), dark=jit((35, 35, 35), 8),
                  weight=float(rng.uniform(0.9, 1.4)), glyph_h=float(rng.uniform(0.26, 0.34)),
                  filled=True, words=bool(rng.random() < 0.6), border=int(rng.integers(0, 2)),
                  aspect=float(rng.uniform(1.38, 1.42)))
    elif family == "bold":
        kw.update(paper=jit((225, 238, 245), 8), red=jit((50, 40, 185), 12),
                  blue=jit((150, 60, 30), 12), dark=jit((45, 40, 35), 8),
                  weight=float(rng.uniform(1.2, 1.8)), glyph_h=float(rng.uniform(0.3, 0.38)),
                  filled=bool(rng.random() < 0.6), words=bool(rng.random() < 0.5),
                  border=int(rng.integers(0, 3)), band=bool(rng.random() < 0.5),
                  aspect=float(rng.uniform(1.38, 1.45)))
    else:   # retro, held out: tinted paper, faded and shifted inks, outlined symbols
        kw.update(paper=jit((200, 228, 240), 8), red=jit((60, 70, 190), 12),
                  blue=jit((140, 100, 40), 12), dark=jit((55, 50, 45), 8),
                  weight=float(rng.uniform(1.0, 1.5)), glyph_h=float(rng.uniform(0.24, 0.32)),
                  filled=bool(rng.random() < 0.3), words=bool(rng.random() < 0.7),
                  border=int(rng.integers(1, 3)), band=False,
                  aspect=float(rng.uniform(1.36, 1.44)))
    return StacksStyle(family=family, seed=seed, **kw)


def random_stacks_style(rng: np.random.Generator, split: str = "tuned") -> StacksStyle:
    if split not in ("tuned", "heldout", "any"):
        raise ValueError(f"unknown split {split!r}")
    pool = {"tuned": STACKS_TUNED, "heldout": STACKS_HELD_OUT,
            "any": tuple(STACKS_FAMILIES)}[split]
    return stacks_style(str(pool[int(rng.integers(len(pool)))]), int(rng.integers(1 << 30)))


def ink_of(code: str, st: StacksStyle) -> tuple:
    if code[0] == "R" and code[1] in "12345W":
        return st.red
    if code[0] == "B" and code[1] in "12345W":
        return st.blue
    return st.dark


# ---------------------------------------------------------------- symbols -----------------

def _text(img, text, cx, cy, height, st, ink, thick):
    """``text`` centred on (cx, cy), ``height`` pixels high (capital height)."""
    (tw, th), _ = cv2.getTextSize(text, st.font, 1.0, thick)
    scale = height / max(th, 1)
    (tw, th), _ = cv2.getTextSize(text, st.font, scale, thick)
    maxw = 0.8 * img.shape[1]
    if tw > maxw:
        scale *= maxw / tw
        (tw, th), _ = cv2.getTextSize(text, st.font, scale, thick)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), st.font, scale, ink, thick,
                cv2.LINE_AA)


def _shape(img, pts, ink, filled, thick):
    pts = [np.int32(p) for p in pts]
    if filled:
        cv2.fillPoly(img, pts, ink, cv2.LINE_AA)
    else:
        cv2.polylines(img, pts, True, ink, thick, cv2.LINE_AA)


def _star(cx, cy, r, points=5):
    a = np.arange(2 * points) * np.pi / points - np.pi / 2
    rr = np.where(np.arange(2 * points) % 2 == 0, r, r * 0.45)
    return np.stack([cx + rr * np.cos(a), cy + rr * np.sin(a)], 1)


def _arrow(x0, x1, y, half):
    """A horizontal arrow from x0 to x1 (head at x1), shaft half-height ``half``."""
    d = 1 if x1 > x0 else -1
    head = x1 - d * 3.2 * half
    return np.float32([[x0, y - half], [head, y - half], [head, y - 2.4 * half], [x1, y],
                       [head, y + 2.4 * half], [head, y + half], [x0, y + half]])


def _symbol(img, code, cx, cy, size, st, ink, thick):
    """The middle of the card: a number, or a symbol ``size`` pixels high."""
    r = size / 2
    if code[1] in "12345" and code[0] in "RB":
        _text(img, code[1], cx, cy, size, st, ink, max(2, thick * 2))
    elif code in ("RW", "BW"):
        _shape(img, [_star(cx, cy, r * 1.1)], ink, st.filled, thick)
    elif code == "SK":                    # a ring with a bar across: no entry
        t = max(thick, int(r * 0.2))
        cv2.circle(img, (int(cx), int(cy)), int(r), ink, t, cv2.LINE_AA)
        d = r * 0.72
        cv2.line(img, (int(cx - d), int(cy + d)), (int(cx + d), int(cy - d)), ink, t, cv2.LINE_AA)
    elif code == "RV":                    # two arrows, one each way
        h = r * 0.14
        _shape(img, [_arrow(cx - r, cx + r, cy - r * 0.45, h)], ink, st.filled, thick)
        _shape(img, [_arrow(cx + r, cx - r, cy + r * 0.45, h)], ink, st.filled, thick)
    elif code == "SC":                    # two cards, one pulled aside by an arrow
        w2, h2 = r * 0.45, r * 0.65
        for dx, dy in ((-0.3, -0.15), (0.3, 0.2)):
            x, y = cx + dx * r, cy + dy * r
            box = np.float32([[x - w2, y - h2], [x + w2, y - h2], [x + w2, y + h2], [x - w2, y + h2]])
            _shape(img, [box], ink, False, max(thick, int(r * 0.1)))
        _shape(img, [_arrow(cx - r * 0.1, cx + r * 1.05, cy + r * 0.9, r * 0.09)], ink, True, thick)
    elif code == "CH":                    # a chip (a ring of notches) and an arrow
        rr = r * 0.62
        cv2.circle(img, (int(cx), int(cy - r * 0.2)), int(rr), ink, -1 if st.filled else
                   max(thick, int(r * 0.12)), cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy - r * 0.2)), int(rr * 0.5),
                   st.paper if st.filled else ink, max(thick, int(r * 0.1)), cv2.LINE_AA)
        _shape(img, [_arrow(cx - r, cx + r, cy + r * 0.8, r * 0.1)], ink, True, thick)
    elif code == "BL":                    # an octagon with a bar: a stop sign
        a = np.arange(8) * np.pi / 4 + np.pi / 8
        oct_ = np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], 1)
        _shape(img, [oct_], ink, st.filled, max(thick, int(r * 0.12)))
        bar = np.float32([[cx - r * 0.6, cy - r * 0.15], [cx + r * 0.6, cy - r * 0.15],
                          [cx + r * 0.6, cy + r * 0.15], [cx - r * 0.6, cy + r * 0.15]])
        if st.filled:
            cv2.fillPoly(img, [np.int32(bar)], st.paper, cv2.LINE_AA)
        else:
            cv2.fillPoly(img, [np.int32(bar)], ink, cv2.LINE_AA)
    else:
        raise ValueError(f"unknown STACKS card {code!r}")


def _index_text(code: str) -> str:
    if code[0] in "RB" and code[1] in "12345W":
        return code[1]
    return {"SK": "S", "RV": "R", "SC": "SC", "CH": "CH", "BL": "B"}[code]


def stacks_card_image(code: str, st: StacksStyle, height: int = 280) -> np.ndarray:
    """One STACKS card face (BGRA, portrait, ``height`` pixels high)."""
    if code not in CODES:
        raise ValueError(f"unknown STACKS card {code!r}")
    w, h = int(round(height / st.aspect)), height
    ink = ink_of(code, st)
    img = np.full((h, w, 3), st.paper, np.uint8)
    thick = max(1, int(round(st.weight * h / 160)))
    if st.band:                           # a frame band in the card's colour
        m = int(0.035 * h)
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), ink, max(2, int(0.025 * h)))
    size = st.glyph_h * h
    words = st.words and code in WORDS
    cy = h * (0.46 if words else 0.5)
    _symbol(img, code, w / 2, cy, size, st, ink, thick)
    if words:
        _text(img, WORDS[code], w / 2, cy + size * 0.5 + 0.08 * h, 0.045 * h, st, ink,
              max(1, thick // 2 + 1) if st.weight > 1.3 else 1)
    for _turn in range(2):                # the index in two opposite corners
        _text(img, _index_text(code), 0.14 * w, 0.1 * h, st.index_h * h, st, ink, thick)
        img = np.ascontiguousarray(img[::-1, ::-1])
    return framed(img, st.border, tuple(int(v * 0.6) for v in st.paper))
