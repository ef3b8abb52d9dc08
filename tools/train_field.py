"""Train the field network (vision/models/field.onnx): where the board's field of spaces is
in a picture, pixel by pixel, for the board finder to try when the board's outline is lost
(a faded board whose edge fades with its print, a shadow or a glare spot across the edge,
a dim picture under mixed light, a busy table; issue 19, session eighteen).

    python -m tools.train_field --seed 1 --threads 2            # the shipped model (about
                                                                # 20 minutes of renders and
                                                                # 7 of training on 2 cores)
    python -m tools.train_field --seed 1 --scenes 60 --epochs 2 --out /tmp/f.onnx
                                                                # a quick try

The data are renders of TUNED looks only (``draw_look(rng, "tuned")``: no held-out family
is ever seen), dressed by the generic changes of the development sets
(:mod:`tools.uncal_dev`: every set, ``wild2`` most often) and, for a share of the scenes,
the generic camera and light changes of the space classifier's training
(:func:`vision.train_spaces.photometric`); a sixth of the boards are empty (calibration).
Each picture is reduced as the reader reduces it (:func:`vision.fieldnet.net_input`) and
labelled with the field's quadrilateral (the true grid corners). The data's random
streams (``[seed, 2207, scene]``) are apart from the development sets' (``[seed, 4242]``):
no frame the sets measure is a training frame.

Data are cached in ``build/field-data/`` in chunks of 20 scenes (not in git); the same seed
gives the same data. Needs the ``train`` extra (PyTorch, onnx); reading never does.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.fieldnet import IN_H, IN_W, MODEL_PATH, OUT_H, OUT_W, net_input  # noqa: E402

#: the labels as cached (the field's mask at half the network's input), pooled to the
#: network's answer (OUT_W x OUT_H) for training
LABEL_W, LABEL_H = 128, 72

CACHE = ROOT / "build" / "field-data"
CHUNK = 20
FRAMES = 3
KINDS = ("base", "close", "closer", "edge", "dark", "full", "tilt", "lens", "dim", "glare",
         "busy", "pattern", "fold", "pale", "far", "faded", "shadow", "wild", "wild2",
         "wild2", "wild2", "wild2")


def field_mask(grid: np.ndarray, width: int, height: int) -> np.ndarray:
    """The field's quadrilateral ``grid`` (frame pixels) as a mask LABEL_W x LABEL_H (0/1)."""
    import cv2
    m = np.zeros((LABEL_H * 4, LABEL_W * 4), np.uint8)
    pts = np.float32(grid) * np.float32([LABEL_W * 4 / width, LABEL_H * 4 / height])
    cv2.fillConvexPoly(m, np.int32(np.round(pts)), 255)
    return (cv2.resize(m, (LABEL_W, LABEL_H), interpolation=cv2.INTER_AREA) >= 128
            ).astype(np.uint8)


def pooled(y: np.ndarray) -> np.ndarray:
    """Cached labels (n x LABEL_H x LABEL_W) at the network's answer's size (0/1)."""
    fy, fx = LABEL_H // OUT_H, LABEL_W // OUT_W
    m = y.reshape(len(y), OUT_H, fy, OUT_W, fx).mean(axis=(2, 4))
    return (m >= 0.5).astype(np.uint8)


def _scene(args) -> tuple[np.ndarray, np.ndarray]:
    seed, index = args
    import cv2
    cv2.setNumThreads(1)
    from dataclasses import replace

    from engine.game import builtin_layout
    from tools.uncal_dev import scene, scene_frame
    from vision.train_spaces import _photometric_base, photometric
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 2207, index])
    prng = np.random.default_rng([seed, 2208, index])
    kind = KINDS[int(rng.integers(len(KINDS)))]
    look, cond, fill, table_dim, extras = scene(kind, rng)
    if rng.random() < 0.5:                   # any hand the look has, in some frames
        cond = replace(cond, hand_at=int(rng.integers(0, layout.size)))
    base = _photometric_base(prng) if prng.random() < 0.4 else None
    xs, ys = [], []
    for k in range(FRAMES):
        f = (0.0, 0.0) if rng.random() < 0.17 else fill
        c = cond if rng.random() < 0.5 else replace(cond, hand_at=None)
        _, _, r, img = scene_frame(layout, rng, look, c, f, table_dim, extras, k)
        if base is not None:
            img = photometric(img, prng, base)
        h, w = img.shape[:2]
        xs.append(net_input(img))
        ys.append(field_mask(r.grid_corners, w, h))
    return np.stack(xs), np.stack(ys)


def make_data(seed: int, scenes: int, jobs: int, cache: Path, progress) -> tuple:
    from multiprocessing import Pool
    cache.mkdir(parents=True, exist_ok=True)
    xs, ys = [], []
    t0 = time.time()
    for start in range(0, scenes, CHUNK):
        stop = min(scenes, start + CHUNK)
        path = cache / f"s{seed}-{start}-{stop}.npz"
        if not path.exists():
            with Pool(jobs) as pool:
                parts = pool.map(_scene, [(seed, i) for i in range(start, stop)], chunksize=1)
            tmp = path.with_suffix(".tmp.npz")
            np.savez_compressed(tmp, x=np.concatenate([p[0] for p in parts]),
                                y=np.concatenate([p[1] for p in parts]))
            tmp.replace(path)
        d = np.load(path)
        xs.append(d["x"])
        ys.append(d["y"])
        progress(f"data: {stop}/{scenes} scenes ({time.time() - t0:.0f} s)")
    return np.concatenate(xs), np.concatenate(ys)


def field_net():
    import torch
    from torch import nn

    def block(i, o, stride=1, dil=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, dil, dil, bias=False),
                             nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class FieldNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.e1 = block(3, 16, 2)                                 # 128 x 72
            self.e2 = nn.Sequential(block(16, 24, 2), block(24, 24))  # 64 x 36
            self.e3 = nn.Sequential(block(24, 32, 2), block(32, 32))  # 32 x 18
            self.e4 = nn.Sequential(block(32, 48, 2), block(48, 48, dil=2),
                                    block(48, 48, dil=4))            # 16 x 9
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.d3 = block(48 + 32, 32)
            self.d2 = block(32 + 24, 16)
            self.out = nn.Conv2d(16, 1, 1)

        def forward(self, x):
            b = self.e2(self.e1(x))
            c = self.e3(b)
            d = self.e4(c)
            c = self.d3(torch.cat([self.up(d), c], 1))
            b = self.d2(torch.cat([self.up(c), b], 1))
            return self.out(b)

    return FieldNet()


def train(x: np.ndarray, y: np.ndarray, seed: int, epochs: int, progress):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(seed)
    gen = np.random.default_rng([seed, 2209])
    n = len(x)
    idx = gen.permutation(n)
    val, tr = idx[: max(1, n // 12)], idx[max(1, n // 12):]
    model = field_net()
    opt = torch.optim.AdamW(model.parameters(), 2e-3, weight_decay=1e-4)
    steps = epochs * ((len(tr) + 15) // 16)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.15)

    def batch(ids, aug):
        xb = x[ids].astype(np.float32) / 100.0 - 0.5
        yb = y[ids].astype(np.float32)
        if aug:
            for j in range(len(ids)):
                if gen.random() < 0.5:
                    xb[j], yb[j] = xb[j][:, :, ::-1], yb[j][:, ::-1]
                if gen.random() < 0.5:
                    xb[j], yb[j] = xb[j][:, ::-1, :], yb[j][::-1, :]
                if gen.random() < 0.3:          # light and contrast once more
                    xb[j] = (xb[j] + 0.5) * gen.uniform(0.6, 1.3) - 0.5 + gen.uniform(-0.1, 0.1)
        return torch.from_numpy(np.ascontiguousarray(xb)), \
            torch.from_numpy(np.ascontiguousarray(yb))[:, None]

    def loss_of(logits, yb):
        p = torch.sigmoid(logits)
        inter = (p * yb).sum((1, 2, 3))
        dice = 1 - (2 * inter + 1) / (p.sum((1, 2, 3)) + yb.sum((1, 2, 3)) + 1)
        return F.binary_cross_entropy_with_logits(logits, yb) + dice.mean()

    t0 = time.time()
    for ep in range(epochs):
        model.train()
        order = gen.permutation(tr)
        total = 0.0
        for i in range(0, len(order), 16):
            xb, yb = batch(order[i:i + 16], True)
            loss = loss_of(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(xb)
        model.eval()
        inter = union = 0.0
        with torch.no_grad():
            for i in range(0, len(val), 32):
                xb, yb = batch(val[i:i + 32], False)
                p = (model(xb) > 0).float()
                inter += float((p * yb).sum())
                union += float(((p + yb) > 0).float().sum())
        progress(f"epoch {ep + 1}/{epochs}: loss {total / len(tr):.4f}, kept-aside IoU "
                 f"{inter / max(union, 1):.4f} ({time.time() - t0:.0f} s)")
    return model


def main(argv=None) -> int:
    from vision import training
    ap = training.parser(
        "python -m tools.train_field",
        "Train the field network (where the field of spaces is in a picture) from seeded "
        "renders of tuned looks and export it to ONNX (vision/models/field.onnx). Needs the "
        "'train' extra.",
        ["python -m tools.train_field --seed 1 --threads 2",
         "python -m tools.train_field --seed 1 --scenes 60 --epochs 2 --out /tmp/f.onnx"])
    training.add_common(ap, 1200, 10, CACHE, MODEL_PATH)
    a = ap.parse_args(argv)
    if not training.need_torch(a.threads):
        return 1
    x, y = make_data(a.seed, a.scenes, a.jobs, a.cache, training.progress)
    y = pooled(y)
    training.progress(f"{len(x)} pictures")
    model = train(x, y, a.seed, a.epochs, training.progress)
    model.eval()
    training.export_onnx(model, a.out, (3, IN_H, IN_W), "picture")
    training.saved(model, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
