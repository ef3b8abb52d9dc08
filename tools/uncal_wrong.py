"""Where reading without calibration is confidently wrong, on the tuned development sets of
:mod:`tools.uncal_dev` (never the held-out looks):
``python -m tools.uncal_wrong --set base,dark --scenes 16 --seed 21 --out /tmp/uw``, then
``python -m tools.uncal_wrong --causes /tmp/uw/*.pkl`` (the wrong readings by cause).

Reads the sets as ``tools.uncal_dev`` does and saves, per frame read, what the combination
of the learned classifier and the features saw (the model's probabilities and inputs, the
features' reading, the truth, the reading given, the grid found and the true one with the
lens bend: ``corners``, ``grid``, ``k1``), so that other rules can be weighed on them offline
without reading again, and a reading put down to the grid where it lies off the space."""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter

import numpy as np

from engine.observation import SpaceState
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
        from vision.classify import _centre_spread, features
        board, rows, cols, pairs = a[:4]
        f = features(board, rows, cols)
        cur.update(twins=True, pairs=list(pairs), centre=f.centre.copy(),
                   radial=f.radial.copy(), paper=f.paper.copy(), light=f.light.copy(),
                   spread=_centre_spread(board, rows, cols))
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


def causes(frames: list) -> tuple[Counter, list]:
    """The confident wrong readings of recorded frames (:func:`record`) by cause: what the
    space held and was read as, whether the model read it alone (``lone``: its twin holds a
    chip, no empty picture beside it) or beside its empty twin, and whether the twins'
    reading agreed. Returns the counts and one line per wrong reading (with the model's
    probability of the state read and the look)."""
    from vision.spacenet import CLASSES
    index = {c: i for i, c in enumerate(CLASSES)}
    counts: Counter = Counter()
    lines = []
    for f in frames:
        x = f["inputs"]
        lone = ~np.abs(x[:, 3:]).reshape(len(x), -1).any(axis=1)
        out = f.get("outside")
        for i, (a, t, b) in enumerate(zip(f["out"], f["truth"], f["board"])):
            if a is SpaceState.UNKNOWN or a == t or a == b or (out is not None and out[i]):
                continue
            held = "empty" if t is SpaceState.EMPTY else ("white chip" if t is SpaceState.WHITE
                                                          else "chip")
            read = ("white" if a is SpaceState.WHITE else "empty" if a is SpaceState.EMPTY
                    else "a coloured chip" if held == "empty" else "another colour")
            if held == "chip" and a is SpaceState.WHITE:
                read = "white"
            twins = "twins agree" if f["fs"][i] == a else "twins " + f["fs"][i].value
            key = f"{held} read {read}, {'alone' if lone[i] else 'beside its twin'}, " \
                  f"{'twins agree' if f['fs'][i] == a else 'model against the twins'}"
            counts[key] += 1
            p = float(f["probs"][i, index[a]]) if a in index else float("nan")
            lines.append(f"{t.value}->{a.value} model {p:.2f} {twins} lone={bool(lone[i])} "
                         f"{f['look']}")
    return counts, lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="example: python -m tools.uncal_wrong --set dark "
                                        "--scenes 16 --seed 21 --out /tmp/uw\n"
                                        "         python -m tools.uncal_wrong --causes "
                                        "/tmp/uw/dark_21.pkl",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="base")
    ap.add_argument("--scenes", type=int, default=16)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--out", default="", help="a folder for the frames' records")
    ap.add_argument("--causes", nargs="*", default=None, metavar="PKL",
                    help="print the wrong readings of saved records by cause (no reading)")
    a = ap.parse_args(argv)
    if a.causes is not None:
        frames = []
        for path in a.causes:
            try:
                with open(path, "rb") as fh:
                    frames += pickle.load(fh)
            except (OSError, pickle.UnpicklingError, EOFError) as exc:
                print(f"error: {path}: {exc}", file=sys.stderr)
                return 2
        counts, lines = causes(frames)
        for line in lines:
            print(" ", line)
        for key, n in counts.most_common():
            print(f"{n:5d}  {key}")
        print(f"{sum(counts.values()):5d}  all, {len(frames)} frames read")
        return 0
    if not a.out:
        ap.error("--out is needed to record (or --causes to summarise saved records)")
    for kind in a.set.split(","):
        res, frames = record(kind, a.scenes, a.seed)
        print(res, flush=True)
        with open(f"{a.out}/{kind}_{a.seed}.pkl", "wb") as fh:
            pickle.dump(frames, fh)
        print(f"{len(frames)} frames saved", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
