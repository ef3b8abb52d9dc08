"""A wider world for the synthetic camera: named families of looks, some held out.

A :class:`Look` picks, for one scene, one FAMILY in each of seven dimensions (card art,
board material, chips, table, hands, light, camera) and a seed; everything else about the
scene (the fonts, the print colours, the skin tone, the sleeve...) is drawn at random
within the family from that seed. :func:`vision.synth.render` draws a scene in a look.

Some families are HELD OUT (:data:`HELD_OUT`): nothing that is tuned or trained may ever see
them (:func:`draw_look` with ``split="tuned"`` never returns one); the benchmark's
``heldout_*`` figures are measured on scenes drawn with ``split="heldout"``, whose card art
is always a held-out family and whose every other dimension is a held-out family half the
time. docs/vision.md says what each family is and which parts are guessed.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass, fields, replace

import cv2
import numpy as np

#: dimension -> family -> held out?
FAMILIES: dict[str, dict[str, bool]] = {
    "art": {"shipped": False, "plain": False, "ornate": False,
            "bigindex": True, "vintage": True},
    "board": {"mat": False, "glossy": False, "worn": False, "folding": True},
    "chips": {"opaque": False, "translucent": False, "pastel": True},
    "table": {"wood": False, "cloth": False, "dark": True, "patterned": True},
    "hand": {"bare": False, "sleeve": False, "greysleeve": True, "holding": True},
    "light": {"daylight": False, "lamp": False, "dim_mixed": True, "spot": True},
    "camera": {"overhead": False, "angled": False, "phone": True},
}
DIMENSIONS = tuple(FAMILIES)
HELD_OUT = {d: tuple(f for f, h in fam.items() if h) for d, fam in FAMILIES.items()}
TUNED = {d: tuple(f for f, h in fam.items() if not h) for d, fam in FAMILIES.items()}


@dataclass(frozen=True)
class Look:
    art: str = "shipped"
    board: str = "mat"
    chips: str = "opaque"
    table: str = "wood"
    hand: str = "bare"
    light: str = "daylight"
    camera: str = "overhead"
    seed: int = 0

    @property
    def held_out(self) -> bool:
        """Whether any of its families is held out."""
        return any(FAMILIES[d][getattr(self, d)] for d in DIMENSIONS)

    def describe(self) -> str:
        return ",".join(f"{d}={getattr(self, d)}" for d in DIMENSIONS) + f",seed={self.seed}"


def draw_look(rng: np.random.Generator, split: str = "tuned") -> Look:
    """A look at random: ``tuned`` (no held-out family), ``heldout`` (held-out art, every
    other dimension held out half the time) or ``any``."""
    if split not in ("tuned", "heldout", "any"):
        raise ValueError(f"unknown split {split!r}")
    kw = {}
    for d in DIMENSIONS:
        if split == "tuned":
            pool = TUNED[d]
        elif split == "heldout":
            pool = HELD_OUT[d] if (d == "art" or rng.random() < 0.5) else TUNED[d]
        else:
            pool = tuple(FAMILIES[d])
        kw[d] = str(pool[int(rng.integers(len(pool)))])
    return Look(**kw, seed=int(rng.integers(1 << 30)))


def parse_look(text: str, seed: int = 0) -> Look:
    """``"art=vintage,table=dark"`` -> a :class:`Look` (the rest default). Raises ValueError
    naming the unknown dimension or family."""
    kw: dict = {"seed": seed}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key == "seed":
            kw["seed"] = int(value)
            continue
        if key not in FAMILIES:
            raise ValueError(f"unknown look dimension {key!r} (known: {', '.join(DIMENSIONS)})")
        if value not in FAMILIES[key]:
            raise ValueError(f"unknown {key} family {value!r} (known: {', '.join(FAMILIES[key])})")
        kw[key] = value
    return Look(**kw)


def _rng(look: Look, what: str) -> np.random.Generator:
    return np.random.default_rng([look.seed, sum(map(ord, what))])


# ---------------------------------------------------------------- card art ----------------

SUIT_RED = {"H": True, "D": True, "S": False, "C": False}
_FONTS = {
    "plain": (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX),
    "ornate": (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX),
    "bigindex": (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX),
    "vintage": (cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
                cv2.FONT_HERSHEY_COMPLEX_SMALL | cv2.FONT_ITALIC),
}


@dataclass(frozen=True)
class ArtStyle:
    """The printing of one board's cards (drawn from the art family and the look's seed)."""

    family: str
    paper: tuple[int, int, int]
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    font: int
    pip_scale: float
    heart_lobe: float
    border: int          # 0 none, 1 thin, 2 double, 3 rounded
    border_colour: tuple[int, int, int]
    misregister: tuple[int, int]
    turn: str            # how the card pictures are turned on the board: none, half, quadrant
    court_colours: tuple[tuple[int, int, int], ...]
    seed: int


def art_style(look: Look) -> ArtStyle:
    rng = _rng(look, "art")
    fam = look.art

    def jitter(c, s):
        return tuple(int(np.clip(v + rng.normal(0, s), 0, 255)) for v in c)

    paper = (246, 246, 246)
    red, black = (40, 30, 200), (30, 30, 30)
    misreg = (0, 0)
    turn = "none"
    if fam == "shipped":
        paper = jitter((246, 246, 246), 3)
    elif fam == "plain":
        paper = jitter((240, 242, 244), 6)
        red, black = jitter((45, 35, 205), 15), jitter((35, 30, 30), 10)
        turn = str(rng.choice(["none", "half"]))
    elif fam == "ornate":
        paper = jitter((215, 232, 240), 8)          # cream
        red, black = jitter((50, 40, 170), 15), jitter((60, 30, 20), 12)   # navy-black
        turn = str(rng.choice(["none", "half", "quadrant"]))
    elif fam == "bigindex":
        paper = jitter((250, 250, 250), 4)
        red, black = jitter((20, 20, 225), 10), jitter((15, 15, 15), 8)
        turn = str(rng.choice(["none", "quadrant"]))
    elif fam == "vintage":
        paper = jitter((185, 215, 228), 8)          # yellowed
        red, black = jitter((80, 80, 165), 15), jitter((70, 65, 60), 10)   # faded
        misreg = (int(rng.integers(-3, 4)), int(rng.integers(-3, 4)))
        turn = str(rng.choice(["none", "half"]))
    else:
        raise ValueError(f"unknown art family {fam!r}")
    fonts = _FONTS.get(fam, _FONTS["plain"])
    court = tuple(jitter(c, 25) for c in ((40, 140, 200), (150, 60, 40), (40, 160, 60),
                                          (30, 200, 230), (120, 40, 120)))
    return ArtStyle(fam, paper, red, black, int(fonts[int(rng.integers(len(fonts)))]),
                    float(rng.uniform(0.7, 1.3)), float(rng.uniform(0.22, 0.32)),
                    int(rng.integers(0, 4)), jitter((90, 90, 90), 40), misreg, turn, court,
                    look.seed)


def _pip(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour, lobe: float
         ) -> None:
    """A suit sign centred at (cx, cy), ``size`` pixels high."""
    s = size / 2
    aa = cv2.LINE_AA
    if suit == "D":
        pts = np.int32([[cx, cy - s], [cx + s * 0.7, cy], [cx, cy + s], [cx - s * 0.7, cy]])
        cv2.fillPoly(img, [pts], colour, aa)
        return
    if suit in ("H", "S"):
        sign = 1 if suit == "H" else -1
        r = max(1, int(round(s * (0.35 + lobe))))
        ly = cy - sign * s * 0.35
        for dx in (-1, 1):
            cv2.circle(img, (int(cx + dx * s * 0.42), int(ly)), r, colour, -1, aa)
        pts = np.int32([[cx - s * 0.95, ly + sign * s * 0.05], [cx + s * 0.95, ly + sign * s * 0.05],
                        [cx, cy + sign * s]])
        cv2.fillPoly(img, [pts], colour, aa)
        if suit == "S":
            cv2.fillPoly(img, [np.int32([[cx, cy + s * 0.2], [cx - s * 0.35, cy + s],
                                         [cx + s * 0.35, cy + s]])], colour, aa)
        return
    # clubs: three balls and a stem
    r = max(1, int(round(s * 0.36)))
    for dx, dy in ((0, -0.45), (-0.48, 0.1), (0.48, 0.1)):
        cv2.circle(img, (int(cx + dx * s), int(cy + dy * s)), r, colour, -1, aa)
    cv2.fillPoly(img, [np.int32([[cx, cy], [cx - s * 0.3, cy + s], [cx + s * 0.3, cy + s]])],
                 colour, aa)


_PIP_SPOTS = {  # pip positions for 1..10 in a unit box (x, y)
    1: [(0.5, 0.5)], 2: [(0.5, 0.2), (0.5, 0.8)], 3: [(0.5, 0.2), (0.5, 0.5), (0.5, 0.8)],
    4: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.8), (0.7, 0.8)],
    5: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    7: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.35), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    8: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.35), (0.3, 0.5), (0.7, 0.5), (0.5, 0.65), (0.3, 0.8),
        (0.7, 0.8)],
    9: [(0.3, 0.18), (0.7, 0.18), (0.3, 0.39), (0.7, 0.39), (0.5, 0.5), (0.3, 0.61), (0.7, 0.61),
        (0.3, 0.82), (0.7, 0.82)],
    10: [(0.3, 0.18), (0.7, 0.18), (0.5, 0.3), (0.3, 0.39), (0.7, 0.39), (0.3, 0.61), (0.7, 0.61),
         (0.5, 0.7), (0.3, 0.82), (0.7, 0.82)],
}
_RANK_TEXT = {"T": "10", "A": "A", "K": "K", "Q": "Q", "J": "J"}


def _procedural_card(code: str, size: int, st: ArtStyle) -> np.ndarray:
    rank, suit = code[:-1], code[-1]
    ink = st.red if SUIT_RED.get(suit, False) else st.black
    plate = np.full((size, size, 3), st.paper, np.uint8)
    colour = np.full((size, size, 3), st.paper, np.uint8)   # the colour plate (misregistered)
    target = colour if SUIT_RED.get(suit, False) else plate
    text = _RANK_TEXT.get(rank, rank)
    n = {"A": 1, "T": 10}.get(rank, int(rank) if rank.isdigit() else 0)
    fs = size / 64
    if st.family == "bigindex":
        scale = 1.2 * fs if len(text) == 1 else 0.95 * fs
        (tw, th), _ = cv2.getTextSize(text, st.font, scale, max(1, int(2 * fs)))
        cv2.putText(target, text, (int(size * 0.1), int(size * 0.1 + th)), st.font, scale, ink,
                    max(1, int(2 * fs)), cv2.LINE_AA)
        _pip(target, suit, size * 0.68, size * 0.68, size * 0.42 * st.pip_scale, ink, st.heart_lobe)
    else:
        scale = 0.45 * fs
        cv2.putText(target, text, (int(size * 0.06), int(size * 0.22)), st.font, scale, ink,
                    1, cv2.LINE_AA)
        _pip(target, suit, size * 0.14, size * 0.32, size * 0.12, ink, st.heart_lobe)
        box = (size * 0.22, size * 0.1, size * 0.7, size * 0.8)     # x, y, w, h of the pips
        if rank in ("K", "Q", "J"):
            # a court picture: a figure of blocks and a face, the suit sign on its chest
            rng = np.random.default_rng([st.seed, sum(map(ord, code))])
            x0, y0, w, h = (int(v) for v in box)
            cv2.rectangle(colour, (x0, y0), (x0 + w, y0 + h), st.court_colours[0], -1)
            for k in range(4):
                c = st.court_colours[int(rng.integers(len(st.court_colours)))]
                yy = y0 + int(h * rng.uniform(0.3, 0.9))
                cv2.rectangle(colour, (x0 + int(w * rng.uniform(0, 0.5)), yy),
                              (x0 + int(w * rng.uniform(0.5, 1)), min(y0 + h, yy + int(h * 0.2))),
                              c, -1)
            cv2.circle(colour, (x0 + w // 2, y0 + int(h * 0.25)), max(2, int(w * 0.2)),
                       (150, 190, 230), -1, cv2.LINE_AA)
            cv2.putText(plate, text, (x0 + w // 2 - int(6 * fs), y0 + int(h * 0.95)), st.font,
                        0.5 * fs, st.black, 1, cv2.LINE_AA)
            _pip(target, suit, x0 + w * 0.5, y0 + h * 0.6, size * 0.18 * st.pip_scale, ink,
                 st.heart_lobe)
        else:
            spots = _PIP_SPOTS.get(n, [(0.5, 0.5)])
            ps = size * (0.5 if n == 1 else 0.16) * st.pip_scale
            for sx, sy in spots:
                _pip(target, suit, box[0] + sx * box[2], box[1] + sy * box[3], ps, ink,
                     st.heart_lobe)
    if st.misregister != (0, 0):
        colour = np.roll(colour, st.misregister, axis=(0, 1))
    # print the plates: each ink darkens the paper (multiply)
    paper = np.float32(st.paper)
    out = plate.astype(np.float32) * (colour.astype(np.float32) / np.maximum(paper, 1))
    out = np.clip(out, 0, 255).astype(np.uint8)
    if st.border:
        bc = st.border_colour
        if st.border == 3:
            cv2.rectangle(out, (2, 2), (size - 3, size - 3), bc, 1, cv2.LINE_AA)
        else:
            cv2.rectangle(out, (1, 1), (size - 2, size - 2), bc, 1)
            if st.border == 2:
                cv2.rectangle(out, (4, 4), (size - 5, size - 5), bc, 1)
    return out


@functools.lru_cache(maxsize=8)
def _shipped_sheet(size: int) -> dict:
    from .synth import _card_picture
    from engine.cards import picture_file
    out = {}
    for suit in "SHDC":
        for rank in "23456789TJQKA":
            if picture_file(rank + suit):
                out[rank + suit] = _card_picture(rank + suit, size)
    return out


def card_face(code: str, size: int, st: ArtStyle) -> np.ndarray:
    """One card's printed picture on the board in the style ``st`` (``size`` pixels square)."""
    if st.family == "shipped":
        pic = _shipped_sheet(size).get(code)
        if pic is not None:
            tint = np.float32(st.paper) / 246.0
            return np.clip(pic.astype(np.float32) * tint, 0, 255).astype(np.uint8)
    if len(code) >= 2 and code[-1] in "SHDC" and code[:-1] in ("2", "3", "4", "5", "6", "7", "8",
                                                               "9", "T", "J", "Q", "K", "A"):
        return _procedural_card(code, size, st)
    return _symbol_face(code, size, st)


def _symbol_face(sym: str, size: int, st: ArtStyle) -> np.ndarray:
    """A picture symbol (Jewish Edition): a coloured emblem of its own, seeded by the name."""
    img = np.full((size, size, 3), st.paper, np.uint8)
    # seeded by the whole name (a sum of its letters gave FIGS and BOOK, TALLIT and SCROLL
    # the same picture: no real board prints two pictures alike)
    rng = np.random.default_rng([st.seed, zlib.crc32(sym.encode("utf-8"))])
    for _ in range(3):
        c = tuple(int(v) for v in rng.integers(20, 220, 3))
        centre = tuple(int(v) for v in rng.integers(size // 5, size * 4 // 5, 2))
        if rng.random() < 0.5:
            cv2.circle(img, centre, int(size * rng.uniform(0.1, 0.25)), c, -1, cv2.LINE_AA)
        else:
            d = int(size * rng.uniform(0.1, 0.25))
            cv2.rectangle(img, (centre[0] - d, centre[1] - d), (centre[0] + d, centre[1] + d), c, -1)
    cv2.putText(img, sym[:5], (3, size - 5), st.font, 0.3 * size / 64, st.black, 1, cv2.LINE_AA)
    return img


def free_face(size: int, st: ArtStyle) -> np.ndarray:
    """A free corner: a printed emblem (all four corners alike)."""
    rng = np.random.default_rng([st.seed, 7])
    img = np.full((size, size, 3), st.paper, np.uint8)
    c = size // 2
    dark = tuple(int(v) for v in rng.integers(10, 80, 3))
    bright = tuple(int(v) for v in rng.integers(120, 240, 3))
    cv2.circle(img, (c, c), int(size * rng.uniform(0.3, 0.42)), dark, -1, cv2.LINE_AA)
    cv2.drawMarker(img, (c, c), bright, cv2.MARKER_STAR, int(size * 0.35), 2)
    return img


def _turn(face: np.ndarray, index: int, rows: int, cols: int, how: str) -> np.ndarray:
    r, c = divmod(index, cols)
    if how == "half" and r >= rows // 2:
        return face[::-1, ::-1].copy()
    if how == "quadrant":
        k = (r >= rows // 2) * 2 + (c >= cols // 2)
        return np.ascontiguousarray(np.rot90(face, (0, 1, 3, 2)[k]))
    return face


# ---------------------------------------------------------------- the board ---------------

BORDERS = ((40, 70, 30), (70, 40, 20), (25, 25, 25), (30, 30, 110), (30, 60, 90), (60, 60, 60))


@functools.lru_cache(maxsize=16)
def _empty_top(layout_key: tuple, look: Look, cell: int) -> np.ndarray:
    name, rows, cols, symbols, free = layout_key
    st = art_style(look)
    rng = _rng(look, "board")
    margin = int(round(0.45 * cell))
    h, w = rows * cell + 2 * margin, cols * cell + 2 * margin
    img = np.empty((h, w, 3), np.uint8)
    img[:] = BORDERS[int(rng.integers(len(BORDERS)))]
    border_tex = rng.normal(0, 4, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
    img = np.clip(img + cv2.resize(border_tex, (w, h))[..., None], 0, 255).astype(np.uint8)
    for i, sym in enumerate(symbols):
        r, c = divmod(i, cols)
        tile = free_face(cell, st) if i in free else _turn(card_face(sym, cell, st), i, rows,
                                                           cols, st.turn)
        img[margin + r * cell:margin + (r + 1) * cell, margin + c * cell:margin + (c + 1) * cell] = tile
    line = tuple(int(v) for v in rng.integers(40, 110, 3))
    for k in range(rows + 1):
        cv2.line(img, (margin, margin + k * cell), (w - margin, margin + k * cell), line, 1)
    for k in range(cols + 1):
        cv2.line(img, (margin + k * cell, margin), (margin + k * cell, h - margin), line, 1)
    if look.board == "worn":
        # scuffs and a faded print: lighter blotches and fine scratches
        fade = cv2.GaussianBlur(rng.random((h // 16 + 1, w // 16 + 1)).astype(np.float32), (0, 0), 1)
        fade = cv2.resize(fade, (w, h))[..., None]
        img = np.clip(img * (1 - 0.12 * fade) + 255 * 0.12 * fade, 0, 255).astype(np.uint8)
        for _ in range(int(rng.integers(10, 30))):
            p = rng.integers(0, [w, h])
            q = p + rng.integers(-cell, cell, 2)
            cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q),
                     (215, 215, 215), 1, cv2.LINE_AA)
    img.setflags(write=False)
    return img


def board_top(layout, states, look: Look, cell: int, rng: np.random.Generator,
              jitter: float) -> np.ndarray:
    """The board in the look, straight from above, with chips where ``states`` has them."""
    key = (layout.name, layout.rows, layout.cols, tuple(layout.symbols), frozenset(layout.free))
    img = _empty_top(key, replace(look, hand="bare", light="daylight", camera="overhead",
                                  table="wood", chips="opaque"), cell).copy()
    if states is None:
        return img
    margin = int(round(0.45 * cell))
    chips = chip_style(look)
    for i, s in enumerate(states.states):
        if not s.is_chip:
            continue
        r, c = divmod(i, layout.cols)
        j = chips["offset"] if jitter else 0.0
        dx, dy = (rng.uniform(-j, j, 2) * cell) if j else (0.0, 0.0)
        centre = (int(margin + (c + 0.5) * cell + dx), int(margin + (r + 0.5) * cell + dy))
        draw_look_chip(img, centre, int(cell * chips["radius"]), s.value, chips, rng)
    return img


def chip_style(look: Look) -> dict:
    rng = _rng(look, "chips")
    fam = look.chips
    base = {"B": (190, 95, 25), "G": (70, 150, 30), "R": (40, 35, 200), "W": (232, 234, 236)}
    if fam == "pastel":
        base = {"B": (210, 150, 80), "G": (120, 190, 90), "R": (90, 90, 230), "W": (225, 230, 235)}
    shades = {}
    for k, (b, g, r) in base.items():
        s = rng.uniform(0.8, 1.1) if k != "W" else rng.uniform(0.95, 1.05)
        hue = rng.normal(0, 10, 3)
        shades[k] = tuple(int(np.clip(v * s + d, 0, 255)) for v, d in zip((b, g, r), hue))
    return {"family": fam, "colours": shades, "radius": float(rng.uniform(0.33, 0.42)),
            "alpha": float(rng.uniform(0.6, 0.8)) if fam == "translucent" else 1.0,
            "gloss": float(rng.uniform(0.0, 1.0)) if fam != "pastel" else 0.0,
            "offset": float(rng.uniform(0.03, 0.14)),
            "print": tuple(int(v) for v in rng.integers(60, 180, 3))}


def draw_look_chip(img: np.ndarray, centre: tuple[int, int], radius: int, state: str,
                   style: dict, rng: np.random.Generator) -> None:
    colour = style["colours"][state]
    x, y = centre
    r2 = radius + 3
    y0, y1, x0, x1 = max(0, y - r2), min(img.shape[0], y + r2), max(0, x - r2), min(img.shape[1], x + r2)
    if y1 <= y0 or x1 <= x0:
        return
    roi = img[y0:y1, x0:x1]
    layer = roi.copy()
    c = (x - x0, y - y0)
    dark = tuple(int(v * 0.72) for v in colour)
    cv2.circle(layer, c, radius, dark, -1, cv2.LINE_AA)
    cv2.circle(layer, c, int(radius * 0.88), colour, -1, cv2.LINE_AA)
    cv2.circle(layer, c, int(radius * 0.6), dark, 1, cv2.LINE_AA)
    if state == "W":
        # the flipped side carries a print (a logo ring and a mark)
        cv2.circle(layer, c, int(radius * 0.45), style["print"], 1, cv2.LINE_AA)
        cv2.drawMarker(layer, c, style["print"], cv2.MARKER_DIAMOND, int(radius * 0.5), 1)
    if style["gloss"] > 0.3:
        hl = tuple(min(255, int(v * 1.1) + int(60 * style["gloss"])) for v in colour)
        cv2.ellipse(layer, (c[0] - radius // 3, c[1] - radius // 3),
                    (max(2, radius // 4), max(1, radius // 7)), 45, 0, 360, hl, -1, cv2.LINE_AA)
    a = style["alpha"] if state != "W" else max(style["alpha"], 0.85)
    if a < 1.0:
        mask = np.zeros(roi.shape[:2], np.uint8)
        cv2.circle(mask, c, radius, 255, -1, cv2.LINE_AA)
        m = (mask.astype(np.float32) / 255.0 * a)[..., None]
        roi[:] = (layer * m + roi * (1 - m)).astype(np.uint8)
    else:
        roi[:] = layer
    # a soft contact shadow on the paper is left out: chips lie flat (guessed)


# ---------------------------------------------------------------- the table ---------------

def table_image(look: Look, width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    trng = _rng(look, "table")
    fam = look.table
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if fam == "wood":
        base = np.float32(trng.uniform([60, 95, 130], [110, 150, 190]))
        a = trng.uniform(0, math.pi)
        u = xx * math.cos(a) + yy * math.sin(a)
        v = -xx * math.sin(a) + yy * math.cos(a)
        grain = np.sin(u / trng.uniform(6, 14) + 3 * np.sin(v / trng.uniform(60, 160)))
        img = base * (1 + 0.12 * grain[..., None])
    elif fam == "cloth":
        base = np.float32(trng.uniform([40, 40, 40], [200, 200, 200]))
        weave = (np.sin(xx * 1.7) * np.sin(yy * 1.7))[..., None]
        img = base * (1 + 0.05 * weave)
    elif fam == "dark":
        base = np.float32(trng.uniform([10, 10, 10], [45, 45, 45]))
        img = base + 0 * xx[..., None]
    elif fam == "patterned":
        c1 = np.float32(trng.uniform(30, 230, 3))
        c2 = np.float32(trng.uniform(30, 230, 3))
        period = trng.uniform(20, 70)
        kind = int(trng.integers(3))
        if kind == 0:          # checks
            p = ((xx // period + yy // period) % 2)[..., None]
        elif kind == 1:        # stripes
            p = ((xx + yy) // period % 2)[..., None]
        else:                  # dots (a flowered cloth, roughly)
            p = ((np.sin(xx / period * 6) * np.sin(yy / period * 6)) > 0.5)[..., None]
        img = c1 * p + c2 * (1 - p)
    else:
        raise ValueError(f"unknown table family {fam!r}")
    noise = rng.normal(0, 5, (height // 8 + 1, width // 8 + 1)).astype(np.float32)
    img = img + cv2.resize(noise, (width, height))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- hands -------------------

SKIN = ((185, 200, 235), (150, 175, 220), (110, 140, 195), (80, 105, 160), (50, 70, 110),
        (35, 50, 80))


def hand_layers(look: Look, cond, grid: np.ndarray, layout, rng: np.random.Generator):
    """(mask 0..255 of the hand, arm and held chip; their colours (H, W, 3) float32; a cast
    shadow 0..1) for a hand reaching for ``cond.hand_at``."""
    h, w = cond.height, cond.width
    mask = np.zeros((h, w), np.uint8)
    colour = np.zeros((h, w, 3), np.float32)
    shadow = np.zeros((h, w), np.float32)
    if cond.hand_at is None:
        return mask, colour, shadow
    fam = look.hand
    r, c = divmod(cond.hand_at, layout.cols)
    hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [layout.cols, 0],
                                                 [layout.cols, layout.rows], [0, layout.rows]]),
                                     np.float32(grid))
    centre = cv2.perspectiveTransform(np.float32([[[c + 0.5, r + 0.5]]]), hm)[0, 0]
    one = cv2.perspectiveTransform(np.float32([[[c + 1.5, r + 0.5]]]), hm)[0, 0]
    space = float(np.hypot(*(one - centre)))
    rad = int(space * cond.hand_size * rng.uniform(0.8, 1.1))
    cx, cy = int(centre[0]), int(centre[1])
    if fam in ("bare", "sleeve"):
        skin_i = rng.uniform(0, 3.5)
    else:
        skin_i = rng.uniform(1.5, len(SKIN) - 1)
    k = int(skin_i)
    t = skin_i - k
    skin = np.float32(SKIN[k]) * (1 - t) + np.float32(SKIN[min(k + 1, len(SKIN) - 1)]) * t
    if fam == "bare":
        sleeve = skin * rng.uniform(0.9, 1.0)
        wrist = 99.0
    elif fam == "sleeve":
        sleeve = np.float32(rng.uniform(20, 235, 3))
        wrist = rng.uniform(1.2, 2.5)
    else:
        g = rng.uniform(60, 200)
        sleeve = np.float32([g, g, g]) + rng.normal(0, 6, 3)
        wrist = rng.uniform(1.0, 2.0)
    # the arm comes from an edge of the frame: the player's side, or across the board
    side = int(rng.integers(4)) if fam in ("holding", "greysleeve") or rng.random() < 0.3 else 2
    ex, ey = {0: (rng.uniform(0, w), -60), 1: (w + 60, rng.uniform(0, h)),
              2: (cx + rng.uniform(-0.2, 0.2) * w, h + 60), 3: (-60, rng.uniform(0, h))}[side]
    arm_w = int(rad * rng.uniform(1.1, 1.5))
    d = np.float32([ex - cx, ey - cy])
    d /= max(float(np.hypot(*d)), 1.0)
    wx, wy = cx + d[0] * rad * wrist, cy + d[1] * rad * wrist
    arm = np.zeros((h, w), np.uint8)
    cv2.line(arm, (int(wx), int(wy)), (int(ex), int(ey)), 255, arm_w)
    palm = np.zeros((h, w), np.uint8)
    cv2.line(palm, (cx, cy), (int(wx), int(wy)), 255, int(rad * 1.2))
    cv2.ellipse(palm, (cx, cy), (rad, int(rad * 0.8)), float(rng.uniform(0, 180)), 0, 360, 255, -1)
    back = math.atan2(d[1], d[0])
    for kf in range(4):
        ang = back + math.pi + math.radians(-45 + 30 * kf + rng.uniform(-8, 8))
        cv2.line(palm, (cx, cy), (int(cx + math.cos(ang) * rad * 1.5),
                                  int(cy + math.sin(ang) * rad * 1.5)), 255, max(3, rad // 4))
    mask = cv2.bitwise_or(arm, palm)
    shade = cv2.GaussianBlur(palm, (0, 0), 9).astype(np.float32)[..., None] / 255.0
    colour[:] = sleeve
    colour[palm > 0] = (skin * (0.75 + 0.25 * shade))[palm > 0]
    if fam == "holding" or rng.random() < 0.2:
        # fingers holding a chip by its edge, a little beyond the fingertips
        tip = (int(cx - d[0] * rad * 1.6), int(cy - d[1] * rad * 1.6))
        chip = np.zeros((h, w), np.uint8)
        cv2.circle(chip, tip, int(space * 0.38), 255, -1, cv2.LINE_AA)
        col = np.float32(((190, 95, 25), (70, 150, 30), (40, 35, 200))[int(rng.integers(3))])
        colour[chip > 0] = col
        mask = cv2.bitwise_or(mask, chip)
    blur = rng.random() < (0.6 if fam in ("greysleeve", "holding") else 0.2)
    if blur:
        # motion blur along the arm's direction
        n = int(rng.integers(7, 21))
        kern = np.zeros((n, n), np.float32)
        cv2.line(kern, (0, n // 2), (n - 1, n // 2), 1.0, 1)
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), math.degrees(back), 1.0)
        kern = cv2.warpAffine(kern, rot, (n, n))
        kern /= max(kern.sum(), 1e-6)
        m = cv2.filter2D(mask.astype(np.float32), -1, kern)
        colour = cv2.filter2D(colour * (mask[..., None] / 255.0), -1, kern) / np.maximum(
            m[..., None] / 255.0, 1e-3)
        mask = np.clip(m, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        # the arm's own shadow on the board, soft or hard, offset from it
        off = rng.uniform(-0.8, 0.8, 2) * space
        mt = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
        sh = cv2.warpAffine(mask, mt, (w, h)).astype(np.float32) / 255.0
        sig = float(rng.uniform(2, 25))
        shadow = np.maximum(shadow, cv2.GaussianBlur(sh, (0, 0), sig) * rng.uniform(0.25, 0.55))
    if rng.random() < 0.4:
        # a person's shadow: head and shoulders from the player's side, very soft
        body = np.zeros((h, w), np.uint8)
        bx = int(rng.uniform(0.2, 0.8) * w)
        cv2.ellipse(body, (bx, h + int(0.1 * h)), (int(0.35 * w), int(0.35 * h)), 0, 0, 360, 255, -1)
        shadow = np.maximum(shadow, cv2.GaussianBlur(body.astype(np.float32) / 255, (0, 0), 40)
                            * rng.uniform(0.2, 0.45))
    return mask, colour, shadow


# ---------------------------------------------------------------- light and camera --------

def look_conditions(look: Look, width: int = 1280, height: int = 720, hand_at: int | None = None):
    """The camera and the room (a :class:`vision.synth.Conditions`) for the look's light
    and camera families."""
    from .synth import Conditions
    rng = _rng(look, "conditions")
    kw: dict = {"width": width, "height": height, "rotation_deg": float(rng.uniform(-180, 180)),
                "light_seed": int(rng.integers(1 << 30)), "hand_at": hand_at}
    cam = look.camera
    if cam == "overhead":
        kw.update(tilt_deg=float(rng.uniform(0, 15)), scale=float(rng.uniform(0.8, 0.92)),
                  noise=float(rng.uniform(1, 3)))
    elif cam == "angled":
        kw.update(tilt_deg=float(rng.uniform(15, 30)), scale=float(rng.uniform(0.76, 0.88)),
                  noise=float(rng.uniform(1, 3)), distortion=float(rng.uniform(-0.04, 0.04)))
    elif cam == "phone":
        kw.update(tilt_deg=float(rng.uniform(20, 35)), scale=float(rng.uniform(0.72, 0.85)),
                  noise=float(rng.uniform(2, 6)), distortion=float(rng.uniform(-0.1, 0.06)),
                  jpeg=int(rng.integers(35, 75)), blur=float(rng.uniform(0.5, 1.6)))
    else:
        raise ValueError(f"unknown camera family {cam!r}")
    kw["offset"] = (float(rng.uniform(-0.04, 0.04)), float(rng.uniform(-0.03, 0.03)))
    lt = look.light
    if lt == "daylight":
        kw.update(kelvin=float(rng.uniform(4500, 6500)), brightness=float(rng.uniform(0.85, 1.05)),
                  uneven=float(rng.uniform(0, 0.3)))
    elif lt == "lamp":
        kw.update(kelvin=float(rng.uniform(2700, 3500)), brightness=float(rng.uniform(0.75, 1.0)),
                  uneven=float(rng.uniform(0.2, 0.5)), shadow=float(rng.uniform(0.2, 0.5)))
    elif lt == "dim_mixed":
        kw.update(kelvin=float(rng.uniform(2700, 6500)), brightness=float(rng.uniform(0.35, 0.6)),
                  uneven=float(rng.uniform(0.2, 0.6)), shadow=float(rng.uniform(0.0, 0.4)),
                  noise=max(kw["noise"], float(rng.uniform(3, 6))))
    elif lt == "spot":
        kw.update(kelvin=float(rng.uniform(3000, 6000)), brightness=float(rng.uniform(0.8, 1.0)),
                  uneven=float(rng.uniform(0.3, 0.7)), glare=int(rng.integers(1, 3)))
    else:
        raise ValueError(f"unknown light family {lt!r}")
    return Conditions(**kw)


def light_extras(look: Look, cond, rng_light: np.random.Generator) -> dict:
    """What the light family adds beyond :class:`Conditions`: a second colour temperature
    over part of the frame, a hard-edged shadow, the sheen of a glossy board, flicker."""
    out = {"second_kelvin": None, "hard_shadow": 0.0, "sheen": 0.0, "crease": False}
    if look.light == "dim_mixed":
        out["second_kelvin"] = float(rng_light.uniform(2700, 6500))
    if look.light == "lamp" and rng_light.random() < 0.5:
        out["hard_shadow"] = float(rng_light.uniform(0.2, 0.45))
    if look.board == "glossy":
        out["sheen"] = float(rng_light.uniform(0.3, 0.8))
    if look.board == "folding":
        out["crease"] = True
    return out


def cast_shadow(img: np.ndarray, strength: float, seed: int) -> np.ndarray:
    """``img`` with a shadow cast on it by someone out of the picture: a person's head and
    shoulders (very soft), or an arm's band from an edge of the frame (soft or hard).
    A shadow only darkens the light: it multiplies the picture."""
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    m = np.zeros((h, w), np.uint8)
    if rng.random() < 0.5:
        bx = int(rng.uniform(0.1, 0.9) * w)
        by = int(h + 0.05 * h) if rng.random() < 0.5 else int(-0.05 * h)
        cv2.ellipse(m, (bx, by), (int(rng.uniform(0.25, 0.4) * w), int(rng.uniform(0.3, 0.5) * h)),
                    0, 0, 360, 255, -1)
        sigma = float(rng.uniform(15, 45))
    else:
        side = int(rng.integers(4))
        p0 = {0: (rng.uniform(0, w), -40), 1: (w + 40, rng.uniform(0, h)),
              2: (rng.uniform(0, w), h + 40), 3: (-40, rng.uniform(0, h))}[side]
        p1 = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h)
        cv2.line(m, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255,
                 int(rng.uniform(0.06, 0.14) * min(w, h)))
        sigma = float(rng.choice([1.5, 4.0, 10.0, 20.0]))     # hard to soft
    sm = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), sigma)
    return np.clip(img.astype(np.float32) * (1.0 - strength * sm)[..., None], 0, 255).astype(np.uint8)


LOOK_FIELDS = tuple(f.name for f in fields(Look))
