"""SEQUENCE STACKS card reading on the HELD-OUT STACKS style (issue 24).

    python benchmarks/stacks_cards.py --json              # 400 card views
    python benchmarks/stacks_cards.py --json --quick      # 40 views, for CI
    python benchmarks/stacks_cards.py --split tuned       # the tuned styles (for tuning)

Each view is a STACKS pile rendered by vision.cards.stacks_scene (one to four cards below,
the new card partly on them at any angle, a hand near in some, partly over the card in
some; tables, lights and hands of the playing-card world, their held-out families half the
time), read by vision.cards.stacks_reader.read_stacks_pile from the frames before and
after. With --json, one flat JSON object: stacks_card_accuracy (right / views),
stacks_card_wrong_rate (named wrong / views), stacks_card_unknown_rate, stacks_card_ms (per
new card, one core), stacks_clear_card_accuracy (no hand over the card),
stacks_colour_wrong (named with the wrong colour), stacks_card_views.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.cards.stacks_reader import prototypes, read_stacks_pile  # noqa: E402
from vision.cards.stacks_scene import render_stacks_pile  # noqa: E402


def run(views: int, seed: int, split: str, progress: bool = True, verbose: bool = False,
        scale: float = 1.0) -> dict:
    cv2.setNumThreads(1)
    prototypes()                                   # built once, not counted per card
    rng = np.random.default_rng(seed)
    right = wrong = colour_wrong = 0
    clear = clear_right = 0
    ms = []
    for k in range(views):
        sc = render_stacks_pile(rng, split)
        before, after, px = sc.before, sc.after, sc.card_px
        if scale != 1.0:                           # a smaller camera picture
            size = (int(before.shape[1] * scale), int(before.shape[0] * scale))
            before, after = (cv2.resize(im, size, interpolation=cv2.INTER_AREA)
                             for im in (before, after))
            px *= scale
        t = time.perf_counter()
        r = read_stacks_pile(after, before, px)
        ms.append((time.perf_counter() - t) * 1000)
        ok = r.code == sc.code
        right += ok
        if r.code is not None and not ok:
            wrong += 1
            colour_wrong += r.code[0] != sc.code[0]
            if verbose:
                print(f"  WRONG {sc.code} read {r.code} ({sc.families})", file=sys.stderr)
        elif verbose and r.code is None:
            print(f"  unknown {sc.code}: {r.reason}", file=sys.stderr)
        if not sc.hand_over_card:
            clear += 1
            clear_right += ok
        if progress and (k + 1) % 20 == 0:
            print(f"  {k + 1}/{views} views, {right} right, {wrong} wrong", file=sys.stderr,
                  flush=True)
    return {
        "stacks_card_views": views,
        "stacks_card_split": split,
        "stacks_card_scale": scale,
        "stacks_card_accuracy": round(right / views, 4),
        "stacks_card_wrong_rate": round(wrong / views, 4),
        "stacks_card_unknown_rate": round((views - right - wrong) / views, 4),
        "stacks_clear_card_accuracy": round(clear_right / max(clear, 1), 4),
        "stacks_colour_wrong": colour_wrong,
        "stacks_card_ms": round(float(np.median(ms)), 1),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="SEQUENCE STACKS card reading figures on the held-out STACKS card style.",
        epilog="example: python benchmarks/stacks_cards.py --json --views 400")
    ap.add_argument("--views", type=int, default=400, help="card views (default 400)")
    ap.add_argument("--quick", action="store_true", help="40 views (CI)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--split", choices=("heldout", "tuned"), default="heldout")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="shrink the pictures (0.25: cards 36 to 50 pixels long, as a 1280 "
                         "stream gives them; default 1: 143 to 200 pixels)")
    ap.add_argument("--json", action="store_true", help="one flat JSON object")
    ap.add_argument("--verbose", action="store_true", help="each wrong or unknown card")
    a = ap.parse_args(argv)
    views = 40 if a.quick else a.views
    if views < 1:
        print("--views: at least 1", file=sys.stderr)
        return 2
    if not 0.05 <= a.scale <= 1.0:
        print("--scale: from 0.05 to 1", file=sys.stderr)
        return 2
    res = run(views, a.seed, a.split, progress=not a.json or sys.stderr.isatty(),
              verbose=a.verbose, scale=a.scale)
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
