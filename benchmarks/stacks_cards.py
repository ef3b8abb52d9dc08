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
seqboard.modes.stacks_camera.CameraStacks from the frames alone; what it asks for is typed
(the first action it lacks, as a person at the table would). The referee may lag one action
behind while a discard pile's change waits for what follows (its top taken, or a card
discarded like the one under it). A game stops at the first action taken wrong, at a lag it
is not waiting for, or when its piles or chips leave the game's. Figures:
stacks_table_games, stacks_table_games_in_step (refereed to the end of the game or of
--max-actions without leaving the game), stacks_table_games_out_of_step,
stacks_table_games_finished (in step to the game's end), stacks_table_actions,
stacks_table_turns and stacks_table_turns_right (every action of the turn, up to its
discard, taken right), stacks_table_camera_rate (actions the camera took itself, right),
stacks_table_typed (asked and typed), stacks_table_wrong_actions (taken, but not what was
played), stacks_table_false_refusals (a legal play refused), stacks_table_wrong_verdicts
(the two together), stacks_table_pending_at_end (actions still waiting for what follows
when the run stopped).
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
                print(f"  WRONG view {k}: {sc.code} read {r.code} ({sc.families})", file=sys.stderr)
        elif verbose and r.code is None:
            print(f"  unknown view {k}: {sc.code}"
                  f"{' (a hand over it)' if sc.hand_over_card else ''}: {r.reason}", file=sys.stderr)
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
    ap.add_argument("--max-actions", type=int, default=40,
                    help="actions per game at most (default 40; 150 plays a game to its end)")
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
    refused = finished = pending = turns = turns_right = 0
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
        truth_acts: list = []                         # (what was done, its typed line)
        typed_at: set = set()                         # history indexes typed, not seen
        checked = 0
        stopped = False
        refusals_before = out.getvalue().count("REFUSED")

        def key(a):
            return (a.kind, a.card, a.source, a.pile, a.target, a.choice)

        def check() -> bool:
            """The referee's actions against the game's, as far as it has gone; False when
            it went wrong or fell behind (a lag of one action only while it waits for what
            follows a discard pile's change)."""
            nonlocal checked, by_camera, wrong, typed
            got = [h for _, h in ref.history]
            while checked < len(got):
                if checked >= len(truth_acts) or key(got[checked]) != key(truth_acts[checked][0]):
                    wrong += 1
                    if verbose:
                        want = truth_acts[checked][1] if checked < len(truth_acts) else "-"
                        print(f"  WRONG: the camera took {table.describe(got[checked])!r} "
                              f"for {want!r}", file=sys.stderr)
                    return False
                if checked in typed_at:
                    typed += 1
                else:
                    by_camera += 1
                checked += 1
            lag = len(truth_acts) - len(got)
            if lag > (1 if cam.doubt is not None else 0):
                if verbose:
                    print(f"  BEHIND by {lag} after {truth_acts[-1][1]!r}: said "
                          f"{out.getvalue()[-600:]!r}", file=sys.stderr)
                return False
            if lag == 0 and truth.pending is None and (
                    [pl.cards for pl in ref.piles] != [pl.cards for pl in truth.piles]
                    or ref.chips != truth.chips):
                # (while the game's Block window is open the referee may have given the chip:
                # it knows nobody can hold a Block any more)
                if verbose:
                    print(f"  OUT OF STEP after {truth_acts[-1][1]!r}: piles "
                          f"{[pl.cards for pl in ref.piles]} / {[pl.cards for pl in truth.piles]}"
                          f", chips {ref.chips} / {truth.chips}", file=sys.stderr)
                return False
            return True

        def answer(seen: int) -> None:
            """What the camera asks for is typed: the first action it lacks."""
            for _ in range(4):
                said = out.getvalue()[seen:]
                if "type" not in said:
                    return
                i = len(ref.history)
                if i >= len(truth_acts):
                    return
                seen = len(out.getvalue())
                cam.line(truth_acts[i][1])
                typed_at.update(range(i, len(ref.history)))

        for _ in range(max_actions):
            if truth.over:
                break
            p = truth.current
            a = players[p].choose(truth)
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
            truth_acts.append((a, table.describe(a)))
            truth.apply(a)
            total += 1
            if a.kind == "play" and a.pile == -1:
                place_of[id(truth.piles[-1])] = k     # a new pile (one card: not complete)
            show()
            answer(seen)
            if not check():
                stopped = True
                break
            if truth.pending is not None:             # the Block window, then the pile away
                seen = len(out.getvalue())
                pend = truth.pending
                k = place_of.pop(id(pend.pile))
                q = 1 - pend.player
                if "BL" in truth.hands[q] and players[q].block(truth, q):
                    from engine.stacks import Action
                    bl = Action("block", "BL", player=q)
                    truth_acts.append((bl, f"BL {q + 1}"))
                    truth.apply(bl)
                    total += 1
                    scene.lay(("out", 0), "BL")
                    show()
                else:
                    truth.resolve()
                reach(("place", k))
                scene.take(("place", k), all_=True)
                scene.lay(("out", 0), pend.pile.cards[-1])
                show()
                answer(seen)
                if not check():
                    stopped = True
                    break
        refused += out.getvalue().count("REFUSED") - refusals_before
        out_of_step += stopped
        finished += truth.over and not stopped
        pending += len(truth_acts) - len(ref.history) if not stopped else 0
        # the turns: a player's actions up to their discard (or the last action): right
        # when every one of them was taken right
        for i, (a, _) in enumerate(truth_acts):
            if a.kind == "discard" or i == len(truth_acts) - 1:
                turns += 1
                turns_right += i < checked
        if progress:
            print(f"  game {gno + 1}/{n_games}: {'OUT OF STEP' if stopped else 'in step'}, "
                  f"{total} actions so far, {by_camera} by the camera, {typed} typed, "
                  f"{wrong} wrong", file=sys.stderr, flush=True)
    return {
        "stacks_table_games": n_games,
        "stacks_table_games_in_step": n_games - out_of_step,
        "stacks_table_games_out_of_step": out_of_step,
        "stacks_table_games_finished": finished,
        "stacks_table_actions": total,
        "stacks_table_turns": turns,
        "stacks_table_turns_right": turns_right,
        "stacks_table_camera_rate": round(by_camera / max(total, 1), 4),
        "stacks_table_typed": typed,
        "stacks_table_wrong_actions": wrong,
        "stacks_table_false_refusals": refused,
        "stacks_table_wrong_verdicts": wrong + refused,
        "stacks_table_pending_at_end": pending,
    }


if __name__ == "__main__":
    sys.exit(main())
