"""Vision accuracy and speed on a seeded set of rendered frames, one core.

For every condition the synthetic renderer varies (clean, perspective, lens distortion,
warm and cold light, dim, uneven light and shadows, glare, blur and JPEG, hands), it sets
up several cameras (seeded conditions), calibrates each from its empty board, and reads
boards of random chips through it. It prints per-space accuracy, the share of boards read
entirely right, per condition and overall; and the milliseconds per frame at 1280 x 720 and
1920 x 1080 once calibrated, with localisation (finding the board without a calibration)
and classification timed separately.

A space counts as right when it is read as it is. A space a hand covers must be read
unknown, or as it truly is when the part that shows is enough. A space a hand reaches over in part, or whose middle a glare spot blows out, may
also be read unknown, never empty or a colour it is not. Each camera setup is calibrated
from its empty board under the same room light, glare included (a lamp stays where it is);
hands come and go.

    python benchmarks/vision.py                    # the table
    python benchmarks/vision.py --json             # {"space_accuracy": ..., "board_accuracy": ...,
                                                   #  "ms_per_frame_720p": ..., "by_condition": {...}}
    python benchmarks/vision.py --frames 100       # a quicker, smaller set

It also prints the filmed-game figures of ``benchmarks/video.py`` (``video_phantom_moves``,
``video_missed_moves``, ``video_moves_caught_up``, ``video_games_recovered``, ...):
``--video-games N`` games (default 10; 0 leaves them out), ``--video-quick`` one short game.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from engine.game import builtin_layout  # noqa: E402
from engine.observation import Observation, SpaceState  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.synth import CONDITION_KINDS, random_board, random_conditions, render  # noqa: E402

BOARDS_PER_SETUP = 5


def score(states, truth: Observation, unsure, board: Observation) -> tuple[int, list[str]]:
    """(spaces right, descriptions of the wrong ones)."""
    right = 0
    wrong = []
    for i, (a, t) in enumerate(zip(states, truth.states)):
        if a == t or a == board.states[i] or (unsure[i] and a is SpaceState.UNKNOWN):
            right += 1
        else:
            wrong.append(f"{i}:{t.value}->{a.value}")
    return right, wrong


def accuracy(frames: int, seed: int, progress) -> dict:
    layout = builtin_layout("classic")
    per_kind = max(1, frames // len(CONDITION_KINDS))
    setups = max(1, -(-per_kind // BOARDS_PER_SETUP))
    out = {}
    done = 0
    total = per_kind * len(CONDITION_KINDS)
    for kind in CONDITION_KINDS:
        rng = np.random.default_rng([seed, sum(map(ord, kind))])
        spaces = right = boards = boards_right = 0
        clean_spaces = clean_right = 0
        examples: list[str] = []
        n = 0
        for s in range(setups):
            cond = random_conditions(rng, kind)
            empty = render(layout, Observation.empty(10, 10), replace(cond, hand_at=None),
                           seed=int(rng.integers(1 << 30)), jitter=0).image
            reader = BoardReader(calibrate([empty], layout), layout)
            for b in range(BOARDS_PER_SETUP):
                if n >= per_kind:
                    break
                n += 1
                if kind == "hand":      # the hand reaches somewhere new on every frame
                    cond = replace(cond, hand_at=int(rng.integers(0, 100)))
                board = random_board(layout, rng, fill=float(rng.uniform(0.1, 0.6)))
                r = render(layout, board, cond, seed=int(rng.integers(1 << 30)))
                states = reader.read(r.image).observation.states
                ok, wrong = score(states, r.truth, r.unsure, board)
                spaces += layout.size
                right += ok
                boards += 1
                boards_right += not wrong
                if kind not in ("hand", "glare"):
                    clean_spaces += layout.size
                    clean_right += ok
                if wrong and len(examples) < 3:
                    examples.append(" ".join(wrong[:4]))
                done += 1
                progress(done, total)
        out[kind] = {"space_accuracy": right / spaces, "board_accuracy": boards_right / boards,
                     "frames": boards, "spaces_wrong": spaces - right,
                     "_clean": (clean_spaces, clean_right), "_examples": examples}
    return out


def timing(width: int, height: int, frames: int, seed: int) -> dict:
    """Median ms of a calibrated read (straighten + classify), and of localisation alone."""
    layout = builtin_layout("classic")
    rng = np.random.default_rng(seed)
    cond = random_conditions(rng, "clean", width, height)
    empty = render(layout, Observation.empty(10, 10), cond, seed=1, jitter=0).image
    cal = calibrate([empty], layout)
    reader = BoardReader(cal, layout)
    images = [render(layout, random_board(layout, rng), cond, seed=k).image for k in range(8)]
    for img in images[:2]:
        reader.read(img)                      # warm up
    total, classify_ms, locate_ms = [], [], []
    for k in range(frames):
        img = images[k % len(images)]
        t0 = time.perf_counter()
        reading = reader.read(img)
        total.append((time.perf_counter() - t0) * 1000)
        classify_ms.append(reading.timings.get("classify_ms", 0.0))
    fresh = BoardReader(cal, layout)
    for k in range(max(5, frames // 10)):
        t0 = time.perf_counter()
        fresh.locate(images[k % len(images)])
        locate_ms.append((time.perf_counter() - t0) * 1000)
    return {"ms": statistics.median(total), "classify_ms": statistics.median(classify_ms),
            "locate_ms": statistics.median(locate_ms)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="Vision accuracy per condition and ms per frame, on seeded rendered frames.",
        epilog="example: python benchmarks/vision.py --json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print one flat JSON object")
    ap.add_argument("--frames", type=int, default=300, help="frames read for accuracy (default 300)")
    ap.add_argument("--timed", type=int, default=60, help="frames timed per resolution (default 60)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--video-games", type=int, default=10,
                    help="filmed games refereed by benchmarks/video.py (default 10; 0: none)")
    ap.add_argument("--video-quick", action="store_true",
                    help="one short filmed game instead (what the test suite runs)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)                      # one core, as the issue asks

    def progress(done, total):
        print(f"\rreading frames {done}/{total}", end="" if done < total else "\n",
              file=sys.stderr, flush=True)

    by = accuracy(args.frames, args.seed, progress)
    print("timing 1280 x 720 and 1920 x 1080 ...", file=sys.stderr, flush=True)
    t720 = timing(1280, 720, args.timed, args.seed)
    t1080 = timing(1920, 1080, args.timed, args.seed)

    frames = sum(v["frames"] for v in by.values())
    spaces = frames * 100
    wrong = sum(v["spaces_wrong"] for v in by.values())
    clean_spaces = sum(v["_clean"][0] for v in by.values())
    clean_right = sum(v["_clean"][1] for v in by.values())
    boards_right = sum(v["board_accuracy"] * v["frames"] for v in by.values())
    result = {
        "frames": frames,
        "space_accuracy": round(1 - wrong / spaces, 6),
        "space_accuracy_without_hands_or_glare": round(clean_right / clean_spaces, 6),
        "board_accuracy": round(boards_right / frames, 4),
        "ms_per_frame_720p": round(t720["ms"], 2),
        "ms_per_frame_1080p": round(t1080["ms"], 2),
        "classify_ms_720p": round(t720["classify_ms"], 2),
        "classify_ms_1080p": round(t1080["classify_ms"], 2),
        "locate_ms_720p": round(t720["locate_ms"], 2),
        "locate_ms_1080p": round(t1080["locate_ms"], 2),
        "by_condition": {k: {"space_accuracy": round(v["space_accuracy"], 6),
                             "board_accuracy": round(v["board_accuracy"], 4),
                             "frames": v["frames"]} for k, v in by.items()},
    }
    if args.video_games > 0 or args.video_quick:
        result.update(video_figures(args.video_games, args.seed, args.video_quick))
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'condition':<12} {'frames':>6} {'spaces right':>13} {'boards right':>13}")
    for k, v in by.items():
        print(f"{k:<12} {v['frames']:>6} {v['space_accuracy']:>12.4%} {v['board_accuracy']:>12.1%}"
              + (f"   e.g. {v['_examples'][0]}" if v["_examples"] else ""))
    print(f"{'all':<12} {frames:>6} {result['space_accuracy']:>12.4%} {result['board_accuracy']:>12.1%}")
    print(f"spaces right on frames without hands or glare: "
          f"{result['space_accuracy_without_hands_or_glare']:.4%}")
    for name, t in (("1280 x 720", t720), ("1920 x 1080", t1080)):
        print(f"{name}: {t['ms']:.2f} ms per calibrated frame (classify {t['classify_ms']:.2f} ms); "
              f"finding the board without calibration {t['locate_ms']:.1f} ms")
    for k, v in result.items():
        if k.startswith("video_"):
            print(f"{k}: {v}")
    return 0


def video_figures(games: int, seed: int, quick: bool) -> dict:
    """The filmed-game figures of benchmarks/video.py (see its docstring)."""
    import tempfile
    from pathlib import Path

    import video  # benchmarks/video.py, beside this file

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="seqboard-video-") as tmp:
        totals = video.run(1 if quick else games, seed, Path(tmp), quick, progress)
    return video.figures(totals)


if __name__ == "__main__":
    sys.exit(main())
