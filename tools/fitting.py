"""Fit the search players' evaluation: ``python -m tools.fitting``.

Plays seeded games of the board editions with the rules-of-thumb policy (now and then
one of its next-best moves, so that the positions are varied), records the features of
the position each move leaves (as the mover sees it: its own hand, the other hands by
their chances, see :mod:`engine.search`) and whether the mover's team went on to win,
and fits a logistic regression to it. The weights are written to
``engine/data/search-weights.json``; the evaluation is then the log-odds of winning.

Example::

    python -m tools.fitting --games 3000 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from multiprocessing import Pool
from pathlib import Path

import engine
from engine.game import Game
from engine.search import (
    WEIGHT_NAMES,
    features_after,
    geometry,
    policy_move,
    ranked_moves,
    shown_lacks,
)

OUT = Path(engine.__file__).resolve().parent / "data" / "search-weights.json"
#: (edition, players) mixed into the data, with their share of the games
SETUPS = (("classic", 2, 6), ("classic", 3, 1), ("classic", 4, 1), ("travel", 2, 1),
          ("jewish", 2, 1))


POLICY = {"kind": "rules"}


def game_rows(seed: int) -> list[tuple[list[float], float]]:
    rng = random.Random(seed)
    searcher = None
    if POLICY["kind"] == "search":
        from engine.search import SearchPlayer
        searcher = SearchPlayer("medium", seed, deals=0)
    pool = [(e, n) for e, n, share in SETUPS for _ in range(share)]
    edition, n = pool[seed % len(pool)]
    game = Game(edition, n, rng=random.Random(seed))
    geo = geometry(game)
    rows: list[tuple[list[float], int]] = []
    while not game.over and game.turn < 600:
        me = game.current
        if searcher is not None:
            hints = searcher.analyse(game)
            move = hints[0].move
            if len(hints) > 1 and rng.random() < 0.25:
                move = rng.choice(hints[:4]).move
        else:
            move = policy_move(game, geo)
            if move.action in ("place", "remove") and rng.random() < 0.3:
                top = [m for _, m in ranked_moves(game, geo)[:4]]
                move = rng.choice(top)
        if move.action in ("place", "remove"):
            [(after, x)] = features_after(game, geo, [move], shown_lacks(game, me))
            if not after.over:
                rows.append((x, game.team))
        game.push(move)
    return [(x, 0.5 if game.winner is None else float(game.winner == t)) for x, t in rows]


def fit(X, y, l2: float = 1.0, steps: int = 30):
    """Logistic regression by Newton's method (numpy), with a small L2 penalty."""
    import numpy as np
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Xb = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(Xb.shape[1])
    reg = l2 * np.eye(Xb.shape[1])
    reg[-1, -1] = 0.0
    for _ in range(steps):
        z = Xb @ w
        pr = 1.0 / (1.0 + np.exp(-z))
        g = Xb.T @ (pr - y) + reg @ w
        H = (Xb * (pr * (1 - pr))[:, None]).T @ Xb + reg
        step = np.linalg.solve(H, g)
        w -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    pr = 1.0 / (1.0 + np.exp(-(Xb @ w)))
    loss = -np.mean(y * np.log(pr + 1e-12) + (1 - y) * np.log(1 - pr + 1e-12))
    return w, loss


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.fitting", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3000, help="games to play (default 3000)")
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT})")
    ap.add_argument("--policy", choices=("rules", "search"), default="rules",
                    help="who plays the games: the rules of thumb, or the one-ply search "
                         "with the current weights (one round of policy iteration)")
    ap.add_argument("--start", type=Path,
                    help="the weights the one-ply search plays with (default the shipped ones)")
    args = ap.parse_args(argv)
    POLICY["kind"] = args.policy
    if args.start is not None:
        import engine.search
        try:
            engine.search.WEIGHTS[:] = engine.search.weights_from(args.start.read_text("utf-8"))
        except (OSError, ValueError, KeyError) as exc:
            ap.error(f"{args.start}: not a weights file ({exc})")
    rows = []
    seeds = range(args.seed, args.seed + args.games)
    with Pool(args.jobs) as pool:
        for i, r in enumerate(pool.imap_unordered(game_rows, seeds, chunksize=8), 1):
            rows.extend(r)
            if i % 100 == 0 or i == args.games:
                print(f"\r{i}/{args.games} games, {len(rows)} positions", end="", file=sys.stderr,
                      flush=True)
    print(file=sys.stderr)
    w, loss = fit([x for x, _ in rows], [y for _, y in rows])
    data = {"about": "log-odds of winning for the team that just moved; fitted by "
                     "python -m tools.fitting", "games": args.games, "positions": len(rows),
            "log_loss": round(float(loss), 5),
            "weights": {n: round(float(v), 6) for n, v in zip(WEIGHT_NAMES, w[:-1])},
            "bias": round(float(w[-1]), 6)}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"fitted on {len(rows)} positions, log loss {loss:.4f}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
