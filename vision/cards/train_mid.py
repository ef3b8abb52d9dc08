"""Retrain the card middle reader (vision/cards/midnet.onnx) from seeded pile scenes of the
TUNED card families only, widened as for the index reader (docs/cards.md):

    nice -n 10 python -m vision.cards.train mid --seed 1      # data, training, export

Each scene is a discard pile (:func:`vision.cards.scene.render_pile`, tuned scene families)
with its new card in a training style (:func:`vision.cards.train_net.training_style`). The
card is straightened from its true corners moved a little at random (the finder's error),
turned half round half the time, and in most views one or both index corners are hidden
under a painted hand-like blob (so the network learns the middle: the pips, the ace, the
court picture). Its label is the card, or ``none`` when the scene's hand covers most of it
or the rectangle is far off the card. Needs the ``train`` extra (torch, Pillow, onnx) and
the DejaVu fonts (Debian ``fonts-dejavu-core``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from . import midnet, reader
from .scene import render_pile
from .styles import CODES
from .train_net import _jitter, _to_u8, softened, training_style

NONE_COVER = 0.55      # a card more covered than this by the hand: ``none``


def _blob(norm: np.ndarray, corner: int, rng: np.random.Generator) -> None:
    """Paint a hand-like blob (a flat colour, soft edge) over index corner ``corner`` (0 the
    top-left, 1 the bottom-right) of a paper-normalised card, in place."""
    h, w = norm.shape[:2]
    m = np.zeros((h, w), np.float32)
    cx, cy = rng.uniform(0.03, 0.2) * w, rng.uniform(0.03, 0.2) * h
    ax, ay = rng.uniform(0.15, 0.35) * w, rng.uniform(0.12, 0.26) * h
    cv2.ellipse(m, (int(cx), int(cy)), (int(ax), int(ay)), float(rng.uniform(0, 180)), 0, 360,
                1.0, -1)
    m = cv2.GaussianBlur(m, (0, 0), 1.5)
    if corner:
        m = m[::-1, ::-1]
    col = np.float32(rng.uniform(0.2, 1.2, 3))
    if rng.random() < 0.5:                      # skin-like: red over blue
        col = np.float32(sorted(rng.uniform(0.3, 1.1, 3)))
    norm[:] = norm * (1 - m[..., None]) + col * m[..., None]


def scene_samples(rng: np.random.Generator, fonts: list[str], jitters: int = 3):
    """Whole-card inputs (uint8, paper-normalised x 170) and labels from one scene."""
    st = training_style(rng, fonts)
    s = render_pile(rng, "tuned", style=st, hand_over=True if rng.random() < 0.35 else None)
    code = CODES.index(s.code)
    L = s.card_px
    hm = s.hand_mask if s.hand_mask is not None else np.zeros(s.after.shape[:2], np.float32)
    xs, ys = [], []
    for j in range(jitters):
        q = _jitter(s.quad, L, rng)
        label = code
        if j == jitters - 1 and rng.random() < 0.25:     # a rectangle far off the card
            a = rng.uniform(0, 2 * np.pi)
            q = q + np.float32([np.cos(a), np.sin(a)]) * L * rng.uniform(0.35, 0.7)
            label = midnet.NONE
        img = softened(s.after, rng)
        card = reader.straighten(img, q)
        cover = float(reader.straighten(hm, q).mean())
        if label == code and cover > NONE_COVER:
            label = midnet.NONE
        norm = midnet.paper_normalised(card)
        if rng.random() < 0.75:                  # index corners hidden: read the middle
            which = int(rng.integers(3))
            for c in (0, 1):
                if which == 2 or which == c:
                    _blob(norm, c, rng)
        if rng.random() < 0.5:
            norm = np.ascontiguousarray(norm[::-1, ::-1])
        xs.append(_to_u8(midnet.mid_crop(norm)))
        ys.append(label)
    return xs, ys


def _chunk(args):
    from .train_net import render_chunk
    return render_chunk(args, scene_samples, (77,))


def make_data(seed: int, scenes: int, jobs: int, cache: Path, progress) -> dict:
    from . import train_net
    return train_net.make_data(seed, scenes, jobs, cache, progress, _chunk, "mid", 50, "cards")


def build_model():
    """About 5 million multiply-adds a card (a stride-2 first layer: the card's picture is
    brought down early; the pips are big enough for that)."""
    import torch.nn as nn

    def block(i, o, stride=1):
        return [nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o),
                nn.ReLU()]

    return nn.Sequential(
        *block(3, 16, 2), nn.MaxPool2d(2),                 # 42 x 30, then 21 x 15
        *block(16, 32), nn.MaxPool2d(2),                   # 10 x 7
        *block(32, 48), *block(48, 64), nn.MaxPool2d(2),   # 5 x 3
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 5 * 3, 128), nn.ReLU(),
        nn.Linear(128, midnet.NONE + 1))


def to_input(x_u8):
    import torch
    return midnet.scale(torch.from_numpy(x_u8).float() / 170)


def train(data: dict, seed: int, epochs: int, progress):
    """The middle reader trained as the index reader is (:func:`train_net.train`)."""
    from . import train_net
    return train_net.train(data, seed, epochs, progress, build=build_model, to_input=to_input,
                           unit="cards")


def export(model, out: Path) -> None:
    from . import train_net
    train_net.export(model, out, midnet.SIZE, "cards")


def tune(views: int, seed: int, model: Path, progress) -> int:
    """Read the tuned piles of ``python -m vision.cards.train tune`` (its cache, built first
    when missing) with both readers and print the right and wrong readings for a grid of the
    middle reader's thresholds (the index reader's as shipped): the thresholds in reader.py
    are chosen from this."""
    from . import cardnet, train_net
    cache = Path("build") / f"cards-tune-seed{seed}-n{views}.npz"
    if not cache.exists():
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            train_net.tune(views, seed, cardnet.MODEL_PATH, progress)
    z = np.load(cache, allow_pickle=False)
    cards, owner, codes = z["cards"], z["owner"], list(z["codes"])
    net, mid = cardnet.shipped(), midnet.MidNet(model)
    rows = [([], []) for _ in codes]
    for card, (i, true) in zip(cards, owner):
        p = net.probabilities(cardnet.corner_inputs(card))
        rows[i][1 if true else 0].append((p, mid.probabilities(card)))

    def pile(items, t):
        names = {reader.combined_decision(p, pm, None, t)[0] for p, pm in items} - {None}
        return names.pop() if len(names) == 1 else None

    def score(t, which=0):
        r = w = 0
        for code, row in zip(codes, rows):
            got = pile(row[which], t)
            r += got == code
            w += got is not None and got != code
        return r, w

    r, w = score({"MID_SURE": 2.0, "MID_CONFIRM": 2.0, "MID_VETO": 2.0})
    print(f"index corners alone: right {r / views:.4f}, wrong {w}")
    print(f"{'sure':>5} {'confirm':>7} {'veto':>5} {'cveto':>5} | {'right':>6} {'wrong':>5} | "
          f"true outline {'right':>6} {'wrong':>5}")
    for sure in (0.7, 0.8, 0.9, 0.95):
        for confirm in (0.3, 0.5, 0.7):
            for veto in (0.3, 0.5, 0.7, 2.0):
                for cveto in (0.2, 0.3, 0.5):
                    t = {"MID_SURE": sure, "MID_CONFIRM": confirm, "MID_VETO": veto,
                         "CORNER_VETO": cveto}
                    r, w = score(t)
                    rt, wt = score(t, 1)
                    print(f"{sure:5.2f} {confirm:7.2f} {veto:5.2f} {cveto:5.2f} | "
                          f"{r / views:6.4f} {w:5d} | {rt / views:6.4f} {wt:5d}")
    for code, row in zip(codes, rows):
        got = pile(row[0], None)
        if got is not None and got != code:
            print(f"wrong with the shipped thresholds: {code} read {got}")
    return 0


def main(argv=None) -> int:
    if argv and argv[0] == "tune":
        from .train_net import tune_main
        return tune_main(argv[1:], "python -m vision.cards.train mid tune",
                         "Print right and wrong readings of tuned piles for a grid of the middle "
                         "reader's thresholds (both readers together).", midnet.MODEL_PATH, tune)
    from .train_net import card_main
    return card_main(
        argv, "python -m vision.cards.train mid",
        "Retrain the card middle reader (pips, ace, court pictures) from seeded pile scenes of "
        "the tuned card families (widened) and export it to ONNX (vision/cards/midnet.onnx). "
        "Needs the 'train' extra and the DejaVu fonts.",
        ["nice -n 10 python -m vision.cards.train mid --seed 1",
         "python -m vision.cards.train mid --scenes 300 --epochs 1 --out /tmp/m.onnx"],
        8000, 6, midnet.MODEL_PATH, make_data, train, export,
        lambda y: f"{len(y)} cards, {int((y == midnet.NONE).sum())} without a middle to read")

if __name__ == "__main__":
    sys.exit(main())
