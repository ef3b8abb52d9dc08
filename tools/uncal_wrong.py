"""Where reading without calibration is confidently wrong, on the tuned development sets of
:mod:`tools.uncal_dev` (never the held-out looks):
``python -m tools.uncal_wrong --set base,dark --scenes 16 --seed 21 --out /tmp/uw``.

Reads the sets as ``tools.uncal_dev`` does and saves, per frame read, what the combination
of the learned classifier and the features saw (the model's probabilities and inputs, the
features' reading, the truth, the reading given, the grid found and the true one with the
lens bend: ``corners``, ``grid``, ``k1``), so that other rules can be weighed on them offline
without reading again, and a reading put down to the grid where it lies off the space."""

from __future__ import annotations

import argparse
import pickle
import sys

import numpy as np

import vision.reader as reader_mod
from tools import uncal_dev


def record(kind: str, scenes: int, seed: int) -> tuple[dict, list]:
    frames: list = []
    cur: dict = {}
    orig_learned = reader_mod.classify_learned
    orig_twins = reader_mod.classify_by_twins
    orig_render = uncal_dev.render
    orig_outside = reader_mod.outside_frame

    def outside(*a, **k):
        out = orig_outside(*a, **k)
        cur["outside"] = np.array(out, bool)
        return out
    from vision.spacenet import shared_model
    model = shared_model()
    orig_probs = model.probabilities

    def probs(x):
        out = orig_probs(x)
        if "inputs" not in cur:
            cur["inputs"], cur["probs0"] = x.copy(), out.copy()
        return out

    def twins(*a, **k):
        cur["twins"] = True
        return orig_twins(*a, **k)

    def learned(p, by_features, cols, *combine, **kw):
        out = orig_learned(p, by_features, cols, *combine, **kw)
        cur.update(probs=p.copy(), fs=list(by_features[0]), fconf=np.array(by_features[1]),
                   fhand=np.array(by_features[2]), combine=combine,
                   blown=kw.get("blown"), out=list(out[0]))
        return out

    def render(*a, **k):
        r = orig_render(*a, **k)
        if cur:
            frames.append(dict(cur))
        cur.clear()
        cur["truth"], cur["board"] = list(r.truth.states), list(a[1].states)
        cur["unsure"] = np.array(r.unsure)
        cur["look"] = k["look"].describe()
        cur["brightness"] = a[2].brightness
        cur["grid"] = np.float32(r.grid_corners)
        cur["k1"], cur["size"] = a[2].distortion, (a[2].width, a[2].height)
        return r

    orig_read = reader_mod.BoardReader.read

    def read(self, frame):
        out = orig_read(self, frame)
        if out.found and out.corners is not None:
            cur["corners"] = np.float32(out.corners)
        return out

    model.probabilities = probs
    reader_mod.classify_learned = learned
    reader_mod.classify_by_twins = twins
    uncal_dev.render = render
    reader_mod.outside_frame = outside
    reader_mod.BoardReader.read = read
    try:
        res = uncal_dev.run(kind, scenes, seed)
        if cur:
            frames.append(dict(cur))
    finally:
        model.probabilities = orig_probs
        reader_mod.classify_learned = orig_learned
        reader_mod.classify_by_twins = orig_twins
        uncal_dev.render = orig_render
        reader_mod.outside_frame = orig_outside
        reader_mod.BoardReader.read = orig_read
    return res, [f for f in frames if "probs" in f]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="example: python -m tools.uncal_wrong --set dark "
                                        "--scenes 16 --seed 21 --out /tmp/uw")
    ap.add_argument("--set", default="base")
    ap.add_argument("--scenes", type=int, default=16)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--out", required=True, help="a folder for the frames' records")
    a = ap.parse_args(argv)
    for kind in a.set.split(","):
        res, frames = record(kind, a.scenes, a.seed)
        print(res, flush=True)
        with open(f"{a.out}/{kind}_{a.seed}.pkl", "wb") as fh:
            pickle.dump(frames, fh)
        print(f"{len(frames)} frames saved", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
