"""Retrain the space classifier (vision/models/spaces.onnx) from seeded renders of TUNED looks.

    python -m vision.train_spaces --seed 1                 # data, training, export (minutes)
    python -m vision.train_spaces --seed 1 --scenes 40     # a smaller, quicker run
    python -m vision.train_spaces --seed 1 --augment 0 --scenes 220 --epochs 4   # the first model
    python -m vision.train_spaces --seed 1 --scenes 460 --hard 3 --beside 2 --out /tmp/h.onnx
                                                           # hard examples weighed more (tried)
    python -m vision.train_spaces --seed 1 --scenes 800 --out /tmp/s800.onnx
                                                           # the second opinion tried (session five)
    python -m vision.train_spaces --seed 1 --shift-aug 0.5 --out /tmp/s9.onnx
                                                           # + changes the renderer never draws
                                                           # (session nine)
    python -m vision.train_spaces --seed 1 --scenes 800 --shift-aug 0.5 --widths 16,40,64 \
        --out /tmp/w800.onnx                               # 800 scenes, wider (session
                                                           # eleven: tried, not shipped)
    python -m vision.train_spaces --net veto --seed 7 --scenes 300 --epochs 4 --light strong \
        --out vision/models/spaces_veto.onnx               # the veto model (session seven)

Needs the ``train`` extra (``pip install -e '.[train]'``: PyTorch, CPU build, and onnx for
the export); reading never does. The data are crops of spaces from renders of looks drawn
by ``draw_look(rng, "tuned")`` only (no held-out family is ever seen), straightened as the
reader straightens them (the grid corners off by up to a few per cent of a space, as a
calibration may be), light-normalised by the board's own paper, each with its empty-board
reference from the same scene; hands, sleeves, shadows, glare, blur and chips off-centre
come from the renderer. With ``--augment 1`` (the default) half the scenes are also
changed by generic camera and light changes that are no look's code (the light down to
30 %, gamma, a colour cast, noise, defocus, JPEG; :func:`photometric`), the grid is off
by a little more, and training shifts crops by a pixel and adds noise; the probabilities
are then calibrated (a temperature) on tuned scenes kept aside. The data are cached in
``build/spaces-data/`` in chunks of 20 scenes (not in git). The same seed gives the same
data and, on the same machine, the same model.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from .spacenet import (CHANNELS, CLASSES, COVERED, MODEL_PATH, SIDE, VETO_CHANNELS, VETO_PATH,
                       space_inputs, veto_inputs)

BATCH = 256
LABEL = {s.value: i for i, s in enumerate(CLASSES) if i != COVERED}


def photometric(img: np.ndarray, rng: np.random.Generator, base: dict) -> np.ndarray:
    """Generic camera and light changes over a rendered picture, none of them a held-out
    family's code: the scene's own light level (down to 30 %), gamma and colour cast
    (``base``, drawn once a scene), and per picture a little more or less light, sensor
    noise (more in dim light), defocus and JPEG."""
    import cv2
    x = img.astype(np.float32) / 255.0
    gain = base["level"] * float(rng.uniform(0.88, 1.12)) * base["cast"]
    x = np.clip(x * gain, 0, 1) ** base["gamma"]
    x = x * 255.0
    sigma = float(rng.uniform(0.0, 3.0)) + (4.0 * (1.0 - base["level"]) if base["level"] < 1 else 0)
    sigma *= base.get("noise", 1.0)
    if sigma > 0.2:
        x = x + rng.normal(0, sigma, x.shape).astype(np.float32)
    out = np.clip(x + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.4)))
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _photometric_base(rng: np.random.Generator, strong: bool = False) -> dict | None:
    """A scene's light level, gamma and colour cast, or None (the picture as rendered:
    half the scenes). ``strong`` (the veto model's data, ``--light strong``): four scenes
    in five changed, dim light more often (down to 22 %), stronger colour casts and gamma,
    more sensor noise."""
    if strong:
        if rng.random() < 0.2:
            return None
        level = float(np.exp(rng.uniform(np.log(0.22), np.log(0.9)))) if rng.random() < 0.6 \
            else float(rng.uniform(0.8, 1.1))
        return {"level": level, "gamma": float(rng.uniform(0.7, 1.45)),
                "cast": rng.uniform(0.75, 1.25, 3).astype(np.float32), "noise": 2.0}
    if rng.random() < 0.5:
        return None
    level = float(np.exp(rng.uniform(np.log(0.3), np.log(1.1))))
    return {"level": level, "gamma": float(rng.uniform(0.75, 1.35)),
            "cast": rng.uniform(0.82, 1.18, 3).astype(np.float32)}


def _scene(args) -> dict:
    """The samples of one scene: (crops uint8, reference patches uint8, labels)."""
    seed, index, frames, augment = args[:4]
    strong = len(args) > 4 and args[4]
    grid_off = 0.055 if augment else 0.04
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
    prng = np.random.default_rng([seed, 1902, index])     # the photometric changes
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
    corners = np.float32(empty.grid_corners + rng.normal(0, grid_off * space, (4, 2)))
    # generic photometric changes (widened: --augment 1 in the default)
    aug = _photometric_base(prng, strong) if augment else None
    empty_image = photometric(empty.image, prng, aug) if aug is not None else empty.image
    ref_feats = features(straighten(empty_image, corners, layout), layout.rows, layout.cols)
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
        image = r.image
        if aug is not None:
            # now and then the light in play differs from the calibration's
            a = aug if prng.random() < 0.7 else dict(aug, level=aug["level"] * float(
                prng.uniform(0.6, 1.2)))
            image = photometric(image, prng, a)
        elif augment and prng.random() < 0.3:
            image = photometric(image, prng, {"level": 1.0, "gamma": 1.0,
                                              "cast": np.ones(3, np.float32)})
        if augment:
            cr = np.float32(cr + prng.normal(0, 0.015 * space, (4, 2)))
        f = features(straighten(image, cr, layout), layout.rows, layout.cols)
        labels = [COVERED if occ else LABEL[st.value] for st, occ in zip(board.states, r.occluded)]
        add(f, labels)
    return {"x": np.concatenate(xs), "ref": np.concatenate(refs), "y": np.concatenate(ys)}


CHUNK = 20      # scenes rendered and cached together
# Hard examples weighed more (session four: --hard 3 --beside 2 --scenes 460 was tried and
# not shipped, docs/vision.md); the defaults give the shipped model
HARD = 0.0      # --hard: the weight of the spaces the model still reads wrong or unsure
BESIDE = 1.0    # --beside: the weight of a space beside a covered one


def make_data(seed: int, scenes: int, frames: int, jobs: int, cache: Path, progress,
              augment: bool = True, strong_light: bool = False) -> dict:
    """The samples of scenes 0..scenes-1, rendered in chunks of CHUNK scenes, each chunk
    cached in ``cache`` (a larger run reuses the chunks of a smaller one)."""
    parts = []
    t0 = time.time()
    tag = f"spaces-seed{seed}-frames{frames}" + ("-aug" if augment else "") + \
        ("-strong" if strong_light else "")
    for c0 in range(0, scenes, CHUNK):
        c1 = min(scenes, c0 + CHUNK)
        path = cache / f"{tag}-{c0}-{c1}.npz"
        if path.is_file():
            with np.load(path) as d:
                part = {k: d[k] for k in d.files}
            progress(f"data: scenes {c0 + 1}-{c1}/{scenes} from {path}")
        else:
            work = [(seed, i, frames, augment, strong_light) for i in range(c0, c1)]
            got = []
            if jobs > 1:
                from multiprocessing import get_context
                with get_context("fork").Pool(jobs) as pool:
                    for i, p in enumerate(pool.imap(_scene, work)):
                        got.append(p)
                        progress(f"data: scene {c0 + i + 1}/{scenes} ({time.time() - t0:.0f} s)")
            else:
                for i, w in enumerate(work):
                    got.append(_scene(w))
                    progress(f"data: scene {c0 + i + 1}/{scenes} ({time.time() - t0:.0f} s)")
            part = {k: np.concatenate([p[k] for p in got]) for k in ("x", "ref", "y")}
            part["scene"] = np.concatenate([np.full(len(p["y"]), c0 + i)
                                            for i, p in enumerate(got)])
            cache.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(path, **part)
        parts.append(part)
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("x", "ref", "y", "scene")}
    progress(f"data: {len(data['y'])} spaces from {scenes} scenes")
    return data


WIDTHS = (16, 32, 48)    # --widths: the shipped network's channels, layer by layer


def _net(kind: str = "shipped", widths: tuple = WIDTHS):
    from torch import nn
    if kind == "veto":
        # the veto model (session seven): other channels in (vision.spacenet.veto_inputs),
        # a 5 x 5 first layer, a wider last one: ~30,000 parameters, about 0.8 million
        # multiply-adds a space
        return nn.Sequential(
            nn.Conv2d(VETO_CHANNELS, 16, 5, padding=2, stride=2, bias=False), nn.BatchNorm2d(16),
            nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2), nn.Conv2d(32, 56, 3, padding=1, bias=False), nn.BatchNorm2d(56),
            nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(56, len(CLASSES)))

    def block(a, b, stride=1):
        return [nn.Conv2d(a, b, 3, padding=1, stride=stride, bias=False), nn.BatchNorm2d(b),
                nn.ReLU()]
    # 16 x 16 in, 8 x 8 after the first (strided) layer, 4 x 4 after the pool; with the
    # shipped widths (16, 32, 48) ~20,000 parameters, about 0.5 million multiply-adds a space
    a, b, c = widths
    return nn.Sequential(*block(CHANNELS, a, 2), *block(a, b), nn.MaxPool2d(2),
                         *block(b, c), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(c, len(CLASSES)))


def beside_covers(y: np.ndarray, n: int = 100, cols: int = 10) -> np.ndarray:
    """Whether each sample is a space beside a covered one in its own frame (the data hold
    whole frames of ``n`` spaces one after another, in the layout's order)."""
    import cv2
    cov = (y.reshape(-1, n) == COVERED).astype(np.uint8).reshape(-1, n // cols, cols)
    k = np.ones((3, 3), np.uint8)
    near = np.stack([cv2.dilate(c, k) for c in cov]).reshape(-1) > 0
    return near & (y != COVERED)


def train(data: dict, seed: int, epochs: int, progress, strong: bool = True,
          calibrate_t: bool = True, hard: float = 0.0, beside: float = 1.0,
          kind: str = "shipped", shift_aug: float = 0.0, widths: tuple = WIDTHS):
    """``hard``: each space's loss weighed by 1 + hard * (1 - the probability the model
    being trained gives its true state), so the spaces it still reads wrong or unsure count
    more (0: all alike); ``beside``: the weight of a space beside a covered one (a sleeve's
    tint and shadow over a chip); ``shift_aug``: the share of spaces changed by
    :func:`shift_augment` (0: none); ``widths``: the shipped network's channels, layer by
    layer (not the veto's)."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(seed)
    x = torch.from_numpy(space_inputs_from_data(data))
    y = torch.from_numpy(data["y"])
    # a few scenes kept aside to say how training goes (tuned looks: not the held-out figure)
    val = data["scene"] % 10 == 0
    tr_idx, va_idx = np.flatnonzero(~val), np.flatnonzero(val)
    # most spaces are empty: a quarter of the empty ones is plenty, and training is quicker
    empty = data["y"][tr_idx] == 0
    keep = ~empty | (np.random.default_rng([seed, 2]).random(len(tr_idx)) < 0.3)
    tr_idx = tr_idx[keep]
    va_idx = va_idx[np.random.default_rng([seed, 3]).random(len(va_idx)) < 0.5]
    model = _net(kind, widths)
    prep = _prep(kind)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * (len(tr_idx) // BATCH + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = np.random.default_rng(seed)
    counts = np.bincount(data["y"][tr_idx], minlength=len(CLASSES)).astype(np.float64)
    weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(CLASSES)) ** 0.5,
                          dtype=torch.float32)
    sample_w = torch.ones(len(data["y"]))
    if beside != 1.0:
        near = beside_covers(data["y"])
        sample_w[torch.from_numpy(near)] = float(beside)
        progress(f"{int(near.sum())} spaces beside a cover weigh {beside}")
    for ep in range(epochs):
        model.train()
        order = gen.permutation(tr_idx)
        t0, total, seen = time.time(), 0.0, 0
        for b in range(0, len(order), BATCH):
            idx = order[b:b + BATCH]
            if b // BATCH % 50 == 0:
                progress(f"epoch {ep + 1}/{epochs}: {b}/{len(order)} spaces")
            xb = x[idx].clone()
            if shift_aug:
                xb = torch.from_numpy(shift_augment(xb.numpy(), gen, shift_aug))
            xb = augment(xb, gen, strong)
            logits = model(prep(xb))
            yb = y[idx]
            if hard or beside != 1.0:
                per = F.cross_entropy(logits, yb, weight=weight, label_smoothing=0.02,
                                      reduction="none")
                w = sample_w[idx].clone()
                if hard:
                    pt = torch.softmax(logits.detach(), 1).gather(1, yb[:, None])[:, 0]
                    w = w * (1.0 + hard * (1.0 - pt))
                loss = (per * w).sum() / (weight[yb] * w).sum()
            else:
                loss = F.cross_entropy(logits, yb, weight=weight, label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
        acc, acc_noref = evaluate(model, x, y, va_idx, prep)
        progress(f"epoch {ep + 1}/{epochs}: loss {total / seen:.4f}, tuned validation "
                 f"{acc:.4f} (without reference {acc_noref:.4f}) {time.time() - t0:.0f} s")
    if calibrate_t:
        fit_temperature(model, x, y, va_idx, progress, prep)
    model.eval()
    return model


def space_inputs_from_data(data: dict, chunk: int = 20_000) -> np.ndarray:
    """The network's input (numpy, as :func:`vision.spacenet.space_inputs` gives the reader)
    of every cached sample, the reference channels made ``chunk`` samples at a time
    (space_inputs' blank crops are 12 KB a space: 800 scenes at once would take 8 GB more);
    needs no PyTorch."""
    n = len(data["y"])
    x = np.zeros((n, CHANNELS, SIDE, SIDE), np.float32)
    x[:, 0:3] = data["x"].astype(np.float32) / 127.5 - 1.0
    for i in range(0, n, chunk):
        ref = data["ref"][i:i + chunk].astype(np.float32)
        x[i:i + chunk, 3:] = space_inputs(np.zeros((len(ref), 32 * 32, 3), np.float32), ref)[:, 3:]
    return x


def augment(xb, gen: np.random.Generator, strong: bool = True):
    """Turns and mirrors (cards are printed any way round), light off by a little in
    strength and colour (the normalisation is not perfect), the reference dropped for a
    third of the spaces (reading without calibration). ``strong`` (the default since the
    second model) adds: the light off by more, the reference's light off a little from the
    frame's, a shift of the crop by up to a pixel of 16 (the grid a little off against
    the calibration), and a little noise."""
    import torch
    k = int(gen.integers(4))
    xb = torch.rot90(xb, k, dims=(2, 3))
    if gen.random() < 0.5:
        xb = torch.flip(xb, dims=(3,))
    m = len(xb)
    lo, hi, c = (0.8, 1.15, 0.08) if strong else (0.85, 1.12, 0.05)
    gain = torch.from_numpy(gen.uniform(lo, hi, (m, 1, 1, 1)).astype(np.float32)) * \
        torch.from_numpy(gen.uniform(1 - c, 1 + c, (m, 3, 1, 1)).astype(np.float32))
    xb[:, 0:3] = (xb[:, 0:3] + 1.0) * gain - 1.0
    if strong:
        rg = torch.from_numpy(gen.uniform(0.95, 1.05, (m, 3, 1, 1)).astype(np.float32))
        xb[:, 3:6] = torch.where(xb[:, 6:7] > 0, (xb[:, 3:6] + 1.0) * rg - 1.0, xb[:, 3:6])
        # a shift of the space's crop by one pixel (a quarter of the batch, each way)
        part = m // 4
        if part:
            dy, dx = int(gen.integers(-1, 2)), int(gen.integers(-1, 2))
            xb[:part, 0:3] = torch.roll(xb[:part, 0:3], (dy, dx), dims=(2, 3))
        sigma = torch.from_numpy(gen.uniform(0, 0.03, (m, 1, 1, 1)).astype(np.float32))
        xb[:, 0:3] += torch.randn_like(xb[:, 0:3]) * sigma
    drop = torch.from_numpy(gen.random(m) < 0.33)
    xb[drop, 3:] = 0.0
    return xb


SHIFT_AUG = 0.0     # --shift-aug: the share of spaces changed by shift_augment (0: none)


def hue_sat(img: np.ndarray, turn: np.ndarray, sat: np.ndarray) -> np.ndarray:
    """(n, h, w, 3) BGR 0..255 floats with each picture's saturated colours turned by
    ``turn`` degrees and its saturation scaled by ``sat`` (grey and paper stay)."""
    import cv2
    n, h, w, _ = img.shape
    hsv = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8).reshape(n * h, w, 3),
                       cv2.COLOR_BGR2HSV_FULL).astype(np.float32).reshape(n, h, w, 3)
    t = turn[:, None, None] / 360.0 * 256.0 * np.clip((hsv[..., 1] - 40.0) / 60.0, 0, 1)
    hsv[..., 0] = np.mod(hsv[..., 0] + t, 256.0)
    hsv[..., 1] = np.clip(hsv[..., 1] * sat[:, None, None], 0, 255)
    out = cv2.cvtColor(np.clip(hsv + 0.5, 0, 255).astype(np.uint8).reshape(n * h, w, 3),
                       cv2.COLOR_HSV2BGR_FULL)
    return out.reshape(n, h, w, 3).astype(np.float32)


def shift_augment(xb, gen: np.random.Generator, share: float):
    """Changes of the picture the renderer never draws, made on the cached, light-normalised
    crops of a batch (``xb``, numpy (n, 7, 16, 16), -1..1, changed in place and returned;
    session nine's ``--shift-aug``; needs no PyTorch): for
    ``share`` of the spaces, each change with its own chance, the same for the space and
    its empty-board reference where the camera would change both: every saturated
    colour's hue turned by up to +-30 degrees (chips of other shades), the saturation
    scaled by 0.5-1.7, a gamma of 0.6-1.7 about the paper's level, a gradient of light
    across the space (up to +-12 %: vignetting, uneven light the normalisation leaves),
    defocus (sigma 0.3-1.3 px of 16), blockiness (JPEG at quality 10-45 of the crop
    enlarged three times) and colour noise. Generic: no look's or held-out family's
    code; none of session nine's fourth split's kinds (tools/spaces_dev.py --other)."""
    import cv2
    m = len(xb)
    pick = np.flatnonzero(gen.random(m) < share)
    if not len(pick):
        return xb
    k = len(pick)
    has_ref = xb[pick, 6, 0, 0] > 0
    # as 8-bit BGR images: the space (16 x 16) and its reference (8 x 8, as given)
    cur = np.clip((xb[pick, 0:3].transpose(0, 2, 3, 1) + 1.0) * 127.5, 0, 255)
    ref = np.clip((xb[pick, 3:6, ::2, ::2].transpose(0, 2, 3, 1) + 1.0) * 127.5, 0, 255)

    turn = np.where(gen.random(k) < 0.5, gen.uniform(-30, 30, k), 0.0)
    sat = np.where(gen.random(k) < 0.5, np.exp(gen.uniform(np.log(0.5), np.log(1.7), k)), 1.0)
    if (turn != 0).any() or (sat != 1).any():
        cur = hue_sat(cur, turn, sat)
        ref = hue_sat(ref, turn, sat)
    gamma = np.where(gen.random(k) < 0.4, gen.uniform(0.6, 1.7, k), 1.0)[:, None, None, None]
    cur = 230.0 * (cur / 230.0) ** gamma
    ref = 230.0 * (ref / 230.0) ** gamma
    # a gradient of light across the space (the frame's only)
    grad = np.where(gen.random(k) < 0.3, gen.uniform(0, 0.12, k), 0.0)
    ang = gen.uniform(0, 2 * np.pi, k)
    u = (np.arange(16, dtype=np.float32) - 7.5) / 7.5
    ramp = np.cos(ang)[:, None, None] * u[None, None, :] + np.sin(ang)[:, None, None] * \
        u[None, :, None]
    cur = cur * (1.0 + grad[:, None, None] * ramp)[..., None]
    # defocus: one sigma for a part of the batch, the space and its reference alike
    blur = gen.random(k) < 0.3
    if blur.any():
        sigma = float(gen.uniform(0.3, 1.3))
        for i in np.flatnonzero(blur):
            cur[i] = cv2.GaussianBlur(cur[i], (0, 0), sigma, borderType=cv2.BORDER_REFLECT)
            r16 = cv2.resize(ref[i], (16, 16), interpolation=cv2.INTER_NEAREST)
            r16 = cv2.GaussianBlur(r16, (0, 0), sigma, borderType=cv2.BORDER_REFLECT)
            ref[i] = cv2.resize(r16, (8, 8), interpolation=cv2.INTER_AREA)
    # blockiness: JPEG of the spaces enlarged three times, one quality for a part of the batch
    jpeg = np.flatnonzero(gen.random(k) < 0.25)
    if len(jpeg):
        q = int(gen.integers(10, 46))
        big = cv2.resize(np.clip(cur[jpeg], 0, 255).astype(np.uint8).reshape(-1, 16, 3),
                         (48, 48 * len(jpeg)), interpolation=cv2.INTER_LINEAR)
        ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, q])
        back = cv2.imdecode(buf, cv2.IMREAD_COLOR).astype(np.float32)
        cur[jpeg] = cv2.resize(back, (16, 16 * len(jpeg)),
                               interpolation=cv2.INTER_AREA).reshape(len(jpeg), 16, 16, 3)
    # colour noise
    noisy = gen.random(k) < 0.3
    cur = cur + noisy[:, None, None, None] * gen.normal(0, 1, cur.shape) * \
        gen.uniform(1, 8, k)[:, None, None, None]
    xb[pick, 0:3] = (np.clip(cur, 0, 255) / 127.5 - 1.0).transpose(0, 3, 1, 2)
    ref = (np.clip(ref, 0, 255) / 127.5 - 1.0).transpose(0, 3, 1, 2).repeat(2, 2).repeat(2, 3)
    xb[pick[has_ref], 3:6] = ref[has_ref]
    return xb


def _prep(kind: str):
    """What turns the 7-channel input into the network's: nothing for the shipped model,
    :func:`vision.spacenet.veto_inputs` for the veto."""
    if kind != "veto":
        return lambda xb: xb
    import torch
    return lambda xb: torch.from_numpy(veto_inputs(xb.numpy()))


def fit_temperature(model, x, y, idx, progress, prep=lambda xb: xb) -> float:
    """The temperature that makes the model's probabilities honest on the tuned validation
    spaces (least negative log-likelihood; with and without the reference), baked into
    the last layer: "90 % sure" then means right about nine times in ten there."""
    import torch
    import torch.nn.functional as F
    model.eval()
    with torch.no_grad():
        xb = x[idx]
        xn = xb.clone()
        xn[:, 3:] = 0.0
        logits = torch.cat([model(prep(xb)), model(prep(xn))])
        yy = torch.cat([y[idx], y[idx]])
        best, best_t = None, 1.0
        for t in np.exp(np.linspace(np.log(0.25), np.log(3.0), 61)):
            nll = float(F.cross_entropy(logits / float(t), yy))
            if best is None or nll < best:
                best, best_t = nll, float(t)
        last = model[-1]
        last.weight.data /= best_t
        last.bias.data /= best_t
    progress(f"temperature {best_t:.3f} (validation log-loss {best:.4f})")
    return best_t


def evaluate(model, x, y, idx, prep=lambda xb: xb):
    import torch
    model.eval()
    with torch.no_grad():
        xb = x[idx]
        acc = float((model(prep(xb)).argmax(1) == y[idx]).float().mean())
        xn = xb.clone()
        xn[:, 3:] = 0.0
        acc_n = float((model(prep(xn)).argmax(1) == y[idx]).float().mean())
    return acc, acc_n


def export(model, out: Path, kind: str = "shipped") -> None:
    from .training import export_onnx
    export_onnx(model, out, (VETO_CHANNELS if kind == "veto" else CHANNELS, SIDE, SIDE),
                "spaces")


def main(argv=None) -> int:
    from . import training
    ap = training.parser(
        "python -m vision.train_spaces",
        "Retrain the space classifier from seeded renders of tuned looks and export it to ONNX "
        "(vision/models/spaces.onnx). Needs the 'train' extra.",
        ["python -m vision.train_spaces --seed 1",
         "nice -n 10 python -m vision.train_spaces --seed 1 --jobs 2 --out /tmp/s.onnx",
         "python -m vision.train_spaces --seed 1 --scenes 460 --hard 3 --beside 2 "
         "--out /tmp/hard.onnx   # session four's model, not shipped",
         "python -m vision.train_spaces --seed 1 --scenes 800 --out /tmp/s800.onnx   "
         "# session five's second opinion, not shipped",
         "nice -n 10 python -m vision.train_spaces --seed 1 --shift-aug 0.5 --out /tmp/s9.onnx"
         "   # session nine: changes the renderer never draws, on the cached crops",
         "nice -n 10 python -m vision.train_spaces --net veto --seed 7 --scenes 300 --epochs 4 "
         "--light strong --out vision/models/spaces_veto.onnx   # the veto (session seven)"])
    training.add_common(ap, 440, 3, Path("build/spaces-data"), MODEL_PATH)
    ap.add_argument("--frames", type=int, default=7, help="frames with chips per scene (default 7)")
    ap.add_argument("--augment", type=int, default=1, choices=(0, 1),
                    help="generic photometric changes and wider grid errors in the data "
                         "(default 1; 0: the data of the first model)")
    ap.add_argument("--hard", type=float, default=HARD,
                    help="hard examples weigh more: a space's loss times 1 + HARD * (1 - the "
                         f"probability of its true state) (default {HARD}: all alike)")
    ap.add_argument("--beside", type=float, default=BESIDE,
                    help="the weight of a space beside a covered one "
                         f"(default {BESIDE})")
    ap.add_argument("--net", choices=("shipped", "veto"), default="shipped",
                    help="which network: the shipped classifier or the veto model (other "
                         "input channels, vision.spacenet.veto_inputs; its file is "
                         f"{VETO_PATH.name}); default shipped")
    ap.add_argument("--light", choices=("normal", "strong"), default="normal",
                    help="the photometric changes: 'strong' changes four scenes in five, dim "
                         "light more often, stronger colour casts, more noise (the veto "
                         "model's data; default normal)")
    ap.add_argument("--shift-aug", type=float, default=SHIFT_AUG, metavar="SHARE",
                    help="the share of spaces that training also changes in ways the renderer "
                         "never draws (chips' hues turned, saturation, gamma, uneven light, "
                         "defocus, JPEG blocks, colour noise: shift_augment), on the cached "
                         f"crops, no new rendering (default {SHIFT_AUG}: none)")
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)), metavar="A,B,C",
                    help="the channels of the network's three layers (default "
                         f"{','.join(map(str, WIDTHS))}: the shipped model; wider reads "
                         "slower)")
    ap.add_argument("--data-only", action="store_true", help="render and cache the data, no training")
    args = ap.parse_args(argv)
    if not 0.0 <= args.shift_aug <= 1.0:
        print(f"error: --shift-aug {args.shift_aug:g}: a share of the spaces, 0 to 1",
              file=sys.stderr)
        return 2
    try:
        widths = tuple(int(v) for v in args.widths.split(","))
        if len(widths) != 3 or min(widths) < 1:
            raise ValueError
    except ValueError:
        print(f"error: --widths {args.widths}: three whole numbers of channels, "
              "comma-separated (e.g. 16,32,48)", file=sys.stderr)
        return 2
    if not training.need_torch(args.threads):
        return 2
    progress = training.progress

    data = make_data(args.seed, args.scenes, args.frames, args.jobs, args.cache, progress,
                     augment=args.augment, strong_light=args.light == "strong")
    progress("classes: " + ", ".join(f"{CLASSES[i].name.lower()} {c}" for i, c in
                                      enumerate(np.bincount(data['y'], minlength=len(CLASSES)))))
    if args.data_only:
        return 0
    model = train(data, args.seed, args.epochs, progress, strong=bool(args.augment),
                  calibrate_t=bool(args.augment), hard=args.hard, beside=args.beside,
                  kind=args.net, shift_aug=args.shift_aug, widths=widths)
    export(model, args.out, args.net)
    training.saved(model, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
