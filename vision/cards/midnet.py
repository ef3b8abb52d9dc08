"""The second way of reading a card: its middle. A small CNN shipped as
``vision/cards/midnet.onnx``, run through OpenCV's ``cv2.dnn`` (no torch at read time).

Its input is the WHOLE straightened card (:func:`mid_inputs`), divided by the card's own
paper colour as for the index reader (:func:`vision.cards.cardnet.paper_normalised`),
``SIZE`` pixels: the pips (their count, their arrangement, the suit's shape and colour), the
ace's big pip, the court pictures (the jacks' one or two eyes, the suit signs in the
picture). It was trained with the index corners often hidden (hand-like blobs painted over
one or both of them), so that it reads the middle and does not lean on the index: it names
a card whose two index corners are both under fingers. Its 53 outputs are the 52 cards
(:data:`vision.cards.styles.CODES` order) and ``none`` (no card's middle to read: most of
the card under a hand, a rectangle that is not the card). A king and a queen of the
procedural families show no sign of their rank in the picture (only the suit): the network
is then unsure between them, and the card stays unknown unless an index corner reads it.
The card is read twice, as it lies and turned half round (the finder may give it either way
up), and the two readings are averaged. Trained on the TUNED card families only:
``python -m vision.cards.train mid`` (docs/cards.md).
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from .cardnet import ModelError, paper_normalised, softmax
from .styles import CODES

SIZE = (60, 84)                # the network's input, width x height (the whole card)
NONE = len(CODES)              # the 53rd output: no card's middle to read
MODEL_PATH = Path(__file__).with_name("midnet.onnx")


def mid_crop(norm: np.ndarray) -> np.ndarray:
    """A paper-normalised straightened card brought to ``SIZE`` (float32, HxWx3)."""
    return cv2.resize(norm, SIZE, interpolation=cv2.INTER_AREA)


def scale(x: np.ndarray) -> np.ndarray:
    """The network's input scaling of paper-normalised pixels (paper about 1)."""
    return (x - 0.6) / 0.4


def mid_inputs(card: np.ndarray, norm: np.ndarray | None = None) -> np.ndarray:
    """(2, 3, SIZE[1], SIZE[0]) float32: the straightened card (BGR uint8) as it lies and
    turned half round (``norm``: its :func:`paper_normalised` picture, when made already)."""
    a = mid_crop(paper_normalised(card) if norm is None else norm)
    b = np.ascontiguousarray(a[::-1, ::-1])
    return scale(np.stack([a, b]).transpose(0, 3, 1, 2))


class MidNet:
    """The shipped model, loaded once: ``probabilities(card)`` -> (53,), the two ways up
    averaged."""

    def __init__(self, path: str | Path = MODEL_PATH) -> None:
        from ..onnx_net import load_net
        path = Path(path)
        self.net = load_net(path, "card middle reader", "python -m vision.cards.train mid",
                            ModelError)
        self.path = path

    def batch(self, x: np.ndarray) -> np.ndarray:
        self.net.setInput(np.ascontiguousarray(x, np.float32))
        return softmax(np.asarray(self.net.forward(), np.float32).reshape(len(x), -1))

    def probabilities(self, card: np.ndarray, norm: np.ndarray | None = None) -> np.ndarray:
        return self.batch(mid_inputs(card, norm)).mean(axis=0)


@functools.lru_cache(maxsize=1)
def shipped() -> MidNet:
    return MidNet()
