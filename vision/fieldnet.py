"""The field network (vision/models/field.onnx): where the field of spaces is in a picture,
for the board finder when the board's outline is lost (issue 19, session eighteen).

The outline finder follows the board's dark edge; where that edge is not there to follow (an
old board whose edge faded with its print, a person's shadow or a glare spot across it, a
dim picture under mixed light, a busy table) the board was not found at all. This small
network, trained on renders of tuned looks only (``python -m tools.train_field``), marks
the field's pixels in the picture reduced to IN_W x IN_H; its largest region, reduced to
four corners, is one more candidate for :func:`vision.calibration._found_grid`, confirmed by
the twin pairs like every other (a wrong region is refused, never read).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

IN_W, IN_H = 256, 144          # the picture as the network sees it (16:9)
OUT_W, OUT_H = 64, 36          # its answer, a probability a pixel (a quarter of that)
MODEL_PATH = Path(__file__).with_name("models") / "field.onnx"
RETRAIN = "python -m tools.train_field --seed 1 --threads 2"
LEVEL = 200.0                  # the picture's 95th percentile of grey is brought to this


_nets: dict = {}


def net_input(frame: np.ndarray) -> np.ndarray:
    """``frame`` (BGR, or grey) reduced to IN_W x IN_H, its light brought to a common level
    (its 95th percentile of grey at LEVEL), as 3 x IN_H x IN_W uint8. A picture taller than
    wide is turned a quarter first (the caller turns the answer back: :func:`field_map`)."""
    import cv2
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[0] > frame.shape[1]:
        frame = cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
    small = cv2.resize(frame, (IN_W, IN_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    top = max(float(np.percentile(small.mean(axis=2), 95)), 16.0)
    small = np.clip(small * (LEVEL / top), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(small.transpose(2, 0, 1))


def _load(path: Path):
    """The network in ``path``, loaded once; vision.spacenet.ModelError (one line naming
    the file) when it is missing or unreadable, as for the space classifier."""
    if path not in _nets:
        from .onnx_net import load_net
        from .spacenet import ModelError
        _nets[path] = load_net(path, "field network", RETRAIN, ModelError, classic=True)
    return _nets[path]


def field_map(frame: np.ndarray, model: Path = MODEL_PATH) -> np.ndarray:
    """The probability that each pixel of ``frame`` is on the field of spaces, at OUT_W x
    OUT_H (turned back for a picture taller than wide: then OUT_H x OUT_W)."""
    import cv2
    x = net_input(frame).astype(np.float32)[None] / 100.0 - 0.5
    net = _load(Path(model))
    net.setInput(x)
    logits = net.forward().reshape(OUT_H, OUT_W)
    prob = 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))
    if frame.shape[0] > frame.shape[1]:
        prob = cv2.rotate(prob, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return prob


def field_quads(frame: np.ndarray, model: Path = MODEL_PATH) -> list[np.ndarray]:
    """Quadrilaterals (frame pixels, 4 x 2 float32, clockwise from the top-left) where the
    network sees the field of spaces: its largest region at one half, and, when they differ,
    at a stricter 0.7; none when it sees no region of a board's size."""
    import cv2

    from .locate import _extreme_corners, _fit_sides, order_corners
    prob = field_map(frame, model)
    h, w = frame.shape[:2]
    up = cv2.resize(prob, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
    out: list[np.ndarray] = []
    for level in (0.5, 0.7):
        mask = (up >= level).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        if n < 2:
            continue
        big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[big, cv2.CC_STAT_AREA] < 0.01 * mask.size:
            continue
        contours, _ = cv2.findContours((labels == big).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_NONE)
        pts = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float32)
        hull = cv2.convexHull(pts).reshape(-1, 2)
        if len(hull) < 4:
            continue
        q = order_corners(_extreme_corners(hull))
        if len(hull) > 8:
            q = order_corners(_fit_sides(pts, q))
        q = np.float32(q) * 2.0 + 0.5
        sides = [np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4)]
        if min(sides) < 20 or min(sides) / max(sides) < 0.3:
            continue
        if all(np.abs(q - o).max() > 4 for o in out):
            out.append(q)
    return out
