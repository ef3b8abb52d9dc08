"""The learned index reader: a small CNN shipped as ``vision/cards/cardnet.onnx``, run
through OpenCV's ``cv2.dnn`` (no torch at read time).

Its input is one index corner of a straightened card (:func:`corner_inputs`): the top-left
part of the card (``CROP`` of its width and height), divided by the card's own paper colour
(so ink is darker than paper in any light), ``SIZE`` pixels, scaled to about -1..1. The
other index corner is the same crop of the card turned half round. Its 53 outputs are the 52
cards (:data:`vision.cards.styles.CODES` order) and ``none``: no readable index there (a
hand or a sleeve over it, the middle of a card, the table). Trained on the TUNED card
families only: ``python -m vision.cards.train net`` (docs/cards.md).
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from .styles import CODES

CROP = (0.36, 0.42)            # the corner looked at: parts of the card's width and height
SIZE = (40, 64)                # the network's input, width x height
NONE = len(CODES)              # the 53rd output: no readable index
MODEL_PATH = Path(__file__).with_name("cardnet.onnx")


class ModelError(Exception):
    """The shipped model file is missing or cannot be read (the message is one line)."""


def paper_normalised(card: np.ndarray) -> np.ndarray:
    """A straightened card (BGR uint8) divided by its paper colour (its 80th percentile),
    float32, paper about 1."""
    f = card.astype(np.float32) + 1
    paper = np.percentile(f.reshape(-1, 3), 80, axis=0)
    return np.clip(f / paper, 0, 1.5)


def corner_crop(norm: np.ndarray) -> np.ndarray:
    """The top-left index corner of a paper-normalised straightened card, ``SIZE``."""
    h, w = norm.shape[:2]
    c = norm[:int(round(CROP[1] * h)), :int(round(CROP[0] * w))]
    return cv2.resize(c, SIZE, interpolation=cv2.INTER_AREA)


def corner_inputs(card: np.ndarray, norm: np.ndarray | None = None) -> np.ndarray:
    """(2, 3, SIZE[1], SIZE[0]) float32: the two index corners of a straightened card (the
    top-left one, then the bottom-right one turned upright). ``norm``: the card's
    :func:`paper_normalised` picture when it was made already."""
    n = paper_normalised(card) if norm is None else norm
    a = corner_crop(n)
    b = corner_crop(np.ascontiguousarray(n[::-1, ::-1]))
    x = np.stack([a, b]).transpose(0, 3, 1, 2)
    return (x - 0.6) / 0.4


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class CardNet:
    """The shipped model, loaded once: ``probabilities(inputs)`` -> (n, 53)."""

    def __init__(self, path: str | Path = MODEL_PATH) -> None:
        from ..onnx_net import load_net
        path = Path(path)
        self.net = load_net(path, "card reader", "python -m vision.cards.train net", ModelError)
        self.path = path

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        self.net.setInput(np.ascontiguousarray(x, np.float32))
        return softmax(np.asarray(self.net.forward(), np.float32).reshape(len(x), -1))


@functools.lru_cache(maxsize=1)
def shipped() -> CardNet:
    return CardNet()
