"""Small builders for concrete positions in engine tests."""

import random

from engine.board import EMPTY
from engine.editions import Options
from engine.game import Game
from engine.layout import parse_space
from engine.moves import Move


def sp(name: str, cols: int = 10) -> int:
    return parse_space(name, 10 if cols == 10 else 7, cols)


def game_with(chips: dict[str, int], edition: str = "classic", n_players: int = 2,
              hand: list[str] | None = None, options: Options | None = None, **kw) -> Game:
    """A game whose board holds ``chips`` ({"c4": team}) and whose mover holds ``hand``."""
    g = Game(edition, n_players, options=options, rng=random.Random(1), **kw)
    cols = g.layout.cols
    for name, team in chips.items():
        g.board.place(parse_space(name, g.layout.rows, cols), team)
    if hand is not None:
        pool = g.deck + [c for h in g.hands for c in h]
        for c in hand:
            pool.remove(c)
        g.hands[g.current] = list(hand)
        others = [p for p in range(n_players) if p != g.current]
        size = g.edition.hand_size(n_players)
        for p in others:
            g.hands[p] = [pool.pop() for _ in range(size)]
        g.deck = pool
    return g


def place(g: Game, card: str, name: str) -> int:
    return g.push(Move("place", card, g.layout.parse_space(name)))


def cells_empty(g: Game) -> list[int]:
    return [i for i, c in enumerate(g.board.cells) if c == EMPTY]
