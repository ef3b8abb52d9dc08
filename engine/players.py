"""Computer players for the board editions: random, and greedy (one-move lookahead).

A player is an object with ``choose(game) -> Move`` that sees only what its seat may
see: the board, the discard piles and its own hand (``game.hands[game.current]``).
Each carries its own seeded ``random.Random``; the engine's purity is kept by passing it in.
"""

from __future__ import annotations

import random

from .board import EMPTY
from .game import Game
from .moves import Move
from .search import SearchPlayer, geometry, ranked_moves


class RandomPlayer:
    """Plays a random legal card on a random legal space; trades a dead card when it holds one."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(0)

    def choose(self, game: Game) -> Move:
        rng = self.rng
        hand = game.hands[game.current]
        cells = game.board.cells
        spaces_of = game._spaces_of
        table = game._moves
        if not game.dead_traded:
            for card in hand:
                sp = spaces_of.get(card)
                if sp:
                    for s in sp:
                        if cells[s] == EMPTY:
                            break
                    else:
                        return table.dead_move(card)
        order = list(range(len(hand)))
        rng.shuffle(order)
        size = len(cells)
        for idx in order:
            card = hand[idx]
            if card in game._wild:
                for _ in range(24):
                    s = rng.randrange(size)
                    if cells[s] == EMPTY:
                        return table.wild[card][s]
                empty = [i for i, c in enumerate(cells) if c == EMPTY]
                if empty:
                    return table.wild[card][rng.choice(empty)]
            elif card in game._remove:
                targets = game.removable()
                if targets:
                    return table.remove[card][rng.choice(targets)]
            else:
                moves = [m for s, m in table.place.get(card, ()) if cells[s] == EMPTY]
                if moves:
                    return moves[0] if len(moves) == 1 else rng.choice(moves)
        return table.pass_


class GreedyPlayer:
    """Scores every legal move one ply deep and plays the best.

    A placement is worth what it builds (open windows of the sequence length through the
    space, weighted steeply by how full they are), what it blocks (the same for each
    opposing team), and above all the sequences it completes. Wild and removing cards are
    kept for when they are clearly better than a plain card.
    """

    name = "greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(0)

    def choose(self, game: Game) -> Move:
        hand = game.hands[game.current]
        if not game.dead_traded:
            for card in hand:
                if game.is_dead(card):
                    return Move("dead", card)
        scored = self.ranked(game)
        if not scored:
            return Move("pass")
        best = scored[0][0]
        top = [m for s, m in scored if s >= best - 1e-9]
        return top[0] if len(top) == 1 else self.rng.choice(top)

    @staticmethod
    def ranked(game: Game) -> list[tuple[float, Move]]:
        """Every placement and removal with its score, best first (the weights and the
        windows are :mod:`engine.search`'s rules of thumb)."""
        return ranked_moves(game, geometry(game))


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer}
#: The search levels (engine.search), weakest first.
LEVEL_NAMES = ("easy", "medium", "hard")
KINDS = tuple(PLAYERS) + LEVEL_NAMES


def make_player(kind: str, rng: random.Random | None = None, *, budget: float | None = None,
                clock=None):
    """A player by name: ``random``, ``greedy`` or a search level (``easy``, ``medium``,
    ``hard``; ``budget`` seconds a move, used with a ``clock`` such as time.monotonic)."""
    if kind in LEVEL_NAMES:
        return SearchPlayer(kind, rng or random.Random(0), budget=budget, clock=clock)
    try:
        return PLAYERS[kind](rng)
    except KeyError:
        raise ValueError(f"unknown player {kind!r} (known: {', '.join(KINDS)})") from None


def play_game(game: Game, players: list, max_turns: int = 2000) -> Game:
    """Let ``players[p]`` move for seat ``p`` until the game ends (or ``max_turns`` moves)."""
    while not game.over and len(game.history) < max_turns:
        game.push(players[game.current].choose(game))
    return game
