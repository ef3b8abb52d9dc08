"""Development sets for reading without calibration (tuned looks only, never held out):
``python -m tools.uncal_dev --set edge,dark --scenes 16 --seed 21``.

Renders scenes drawn with ``draw_look(rng, "tuned")`` (at seeds other than the
benchmark's), changed generically by the set chosen, and reads them as the benchmark's
``uncalibrated_space_accuracy`` does: one reader without calibration a scene, frames
without a hand. Sets:

- ``base``: the tuned looks as drawn;
- ``close``: the camera closer still (scale 0.95 to 1.15, tilted 15 to 35 degrees, a lens
  bend, JPEG half the time): the grid of spaces itself often runs out of the frame, and
  those frames are counted (a corner of the grid out of the picture is read on the part
  in view since session 5);
- ``closer``: as ``close``, the camera closer still (scale 1.12 to 1.3): rows of spaces
  out of the picture;
- ``edge``: the camera close and tilted 20 to 35 degrees, the board's edge often past the
  frame's edge (frames whose grid of spaces leaves the frame are not counted);
- ``dark``: the light a third to a half as bright, the table round the board made 15 to
  35 % as bright;
- ``full``: boards with 60 to 80 % of the spaces covered.

Prints, per set, spaces right, frames whose grid was refused (and why), and on the frames
read: spaces right, read unknown, read confidently wrong, and frames whose grid was found
more than a quarter of a space off (``grid_off``). ``--true-grid`` reads every frame on its
true grid (the reading alone, without finding the board).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace

import numpy as np

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from vision.looks import draw_look, look_conditions
from vision.reader import BoardReader
from vision.synth import random_board, render


def score(states, truth, unsure, board) -> int:
    return sum(a == t or a == board.states[i] or (unsure[i] and a is SpaceState.UNKNOWN)
               for i, (a, t) in enumerate(zip(states, truth.states)))


def scene(kind: str, rng: np.random.Generator):
    look = draw_look(rng, "tuned")
    cond = look_conditions(look)
    fill = (0.1, 0.6)
    table_dim = 1.0
    if kind in ("close", "closer"):
        lo, hi = (0.95, 1.15) if kind == "close" else (1.12, 1.3)
        cond = replace(cond, scale=float(rng.uniform(lo, hi)),
                       tilt_deg=float(rng.uniform(15, 35)),
                       distortion=float(rng.uniform(-0.08, 0.05)),
                       jpeg=int(rng.integers(50, 90)) if rng.random() < 0.5 else 0,
                       offset=(float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.04, 0.04))))
    elif kind == "edge":
        cond = replace(cond, scale=float(rng.uniform(0.88, 1.0)),
                       tilt_deg=float(rng.uniform(20, 35)),
                       distortion=float(rng.uniform(-0.08, 0.05)),
                       offset=(float(rng.uniform(-0.06, 0.06)), float(rng.uniform(-0.05, 0.05))))
    elif kind == "dark":
        cond = replace(cond, brightness=cond.brightness * float(rng.uniform(0.35, 0.55)))
        table_dim = float(rng.uniform(0.15, 0.35))
    elif kind == "full":
        fill = (0.6, 0.8)
    return look, cond, fill, table_dim


def run(kind: str, scenes: int, seed: int, verbose: bool = False, save: str = "",
        true_grid: bool = False) -> dict:
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 4242])
    n = layout.size
    tot = right = read_sp = read_right = unknown = wrong = grid_off = 0
    problems: Counter = Counter()
    for s in range(scenes):
        look, cond, fill, table_dim = scene(kind, rng)
        reader = BoardReader(None, layout)
        for k in range(4):
            board = random_board(layout, rng, fill=float(rng.uniform(*fill)))
            c = replace(cond, brightness=cond.brightness * float(rng.uniform(0.94, 1.06)))
            r = render(layout, board, c, seed=int(rng.integers(1 << 30)), look=look)
            img = r.image
            g = r.grid_corners
            if kind == "edge" and ((g < 1).any() or (g[:, 0] > c.width - 2).any()
                                   or (g[:, 1] > c.height - 2).any()):
                continue
            if table_dim != 1.0:
                img = darken_table(img, r.corners, table_dim)
            if true_grid:
                reader.corners = np.float32(r.grid_corners)
            reading = reader.read(img)
            states = reading.observation.states
            ok = score(states, r.truth, r.unsure, board)
            tot += n
            right += ok
            if reading.found:
                read_sp += n
                read_right += ok
                unknown += sum(a is SpaceState.UNKNOWN for a in states)
                wrong += sum(a is not SpaceState.UNKNOWN and a != t and a != board.states[i]
                             for i, (a, t) in enumerate(zip(states, r.truth.states)))
                space = float(np.linalg.norm(g[1] - g[0])) / layout.cols
                grid_off += float(np.linalg.norm(reading.corners - g, axis=1).max()) > 0.25 * space
            else:
                problems[reading.problem.split(":")[0]] += 1
                if save:
                    np.savez_compressed(f"{save}/{kind}_{seed}_{s}_{k}.npz", image=img,
                                        grid=r.grid_corners, outer=r.corners)
            if verbose:
                print(f"{s}.{k} {look.describe()} scale={cond.scale:.2f} tilt={cond.tilt_deg:.0f}"
                      f" {ok}/{n} {reading.problem}", file=sys.stderr, flush=True)
    return {"set": kind, "scenes": scenes, "frames": scenes * 4,
            "space_accuracy": round(right / max(tot, 1), 4),
            "refused_frames": sum(problems.values()), "problems": dict(problems),
            "read_accuracy": round(read_right / max(read_sp, 1), 4),
            "read_unknown": round(unknown / max(read_sp, 1), 4),
            "read_wrong": round(wrong / max(read_sp, 1), 4), "grid_off": grid_off}


def darken_table(img: np.ndarray, outer: np.ndarray, factor: float) -> np.ndarray:
    """The table (everything outside the board's outer corners) made ``factor`` as bright."""
    import cv2
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.int32(np.round(outer)), 255)
    mask = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32)[..., None] / 255.0
    out = img.astype(np.float32) * (mask + (1 - mask) * factor)
    return np.clip(out, 0, 255).astype(np.uint8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python -m tools.uncal_dev --set edge,dark --scenes 16 --seed 21")
    ap.add_argument("--set", default="base",
                    help="base, close, closer, edge, dark or full (comma-separated)")
    ap.add_argument("--scenes", type=int, default=20)
    ap.add_argument("--seed", type=int, default=11, help="any but the benchmark's (1)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--save", default="", help="a folder to save the refused frames in")
    ap.add_argument("--true-grid", action="store_true",
                    help="read every frame on its true grid (the reading alone)")
    a = ap.parse_args(argv)
    for kind in a.set.split(","):
        print(json.dumps(run(kind, a.scenes, a.seed, a.verbose, a.save, a.true_grid)),
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
