"""Jewish Edition card reading figures on HELD-OUT looks, issue 24.

    python benchmarks/jewish_cards.py --json            # 2,000 card views (a few minutes)
    python benchmarks/jewish_cards.py --json --quick    # 60 views, for CI
    python benchmarks/jewish_cards.py --split tuned     # the same on tuned looks (tuning)
    nice -n 10 python benchmarks/jewish_cards.py --json --jobs 2

Each look (``--per-look`` views each) is one printing: its Jewish board is filmed empty in
the look and the reader keeps the 50 board pictures from it, warped flat by the grid, with
one ADD and one REMOVE card laid on the table at set-up (vision.cards.jewish_scene). Then
each view is a discard pile of that printing's cards (one to four below, the new card
partly on them at any angle, a hand near in some, partly over the card in some), read by
vision.cards.jewish.read_jewish_pile from the frames before and after. ``--split heldout``
(the default) draws held-out art families (the board's and the cards' printing) and every
other dimension held out half the time; nothing was tuned on them. Its seed is 7331 (the
figure that counts from session seven on: no view of it was looked at while tuning; the
old seed 2024, whose figures steered one choice, is kept in docs/cards.md as history);
``--split tuned`` defaults to seed 11. Each look's references are kept over its views, as
over a game (what the reader learns as it reads, the pictures' quarter turns, carries on).

Prints one flat JSON object with --json: ``jewish_card_accuracy`` (right / views),
``jewish_card_wrong_rate`` (confident wrong / views), ``jewish_card_unknown_rate``,
``jewish_card_ms`` (processor time per new card, one process), the same over the views
where no hand covers the card (``jewish_clear_*``) and where one does
(``jewish_covered_*``), ``jewish_word_card_accuracy`` (ADD and REMOVE views),
``jewish_card_views`` and ``jewish_card_looks``. ``--dump FILE`` (for tuning on tuned looks)
writes one line per view instead: truth, reading, best, score, margin, covered, each
rectangle's (best, score, margin), art family; no figures.
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

from vision.cards.jewish import (WORDS, pile_quads, read_jewish_pile,  # noqa: E402
                                 read_jewish_straight)
from vision.cards.reader import straighten  # noqa: E402
from vision.cards.jewish_scene import JewishTable  # noqa: E402


#: the held-out seed whose figures count (session seven on); 2024 before it (history)
HELDOUT_SEED = 7331
TUNED_SEED = 11


def _look(task):
    """Every view of one look: [(truth, reading, best, score, margin, covered, ms)]."""
    seed, k, per_look, split, dump = task
    cv2.setNumThreads(1)
    rng = np.random.default_rng([seed, k])
    table = JewishTable(rng, split)
    out = []
    for _ in range(per_look):
        sc = table.pile(rng)
        t0 = time.process_time()
        r = read_jewish_pile(sc.after, sc.before, sc.card_px, table.refs)
        ms = (time.process_time() - t0) * 1000
        if dump:     # each rectangle's reading, for tuning the thresholds
            quads = pile_quads(sc.after, sc.before, sc.card_px)
            each = [read_jewish_straight(straighten(sc.after, q), table.refs) for q in quads]
            ms = [(e.best, round(float(e.score), 4), round(float(e.margin), 4)) for e in each]
        out.append((sc.code, r.code, r.best, round(float(r.score), 4), round(float(r.margin), 4),
                    bool(sc.hand_over_card), ms, table.look.art))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                epilog="example: python benchmarks/jewish_cards.py --json --jobs 2",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print one flat JSON object")
    p.add_argument("--quick", action="store_true", help="60 views instead of 2,000")
    p.add_argument("--views", type=int, help="how many card views (default 2000)")
    p.add_argument("--per-look", type=int, default=25, help="views per look (default 25)")
    p.add_argument("--split", default="heldout", choices=["heldout", "tuned"],
                   help="held-out looks (default) or tuned ones (for tuning)")
    p.add_argument("--seed", type=int, help="default: 7331 held out, 11 tuned")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    p.add_argument("--dump", metavar="FILE", help="write one JSON line per view (tuning)")
    args = p.parse_args(argv)
    if args.seed is None:
        args.seed = HELDOUT_SEED if args.split == "heldout" else TUNED_SEED
    views = args.views or (60 if args.quick else 2000)
    per = max(1, min(args.per_look, views))
    n_looks = (views + per - 1) // per
    tasks = [(args.seed, k, min(per, views - k * per), args.split, bool(args.dump))
             for k in range(n_looks)]
    rows = []
    if args.jobs > 1:
        from multiprocessing import get_context
        with get_context("spawn").Pool(args.jobs) as pool:
            for k, got in enumerate(pool.imap(_look, tasks), 1):
                rows += got
                print(f"\rlook {k}/{n_looks}", end="", file=sys.stderr)
    else:
        for k, t in enumerate(tasks, 1):
            rows += _look(t)
            print(f"\rlook {k}/{n_looks}", end="", file=sys.stderr)
    print(file=sys.stderr)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
        return 0

    def figures(sel, prefix):
        n = len(sel)
        right = sum(1 for r in sel if r[1] == r[0])
        wrong = sum(1 for r in sel if r[1] is not None and r[1] != r[0])
        return {f"{prefix}_accuracy": round(right / n, 4) if n else None,
                f"{prefix}_wrong_rate": round(wrong / n, 4) if n else None,
                f"{prefix}_unknown_rate": round((n - right - wrong) / n, 4) if n else None}

    out = {"jewish_card_split": args.split, "jewish_card_seed": args.seed,
           "jewish_card_views": len(rows),
           "jewish_card_looks": n_looks}
    out.update(figures(rows, "jewish_card"))
    out["jewish_card_wrong"] = sum(1 for r in rows if r[1] is not None and r[1] != r[0])
    out["jewish_card_ms"] = round(float(np.median([r[6] for r in rows])), 1)
    out["jewish_card_ms_p90"] = round(float(np.percentile([r[6] for r in rows], 90)), 1)
    out.update(figures([r for r in rows if not r[5]], "jewish_clear_card"))
    out.update(figures([r for r in rows if r[5]], "jewish_covered_card"))
    words = [r for r in rows if r[0] in WORDS]
    out["jewish_word_card_views"] = len(words)
    out["jewish_word_card_accuracy"] = figures(words, "w")["w_accuracy"]
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:32s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
