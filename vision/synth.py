"""A synthetic camera: renders a board of any layout, with chips, as a real camera sees it.

:func:`render` draws the board straight from above (:func:`board_image`: the card pictures
of the classic layout, text for picture symbols, printed chips on the free corners), puts
chips on it, then films it: perspective (up to 40 degrees off vertical) and any rotation,
lens distortion, light from 2700 K to 6500 K, uneven light and shadows, glare spots,
noise, blur, JPEG compression, and a hand with its arm over part of the board. It returns
the image and the truth: the :class:`~engine.observation.Observation` of the chips and which
spaces a hand covers. Everything is drawn from a seeded ``numpy`` generator: the same
:class:`Conditions` and seed give the same image.

:class:`SyntheticCamera` films a changing table (the demo's) frame after frame.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from engine.cards import picture_file
from engine.layout import Layout
from engine.observation import Observation, SpaceState

#: Chip colours as printed plastic looks under neutral light (BGR).
CHIP_BGR = {"B": (190, 95, 25), "G": (70, 150, 30), "R": (40, 35, 200), "W": (232, 234, 236)}
BORDER_BGR = (40, 70, 30)          # the board's dark green edge
TABLE_BGR = (95, 130, 165)         # a wooden table
CELL = 64                          # pixels per space in the top-down board image
MARGIN = 0.45                      # board edge around the spaces, in spaces


@dataclass(frozen=True)
class Conditions:
    """What the camera and the room do to the picture. Defaults: a good setup."""

    width: int = 1280
    height: int = 720
    tilt_deg: float = 0.0          # camera off vertical (perspective)
    rotation_deg: float = 0.0      # the board's rotation in the picture
    scale: float = 0.85            # board size relative to the frame's shorter side
    offset: tuple[float, float] = (0.0, 0.0)   # board centre offset, fraction of the frame
    distortion: float = 0.0        # radial lens distortion k1 (barrel < 0 < pincushion)
    kelvin: float = 5000.0         # colour temperature of the light
    brightness: float = 1.0
    uneven: float = 0.0            # 0..1 strength of a light gradient across the frame
    shadow: float = 0.0            # 0..1 darkness of a soft shadow across part of the board
    glare: int = 0                 # number of glare spots
    noise: float = 0.0             # sigma of sensor noise (0..255 scale)
    blur: float = 0.0              # sigma of a Gaussian blur
    jpeg: int = 0                  # JPEG quality (0: none)
    hand_at: int | None = None     # space a hand reaches for (None: no hand)
    hand_size: float = 1.3         # hand radius in spaces
    light_seed: int = 0            # where the room's gradient, shadow and glare fall
    markers: bool = False          # ArUco markers 0-3 stuck outside the grid's corners


@dataclass
class Rendered:
    image: np.ndarray
    truth: Observation
    occluded: tuple[bool, ...]     # spaces a hand covers (their truth is unknowable)
    corners: np.ndarray            # the board's outer corners in the image (tl, tr, br, bl)
    grid_corners: np.ndarray       # the outer corners of the 10 x 10 spaces in the image
    conditions: Conditions = field(default_factory=Conditions)
    # spaces a careful reader may call unknown: a hand over part of them or beside them, or
    # the paper blown out to white (glare) where a chip would be (the occluded ones too)
    unsure: tuple[bool, ...] = ()


def kelvin_gains(kelvin: float) -> np.ndarray:
    """BGR gains of light at ``kelvin`` relative to daylight (a smooth fit of the Planckian
    locus over 2700-6500 K): warm light is red-heavy and weak in blue."""
    t = (min(max(kelvin, 2000.0), 7000.0) - 6500.0) / 3800.0      # 0 at 6500 K, -1 at 2700 K
    return np.array([1.0 + 0.55 * t, 1.0 + 0.22 * t, 1.0 - 0.02 * t], np.float32)


@functools.lru_cache(maxsize=64)
def _card_picture(code: str, size: int) -> np.ndarray | None:
    name = picture_file(code)
    if name is None:
        return None
    path = os.path.join(os.path.dirname(__file__), "..", "engine", "data", "cards", name)
    im = cv2.imread(os.path.normpath(path), cv2.IMREAD_UNCHANGED)
    if im is None:
        return None
    if im.shape[2] == 4:
        alpha = im[:, :, 3:4].astype(np.float32) / 255.0
        im = (im[:, :, :3].astype(np.float32) * alpha + 250.0 * (1 - alpha)).astype(np.uint8)
    # The card's middle, where its suit and rank show, fills the space as on the board.
    h, w = im.shape[:2]
    crop = im[int(h * 0.08):int(h * 0.92), int(w * 0.04):int(w * 0.96)]
    return cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)


def _symbol_cell(sym: str, size: int) -> np.ndarray:
    cell = np.full((size, size, 3), 246, np.uint8)
    pic = _card_picture(sym, size - 4)
    if pic is not None:
        cell[2:-2, 2:-2] = pic
        return cell
    # a picture symbol (Jewish Edition) or an unknown code: an emblem of its own (shapes
    # seeded by the name, as each picture differs) and the name as text
    h = sum(ord(c) * (k + 1) for k, c in enumerate(sym))
    rng = np.random.default_rng(h)
    colour = (40 + h * 37 % 150, 40 + h * 53 % 150, 40 + h * 71 % 150)
    cv2.rectangle(cell, (4, 4), (size - 5, size - 5), colour, 2)
    for _ in range(3):
        c = tuple(int(v) for v in rng.integers(20, 200, 3))
        x, y = (int(v) for v in rng.integers(size // 4, size * 3 // 4, 2))
        d = int(size * rng.uniform(0.08, 0.2))
        if rng.random() < 0.5:
            cv2.circle(cell, (x, y), d, c, -1, cv2.LINE_AA)
        else:
            cv2.rectangle(cell, (x - d, y - d // 2), (x + d, y + d // 2), c, -1)
    cv2.putText(cell, sym[:6], (5, size - 8), cv2.FONT_HERSHEY_SIMPLEX,
                0.28 * size / 64, colour, 1, cv2.LINE_AA)
    return cell


def _free_cell(size: int) -> np.ndarray:
    """A free corner: printed with a chip (dark, with a bright emblem)."""
    cell = np.full((size, size, 3), 246, np.uint8)
    c = size // 2
    cv2.circle(cell, (c, c), int(size * 0.36), (30, 30, 30), -1, cv2.LINE_AA)
    cv2.circle(cell, (c, c), int(size * 0.22), (40, 200, 230), 2, cv2.LINE_AA)
    cv2.drawMarker(cell, (c, c), (40, 200, 230), cv2.MARKER_STAR, int(size * 0.3), 2)
    return cell


_BOARDS: dict[tuple, np.ndarray] = {}


def _empty_board(layout: Layout, cell: int) -> np.ndarray:
    key = (layout.name, layout.rows, layout.cols, tuple(layout.symbols), frozenset(layout.free), cell)
    img = _BOARDS.get(key)
    if img is None:
        img = _BOARDS[key] = _draw_empty_board(layout, cell)
    return img


def _draw_empty_board(layout: Layout, cell: int) -> np.ndarray:
    m = int(round(MARGIN * cell))
    h, w = layout.rows * cell + 2 * m, layout.cols * cell + 2 * m
    img = np.empty((h, w, 3), np.uint8)
    img[:] = BORDER_BGR
    for i, sym in enumerate(layout.symbols):
        r, c = divmod(i, layout.cols)
        tile = _free_cell(cell) if i in layout.free else _symbol_cell(sym, cell)
        img[m + r * cell:m + (r + 1) * cell, m + c * cell:m + (c + 1) * cell] = tile
    # thin grid lines as printed
    for k in range(layout.rows + 1):
        cv2.line(img, (m, m + k * cell), (w - m, m + k * cell), (60, 60, 60), 1)
    for k in range(layout.cols + 1):
        cv2.line(img, (m + k * cell, m), (m + k * cell, h - m), (60, 60, 60), 1)
    img.setflags(write=False)
    return img


def draw_chip(img: np.ndarray, centre: tuple[int, int], radius: int, state: str,
              rng: np.random.Generator | None = None) -> None:
    colour = CHIP_BGR[state]
    dark = tuple(int(v * 0.72) for v in colour)
    cv2.circle(img, centre, radius, dark, -1, cv2.LINE_AA)
    cv2.circle(img, centre, int(radius * 0.86), colour, -1, cv2.LINE_AA)
    # the moulded rim and a soft highlight, as on real plastic chips
    cv2.circle(img, centre, int(radius * 0.6), dark, 1, cv2.LINE_AA)
    hl = tuple(min(255, int(v * 1.15) + 20) for v in colour)
    cv2.circle(img, (centre[0] - radius // 3, centre[1] - radius // 3), max(2, radius // 5), hl, -1,
               cv2.LINE_AA)


def board_image(layout: Layout, states: Observation | None = None, cell: int = CELL,
                rng: np.random.Generator | None = None, jitter: float = 0.0) -> np.ndarray:
    """The board from straight above, with chips where ``states`` has them.

    ``jitter`` (fraction of a space) moves each chip off its centre, as people put them.
    """
    img = _empty_board(layout, cell).copy()
    if states is None:
        return img
    m = int(round(MARGIN * cell))
    rad = int(cell * 0.38)
    for i, st in enumerate(states.states):
        if not st.is_chip:
            continue
        r, c = divmod(i, layout.cols)
        dx = dy = 0.0
        if jitter and rng is not None:
            dx, dy = rng.uniform(-jitter, jitter, 2) * cell
        centre = (int(m + (c + 0.5) * cell + dx), int(m + (r + 0.5) * cell + dy))
        draw_chip(img, centre, rad, st.value, rng)
    return img


def board_corners(layout: Layout, cell: int = CELL) -> tuple[np.ndarray, np.ndarray]:
    """Outer corners of the board image and of its grid of spaces (tl, tr, br, bl)."""
    m = round(MARGIN * cell)
    h, w = layout.rows * cell + 2 * m, layout.cols * cell + 2 * m
    outer = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    grid = np.float32([[m, m], [w - m, m], [w - m, h - m], [m, h - m]])
    return outer, grid


def _with_markers(top: np.ndarray, grid: np.ndarray, cell: int = CELL):
    """The board on a white mat with ArUco markers 0-3 (DICT_4X4_50) outside the grid's
    corners, each marker's inner corner on the grid's corner, as docs/calibration.md says."""
    pad = int(1.4 * cell)
    size, quiet = int(1.1 * cell), int(0.18 * cell)
    img = cv2.copyMakeBorder(top, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(236, 238, 240))
    grid = grid + pad
    h, w = img.shape[:2]
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    # (marker id, its corner that touches the grid corner): tl->br, tr->bl, br->tl, bl->tr
    for k, (dx, dy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        gx, gy = (int(round(v)) for v in grid[k])
        x0 = gx - size if dx < 0 else gx
        y0 = gy - size if dy < 0 else gy
        cv2.rectangle(img, (x0 - quiet, y0 - quiet), (x0 + size + quiet, y0 + size + quiet),
                      (255, 255, 255), -1)
        mark = cv2.aruco.generateImageMarker(dictionary, k, size)
        img[y0:y0 + size, x0:x0 + size] = mark[..., None]
    outer = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return img, outer, np.float32(grid)


def _projection(cond: Conditions, w: int, h: int) -> np.ndarray:
    """Where the board's corners land: a board of size w x h tilted ``tilt_deg`` away from
    the camera, rotated, and projected by a pinhole camera."""
    side = min(cond.width, cond.height) * cond.scale
    s = side / max(w, h)
    pts = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]],
                   np.float64) * s
    a = math.radians(cond.rotation_deg)
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    t = math.radians(cond.tilt_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    p = pts @ rz.T @ rx.T
    f = max(cond.width, cond.height) * 1.1
    dist = f * 1.0
    z = p[:, 2] + dist
    x = p[:, 0] * f / z
    y = p[:, 1] * f / z
    # keep the projected board the intended size whatever the tilt
    span = max(x.max() - x.min(), y.max() - y.min())
    k = side / span
    cx = cond.width / 2 + cond.offset[0] * cond.width
    cy = cond.height / 2 + cond.offset[1] * cond.height
    return np.float32(np.stack([x * k + cx, y * k + cy], axis=1))


def _distort(img: np.ndarray, k1: float) -> np.ndarray:
    h, w = img.shape[:2]
    yy, xx = np.indices((h, w), np.float32)
    cx, cy, f = w / 2, h / 2, max(w, h) / 2
    xn, yn = (xx - cx) / f, (yy - cy) / f
    r2 = xn * xn + yn * yn
    factor = 1 + k1 * r2
    return cv2.remap(img, xn * factor * f + cx, yn * factor * f + cy, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def _distort_points(pts: np.ndarray, k1: float, w: int, h: int) -> np.ndarray:
    """Where points land after :func:`_distort` (its inverse mapping, solved iteratively)."""
    cx, cy, f = w / 2, h / 2, max(w, h) / 2
    out = []
    for x, y in pts:
        xd, yd = (x - cx) / f, (y - cy) / f
        xu, yu = xd, yd
        for _ in range(20):
            r2 = xu * xu + yu * yu
            xu, yu = xd / (1 + k1 * r2), yd / (1 + k1 * r2)
        out.append((xu * f + cx, yu * f + cy))
    return np.float32(out)


def _hand_mask(cond: Conditions, grid: np.ndarray, layout: Layout, rng: np.random.Generator
               ) -> np.ndarray:
    """A hand over space ``hand_at`` and its arm reaching in from the nearest frame edge."""
    mask = np.zeros((cond.height, cond.width), np.uint8)
    if cond.hand_at is None:
        return mask
    r, c = divmod(cond.hand_at, layout.cols)
    hmat = cv2.getPerspectiveTransform(np.float32([[0, 0], [layout.cols, 0],
                                                   [layout.cols, layout.rows], [0, layout.rows]]),
                                       grid)
    centre = cv2.perspectiveTransform(np.float32([[[c + 0.5, r + 0.5]]]), hmat)[0, 0]
    one = cv2.perspectiveTransform(np.float32([[[c + 1.5, r + 0.5]]]), hmat)[0, 0]
    space_px = float(np.hypot(*(one - centre)))
    rad = int(space_px * cond.hand_size * rng.uniform(0.8, 1.1))
    cx, cy = int(centre[0]), int(centre[1])
    # the arm goes to the bottom edge (where the player sits), slightly to one side
    ex = int(cx + rng.uniform(-0.2, 0.2) * cond.width)
    cv2.line(mask, (cx, cy), (ex, cond.height + 50), 255, int(rad * 1.3))
    cv2.ellipse(mask, (cx, cy), (rad, int(rad * 0.8)), rng.uniform(0, 180), 0, 360, 255, -1)
    for k in range(4):   # fingers
        ang = math.radians(-150 + 30 * k + rng.uniform(-8, 8))
        cv2.line(mask, (cx, cy), (int(cx + math.cos(ang) * rad * 1.5),
                                  int(cy + math.sin(ang) * rad * 1.5)), 255, max(3, rad // 4))
    return mask


def render(layout: Layout, states: Observation, cond: Conditions = Conditions(), seed: int = 0,
           jitter: float = 0.06, look=None) -> Rendered:
    """Film the board holding ``states`` under ``cond``; return the image and the truth.

    ``look`` (a :class:`vision.looks.Look`) draws the scene in that look: its card art,
    board, chips, table, hands and extra light; None draws the project's own plain look."""
    from . import looks as lk
    rng = np.random.default_rng(seed)
    if look is None:
        top = board_image(layout, states, CELL, rng, jitter)
    else:
        top = lk.board_top(layout, states, look, CELL, rng, jitter)
    outer_src, grid_src = board_corners(layout)
    if cond.markers:
        top, outer_src, grid_src = _with_markers(top, grid_src)
    h, w = top.shape[:2]
    outer_dst = _projection(cond, w, h)
    hmat = cv2.getPerspectiveTransform(outer_src, outer_dst)
    if look is None:
        frame = np.empty((cond.height, cond.width, 3), np.uint8)
        frame[:] = TABLE_BGR
        grain = rng.normal(0, 6, (cond.height // 8 + 1, cond.width // 8 + 1)).astype(np.float32)
        grain = cv2.resize(grain, (cond.width, cond.height))
        frame = np.clip(frame.astype(np.float32) + grain[..., None], 0, 255).astype(np.uint8)
    else:
        frame = lk.table_image(look, cond.width, cond.height, rng)
    cv2.warpPerspective(top, hmat, (cond.width, cond.height), dst=frame,
                        flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    grid_dst = cv2.perspectiveTransform(grid_src[None], hmat)[0]

    lrng = np.random.default_rng(cond.light_seed)   # the room's lights stay where they are
    extras = lk.light_extras(look, cond, np.random.default_rng([cond.light_seed, 1])) \
        if look is not None else {}
    board_area = None
    if extras.get("crease") or extras.get("sheen"):
        board_area = np.zeros((cond.height, cond.width), np.float32)
        cv2.fillConvexPoly(board_area, np.int32(np.round(outer_dst)), 1.0)
    # the hand, before the light falls on everything
    cast = None
    if look is not None:
        hand, colour, cast = lk.hand_layers(look, cond, grid_dst, layout, rng)
        if hand.any():
            a = hand.astype(np.float32)[..., None] / 255.0
            frame = (colour * a + frame.astype(np.float32) * (1 - a)).astype(np.uint8)
            hand = np.where(hand > 40, 255, 0).astype(np.uint8)
    else:
        hand = _hand_mask(cond, grid_dst, layout, rng)
    if look is None and hand.any():
        skin = np.array([120, 150, 205], np.float32) * rng.uniform(0.7, 1.1)
        shade = cv2.GaussianBlur(hand, (0, 0), 9).astype(np.float32) / 255.0
        tone = np.clip(skin * (0.75 + 0.25 * shade[..., None]), 0, 255)
        sel = hand > 0
        frame[sel] = tone[sel].astype(np.uint8)

    img = frame.astype(np.float32)
    lum = np.ones((cond.height, cond.width), np.float32)   # the light's strength, for `unsure`
    if extras.get("second_kelvin"):
        # two lamps of different colours: one colour temperature fades into the other
        yy, xx = np.mgrid[0:cond.height, 0:cond.width].astype(np.float32)
        a = lrng.uniform(0, 2 * math.pi)
        t = np.clip(0.5 + (np.cos(a) * (xx / cond.width - 0.5) + np.sin(a) * (yy / cond.height - 0.5))
                    * 1.5, 0, 1)[..., None]
        img *= (kelvin_gains(cond.kelvin) * (1 - t) + kelvin_gains(extras["second_kelvin"]) * t) \
            * cond.brightness
    else:
        img *= kelvin_gains(cond.kelvin) * cond.brightness
    if board_area is not None and extras.get("crease"):
        # the fold of a folding board: a line across the middle, one half a little tilted
        # towards the light
        mid = (outer_dst[0] + outer_dst[3]) / 2, (outer_dst[1] + outer_dst[2]) / 2
        crease = np.zeros((cond.height, cond.width), np.float32)
        cv2.line(crease, tuple(int(v) for v in mid[0]), tuple(int(v) for v in mid[1]), 1.0, 2,
                 cv2.LINE_AA)
        side = np.zeros_like(crease)
        cv2.fillConvexPoly(side, np.int32(np.round([outer_dst[0], outer_dst[1], mid[1], mid[0]])), 1.0)
        k = float(lrng.uniform(0.9, 1.1))
        img *= (1 - 0.35 * crease * board_area)[..., None]
        img *= (1 + (k - 1) * side * board_area)[..., None]
    if cast is not None and cast.any():
        lum *= 1 - cast
        img *= (1 - cast)[..., None]
    if cond.uneven:
        yy, xx = np.mgrid[0:cond.height, 0:cond.width].astype(np.float32)
        a = lrng.uniform(0, 2 * math.pi)
        g = (np.cos(a) * (xx / cond.width - 0.5) + np.sin(a) * (yy / cond.height - 0.5))
        lum *= 1.0 + cond.uneven * g * 1.2
        img *= (1.0 + cond.uneven * g * 1.2)[..., None]
    if cond.shadow:
        sm = np.zeros((cond.height, cond.width), np.uint8)
        p0 = lrng.uniform([0, 0], [cond.width, cond.height])
        pts = np.int32([p0 + lrng.uniform(-0.4, 0.4, 2) * [cond.width, cond.height] for _ in range(4)])
        cv2.fillConvexPoly(sm, cv2.convexHull(pts), 255)
        sm = cv2.GaussianBlur(sm, (0, 0), 25).astype(np.float32) / 255.0
        lum *= 1.0 - cond.shadow * sm
        img *= (1.0 - cond.shadow * sm)[..., None]
    if extras.get("hard_shadow"):
        # a hard-edged shadow (an object between a small lamp and the board)
        sm = np.zeros((cond.height, cond.width), np.uint8)
        p0 = lrng.uniform([0, 0], [cond.width, cond.height])
        pts = np.int32([p0 + lrng.uniform(-0.3, 0.3, 2) * [cond.width, cond.height] for _ in range(5)])
        cv2.fillConvexPoly(sm, cv2.convexHull(pts), 255)
        sm = cv2.GaussianBlur(sm, (0, 0), 2).astype(np.float32) / 255.0
        lum *= 1.0 - extras["hard_shadow"] * sm
        img *= (1.0 - extras["hard_shadow"] * sm)[..., None]
    glare = np.zeros((cond.height, cond.width), np.float32)
    if board_area is not None and extras.get("sheen"):
        # a glossy board: a broad streak of the lamp's reflection
        yy, xx = np.mgrid[0:cond.height, 0:cond.width].astype(np.float32)
        a = lrng.uniform(0, math.pi)
        d = np.cos(a) * (xx - lrng.uniform(0.3, 0.7) * cond.width) + \
            np.sin(a) * (yy - lrng.uniform(0.3, 0.7) * cond.height)
        glare += np.exp(-(d / (0.06 * cond.width)) ** 2) * 90 * extras["sheen"] * board_area
    for _ in range(cond.glare):
        gx, gy = lrng.uniform(0.2, 0.8) * cond.width, lrng.uniform(0.2, 0.8) * cond.height
        sig = lrng.uniform(0.015, 0.04) * cond.width
        yy, xx = np.ogrid[0:cond.height, 0:cond.width]
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig * sig)).astype(np.float32)
        glare += blob * 230
    if glare.any():
        img += glare[..., None]
    # where the paper itself is blown out to white, a white chip cannot be told from it
    blown = ((246 * float(np.min(kelvin_gains(cond.kelvin))) * cond.brightness * lum + glare)
             > 250).astype(np.float32)
    if cond.noise:
        img += rng.normal(0, cond.noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if cond.blur:
        out = cv2.GaussianBlur(out, (0, 0), cond.blur)
    if cond.distortion:
        out = _distort(out, cond.distortion)
        outer_dst = _distort_points(outer_dst, cond.distortion, cond.width, cond.height)
        grid_dst = _distort_points(grid_dst, cond.distortion, cond.width, cond.height)
        hand = _distort(hand, cond.distortion)
        blown = _distort(blown, cond.distortion)
    if cond.jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    cover = _per_space(hand.astype(np.float32) / 255.0, grid_dst, layout)
    occluded = tuple(bool(v > 0.1) for v in cover.mean(axis=(1, 2)))
    # the hand's edge is soft to a camera: a space it touches or borders may read unknown
    under = np.array(occluded, np.uint8).reshape(layout.rows, layout.cols)
    touched = (cover.max(axis=(1, 2)) > 0) | (cv2.dilate(under, np.ones((3, 3), np.uint8)).ravel() > 0)
    washed = _per_space(blown, grid_dst, layout)[:, 2:6, 2:6].mean(axis=(1, 2)) > 0.2
    unsure = tuple(bool(a or b) for a, b in zip(touched, washed))
    truth = Observation(states.rows, states.cols, tuple(
        SpaceState.UNKNOWN if occ else st for st, occ in zip(states.states, occluded)))
    return Rendered(out, truth, occluded, outer_dst, grid_dst, cond, unsure)


def _per_space(field: np.ndarray, grid: np.ndarray, layout: Layout, s: int = 8) -> np.ndarray:
    """An image-sized field seen top-down: ``s`` x ``s`` samples per space, (n, s, s)."""
    dst = np.float32([[0, 0], [layout.cols * s, 0], [layout.cols * s, layout.rows * s],
                      [0, layout.rows * s]])
    m = cv2.getPerspectiveTransform(np.float32(grid), dst)
    top = cv2.warpPerspective(field, m, (layout.cols * s, layout.rows * s), flags=cv2.INTER_LINEAR)
    return top.reshape(layout.rows, s, layout.cols, s).transpose(0, 2, 1, 3).reshape(-1, s, s)


def random_conditions(rng: np.random.Generator, kind: str, width: int = 1280,
                      height: int = 720) -> Conditions:
    """Conditions of one named kind, drawn at random within what a real camera varies."""
    base = Conditions(width=width, height=height, rotation_deg=float(rng.uniform(-180, 180)),
                      light_seed=int(rng.integers(1 << 30)),
                      tilt_deg=float(rng.uniform(0, 12)), kelvin=float(rng.uniform(4000, 6000)),
                      noise=float(rng.uniform(1, 3)), scale=float(rng.uniform(0.8, 0.92)))
    if kind == "clean":
        return base
    if kind == "perspective":
        return replace(base, tilt_deg=float(rng.uniform(25, 40)), scale=0.78)
    if kind == "distortion":
        return replace(base, distortion=float(rng.choice([-1, 1]) * rng.uniform(0.04, 0.1)), scale=0.8)
    if kind == "warm_light":
        return replace(base, kelvin=float(rng.uniform(2700, 3200)), brightness=0.85)
    if kind == "cold_light":
        return replace(base, kelvin=float(rng.uniform(6000, 6500)))
    if kind == "dim":
        return replace(base, brightness=float(rng.uniform(0.45, 0.6)), noise=4.0)
    if kind == "uneven":
        return replace(base, uneven=float(rng.uniform(0.3, 0.6)), shadow=float(rng.uniform(0.3, 0.5)))
    if kind == "glare":
        return replace(base, glare=int(rng.integers(1, 3)))
    if kind == "blur_jpeg":
        return replace(base, blur=float(rng.uniform(0.8, 1.5)), jpeg=int(rng.integers(40, 70)))
    if kind == "hand":
        return replace(base, hand_at=int(rng.integers(0, 100)))
    raise ValueError(f"unknown condition kind {kind!r}")


CONDITION_KINDS = ("clean", "perspective", "distortion", "warm_light", "cold_light", "dim",
                   "uneven", "glare", "blur_jpeg", "hand")


def random_board(layout: Layout, rng: np.random.Generator, fill: float = 0.35,
                 colours: str = "BGR") -> Observation:
    states = []
    for i in range(layout.size):
        if i in layout.free or rng.random() > fill:
            states.append(SpaceState.EMPTY)
        else:
            k = rng.random()
            states.append(SpaceState.WHITE if k < 0.12 else SpaceState(colours[int(rng.integers(len(colours)))]))
    return Observation(layout.rows, layout.cols, tuple(states))


class SyntheticCamera:
    """A frame source filming a changing table: ``table`` has ``observation()`` and, while a
    hand is over the board, ``hand_at`` (the space it reaches for). One setup (seeded
    conditions) for the whole session, as a camera on a stand. A frame is rendered again
    only when the table changed; each frame gets fresh sensor noise."""

    def __init__(self, table, layout: Layout, seed: int = 0,
                 conditions: Conditions | None = None) -> None:
        self.table = table
        self.layout = layout
        self.seed = seed
        rng = np.random.default_rng(seed)
        self.conditions = conditions or replace(
            random_conditions(rng, "clean", 640, 480), rotation_deg=float(rng.uniform(-8, 8)),
            tilt_deg=float(rng.uniform(5, 20)), kelvin=float(rng.uniform(3000, 6000)))
        sigma = self.conditions.noise
        shape = (self.conditions.height, self.conditions.width, 3)
        self._noise = [rng.normal(0, sigma, shape).astype(np.int16) for _ in range(4)]
        self.frame_no = 0
        self.last: Rendered | None = None
        self._key: tuple | None = None

    def read(self) -> np.ndarray:
        self.frame_no += 1
        hand = getattr(self.table, "hand_at", None)
        obs = self.table.observation()
        key = (obs.states, hand)
        if key != self._key or self.last is None:
            cond = replace(self.conditions, hand_at=hand, noise=0.0)
            self.last = render(self.layout, obs, cond, seed=self.seed * 7919 + self.frame_no,
                               jitter=0.0)
            self._key = key
        noisy = self.last.image.astype(np.int16) + self._noise[self.frame_no % len(self._noise)]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def close(self) -> None:
        pass
