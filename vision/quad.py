"""Is a four-corner grid usable? The one check of the board's corners for both a
calibration file and corners given by hand (``seqboard calibrate --corners``).

Stdlib only and pure, so every loader can call it before anything is computed from the
corners: NaN, infinite, far-off, repeated, collinear or crossed corners would make a
perspective transform that reads phantom chips.
"""

from __future__ import annotations

import math

MIN_SIDE = 20.0          # pixels: a 10 x 10 grid in less has spaces of two pixels
MAX_COORD = 100_000.0    # pixels: far beyond any camera's frame


def corners_problem(corners) -> str | None:
    """What is wrong with four (x, y) corners (tl, tr, br, bl), or None if usable."""
    try:
        pts = [(float(p[0]), float(p[1])) for p in corners]
        if any(len(p) != 2 for p in corners):
            raise ValueError
    except (TypeError, ValueError, IndexError, KeyError):
        return "expected four [x, y] points"
    if len(pts) != 4:
        return f"expected four [x, y] points, got {len(pts)}"
    for i, (x, y) in enumerate(pts):
        if not (math.isfinite(x) and math.isfinite(y)):
            return f"corner {i + 1} is not a finite number ({x}, {y})"
        if abs(x) > MAX_COORD or abs(y) > MAX_COORD:
            return f"corner {i + 1} ({x:g}, {y:g}) is far outside any picture"
    for i in range(4):
        (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % 4]
        if math.hypot(x1 - x0, y1 - y0) < MIN_SIDE:
            return (f"corners {i + 1} and {(i + 2 - 1) % 4 + 1} are less than {MIN_SIDE:g} "
                    f"pixels apart: the grid would have no size")
    signs = []
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx)
        side = math.hypot(bx - ax, by - ay) * math.hypot(cx - bx, cy - by)
        if abs(cross) < 1e-3 * side:
            return f"corners {i + 1}, {(i + 1) % 4 + 1} and {(i + 2) % 4 + 1} lie on one line"
        signs.append(cross > 0)
    if len(set(signs)) != 1:
        return "the corners do not go round the board in order (tl, tr, br, bl): the sides cross"
    return None
