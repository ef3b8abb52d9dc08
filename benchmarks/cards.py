"""Card reading figures on HELD-OUT card styles (and scene families), issue 24.

    python benchmarks/cards.py --json           # 2,000 card views (a few minutes)
    python benchmarks/cards.py --json --quick   # 60 views, for CI
    python benchmarks/cards.py --split tuned    # the same on the tuned families (for tuning)

Each view is a discard pile rendered by vision.cards.scene (one to four cards below, the
new card partly on them at any angle, a hand near in some, partly over the card in some),
read by vision.cards.reader.read_pile from the frames before and after. Prints one flat
JSON object with --json: card_accuracy (right / views), card_wrong_rate (confident wrong /
views), card_unknown_rate, card_ms (per new card, one core), and the same over the views
where no hand covers the card (``clear_*``) and by card family.
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

from vision.cards.reader import read_pile  # noqa: E402
from vision.cards.scene import render_pile  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print one flat JSON object")
    p.add_argument("--quick", action="store_true", help="60 views instead of 2,000")
    p.add_argument("--views", type=int, help="how many card views (default 2000)")
    p.add_argument("--split", default="heldout", choices=["heldout", "tuned"],
                   help="held-out families (the figure that counts) or tuned ones")
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    n = args.views or (60 if args.quick else 2000)
    rng = np.random.default_rng(args.seed)
    right = wrong = unknown = 0
    clear = [0, 0, 0]
    fam: dict = {}
    covered = 0
    ms = 0.0
    examples = []
    for i in range(n):
        s = render_pile(rng, args.split)
        t0 = time.perf_counter()
        r = read_pile(s.after, s.before, s.card_px)
        ms += (time.perf_counter() - t0) * 1000
        k = 0 if r.code == s.code else (2 if r.code is None else 1)
        right += k == 0
        wrong += k == 1
        unknown += k == 2
        if k == 1 and len(examples) < 10:
            examples.append(f"{s.code} read {r.code} ({s.families})")
        covered += s.hand_over_card
        if not s.hand_over_card:
            clear[k] += 1
        f = fam.setdefault(s.style.family, [0, 0, 0])
        f[k] += 1
        if (i + 1) % 50 == 0 or i + 1 == n:
            print(f"\r{i + 1}/{n} views: {right} right, {wrong} wrong, {unknown} unknown",
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    nc = max(1, sum(clear))
    out = {
        "split": args.split, "card_views": n, "card_views_hand_over_card": covered,
        "card_accuracy": round(right / n, 4), "card_wrong_rate": round(wrong / n, 5),
        "card_unknown_rate": round(unknown / n, 4), "card_ms": round(ms / n, 1),
        "clear_card_accuracy": round(clear[0] / nc, 4),
        "clear_card_wrong_rate": round(clear[1] / nc, 5),
        "clear_card_unknown_rate": round(clear[2] / nc, 4),
    }
    for f, (a, b, c) in sorted(fam.items()):
        out[f"{f}_card_accuracy"] = round(a / max(1, a + b + c), 4)
        out[f"{f}_card_wrong_rate"] = round(b / max(1, a + b + c), 5)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:32s} {v}")
        for e in examples:
            print("wrong:", e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
