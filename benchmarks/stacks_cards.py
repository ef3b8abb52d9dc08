"""SEQUENCE STACKS card reading on the HELD-OUT STACKS style (issue 24).

    python benchmarks/stacks_cards.py --json              # 400 card views
    python benchmarks/stacks_cards.py --json --quick      # 40 views, for CI
    python benchmarks/stacks_cards.py --split tuned       # the tuned styles (for tuning)
    python benchmarks/stacks_cards.py --views 0 --games 5 # only the refereed games

Each view is a STACKS pile rendered by vision.cards.stacks_scene (one to four cards below,
the new card partly on them at any angle, a hand near in some, partly over the card in
some; tables, lights and hands of the playing-card world, their held-out families half the
time), read by vision.cards.stacks_reader.read_stacks_pile from the frames before and
after. With --json, one flat JSON object: stacks_card_accuracy (right / views),
stacks_card_wrong_rate (named wrong / views), stacks_card_unknown_rate, stacks_card_ms (per
new card, one core), stacks_clear_card_accuracy (no hand over the card),
stacks_colour_wrong (named with the wrong colour), stacks_card_views.

Then the refereed games (``--games``): two greedy players play STACKS; every card they
lay, take or set aside is drawn on a rendered table (the centre places, the out-of-play
pile, the discard piles; a card style of the split) and refereed by
seqboard.modes.stacks_camera.CameraStacks from the frames alone; what it asks for is typed.
Figures: stacks_table_actions, stacks_table_camera_rate (actions the camera took itself,
right), stacks_table_wrong_actions (taken, but not what was played), stacks_table_typed
(asked and typed), stacks_table_games_out_of_step (the referee's piles or chips left the
game's: the game is stopped there).
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
    views = views or 1
    return {
        "stacks_card_views": len(ms),
        "stacks_card_split": split,
        "stacks_card_scale": scale,
        "stacks_card_accuracy": round(right / views, 4),
        "stacks_card_wrong_rate": round(wrong / views, 4),
        "stacks_card_unknown_rate": round((views - right - wrong) / views, 4),
        "stacks_clear_card_accuracy": round(clear_right / max(clear, 1), 4),
        "stacks_colour_wrong": colour_wrong,
        "stacks_card_ms": round(float(np.median(ms)), 1) if ms else None,
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
    ap.add_argument("--games", type=int, default=2,
                    help="STACKS games refereed from rendered table frames (default 2)")
    ap.add_argument("--max-actions", type=int, default=40, help="actions per game (default 40)")
    ap.add_argument("--json", action="store_true", help="one flat JSON object")
    ap.add_argument("--verbose", action="store_true", help="each wrong or unknown card")
    a = ap.parse_args(argv)
    views = 40 if a.quick else a.views
    if views < 0 or a.games < 0 or a.max_actions < 1:
        print("--views and --games: 0 or more; --max-actions: 1 or more", file=sys.stderr)
        return 2
    if not 0.05 <= a.scale <= 1.0:
        print("--scale: from 0.05 to 1", file=sys.stderr)
        return 2
    res = run(views, a.seed, a.split, progress=not a.json or sys.stderr.isatty(),
              verbose=a.verbose, scale=a.scale)
    if a.games > 0:
        res.update(table_games(a.games, a.seed, a.split, a.max_actions,
                               progress=not a.json or sys.stderr.isatty(), verbose=a.verbose))
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k}: {v}")
    return 0



def table_games(n_games: int, seed: int, split: str = "heldout", max_actions: int = 40,
                progress: bool = True, verbose: bool = False) -> dict:
    """Two greedy players play STACKS; each thing they do is drawn on a STACKS table (a card
    style of ``split``, no hand left over the cards) and refereed from the camera by a
    :class:`seqboard.modes.stacks_camera.CameraStacks` that knows nothing but the frames;
    what it asks for is typed (the truth). Figures: actions the camera took itself and right,
    actions it took wrong, actions typed when asked."""
    import io
    import random

    from engine.stacks import GreedyStacksPlayer, StacksGame
    from seqboard.modes.stacks import StacksTable
    from seqboard.modes.stacks_camera import CameraStacks
    from vision.cards.piles import PileSpot
    from vision.cards.stacks_art import random_stacks_style
    from vision.cards.stacks_scene import DISCARDS, OUT, PLACES, PX, W, H, StacksTableScene
    from vision.cards.stacks_table import StacksSpots, StacksWatcher

    spots = StacksSpots([PileSpot(k, x, y, PX) for k, (x, y) in enumerate(PLACES)],
                        PileSpot(0, *OUT, PX),
                        [PileSpot(s, x, y, PX) for s, (x, y) in enumerate(DISCARDS[:2])], (W, H))
    by_camera = wrong = typed = total = out_of_step = 0
    for gno in range(n_games):
        rng = np.random.default_rng([seed, gno])
        truth = StacksGame(2, rng=random.Random(seed * 100 + gno))
        players = [GreedyStacksPlayer(random.Random(seed + gno * 10 + p)) for p in range(2)]
        ref = StacksGame(2, known=False)
        out = io.StringIO()
        table = StacksTable(ref, ["person", "person"], out)
        cam = CameraStacks(table, StacksWatcher(spots))
        scene = StacksTableScene(int(rng.integers(1 << 30)), style=random_stacks_style(rng, split))
        place_of: dict[int, int] = {}                 # id(truth pile) -> place

        def show(n=4):
            f = scene.frame()
            for _ in range(n):
                cam.frame(f)

        def reach(key):
            x, y = scene.centre(key)
            for dy in (140, 60, 0):
                scene.hand = (x, y + dy)
                show(1)
            scene.hand = None

        def free_place():
            used = set(place_of.values()) | {k for (kind, k), c in scene.cards.items()
                                             if kind == "place" and c}
            return min(k for k in range(4) if k not in used)

        show(3)
        for _ in range(max_actions):
            if truth.over:
                break
            p = truth.current
            a = players[p].choose(truth)
            n_before = len(ref.history)
            seen = len(out.getvalue())
            if a.kind == "play":
                if a.source == "discard":
                    reach(("discard", p))
                    scene.take(("discard", p))
                    show()
                pile = truth.piles[a.pile] if a.pile >= 0 else None
                k = place_of[id(pile)] if pile is not None else free_place()
                reach(("place", k))
                scene.lay(("place", k), a.card)
            elif a.kind == "special":
                if a.card == "SC" and a.choice == "discard":
                    scene.take(("discard", a.target))
                reach(("out", 0))
                scene.lay(("out", 0), a.card)
            else:
                if a.card:
                    reach(("discard", p))
                    scene.lay(("discard", p), a.card)
            line = table.describe(a)
            truth.apply(a)
            if a.kind == "play" and a.pile == -1:
                place_of[id(truth.piles[-1])] = k     # a new pile (one card: not complete)
            show()
            asked = "type" in out.getvalue()[seen:] and len(ref.history) == n_before
            if asked:
                cam.line(line)
                typed += 1
            total += 1
            new = [h for _, h in ref.history[n_before:]]
            same = True
            if new and not asked:
                got = new[0]
                same = (got.kind, got.card, got.source, got.pile, got.target, got.choice) == \
                    (a.kind, a.card, a.source, a.pile, a.target, a.choice)
                by_camera += same
                wrong += not same
            if not asked and len(new) != 1 or new and not same:
                out_of_step += 1
                if verbose:
                    print(f"  OUT OF STEP after {line!r}: the camera said "
                          f"{out.getvalue()[seen:]!r}", file=sys.stderr)
                break
            if truth.pending is not None:             # the Block window, then the pile away
                pend = truth.pending
                k = place_of.pop(id(pend.pile))
                q = 1 - pend.player
                if "BL" in truth.hands[q] and players[q].block(truth, q):
                    from engine.stacks import Action
                    truth.apply(Action("block", "BL", player=q))
                    scene.lay(("out", 0), "BL")
                    show()
                else:
                    truth.resolve()
                reach(("place", k))
                scene.take(("place", k), all_=True)
                scene.lay(("out", 0), pend.pile.cards[-1])
                show()
            if [pl.cards for pl in ref.piles] != [pl.cards for pl in truth.piles] or \
                    ref.chips != truth.chips:
                out_of_step += 1
                if verbose:
                    print(f"  OUT OF STEP after {line!r}: piles {[pl.cards for pl in ref.piles]}"
                          f" / {[pl.cards for pl in truth.piles]}, chips {ref.chips} / "
                          f"{truth.chips}; said {out.getvalue()[seen:]!r}", file=sys.stderr)
                break
        if progress:
            print(f"  game {gno + 1}/{n_games}: {total} actions so far, {by_camera} by the "
                  f"camera, {typed} typed, {wrong} wrong", file=sys.stderr, flush=True)
    return {
        "stacks_table_actions": total,
        "stacks_table_camera_rate": round(by_camera / max(total, 1), 4),
        "stacks_table_wrong_actions": wrong,
        "stacks_table_typed": typed,
        "stacks_table_games_out_of_step": out_of_step,
    }


if __name__ == "__main__":
    sys.exit(main())
