"""The board's own chips on boards read without calibration (session 8b), measured on
tuned development sets only: ``python -m tools.uncal_protos --set wild --scenes 10 --seed 81``.

Reads the scenes of :mod:`tools.uncal_dev` (one reader without calibration a scene, 4
frames, no hand) with the prototypes pass (vision/prototypes.py) run on them
(``prototypes.UNCALIBRATED`` on), and records what the pass changed, so that one run
scores both readings: without the pass (each changed space put back) and with it. Prints
one JSON line per set: spaces right, unknown and confidently wrong on the frames read,
off and on, and the spaces settled / doubted right and wrong.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from engine.game import builtin_layout
from engine.observation import SpaceState
from tools.uncal_dev import scene, scene_frame
from vision import prototypes
from vision.reader import BoardReader


def run(kind: str, scenes: int, seed: int) -> dict:
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 4242])
    changes: list = []
    settle = prototypes.settle

    def recording(*a, **k):
        before = list(a[1])
        states, conf = settle(*a, **k)
        changes.append([(i, b, s) for i, (b, s) in enumerate(zip(before, states)) if b != s])
        return states, conf

    prototypes.settle = recording
    prototypes.UNCALIBRATED = True
    c = {f"{w}_{x}": 0 for w in ("off", "on") for x in ("right", "unknown", "wrong")}
    c.update(spaces=0, settled_right=0, settled_wrong=0, doubted_right=0, doubted_wrong=0,
             refused=0)
    try:
        for _ in range(scenes):
            look, cond, fill, table_dim, extras = scene(kind, rng)
            reader = BoardReader(None, layout)
            for k in range(4):
                board, _, r, img = scene_frame(layout, rng, look, cond, fill, table_dim,
                                               extras, k)
                changes.clear()
                reading = reader.read(img)
                if not reading.found:
                    c["refused"] += 1
                    continue
                on = list(reading.observation.states)
                off = list(on)
                for ch in changes:
                    for i, b, s in ch:
                        if on[i] == s:        # not made unknown after (out of the frame)
                            off[i] = b
                truth = r.truth.states
                c["spaces"] += len(on)
                for w, st in (("off", off), ("on", on)):
                    for i, a in enumerate(st):
                        ok = a == truth[i] or a == board.states[i]
                        if ok or (r.unsure[i] and a is SpaceState.UNKNOWN):
                            c[f"{w}_right"] += 1
                        elif a is SpaceState.UNKNOWN:
                            c[f"{w}_unknown"] += 1
                        else:
                            c[f"{w}_wrong"] += 1
                for ch in changes:
                    for i, b, s in ch:
                        ok = s == truth[i] or s == board.states[i]
                        if s is SpaceState.UNKNOWN:
                            was = b == truth[i] or b == board.states[i]
                            c["doubted_wrong" if was else "doubted_right"] += 1
                        else:
                            c["settled_right" if ok else "settled_wrong"] += 1
    finally:
        prototypes.settle = settle
        prototypes.UNCALIBRATED = False
    return {"set": kind, "seed": seed, "scenes": scenes, **c}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python -m tools.uncal_protos --set wild --scenes 10 --seed 81")
    ap.add_argument("--set", default="base", help="a set of tools.uncal_dev (not edge)")
    ap.add_argument("--scenes", type=int, default=10)
    ap.add_argument("--seed", type=int, default=81, help="any but the benchmark's (1)")
    a = ap.parse_args(argv)
    known = ("base", "close", "closer", "dark", "full", "tilt", "lens", "dim", "glare", "busy",
             "wild")
    bad = [k for k in a.set.split(",") if k not in known]
    if bad:
        ap.error(f"--set {bad[0]!r}: expected one of {', '.join(known)}")
    for kind in a.set.split(","):
        print(json.dumps(run(kind, a.scenes, a.seed)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
