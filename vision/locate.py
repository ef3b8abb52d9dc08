"""Finding the board in a frame: its grid of spaces, without markers, with ArUco markers, or
from corners the user gave.

The markerless finder looks for the bright printed field of spaces inside the board's dark
edge: a blurred Otsu threshold, a closing that fills chips and prints, the largest
component's convex hull, reduced to four corners. Which corner is which (the board may lie
any way round) is decided by comparing the straightened board with the layout's own
pictures in the four rotations, or by nearness to the corners found before.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import Layout

CANON = 32          # pixels per space in the straightened board


class BoardNotFound(Exception):
    """The board could not be found; the message says, in words, what to fix."""


@dataclass
class Located:
    corners: np.ndarray      # grid corners in the frame: tl, tr, br, bl (float32, 4 x 2)
    method: str              # "outline", "aruco" or "manual"
    score: float = 1.0


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Four points in clockwise order starting at the one nearest the image's top-left."""
    pts = np.float32(pts).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]                    # clockwise in image coordinates (y down)
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def straighten(frame: np.ndarray, corners: np.ndarray, layout: Layout,
               cell: int = CANON) -> np.ndarray:
    """The grid of spaces seen from straight above, ``cell`` pixels per space."""
    w, h = layout.cols * cell, layout.rows * cell
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(np.float32(corners), dst)
    return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR)


def _diagnose(gray: np.ndarray, quad: np.ndarray | None) -> str:
    h, w = gray.shape
    level = float(gray.mean())
    if quad is not None:
        # the board's own light, not the frame's: a board on a dark table is not "too
        # dark" while its paper (the brighter part of it) is lit
        inside = np.zeros_like(gray)
        cv2.fillConvexPoly(inside, np.int32(np.round(order_corners(quad))), 255)
        if cv2.countNonZero(inside) > 0.02 * gray.size:
            level = float(np.percentile(gray[inside > 0], 90))
    if level < 45:
        return "the picture is too dark: turn on more light or open the lens"
    if quad is not None:
        touching = ((quad[:, 0] < 3) | (quad[:, 0] > w - 4) | (quad[:, 1] < 3) | (quad[:, 1] > h - 4)).any()
        if touching:
            return "the board is cut off: move the camera back so the whole board and a margin show"
        sides = [np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4)]
        if min(sides) / max(sides) < 0.45:
            return "the board is seen too obliquely: put the camera more nearly above it"
    return "no board found: make sure the whole board is in view, evenly lit, with nothing on its edge"


def _rough_board(small: np.ndarray, scale: float) -> np.ndarray | None:
    """The largest bright region's four extreme corners: where the board roughly is, to
    tell the user what is wrong with the view when the board's outline cannot be found."""
    _, mask = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    big = max(contours, key=cv2.contourArea)
    if cv2.contourArea(big) < 0.03 * small.size:
        return None
    hull = cv2.convexHull(big).reshape(-1, 2).astype(np.float32)
    return order_corners(_extreme_corners(hull)) / scale


def find_outline(frame: np.ndarray, cut: bool = False, _corners_out: int = 0,
                 looks: bool = True) -> Located:
    """The grid of spaces from the board's outline (no markers).

    The board's dark edge is a closed ring darker than both the table and the printed
    spaces; the hole inside that ring is the field of spaces. A local (adaptive) threshold
    finds dark things whatever the light; opening removes thin print lines; the largest
    hole that is nearly a quadrilateral is the field. Its four sides are fitted as lines
    (so a printed corner chip does not cut a corner) and crossed to give the corners. A ring
    with no such hole is closed over gaps of a few pixels (a scratch across it), then
    thresholded against a nearer neighbourhood and by a smaller step, and, in a dim
    picture, brightened first (:data:`DIM_PICTURE`), and looked at again (not with
    ``looks=False``).

    ``cut``: a board that may run out of the picture (a photo taken close): the picture is
    given a dark margin (the field's hole then closes along the picture's edge) and the
    corners may lie outside it; the caller must confirm the grid (the pairs).
    """
    if cut:
        pad = max(16, int(0.04 * max(frame.shape[:2])))
        wide = cv2.copyMakeBorder(frame, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        loc = find_outline(wide, _corners_out=pad, looks=looks)
        return Located(np.float32(loc.corners) - pad, loc.method, loc.score)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = gray.shape
    scale = min(1.0, 960.0 / max(h, w))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    small = cv2.GaussianBlur(small, (3, 3), 0)
    dark = _dark_mask(small, 8, 12)
    blown = cv2.dilate((small >= 248).astype(np.uint8) * 255,
                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    if _corners_out:
        # the dark margin round the picture (cut): the outline along it is the picture's
        # edge, not the board's; left out of the fit as glare is, and counted as field
        p = int(round(_corners_out * scale))
        band = np.full(small.shape, 255, np.uint8)
        band[p:small.shape[0] - p, p:small.shape[1] - p] = 0
        blown = cv2.bitwise_or(blown, band)
    near = cv2.dilate(blown, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))) > 0
    quad, best = _ring_quad(dark, blown, near, small.shape)
    # A ring with a gap lets the field's hole run out through it. Looked at again, only
    # while no field is found: the ring closed over gaps of a few pixels (a scratch across
    # a worn board's edge, a crease, a thread of glare), then thresholds for a ring that
    # hardly differs from the table beside it (a brown edge on a brown table under a
    # lamp): against a nearer neighbourhood, then by a smaller step below it. Not in a
    # picture too dark to read (its brightest tenth under TOO_DARK_TO_SEARCH): that is said.
    # Last, in a dim picture (its brightest tenth under DIM_PICTURE), the same thresholds
    # on the picture brightened so its brightest tenth is at DIM_LIFT_TO: the steps are in
    # grey levels, and under a lamp that falls off across the board the dim side's edge
    # differs from the cloth beside it by a few levels only (session 16: a glossy board on
    # a black cloth, its brightest tenth at grey 66, its ring open on the dim side)
    top = float(np.percentile(small, 90))
    again = (lambda: cv2.morphologyEx(dark, cv2.MORPH_CLOSE, _disc(3)),
             lambda: cv2.morphologyEx(dark, cv2.MORPH_CLOSE, _disc(5)),
             lambda: _dark_mask(small, 16, 12),
             lambda: _dark_mask(small, 8, 6),
             *((lambda: _dark_mask(_lifted(small, top), 8, 6),) if top < DIM_PICTURE else ()))
    if not looks or top < TOO_DARK_TO_SEARCH:
        again = ()
    for mask in again:
        if quad is not None and best >= 0.85:
            break
        q2, b2 = _ring_quad(mask(), blown, near, small.shape)
        if q2 is not None and (quad is None or b2 > best):
            quad, best = q2, b2
    if quad is not None:
        quad = quad / scale
    if quad is None or best < 0.85:
        raise BoardNotFound(_diagnose(gray, quad if quad is not None else _rough_board(small, scale)))
    quad = order_corners(quad)
    sides = [np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4)]
    if min(sides) / max(sides) < 0.45 or not _corners_out and \
            ((quad[:, 0] < 2) | (quad[:, 0] > w - 3) | (quad[:, 1] < 2) | (quad[:, 1] > h - 3)).any():
        raise BoardNotFound(_diagnose(gray, quad))
    return Located(quad, "outline", best)


#: grey level of a picture's brightest tenth under which the outline is not searched for
#: harder (:func:`find_outline`): the board's paper too dark to read, which is said instead
TOO_DARK_TO_SEARCH = 45
#: a picture whose brightest tenth is under this grey level is looked at once more
#: brightened, its brightest tenth lifted to ``DIM_LIFT_TO`` (:func:`find_outline`)
DIM_PICTURE = 140
DIM_LIFT_TO = 180


def _lifted(small: np.ndarray, top: float) -> np.ndarray:
    """``small`` brightened so that its brightest tenth (``top``) is at DIM_LIFT_TO."""
    return cv2.convertScaleAbs(small, alpha=DIM_LIFT_TO / max(top, 1.0))


def _disc(k: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def _dark_mask(small: np.ndarray, part: int, step: int) -> np.ndarray:
    """Pixels darker by ``step`` grey levels than the mean of their neighbourhood (a
    ``part``-th of the picture across), thin print lines opened away."""
    block = int(max(small.shape) / part) | 1
    dark = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                 block, step)
    return cv2.morphologyEx(dark, cv2.MORPH_OPEN, _disc(5))


def _ring_quad(dark: np.ndarray, blown: np.ndarray, near: np.ndarray, shape
               ) -> tuple[np.ndarray | None, float]:
    """The field inside the board's dark ring (``dark``), in ``dark``'s pixels, and how
    fully it fills its quadrilateral; a glare spot over the ring counted as ring where that
    gives a better one."""
    quad, best, glared = _field_quad(dark, None, near)
    if quad is None or best < 0.85 or glared > 0.02:
        # A glare spot may blow the dark edge out to white and break the ring, so the field
        # runs out through it: count blown-out pixels as edge, so the ring closes over
        # them, and fit the sides to the rest of the outline.
        q2, b2, _ = _field_quad(cv2.bitwise_or(dark, blown), blown, near)
        if q2 is not None and b2 >= 0.85 and (
                quad is None or best < 0.85 or
                _square_error(order_corners(q2), *shape[::-1]) + 0.01 <
                _square_error(order_corners(quad), *shape[::-1])):
            # of the two, the one that is more nearly the picture of a square board
            quad, best = q2, b2
    return quad, best


def _field_quad(dark: np.ndarray, blown: np.ndarray | None, near: np.ndarray
                ) -> tuple[np.ndarray | None, float, float]:
    """The field of spaces: the largest nearly-quadrilateral hole in the dark mask, as four
    corners, how fully the hole fills them, and the share of its outline next to glare.
    With ``blown`` (glare counted as edge), the outline next to glare is left out of the fit."""
    contours, hier = cv2.findContours(dark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    quad, best, share = None, 0.0, 0.0
    if hier is None:
        return None, 0.0, 0.0
    near_blown = None if blown is None else near
    holes = [c for c, hh in zip(contours, hier[0]) if hh[3] != -1]
    for cnt in sorted(holes, key=cv2.contourArea, reverse=True)[:3]:
        area = cv2.contourArea(cnt)
        if area < 0.05 * dark.size:
            break
        pts = cnt.reshape(-1, 2).astype(np.float32)
        glared = None if near_blown is None else near_blown[cnt[:, 0, 1], cnt[:, 0, 0]]
        if glared is not None and glared.any():
            pts = pts[~glared]
            q = _ransac_quad(pts)
            if q is None:
                continue
            q = _fit_sides(pts, order_corners(q))
            inside = np.zeros_like(dark)
            cv2.fillConvexPoly(inside, np.int32(np.round(q)), 255)
            filled = np.zeros_like(dark)
            cv2.drawContours(filled, [cnt], -1, 255, -1)
            area = float(np.count_nonzero((inside > 0) & ((filled > 0) | (blown > 0))))
        else:
            hull = cv2.convexHull(pts).reshape(-1, 2)
            q = _fit_sides(pts, order_corners(_extreme_corners(hull)))
            q = _fit_sides(pts, order_corners(q))
        fill = area / max(cv2.contourArea(q), 1.0)
        if fill > best:
            best, quad = fill, q
            share = float(near[cnt[:, 0, 1], cnt[:, 0, 0]].mean())
    return quad, best, share


def _square_error(quad: np.ndarray, w: int, h: int) -> float:
    """How far the quadrilateral is from the picture of a square: |log aspect| of the
    rectangle it shows, by Zhang's whiteboard rectification (the focal length from the two
    vanishing points, the principal point at the frame's centre)."""
    u0, v0 = w / 2, h / 2
    tl, tr, br, bl = (np.array([p[0], p[1], 1.0]) for p in quad)
    try:
        k2 = np.dot(np.cross(tl, br), bl) / np.dot(np.cross(tr, br), bl)
        k3 = np.dot(np.cross(tl, br), tr) / np.dot(np.cross(bl, br), tr)
    except ZeroDivisionError:
        return float("inf")
    n2, n3 = k2 * tr - tl, k3 * bl - tl
    f2 = 0.0
    if abs(n2[2] * n3[2]) > 1e-9:
        f2 = -((n2[0] * n3[0] - (n2[0] * n3[2] + n2[2] * n3[0]) * u0 + n2[2] * n3[2] * u0 * u0)
               + (n2[1] * n3[1] - (n2[1] * n3[2] + n2[2] * n3[1]) * v0 + n2[2] * n3[2] * v0 * v0)
               ) / (n2[2] * n3[2])
    if not np.isfinite(f2) or f2 <= 0:
        f2 = float(max(w, h)) ** 2          # nearly no perspective: any focal length will do
    f = np.sqrt(f2)
    ai = np.linalg.inv(np.array([[f, 0, u0], [0, f, v0], [0, 0, 1]]))
    b = ai.T @ ai
    r2 = (n2 @ b @ n2) / max(n3 @ b @ n3, 1e-12)
    return abs(0.5 * float(np.log(max(r2, 1e-12))))


def _ransac_quad(pts: np.ndarray, seed: int = 0) -> np.ndarray | None:
    """Four corners from outline points of which some sides may be partly missing: the four
    strongest straight lines (RANSAC), paired by direction and crossed."""
    if len(pts) < 40:
        return None
    rng = np.random.default_rng(seed)
    size = float(np.ptp(pts, axis=0).max())
    tol, band = max(2.0, 0.006 * size), 0.06 * size
    lines = []
    rest = pts
    for _ in range(4):
        if len(rest) < 10:
            return None
        i = rng.integers(len(rest), size=(300, 2))
        a, b = rest[i[:, 0]], rest[i[:, 1]]
        d = b - a
        norm = np.hypot(d[:, 0], d[:, 1])
        ok = norm > 0.05 * size
        a, d, norm = a[ok], d[ok], norm[ok]
        if not len(a):
            return None
        nrm = np.stack([-d[:, 1], d[:, 0]], axis=1) / norm[:, None]          # unit normals
        dist = ((rest[None, :, 0] - a[:, None, 0]) * nrm[:, None, 0]
                + (rest[None, :, 1] - a[:, None, 1]) * nrm[:, None, 1])
        k = int(np.argmax((np.abs(dist) < tol).sum(axis=1)))
        inl = rest[np.abs(dist[k]) < tol]
        if len(inl) < 10:
            return None
        vx, vy, x0, y0 = cv2.fitLine(inl, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
        # drop everything near this side (a bent side must not come back as another line)
        off = np.abs((rest[:, 0] - x0) * vy - (rest[:, 1] - y0) * vx)
        rest = rest[off > band]
    ang = np.array([np.arctan2(v[1], v[0]) % np.pi for _, v in lines])
    # pair each line with the one nearest its direction
    best = None
    for j in range(1, 4):
        others = [k for k in range(1, 4) if k != j]
        da = abs((ang[0] - ang[j] + np.pi / 2) % np.pi - np.pi / 2)
        db = abs((ang[others[0]] - ang[others[1]] + np.pi / 2) % np.pi - np.pi / 2)
        if best is None or da + db < best[0]:
            best = (da + db, (0, j), tuple(others))
    _, pa, pb = best
    corners = []
    for i in pa:
        for j in pb:
            (p1, d1), (p2, d2) = lines[i], lines[j]
            m = np.array([d1, -d2]).T
            if abs(np.linalg.det(m)) < 0.2:      # not a quadrilateral: sides nearly parallel
                return None
            t = np.linalg.solve(m, p2 - p1)
            corners.append(p1 + t[0] * d1)
    c = np.float32(corners)
    hull = cv2.convexHull(c).reshape(-1, 2)
    return hull.astype(np.float32) if len(hull) == 4 else None


def _extreme_corners(hull: np.ndarray) -> np.ndarray:
    """Four rough corners: the hull's extremes along the diagonals of its best rectangle."""
    (_, _), (_, _), angle = cv2.minAreaRect(hull)
    a = np.radians(angle)
    rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]], np.float32)
    p = (hull - hull.mean(axis=0)) @ rot.T
    idx = [int(np.argmax(-p[:, 0] - p[:, 1])), int(np.argmax(p[:, 0] - p[:, 1])),
           int(np.argmax(p[:, 0] + p[:, 1])), int(np.argmax(-p[:, 0] + p[:, 1]))]
    return hull[idx]


def _fit_sides(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Corners as the crossings of lines fitted to the middle of each side, so that a corner
    cut off (a printed corner chip, a chip on the edge) does not pull it inwards."""
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 1:
            return quad.astype(np.float32)
        u = d / length
        rel = points - a
        along = rel @ u
        across = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        sel = points[(along > 0.15 * length) & (along < 0.85 * length) & (across < 0.04 * length)]
        if len(sel) < 5:
            return quad.astype(np.float32)
        vx, vy, x0, y0 = cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad.astype(np.float32)
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * d1)
    return np.float32(out)


def _refine(gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Sharpen the corners to the sub-pixel corner of the printed field."""
    pts = quad.reshape(-1, 1, 2).copy()
    win = max(3, int(min(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[1] - quad[2])) / 60))
    try:
        cv2.cornerSubPix(gray, pts, (win, win), (-1, -1),
                         (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.05))
    except cv2.error:
        return quad
    moved = np.linalg.norm(pts.reshape(4, 2) - quad, axis=1)
    return np.where((moved < win * 1.5)[:, None], pts.reshape(4, 2), quad).astype(np.float32)


def find_aruco(frame: np.ndarray, dictionary: int = cv2.aruco.DICT_4X4_50) -> Located:
    """The grid from four ArUco markers (ids 0-3: tl, tr, br, bl) printed just outside the
    grid's corners, each marker's inner corner touching the grid's corner."""
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(frame)
    if ids is None:
        raise BoardNotFound("no ArUco markers found: check that the four corner markers are in view")
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
    missing = [i for i in range(4) if i not in found]
    if missing:
        raise BoardNotFound(f"ArUco markers {missing} not found: uncover the board's corners")
    # marker corner order is tl, tr, br, bl; the grid corner is the marker's inner corner
    inner = np.float32([found[0][2], found[1][3], found[2][0], found[3][1]])
    return Located(inner, "aruco")


def orientation_score(frame: np.ndarray, corners: np.ndarray, template: np.ndarray,
                      layout: Layout) -> float:
    """How well the straightened board matches the layout's template (normalised
    correlation of the red-ness and darkness of the prints)."""
    img = straighten(frame, corners, layout, 16)
    return float(cv2.matchTemplate(_signature(img), _signature(template), cv2.TM_CCOEFF_NORMED)[0, 0])


def _signature(img: np.ndarray) -> np.ndarray:
    f = img.astype(np.float32)
    red = f[:, :, 2] - np.maximum(f[:, :, 0], f[:, :, 1])
    dark = 255.0 - f.mean(axis=2)
    s = np.concatenate([red, dark], axis=1)
    return cv2.GaussianBlur(s, (3, 3), 0)


def orient(frame: np.ndarray, corners: np.ndarray, layout: Layout,
           template: np.ndarray | None = None, previous: np.ndarray | None = None) -> np.ndarray:
    """Choose which found corner is the layout's top-left: the rotation nearest the corners
    found before, or else the one whose picture best matches the layout's template."""
    options = [np.roll(corners, -k, axis=0) for k in range(4)]
    if previous is not None:
        return min(options, key=lambda c: float(np.linalg.norm(c - previous, axis=1).sum()))
    if template is None:
        return corners
    if list(layout.symbols) == list(layout.symbols)[::-1]:
        # the board reads the same turned round: those two ways are one and the same
        options = [options[0], options[1]] if layout.rows != layout.cols or \
            not _quarter_symmetric(layout) else [options[0]]
    scores = [orientation_score(frame, c, template, layout) for c in options]
    best = int(np.argmax(scores))
    # no clear winner (a layout that looks alike every way round): keep the top-left corner
    return options[best] if scores[best] - scores[0] > 0.05 else options[0]


def _quarter_symmetric(layout: Layout) -> bool:
    n = layout.rows
    turned = [layout.symbols[(n - 1 - c) * n + r] for r in range(n) for c in range(n)]
    return turned == list(layout.symbols)


def layout_template(layout: Layout) -> np.ndarray:
    """The layout's empty board, straightened at 16 pixels per space, for orientation."""
    from .synth import MARGIN, board_image
    cell = 32
    img = board_image(layout, None, cell)
    m = int(round(MARGIN * cell))
    grid = img[m:m + layout.rows * cell, m:m + layout.cols * cell]
    return cv2.resize(grid, (layout.cols * 16, layout.rows * 16), interpolation=cv2.INTER_AREA)


def other_candidates(frame: np.ndarray, limit: int = 4) -> list[np.ndarray]:
    """Other quadrilaterals that may be the board, for when the outline finder's is not
    confirmed: the largest bright region (the board's paper on a dark table), and the
    largest convex four-sided outlines among strong edges (a board on a patterned cloth).
    Each may be the whole board with its edge rather than the field of spaces: the caller
    settles them (:func:`vision.pairs.settle_grid`). Up to ``limit`` of those, and the
    region brighter than its own surroundings (the board on a dark table under a light
    that falls off across it)."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = gray.shape
    scale = min(1.0, 960.0 / max(h, w))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    small = cv2.GaussianBlur(small, (5, 5), 0)
    out: list[np.ndarray] = []

    def add(pts: np.ndarray) -> None:
        hull = cv2.convexHull(np.float32(pts)).reshape(-1, 2)
        if len(hull) < 4 or cv2.contourArea(hull) < 0.04 * small.size:
            return
        q = order_corners(_extreme_corners(hull))
        q = _fit_sides(hull, q) if len(hull) > 8 else q
        q = order_corners(q) / scale
        sides = [np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4)]
        if min(sides) / max(sides) < 0.3:
            return
        if all(np.abs(q - o).max() > 4 for o in out):
            out.append(np.float32(q))

    _, bright = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15)))
    bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:2]:
        add(cnt.reshape(-1, 2))
        # a glare spot over the board's edge bulges the bright region out: its four
        # straightest sides, the bulge left out
        pts = cnt.reshape(-1, 2).astype(np.float32)
        if cv2.contourArea(cnt) >= 0.04 * small.size:
            q = _ransac_quad(pts)
            if q is not None:
                add(_fit_sides(pts, order_corners(q)))
    edges = cv2.Canny(small, 40, 120)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:12]:
        approx = cv2.approxPolyDP(cnt, 0.03 * cv2.arcLength(cnt, True), True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            add(approx.reshape(-1, 2))
        if len(out) >= limit:
            break
    out = out[:limit]
    # and one more: the board brighter than the table round it, whatever the light does
    # across the frame (a lamp's gradient over a dark table splits the board for one
    # threshold over all of it, above): bright against its own surroundings
    block = int(max(small.shape) / 8) | 1
    local = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY,
                                  block, -5)
    local = cv2.morphologyEx(local, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15)))
    local = cv2.morphologyEx(local, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    contours, _ = cv2.findContours(local, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if contours:
        add(max(contours, key=cv2.contourArea).reshape(-1, 2))
    return out
