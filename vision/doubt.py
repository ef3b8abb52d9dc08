"""Which readings of a frame the reader is not sure of, whatever classified them.

The classifier (:func:`vision.classify.classify`, or any other) gives each space a state and
a confidence. This module lowers the confidence of readings that a shadow or the edge of
an arm can make, so that the referee waits on them instead of judging them
(:mod:`engine.evidence`: a reading that differs from the game with a confidence below 0.5
is "unknown, wait"):

- **shadow-like**: the space looks like its empty self, only darker or lighter, the same in
  every colour channel, and smoothly so (a plane across the space). A shadow cast on the
  board does exactly that, soft or hard; a chip does not (it changes the colour, or hides
  the print under its disc). A change the same in every channel to within a few per cent
  may also be uneven (the hard edge of a shadow across the space). Measured on the light-normalised small pictures the
  classifier works on, against the empty board's.
- **beside a cover**: a space touching (side or corner) one under a hand, an arm or a
  sleeve may have an edge of it over part of it; read as a chip, it is doubtful. The
  stabiliser lifts that doubt (and only that one) beside a small cover that has not moved
  for seconds, glare or a mark (vision/stabilise.py); the reader gives it the confidence
  from before (``FrameReading.beside_cover``).

Spaces under a hand are unknown already (the classifier's hand mask); a frame with a hand
in view is never reported by the stabiliser at all. See docs/vision.md, "Doubt".
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.observation import SpaceState

from .classify import PATCH, Reference, SpaceFeatures

#: the confidence a doubtful reading is given (below engine.evidence.DOUBT, 0.5)
DOUBTFUL = 0.3
#: colour consistency of the change (std over channels of the log ratio to the empty space)
SHADOW_CHROMA = 0.05
#: smoothness of the change (mean residual of the log ratio from a plane across the space)
SHADOW_PLANE = 0.1
#: a change the same in every channel to within this may be less smooth (a hard shadow's
#: edge across the space) up to ``SHADOW_EDGE``
SHADOW_GREY, SHADOW_EDGE = 0.025, 0.2


def _plane_basis() -> np.ndarray:
    yy, xx = np.mgrid[0:PATCH, 0:PATCH].reshape(2, -1) / (PATCH - 1) - 0.5
    a = np.stack([np.ones_like(xx), xx, yy], axis=1)
    return a @ np.linalg.pinv(a)                  # projection onto planes: (k, k)


_PLANE = _plane_basis().astype(np.float32)


def shadow_like(f: SpaceFeatures, ref: Reference) -> np.ndarray:
    """(n,) whether each space differs from its empty picture only as a shadow would."""
    n = len(f.patch)
    a = f.patch.reshape(n, PATCH * PATCH, 3)
    b = ref.patch.reshape(n, PATCH * PATCH, 3)
    lq = np.log((a + 8.0) / (b + 8.0))
    # the mean and std over the three channels, as numpy's mean and std sum them, spelt out
    # (numpy's reductions over an axis of three are slow)
    three = np.asarray(3, lq.dtype)
    lum = (lq[..., 0] + lq[..., 1] + lq[..., 2]) / three     # (n, k)
    dev = lq - lum[..., None]
    dev = dev * dev
    chroma = np.sqrt((dev[..., 0] + dev[..., 1] + dev[..., 2]) / three).mean(axis=1)
    res = np.abs(lum - lum @ _PLANE.T).mean(axis=1)
    return ((chroma < SHADOW_CHROMA) & (res < SHADOW_PLANE)) | \
        ((chroma < SHADOW_GREY) & (res < SHADOW_EDGE))


def doubt(states: list[SpaceState], conf: np.ndarray, hand: np.ndarray, f: SpaceFeatures,
          ref: Reference | None, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The confidences with doubtful chip readings lowered to :data:`DOUBTFUL`, the (n,)
    mask of the spaces doubted, and the (n,) mask of those doubted only for touching a
    cover (not shadow-like: the stabiliser may lift that doubt beside a cover that does
    not move, vision/stabilise.py)."""
    n = len(states)
    chip = np.array([s.is_chip for s in states], bool)
    shadow = np.zeros(n, bool)
    if ref is not None:
        shadow = chip & shadow_like(f, ref)
    beside = np.zeros(n, bool)
    if hand.any() and cols:
        grid = np.asarray(hand, np.uint8).reshape(-1, cols)
        near = cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel() > 0
        beside = chip & near
    doubted = shadow | beside
    out = np.asarray(conf, np.float32).copy()
    out[doubted] = np.minimum(out[doubted], DOUBTFUL)
    return out, doubted, beside & ~shadow
