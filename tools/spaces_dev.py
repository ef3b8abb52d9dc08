"""Development sets for the space classifier: ``python -m tools.spaces_dev``.

``make`` renders scenes of TUNED looks only (``draw_look(rng, "tuned")``: no held-out
family is ever seen) and stores, for every frame, what the calibrated reader sees of it:
each space's model input (the straightened, light-normalised space and the empty board's
reference patch), the hand-written features' reading, and the truth. The grid is the true
one moved by 0.04 of a space (as a calibration may be off; quicker than calibrating), and
a share of the scenes (``--photometric``) gets the training's generic camera and light
changes (``vision.train_spaces.photometric``: the light down to 30 %, gamma, a colour
cast, noise, defocus, JPEG). A hand is over the board in every third frame.

``compare`` replays stored sets through model files and the calibrated rule
(``classify_learned`` with ``COMBINE["calibrated"]`` or ``--rule``, after the four-turn
second look, with ``--second``'s opinion in it as the reader asks SEQBOARD_SPACE_SECOND's)
without rendering again, and prints per set and model: spaces right, wrong
readings (a count), wrong readings under hands, unknown far from hands, hand-free boards
entirely right; and the same for the model's argmax alone. Session three's sets were
seeds 8 and 9 (``--scenes 40`` and ``30``, ``--frames 9``, ``--photometric 0.8``);
docs/vision.md. Use other seeds than the benchmark's and never held-out looks.

``why`` (session ten) counts every space left unknown or read wrong on the stored frames
without a hand, after the rule and the board's-own-chips pass as the reader runs them, by
the pass that left it unknown, its true state, the features' and the model's readings.

Examples::

    python -m tools.spaces_dev make /tmp/dev9.npz --seed 9 --scenes 30 --frames 9
    python -m tools.spaces_dev compare /tmp/dev9.npz --model vision/models/spaces.onnx /tmp/new.onnx
    python -m tools.spaces_dev compare /tmp/dev9.npz --model vision/models/spaces.onnx \
        --second /tmp/s800.onnx
    python -m tools.spaces_dev make /tmp/shift21.npz --seed 21 --scenes 40 --photometric 0.5 --shift
    python -m tools.spaces_dev compare /tmp/shift21.npz --model vision/models/spaces.onnx \
        --prototypes "3,0.5,0;3,0.5,10"
    python -m tools.spaces_dev why /tmp/dev9.npz /tmp/shift21.npz --dump /tmp/why.jsonl
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

STATES = "." + "BGRW" + "?"     # index of each state in the stored sets (EMPTY ... UNKNOWN)


def shift_draw(rng: np.random.Generator) -> dict:
    """A scene's "shifted" changes (session eight): generic changes of the picture that the
    renderer never draws and the training never saw in these forms, to choose bars that do
    not only fit the renderer. Each is drawn for the scene (about half of them each): a
    gamma and a colour cast stronger than the training's, the chips' hues turned (every
    saturated colour's hue turned by up to 25 degrees), the saturation scaled (0.55-1.5),
    heavier defocus (sigma 1.4-2.6 px), heavier JPEG (quality 12-35) and vignetting (the
    corners of the picture down to 45-80 % of the centre)."""
    d = {"gamma": float(rng.uniform(0.6, 1.6)) if rng.random() < 0.5 else 1.0,
         "cast": rng.uniform(0.7, 1.3, 3).astype(np.float32) if rng.random() < 0.5
         else np.ones(3, np.float32),
         "hue": float(rng.uniform(-25, 25)) if rng.random() < 0.5 else 0.0,
         "sat": float(np.exp(rng.uniform(np.log(0.55), np.log(1.5)))) if rng.random() < 0.5
         else 1.0,
         "blur": float(rng.uniform(1.4, 2.6)) if rng.random() < 0.4 else 0.0,
         "jpeg": int(rng.integers(12, 36)) if rng.random() < 0.4 else 0,
         "vignette": float(rng.uniform(0.45, 0.8)) if rng.random() < 0.5 else 1.0}
    if all(d[k] == v for k, v in (("gamma", 1.0), ("hue", 0.0), ("sat", 1.0), ("blur", 0.0),
                                   ("jpeg", 0), ("vignette", 1.0))) and (d["cast"] == 1).all():
        d["hue"] = float(rng.uniform(-25, 25))
    return d


def shifted(img: np.ndarray, d: dict) -> np.ndarray:
    """``img`` (BGR) through the scene's shifted changes :func:`shift_draw`."""
    import cv2
    out = img
    if d["hue"] or d["sat"] != 1.0:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV_FULL).astype(np.float32)
        turn = d["hue"] / 360.0 * 256.0 * np.clip((hsv[..., 1] - 40.0) / 60.0, 0, 1)
        hsv[..., 0] = np.mod(hsv[..., 0] + turn, 256.0)
        hsv[..., 1] = np.clip(hsv[..., 1] * d["sat"], 0, 255)
        out = cv2.cvtColor(np.clip(hsv + 0.5, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR_FULL)
    x = out.astype(np.float32) / 255.0
    if d["vignette"] < 1.0:
        h, w = x.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
        x = x * (1.0 - (1.0 - d["vignette"]) * np.clip(r2 / 2.0, 0, 1))[..., None]
    x = np.clip(x * d["cast"], 0, 1) ** d["gamma"]
    out = np.clip(x * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if d["blur"]:
        out = cv2.GaussianBlur(out, (0, 0), d["blur"])
    if d["jpeg"]:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, d["jpeg"]])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def other_draw(rng: np.random.Generator) -> dict:
    """A scene's "other" changes (session nine's fourth split): changes of other kinds than
    :func:`shift_draw`'s, and than the training's augmentation (``--shift-aug``) holds,
    so a model trained with that augmentation is still measured on changes it never saw.
    Each is drawn for the scene (about half of them each): white balance that drifts
    across the picture (one side warmer, the other cooler, as
    two lights of different colour: 15-35 % a channel at the picture's edge), a lens
    vignette off the picture's centre (down to 35-70 %), lateral chromatic aberration
    (red and blue scaled apart by 0.4-1.2 % of the picture from its centre), sensor
    banding (rows brighter and darker by 4-12 levels), camera shake (a motion blur
    5-15 px long in any direction), over-sharpening (an unsharp mask, 1.5-3 times, as
    phone cameras apply) and coarse quantisation (4 or 5 bits a channel)."""
    d = {"wb": float(rng.uniform(0.15, 0.35)) if rng.random() < 0.5 else 0.0,
         "wb_angle": float(rng.uniform(0, 2 * np.pi)),
         "vig": float(rng.uniform(0.35, 0.7)) if rng.random() < 0.4 else 1.0,
         "vig_at": rng.uniform(-0.6, 0.6, 2),
         "ca": float(rng.uniform(0.004, 0.012)) if rng.random() < 0.5 else 0.0,
         "band": float(rng.uniform(4.0, 12.0)) if rng.random() < 0.4 else 0.0,
         "band_seed": int(rng.integers(1 << 30)),
         "shake": float(rng.uniform(5, 15)) if rng.random() < 0.4 else 0.0,
         "shake_angle": float(rng.uniform(0, 180)),
         "sharpen": float(rng.uniform(1.5, 3.0)) if rng.random() < 0.4 else 0.0,
         "bits": int(rng.integers(4, 6)) if rng.random() < 0.3 else 8}
    if not (d["wb"] or d["vig"] < 1 or d["ca"] or d["band"] or d["shake"] or d["sharpen"]
            or d["bits"] < 8):
        d["wb"] = float(rng.uniform(0.15, 0.35))
    return d


def othered(img: np.ndarray, d: dict) -> np.ndarray:
    """``img`` (BGR) through the scene's other changes :func:`other_draw`."""
    import cv2
    h, w = img.shape[:2]
    x = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    if d["ca"]:
        # lateral chromatic aberration: red a little larger than green, blue a little smaller
        for ch, k in ((2, 1.0 + d["ca"]), (0, 1.0 - d["ca"])):
            mx = (w / 2 + (xx - w / 2) / k).astype(np.float32)
            my = (h / 2 + (yy - h / 2) / k).astype(np.float32)
            x[..., ch] = cv2.remap(x[..., ch], mx, my, cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT)
    if d["shake"]:
        n = int(round(d["shake"])) | 1
        ker = np.zeros((n, n), np.float32)
        ker[n // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), d["shake_angle"], 1.0)
        ker = cv2.warpAffine(ker, rot, (n, n))
        x = cv2.filter2D(x, -1, ker / max(float(ker.sum()), 1e-6))
    if d["wb"]:
        t = np.cos(d["wb_angle"]) * u + np.sin(d["wb_angle"]) * v      # -1.4 .. 1.4 across
        t = np.clip(t, -1, 1)[..., None]
        warm = np.array([-d["wb"], 0.0, d["wb"]], np.float32)     # BGR: redder, less blue
        x = x * (1.0 + t * warm)             # one side warmer, the other as much cooler
    if d["vig"] < 1.0:
        r2 = (u - d["vig_at"][0]) ** 2 + (v - d["vig_at"][1]) ** 2
        x = x * (1.0 - (1.0 - d["vig"]) * np.clip(r2 / 2.5, 0, 1))[..., None]
    if d["sharpen"]:
        soft = cv2.GaussianBlur(x, (0, 0), 1.5)
        x = x + d["sharpen"] * (x - soft)
    if d["band"]:
        rows = np.random.default_rng(d["band_seed"]).normal(0, d["band"], h).astype(np.float32)
        rows = np.convolve(rows, np.ones(3, np.float32) / 3, mode="same")
        x = x + rows[:, None, None]
    out = np.clip(x + 0.5, 0, 255).astype(np.uint8)
    if d["bits"] < 8:
        step = 1 << (8 - d["bits"])
        out = (out // step * step + step // 2).astype(np.uint8)
    return out


def make(out: Path, seed: int, scenes: int, frames: int, photo: float, progress,
         shift: bool = False, other: bool = False) -> None:
    import cv2
    cv2.setNumThreads(1)
    from engine.game import builtin_layout
    from engine.observation import Observation

    from vision.classify import Reference, classify, features
    from vision.locate import straighten
    from vision.looks import draw_look, look_conditions
    from vision.spacenet import space_inputs
    from vision.synth import random_board, render
    from vision.train_spaces import photometric
    index = {c: i for i, c in enumerate(STATES)}
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 19])
    prng = np.random.default_rng([seed, 77])
    n = layout.size
    rec: dict = {k: [] for k in "x ref fst fconf fhand truth under occ unsure scene hand "
                                "blown".split()}
    looks = []
    t0 = time.time()
    for s in range(scenes):
        look = draw_look(rng, "tuned")
        cond = look_conditions(look)
        looks.append(look.describe())
        empty = render(layout, Observation.empty(layout.rows, layout.cols), cond,
                       seed=int(rng.integers(1 << 30)), jitter=0, look=look)
        space = float(np.linalg.norm(empty.grid_corners[1] - empty.grid_corners[0])) / layout.cols
        corners = np.float32(empty.grid_corners + rng.normal(0, 0.04 * space, (4, 2)))
        base = None
        if prng.random() < photo:
            base = {"level": float(np.exp(prng.uniform(np.log(0.3), 0.0))),
                    "gamma": float(prng.uniform(0.75, 1.35)),
                    "cast": prng.uniform(0.82, 1.18, 3).astype(np.float32)}
        sh = shift_draw(prng) if shift else None
        ot = other_draw(prng) if other else None
        img = photometric(empty.image, prng, base) if base else empty.image
        img = shifted(img, sh) if sh else img
        img = othered(img, ot) if ot else img
        ref = Reference.from_features(features(straighten(img, corners, layout), 10, 10))
        for k in range(frames):
            hand = k % 3 == 2
            c = replace(cond, hand_at=int(rng.integers(0, n)) if hand else None,
                        brightness=cond.brightness * float(rng.uniform(0.94, 1.06)))
            board = random_board(layout, rng, fill=float(rng.uniform(0.1, 0.6)))
            r = render(layout, board, c, seed=int(rng.integers(1 << 30)), look=look)
            img = photometric(r.image, prng, base) if base else r.image
            img = shifted(img, sh) if sh else img
            img = othered(img, ot) if ot else img
            cr = np.float32(corners + rng.normal(0, 0.01 * space, (4, 2)))
            f = features(straighten(img, cr, layout), 10, 10)
            st, cf, hd = classify(f, ref, layout.free, 9.0, layout.cols)
            x = space_inputs(f.norm, None)[:, :3]
            rec["x"].append(np.clip((x + 1) * 127.5, 0, 255).astype(np.uint8))
            rec["ref"].append(np.clip(ref.patch, 0, 255).astype(np.uint8))
            rec["fst"].append([index[v.value] for v in st])
            rec["fconf"].append(cf)
            rec["fhand"].append(hd)
            rec["truth"].append([index[v.value] for v in r.truth.states])
            rec["under"].append([index[v.value] for v in board.states])
            rec["occ"].append(r.occluded)
            rec["unsure"].append(r.unsure)
            rec["scene"].append(s)
            rec["hand"].append(hand)
            rec["blown"].append(f.paper.min(axis=1) >= 250)
        progress(f"scene {s + 1}/{scenes} ({time.time() - t0:.0f} s): {looks[-1]}"
                 + (" + photometric" if base else "")
                 + (" + shifted " + ", ".join(f"{k} {np.round(v, 2)}" for k, v in sh.items())
                    if sh else "")
                 + (" + other " + ", ".join(f"{k} {np.round(v, 3)}" for k, v in ot.items())
                    if ot else ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, looks=np.array(looks), **{k: np.array(v) for k, v in rec.items()})
    progress(f"saved {out}: {scenes * frames} frames")


KEYS = ("x", "ref", "fst", "fconf", "fhand", "truth", "under", "occ", "unsure", "hand", "blown",
        "scene")


def load(path: Path) -> dict:
    import pickle
    import zipfile
    try:
        d = np.load(path)
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, pickle.UnpicklingError) as e:
        raise ValueError(f"{path}: cannot read it ({e.__class__.__name__})") from None
    if not hasattr(d, "files"):
        raise ValueError(f"{path}: not a development set (one array, not a .npz)")
    with d:
        missing = [k for k in KEYS if k not in ("blown", "scene") and k not in d.files]
        if missing:
            raise ValueError(f"{path}: not a development set (no {missing[0]!r})")
        return {k: d[k] for k in KEYS if k in d.files}


def frame_inputs(xs: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """The model input of one stored frame (calibrated: each space beside its reference)."""
    from vision.spacenet import CHANNELS, SIDE
    n = len(xs)
    x = np.zeros((n, CHANNELS, SIDE, SIDE), np.float32)
    x[:, :3] = xs.astype(np.float32) / 127.5 - 1
    p = refs.astype(np.float32).reshape(n, 8, 8, 3).repeat(2, 1).repeat(2, 2)
    x[:, 3:6] = p.transpose(0, 3, 1, 2) / 127.5 - 1
    x[:, 6] = 1
    return x


def veto_probabilities(veto, d: dict) -> np.ndarray:
    """The veto model's probabilities of every space of every stored frame."""
    return np.stack([veto.probabilities(frame_inputs(xs, refs))
                     for xs, refs in zip(d["x"], d["ref"])])


def apply_veto(states: np.ndarray, vp: np.ndarray, bar: float, empty: bool = False,
               probs: np.ndarray | None = None, below: float = 1.01) -> np.ndarray:
    """``states`` with the readings the veto's probabilities ``vp`` give less than ``bar``
    unknown (chips and white; with ``empty`` empty spaces too), as the reader does; with
    ``probs`` (the shipped model's), only those it gives less than ``below``."""
    from vision.spacenet import CLASSES
    unknown = len(STATES) - 1
    cls = {STATES.index(c.value): i for i, c in enumerate(CLASSES) if c.value in STATES[:-1]}
    asked = (states >= (0 if empty else 1)) & (states < unknown)
    idx = np.vectorize(lambda v: cls.get(int(v), 0))(states)
    p = np.take_along_axis(vp, idx[..., None], axis=-1)[..., 0]
    if probs is not None:
        asked = asked & (np.take_along_axis(probs, idx[..., None], axis=-1)[..., 0] < below)
    out = states.copy()
    out[asked & (p < bar)] = unknown
    return out


def probabilities(net, d: dict) -> np.ndarray:
    """The model's probabilities of every stored frame after the reader's second look, and
    the spaces its second model disputes."""
    from vision.reader import STEADY_BELOW, STEADY_MOST
    from vision.spacenet import second_opinion
    out, disputed = [], []
    for xs, refs in zip(d["x"], d["ref"]):
        x = frame_inputs(xs, refs)
        p, q = second_opinion(net, x, net.probabilities(x), STEADY_BELOW, STEADY_MOST)
        out.append(p)
        disputed.append(q)
    return np.stack(out), np.stack(disputed)


def combined(d: dict, probs: np.ndarray, rule: tuple, disputed: np.ndarray | None = None,
             why: list | None = None, board: bool = False) -> np.ndarray:
    """The rule's states of every stored frame; ``why`` gets, per frame, the list of
    classify_learned's causes (the pass that left each space unknown)."""
    from engine.observation import SpaceState

    from vision.classify import calibrated_keywords, classify_learned
    states = [SpaceState(c) for c in STATES]
    index = {s: i for i, s in enumerate(states)}
    out = []
    for i in range(len(probs)):
        causes: list = []
        fs = [states[v] for v in d["fst"][i]]
        st, _, _ = classify_learned(probs[i], (fs, d["fconf"][i], d["fhand"][i].astype(bool)),
                                    10, *rule,
                                    blown=d["blown"][i].astype(bool) if "blown" in d else None,
                                    disputed=None if disputed is None else disputed[i],
                                    **calibrated_keywords(board), why=causes)
        out.append([index[s] for s in st])
        if why is not None:
            why.append(causes)
    return np.array(out)


def default_rule(net) -> tuple:
    """The reader's rule for a calibrated board read by ``net``: COMBINE["board"] for the
    board network, COMBINE["calibrated"] for the one-space classifier."""
    from vision.reader import COMBINE
    return COMBINE["board" if getattr(net, "board", False) else "calibrated"]


def right_spaces(d: dict, states: np.ndarray) -> np.ndarray:
    """Which spaces of every stored frame ``states`` read right: as they are, as the chip
    under a hand, or unknown where the truth allows it."""
    unknown = len(STATES) - 1
    return (states == d["truth"]) | (states == d["under"]) | (
        d["unsure"].astype(bool) & (states == unknown))


def score(d: dict, states: np.ndarray) -> dict:
    import cv2
    unknown = len(STATES) - 1
    tr, un = d["truth"], d["under"]
    occ = d["occ"].astype(bool)
    right = right_spaces(d, states)
    wrong = ~occ & (states != tr) & (states != unknown)
    k = np.ones((3, 3), np.uint8)
    near = np.stack([cv2.dilate(o.reshape(10, 10).astype(np.uint8), k).ravel() > 0
                     for o in occ])
    nohand = ~d["hand"].astype(bool)
    return {"right": round(float(right.mean()), 5), "wrong": int(wrong.sum()),
            "under_hands": int((occ & (states != unknown) & (states != un)).sum()),
            "unknown_far": round(float(((~near) & (states == unknown)).sum() / (~near).sum()), 5),
            "boards": round(float(right.all(1)[nohand].mean()), 3) if nohand.any() else None}


def with_prototypes(d: dict, probs: np.ndarray, states: np.ndarray, bars: tuple) -> np.ndarray:
    """``states`` (the rule's, every stored frame) after the board's-own-chips pass
    (vision/prototypes.py) with ``bars`` (near, ratio, far): the prototypes kept over the
    frames of a scene, as one reader keeps them over a game."""
    from engine.observation import SpaceState

    from vision.prototypes import Prototypes, settle
    from vision.spacenet import COVERED
    objs = [SpaceState(c) for c in STATES]
    scenes = d.get("scene", np.zeros(len(probs), int))
    out, memory = [], None
    for i in range(len(probs)):
        if i == 0 or scenes[i] != scenes[i - 1]:
            memory = Prototypes()
        hand = (probs[i].argmax(1) == COVERED) | (probs[i][:, COVERED] >= 0.5)
        got, _ = settle(probs[i], [objs[v] for v in states[i]], np.ones(len(hand)), hand,
                        frame_inputs(d["x"][i], d["ref"][i]), 10, memory,
                        d["blown"][i].astype(bool) if "blown" in d else None, *bars)
        out.append([STATES.index(v.value) for v in got])
    return np.array(out)


def why(d: dict, probs: np.ndarray, disputed: np.ndarray, rule: tuple,
        bars: tuple | None = None, board: bool = False) -> list[dict]:
    """Every space wrongly left unknown or read wrong on the stored frames without a hand,
    after the rule and (``bars``) the prototypes' pass: one record each, with the pass
    that left it unknown (classify_learned's cause, "prototypes' doubt" where that pass
    took a reading back; "" for a wrong reading), the true state, the features' and the
    model's readings, the model's top two probabilities, and whether the frame's board is
    otherwise right (a board lost on this space alone)."""
    causes: list = []
    states = combined(d, probs, rule, disputed, causes, board)
    final = with_prototypes(d, probs, states, bars) if bars else states
    unknown = len(STATES) - 1
    tr = d["truth"]
    right = right_spaces(d, final)
    from vision.spacenet import CLASSES
    cls = [STATES.index(c.value) if c.value in STATES else unknown for c in CLASSES]
    out = []
    for i in np.flatnonzero(~d["hand"].astype(bool)):
        bad = np.flatnonzero(~right[i])
        for j in bad:
            order = np.argsort(-probs[i, j])
            cause = causes[i][j] if final[i, j] == unknown else ""
            if final[i, j] == unknown and states[i, j] != unknown:
                cause = "prototypes' doubt"
            out.append({"frame": int(i), "space": int(j), "cause": cause,
                        "truth": STATES[tr[i, j]], "read": STATES[final[i, j]],
                        "features": STATES[d["fst"][i][j]],
                        "model": STATES[cls[order[0]]], "p": round(float(probs[i, j, order[0]]), 3),
                        "second": STATES[cls[order[1]]],
                        "p2": round(float(probs[i, j, order[1]]), 3),
                        "alone": len(bad) == 1})
    return out


def why_table(rows: list[dict]) -> list[str]:
    """Counts of :func:`why`'s records by cause, true state and the model's top state and
    probability (the bins 0.6, 0.9, 0.97), the most first."""
    from collections import Counter

    def pbin(p: float) -> str:
        return "<0.6" if p < 0.6 else "<0.9" if p < 0.9 else "<0.97" if p < 0.97 else ">=0.97"
    def key(r: dict) -> tuple:
        return (r["cause"] or "WRONG", r["truth"], r["features"], r["model"], pbin(r["p"]),
                r["second"])
    c = Counter(map(key, rows))
    alone = Counter(key(r) for r in rows if r["alone"])
    return [f"{n:5d} ({alone[k]:4d} alone)  {k[0]:18s} truth {k[1]}  features {k[2]}  "
            f"model {k[3]} {k[4]:6s} then {k[5]}" for k, n in c.most_common()]


def compare(sets: list[Path], models: list[Path], rule: tuple,
            second: Path | None = None, veto: Path | None = None,
            bars: tuple = (), veto_empty: bool = False, below: float = 1.01,
            protos: tuple = ()) -> list[dict]:
    from vision.spacenet import SpaceNet, VetoNet, load_model
    rows = []
    data = [(p, load(p)) for p in sets]
    other = SpaceNet(second) if second else None
    vnet = VetoNet(veto) if veto else None
    for m in models:
        net = load_model(m if "," in str(m) else Path(m), other)
        name = f"{m}+{second}" if second else str(m)
        board = getattr(net, "board", False)
        for p, d in data:
            probs, disputed = probabilities(net, d)
            rows.append({"set": str(p), "model": name, "how": "argmax",
                         **score(d, probs.argmax(-1))})
            states = combined(d, probs, rule or default_rule(net), disputed, board=board)
            rows.append({"set": str(p), "model": name, "how": "rule", **score(d, states)})
            for pb in protos:
                rows.append({"set": str(p), "model": name,
                             "how": "rule+protos@" + ",".join(f"{v:g}" for v in pb),
                             **score(d, with_prototypes(d, probs, states, pb))})
            if vnet is not None:
                vp = veto_probabilities(vnet, d)
                rows.append({"set": str(p), "model": str(veto), "how": "veto-argmax",
                             **score(d, vp.argmax(-1))})
                for bar in bars:
                    got = apply_veto(states, vp, bar, veto_empty, probs, below)
                    asked = apply_veto(states, np.zeros_like(vp), 1.0, veto_empty, probs,
                                       below) != states
                    rows.append({"set": str(p), "model": name, "how": f"rule+veto@{bar}",
                                 **score(d, got), "asked_a_frame":
                                 round(float(asked.sum(1).mean()), 1)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.spaces_dev", description=__doc__.split("\n\n")[0],
        epilog="examples:\n  python -m tools.spaces_dev make /tmp/dev9.npz --seed 9 --scenes 30"
               " --frames 9\n  python -m tools.spaces_dev compare /tmp/dev9.npz --model "
               "vision/models/spaces.onnx /tmp/new.onnx\n",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="render a development set of tuned looks")
    mk.add_argument("out", type=Path)
    mk.add_argument("--seed", type=int, required=True,
                    help="not the benchmark's (1); session three used 8 and 9")
    mk.add_argument("--scenes", type=int, default=30)
    mk.add_argument("--frames", type=int, default=9, help="frames a scene (a hand in every third)")
    mk.add_argument("--photometric", type=float, default=0.8,
                    help="share of the scenes with generic light and camera changes (default 0.8)")
    mk.add_argument("--shift", action="store_true",
                    help="every scene also through changes the renderer never draws (gamma and "
                         "colour casts, chips' hues turned, saturation, heavy blur and JPEG, "
                         "vignetting: shift_draw); session eight's third split")
    mk.add_argument("--other", action="store_true",
                    help="every scene also through changes of other kinds (white balance "
                         "drifting across the picture, an off-centre vignette, chromatic "
                         "aberration, sensor banding, camera shake, over-sharpening, coarse "
                         "quantisation: other_draw); session nine's fourth split, changes the "
                         "training's --shift-aug never makes")
    cp = sub.add_parser("compare", help="replay stored sets through model files and the rule")
    cp.add_argument("sets", type=Path, nargs="+")
    cp.add_argument("--model", nargs="+", required=True,
                    help="model files; several board networks read together: A.onnx,B.onnx")
    cp.add_argument("--rule", default=None,
                    help="the calibrated rule's five figures, comma-separated (default: "
                         "the reader's COMBINE['calibrated'], or COMBINE['board'] for a board network)")
    cp.add_argument("--second", type=Path, default=None,
                    help="a second model's opinion on the spaces each model is unsure of "
                         "(as the reader asks SEQBOARD_SPACE_SECOND's); default: none")
    cp.add_argument("--veto", type=Path, default=None,
                    help="a veto model (vision/models/spaces_veto.onnx): the rule's readings "
                         "it gives less than each --veto-bar are made unknown")
    cp.add_argument("--veto-bar", default="0.5",
                    help="the veto's bars to try, comma-separated (default 0.5)")
    cp.add_argument("--veto-below", type=float, default=None,
                    help="the veto is asked only about readings the model gives less than "
                         "this (default: the reader's VETO_ASK_BELOW; 1.01: all)")
    cp.add_argument("--veto-empty", action="store_true",
                    help="the veto is asked about spaces read empty too (default: chips and "
                         "white only, as the reader)")
    cp.add_argument("--prototypes", default=None, metavar="NEAR,RATIO,FAR[;...]",
                    help="the board's-own-chips pass (vision/prototypes.py) after the rule, "
                         "with each set of bars (';' between sets; e.g. 3,0.5,10)")
    cp.add_argument("--json", action="store_true", help="one JSON object a line")
    wy = sub.add_parser("why", help="count the spaces left unknown or read wrong on frames "
                                     "without a hand, by the pass that left them unknown")
    wy.add_argument("sets", type=Path, nargs="+")
    wy.add_argument("--model", type=Path, default=None,
                    help="the model file (default: the shipped vision/models/spaces.onnx)")
    wy.add_argument("--prototypes", default="default", metavar="NEAR,RATIO,FAR",
                    help="the board's-own-chips pass's bars (default: the reader's; off: none)")
    wy.add_argument("--dump", type=Path, default=None,
                    help="also write every record, one JSON object a line")
    args = ap.parse_args(argv)

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if args.cmd == "make":
        make(args.out, args.seed, args.scenes, args.frames, args.photometric, progress,
             args.shift, args.other)
        return 0
    from vision.spacenet import ModelError
    rule = None
    if args.cmd == "why":
        return why_main(args, rule)
    if args.rule:
        try:
            rule = tuple(float(v) for v in args.rule.split(","))
            if len(rule) != 5:
                raise ValueError
        except ValueError:
            print(f"error: --rule {args.rule!r}: five numbers, comma-separated", file=sys.stderr)
            return 2
    try:
        bars = tuple(float(v) for v in args.veto_bar.split(","))
    except ValueError:
        print(f"error: --veto-bar {args.veto_bar!r}: numbers, comma-separated", file=sys.stderr)
        return 2
    try:
        protos = tuple(tuple(float(v) for v in grp.split(",")) for grp in
                       args.prototypes.split(";")) if args.prototypes else ()
        if any(len(g) != 3 for g in protos):
            raise ValueError
    except ValueError:
        print(f"error: --prototypes {args.prototypes!r}: three numbers (near, ratio, far) a "
              "set, comma-separated, sets separated by ';'", file=sys.stderr)
        return 2
    try:
        from vision.reader import VETO_ASK_BELOW
        rows = compare(args.sets, args.model, rule, args.second, args.veto, bars,
                       args.veto_empty,
                       VETO_ASK_BELOW if args.veto_below is None else args.veto_below, protos)
    except (ValueError, ModelError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import json
    for r in rows:
        print(json.dumps(r) if args.json else
              f"{r['set']}  {r['model']}  {r['how']:6s}  right {r['right']}  wrong {r['wrong']}  "
              f"under hands {r['under_hands']}  unknown far {r['unknown_far']}  "
              f"boards {r['boards']}"
              + (f"  asked {r['asked_a_frame']}" if "asked_a_frame" in r else ""))
    return 0


def why_main(args, rule: tuple) -> int:
    import json

    from vision import prototypes as pr
    from vision.spacenet import MODEL_PATH, ModelError, load_model
    if args.prototypes == "default":
        bars = (pr.NEAR, pr.RATIO, pr.FAR)
    elif args.prototypes == "off":
        bars = None
    else:
        try:
            bars = tuple(float(v) for v in args.prototypes.split(","))
            if len(bars) != 3:
                raise ValueError
        except ValueError:
            print(f"error: --prototypes {args.prototypes!r}: three numbers (near, ratio, far), "
                  "comma-separated, or off", file=sys.stderr)
            return 2
    if args.dump and not args.dump.parent.is_dir():
        print(f"error: --dump {args.dump}: no such folder", file=sys.stderr)
        return 2
    try:
        net = load_model(args.model or MODEL_PATH)
        data = [(p, load(p)) for p in args.sets]
    except (ValueError, ModelError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rows = []
    for p, d in data:
        probs, disputed = probabilities(net, d)
        got = why(d, probs, disputed, rule or default_rule(net), bars,
                  getattr(net, "board", False))
        frames = int((~d["hand"].astype(bool)).sum())
        lost = len({r["frame"] for r in got})
        print(f"{p}: {frames} frames without a hand, {lost} not entirely right, "
              f"{sum(r['cause'] != '' for r in got)} spaces left unknown, "
              f"{sum(r['cause'] == '' for r in got)} read wrong")
        rows += [{"set": str(p), **r} for r in got]
    print("\n".join(why_table(rows)))
    if args.dump:
        try:
            args.dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
        except OSError as e:
            print(f"error: --dump {args.dump}: {e.strerror}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
