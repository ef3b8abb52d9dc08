"""Engine speed: random full games per second (2-player classic, one core) and the cost of
the incremental sequence check after a placement.

    python benchmarks/engine.py            # human-readable
    python benchmarks/engine.py --json     # {"classic_random_games_per_s": ...,
                                           #  "classic_legal_moves_games_per_s": ...,
                                           #  "sequence_check_us": ...,
                                           #  "greedy_vs_random_win_rate": ...,
                                           #  "stacks_random_games_per_s": ...}

``classic_random_games_per_s``: games between the random players (engine/players.py), which
look at one card at a time. ``classic_legal_moves_games_per_s``: games whose every move is
picked uniformly from ``Game.legal_moves()`` and played with ``Game.push`` (which checks
it), as players that look at every move do. Floors (issue 20): 900 and 800 on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.board import EMPTY  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.players import GreedyPlayer, RandomPlayer, play_game  # noqa: E402


def random_games_per_s(seconds: float, edition: str = "classic") -> tuple[float, float]:
    n = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        g = Game(edition, 2, rng=random.Random(n))
        play_game(g, [RandomPlayer(random.Random(2 * n)), RandomPlayer(random.Random(2 * n + 1))])
        n += 1
        turns += len(g.history)
    return n / (time.perf_counter() - start), turns / max(n, 1)


def legal_moves_games_per_s(seconds: float, edition: str = "classic") -> tuple[float, float]:
    """Full 2-player games, every move drawn uniformly from Game.legal_moves()."""
    n = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        g = Game(edition, 2, rng=random.Random(n))
        pick = random.Random(n + 1_000_003).choice
        while not g.over and len(g.history) < 2000:
            g.push(pick(g.legal_moves()))
        n += 1
        turns += len(g.history)
    return n / (time.perf_counter() - start), turns / max(n, 1)


def greedy_vs_random(games: int = 100) -> float:
    """Share of 2-player classic games the greedy player wins against the random one,
    seats swapped every other game (a drawn game counts as not won)."""
    wins = 0
    for n in range(games):
        g = Game("classic", 2, rng=random.Random(10_000 + n))
        greedy_seat = n % 2
        players = [RandomPlayer(random.Random(3 * n)), RandomPlayer(random.Random(3 * n + 1))]
        players[greedy_seat] = GreedyPlayer(random.Random(3 * n + 2))
        play_game(g, players)
        wins += g.winner == greedy_seat
    return wins / games


def sequence_check_us(samples: int = 200_000) -> float:
    """Mean time of Board.gain (which sequences a chip would complete) on mid-game boards."""
    rng = random.Random(1)
    boards = []
    for k in range(50):
        g = Game("classic", 2, rng=random.Random(k))
        for _ in range(40):
            i = rng.randrange(100)
            if g.board.cells[i] == EMPTY:
                g.board.place(i, rng.randrange(2))
        boards.append(g.board)
    picks = []
    for _ in range(samples):
        b = rng.choice(boards)
        empty = [i for i, c in enumerate(b.cells) if c == EMPTY]
        picks.append((b, rng.choice(empty), rng.randrange(2)))
    # time the check of what a chip would complete, minus the cost of the loop
    start = time.perf_counter()
    for b, i, t in picks:
        d = b.gain(i, t)
    total = time.perf_counter() - start
    start = time.perf_counter()
    for b, i, t in picks:
        d = t + 1  # noqa: F841
    base = time.perf_counter() - start
    return (total - base) / samples * 1e6


def stacks_random_games_per_s(seconds: float) -> float:
    """Full 2-player SEQUENCE STACKS games between random players, per second."""
    from engine.stacks import RandomStacksPlayer, StacksGame, play_stacks_game
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        g = StacksGame(2, rng=random.Random(n))
        play_stacks_game(g, [RandomStacksPlayer(random.Random(2 * n)),
                             RandomStacksPlayer(random.Random(2 * n + 1))])
        n += 1
    return n / (time.perf_counter() - start)


def stacks_greedy_vs_random(games: int) -> float:
    """Share of 2-player STACKS games the greedy player wins against random, seats swapped."""
    from engine.stacks import GreedyStacksPlayer, RandomStacksPlayer, StacksGame, play_stacks_game
    won = 0
    for k in range(games):
        g = StacksGame(2, rng=random.Random(10_000 + k), first=(k // 2) % 2)
        players = [GreedyStacksPlayer(random.Random(k)), RandomStacksPlayer(random.Random(k + 1))]
        if k % 2:
            players.reverse()
        play_stacks_game(g, players)
        won += g.winner == (k % 2)
    return won / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="how long to play random games")
    ap.add_argument("--json", action="store_true", help="print one flat JSON object")
    args = ap.parse_args()
    print("playing random 2-player classic games ...", file=sys.stderr)
    gps, turns = random_games_per_s(args.seconds)
    print("playing 2-player classic games of uniformly drawn legal moves ...", file=sys.stderr)
    lgps, lturns = legal_moves_games_per_s(args.seconds)
    print("timing the sequence check ...", file=sys.stderr)
    us = sequence_check_us()
    print("greedy against random, 100 games ...", file=sys.stderr)
    gvr = greedy_vs_random(100)
    out = {"classic_random_games_per_s": round(gps, 1), "classic_turns_per_game": round(turns, 1),
           "classic_legal_moves_games_per_s": round(lgps, 1),
           "classic_legal_moves_turns_per_game": round(lturns, 1),
           "sequence_check_us": round(us, 3), "greedy_vs_random_win_rate": round(gvr, 3)}
    print("playing random 2-player STACKS games ...", file=sys.stderr)
    out["stacks_random_games_per_s"] = round(stacks_random_games_per_s(args.seconds), 1)
    print("STACKS greedy against random, 200 games ...", file=sys.stderr)
    out["stacks_greedy_vs_random_win_rate"] = round(stacks_greedy_vs_random(200), 3)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:32s} {v}")


if __name__ == "__main__":
    main()
