"""Computer players' strength and speed: seeded two-player tournaments against greedy.

Each pairing plays ``--games`` games, the search player in the first seat in even games
and in the second in odd ones (seats swapped), on seeded decks. A drawn game counts as
not won. Time per move is the wall time of ``choose`` in a process of its own (one core
each with ``--jobs`` up to the cores), with the level's own time cap (``time.monotonic``
passed in, as the app does).

    python benchmarks/players.py                 # 200 games a pairing, human-readable
    python benchmarks/players.py --json          # {"hard_vs_greedy_win_rate": ...,
                                                 #  "medium_vs_greedy_win_rate": ...,
                                                 #  "hard_ms_per_move_median": ...,
                                                 #  "stacks_hard_vs_greedy_win_rate": ...}
    python benchmarks/players.py --games 20 --only medium   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.game import Game  # noqa: E402
from engine.players import GreedyPlayer  # noqa: E402
from engine.search import SearchPlayer  # noqa: E402
from engine.stacks.game import StacksGame  # noqa: E402
from engine.stacks.players import GreedyStacksPlayer, play_stacks_game  # noqa: E402
from engine.stacks.search import StacksSearchPlayer  # noqa: E402

SEED = 70_000


class Timed:
    """Wraps a player and keeps the wall time of each of its decisions."""

    def __init__(self, player) -> None:
        self.player = player
        self.times: list[float] = []

    def choose(self, game):
        t = time.perf_counter()
        move = self.player.choose(game)
        self.times.append(time.perf_counter() - t)
        return move

    def block(self, game, me):
        return self.player.block(game, me)


def board_game(args: tuple[str, int]) -> tuple[bool, list[float]]:
    level, n = args
    seed = SEED + n
    seat = n % 2
    me = Timed(SearchPlayer(level, seed, clock=time.monotonic))
    players = [GreedyPlayer(random.Random(seed * 3 + 1)), GreedyPlayer(random.Random(seed * 3 + 2))]
    players[seat] = me
    g = Game("classic", 2, rng=random.Random(seed))
    while not g.over and len(g.history) < 2000:
        g.push(players[g.current].choose(g))
    return g.winner == seat, me.times


def stacks_game(args: tuple[str, int]) -> tuple[bool, list[float]]:
    level, n = args
    seed = SEED + n
    seat = n % 2
    me = Timed(StacksSearchPlayer(level, seed, clock=time.monotonic))
    players = [GreedyStacksPlayer(random.Random(seed * 3 + 1)),
               GreedyStacksPlayer(random.Random(seed * 3 + 2))]
    players[seat] = me
    g = StacksGame(2, rng=random.Random(seed))
    play_stacks_game(g, players)
    return g.winner == seat, me.times


def tournament(name: str, fn, level: str, games: int, jobs: int) -> tuple[float, float]:
    wins = 0
    times: list[float] = []
    work = [(level, n) for n in range(games)]
    with Pool(jobs) as pool:
        for i, (won, t) in enumerate(pool.imap_unordered(fn, work), 1):
            wins += won
            times += t
            print(f"\r{name}: {i}/{games} games, won {wins}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return wins / games, 1000 * statistics.median(times) if times else 0.0


PAIRINGS = {
    "hard": ("hard_vs_greedy", board_game, "hard", "hard_ms_per_move_median"),
    "medium": ("medium_vs_greedy", board_game, "medium", "medium_ms_per_move_median"),
    "easy": ("easy_vs_greedy", board_game, "easy", "easy_ms_per_move_median"),
    "stacks": ("stacks_hard_vs_greedy", stacks_game, "hard", "stacks_hard_ms_per_decision_median"),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games a pairing (default 200)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="processes, one core each (default: 2 or the cores there are)")
    ap.add_argument("--only", action="append", choices=sorted(PAIRINGS),
                    help="play only this pairing (repeatable; default all)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    figures: dict[str, float] = {"games_per_pairing": args.games}
    for key in args.only or ["hard", "medium", "easy", "stacks"]:
        name, fn, level, time_key = PAIRINGS[key]
        rate, ms = tournament(name, fn, level, args.games, args.jobs)
        figures[f"{name}_win_rate"] = round(rate, 3)
        figures[time_key] = round(ms, 1)
    if args.json:
        print(json.dumps(figures))
    else:
        for k, v in figures.items():
            print(f"{k:40s} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
