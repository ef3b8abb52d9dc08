"""Drawing what the reader saw on the frame: the grid found and each space's reading, so a
person can check it by eye (calibration pictures, the dashboard)."""

from __future__ import annotations

import cv2
import numpy as np

from engine.observation import SpaceState

from .reader import FrameReading

COLOURS = {SpaceState.EMPTY: (200, 200, 200), SpaceState.BLUE: (255, 120, 0),
           SpaceState.GREEN: (0, 200, 0), SpaceState.RED: (0, 0, 255),
           SpaceState.WHITE: (255, 255, 255), SpaceState.UNKNOWN: (0, 220, 255)}


def draw_reading(frame: np.ndarray, reading: FrameReading) -> np.ndarray:
    """A copy of ``frame`` with the grid and, on each space, its letter (``.`` shown as a
    small dot), in the colour read; unknown spaces in yellow with ``?``."""
    out = frame.copy()
    if reading.corners is None:
        cv2.putText(out, reading.problem or "no board", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0,
                    (0, 0, 255), 2, cv2.LINE_AA)
        return out
    obs = reading.observation
    rows, cols = obs.rows, obs.cols
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]]),
                                    np.float32(reading.corners))

    def pt(x: float, y: float) -> tuple[int, int]:
        p = cv2.perspectiveTransform(np.float32([[[x, y]]]), m)[0, 0]
        return int(round(p[0])), int(round(p[1]))

    for r in range(rows + 1):
        cv2.line(out, pt(0, r), pt(cols, r), (0, 255, 255), 1, cv2.LINE_AA)
    for c in range(cols + 1):
        cv2.line(out, pt(c, 0), pt(c, rows), (0, 255, 255), 1, cv2.LINE_AA)
    size = max(0.4, np.hypot(*np.subtract(pt(1, 0), pt(0, 0))) / 60)
    for i, st in enumerate(obs.states):
        r, c = divmod(i, cols)
        x, y = pt(c + 0.5, r + 0.5)
        colour = COLOURS[st]
        if st is SpaceState.EMPTY:
            cv2.circle(out, (x, y), 3, colour, -1)
            continue
        text = st.value
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size, 2)
        cv2.putText(out, text, (x - tw // 2, y + th // 2), cv2.FONT_HERSHEY_SIMPLEX, size,
                    (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, text, (x - tw // 2, y + th // 2), cv2.FONT_HERSHEY_SIMPLEX, size,
                    colour, 2, cv2.LINE_AA)
    return out


def draw_pairs(frame: np.ndarray, corners: np.ndarray, layout, check) -> np.ndarray:
    """The check picture of a refused grid: the grid in red, each pair of spaces printed
    with the same card joined by a line, green where they look alike, red where not, and
    the reason written on top."""
    out = frame.copy()
    rows, cols = layout.rows, layout.cols
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]]),
                                    np.float32(corners))

    def pt(x: float, y: float) -> tuple[int, int]:
        p = cv2.perspectiveTransform(np.float32([[[x, y]]]), m)[0, 0]
        return int(round(p[0])), int(round(p[1]))

    for r in range(rows + 1):
        cv2.line(out, pt(0, r), pt(cols, r), (0, 0, 255), 1, cv2.LINE_AA)
    for c in range(cols + 1):
        cv2.line(out, pt(c, 0), pt(c, rows), (0, 0, 255), 1, cv2.LINE_AA)
    good = getattr(check, "_best", np.zeros(0, bool))
    for k, (i, j) in enumerate(getattr(check, "pairs", [])):
        (ri, ci), (rj, cj) = divmod(i, cols), divmod(j, cols)
        ok = bool(good[k]) if k < len(good) else False
        colour = (0, 200, 0) if ok else (0, 0, 255)
        a, b = pt(ci + 0.5, ri + 0.5), pt(cj + 0.5, rj + 0.5)
        cv2.circle(out, a, 3, colour, -1)
        cv2.circle(out, b, 3, colour, -1)
        if not ok:
            cv2.line(out, a, b, colour, 1, cv2.LINE_AA)
    text = "grid refused: " + (getattr(check, "reason", "") or "")
    y = 24
    for k in range(0, len(text), 90):
        line = text[k:k + 90]
        cv2.putText(out, line, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, line, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 255), 1, cv2.LINE_AA)
        y += 22
    return out
