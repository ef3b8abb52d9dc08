"""Jewish Edition cards in the card world: a look's board and a pile of its cards.

A :class:`JewishTable` is one printing in one look (:func:`vision.looks.draw_look`): the
empty board filmed as the calibrated camera sees it (:func:`vision.synth.render` in the
look), the references the reader keeps from it (:func:`vision.cards.jewish.board_references`,
and one ADD and one REMOVE card laid on the table at set-up), and pile scenes of its cards
(:meth:`JewishTable.pile`): the same tables, hands, lights and camera as the playing cards'
piles (:mod:`vision.cards.scene`, its held-out scene families). Tuned and held-out looks are
kept apart as for the standard cards: ``split="heldout"`` draws a held-out art family
(the board's and the cards' printing) and each other dimension held out half the time.
"""

from __future__ import annotations

import functools

import numpy as np

from engine.editions import jewish_pictures
from engine.game import builtin_layout
from vision.looks import art_style, draw_look, look_conditions

from .jewish import ADD, REMOVE, JewishReferences, board_references, jewish_card_image
from .reader import find_new_card, straighten
from .scene import (SCENE_FAMILIES, PileScene, _pick, _place, camera, hand_by_pile,
                    table_with_pile)

CODES = tuple(jewish_pictures()) + (ADD, REMOVE)


@functools.lru_cache(maxsize=1)
def jewish_layout():
    return builtin_layout("jewish")


class JewishTable:
    """One look's Jewish board, the references kept from it, and its cards' pile scenes."""

    def __init__(self, rng: np.random.Generator, split: str = "tuned", look=None) -> None:
        self.split = split
        self.look = look or draw_look(rng, "heldout" if split == "heldout" else "tuned")
        self.style = art_style(self.look)
        self.held = split == "heldout"
        self._cards: dict = {}
        self.refs = self._references(rng)

    def card(self, code: str) -> np.ndarray:
        if code not in self._cards:
            self._cards[code] = jewish_card_image(code, self.style, 240)
        return self._cards[code]

    def _references(self, rng) -> JewishReferences:
        from vision.synth import render
        from engine.observation import Observation
        lay = jewish_layout()
        cond = look_conditions(self.look)
        # the empty board as the camera sees it, warped flat by the grid (the renderer's
        # own grid stands for the calibration's)
        r = render(lay, Observation.empty(lay.rows, lay.cols), cond,
                   seed=int(rng.integers(1 << 30)), look=self.look)
        words = JewishReferences([], [])
        for code in (ADD, REMOVE):                 # each laid on the table at set-up
            sc = self.pile(rng, code, hand="none", below=False)
            quad = find_new_card(sc.after, sc.before, sc.card_px)
            if quad is None:
                continue
            try:
                words = words.with_word(code, straighten(sc.after, quad))
            except ValueError:
                continue
        return board_references(r.image, r.grid_corners, lay, words)

    def pile(self, rng: np.random.Generator, code: str | None = None, size: int = 448,
             hand: str | None = None, hand_over: bool | None = None,
             below: bool = True) -> PileScene:
        """A pile of this printing's cards with ``code`` (at random when None) laid on top,
        before and after, in the card world's tables, hands and lights."""
        fams = {d: _pick(rng, f, self.held) for d, f in SCENE_FAMILIES.items()}
        if hand is not None:
            fams["hand"] = hand
        code = code or CODES[int(rng.integers(len(CODES)))]
        if below:
            canvas, centre, long_px, shadow = table_with_pile(rng, size, fams["table"], CODES,
                                                              self.card)
        else:
            canvas, centre, long_px, shadow = _bare_table(rng, size, fams["table"])
        before = canvas.copy()
        quad = _place(canvas, self.card(code), centre + rng.uniform(-0.35, 0.35, 2) * long_px,
                      float(rng.uniform(0, 360)), long_px, shadow)
        after, over, in_view, hmask = hand_by_pile(rng, fams["hand"], canvas, quad, hand_over)
        b, a = camera(rng, fams["light"], [before, after])
        return PileScene(b, a, code, quad, None, {**fams, "card": self.look.art}, over,
                         long_px, in_view, hmask)


def _bare_table(rng, size: int, table: str):
    """A table with no card on it yet (a card laid at set-up)."""
    from vision.looks import Look, table_image
    long_px = float(rng.uniform(0.32, 0.45) * size)
    look = Look(table=table, seed=int(rng.integers(1 << 30)))
    canvas = table_image(look, size, size, rng).astype(np.float32)
    centre = np.float32([size / 2, size / 2]) + rng.uniform(-0.08, 0.08, 2) * size
    return canvas, centre, long_px, float(rng.uniform(0, 1))
