"""Stabilising: a change counts only once the board has been still, and uncovered, for a
while. Spaces under a hand are unknown, never empty; a hand passing over the board never
produces a change.

Example::

    stab = Stabiliser(settle=0.6)
    for t, frame in frames:                  # t: seconds, from any clock (tests pass their own)
        obs = stab.update(reader.read(frame), t)
        if obs is not None:
            referee.observe(obs)
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.observation import Observation

from .reader import FrameReading


class Stabiliser:
    """Turns per-frame readings into stable observations.

    A reading is held back while the board is not found, while a hand covers any space,
    while the picture of the board still moves (``motion`` grey levels, mean over the board),
    and until the same reading has lasted ``settle`` seconds. A stable reading is reported
    once; it is reported again only after it changed (or after :meth:`forget`).
    """

    def __init__(self, settle: float = 0.6, motion: float = 4.0) -> None:
        self.settle = settle
        self.motion = motion
        self._key: tuple | None = None
        self._since: float | None = None
        self._reported: tuple | None = None
        self._last_board: np.ndarray | None = None
        self.state = "waiting"          # waiting, covered, moving, settling, stable

    def forget(self) -> None:
        self._reported = None

    def _moving(self, board: np.ndarray | None) -> bool:
        if board is None:
            return True
        small = cv2.resize(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY), (80, 80),
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        prev, self._last_board = self._last_board, small
        if prev is None or prev.shape != small.shape:
            return True
        return float(np.abs(small - prev).mean()) > self.motion

    def update(self, reading: FrameReading, t: float) -> Observation | None:
        moving = self._moving(reading.board) if reading.found else True
        if not reading.found or reading.hand:
            self.state = "covered" if reading.found else "waiting"
            self._key = self._since = None
            return None
        if moving:
            self.state = "moving"
            self._key = self._since = None
            return None
        key = reading.observation.states
        if key != self._key or self._since is None:
            self._key, self._since = key, t
            self.state = "settling"
            return None
        if t - self._since < self.settle:
            self.state = "settling"
            return None
        self.state = "stable"
        if key == self._reported:
            return None
        self._reported = key
        return reading.observation
