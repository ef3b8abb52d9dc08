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
    python benchmarks/vision.py --calibration-only # the held-out calibration figures alone
    python benchmarks/vision.py --uncalibrated-only --json  # the reading without calibration alone
    python benchmarks/vision.py --quick --json     # a few frames of everything, one short
                                                   # filmed game (for tests)
    python benchmarks/vision.py --json --frames 10 --scenes 0 --calibrations 5 \
        --video-games 0 --timed 30                 # speed alone (a minute; run it on a Pi)

``ms_per_frame_720p`` is wall-clock time (median of ``--timed`` reads, one thread);
``cpu_ms_per_frame_720p`` the processor time of the reading thread, which is what one free
core takes even on a machine other work keeps busy (on an idle machine the two agree).

The held-out figures (``heldout_*``, ``calibration_*``, ``uncalibrated_space_accuracy``) are
measured on scenes drawn in looks of held-out families (vision/looks.py; docs/vision.md):
card art the reader was never tuned on, and half the time held-out boards, chips, tables,
hands, light and cameras. Each scene is calibrated from its own empty board; then frames of
random chips are read, a hand over the board in every third frame, the light flickering by
a few per cent from frame to frame.

- ``heldout_space_accuracy``: spaces read right over all spaces (a space under a hand is
  right when read unknown or as it is; one a hand touches or glare blows out, also unknown).
- ``heldout_wrong_rate``: visible spaces read confidently wrong (a state, not unknown, that
  is not theirs) over visible spaces; ``heldout_wrong_under_hands``: spaces under a hand
  read as a state they do not have (a count; it must be 0).
- ``heldout_unknown_rate``: visible spaces more than one space from a hand read unknown.
- ``heldout_board_accuracy``: frames without a hand read entirely right.
- ``calibration_success_rate`` / ``calibration_wrong_grids``: of the empty-board scenes
  calibrated, the share saved, and how many were saved with a grid off by more than a
  quarter of a space at some corner or turned the wrong way.
- ``uncalibrated_space_accuracy``: frames without a hand read without any calibration
  (the first six of each scene, one reader a scene); ``uncalibrated_wrong_rate`` its spaces
  read confidently wrong, ``uncalibrated_unknown_rate`` read unknown on a frame whose grid
  was found, over all its spaces; ``uncalibrated_frames_unread`` frames whose grid was not
  found or was refused (all their spaces unknown).
A scene whose calibration is refused still has its frames scored, all of them wrong.

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
from vision.fieldnet import MODEL_PATH as FIELD_MODEL  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.synth import CONDITION_KINDS, random_board, random_conditions, render  # noqa: E402

BOARDS_PER_SETUP = 5
#: extra arguments of every BoardReader made here (--no-model: the hand-written features alone)
READER_KW: dict = {}


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
            reader = BoardReader(calibrate([empty], layout), layout, **READER_KW)
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


def heldout(scenes: int, frames_per_scene: int, cal_scenes: int, seed: int, progress,
            read: bool = True, calibrated: bool = True, uncalibrated: bool = True) -> dict:
    """The held-out figures (see the module's docstring). ``read=False``: the calibration
    figures only (the scenes read are drawn, not rendered, so the same empty boards are
    calibrated as in a full run). ``calibrated=False``: the reading without calibration
    only (the same frames as a full run; nothing calibrated, the other frames drawn, not
    rendered). ``uncalibrated=False``: the frames are not also read without calibration
    (the calibrated figures are the same; the uncalibrated ones are left at nothing)."""
    from vision.locate import BoardNotFound
    from vision.looks import FAMILIES, draw_look, look_conditions
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 19])
    n_sp = layout.size
    tot = {"spaces": 0, "right": 0, "visible": 0, "wrong": 0, "under_wrong": 0, "far": 0,
           "far_unknown": 0, "boards": 0, "boards_right": 0, "frames": 0, "hand_frames": 0,
           "uncal_spaces": 0, "uncal_right": 0, "uncal_wrong": 0, "uncal_unknown": 0,
           "uncal_frames": 0, "uncal_unread": 0}
    fam: dict = {}
    examples: list[str] = []
    total = scenes * frames_per_scene + cal_scenes
    done = 0
    for s in range(scenes if not read else 0):
        # the same draws from the generator as below, nothing rendered or read
        draw_look(rng, "heldout")
        rng.integers(1 << 30)
        for k in range(frames_per_scene):
            if k % 3 == 2:
                rng.integers(0, n_sp)
            rng.uniform(0.94, 1.06)
            random_board(layout, rng, fill=float(rng.uniform(0.1, 0.6)))
            rng.integers(1 << 30)
    for s in range(scenes if read else 0):
        look = draw_look(rng, "heldout")
        cond = look_conditions(look)
        empty_seed = int(rng.integers(1 << 30))
        reader = None
        if calibrated:
            empty = render(layout, Observation.empty(layout.rows, layout.cols), cond,
                           seed=empty_seed, jitter=0, look=look)
            try:
                reader = BoardReader(calibrate([empty.image], layout), layout, **READER_KW)
            except (BoardNotFound, ValueError):
                reader = None
        uncal = BoardReader(None, layout, **READER_KW)
        for k in range(frames_per_scene):
            hand = k % 3 == 2
            c = replace(cond, hand_at=int(rng.integers(0, n_sp)) if hand else None,
                        brightness=cond.brightness * float(rng.uniform(0.94, 1.06)))
            board = random_board(layout, rng, fill=float(rng.uniform(0.1, 0.6)))
            frame_seed = int(rng.integers(1 << 30))
            if not calibrated:
                if not hand and k < 6:
                    r = render(layout, board, c, seed=frame_seed, look=look)
                    _uncalibrated(uncal, r, board, tot)
                done += 1
                progress(done, total, "held-out frames (without calibration)")
                continue
            r = render(layout, board, c, seed=frame_seed, look=look)
            if reader is None:
                states = (SpaceState.UNKNOWN,) * n_sp
            else:
                states = reader.read(r.image).observation.states
            ok, wrong = score(states, r.truth, r.unsure, board)
            occ = np.array(r.occluded)
            near = cv2.dilate(occ.reshape(layout.rows, layout.cols).astype(np.uint8),
                              np.ones((3, 3), np.uint8)).ravel() > 0
            st = np.array([x.value for x in states])
            tr = np.array([x.value for x in r.truth.states])
            under = np.array([x.value for x in board.states])
            vis = ~occ
            conf_wrong = vis & (st != tr) & (st != "?")
            tot["spaces"] += n_sp
            tot["right"] += ok
            tot["visible"] += int(vis.sum())
            tot["wrong"] += int(conf_wrong.sum())
            tot["under_wrong"] += int((occ & (st != "?") & (st != under)).sum())
            tot["far"] += int((~near).sum())
            tot["far_unknown"] += int(((~near) & (st == "?")).sum())
            tot["frames"] += 1
            tot["hand_frames"] += hand
            if not hand:
                tot["boards"] += 1
                tot["boards_right"] += not wrong
                if k < 6 and uncalibrated:
                    _uncalibrated(uncal, r, board, tot)
            for d in FAMILIES:
                f = fam.setdefault(f"{d}={getattr(look, d)}", [0, 0])
                f[0] += n_sp
                f[1] += ok
            if wrong and len(examples) < 5:
                examples.append(f"{look.describe()}: {' '.join(wrong[:4])}")
            done += 1
            progress(done, total, "held-out frames")
    from vision.calibration import GridRefused
    cal_ok = cal_wrong = cal_refused = cal_missing = 0
    cal_s: list[float] = []          # seconds per calibration (wall clock, processor time)
    cal_cpu: list[float] = []
    for s in range(cal_scenes):
        look = draw_look(rng, "heldout")
        cond = look_conditions(look)
        empty = render(layout, Observation.empty(layout.rows, layout.cols), cond,
                       seed=int(rng.integers(1 << 30)), jitter=0, look=look)
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            cal = calibrate([empty.image], layout)
        except GridRefused:
            cal, cal_refused = None, cal_refused + 1
        except (BoardNotFound, ValueError):
            cal, cal_missing = None, cal_missing + 1
        cal_s.append(time.perf_counter() - t0)
        cal_cpu.append(time.thread_time() - c0)
        if cal is not None:
            cal_ok += 1
            space = float(np.linalg.norm(empty.grid_corners[1] - empty.grid_corners[0])) / layout.cols
            err = float(np.linalg.norm(cal.corners - empty.grid_corners, axis=1).max())
            if err > 0.25 * space:
                cal_wrong += 1
                if len(examples) < 8:
                    examples.append(f"calibration {look.describe()}: grid off by {err / space:.2f} spaces")
        done += 1
        progress(done, total, "held-out frames and calibrations")
    return {
        "heldout_frames": tot["frames"], "heldout_scenes": scenes,
        "heldout_hand_frames": tot["hand_frames"],
        "heldout_space_accuracy": round(tot["right"] / max(tot["spaces"], 1), 6),
        "heldout_wrong_rate": round(tot["wrong"] / max(tot["visible"], 1), 6),
        "heldout_wrong_under_hands": tot["under_wrong"],
        "heldout_unknown_rate": round(tot["far_unknown"] / max(tot["far"], 1), 6),
        "heldout_board_accuracy": round(tot["boards_right"] / max(tot["boards"], 1), 4),
        "calibration_scenes": cal_scenes,
        "calibration_seconds_median": round(statistics.median(cal_s), 2) if cal_s else None,
        "calibration_cpu_seconds_median": round(statistics.median(cal_cpu), 2) if cal_cpu else None,
        "calibration_cpu_seconds_max": round(max(cal_cpu), 2) if cal_cpu else None,
        "calibration_success_rate": round(cal_ok / max(cal_scenes, 1), 4),
        "calibration_wrong_grids": cal_wrong,
        "calibration_refused": cal_refused,          # a grid the pairs did not confirm
        "calibration_board_not_found": cal_missing,  # no quadrilateral found at all
        "uncalibrated_space_accuracy": round(tot["uncal_right"] / max(tot["uncal_spaces"], 1), 6),
        # spaces read confidently wrong (a state, not unknown, that is not theirs) and read
        # unknown, over all spaces of those frames; frames whose grid was not found or refused
        "uncalibrated_wrong_rate": round(tot["uncal_wrong"] / max(tot["uncal_spaces"], 1), 6),
        "uncalibrated_unknown_rate": round(tot["uncal_unknown"] / max(tot["uncal_spaces"], 1), 6),
        "uncalibrated_frames": tot["uncal_frames"],
        "uncalibrated_frames_unread": tot["uncal_unread"],
        "heldout_by_family": {k: round(v[1] / v[0], 4) for k, v in sorted(fam.items())},
        "_examples": examples,
    }


def _uncalibrated(uncal: BoardReader, r, board: Observation, tot: dict) -> None:
    """One frame without a hand read without calibration, added to ``tot``."""
    reading = uncal.read(r.image)
    u = reading.observation.states
    tot["uncal_frames"] += 1
    tot["uncal_unread"] += not reading.found
    tot["uncal_spaces"] += len(u)
    tot["uncal_right"] += score(u, r.truth, r.unsure, board)[0]
    for i, (a, t) in enumerate(zip(u, r.truth.states)):
        if a is SpaceState.UNKNOWN:
            tot["uncal_unknown"] += reading.found
        elif a != t and a != board.states[i]:
            tot["uncal_wrong"] += 1


def timing(width: int, height: int, frames: int, seed: int) -> dict:
    """Median ms of a calibrated read (straighten + classify, the learned classifier's share
    apart), and of localisation alone."""
    layout = builtin_layout("classic")
    rng = np.random.default_rng(seed)
    cond = random_conditions(rng, "clean", width, height)
    empty = render(layout, Observation.empty(10, 10), cond, seed=1, jitter=0).image
    cal = calibrate([empty], layout)
    reader = BoardReader(cal, layout, **READER_KW)
    images = [render(layout, random_board(layout, rng), cond, seed=k).image for k in range(8)]
    for img in images[:2]:
        reader.read(img)                      # warm up
    total, classify_ms, locate_ms, model_ms, cpu, veto_ms = [], [], [], [], [], []
    for k in range(frames):
        img = images[k % len(images)]
        t0, c0 = time.perf_counter(), time.thread_time()
        reading = reader.read(img)
        total.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
        classify_ms.append(reading.timings.get("classify_ms", 0.0))
        model_ms.append(reading.timings.get("model_ms", 0.0))
        veto_ms.append(reading.timings.get("veto_ms", 0.0))
    fresh = BoardReader(cal, layout, **READER_KW)
    for k in range(max(5, frames // 10)):
        t0 = time.perf_counter()
        fresh.locate(images[k % len(images)])
        locate_ms.append((time.perf_counter() - t0) * 1000)
    # the field network (vision/fieldnet.py), which the board finder asks last, when no other
    # candidate is confirmed: one pass over the picture
    from vision.fieldnet import field_map
    field_map(images[0])
    field_ms = []
    for k in range(max(5, frames // 10)):
        t0 = time.perf_counter()
        field_map(images[k % len(images)])
        field_ms.append((time.perf_counter() - t0) * 1000)
    return {"ms": statistics.median(total), "cpu_ms": statistics.median(cpu),
            "field_ms": statistics.median(field_ms),
            "classify_ms": statistics.median(classify_ms),
            "model_ms": statistics.median(model_ms),
            "veto_ms": statistics.median(veto_ms),
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
    ap.add_argument("--scenes", type=int, default=42, help="held-out scenes (default 42)")
    ap.add_argument("--scene-frames", type=int, default=15,
                    help="frames read per held-out scene (default 15)")
    ap.add_argument("--calibrations", type=int, default=200,
                    help="held-out empty-board scenes calibrated (default 200)")
    ap.add_argument("--calibration-only", action="store_true",
                    help="only the held-out calibration figures (the same empty boards as a "
                         "full run): calibration_success_rate, calibration_wrong_grids, ...")
    ap.add_argument("--uncalibrated-only", action="store_true",
                    help="only the held-out reading without calibration (the same frames as "
                         "a full run): uncalibrated_space_accuracy, uncalibrated_wrong_rate, ...")
    ap.add_argument("--calibrated-only", action="store_true",
                    help="only the held-out reading of calibrated boards (the same frames as a "
                         "full run, none read without calibration, nothing timed): "
                         "heldout_space_accuracy, heldout_wrong_rate, ...")
    ap.add_argument("--no-model", action="store_true",
                    help="read with the hand-written features alone, without the learned "
                         "space classifier (to compare; the filmed games keep it)")
    ap.add_argument("--quick", action="store_true",
                    help="a few frames of everything (one short filmed game, none with "
                         "--video-games 0): the figures are rough, for tests")
    ap.add_argument("--video-games", type=int, default=10,
                    help="filmed games refereed by benchmarks/video.py (default 10; 0: none)")
    ap.add_argument("--video-quick", action="store_true",
                    help="one short filmed game instead (what the test suite runs)")
    args = ap.parse_args(argv)
    if args.quick:
        args.frames, args.timed, args.scenes = 20, 5, 2
        args.scene_frames, args.calibrations = 3, 2
        args.video_quick = args.video_games > 0     # one short filmed game, unless told none
    cv2.setNumThreads(1)                      # one core, as the issue asks
    if args.no_model:
        READER_KW["model"] = False

    def progress(done, total, what="reading frames"):
        print(f"\r{what} {done}/{total}", end="" if done < total else "\n",
              file=sys.stderr, flush=True)

    if args.calibration_only:
        held = heldout(args.scenes, args.scene_frames, args.calibrations, args.seed, progress,
                       read=False)
        keys = ("calibration_scenes", "calibration_success_rate", "calibration_wrong_grids",
                "calibration_seconds_median", "calibration_cpu_seconds_median",
                "calibration_cpu_seconds_max",
                "calibration_refused", "calibration_board_not_found")
        result = {k: held[k] for k in keys}
        print(json.dumps(result) if args.json else
              "\n".join([f"{k}: {v}" for k, v in result.items()] +
                        [f"e.g. {e}" for e in held["_examples"]]))
        return 0
    if args.uncalibrated_only:
        held = heldout(args.scenes, args.scene_frames, 0, args.seed, progress, calibrated=False)
        result = {k: v for k, v in held.items() if k.startswith("uncalibrated_")}
        print(json.dumps(result) if args.json else
              "\n".join(f"{k}: {v}" for k, v in result.items()))
        return 0
    if args.calibrated_only:
        held = heldout(args.scenes, args.scene_frames, 0, args.seed, progress,
                       uncalibrated=False)
        result = {k: v for k, v in held.items() if k.startswith("heldout_")}
        print(json.dumps(result) if args.json else
              "\n".join(f"{k}: {v}" for k, v in result.items()))
        return 0
    held = heldout(args.scenes, args.scene_frames, args.calibrations, args.seed, progress)
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
        # the processor time of the reading thread alone: what one free core takes, even
        # on a machine loaded by other work (the wall-clock figures above include waiting)
        "cpu_ms_per_frame_720p": round(t720["cpu_ms"], 2),
        "cpu_ms_per_frame_1080p": round(t1080["cpu_ms"], 2),
        "classify_ms_720p": round(t720["classify_ms"], 2),
        "classify_ms_1080p": round(t1080["classify_ms"], 2),
        # the learned space classifier's share of classify_ms (vision/spacenet.py)
        "model_ms_per_frame": round(t720["model_ms"], 2),
        "veto_ms_per_frame": round(t720["veto_ms"], 2),
        "locate_ms_720p": round(t720["locate_ms"], 2),
        "locate_ms_1080p": round(t1080["locate_ms"], 2),
        # the field network's one pass (asked only when the board's outline is lost)
        "field_net_ms_720p": round(t720["field_ms"], 2),
        "field_net_kb": round(FIELD_MODEL.stat().st_size / 1024, 1),
        "by_condition": {k: {"space_accuracy": round(v["space_accuracy"], 6),
                             "board_accuracy": round(v["board_accuracy"], 4),
                             "frames": v["frames"]} for k, v in by.items()},
    }
    result.update({k: v for k, v in held.items() if not k.startswith("_")})
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
    print("held-out looks (the figures that count):")
    for k, v in held.items():
        if not k.startswith("_") and k != "heldout_by_family":
            print(f"  {k:<30} {v}")
    print("  spaces right by family: " + ", ".join(f"{k} {v:.2%}"
                                                  for k, v in held["heldout_by_family"].items()))
    for e in held["_examples"]:
        print(f"  e.g. {e}")
    for name, t in (("1280 x 720", t720), ("1920 x 1080", t1080)):
        print(f"{name}: {t['ms']:.2f} ms per calibrated frame (classify {t['classify_ms']:.2f} ms); "
              f"finding the board without calibration {t['locate_ms']:.1f} ms; the field "
              f"network's pass {t['field_ms']:.1f} ms")
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
