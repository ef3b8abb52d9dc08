"""Tune the search players' evaluation for play: ``python -m tools.tuning``.

``python -m tools.fitting`` fits the weights to predict who wins; this tunes them for
what the player is for, winning. It runs simultaneous-perturbation stochastic
approximation (SPSA): each iteration nudges every weight up or down at random by a step
sized to how much its feature varies between the moves of one position, plays the
one-ply search (medium) with the weights nudged up and with them nudged down against the
greedy player on the same seeded games (two-player classic, seats swapped), and moves
the weights towards the side that won more. The seeds used are ``--seed`` onwards, apart
from the benchmark's (70000 onwards).

Example::

    python -m tools.tuning --iterations 41 --games 300 --seed 100000
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from multiprocessing import Pool
from pathlib import Path

from engine import search
from engine.game import Game
from engine.players import GreedyPlayer, play_game

from .fitting import OUT

#: the perturbation of a weight: a tenth of it (plus a little), and never more than
#: moves a typical spread of its feature between the moves of a position by this
SPREAD_STEP = 0.015
#: how far the weights move towards the better side, per point of win rate between them
GAIN = 4.0


def feature_spread(games: int = 20) -> list[float]:
    """For each feature, its mean spread (standard deviation) over the best 24 moves of a
    position, in greedy games (every third position)."""
    spreads: list[list[float]] = [[] for _ in search.WEIGHT_NAMES]
    for seed in range(games):
        g = Game("classic", 2, rng=random.Random(seed))
        players = [GreedyPlayer(random.Random(seed)), GreedyPlayer(random.Random(seed + 1))]
        geo = search.geometry(g)
        while not g.over and g.turn < 400:
            if g.turn % 3 == 0:
                moves = [m for _, m in search.ranked_moves(g, geo)[:24]]
                lacks = search.shown_lacks(g, g.current)
                rows = [x for _, x in search.features_after(g, geo, moves, lacks)]
                if len(rows) > 1:
                    for i, col in enumerate(zip(*rows)):
                        spreads[i].append(statistics.pstdev(col))
            g.push(players[g.current].choose(g))
    return [statistics.mean(s) for s in spreads]


def play(args: tuple[int, list[float]]) -> float:
    """One game of medium (with these weights) against greedy: 1 won, 0.5 drawn, 0 lost."""
    seed, weights = args
    search.WEIGHTS[:] = weights
    seat = seed % 2
    players = [GreedyPlayer(random.Random(seed * 3 + 1))] * 2
    players[seat] = search.SearchPlayer("medium", seed)
    g = play_game(Game("classic", 2, rng=random.Random(seed)), players, max_turns=400)
    return 0.5 if g.winner is None else float(g.winner == seat)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.tuning", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=41, help="iterations (default 41)")
    ap.add_argument("--games", type=int, default=300,
                    help="games on each side of an iteration (default 300)")
    ap.add_argument("--seed", type=int, default=100_000, help="first seed (default 100000)")
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--start", type=Path, default=OUT,
                    help=f"the weights to start from (default {OUT})")
    ap.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT})")
    args = ap.parse_args(argv)
    try:
        text = args.start.read_text("utf-8")
        data = json.loads(text)
        start = search.weights_from(text)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        ap.error(f"{args.start}: not a weights file ({exc})")
    theta, bias = start[:-1], start[-1]
    print("measuring how much each feature varies between moves", file=sys.stderr)
    spread = feature_spread()
    # a feature that never varies between the moves of a position cannot change a choice
    scale = [0.0 if s < 1e-3 else min(0.1 * abs(w) + 0.005, SPREAD_STEP / s)
             for w, s in zip(theta, spread)]
    rng = random.Random(12345)
    with Pool(args.jobs) as pool:
        for k in range(args.iterations):
            delta = [rng.choice((-1, 1)) for _ in theta]
            up = [w + c * d for w, c, d in zip(theta, scale, delta)] + [bias]
            down = [w - c * d for w, c, d in zip(theta, scale, delta)] + [bias]
            seeds = range(args.seed + k * args.games, args.seed + (k + 1) * args.games)
            f_up = sum(pool.map(play, [(s, up) for s in seeds], chunksize=5)) / args.games
            f_down = sum(pool.map(play, [(s, down) for s in seeds], chunksize=5)) / args.games
            theta = [w + GAIN * (f_up - f_down) * d * c for w, c, d in zip(theta, scale, delta)]
            print(f"iteration {k + 1}/{args.iterations}: won {f_up:.3f} nudged up, "
                  f"{f_down:.3f} down", file=sys.stderr, flush=True)
    data["about"] = ("log-odds of winning for the team that just moved; fitted by "
                     "python -m tools.fitting, then tuned for play by python -m tools.tuning")
    data["tuned"] = {"iterations": args.iterations, "games_per_side": args.games,
                     "first_seed": args.seed}
    data["weights"] = {n: round(w, 6) for n, w in zip(search.WEIGHT_NAMES, theta)}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"tuned over {args.iterations} iterations; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
