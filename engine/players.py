"""Computer players for the board editions: random, and greedy (one-move lookahead).

A player is an object with ``choose(game) -> Move`` that sees only what its seat may
see: the board, the discard piles and its own hand (``game.hands[game.current]``).
Each carries its own seeded ``random.Random``; the engine's purity is kept by passing it in.
"""

from __future__ import annotations

import random

from .board import EMPTY, FREE
from .game import Game
from .moves import Move


class RandomPlayer:
    """Plays a random legal card on a random legal space; trades a dead card when it holds one."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(0)

    def choose(self, game: Game) -> Move:
        rng = self.rng
        hand = game.hands[game.current]
        if not game.dead_traded:
            for card in hand:
                if game.is_dead(card):
                    return Move("dead", card)
        order = list(range(len(hand)))
        rng.shuffle(order)
        cells = game.board.cells
        size = len(cells)
        for idx in order:
            card = hand[idx]
            if card in game._wild:
                for _ in range(24):
                    s = rng.randrange(size)
                    if cells[s] == EMPTY:
                        return Move("place", card, s)
                empty = [i for i, c in enumerate(cells) if c == EMPTY]
                if empty:
                    return Move("place", card, rng.choice(empty))
            elif card in game._remove:
                targets = game.targets(card)
                if targets:
                    return Move("remove", card, rng.choice(targets))
            else:
                spaces = [s for s in game._spaces_of.get(card, ()) if cells[s] == EMPTY]
                if spaces:
                    return Move("place", card, spaces[0] if len(spaces) == 1 else rng.choice(spaces))
        return Move("pass")


class GreedyPlayer:
    """Scores every legal move one ply deep and plays the best.

    A placement is worth what it builds (open windows of the sequence length through the
    space, weighted steeply by how full they are), what it blocks (the same for each
    opposing team), and above all the sequences it completes. Wild and removing cards are
    kept for when they are clearly better than a plain card.
    """

    name = "greedy"
    BUILD = (1.0, 4.0, 20.0, 120.0, 1000.0, 1000.0)
    BLOCK = (0.5, 3.0, 15.0, 400.0, 2000.0, 2000.0)
    WILD_COST = 60.0
    REMOVE_COST = 80.0

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

    def ranked(self, game: Game) -> list[tuple[float, Move]]:
        """Every placement and removal with its score, best first."""
        team = game.team
        out: list[tuple[float, Move]] = []
        seen: set[str] = set()
        wild_targets: list[tuple[float, int]] | None = None
        for card in game.hands[game.current]:
            if card in seen:
                continue
            seen.add(card)
            if card in game._wild:
                if wild_targets is None:
                    wild_targets = [(self.place_score(game, s, team), s)
                                    for s in game.targets(card, team)]
                out.extend((sc - self.WILD_COST, Move("place", card, s)) for sc, s in wild_targets)
            elif card in game._remove:
                out.extend((self.remove_score(game, s, team) - self.REMOVE_COST,
                            Move("remove", card, s)) for s in game.targets(card, team))
            else:
                out.extend((self.place_score(game, s, team), Move("place", card, s))
                           for s in game.targets(card, team))
        out.sort(key=lambda x: -x[0])
        return out

    def windows(self, game: Game, s: int):
        """Yield the cell lists of every window of sequence length through ``s``."""
        k = game.board.k
        for fwd, back in game.board._steps:
            line = [s]
            j = back[s]
            while j != -1 and len(line) < k:
                line.insert(0, j)
                j = back[j]
            pos = len(line) - 1
            j = fwd[s]
            while j != -1 and len(line) - pos - 1 < k - 1:
                line.append(j)
                j = fwd[j]
            for start in range(0, len(line) - k + 1):
                yield line[start:start + k]

    def place_score(self, game: Game, s: int, team: int) -> float:
        cells = game.board.cells
        own = team + 1
        score = 0.0
        for w in self.windows(game, s):
            counts: dict[int, int] = {}
            for c in w:
                v = cells[c]
                if v != EMPTY and v != FREE:
                    counts[v] = counts.get(v, 0) + 1
            free = sum(1 for c in w if cells[c] == FREE)
            if not counts or list(counts) == [own]:
                score += self.BUILD[counts.get(own, 0) + free]
            if len(counts) == 1 and own not in counts:
                score += self.BLOCK[next(iter(counts.values())) + free]
        gained = game.board._delta(s, own)
        if gained:
            score += 10000.0 * gained
            if game.board.counts[team] + gained >= game.to_win:
                score += 1e6
        return score

    def remove_score(self, game: Game, s: int, team: int) -> float:
        cells = game.board.cells
        victim = cells[s]
        score = 0.0
        for w in self.windows(game, s):
            vals = [cells[c] for c in w if cells[c] not in (EMPTY, FREE)]
            if vals and all(v == victim for v in vals):
                score += self.BLOCK[min(len(vals) + sum(1 for c in w if cells[c] == FREE), 5)]
        return score


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer}
#: The search levels (engine.search), weakest first.
LEVEL_NAMES = ("easy", "medium", "hard")
KINDS = tuple(PLAYERS) + LEVEL_NAMES


def make_player(kind: str, rng: random.Random | None = None, *, budget: float | None = None,
                clock=None):
    """A player by name: ``random``, ``greedy`` or a search level (``easy``, ``medium``,
    ``hard``; ``budget`` seconds a move, used with a ``clock`` such as time.monotonic)."""
    if kind in LEVEL_NAMES:
        from .search import SearchPlayer
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
