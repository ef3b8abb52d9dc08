"""A STACKS pile as the camera sees it: the frame before a card is laid and the frame after.

The same world as the playing-card piles (:mod:`vision.cards.scene`: its tables, hands,
lights and camera, its held-out scene families), with STACKS cards
(:mod:`vision.cards.stacks_art`). Used by ``benchmarks/stacks_cards.py`` and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.looks import SKIN, Look, table_image

from .scene import SCENE_FAMILIES, _hand, _pick, _place, camera, table_with_pile
from .stacks_art import CODES, StacksStyle, random_stacks_style, stacks_card_image, stacks_style

#: a STACKS table as the tests and the benchmark lay it out (camera pixels): four centre
#: pile places with the draw deck between them, the out-of-play pile, the discard piles
W, H, PX = 1100, 800, 150
PLACES = [(170, 400), (390, 400), (710, 400), (930, 400)]
OUT = (550, 150)
DISCARDS = [(350, 680), (750, 680), (950, 140)]


@dataclass
class StacksScene:
    before: np.ndarray
    after: np.ndarray
    code: str
    quad: np.ndarray
    style: StacksStyle
    families: dict
    hand_over_card: bool
    card_px: float


def render_stacks_pile(rng: np.random.Generator, split: str = "tuned", size: int = 448,
                       code: str | None = None, style: StacksStyle | None = None,
                       hand_over: bool | None = None) -> StacksScene:
    """One STACKS pile scene. ``split``: ``tuned`` or ``heldout`` (a held-out card style;
    each scene dimension held out half the time)."""
    held = split == "heldout"
    st = style or random_stacks_style(rng, "heldout" if held else "tuned")
    fams = {d: _pick(rng, f, held) for d, f in SCENE_FAMILIES.items()}
    code = code or CODES[int(rng.integers(len(CODES)))]
    canvas, centre, long_px, shadow = table_with_pile(
        rng, size, fams["table"], CODES, lambda c: stacks_card_image(c, st, 240))
    before = canvas.copy()
    quad = _place(canvas, stacks_card_image(code, st, 240),
                  centre + rng.uniform(-0.35, 0.35, 2) * long_px, float(rng.uniform(0, 360)),
                  long_px, shadow)
    after = canvas
    over = False
    if fams["hand"] != "none" and rng.random() < 0.7:
        over = bool(rng.random() < 0.4) if hand_over is None else hand_over
        m, col = _hand(rng, fams["hand"], size, size, quad, over)
        after = after * (1 - m[..., None]) + col * m[..., None]
    b, a = camera(rng, fams["light"], [before, after])
    return StacksScene(b, a, code, quad, st, {**fams, "card": st.family}, over, long_px)


class StacksTableScene:
    """A STACKS table drawn as the camera above it sees it: the cards on each spot, in the
    order laid, each a little off the one below (as people lay them)."""

    def __init__(self, seed=3, style=None):
        rng = np.random.default_rng(seed)
        self.rng = rng
        self.style = style or stacks_style("studio", seed)
        self.table = table_image(Look(table="wood", seed=seed), W, H, rng).astype(np.float32)
        back = np.dstack([np.full((240, 171, 3), (40, 40, 150), np.uint8),
                          np.full((240, 171), 255, np.uint8)])
        _place(self.table, back, (550, 400), 0, PX, 0.5)               # the draw deck
        self.cards: dict[tuple, list] = {}
        self.hand = None
        self._drawn = None                          # (the cards drawn, the canvas)

    def centre(self, key):
        kind, k = key
        return {"place": PLACES, "out": [OUT], "discard": DISCARDS}[kind][k]

    def lay(self, key, code, blank=False):
        n = len(self.cards.get(key, []))
        off = ((-1) ** n * 9 + self.rng.uniform(-4, 4), self.rng.uniform(-6, 6) + 4 * n)
        ang = float((-1) ** n * (6 + self.rng.uniform(0, 6)))
        self.cards.setdefault(key, []).append((code, off, ang, blank))

    def take(self, key, all_=False):
        if all_:
            self.cards.pop(key, None)
        else:
            self.cards[key].pop()

    def frame(self) -> np.ndarray:
        """The table now (the cards of each spot drawn in the order laid, an arm if any)."""
        laid = [(key, list(cards)) for key, cards in self.cards.items()]
        if self._drawn is None or self._drawn[0] != laid:   # drawn again only when changed
            canvas = self.table.copy()
            for key, cards in self.cards.items():
                cx, cy = self.centre(key)
                for code, off, ang, blank in cards[-6:]:      # those below are hidden
                    im = stacks_card_image(code, self.style, 240)
                    if blank:                           # a card with nothing to read on it
                        im[..., :3] = np.uint8(self.style.paper)
                    _place(canvas, im, (cx + off[0], cy + off[1]), ang, PX, 0.5)
            self._drawn = (laid, canvas)
        canvas = self._drawn[1].copy()
        if self.hand is not None:                   # an arm from the bottom edge
            x, y = self.hand
            cv2.line(canvas, (int(x) + 80, H + 60), (int(x), int(y)), SKIN[2], 70)
            cv2.circle(canvas, (int(x), int(y)), 40, SKIN[2], -1)
        return np.clip(canvas, 0, 255).astype(np.uint8)
