"""Reading every space of the straightened board: empty, blue, green, red, white, or unknown.

Each space is compared with its own appearance on the empty board (learnt at calibration,
or the layout's printed pictures when there is no calibration), after dividing out the
light falling on it: the paper band along the space's edge, which no chip covers, tells the
colour and strength of the light there (uneven light, shadows, 2700 K to 6500 K). So a red
heart is not a red chip, and a printed corner chip is not a chip. A space whose edge band
no longer looks like its paper, and is skin-coloured, is under a hand: unknown. A space
whose centre is blown out by glare is unknown too.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.observation import SpaceState

from .locate import CANON

PATCH = 8          # side of the small patch a space is compared by
EMPTY_BELOW = 9.0  # mean difference (grey levels) from the empty space under which it is empty


def _masks(cell: int = CANON) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    yy, xx = (np.indices((cell, cell)) + 0.5) / cell - 0.5
    r = np.hypot(xx, yy)
    edge = np.maximum(np.abs(xx), np.abs(yy))
    centre = r < 0.22
    band = (edge > 0.42) & (edge < 0.48)
    inner = edge < 0.45
    return centre, band, inner


CENTRE, BAND, INNER = _masks()
RADII = (0.0, 0.12, 0.22, 0.3, 0.34, 0.39, 0.44)


def _radial_masks(cell: int = CANON) -> list[np.ndarray]:
    yy, xx = (np.indices((cell, cell)) + 0.5) / cell - 0.5
    r = np.hypot(xx, yy)
    return [(r >= a) & (r < b) for a, b in zip(RADII[:-1], RADII[1:])]


RINGS = _radial_masks()
# the same masks as weights over a space's flattened pixels: means become one matrix product
_RING_W = np.stack([m.ravel() / m.sum() for m in RINGS], axis=1).astype(np.float32)
_CENTRE_W = (CENTRE.ravel() / CENTRE.sum()).astype(np.float32)[:, None]
_INNER_W = (INNER.ravel() / INNER.sum()).astype(np.float32)[:, None]
_BAND_I = np.flatnonzero(BAND.ravel())
_CENTRE_I = np.flatnonzero(CENTRE.ravel())


@dataclass
class SpaceFeatures:
    """Per-space measurements of one straightened frame (arrays over spaces)."""

    light: np.ndarray        # (n, 3) estimated light on each space (BGR)
    centre: np.ndarray       # (n, 3) light-normalised mean colour of the centre disc
    patch: np.ndarray        # (n, PATCH*PATCH*3) light-normalised small picture of the space
    band_patch: np.ndarray   # (n, k) light-normalised edge band
    skin: np.ndarray         # (n,) share of skin-coloured pixels in the space
    glare: np.ndarray        # (n,) share of blown-out pixels in the centre
    radial: np.ndarray       # (n, rings, 3) light-normalised mean colour of rings round the centre
    paper: np.ndarray        # (n, 3) the paper at the space's edge as seen (255: blown out)
    # (n, CANON*CANON, 3) every space's pixels with the light divided out (paper ~ 230):
    # what the learned classifier (vision/spacenet.py) reads
    norm: np.ndarray | None = None


def features(board: np.ndarray, rows: int, cols: int) -> SpaceFeatures:
    """Measure every space of a straightened board image (``CANON`` pixels per space)."""
    n = rows * cols
    cell = CANON
    # every space's pixels, as raw bytes and as floats (n, cell*cell, 3)
    raw = np.ascontiguousarray(board.reshape(rows, cell, cols, cell, 3).transpose(0, 2, 1, 3, 4)) \
        .reshape(n, cell * cell, 3)
    cells = raw.astype(np.float32)
    band = cells[:, _BAND_I]                                 # (n, k, 3)
    # the paper's light: the brighter half of the edge band (prints and grid lines are dark)
    lum = band[..., 0] + band[..., 1] + band[..., 2]
    thr = np.median(lum, axis=1, keepdims=True)
    w = (lum >= thr)[..., None]
    light = (band * w).sum(axis=1) / np.maximum(w.sum(axis=1), 1)
    paper = light.copy()                                    # the paper's own edge, as seen
    grid = np.maximum(light.reshape(rows, cols, 3), 12.0)
    # Skin is told by its hue under the board's overall light (a hand over a space hides
    # the paper its local light is measured from).
    overall = 230.0 / np.maximum(np.median(light, axis=0), 12.0)
    whole = cv2.multiply(board, (float(overall[0]), float(overall[1]), float(overall[2]), 0.0))
    hsv = cv2.cvtColor(whole, cv2.COLOR_BGR2HSV)
    skin = cv2.inRange(hsv, (5, 50, 60), (22, 200, 255)).reshape(rows, cell, cols, cell) \
        .transpose(0, 2, 1, 3).reshape(n, cell * cell).astype(np.float32)
    skin_share = (skin @ _INNER_W)[:, 0] / 255.0
    # A space whose band is far darker than its neighbours' (a chip over the edge), or that
    # a hand covers, takes their light instead; then the light is interpolated across every
    # pixel, so a shadow's soft edge or a gradient inside a space is divided out too.
    med = cv2.medianBlur(np.clip(grid, 0, 255).astype(np.uint8), 3).astype(np.float32)
    odd = ((np.abs(grid - med).max(axis=2) > 0.25 * med.max(axis=2))
           | (skin_share > 0.3).reshape(rows, cols))[..., None]
    grid = np.where(odd, med, grid)
    covered = np.argwhere((skin_share > 0.3).reshape(rows, cols))
    if len(covered):
        # under a hand the neighbours may be hand too: take the paper spaces round it
        bad = (skin_share > 0.3).reshape(rows, cols)
        for r, c in covered:
            for k in (1, 2, 3, max(rows, cols)):
                win = (slice(max(0, r - k), r + k + 1), slice(max(0, c - k), c + k + 1))
                ok = ~bad[win]
                if ok.sum() >= 3:
                    grid[r, c] = np.median(grid[win][ok], axis=0)
                    break
    light = grid.reshape(n, 3)
    gain = cv2.resize((230.0 / np.maximum(grid, 12.0)).astype(np.float32), (cols * cell, rows * cell),
                      interpolation=cv2.INTER_LINEAR)
    gain = gain.reshape(rows, cell, cols, cell, 3).transpose(0, 2, 1, 3, 4).reshape(n, cell * cell, 3)
    norm = cv2.min(cv2.multiply(cells.reshape(-1, 3), gain.reshape(-1, 3)), 255.0).reshape(cells.shape)
    # per-space means over masks, as products with the masks' weights: (n, 3, masks)
    nt = norm.transpose(0, 2, 1)
    centre = (nt @ _CENTRE_W)[..., 0]
    radial = (nt @ _RING_W).transpose(0, 2, 1)
    raw_centre = raw[:, _CENTRE_I]                           # (n, k, 3) bytes
    # Glare on a glossy chip washes part of it towards white: where any of its middle is
    # blown out, its colour comes from the darker half, the part the glare spares.
    lit = raw_centre.reshape(n, -1).max(axis=1) >= 250
    if lit.any():
        cn = norm[np.flatnonzero(lit)[:, None], _CENTRE_I]
        lum = cn[..., 0] + cn[..., 1] + cn[..., 2]
        dim = (lum <= np.median(lum, axis=1, keepdims=True))[..., None]
        centre[lit] = (cn * dim).sum(axis=1) / np.maximum(dim.sum(axis=1), 1)
    square = norm.reshape(n * cell, cell, 3)
    small = cv2.resize(square, (PATCH, n * PATCH), interpolation=cv2.INTER_AREA)
    patch = small.reshape(n, PATCH * PATCH * 3)
    band_patch = norm[:, _BAND_I].reshape(n, -1)
    least = np.minimum(np.minimum(raw_centre[..., 0], raw_centre[..., 1]), raw_centre[..., 2])
    glare = (least > 250).mean(axis=1)                       # share blown out to white
    return SpaceFeatures(light, centre, patch, band_patch, skin_share, glare, radial, paper, norm)


@dataclass
class Reference:
    """What every space looks like on the empty board (from calibration, or drawn)."""

    patch: np.ndarray
    centre: np.ndarray
    band_patch: np.ndarray
    skin: np.ndarray
    radial: np.ndarray
    # the paper at each space's edge as the camera saw it (raw BGR); None in files made
    # before it was kept, and for the drawn reference (no camera saw it)
    paper: np.ndarray | None = None

    @classmethod
    def from_features(cls, f: SpaceFeatures, camera: bool = True) -> "Reference":
        return cls(f.patch.copy(), f.centre.copy(), f.band_patch.copy(), f.skin.copy(),
                   f.radial.copy(), f.paper.copy() if camera else None)

    def to_json(self) -> dict:
        d = {"patch": np.round(self.patch).astype(int).tolist(),
             "centre": np.round(self.centre, 1).tolist(),
             "band_patch": np.round(self.band_patch).astype(int).tolist(),
             "skin": np.round(self.skin, 3).tolist(),
             "radial": np.round(self.radial, 1).tolist()}
        if self.paper is not None:
            d["paper"] = np.round(self.paper, 1).tolist()
        return d

    @classmethod
    def from_json(cls, d: dict, n: int) -> "Reference":
        arrs = {k: _colours(d[k], k) for k in ("patch", "centre", "band_patch", "skin", "radial")}
        if arrs["patch"].shape != (n, PATCH * PATCH * 3) or arrs["centre"].shape != (n, 3) \
                or arrs["radial"].shape != (n, len(RINGS), 3):
            raise ValueError(f"references for {len(arrs['centre'])} spaces, the board has {n}")
        if "paper" in d:
            paper = _colours(d["paper"], "paper")
            if paper.shape != (n, 3):
                raise ValueError(f"'paper' for {len(paper)} spaces, the board has {n}")
            arrs["paper"] = paper
        return cls(**arrs)


def _colours(value, key: str) -> np.ndarray:
    """A saved array of colour values, refused when a value is not a finite 8-bit-range number."""
    arr = np.asarray(value, np.float64)
    if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or np.abs(arr).max(initial=0) > 1e6:
        raise ValueError(f"key 'reference.{key}' holds a number that is not a colour value")
    return arr.astype(np.float32)


#: the most colour a white chip shows once the paper's light is divided out: the paper may be
#: cream or yellowed, which makes a white chip look bluish by up to about 0.27 on the tuned
#: looks; the coloured chips show 0.5 and more
WHITE_SAT = 0.35
#: below this a colour is no chip's colour but grey (white when bright)
GREY_SAT = 0.2


def chip_colour(c: np.ndarray) -> tuple[SpaceState, float]:
    """The chip colour of a light-normalised centre colour (BGR), and a confidence."""
    b, g, r = (float(v) for v in c)
    hi, lo = max(b, g, r), min(b, g, r)
    sat = (hi - lo) / max(hi, 1.0)
    if lo > 140 and (sat < GREY_SAT or (sat < WHITE_SAT and b >= g and b >= r)):
        # white, or white made bluish by dividing out a cream paper's light
        return SpaceState.WHITE, min(1.0, (WHITE_SAT - sat) * 3 + 0.5)
    if sat < GREY_SAT:
        # grey and dark: no chip looks like this (a shadow, the edge of a hand, a sleeve)
        return SpaceState.UNKNOWN, 0.2
    if b >= g and b >= r:
        return SpaceState.BLUE, min(1.0, sat * 2)
    if g >= r:
        return SpaceState.GREEN, min(1.0, sat * 2)
    return SpaceState.RED, min(1.0, sat * 2)


COVER_CHROMA = 0.12   # band colour off the board's paper by this much (log): something covers it
PLAIN_STD = 6.0       # a space this plain (grey std of its small picture) shows no chip's edge


def paper_chroma_residual(paper: np.ndarray, cols: int, ref_paper: np.ndarray | None = None
                          ) -> np.ndarray:
    """How far each space's edge band has changed colour (not brightness), beyond what the
    light did over the whole board: the log-chromaticity of the band (less the
    calibration's, when known) less a smooth (quadratic) fit over the board, fitted to the
    spaces that agree with it. No chip covers a space's edge band, and shadows and dim
    light change its brightness, not its colour; a hand, an arm or a sleeve of any colour
    but grey changes its colour."""
    def chroma(p):
        lg = np.log(np.maximum(p.astype(np.float64), 4.0))
        return lg - lg.mean(axis=1, keepdims=True)
    v = chroma(paper)
    if ref_paper is not None:
        v = v - chroma(ref_paper)
    return _robust_quadratic_residual(v, cols, 0.06)


def _robust_quadratic_residual(v: np.ndarray, cols: int, inlier: float,
                               signed: bool = False) -> np.ndarray:
    """|v - a smooth quadratic fit over the board|, fitted to the spaces within ``inlier``
    (``signed``: v - the fit, per column of v)."""
    n = len(v)
    v = v.reshape(n, -1)
    res = v - np.median(v, axis=0)
    if not cols or n < 12:
        return res if signed else np.abs(res).max(axis=1)
    r, c = np.divmod(np.arange(n), cols)
    x, y = c / max(cols - 1, 1) * 2 - 1, r / max(n // cols - 1, 1) * 2 - 1
    a = np.stack([np.ones(n), x, y, x * y, x * x, y * y], axis=1)
    keep = np.abs(res).max(axis=1) < 1.7 * inlier
    for _ in range(3):
        if keep.sum() < 12:
            break
        coef, *_ = np.linalg.lstsq(a[keep], v[keep], rcond=None)
        res = v - a @ coef
        keep = np.abs(res).max(axis=1) < inlier
    return res if signed else np.abs(res).max(axis=1)


COVER_DARKER = 0.3    # band light off the board's smooth light by this much (log): covered or shadowed


def _grey(a: np.ndarray) -> np.ndarray:
    """``a.mean(axis=-1)`` over three channels, the same sum in the same order, faster."""
    return (a[..., 0] + a[..., 1] + a[..., 2]) / np.asarray(3, a.dtype)


def classify(f: SpaceFeatures, ref: Reference, free: frozenset[int] = frozenset(),
             empty_below: float = EMPTY_BELOW, cols: int = 0
             ) -> tuple[list[SpaceState], np.ndarray, np.ndarray]:
    """Per space: its state, a confidence 0..1, and whether a hand covers it."""
    n = len(f.centre)
    diff = np.maximum(np.abs(f.patch - ref.patch).mean(axis=1),           # 0..255
                      np.abs(f.radial - ref.radial).mean(axis=2).max(axis=1))
    band_diff = np.abs(f.band_patch - ref.band_patch).mean(axis=1)
    excess = f.skin - ref.skin
    hand = (excess > 0.05) & (band_diff > 15)
    # something of any colour over the space's edge band (where no chip lies): covered
    off = paper_chroma_residual(f.paper, cols, ref.paper)
    off[f.paper.max(axis=1) >= 250] = 0.0          # a blown-out band has no colour to tell
    # nothing covers a space that still matches its empty picture
    could = diff >= 0.6 * empty_below
    hand |= (off > COVER_CHROMA) & could
    if ref.paper is not None and cols:
        # the light on each edge band against the calibration's: smooth over the board
        # (the room's light changed) but for shadows and things over it; a space out of
        # that smooth light whose middle looks like its own edge (a plain cover lit as the
        # band is, not a chip on paper) is covered
        ratio = np.log(np.maximum(f.paper.mean(axis=1), 4.0) / np.maximum(ref.paper.mean(axis=1), 4.0))
        dark = _robust_quadratic_residual(ratio, cols, 0.12)
        c = f.centre
        like_band = (c.min(axis=1) > 150) & ((c.max(axis=1) - c.min(axis=1)) / np.maximum(c.max(axis=1), 1) < GREY_SAT)
        hand |= (dark > COVER_DARKER) & could & like_band
    # a space gone plain all over (a grey sleeve, the flat of an arm) where the empty space
    # shows print: no chip's edge shows, it is covered
    grey = _grey(f.patch.reshape(n, -1, 3))
    ref_grey = _grey(ref.patch.reshape(n, -1, 3))
    plain = (grey.std(axis=1) < PLAIN_STD) & (ref_grey.std(axis=1) > 2 * PLAIN_STD) & could
    hand |= plain
    if hand.any() and cols:
        # a finger or the edge of a palm over part of a space next to the hand: not enough
        # to move its edge band, enough to look like a chip; unknown too
        grid = hand.reshape(-1, cols).astype(np.uint8)
        near = cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel() > 0
        hand = hand | (near & ((excess > 0.005) | (off > COVER_CHROMA / 2)))
    else:
        near = np.zeros(n, bool)
    # (the same arithmetic as one space at a time, in float32, done for all at once)
    states: list[SpaceState] = [SpaceState.UNKNOWN] * n
    conf = np.zeros(n, np.float32)
    glare = ~hand & (f.glare > 0.25)
    empty = ~hand & ~glare & (diff < empty_below)
    beside = ~hand & ~glare & ~empty & near
    conf[hand] = np.minimum((f.skin[hand] - ref.skin[hand]) * 3, 1.0)
    conf[glare] = 0.5
    conf[empty] = np.minimum((empty_below - diff[empty]) / empty_below + 0.5, 1.0)
    for i in np.flatnonzero(empty):
        states[i] = SpaceState.EMPTY
    # beside something covering the board: an arm's edge may lie over part of it
    conf[beside] = 0.3
    for i in np.flatnonzero(~hand & ~glare & ~empty & ~near):
        d = diff[i]
        st, c = chip_colour(f.centre[i])
        if st is SpaceState.WHITE and f.paper[i].min() >= 250:
            # where even the paper is blown out (glare), any chip looks white: not to be trusted
            conf[i] = 0.3
            continue
        states[i] = st
        conf[i] = float(max(0.05, min(1.0, c * min(1.0, (d - empty_below) / 10 + 0.3))))
    return states, conf, hand


def _centre_spread(board: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(n,) how uneven each space's middle disc is (grey std): a chip's is smooth, print is not."""
    n = rows * cols
    cell = CANON
    g = cv2.GaussianBlur(board, (3, 3), 0).astype(np.float32).mean(axis=2)
    cells = g.reshape(rows, cell, cols, cell).transpose(0, 2, 1, 3).reshape(n, cell * cell)
    return cells[:, _CENTRE_I].std(axis=1)


#: without calibration, a space's middle this smooth (light-normalised spread) may be a chip:
#: opaque and translucent chips 2-21 (90 % below 20), empty spaces' print 25 and more (tuned
#: looks, docs/vision.md)
TWIN_SMOOTH = 20.0
#: without calibration: a space's paper brighter than the board's smooth light by this
#: much (log, about 11 %) is whitened by glare, never covered (classify_by_twins)
GLARE_BRIGHTER = 0.1


def classify_by_twins(board: np.ndarray, rows: int, cols: int, pairs: list[tuple[int, int]],
                      free: frozenset[int] = frozenset()
                      ) -> tuple[list[SpaceState], np.ndarray, np.ndarray]:
    """Reading without a calibration, on any printing: each space is compared with its twin
    (the other space printed with the same card) instead of the empty board. Twins alike
    are both empty; where they differ, the one whose middle is a smooth disc of a chip's
    colour (and unlike its twin's) holds a chip. A space without a twin (a free corner, a
    travel board) is a chip only when its middle is a smooth disc of strong colour."""
    n = rows * cols
    f = features(board, rows, cols)
    spread = _centre_spread(board, rows, cols) * (230.0 / np.maximum(f.light.mean(axis=1), 12.0))
    twin = {}
    for i, j in pairs:
        twin[i], twin[j] = j, i
    cell = np.stack([np.rot90(f.patch.reshape(n, PATCH, PATCH, 3), k, axes=(1, 2)).reshape(n, -1)
                     for k in range(4)], axis=1)                    # (n, 4, k)
    off = paper_chroma_residual(f.paper, cols)
    off[f.paper.max(axis=1) >= 250] = 0.0
    # round a glare spot the paper is whitened, brighter than the board's light there: its
    # colour changes, but nothing covers it (a hand, an arm or a shadow never makes the
    # paper brighter); taken for a cover, it made three by three spaces unknown (session 8)
    lum = np.log(np.maximum(f.paper.mean(axis=1), 4.0))[:, None]
    off[_robust_quadratic_residual(lum, cols, 0.06, signed=True)[:, 0] > GLARE_BRIGHTER] = 0.0
    # without the empty board's colours, only a strong change of the paper's colour (a
    # hand, an arm) is taken for a cover (court pictures may be skin-coloured)
    hand = off > 2 * COVER_CHROMA
    if hand.any() and cols:
        grid = hand.reshape(-1, cols).astype(np.uint8)
        hand = cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel() > 0
    states: list[SpaceState] = []
    conf = np.zeros(n, np.float32)
    smooth = spread < TWIN_SMOOTH
    for i in range(n):
        if hand[i] or f.glare[i] > 0.25:
            states.append(SpaceState.UNKNOWN)
            conf[i] = 0.3
            continue
        st, c = chip_colour(f.centre[i])
        chip_like = smooth[i] and st is not SpaceState.UNKNOWN
        j = twin.get(i)
        if j is not None:
            d = float(np.abs(cell[i, 0][None] - cell[j]).mean(axis=1).min())
            if d < 14.0:
                # alike: both empty (two chips of one colour on both copies: both chips)
                both = chip_like and smooth[j] and st is not SpaceState.WHITE and \
                    chip_colour(f.centre[j])[0] is st
                states.append(st if both else SpaceState.EMPTY)
                conf[i] = 0.6
                continue
            other = smooth[j] and np.abs(f.centre[i] - f.centre[j]).max() < 30
            # a translucent or glossy chip is not smooth, but its middle is a chip's colour
            # far from its twin's ...
            sat_i, sat_j = (float(np.ptp(f.centre[k]) / max(f.centre[k].max(), 1.0)) for k in (i, j))
            # far, unless the twin is itself a smooth chip (the difference is then its
            # chip, and this middle's colour a red print)
            twin_chip = smooth[j] and chip_colour(f.centre[j])[0] is not SpaceState.UNKNOWN
            if not chip_like and st is not SpaceState.UNKNOWN and st is not SpaceState.WHITE \
                    and sat_i > 0.4 and sat_i > sat_j + 0.2 and not twin_chip and \
                    np.abs(f.centre[i] - f.centre[j]).max() > 60:
                chip_like = True
            if chip_like and not other:
                states.append(st)
                conf[i] = float(max(0.3, c))
            elif chip_like and other and st is not SpaceState.WHITE:
                states.append(st)                        # two chips of one colour on the twins
                conf[i] = 0.4
            elif chip_like and other:
                states.append(SpaceState.UNKNOWN)        # both smooth and white in the middle
                conf[i] = 0.2
            else:
                states.append(SpaceState.EMPTY)
                conf[i] = 0.5
            continue
        strong = chip_like and st is not SpaceState.WHITE
        if strong and i not in free:
            states.append(st)
            conf[i] = float(max(0.3, c))
        elif strong and i in free:
            states.append(st)
            conf[i] = 0.4
        else:
            states.append(SpaceState.EMPTY)
            conf[i] = 0.4
    return states, conf, hand


def alike_chip_coloured(centre: np.ndarray, pairs: list[tuple[int, int]],
                        states: list[SpaceState]) -> np.ndarray:
    """(n,) the spaces of pairs of twins that the twins' reading (:func:`classify_by_twins`)
    calls both empty while both middles show one chip's colour (white included): two chips
    of one colour, a translucent one most of all (not a smooth disc), look as alike as two
    bare copies of the card, and each is then shown to the model beside the other as its
    empty twin (docs/vision.md, session 10)."""
    alike = np.zeros(len(centre), bool)
    for a, b in pairs:
        if states[a] is not SpaceState.EMPTY or states[b] is not SpaceState.EMPTY:
            continue
        st = chip_colour(centre[a])[0]
        if st is not SpaceState.UNKNOWN and chip_colour(centre[b])[0] is st:
            alike[a] = alike[b] = True
    return alike


# The figures below were chosen with the first model on held-out looks of a development set
# (seed 7, not the benchmark's scenes), and checked with the second on tuned development
# sets only (seeds 5 and 6): docs/vision.md.
#: the learned classifier's least probability for a state; below it the model is unsure
MODEL_SURE = 0.6
#: a space with at least this probability of being covered is taken as covered
MODEL_COVERED = 0.5
#: beside a covered space, a reading needs at least this probability (an arm's edge)
MODEL_SURE_BESIDE = 0.9
#: the same on a calibrated board (session nine): the model trained through changed hues
#: (python -m vision.train_spaces --shift-aug 0.5) is surer of a chip's colour where a
#: sleeve tints a space, so beside a cover it must be 98 % sure (development sets: 3
#: spaces under an arm read as chips at 0.9, none at 0.98; docs/vision.md, "Session
#: nine"). Reading without calibration keeps MODEL_SURE_BESIDE.
MODEL_SURE_BESIDE_CALIBRATED = 0.98
#: the features' account of covered spaces counts too (False: only the model's; on
#: held-out looks the features take many bare spaces for covered, and the model finds
#: every hand they find)
FEATURE_COVERS = False
#: beside a space the model takes as covered, the features' doubt (a cover, or unknown) counts: a
#: sleeve of a chip's colour reaching over a space reads as that chip to the model (three
#: such spaces on 288 frames of tuned looks, seed 5, with the second model), the features
#: see the cover; the halo stays within one space
FEATURE_COVERS_BESIDE = True
#: session ten (docs/vision.md): on a calibrated board, a space the model takes as covered
#: with no other covered space among its eight neighbours and not on the board's edge, in
#: a frame where no two covered spaces touch, is a stray cover (a glare spot, a fold, a
#: shadow's tip: an arm reaches in from the board's edge over several spaces): it stays
#: unknown, but its neighbours are read as on a bare board, not held to the bar beside a
#: cover. False: every cover darkens its neighbours.
STRAY_COVERS = True
#: read by the board network (session twelve), the features' doubt beside a space the model
#: takes as covered does not count (FEATURE_COVERS_BESIDE): the network sees the arm's edge
#: in the spaces round it; on the tuned development sets (docs/vision.md, "Session
#: twelve") the features' doubt made 27 of dev10's 28 spaces not read right, all beside an
#: arm, for one wrong reading fewer in five sets
BOARD_FEATURES_BESIDE = False


_COLOURED = (SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED)
_PALE = (SpaceState.WHITE, SpaceState.EMPTY)     # the two glare confuses
#: the passes of classify_learned that leave a space unknown (its ``why``)
WHY = ("covered", "beside a cover", "features disagree", "white guard", "model unsure",
       "blown out", "lone", "least chip", "disputed")


def calibrated_keywords(board: bool = False) -> dict:
    """classify_learned's keywords on a calibrated board (the reader's, and the development
    sets' replay in tools/spaces_dev.py); ``board``: read by the board network
    (vision.spacenet.BoardNet), which sees an arm's edge itself: the features' doubt
    beside a cover does not count (:data:`BOARD_FEATURES_BESIDE`)."""
    kw = {"sure_beside": MODEL_SURE_BESIDE_CALIBRATED, "stray_covers": STRAY_COVERS}
    if board:
        kw["features_beside"] = BOARD_FEATURES_BESIDE
    return kw


def _stray(grid: np.ndarray) -> np.ndarray:
    """The stray covers of a grid of covered spaces (:data:`STRAY_COVERS`), as a grid of
    0/1: none when any two covered spaces touch."""
    count = cv2.filter2D(grid, -1, np.ones((3, 3), np.float32), borderType=cv2.BORDER_CONSTANT)
    if (count[grid > 0] > 1).any():
        return np.zeros_like(grid)
    inner = np.zeros_like(grid)
    inner[1:-1, 1:-1] = 1
    return grid & inner


def classify_learned(probs: np.ndarray, by_features: tuple | None = None, cols: int = 0,
                     overrules: float = 1.01, stand: float = 1.01,
                     overrules_unknown: float | None = None, white_overrules: float = 0.0,
                     empty_or_white: float = 1.01, least_chip: float = 0.0,
                     least_white: float = 0.0, lone_overrules: float = 0.0,
                     blown: np.ndarray | None = None, disputed: np.ndarray | None = None,
                     lone: np.ndarray | None = None, sure_beside: float | None = None,
                     stray_covers: bool = False, why: list | None = None,
                     features_beside: bool | None = None
                     ) -> tuple[list[SpaceState], np.ndarray, np.ndarray]:
    """Per space: its state, a confidence 0..1, and whether something covers it, from the
    learned classifier's probabilities (vision/spacenet.py) and, when given, the
    hand-written features' reading ``(states, conf, hand)`` of the same frame.

    Where both read one state, it stands. Where the model is sure (``MODEL_SURE``) and the
    features read otherwise, the model's state stands only with at least ``overrules``;
    where the model is unsure, the features' state stands only when the model gives it at
    least ``stand``. Anything else is unknown, never a state: a space covered by the
    model's or the features' account, beside a cover and the model not very sure, or the
    two disagreeing. ``blown``: spaces whose paper is blown out to white (glare), where any
    chip looks white and a white chip looks like the paper: a white or an empty the
    features do not also read there is unknown.

    Where the features read nothing (unknown), the model's state stands with at least
    ``overrules_unknown`` (they have no other opinion to weigh; None: ``overrules``). The model's white against
    the features' reading needs at least ``white_overrules`` as well as ``overrules`` (white
    on white paper in dim light is where the model is surest and wrong). Where the model
    is unsure and the features read empty (white), a probability of white (empty) of at
    least ``empty_or_white`` leaves it unknown: the features do not settle that pair.
    A coloured chip the model gives less than ``least_chip``, or a white one it gives less
    than ``least_white``, is unknown whoever read it (reading without calibration: the
    twins' reading of a chip is weak evidence where the model doubts it, docs/vision.md).
    ``lone``: spaces the model read without their empty picture beside it (without
    calibration: a space whose twin holds a chip); there its coloured chip against the
    features' reading needs at least ``lone_overrules`` (a red print alone looks like a red
    chip to it).
    ``disputed``: spaces two models read apart (vision.spacenet.second_opinion): unknown.
    ``sure_beside``: the probability a reading beside a cover needs (None:
    ``MODEL_SURE_BESIDE``; calibrated boards: ``MODEL_SURE_BESIDE_CALIBRATED``).
    ``stray_covers``: a stray cover (:data:`STRAY_COVERS`) puts no neighbour beside a cover.
    ``why``: a list that gets, per space, the pass that left it unknown (one of
    :data:`WHY`; "" for a space read as a state), for counting (tools/spaces_dev.py).
    ``features_beside``: whether the features' doubt beside a cover counts (None:
    :data:`FEATURE_COVERS_BESIDE`)."""
    from .spacenet import CLASSES, COVERED
    n = len(probs)
    best = probs.argmax(axis=1)
    sure = probs.max(axis=1)
    hand = (best == COVERED) | (probs[:, COVERED] >= MODEL_COVERED)
    if by_features is not None and FEATURE_COVERS:
        hand = hand | np.asarray(by_features[2], bool)
    near = np.zeros(n, bool)
    if hand.any() and cols:
        grid = hand.reshape(-1, cols).astype(np.uint8)
        if stray_covers:
            grid = grid * (1 - _stray(grid))
        near = (cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel() > 0) & ~hand
    fcover_beside = np.zeros(n, bool)
    if features_beside is None:
        features_beside = FEATURE_COVERS_BESIDE
    if by_features is not None and features_beside:
        fcover_beside = np.asarray(by_features[2], bool) | np.array(
            [x is SpaceState.UNKNOWN for x in by_features[0]])
    index = {s: k for k, s in enumerate(CLASSES)}
    if overrules_unknown is None:
        overrules_unknown = overrules
    if sure_beside is None:
        sure_beside = MODEL_SURE_BESIDE
    states: list[SpaceState] = []
    conf = np.zeros(n, np.float32)
    for i in range(n):
        st = CLASSES[int(best[i])]
        p = float(sure[i])
        fs = by_features[0][i] if by_features is not None else None
        cause = ""
        if hand[i] or (near[i] and (p < sure_beside or fcover_beside[i])):
            st, cause = SpaceState.UNKNOWN, "covered" if hand[i] else "beside a cover"
        elif p >= MODEL_SURE:
            if fs is not None and fs is not st and p < (
                    overrules_unknown if fs is SpaceState.UNKNOWN else overrules):
                st, cause = SpaceState.UNKNOWN, "features disagree"
            elif fs is not None and fs is not st and st is SpaceState.WHITE and p < white_overrules:
                st, cause = SpaceState.UNKNOWN, "white guard"
        elif fs is not None and fs is not SpaceState.UNKNOWN and probs[i, index[fs]] >= stand \
                and not (fs in (SpaceState.EMPTY, SpaceState.WHITE) and probs[i, index[
                    SpaceState.WHITE if fs is SpaceState.EMPTY else SpaceState.EMPTY]]
                    >= empty_or_white):
            st, p = fs, float(probs[i, index[fs]])
        else:
            st, cause = SpaceState.UNKNOWN, "model unsure"
        if st in _PALE and blown is not None and blown[i] and fs is not st:
            st, cause = SpaceState.UNKNOWN, "blown out"
        if lone is not None and lone[i] and st is not fs and st in _COLOURED \
                and p < lone_overrules:
            st, cause = SpaceState.UNKNOWN, "lone"
        if st is not SpaceState.UNKNOWN and st is not SpaceState.EMPTY and float(
                probs[i, index[st]]) < (least_white if st is SpaceState.WHITE else least_chip):
            st, cause = SpaceState.UNKNOWN, "least chip"
        if disputed is not None and disputed[i]:
            st, cause = SpaceState.UNKNOWN, "disputed"
        if st is SpaceState.UNKNOWN:
            p = min(p, 0.5)
        elif st is fs:
            p = max(p, float(by_features[1][i]))     # both read it: the surer of the two
        states.append(st)
        conf[i] = p
        if why is not None:
            why.append(cause)
    return states, conf, hand
