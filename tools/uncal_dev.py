"""Development sets for reading without calibration (tuned looks only, never held out):
``python -m tools.uncal_dev --set edge,dark --scenes 16 --seed 21``.

Renders scenes drawn with ``draw_look(rng, "tuned")`` (at seeds other than the
benchmark's), changed generically by the set chosen, and reads them as the benchmark's
``uncalibrated_space_accuracy`` does: one reader without calibration a scene, frames
without a hand. Sets:

- ``base``: the tuned looks as drawn;
- ``close``: the camera closer still (scale 0.95 to 1.15, tilted 15 to 35 degrees, a lens
  bend, JPEG half the time): the grid of spaces itself often runs out of the frame, and
  those frames are counted (a corner of the grid out of the picture is read on the part
  in view since session 5);
- ``closer``: as ``close``, the camera closer still (scale 1.12 to 1.3): rows of spaces
  out of the picture;
- ``edge``: the camera close and tilted 20 to 35 degrees, the board's edge often past the
  frame's edge (frames whose grid of spaces leaves the frame are not counted);
- ``dark``: the light a third to a half as bright, the table round the board made 15 to
  35 % as bright;
- ``full``: boards with 60 to 80 % of the spaces covered;
- ``tilt``: the camera tilted 25 to 35 degrees, a lens bend (-0.1 to 0.06), the board
  smaller in the frame (scale 0.7 to 0.88);
- ``lens``: a poor camera: tilt 20 to 35 degrees, a lens bend, JPEG quality 35 to 75,
  defocus (blur 0.5 to 1.6 px), noise 2 to 6;
- ``dim``: light a third to 0.6 as bright, noisier, a gradient and a second colour
  temperature over part of the frame (mixed light);
- ``glare``: one or two glare spots and a strong light gradient;
- ``busy``: the table round the board cluttered with lines, blocks and discs of random
  colours (a busy table, drawn generically over a tuned one);
- ``pattern``: the table replaced by checks, stripes or dots in two random colours
  (drawn generically over a tuned one, shaded by the scene's light), half the time a
  lamp's steep gradient and less light, a third of the time tilted 20 to 35 degrees;
- ``fold``: the crease of a folding board: a fold line across the middle (both ways a
  third of the time) drawn as a thin shadow beside a thin highlight, the halves lit a
  little differently, and one half bent up at the fold: in the picture, that half
  stretched or squeezed by up to 3 % away from the fold (no single grid fits both halves
  exactly; drawn generically over a tuned look, from a real folding board's description,
  not from any held-out family's code);
- ``pale``: every coloured chip washed towards white by 25 to 50 % and 30 to 70 % of its
  colour taken away, in the light's own colour (pale plastic, chips faded by the sun: drawn
  generically over a tuned look, where the picture differs from the same scene rendered
  empty);
- ``far``: the camera far off, the board small in the picture (0.45 to 0.65 of the
  frame's height with its edge: about 20 to 30 pixels a space at 1280 × 720), tilted up
  to 25 degrees;
- ``faded``: an old board, its print faded and its paper yellowed: inside the board's
  outline, every pixel drawn 30 to 60 % of the way towards the paper's own colour (the
  brightest within 31 px), then tinted yellow by 5 to 20 % (blue down, red up a little);
  its edge fades with it; the chips on it are left as they are;
- ``shadow``: a person's shadow across the board (no hand in view): a broad band, its
  edge soft over 3 to 40 px, from a side of the picture across a third to two thirds of
  the board, the light under it 35 to 70 % as bright and a little bluer (skylight);
- ``wild``: each of the changes of ``tilt``/``lens``, ``dim``, ``glare`` half the time,
  the table darkened or made busy a quarter of the time each;
- ``wild2``: as ``wild``, and a fold or a person's shadow each 30 % of the time, the
  board faded or its chips paler (washed 10 to 30 %) each a quarter of the time.

All of them are tuned looks changed by generic camera and photometric changes (no
held-out family's code). ``--why`` says for each frame left unread which step lost it
(:func:`why`): the board's outline not found near the grid, the pairs not confirming
even the true grid, or the true grid confirmed but a step refusing or losing it.

Prints, per set, spaces right, frames whose grid was refused (and why), and on the frames
read: spaces right, read unknown, read confidently wrong, and frames whose grid was found
more than a quarter of a space off (``grid_off``). ``--true-grid`` reads every frame on its
true grid (the reading alone, without finding the board).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from dataclasses import replace

import numpy as np

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from vision.looks import draw_look, look_conditions
from vision.reader import BoardReader
from vision.synth import kelvin_gains, random_board, render


def score(states, truth, unsure, board) -> int:
    return sum(a == t or a == board.states[i] or (unsure[i] and a is SpaceState.UNKNOWN)
               for i, (a, t) in enumerate(zip(states, truth.states)))


def scene(kind: str, rng: np.random.Generator):
    look = draw_look(rng, "tuned")
    cond = look_conditions(look)
    fill = (0.1, 0.6)
    table_dim = 1.0
    if kind in ("close", "closer"):
        lo, hi = (0.95, 1.15) if kind == "close" else (1.12, 1.3)
        cond = replace(cond, scale=float(rng.uniform(lo, hi)),
                       tilt_deg=float(rng.uniform(15, 35)),
                       distortion=float(rng.uniform(-0.08, 0.05)),
                       jpeg=int(rng.integers(50, 90)) if rng.random() < 0.5 else 0,
                       offset=(float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.04, 0.04))))
    elif kind == "edge":
        cond = replace(cond, scale=float(rng.uniform(0.88, 1.0)),
                       tilt_deg=float(rng.uniform(20, 35)),
                       distortion=float(rng.uniform(-0.08, 0.05)),
                       offset=(float(rng.uniform(-0.06, 0.06)), float(rng.uniform(-0.05, 0.05))))
    elif kind == "dark":
        cond = replace(cond, brightness=cond.brightness * float(rng.uniform(0.35, 0.55)))
        table_dim = float(rng.uniform(0.15, 0.35))
    elif kind == "full":
        fill = (0.6, 0.8)
    elif kind == "far":
        cond = replace(cond, scale=float(rng.uniform(0.45, 0.65)),
                       tilt_deg=float(rng.uniform(0, 25)))
    extras_fold = int(rng.integers(1 << 30)) if kind == "fold" else None
    extras_shadow = int(rng.integers(1 << 30)) if kind == "shadow" else None
    extras_faded = (float(rng.uniform(0.3, 0.6)), float(rng.uniform(0.05, 0.2))) \
        if kind == "faded" else None
    extras_pale = (float(rng.uniform(0.25, 0.5)), float(rng.uniform(0.3, 0.7))) \
        if kind == "pale" else None
    extras: dict = {}
    wild = kind in ("wild", "wild2")
    if kind == "tilt" or (wild and rng.random() < 0.25):
        cond = replace(cond, tilt_deg=float(rng.uniform(25, 35)), scale=float(rng.uniform(0.7, 0.88)),
                       distortion=float(rng.uniform(-0.1, 0.06)))
    elif kind == "lens" or (wild and rng.random() < 0.33):
        cond = replace(cond, tilt_deg=float(rng.uniform(20, 35)), scale=float(rng.uniform(0.72, 0.85)),
                       noise=float(rng.uniform(2, 6)), distortion=float(rng.uniform(-0.1, 0.06)),
                       jpeg=int(rng.integers(35, 75)), blur=float(rng.uniform(0.5, 1.6)))
    if kind == "dim" or (wild and rng.random() < 0.5):
        cond = replace(cond, brightness=cond.brightness * float(rng.uniform(0.4, 0.65)),
                       uneven=float(rng.uniform(0.2, 0.6)), noise=max(cond.noise, float(rng.uniform(3, 6))))
        extras["mixed"] = (float(rng.uniform(2700, 6500)), float(rng.uniform(2700, 6500)),
                           float(rng.uniform(0, 2 * np.pi)))
    if kind == "glare" or (wild and rng.random() < 0.5):
        cond = replace(cond, glare=int(rng.integers(1, 3)), uneven=float(rng.uniform(0.3, 0.7)))
    if kind == "pattern":
        extras["pattern"] = int(rng.integers(1 << 30))
        if rng.random() < 0.5:
            cond = replace(cond, uneven=float(rng.uniform(0.3, 0.7)),
                           brightness=cond.brightness * float(rng.uniform(0.5, 1.0)))
        if rng.random() < 0.33:
            cond = replace(cond, tilt_deg=float(rng.uniform(20, 35)),
                           distortion=float(rng.uniform(-0.1, 0.06)))
    if kind == "wild2":
        # the later generic changes too, each now and then (drawn only for wild2, so that
        # "wild" itself draws the same scenes as before)
        extras_fold = int(rng.integers(1 << 30)) if rng.random() < 0.3 else None
        extras_shadow = int(rng.integers(1 << 30)) if rng.random() < 0.3 else None
        extras_faded = (float(rng.uniform(0.3, 0.6)), float(rng.uniform(0.05, 0.2))) \
            if rng.random() < 0.25 else None
        extras_pale = (float(rng.uniform(0.1, 0.3)), float(rng.uniform(0.15, 0.4))) \
            if rng.random() < 0.25 else None
    if extras_fold is not None:
        extras["fold"] = extras_fold
    if extras_pale is not None:
        extras["pale"] = extras_pale
    if extras_faded is not None:
        extras["faded"] = extras_faded
    if extras_shadow is not None:
        extras["shadow"] = extras_shadow
    u = rng.random()
    if kind == "busy" or (wild and u < 0.25):
        extras["busy"] = int(rng.integers(1 << 30))
    elif wild and u < 0.5:
        table_dim = float(rng.uniform(0.15, 0.35))
    return look, cond, fill, table_dim, extras


def mixed_light(img: np.ndarray, k0: float, k1: float, angle: float) -> np.ndarray:
    """Two colour temperatures fading into each other across the frame (relative to the
    scene's own light)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = ((xx - w / 2) * np.cos(angle) + (yy - h / 2) * np.sin(angle)) / (0.6 * max(w, h)) + 0.5
    t = np.clip(t, 0, 1)[..., None]
    g0, g1 = kelvin_gains(k0), kelvin_gains(k1)
    g0, g1 = g0 / g0.mean(), g1 / g1.mean()
    out = img.astype(np.float32) * (g0 * (1 - t) + g1 * t)
    return np.clip(out, 0, 255).astype(np.uint8)


def busy_table(img: np.ndarray, outer: np.ndarray, seed: int) -> np.ndarray:
    """The table outside the board's outer corners cluttered with lines, blocks and discs
    of random colours and sizes."""
    import cv2
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    layer = img.copy()
    for _ in range(int(rng.integers(25, 70))):
        col = tuple(int(c) for c in rng.integers(0, 256, 3))
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        kind = rng.integers(3)
        if kind == 0:
            x2, y2 = int(rng.integers(0, w)), int(rng.integers(0, h))
            cv2.line(layer, (x, y), (x2, y2), col, int(rng.integers(2, 14)))
        elif kind == 1:
            a, b = int(rng.integers(10, 160)), int(rng.integers(10, 160))
            cv2.rectangle(layer, (x, y), (x + a, y + b), col, -1 if rng.random() < 0.6 else 3)
        else:
            cv2.circle(layer, (x, y), int(rng.integers(5, 60)), col, -1 if rng.random() < 0.6 else 3)
    return _over_table(img, outer, layer)


def _board_mask(shape, outer: np.ndarray) -> np.ndarray:
    """1 inside the board's outer corners, 0 on the table (edges softened a little)."""
    import cv2
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.int32(np.round(outer)), 255)
    return cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32)[..., None] / 255.0


def _over_table(img: np.ndarray, outer: np.ndarray, layer: np.ndarray) -> np.ndarray:
    """``layer`` in place of the table, the board as rendered."""
    mask = _board_mask(img.shape, outer)
    out = img.astype(np.float32) * mask + layer.astype(np.float32) * (1 - mask)
    return np.clip(out, 0, 255).astype(np.uint8)


def patterned_table(img: np.ndarray, outer: np.ndarray, seed: int) -> np.ndarray:
    """The table outside the board's outer corners replaced by checks, stripes or dots in
    two random colours at any angle and size, shaded by the scene's own light (the
    table as rendered, blurred, sets each pixel's brightness)."""
    import cv2
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    c0, c1 = (rng.integers(0, 256, 3).astype(np.float32) for _ in range(2))
    period = float(rng.uniform(12, 80))
    ang = float(rng.uniform(0, np.pi))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = (xx * np.cos(ang) + yy * np.sin(ang)) / period
    v = (-xx * np.sin(ang) + yy * np.cos(ang)) / period
    kind = int(rng.integers(3))
    if kind == 0:
        t = (np.floor(u) + np.floor(v)) % 2
    elif kind == 1:
        t = (np.floor(u) % 2).astype(np.float32)
    else:
        r2 = ((u % 1) - 0.5) ** 2 + ((v % 1) - 0.5) ** 2
        t = (r2 < float(rng.uniform(0.04, 0.16))).astype(np.float32)
    t = t.astype(np.float32)[..., None]
    grey = cv2.GaussianBlur(img.astype(np.float32).mean(axis=2), (0, 0), 25)
    light = (grey / max(float(np.percentile(grey, 95)), 1.0))[..., None]
    layer = (c0 * (1 - t) + c1 * t) * np.clip(light, 0.15, 1.2)
    return _over_table(img, outer, layer)


def _err(quad, g, space) -> float:
    """Largest corner distance, in spaces, between ``quad`` in its best turn and ``g``."""
    return min(float(np.linalg.norm(np.roll(np.float32(quad), -t, axis=0) - g, axis=1).max())
               for t in range(4)) / space


def why(img: np.ndarray, g: np.ndarray, layout) -> tuple[str, str]:
    """Which step lost a frame left unread (the true grid ``g`` known), and the figures
    that say so: ``outline`` (no quadrilateral found within a quarter of a space of the
    grid, the field network's quadrilaterals among them: the outline finder's message or
    error, and ``net=`` the field network's nearest), ``pairs`` (the pairs do not confirm
    even the true grid), or ``lost`` (the true grid is confirmed, and a candidate lay near it, but the steps
    refused or lost it: turn, settling, crowded board)."""
    from vision.locate import BoardNotFound, find_outline, other_candidates
    from vision.pairs import bare_pairs, check_grid, outside_frame
    space = float(np.linalg.norm(g[1] - g[0])) / layout.cols
    out = int(outside_frame(np.float32(g), img.shape, layout).sum())
    quads, msg = [], ""
    try:
        quads.append(find_outline(img).corners)
    except BoardNotFound as exc:
        msg = str(exc).split(":")[0][:40]
        if "cut off" in str(exc):
            try:
                quads.append(find_outline(img, cut=True).corners)
            except BoardNotFound:
                pass
    outline_err = _err(quads[0], g, space) if quads else None
    quads += other_candidates(img)
    from vision.fieldnet import field_quads
    seen = field_quads(img)             # the field network's, asked last (session 18)
    net = min((_err(q, g, space) for q in seen), default=99.0)
    quads += seen
    errs = [_err(q, g, space) for q in quads]
    near = min(errs) if errs else 99.0
    chk = check_grid(img, np.float32(g), layout, chips=True)
    nbare = len(bare_pairs(img, np.float32(g), layout))
    detail = (f"outline={'%.2f' % outline_err if outline_err is not None else msg!s} "
              f"nearest={near:.2f} net={net:.2f} bare={nbare} out={out} truth_rank={chk.rank:.2f}")
    if near > 0.25:
        return "outline", detail
    if not chk.ok:
        return "pairs", detail + " " + chk.reason.split(":")[0][:50]
    return "lost", detail


def scene_frame(layout, rng: np.random.Generator, look, cond, fill, table_dim: float,
                extras: dict, k: int):
    """Frame ``k`` of a scene drawn by :func:`scene`: a random board, the light varied a
    little, rendered and dressed (table darkened, mixed light, busy table). Returns the
    board, the conditions, the render and the picture."""
    board = random_board(layout, rng, fill=float(rng.uniform(*fill)))
    c = replace(cond, brightness=cond.brightness * float(rng.uniform(0.94, 1.06)))
    seed = int(rng.integers(1 << 30))
    r = render(layout, board, c, seed=seed, look=look)
    img = r.image
    if "pale" in extras:
        empty = render(layout, Observation.empty(layout.rows, layout.cols), c, seed=seed,
                       look=look).image
        img = paled(img, empty, *extras["pale"])
    if "faded" in extras:
        empty = render(layout, Observation.empty(layout.rows, layout.cols), c, seed=seed,
                       look=look).image
        img = faded(img, empty, r.corners, *extras["faded"])
    if table_dim != 1.0:
        img = darken_table(img, r.corners, table_dim)
    if "mixed" in extras:
        img = mixed_light(img, *extras["mixed"])
    if "busy" in extras:
        img = busy_table(img, r.corners, extras["busy"] + k)
    if "pattern" in extras:
        img = patterned_table(img, r.corners, extras["pattern"])
    if "shadow" in extras:
        img = person_shadow(img, r.grid_corners, extras["shadow"] + k)
    if "fold" in extras:
        img, grid = folded(img, r.corners, r.grid_corners, extras["fold"])
        r = replace(r, grid_corners=grid)
    return board, c, r, img


def person_shadow(img: np.ndarray, grid: np.ndarray, seed: int) -> np.ndarray:
    """A person's shadow (``shadow`` set): the half-plane beyond a line across the board,
    at any angle, reaching a third to two thirds of the way across it, darkened to 35 to
    70 % and tinted a little blue, its edge blurred over 3 to 40 px."""
    import cv2
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    centre = np.float32(grid).mean(axis=0)
    size = float(np.linalg.norm(np.float32(grid)[2] - np.float32(grid)[0])) / 1.414
    ang = float(rng.uniform(0, 2 * np.pi))
    n = np.float32([np.cos(ang), np.sin(ang)])
    # the edge a third to two thirds of the way across the board, measured from its side
    reach = float(rng.uniform(1 / 3, 2 / 3))
    edge = centre + n * size * (0.5 - reach)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (xx - edge[0]) * n[0] + (yy - edge[1]) * n[1]      # > 0 towards the shadowed side
    soft = float(rng.uniform(3, 40))
    m = 1 / (1 + np.exp(np.clip(-d / (soft / 4), -50, 50)))
    dark = float(rng.uniform(0.35, 0.7))
    tint = np.float32([1.05, 1.0, 0.93])                     # B, G, R: skylight
    gain = 1 - m[..., None] * (1 - dark * tint)
    return np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def faded(img: np.ndarray, empty: np.ndarray, outer: np.ndarray, fade: float,
          yellow: float) -> np.ndarray:
    """Inside the board's outer corners, the print and paper drawn ``fade`` of the way
    towards the paper (the brightest pixel within 31 px, smoothed), then tinted yellow
    (blue times 1 - ``yellow``, red times 1 + ``yellow`` / 4); the chips (where the picture
    differs from the same scene rendered empty, ``empty``, by more than 45 grey levels in
    a channel) left as they are."""
    import cv2
    f = img.astype(np.float32)
    paper = cv2.dilate(cv2.GaussianBlur(f, (5, 5), 0), np.ones((31, 31), np.uint8))
    paper = cv2.GaussianBlur(paper, (0, 0), 8)
    out = (f * (1 - fade) + paper * fade) * np.float32([1 - yellow, 1.0, 1 + yellow / 4])
    chips = (np.abs(f - empty.astype(np.float32)).max(axis=2) > 45).astype(np.uint8) * 255
    chips = cv2.morphologyEx(chips, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    m = _board_mask(img.shape, outer) * (1 - cv2.GaussianBlur(chips, (3, 3), 0)
                                         .astype(np.float32)[..., None] / 255.0)
    return np.clip(f * (1 - m) + out * m, 0, 255).astype(np.uint8)


def paled(img: np.ndarray, empty: np.ndarray, white: float, grey: float) -> np.ndarray:
    """Every chip washed towards white by ``white`` and ``grey`` of its colour taken away,
    both relative to the scene's light (its white is the board's paper as the same scene
    rendered empty shows it, ``empty``: the brightest pixel within 31 px, so that under a
    warm lamp a pale chip is pale in the lamp's colour, not bluish). The chips are the
    pixels that differ from ``empty`` by more than 45 grey levels in a channel and whose
    colour is not near grey (the white chips and the chips' shadows are left as they are)."""
    import cv2
    f = img.astype(np.float32)
    e = empty.astype(np.float32)
    diff = np.abs(f - e).max(axis=2)
    colourful = f.max(axis=2) - f.min(axis=2) > 40
    mask = ((diff > 45) & colourful).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    m = (cv2.GaussianBlur(mask, (3, 3), 0).astype(np.float32) / 255.0)[..., None]
    paper = cv2.dilate(cv2.GaussianBlur(e, (5, 5), 0), np.ones((31, 31), np.uint8))
    paper = np.maximum(cv2.GaussianBlur(paper, (0, 0), 8), 1.0)
    n = f / paper                                    # the chip as a share of the light
    n = n * (1 - grey) + n.mean(axis=2, keepdims=True) * grey
    n = n * (1 - white) + 0.96 * white
    return np.clip(f * (1 - m) + n * paper * m, 0, 255).astype(np.uint8)


def folded(img: np.ndarray, outer: np.ndarray, grid: np.ndarray, seed: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """The board folded across its middle (``fold`` set): returns the picture and the grid
    corners as they now lie. One or both midlines (through the midpoints of opposite outer
    sides) get a shadow line 1 to 3 px wide, 20 to 50 % darker, and a highlight beside it;
    the board's half on one side of the first fold is lit 0.85 to 1.15 times as bright, and
    the picture on that side is moved away from (or towards) the fold by -3 to 3 % of each
    pixel's distance from it (the half bent up at the hinge)."""
    import cv2
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    o = np.float32(outer)
    first = int(rng.integers(2))
    # a fold runs between the midpoints of two opposite sides
    ends = [((o[0] + o[1]) / 2, (o[3] + o[2]) / 2), ((o[0] + o[3]) / 2, (o[1] + o[2]) / 2)]
    folds = [ends[first]] + ([ends[1 - first]] if rng.random() < 1 / 3 else [])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    mask = _board_mask(img.shape, outer)[..., 0]
    out = img.astype(np.float32)
    a, b = folds[0]
    t = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
    n = np.float32([-t[1], t[0]])
    side = (xx - a[0]) * n[0] + (yy - a[1]) * n[1]          # signed distance from the fold
    half = (side > 0).astype(np.float32)
    light = float(rng.uniform(0.85, 1.15))
    out *= (1 + (light - 1) * half * mask)[..., None]
    for a, b in folds:
        t = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
        nn = np.float32([-t[1], t[0]])
        d = (xx - a[0]) * nn[0] + (yy - a[1]) * nn[1]
        wd = float(rng.uniform(0.5, 1.5))
        dark = float(rng.uniform(0.5, 0.8))
        bright = float(rng.uniform(1.1, 1.3))
        f = (1 - (1 - dark) * np.exp(-(d / wd) ** 2)
             + (bright - 1) * np.exp(-((d - 2 * wd - 1) / wd) ** 2))
        out *= (1 + (f - 1) * mask)[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    k = float(rng.uniform(-0.03, 0.03))
    # inverse map: a pixel at signed distance s' > 0 in the result came from s'/(1+k)
    a, _ = folds[0]                      # the first fold is the hinge
    shift = np.where(side > 0, side * (k / (1 + k)), 0).astype(np.float32)
    mx, my = xx - shift * n[0], yy - shift * n[1]
    out = cv2.remap(out, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    g = np.float32(grid).copy()
    sd = (g[:, 0] - a[0]) * n[0] + (g[:, 1] - a[1]) * n[1]
    g += np.where(sd > 0, sd * k, 0)[:, None] * n[None, :]
    return out, g


def run(kind: str, scenes: int, seed: int, verbose: bool = False, save: str = "",
        true_grid: bool = False, diagnose: bool = False) -> dict:
    layout = builtin_layout("classic")
    rng = np.random.default_rng([seed, 4242])
    n = layout.size
    tot = right = read_sp = read_right = unknown = wrong = grid_off = 0
    problems: Counter = Counter()
    causes: Counter = Counter()
    for s in range(scenes):
        look, cond, fill, table_dim, extras = scene(kind, rng)
        reader = BoardReader(None, layout)
        for k in range(4):
            board, c, r, img = scene_frame(layout, rng, look, cond, fill, table_dim, extras, k)
            g = r.grid_corners
            if kind == "edge" and ((g < 1).any() or (g[:, 0] > c.width - 2).any()
                                   or (g[:, 1] > c.height - 2).any()):
                continue
            if true_grid:
                reader.corners = np.float32(r.grid_corners)
            reading = reader.read(img)
            states = reading.observation.states
            ok = score(states, r.truth, r.unsure, board)
            tot += n
            right += ok
            if reading.found:
                read_sp += n
                read_right += ok
                unknown += sum(a is SpaceState.UNKNOWN for a in states)
                wrong += sum(a is not SpaceState.UNKNOWN and a != t and a != board.states[i]
                             for i, (a, t) in enumerate(zip(states, r.truth.states)))
                space = float(np.linalg.norm(g[1] - g[0])) / layout.cols
                off = float(np.linalg.norm(reading.corners - g, axis=1).max()) / space
                if off > 0.25:
                    grid_off += 1
                    filled = sum(x is not SpaceState.EMPTY for x in board.states)
                    print(f"  grid off {kind} {s}.{k} {look.describe()}{_changes(extras)}"
                          f" tilt={cond.tilt_deg:.0f}"
                          f" scale={cond.scale:.2f} fill={filled}"
                          f" by {off:.2f} of a space, {n - ok} spaces wrong",
                          file=sys.stderr, flush=True)
                    if save:
                        np.savez_compressed(f"{save}/{kind}_{seed}_{s}_{k}_off.npz", image=img,
                                            grid=r.grid_corners, outer=r.corners,
                                            found=reading.corners)
            else:
                problems[reading.problem.split(":")[0]] += 1
                if diagnose:
                    cause, detail = why(img, np.float32(g), layout)
                    causes[cause] += 1
                    print(f"  unread {kind} {s}.{k} {look.describe()}{_changes(extras)}"
                          f" tilt={cond.tilt_deg:.0f}"
                          f" scale={cond.scale:.2f} fill={sum(x is not SpaceState.EMPTY for x in board.states)}"
                          f" {cause}: {detail} | {reading.problem[:70]}", file=sys.stderr, flush=True)
                if save:
                    np.savez_compressed(f"{save}/{kind}_{seed}_{s}_{k}.npz", image=img,
                                        grid=r.grid_corners, outer=r.corners)
            if verbose:
                print(f"{s}.{k} {look.describe()} scale={cond.scale:.2f} tilt={cond.tilt_deg:.0f}"
                      f" {ok}/{n} {reading.problem}", file=sys.stderr, flush=True)
    return {"set": kind, "scenes": scenes, "frames": scenes * 4,
            "space_accuracy": round(right / max(tot, 1), 4),
            "refused_frames": sum(problems.values()), "problems": dict(problems),
            "read_accuracy": round(read_right / max(read_sp, 1), 4),
            "read_unknown": round(unknown / max(read_sp, 1), 4),
            "read_wrong": round(wrong / max(read_sp, 1), 4), "grid_off": grid_off,
            **({"causes": dict(causes)} if diagnose else {})}


def _changes(extras: dict) -> str:
    """The generic changes drawn over a scene's look, for the frames printed: " +fold+pale"."""
    return "".join(f" +{k}" for k in extras)


def darken_table(img: np.ndarray, outer: np.ndarray, factor: float) -> np.ndarray:
    """The table (everything outside the board's outer corners) made ``factor`` as bright."""
    mask = _board_mask(img.shape, outer)
    out = img.astype(np.float32) * (mask + (1 - mask) * factor)
    return np.clip(out, 0, 255).astype(np.uint8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python -m tools.uncal_dev --set edge,dark --scenes 16 --seed 21\n"
               "         python -m tools.uncal_dev --set wild --scenes 50 --seed 71 --why",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="base",
                    help="base, close, closer, edge, dark, full, tilt, lens, dim, glare, busy, pattern,"
                         " fold, pale, far, faded, shadow"
                         ", wild or wild2"
                         " (comma-separated)")
    ap.add_argument("--scenes", type=int, default=20)
    ap.add_argument("--seed", type=int, default=11, help="any but the benchmark's (1)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--save", default="", help="a folder to save the refused frames in")
    ap.add_argument("--true-grid", action="store_true",
                    help="read every frame on its true grid (the reading alone)")
    ap.add_argument("--why", action="store_true",
                    help="for every frame left unread, the step that lost it (slower)")
    a = ap.parse_args(argv)
    if a.save:
        try:
            os.makedirs(a.save, exist_ok=True)        # made here, not found missing at the end
        except OSError as exc:
            ap.error(f"--save {a.save}: {exc.strerror}")
    for kind in a.set.split(","):
        print(json.dumps(run(kind, a.scenes, a.seed, a.verbose, a.save, a.true_grid, a.why)),
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
