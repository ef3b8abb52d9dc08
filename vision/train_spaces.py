"""Retrain the space classifier (vision/models/spaces.onnx) from seeded renders of TUNED looks.

    python -m vision.train_spaces --seed 1                 # data, training, export (minutes)
    python -m vision.train_spaces --seed 1 --scenes 40     # a smaller, quicker run

Needs the ``train`` extra (``pip install -e '.[train]'``: PyTorch, CPU build); reading
never does. The data are crops of spaces from renders of looks drawn by
``draw_look(rng, "tuned")`` only (no held-out family is ever seen), straightened as the
reader straightens them (the grid corners off by up to a few per cent of a space, as a
calibration may be), light-normalised by the board's own paper, each with its empty-board
reference from the same scene; hands, sleeves, shadows, glare, blur and chips off-centre
come from the renderer. The data are cached in ``build/spaces-data/`` (not in git). The
same seed gives the same data and, on the same machine, the same model.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from .spacenet import CHANNELS, CLASSES, COVERED, MODEL_PATH, SIDE, space_inputs

BATCH = 256
LABEL = {s.value: i for i, s in enumerate(CLASSES) if i != COVERED}


def _scene(args) -> dict:
    """The samples of one scene: (crops uint8, reference patches uint8, labels)."""
    seed, index, frames = args
    import cv2
    cv2.setNumThreads(1)
    from engine.game import builtin_layout
    from engine.observation import Observation

    from .classify import Reference, features
    from .locate import straighten
    from .looks import draw_look, look_conditions
    from .synth import CONDITION_KINDS, random_board, random_conditions, render
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 1901, index])
    n = layout.size
    old_world = rng.random() < 0.15          # now and then the project's own plain look
    if old_world:
        look = None
        cond = random_conditions(rng, CONDITION_KINDS[int(rng.integers(len(CONDITION_KINDS)))])
        cond = replace(cond, hand_at=None)
    else:
        look = draw_look(rng, "tuned")
        cond = look_conditions(look)
    empty = render(layout, Observation.empty(layout.rows, layout.cols), cond,
                   seed=int(rng.integers(1 << 30)), jitter=0, look=look)
    space = float(np.linalg.norm(empty.grid_corners[1] - empty.grid_corners[0])) / layout.cols
    corners = np.float32(empty.grid_corners + rng.normal(0, 0.04 * space, (4, 2)))
    ref_feats = features(straighten(empty.image, corners, layout), layout.rows, layout.cols)
    ref = Reference.from_features(ref_feats)
    xs, refs, ys = [], [], []

    def add(feats, labels):
        x = space_inputs(feats.norm, None)[:, 0:3]
        xs.append(np.clip((x + 1.0) * 127.5, 0, 255).astype(np.uint8))
        refs.append(np.clip(ref.patch, 0, 255).astype(np.uint8))
        ys.append(np.asarray(labels, np.int64))

    add(ref_feats, [LABEL["."]] * n)
    for k in range(frames):
        hand = rng.random() < 0.45
        c = replace(cond, hand_at=int(rng.integers(0, n)) if hand else None,
                    brightness=cond.brightness * float(rng.uniform(0.9, 1.1)))
        board = random_board(layout, rng, fill=float(rng.uniform(0.1, 0.7)))
        r = render(layout, board, c, seed=int(rng.integers(1 << 30)), look=look)
        # the camera may have been nudged a little since calibration
        cr = np.float32(corners + rng.normal(0, 0.015 * space, (4, 2)))
        f = features(straighten(r.image, cr, layout), layout.rows, layout.cols)
        labels = [COVERED if occ else LABEL[st.value] for st, occ in zip(board.states, r.occluded)]
        add(f, labels)
    return {"x": np.concatenate(xs), "ref": np.concatenate(refs), "y": np.concatenate(ys)}


def make_data(seed: int, scenes: int, frames: int, jobs: int, cache: Path, progress) -> dict:
    path = cache / f"spaces-seed{seed}-scenes{scenes}-frames{frames}.npz"
    if path.is_file():
        progress(f"data: {path} (cached)")
        with np.load(path) as d:
            return {k: d[k] for k in d.files}
    parts = []
    t0 = time.time()
    work = [(seed, i, frames) for i in range(scenes)]
    if jobs > 1:
        from multiprocessing import get_context
        with get_context("fork").Pool(jobs) as pool:
            for i, part in enumerate(pool.imap(_scene, work)):
                parts.append(part)
                progress(f"data: scene {i + 1}/{scenes} ({time.time() - t0:.0f} s)")
    else:
        for i, w in enumerate(work):
            parts.append(_scene(w))
            progress(f"data: scene {i + 1}/{scenes} ({time.time() - t0:.0f} s)")
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("x", "ref", "y")}
    data["scene"] = np.concatenate([np.full(len(p["y"]), i) for i, p in enumerate(parts)])
    cache.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **data)
    progress(f"data: {len(data['y'])} spaces from {scenes} scenes saved in {path}")
    return data


def _net():
    from torch import nn

    def block(a, b, stride=1):
        return [nn.Conv2d(a, b, 3, padding=1, stride=stride, bias=False), nn.BatchNorm2d(b),
                nn.ReLU()]
    # 16 x 16 in, 8 x 8 after the first (strided) layer, 4 x 4 after the pool: ~20,000
    # parameters, about 0.5 million multiply-adds a space
    return nn.Sequential(*block(CHANNELS, 16, 2), *block(16, 32), nn.MaxPool2d(2),
                         *block(32, 48), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(48, len(CLASSES)))


def train(data: dict, seed: int, epochs: int, progress):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    x = space_inputs_from_data(data)
    y = torch.from_numpy(data["y"])
    # a few scenes kept aside to say how training goes (tuned looks: not the held-out figure)
    val = data["scene"] % 10 == 0
    tr_idx, va_idx = np.flatnonzero(~val), np.flatnonzero(val)
    # most spaces are empty: a quarter of the empty ones is plenty, and training is quicker
    empty = data["y"][tr_idx] == 0
    keep = ~empty | (np.random.default_rng([seed, 2]).random(len(tr_idx)) < 0.3)
    tr_idx = tr_idx[keep]
    va_idx = va_idx[np.random.default_rng([seed, 3]).random(len(va_idx)) < 0.5]
    model = _net()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * (len(tr_idx) // BATCH + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = np.random.default_rng(seed)
    counts = np.bincount(data["y"][tr_idx], minlength=len(CLASSES)).astype(np.float64)
    weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(CLASSES)) ** 0.5,
                          dtype=torch.float32)
    for ep in range(epochs):
        model.train()
        order = gen.permutation(tr_idx)
        t0, total, seen = time.time(), 0.0, 0
        for b in range(0, len(order), BATCH):
            idx = order[b:b + BATCH]
            if b // BATCH % 50 == 0:
                progress(f"epoch {ep + 1}/{epochs}: {b}/{len(order)} spaces")
            xb = augment(x[idx].clone(), gen)
            loss = F.cross_entropy(model(xb), y[idx], weight=weight, label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
        acc, acc_noref = evaluate(model, x, y, va_idx)
        progress(f"epoch {ep + 1}/{epochs}: loss {total / seen:.4f}, tuned validation "
                 f"{acc:.4f} (without reference {acc_noref:.4f}) {time.time() - t0:.0f} s")
    model.eval()
    return model


def space_inputs_from_data(data: dict):
    import torch
    n = len(data["y"])
    x = np.zeros((n, CHANNELS, SIDE, SIDE), np.float32)
    x[:, 0:3] = data["x"].astype(np.float32) / 127.5 - 1.0
    r = space_inputs(np.zeros((n, 32 * 32, 3), np.float32), data["ref"].astype(np.float32))
    x[:, 3:] = r[:, 3:]
    return torch.from_numpy(x)


def augment(xb, gen: np.random.Generator):
    """Turns and mirrors (cards are printed any way round), light off by a little in
    strength and colour (the normalisation is not perfect), the reference dropped for a
    third of the spaces (reading without calibration)."""
    import torch
    k = int(gen.integers(4))
    xb = torch.rot90(xb, k, dims=(2, 3))
    if gen.random() < 0.5:
        xb = torch.flip(xb, dims=(3,))
    m = len(xb)
    gain = torch.from_numpy(gen.uniform(0.85, 1.12, (m, 1, 1, 1)).astype(np.float32)) * \
        torch.from_numpy(gen.uniform(0.95, 1.05, (m, 3, 1, 1)).astype(np.float32))
    xb[:, 0:3] = (xb[:, 0:3] + 1.0) * gain - 1.0
    drop = torch.from_numpy(gen.random(m) < 0.33)
    xb[drop, 3:] = 0.0
    return xb


def evaluate(model, x, y, idx):
    import torch
    model.eval()
    with torch.no_grad():
        xb = x[idx]
        acc = float((model(xb).argmax(1) == y[idx]).float().mean())
        xn = xb.clone()
        xn[:, 3:] = 0.0
        acc_n = float((model(xn).argmax(1) == y[idx]).float().mean())
    return acc, acc_n


def export(model, out: Path) -> None:
    import torch
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, CHANNELS, SIDE, SIDE)
    kw = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
    torch.onnx.export(model, dummy, str(out), input_names=["spaces"], output_names=["logits"],
                      dynamic_axes={"spaces": {0: "n"}, "logits": {0: "n"}}, opset_version=11,
                      do_constant_folding=True, **kw)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m vision.train_spaces",
        description="Retrain the space classifier from seeded renders of tuned looks and export "
                    "it to ONNX (vision/models/spaces.onnx). Needs the 'train' extra.",
        epilog="examples:\n  python -m vision.train_spaces --seed 1\n"
               "  nice -n 10 python -m vision.train_spaces --seed 1 --jobs 2 --out /tmp/s.onnx",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1, help="seed of the data and the training (default 1)")
    ap.add_argument("--scenes", type=int, default=220, help="rendered scenes (default 220)")
    ap.add_argument("--frames", type=int, default=7, help="frames with chips per scene (default 7)")
    ap.add_argument("--epochs", type=int, default=4, help="passes over the data (default 4)")
    ap.add_argument("--jobs", type=int, default=2, help="processes rendering the data (default 2)")
    ap.add_argument("--cache", type=Path, default=Path("build/spaces-data"),
                    help="where the generated data are kept (default build/spaces-data)")
    ap.add_argument("--out", type=Path, default=MODEL_PATH, help=f"the model file (default {MODEL_PATH})")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: training needs PyTorch: pip install -e '.[train]'", file=sys.stderr)
        return 2

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    data = make_data(args.seed, args.scenes, args.frames, args.jobs, args.cache, progress)
    progress("classes: " + ", ".join(f"{CLASSES[i].name.lower()} {c}" for i, c in
                                      enumerate(np.bincount(data['y'], minlength=len(CLASSES)))))
    model = train(data, args.seed, args.epochs, progress)
    export(model, args.out)
    params = sum(p.numel() for p in model.parameters())
    progress(f"saved {args.out}: {args.out.stat().st_size / 1024:.1f} KB, {params} parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
