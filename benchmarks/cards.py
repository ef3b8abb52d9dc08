"""Card reading figures on HELD-OUT card styles (and scene families), issue 24.

    python benchmarks/cards.py --json           # 2,000 card views (a few minutes)
    python benchmarks/cards.py --json --quick   # 60 views, for CI
    python benchmarks/cards.py --split tuned    # the same on the tuned families
    nice -n 10 python benchmarks/cards.py --json --jobs 2   # the views in 2 processes

Each view is a discard pile rendered by vision.cards.scene (one to four cards below, the
new card partly on them at any angle, a hand near in some, partly over the card in some),
read by vision.cards.reader.read_pile from the frames before and after. Prints one flat
JSON object with --json: card_accuracy (right / views), card_wrong_rate (confident wrong /
views), card_unknown_rate, card_ms (per new card, one core), and the same over the views
where no hand covers the card (``clear_*``), where a hand covers part of it
(``covered_*``) and by card family; ``cards_named_by_*``: the cards named (right or wrong)
by the index corners alone, by the middle alone (no corner read it surely), or by both;
``card_unknown_*``: why the cards left unknown were (no new card found, the rectangles
found read different cards, or no way read the card surely).

Then the refereed games (``--games``, at least 10 by default): two greedy players play a
classic game; each card they lay is rendered on a held-out pile picture and read by the
camera reader, the chip is shown to a :class:`seqboard.session.Session` judging with the
cards (engine.referee.Referee.judge_cards), and every ``--wrong-every`` placements the chip
goes on a wrong space (the same rank of another suit when one is open). An unreadable card
waits; the table then types it when asked (``via typed``). Figures:
``wrong_space_caught_rate`` (wrong chips warned before anything is applied / wrong chips),
``false_violation_rate`` (violations on right chips / right chips),
``wrong_space_caught_by_camera_rate`` (caught with the card the camera read, no typing),
``game_cards_read_rate`` (cards the camera named / cards laid), ``game_cards_misread``
(named wrong), ``game_records_replayed`` (records that replay clean).
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


def reader_kind() -> str:
    """The readers in use: the learned index reader (vision/cards/cardnet.onnx) with the
    learned middle reader (vision/cards/midnet.onnx) when it loads, or the classic one."""
    from vision.cards import cardnet, midnet
    try:
        cardnet.shipped()
    except cardnet.ModelError:
        return "classic"
    try:
        midnet.shipped()
        return "cardnet+midnet"
    except cardnet.ModelError:
        return "cardnet"


def _wrong_space(game, card: str, rng) -> int | None:
    """An open space a careless player might put ``card``'s chip on: the same rank of
    another suit first (the other 6 is the 9, a 5 for a 3 next)."""
    lay = game.layout
    cells = game.board.cells
    same = [s for c, sp in lay.spaces_of.items() if c != card and c[0] == card[0]
            for s in sp if cells[s] == 0]
    other = [s for c, sp in lay.spaces_of.items() if c != card for s in sp if cells[s] == 0]
    pool = same or other
    return pool[rng.randrange(len(pool))] if pool else None


def table_games(n_games: int, seed: int, split: str = "heldout", max_turns: int = 40,
                wrong_every: int = 4, progress: bool = True) -> dict:
    """Refereed games with the cards read from rendered pile pictures (see the module text)."""
    import random
    import tempfile
    from pathlib import Path

    from engine.game import Game
    from engine.observation import SpaceState
    from engine.players import GreedyPlayer
    from engine.record import parse_record, replay
    from engine.referee import Referee
    from seqboard.recorder import RecordWriter
    from seqboard.session import Session

    st = {"turns": 0, "wrong": 0, "caught": 0, "caught_cam": 0, "right": 0, "false": 0,
          "laid": 0, "read": 0, "misread": 0, "typed": 0, "replayed": 0, "desync": 0,
          "ms": 0.0}
    nprng = np.random.default_rng(seed)
    tmp = tempfile.TemporaryDirectory()
    for g in range(n_games):
        rng = random.Random(seed * 1000 + g)
        game = Game("classic", 2, rng=random.Random(seed * 1000 + g))
        players = [GreedyPlayer(random.Random(seed * 1000 + g * 7 + k)) for k in range(2)]
        ref = Referee("classic", 2)
        ref.judge_cards = True
        path = Path(tmp.name) / f"game{g}.jsonl"
        sess = Session(ref, recorder=RecordWriter(path), mode="referee")
        placements = 0

        def camera(card, p):
            """The card laid on player p's pile, as the camera reads it."""
            scene = render_pile(nprng, split, code=card)
            t0 = time.perf_counter()
            got = read_pile(scene.after, scene.before, scene.card_px).code
            st["ms"] += (time.perf_counter() - t0) * 1000
            st["laid"] += 1
            st["read"] += got is not None
            st["misread"] += got is not None and got != card
            sess.lay_card(got, p, via="camera")
            return got

        def settle(card, p):
            """An unreadable card: the table types it when asked."""
            if ref.card_laid is None and (sess.unread_card is not None):
                st["typed"] += 1
                sess.lay_card(card, p, via="typed")

        while not game.over and len(game.history) < max_turns:
            p = game.current
            move = players[p].choose(game)
            if move.action == "pass":
                game.push(move)
                sess.pass_turn()
                continue
            if move.action == "dead":
                got = camera(move.card, p)
                if got is None:
                    settle(move.card, p)
                game.push(move)
                continue
            st["turns"] += 1
            placements += move.action == "place"
            wrong_at = None
            if move.action == "place" and move.card not in game.edition.wild_cards \
                    and placements % wrong_every == 0:
                wrong_at = _wrong_space(game, move.card, rng)
            team_colour = ref.colours[ref.team]
            target = move.space if wrong_at is None else wrong_at
            state = SpaceState(team_colour) if move.action == "place" else SpaceState.EMPTY
            obs = ref.expected().replace({target: state})
            n0 = len(ref.moves)
            if rng.random() < 0.3:          # the chip first, then the card
                sess.observe(obs)
                got = camera(move.card, p)
            else:
                got = camera(move.card, p)
                sess.observe(obs)
            if len(ref.moves) == n0 and sess.warning is None:
                settle(move.card, p)
            applied = len(ref.moves) > n0
            if wrong_at is not None:
                st["wrong"] += 1
                if sess.warning is not None and sess.warning.rule == "wrong_card" and not applied:
                    st["caught"] += 1
                    st["caught_cam"] += got == move.card
                    sess.observe(ref.expected())            # the chip lifted
                    sess.observe(ref.expected().replace({move.space: state}))   # put right
                elif applied:
                    sess.undo()
                    sess.observe(ref.expected().replace({move.space: state}))
            else:
                st["right"] += 1
                if sess.warning is not None:
                    st["false"] += 1
            if len(ref.moves) == n0 + 1 and ref.moves[-1][1].space == move.space:
                game.push(move)
            if ref.board.cells != game.board.cells:
                st["desync"] += 1
                break
        sess.recorder.close()
        st["replayed"] += replay(parse_record(path.read_text(), path.name)).ok
        if progress:
            print(f"\rgame {g + 1}/{n_games}: {st['wrong']} wrong chips, {st['caught']} caught, "
                  f"{st['false']} false violations", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    tmp.cleanup()
    w, r = max(1, st["wrong"]), max(1, st["right"])
    return {
        "games": n_games, "game_turns": st["turns"], "wrong_space_chips": st["wrong"],
        "wrong_space_caught_rate": round(st["caught"] / w, 4),
        "false_violation_rate": round(st["false"] / r, 5),
        "wrong_space_caught_by_camera_rate": round(st["caught_cam"] / w, 4),
        "game_cards_laid": st["laid"],
        "game_cards_read_rate": round(st["read"] / max(1, st["laid"]), 4),
        "game_cards_misread": st["misread"], "game_cards_typed": st["typed"],
        "game_records_replayed": st["replayed"], "games_out_of_step": st["desync"],
        "game_card_ms": round(st["ms"] / max(1, st["laid"]), 1),
    }


def _view(task):
    """One card view: (0 right, 1 wrong, 2 unknown; ms; hand over the card; family; text;
    the way it was named: "index", "middle", "both" or "").
    View i is drawn from its own seed (seed, i): the same views with any --jobs."""
    seed, split, i = task
    cv2.setNumThreads(1)
    s = render_pile(np.random.default_rng([seed, i]), split)
    t0 = time.perf_counter()
    r = read_pile(s.after, s.before, s.card_px)
    t = (time.perf_counter() - t0) * 1000
    k = 0 if r.code == s.code else (2 if r.code is None else 1)
    return (k, t, bool(s.hand_over_card), s.style.family,
            f"{s.code} read {r.code} ({s.families}, {r.way or r.reason})", getattr(r, "way", ""),
            unknown_kind(r.reason) if r.code is None else "")


def unknown_kind(reason: str) -> str:
    """Why a card was not named, from the reader's reason: ``not_found`` (no new card),
    ``disagree`` (the rectangles read different cards), ``below`` (only a card read there
    before too, a card below, is read), ``pips_hidden`` (both index corners covered and the
    middle reads a card of fewer than ten pips) or ``not_sure`` (read surely by no way:
    fingers over the index corners and the middle, the corners and the middle
    disagreeing)."""
    if "no new card" in reason:
        return "not_found"
    if "card below" in reason:
        return "below"
    if "both index corners are covered" in reason:
        return "pips_hidden"
    if "outline is doubtful" in reason:
        return "disagree"
    return "not_sure"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print one flat JSON object")
    p.add_argument("--quick", action="store_true", help="60 views instead of 2,000")
    p.add_argument("--views", type=int, help="how many card views (default 2000)")
    p.add_argument("--split", default="heldout", choices=["heldout", "tuned"],
                   help="held-out families (the figure that counts) or tuned ones")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--games", type=int, help="refereed games (default 10; 2 with --quick)")
    p.add_argument("--wrong-every", type=int, default=4,
                   help="a chip on a wrong space every N placements (default 4)")
    p.add_argument("--max-turns", type=int, default=40, help="moves per game at most")
    p.add_argument("--jobs", type=int, default=1,
                   help="processes reading the card views (default 1; card_ms is per view "
                        "in one process either way)")
    args = p.parse_args(argv)
    if args.games is not None and args.games < 0 or args.wrong_every < 1:
        p.error("--games must be 0 or more and --wrong-every 1 or more")
    cv2.setNumThreads(1)
    n = args.views if args.views is not None else (60 if args.quick else 2000)
    if n < 1:
        p.error("--views must be 1 or more")
    right = wrong = unknown = 0
    clear = [0, 0, 0]
    fam: dict = {}
    covered = 0
    over_k = [0, 0, 0]
    ways: dict = {}
    ms = 0.0
    examples = []
    tasks = [(args.seed, args.split, i) for i in range(n)]
    if args.jobs > 1:
        import multiprocessing as mp
        pool = mp.get_context("fork").Pool(args.jobs)
        results = pool.imap(_view, tasks, chunksize=4)
    else:
        pool = None
        results = map(_view, tasks)
    why = {"not_found": 0, "disagree": 0, "not_sure": 0, "below": 0, "pips_hidden": 0}
    for i, (k, t, over, family, example, way, kind) in enumerate(results):
        if kind:
            why[kind] += 1
        ms += t
        right += k == 0
        wrong += k == 1
        unknown += k == 2
        if k == 1 and len(examples) < 10:
            examples.append(example)
        covered += over
        if k != 2:
            ways[way] = ways.get(way, 0) + 1
        if over:
            over_k[k] += 1
        else:
            clear[k] += 1
        f = fam.setdefault(family, [0, 0, 0])
        f[k] += 1
        if (i + 1) % 50 == 0 or i + 1 == n:
            print(f"\r{i + 1}/{n} views: {right} right, {wrong} wrong, {unknown} unknown",
                  end="", file=sys.stderr, flush=True)
    if pool is not None:
        pool.close()
    print(file=sys.stderr)
    nc = max(1, sum(clear))
    out = {
        "split": args.split, "card_reader": reader_kind(), "card_views": n,
        "card_views_hand_over_card": covered,
        "card_accuracy": round(right / n, 4), "card_wrong_rate": round(wrong / n, 5),
        "card_unknown_rate": round(unknown / n, 4), "card_ms": round(ms / n, 1),
        "clear_card_accuracy": round(clear[0] / nc, 4),
        "clear_card_wrong_rate": round(clear[1] / nc, 5),
        "clear_card_unknown_rate": round(clear[2] / nc, 4),
        "covered_card_accuracy": round(over_k[0] / max(1, covered), 4),
        "covered_card_wrong_rate": round(over_k[1] / max(1, covered), 5),
        "cards_named_by_index_only": ways.get("index", 0),
        "cards_named_by_middle_only": ways.get("middle", 0),
        "cards_named_by_both": ways.get("both", 0),
        "card_unknown_not_found": why["not_found"],
        "card_unknown_rectangles_disagree": why["disagree"],
        "card_unknown_not_read_surely": why["not_sure"],
        "card_unknown_card_below": why["below"],
        "card_unknown_pips_maybe_hidden": why["pips_hidden"],
    }
    for f, (a, b, c) in sorted(fam.items()):
        out[f"{f}_card_accuracy"] = round(a / max(1, a + b + c), 4)
        out[f"{f}_card_wrong_rate"] = round(b / max(1, a + b + c), 5)
    n_games = args.games if args.games is not None else (2 if args.quick else 10)
    if n_games:
        out.update(table_games(n_games, args.seed, args.split,
                               max_turns=12 if args.quick else args.max_turns,
                               wrong_every=args.wrong_every))
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
