"""The board tells where its grid is: every card is printed twice.

On the classic board every card but the jacks is printed on two spaces (every picture twice
on the Jewish Edition's), and the four corners are alike. A grid laid right over the board
makes each pair's two straightened spaces look alike, whatever the card art; a grid shifted
by a fraction of a space, turned, or laid over part of the board does not. The two copies
may be printed turned differently, so each pair is compared in the four quarter turns.

:func:`check_grid` measures this without knowing the art and says, in words, why a grid is
refused. :func:`pair_orientation` finds which corner is the layout's top-left from the
pairs alone (when the layout's pairs are not symmetric under a turn, as on the classic
board).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.layout import Layout

CELL = 24            # pixels per space for comparing
INNER = (3, 21)      # the part of a space compared (leaves out grid lines and neighbours)
#: thresholds, set on tuned looks only (docs/vision.md)
MIN_RANK = 0.78      # mean rank of a space's twin among all spaces by likeness (0..1):
                     # a right grid 0.94-1.0, a wrong one 0.43-0.64 on tuned looks
ALIKE_RANK = 0.9     # a pair "looks alike" (for the words and the check picture): its twin is
                     # more alike than nine in ten other spaces
MIN_BARE = 16        # pairs left bare of chips enough to judge a grid by (the mean rank of 16
                     # unrelated pairs is 0.5 +- 0.07: 0.78 is four of those away)
SHIFT = 0.3          # spaces: a right grid is likelier than the grid shifted this much
SCALE = 0.05         # ... or than the grid this much larger or smaller (a quarter space at the edge)
MARGIN = 0.01        # likeness a moved grid must gain to count as better
SURE_RANK = 0.97     # a pair "surely alike": its twin more alike than 97 in 100 other spaces
CROWDED_ALIKE = 8    # a board in play so full of chips that too few pairs are left bare for
                     # the mean rank: the outline finder's own quadrilateral stands when this
                     # many pairs are surely alike under it (tuned looks, boards with 6 to 14
                     # pairs bare: right grids 7 to 23; turned or resized (0.9) ones 5 at
                     # most, moved a whole space 7;
                     # a grid moved half a space makes as many, so only the outline's
                     # precise corners are taken so, never a grid searched for)
CROWDED_BARE = 5     # ... or this many of the pairs left bare, and half of them, surely alike
                     # (right grids with 4 to 12 pairs bare: 4 to 15 of 4 to 34; wrong
                     # ones: at most 5, of 30, or 4 of 10)


def twin_pairs(layout: Layout) -> list[tuple[int, int]]:
    """Pairs of spaces printed with the same card (free corners excluded)."""
    return [v for s, v in sorted(layout.spaces_of.items()) if len(v) == 2]


def _grid_homography(corners: np.ndarray, layout: Layout) -> np.ndarray:
    src = np.float32([[0, 0], [layout.cols, 0], [layout.cols, layout.rows], [0, layout.rows]])
    return cv2.getPerspectiveTransform(src, np.float32(corners))


def shifted(corners: np.ndarray, layout: Layout, dx: float, dy: float,
            scale: float = 1.0) -> np.ndarray:
    """The grid moved by (dx, dy) spaces (and scaled about its centre) on the board."""
    h = _grid_homography(corners, layout)
    cx, cy = layout.cols / 2, layout.rows / 2
    pts = np.float32([[0, 0], [layout.cols, 0], [layout.cols, layout.rows], [0, layout.rows]])
    pts = (pts - [cx, cy]) * scale + [cx + dx, cy + dy]
    return cv2.perspectiveTransform(np.float32(pts)[None], h)[0]


def _channels(frame: np.ndarray, corners: np.ndarray, layout: Layout, cell: int) -> np.ndarray:
    """(n, cell, cell, 2): each space straightened, as the print's edges (grey) and a
    red-against-green channel (so hearts and spades differ)."""
    w, h = layout.cols * cell, layout.rows * cell
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(np.float32(corners), dst)
    top = cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
    top = cv2.GaussianBlur(top, (0, 0), 0.8)
    grey = (top[:, :, 0] + top[:, :, 1] + top[:, :, 2]) / np.float32(3)   # top.mean(axis=2)
    red = top[:, :, 2] - top[:, :, 1]
    # the print's edges (not its broad shading) tell a card and where it lies in the space
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    chans = np.stack([mag, 0.5 * cv2.Laplacian(red, cv2.CV_32F, ksize=3)], axis=-1)
    return chans.reshape(layout.rows, cell, layout.cols, cell, 2).transpose(0, 2, 1, 3, 4) \
        .reshape(layout.size, cell, cell, 2)


def _unit(cells: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``cells`` (under ``mask``) zero-mean unit-norm, each cell alone (the parts outside
    ``mask`` shifted and scaled alike, and left for the caller to drop)."""
    n = len(cells)
    part = (cells if mask is None else cells[:, mask]).reshape(n, -1)
    mean = part.mean(axis=1)
    norm = np.maximum(np.linalg.norm(part - mean[:, None], axis=1), 1e-3)
    shape = (n,) + (1,) * (cells.ndim - 1)
    return (cells - mean.reshape(shape)) / norm.reshape(shape)


def _turns(unit: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """(n, 4, k): cells (under ``mask``) in the four quarter turns."""
    n = len(unit)
    turns = np.stack([np.rot90(unit, k, axes=(1, 2)) for k in range(4)], axis=1)  # (n,4,s,s,2)
    return (turns if mask is None else turns[:, :, mask]).reshape(n, 4, -1)


def _turned_unit(cells: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """(n, 4, k): the cells (under ``mask``, one that a quarter turn leaves the same) in the
    four quarter turns, zero-mean unit-norm (a turn leaves both the same: each cell is
    scaled once, then turned)."""
    return _turns(_unit(cells, mask), mask)


def space_vectors(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """(n, 4, k): each space's inner picture in the four quarter turns, zero-mean unit-norm
    (grey and a red-against-green channel, so hearts and spades differ)."""
    a, b = INNER
    return _turned_unit(_channels(frame, corners, layout, CELL)[:, a:b, a:b])


#: a chip covers the middle of its space; the print round it (a card's corner index, a
#: court picture's ground) still shows. Pairs with a chip on either space are compared
#: there only (:func:`ring_vectors`): the part of a space farther than this share of a
#: space from its middle (chips of 0.33 to 0.42 of a space in radius, put down a little
#: off-centre), leaving out the grid lines (:data:`RING_EDGE` pixels of :data:`RING_CELL`)
RING = 0.45
RING_CELL = 32
RING_EDGE = 2


def _ring_mask() -> np.ndarray:
    """(RING_CELL, RING_CELL): the print round a chip (see :data:`RING`)."""
    half = RING_CELL / 2
    yy, xx = np.mgrid[0:RING_CELL, 0:RING_CELL] + 0.5 - half
    return (np.hypot(xx, yy) > RING * RING_CELL) & (np.abs(xx) < half - RING_EDGE) \
        & (np.abs(yy) < half - RING_EDGE)


def ring_vectors(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """(n, 4, k): like :func:`space_vectors`, of the print round a chip only (the corners
    of each space outside :data:`RING` of it)."""
    return _turned_unit(_channels(frame, corners, layout, RING_CELL), _ring_mask())


@dataclass
class GridCheck:
    ok: bool
    rank: float                    # mean rank of each space's twin among all spaces (0..1)
    contrast: float                # median twin likeness minus unrelated spaces' median
    likeness: np.ndarray           # per pair: the best likeness of its two spaces (-1..1)
    pairs: list[tuple[int, int]]
    reason: str = ""
    better_shift: tuple[float, float] | None = None
    extra: dict = field(default_factory=dict)

    @property
    def unmatched(self) -> list[tuple[int, int]]:
        return [p for p, ok in zip(self.pairs, self._best) if not ok]

    _best: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))


def _likeness(v: np.ndarray) -> np.ndarray:
    """(n, n): the best normalised correlation of two spaces over the quarter turns."""
    base = v[:, 0]                                   # (n, k)
    return np.einsum("ik,jtk->ijt", base, v).max(axis=2)


def _score(v: np.ndarray, pairs: list[tuple[int, int]], spaces: np.ndarray):
    """(likeness per pair, rank per pair, contrast). A pair's rank is the share of the other
    spaces less like each of its two spaces than its twin is (mean of the two): 1 when the
    twin is the most alike, about 0.5 for a space and an unrelated one. Art whose cards look
    much alike (one big pip) leaves a twin second or fifth best, rarely below nine in ten."""
    sim = _likeness(v[spaces])
    idx = {s: k for k, s in enumerate(spaces)}
    np.fill_diagonal(sim, -np.inf)
    m = len(spaces) - 2                         # others than the space itself and its twin
    twin = np.array([sim[idx[i], idx[j]] for i, j in pairs])
    rank = np.array([((sim[idx[i]] < t).sum() + (sim[idx[j]] < t).sum() - 2) / (2 * m)
                     for (i, j), t in zip(pairs, twin)])
    off = sim[np.triu_indices(len(spaces), 1)]
    contrast = float(np.median(twin) - np.median(off))
    return twin, rank, contrast


def measure(frame: np.ndarray, corners: np.ndarray, layout: Layout,
            pairs: list[tuple[int, int]] | None = None):
    """(likeness per pair, each pair's rank (see :func:`_score`), contrast) of a grid."""
    pairs = twin_pairs(layout) if pairs is None else pairs
    spaces = np.array(sorted({s for p in pairs for s in p}))
    v = space_vectors(frame, corners, layout)
    return _score(v, pairs, spaces)


def outside_frame(corners: np.ndarray, shape, layout: Layout, inner: float = 0.35) -> np.ndarray:
    """(n,) spaces whose middle part (``inner`` of a space each way from its centre) is not
    all in the picture (a grid running out of a photo taken close)."""
    h, w = shape[:2]
    m = _grid_homography(corners, layout)
    r, c = np.divmod(np.arange(layout.size), layout.cols)
    pts = np.concatenate([np.stack([c + 0.5 + dx, r + 0.5 + dy], axis=1)
                          for dx in (-inner, inner) for dy in (-inner, inner)]).astype(np.float32)
    p = cv2.perspectiveTransform(pts[None], m)[0].reshape(4, layout.size, 2)
    bad = (p[..., 0] < 0) | (p[..., 0] > w - 1) | (p[..., 1] < 0) | (p[..., 1] > h - 1)
    return bad.any(axis=0)


def check_grid(frame: np.ndarray, corners: np.ndarray, layout: Layout,
               chips: bool = False) -> GridCheck:
    """Does the grid lie on the board's spaces? Refused (``ok`` False) with the reason in
    words when the pairs of twin spaces do not match, or match better with the grid moved
    or resized a little."""
    pairs = twin_pairs(layout)
    if len(pairs) < 8:
        return GridCheck(True, 1.0, 1.0, np.zeros(0), pairs,
                         reason="this layout prints no card twice: the grid is not checked")
    if chips:
        # a board in play (reading without calibration): pairs with a chip on either space
        # cannot match; judge by the pairs left bare (at least eight of them)
        # (a space out of the picture, a photo taken close, is no judge either)
        bare = _bare_spaces(frame, corners, layout) & ~outside_frame(corners, frame.shape,
                                                                      layout)
        kept = [p for p in pairs if bare[p[0]] and bare[p[1]]]
        if len(kept) >= 8:
            pairs = kept
    twin, rank, contrast = measure(frame, corners, layout, pairs)
    if not chips and rank.mean() < MIN_RANK:
        # chips left on the board (the calibration then warns of them): the pairs left
        # bare, if there are enough of them that an unrelated grid cannot pass by chance
        bare = _bare_spaces(frame, corners, layout)
        kept = [p for p in pairs if bare[p[0]] and bare[p[1]]]
        if MIN_BARE <= len(kept) < len(pairs):
            t2, r2, c2 = measure(frame, corners, layout, kept)
            if r2.mean() >= MIN_RANK:
                pairs, twin, rank, contrast = kept, t2, r2, c2
    best = rank >= ALIKE_RANK
    chk = GridCheck(False, float(rank.mean()), contrast, twin, pairs, _best=best)
    if chk.rank < MIN_RANK:
        chk.reason = (f"the grid does not lie on the board's spaces: only {int(best.sum())} of "
                      f"{len(pairs)} pairs of spaces printed with the same card look alike "
                      f"(a grid on the board makes most of them alike)")
        return chk
    # a grid a fraction of a space off still makes many pairs alike: it must be likelier
    # than the same grid moved or resized a little
    here = float(twin.mean())
    for dx, dy, sc, words in ((SHIFT, 0, 1, "moved right"), (-SHIFT, 0, 1, "moved left"),
                              (0, SHIFT, 1, "moved down"), (0, -SHIFT, 1, "moved up"),
                              (0, 0, 1 + SCALE, "larger"), (0, 0, 1 - SCALE, "smaller")):
        t2, b2, _ = measure(frame, shifted(corners, layout, dx, dy, sc), layout, pairs)
        if t2.mean() > here + MARGIN:
            chk.reason = (f"the grid is off: the pairs of spaces printed with the same card match "
                          f"better with the grid {words} by a fraction of a space")
            chk.better_shift = (dx, dy)
            chk.extra = {"here": here, "there": float(t2.mean())}
            return chk
    chk.ok = True
    return chk


def surely_alike(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> tuple[int, int, int]:
    """Under a grid: (pairs surely alike of all pairs, pairs left bare (no chip-like middle
    on either space), pairs surely alike of those). A pair is surely alike when its rank
    is at least :data:`SURE_RANK`: each space's twin among the few most alike spaces of the
    board; under an unrelated grid about three pairs in 100 are, by chance."""
    return _alike_counts(frame, corners, layout)[:3]


def _alike_counts(frame: np.ndarray, corners: np.ndarray, layout: Layout
                  ) -> tuple[int, int, int, int]:
    """:func:`surely_alike`'s three counts and, fourth, the pairs left bare whose two
    spaces are each the other's most alike on the board (rank at least :data:`TOP_RANK`)."""
    pairs = twin_pairs(layout)
    _, rank, _ = measure(frame, corners, layout, pairs)
    sure = rank >= SURE_RANK
    bare = _bare_spaces(frame, corners, layout)
    kept = np.array([bool(bare[i] and bare[j]) for i, j in pairs])
    return (int(sure.sum()), int(kept.sum()), int((sure & kept).sum()),
            int(((rank >= TOP_RANK) & kept).sum()))


def crowded_confirms(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> bool:
    """A board in play so full of chips that too few pairs are bare for the mean rank
    (:func:`check_grid`): does the grid still lie on the spaces? Yes when
    :data:`CROWDED_ALIKE` pairs are surely alike, or :data:`CROWDED_BARE` of the bare pairs
    and at least half of them are (under a turned, resized or shifted grid, at most 5 of
    10 or more on tuned looks). It cannot tell a grid moved half a space: only the
    outline finder's precise corners are taken so, never a grid searched for."""
    sure, kept, sure_kept = surely_alike(frame, corners, layout)
    return sure >= CROWDED_ALIKE or (sure_kept >= CROWDED_BARE and 2 * sure_kept >= kept)


def pair_orientation(frame: np.ndarray, corners: np.ndarray, layout: Layout
                     ) -> tuple[np.ndarray, float] | None:
    """The corners turned so that the layout's twin pairs match best, and the margin of the
    best turn over the next; None when the pairs cannot tell (a layout whose pairs look the
    same turned round, or no pairs)."""
    pairs = twin_pairs(layout)
    if len(pairs) < 8:
        return None
    options = [np.roll(np.float32(corners), -k, axis=0) for k in range(4)]
    if layout.rows != layout.cols:
        options = options[::2]
    if layout.rows == layout.cols and _pairs_symmetric(layout, pairs):
        return None
    spaces = np.array(sorted({s for p in pairs for s in p}))
    scores = []
    for opt in options:
        v = space_vectors(frame, opt, layout)
        twin, rank, contrast = _score(v, pairs, spaces)
        scores.append(float(rank.mean()) + contrast)
    order = np.argsort(scores)[::-1]
    return options[int(order[0])], float(scores[order[0]] - scores[order[1]])


def _pairs_symmetric(layout: Layout, pairs) -> bool:
    n = layout.rows
    twin = {}
    for i, j in pairs:
        twin[i], twin[j] = j, i

    def rot(i):
        r, c = divmod(i, n)
        return c * n + (n - 1 - r)
    for k in range(1, 4):
        same = 0
        for i, j in pairs:
            a, b = i, j
            for _ in range(k):
                a, b = rot(a), rot(b)
            same += twin.get(a) == b
        if same > 0.8 * len(pairs):
            return True
    return False


def _twin_mean(frame: np.ndarray, corners: np.ndarray, layout: Layout, pa: np.ndarray,
               pb: np.ndarray) -> float:
    """The mean likeness of the pairs (``pa`` with ``pb``, best over ``pb``'s quarter
    turns): :func:`space_vectors` of those spaces only, ``pa`` unturned."""
    a, b = INNER
    cells = _channels(frame, corners, layout, CELL)[:, a:b, a:b]
    va = _unit(cells[pa]).reshape(len(pa), -1)
    vb = _turns(_unit(cells[pb]))
    return float(np.einsum("pk,ptk->pt", va, vb).max(axis=1).mean())


def refine_grid(frame: np.ndarray, corners: np.ndarray, layout: Layout,
                steps: tuple[float, ...] = (0.25, 0.12, 0.06), passes: int = 4,
                pairs: list[tuple[int, int]] | None = None) -> np.ndarray:
    """Move each corner of the grid, a fraction of a space at a time along the board's own
    rows and columns, while the twin spaces grow more alike (their mean likeness): a grid
    found a little off (a glare spot on the board's edge, a corner chip) settles on the
    spaces. ``pairs``: only those (the pairs left bare of chips); all by default. The
    result still has to pass :func:`check_grid`."""
    pairs = twin_pairs(layout) if pairs is None else pairs
    if len(pairs) < 8:
        return np.float32(corners)
    pa = np.array([p[0] for p in pairs])
    pb = np.array([p[1] for p in pairs])
    return _climb(corners, layout, lambda c: _twin_mean(frame, c, layout, pa, pb), steps,
                  passes)


def _climb(corners: np.ndarray, layout: Layout, score, steps: tuple[float, ...],
           passes: int) -> np.ndarray:
    """Each corner of the grid moved a step at a time along the board's own rows and
    columns (in the first guess's board coordinates), while ``score`` of the grid's
    corners grows; each step size in turn, at most ``passes`` rounds each."""
    unit = np.float32([[0, 0], [layout.cols, 0], [layout.cols, layout.rows], [0, layout.rows]])
    grid = unit.copy()                      # the corners in the first guess's board coordinates
    h0 = _grid_homography(corners, layout)

    def image(g):
        return cv2.perspectiveTransform(np.float32(g)[None], h0)[0]
    best = score(image(grid))
    for step in steps:
        for _ in range(passes):
            moved = False
            for k in range(4):
                for axis in (0, 1):
                    for sign in (1, -1):
                        g = grid.copy()
                        g[k, axis] += sign * step
                        here = score(image(g))
                        if here > best + 1e-4:
                            best, grid, moved = here, g, True
                            break
            if not moved:
                break
    return image(grid)


def search_corners(frame: np.ndarray, corners: np.ndarray, layout: Layout,
                   reach: float = 1.0, step: float = 0.5, rounds: int = 2) -> np.ndarray:
    """Move each corner alone over a square of +-``reach`` spaces (``step`` apart), keeping
    the place where the twin spaces look most alike: a grid with one or two corners a space
    off (a glare spot that broke the board's edge near a corner) escapes the local steps of
    :func:`refine_grid`, which would stop short of it. The result still has to pass
    :func:`check_grid`."""
    pairs = twin_pairs(layout)
    if len(pairs) < 8:
        return np.float32(corners)
    pa = np.array([p[0] for p in pairs])
    pb = np.array([p[1] for p in pairs])
    grid = np.float32([[0, 0], [layout.cols, 0], [layout.cols, layout.rows], [0, layout.rows]])
    h0 = _grid_homography(corners, layout)

    def image(g):
        return cv2.perspectiveTransform(np.float32(g)[None], h0)[0]
    best = _twin_mean(frame, image(grid), layout, pa, pb)
    offs = np.arange(-reach, reach + 1e-6, step)
    for _ in range(rounds):
        moved = False
        for k in range(4):
            base = grid.copy()
            for dx in offs:
                for dy in offs:
                    if dx == 0 and dy == 0:
                        continue
                    g = base.copy()
                    g[k] += (dx, dy)
                    score = _twin_mean(frame, image(g), layout, pa, pb)
                    if score > best + 1e-4:
                        best, grid, moved = score, g, True
        if not moved:
            break
    return image(grid)


SCALES = (1.0, 0.97, 0.94, 0.91, 0.88, 0.85)


def settle_grid(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """From a quadrilateral found round the board (the field of spaces, or the whole board
    with its edge when the edge does not stand out from the table) to the grid of spaces:
    the size (1 to 0.85 of it) and the turn (which corner is the layout's top-left) where
    the twin spaces look most alike, then :func:`refine_grid`. The turn is left as found
    when the layout's pairs look the same turned round (the caller turns it otherwise)."""
    pairs = twin_pairs(layout)
    if len(pairs) < 8:
        return np.float32(corners)
    pa = np.array([p[0] for p in pairs])
    pb = np.array([p[1] for p in pairs])
    turns = [0] if _pairs_symmetric(layout, pairs) else (range(4) if layout.rows == layout.cols
                                                         else (0, 2))
    options = []
    for s in SCALES:
        base = shifted(corners, layout, 0, 0, s)
        for k in turns:
            c = np.roll(base, -k, axis=0)
            options.append((_twin_mean(frame, c, layout, pa, pb), s, k, c))
    options.sort(key=lambda o: -o[0])
    best = None
    for score, s, k, c in options[:2]:
        r = refine_grid(frame, c, layout)
        t = _twin_mean(frame, r, layout, pa, pb)
        if best is None or t > best[0]:
            best = (t, r)
    return best[1]


def pairs_tell_turn(layout: Layout) -> bool:
    """Whether the layout's twin pairs alone say which way round the board lies."""
    pairs = twin_pairs(layout)
    return len(pairs) >= 8 and not _pairs_symmetric(layout, pairs)


def twin_mean(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> float:
    """The mean likeness of the twin spaces under a grid (higher: the grid fits better)."""
    pairs = twin_pairs(layout)
    if not pairs:
        return 0.0
    return _twin_mean(frame, corners, layout, np.array([p[0] for p in pairs]),
                      np.array([p[1] for p in pairs]))


def _bare_spaces(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """(n,) spaces whose middle is not a smooth disc of a chip's colour (the spread
    normalised by the light, and as loose as the twin reader's: a translucent chip, print
    showing through, is a chip too)."""
    from .classify import _centre_spread, chip_colour, features
    from .locate import straighten
    from engine.observation import SpaceState
    board = straighten(frame, corners, layout)
    f = features(board, layout.rows, layout.cols)
    spread = _centre_spread(board, layout.rows, layout.cols)
    colour = [chip_colour(f.centre[i])[0] for i in range(layout.size)]
    chip = np.array([spread[i] * (230.0 / max(float(f.light[i].mean()), 12.0)) < 20
                     and colour[i] is not SpaceState.UNKNOWN for i in range(layout.size)])
    white = np.flatnonzero(chip & np.array([c is SpaceState.WHITE for c in colour]))
    if len(white) and sum(not chip[i] and not chip[j] for i, j in twin_pairs(layout)) < 8:
        # too few pairs bare to judge a grid by (check_grid): a smooth, white middle is a
        # white chip only with a disc's rim round it, for a card whose middle is blank paper
        # (a two, a faded print) looks just as smooth and white (session 17: on a faded,
        # yellowed board 40 of 57 empty spaces were taken for white chips, leaving 3 of 18
        # pairs bare). Only then: under a grid off the spaces, a middle of paper between
        # two chips has no rim either, and the steps that settle a grid on the bare pairs
        # would follow those (a dark table's board settled 0.5 of a space off, not 0.1)
        lit = np.array([max(float(f.light[i].mean()), 12.0) / 230.0 for i in white])
        chip[white] = _rim_strength(frame, corners, layout, white) / lit >= WHITE_RIM
    return ~chip


#: a smooth white middle is a white chip when the rim round it (:func:`_rim_strength`, the
#: light normalised to 230) is at least this strong (tuned sets base, faded, dim and glare:
#: white chips 5th percentile 106, median 169; empty spaces with a smooth white middle
#: median 75, three in four below 107; docs/vision.md, session 17)
WHITE_RIM = 90.0


def _rim_strength(frame: np.ndarray, corners: np.ndarray, layout: Layout,
                  spaces: np.ndarray) -> np.ndarray:
    """(len(spaces),) how strong a disc's rim is round each space's middle: the edge
    strength (Sobel, summed over the channels) a quarter of the way up round a circle of 0.34
    to 0.42 of a space in radius, its centre moved up to 0.125 of a space, at its best. A
    chip's rim is an edge all round; print is an edge in places."""
    from .locate import straighten
    cell, pad = 32, 16
    mag, ox, oy, _, _ = _circle_samples(straighten(frame, corners, layout, cell), cell, pad, 4)
    out = np.zeros(len(spaces), np.float32)
    for k, i in enumerate(spaces):
        r, c = divmod(int(i), layout.cols)
        cx, cy = c * cell + cell / 2 + pad, r * cell + cell / 2 + pad
        vals = mag[(cy + oy).astype(int), (cx + ox).astype(int)]       # (radii, offsets, angles)
        out[k] = float(np.percentile(vals, 25, axis=2).max())
    return out


def best_turn(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """The corners turned so the twin spaces look most alike (unchanged when the layout's
    pairs cannot tell the turn)."""
    if not pairs_tell_turn(layout):
        return np.float32(corners)
    turns = range(4) if layout.rows == layout.cols else (0, 2)
    options = [np.roll(np.float32(corners), -k, axis=0) for k in turns]
    return max(options, key=lambda c: twin_mean(frame, c, layout))


#: a board in play too full of chips for the pairs alone (:func:`lattice_confirms`): the
#: chips (coloured, smooth discs, not white) centred in their spaces under the grid, within
#: this share of a space
CENTRED = 0.1
#: at least this many chips centred under the grid ...
LATTICE_CHIPS = 15
#: ... and this many times as many as under the grid moved half a space any way or resized
#: by a tenth (40 crowded tuned frames: right grids 16 to 65 chips centred, the same grids
#: moved 0.3 or 0.5 of a space or resized by 0.9 to 1.2 at most 6; docs/vision.md)
LATTICE_RATIO = 2.0
#: the turn: at least this many of the bare pairs surely alike under it, and this many
#: times as many as under any other turn
TURN_SURE = 3
#: ... one of them at least with this rank: each space of the pair the other's most alike
#: (tuned crowded frames, 60 to 80 % covered, the outline's corners: under the right turn
#: 41 of 52 had one such bare pair or more, under the 156 wrong turns none; one wrong turn
#: had 3 bare pairs surely alike and passed the rule above: docs/vision.md, session 17)
TOP_RANK = 0.999
#: ... or, the print round the chips too (:func:`print_sure`): at least this many pairs
#: surely alike under it, and :data:`TURN_PRINT_RATIO` times as many as under any other
#: turn (tuned crowded boards, 60 to 80 % covered, the outline's corners: the right turn
#: 0 to 25, the wrong ones at most 4 of 48; docs/vision.md, session 9)
TURN_PRINT = 6
#: a grid settled on the bare pairs (vision.calibration: a board in play whose outline or
#: candidate the pairs did not confirm as found) needs this many pairs surely alike round
#: the chips. Session 17: a heavily blurred, faded board had a candidate settled, its size
#: too, onto a grid 1.7 spaces inside the board's: 6 (TURN_PRINT, the bar until then), its
#: pairs confirming it at rank 0.82, every space read wrong. Right grids settled so on the
#: tuned sets wild, dark (seed 125) and wild2 (seed 123): 8 to 35 (docs/vision.md)
SETTLED_PRINT = 8
TURN_PRINT_RATIO = 3.0


def _circle_samples(board: np.ndarray, cell: int, pad: int, reach: int):
    """For circles round a space's middle on a straightened ``board`` (``cell`` pixels a
    space): the edge strength (Sobel, summed over the channels, padded by ``pad``), and
    the sample points' offsets (radii 0.34, 0.38, 0.42 of a space; centres moved by up to
    ``reach`` pixels in steps of 2; 48 angles), shaped (radii, centres, angles), with the
    centres' offsets dx, dy."""
    g = cv2.GaussianBlur(board, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.pad(np.sqrt((gx * gx + gy * gy).sum(axis=2)), pad)
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    offs = np.arange(-reach, reach + 1, 2, dtype=np.float32)
    dy, dx = (a.ravel() for a in np.meshgrid(offs, offs, indexing="ij"))
    rad = np.float32([0.34, 0.38, 0.42]) * cell
    ox = dx[None, :, None] + rad[:, None, None] * np.cos(ang)[None, None, :]
    oy = dy[None, :, None] + rad[:, None, None] * np.sin(ang)[None, None, :]
    return mag, ox, oy, dx, dy


def chip_offsets(frame: np.ndarray, corners: np.ndarray, layout: Layout
                 ) -> list[tuple[int, float, float]]:
    """The coloured chips (smooth discs of a chip's colour, not white) under the grid and
    where each lies in its space: (space, dx, dy), the offset of its circle's centre from
    the space's middle in spaces. For each, the circle (a third to two fifths of a space in
    radius) whose edge is strongest, its centre searched over +-0.3 of a space."""
    from .classify import _centre_spread, chip_colour, features
    from .locate import straighten
    from engine.observation import SpaceState
    cell = 32
    board = straighten(frame, corners, layout, cell)
    f = features(board, layout.rows, layout.cols)
    spread = _centre_spread(board, layout.rows, layout.cols)
    chips = [i for i in range(layout.size)
             if spread[i] * (230.0 / max(float(f.light[i].mean()), 12.0)) < 20
             and chip_colour(f.centre[i])[0] not in (SpaceState.UNKNOWN, SpaceState.WHITE)]
    if not chips:
        return []
    pad = 16
    mag, ox, oy, dx, dy = _circle_samples(board, cell, pad, 10)
    out = []
    for i in chips:
        r, c = divmod(i, layout.cols)
        cx, cy = c * cell + cell / 2 + pad, r * cell + cell / 2 + pad
        s = mag[(cy + oy).astype(int), (cx + ox).astype(int)].mean(axis=2)   # (radii, offsets)
        k = int(np.argmax(s.max(axis=0)))
        out.append((i, float(dx[k]) / cell, float(dy[k]) / cell))
    return out


def chips_centred(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> tuple[int, int]:
    """(centred, seen): how many coloured chips lie centred in their spaces under the grid
    (:func:`chip_offsets`), within :data:`CENTRED` of the space's middle, and how many
    chips it sees at all. Any printing, any chips: chips sit in the middle of their
    spaces, and a grid moved or resized puts them off."""
    offsets = chip_offsets(frame, corners, layout)
    return sum(np.hypot(dx, dy) < CENTRED for _, dx, dy in offsets), len(offsets)


def centred_chips(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> int:
    """How many coloured chips lie centred in their spaces under the grid
    (:func:`chips_centred`)."""
    return chips_centred(frame, corners, layout)[0]


def lattice_confirms(frame: np.ndarray, corners: np.ndarray, layout: Layout
                     ) -> np.ndarray | None:
    """A board in play so full of chips that too few pairs are bare for the pairs' checks
    (:func:`check_grid`, :func:`crowded_confirms`): the outline finder's corners stand,
    turned, when the chips lie centred under them (:func:`centred_chips`: at least
    :data:`LATTICE_CHIPS`, and :data:`LATTICE_RATIO` times as many as under the grid moved
    half a space or resized by a tenth) and the pairs left bare tell the turn
    (:data:`TURN_SURE`). Returns the turned corners, or None. Like
    :func:`crowded_confirms`, only for the outline's own corners, never a grid searched
    for (a grid moved a whole space keeps the chips centred)."""
    if not pairs_tell_turn(layout):
        return None
    here = centred_chips(frame, corners, layout)
    if here < LATTICE_CHIPS:
        return None
    for dx, dy, sc in ((0.5, 0, 1), (-0.5, 0, 1), (0, 0.5, 1), (0, -0.5, 1), (0, 0, 1.1),
                       (0, 0, 0.9)):
        if here < LATTICE_RATIO * centred_chips(frame, shifted(corners, layout, dx, dy, sc),
                                                layout):
            return None
    turns = range(4) if layout.rows == layout.cols else (0, 2)
    options = [np.roll(np.float32(corners), -t, axis=0) for t in turns]
    counts = [_alike_counts(frame, o, layout) for o in options]
    sure = [c[2] for c in counts]
    order = np.argsort(sure)[::-1]
    best, second = sure[order[0]], sure[order[1]]
    if best >= TURN_SURE and best >= TURN_SURE * second and counts[int(order[0])][3] > 0:
        # and at least one of those pairs is each other's most alike: on a crowded board the
        # few spaces left bare under a wrong turn can be cards that look alike by chance (an
        # 8 of clubs beside an 8 of spades at 40 pixels a space, two court pictures), among
        # the board's most alike but never each other's most alike (session 17)
        return options[int(order[0])]
    # too few pairs bare to tell the turn: the print round the chips tells it
    told = _print_turn(frame, options, layout)
    if told is not None:
        return told
    # the print round a chip is a few pixels of each space's corners: a grid a twentieth
    # of a space off (the outline's corners) blurs it away. Each turn's grid settled on its
    # own pairs' print (:func:`refine_print`), then the same test: every turn is settled
    # alike, so a wrong one gains no more than chance allows (session 19: tuned crowded
    # boards, 60 to 80 % covered, their grids moved up to 0.06 of a space: the turn told
    # on 117 of 160 as found, on 152 settled, none wrong either way; docs/vision.md)
    settled = [refine_print(frame, o, layout) for o in options]
    told = _print_turn(frame, settled, layout)
    if told is not None and centred_chips(frame, told, layout) >= LATTICE_CHIPS:
        return told
    return None


def _print_turn(frame: np.ndarray, options: list[np.ndarray], layout: Layout
                ) -> np.ndarray | None:
    """Of a grid's turns ``options``, the one the print round the chips tells
    (:func:`print_sure`: :data:`TURN_PRINT` pairs surely alike and
    :data:`TURN_PRINT_RATIO` times as many as under any other turn), or None."""
    sure = [print_sure(frame, o, layout) for o in options]
    order = np.argsort(sure)[::-1]
    best, second = sure[order[0]], sure[order[1]]
    if best >= TURN_PRINT and best >= TURN_PRINT_RATIO * second:
        return options[int(order[0])]
    return None


def _print_mean(frame: np.ndarray, corners: np.ndarray, layout: Layout,
                pa: np.ndarray, pb: np.ndarray, bare: np.ndarray) -> float:
    """The mean likeness of the pairs ``pa`` with ``pb``: whole where both spaces are
    ``bare`` (as :func:`_twin_mean`), else by the print round their chips (as
    :func:`ring_vectors`)."""
    total = 0.0
    if bare.any():
        a, b = INNER
        cells = _channels(frame, corners, layout, CELL)[:, a:b, a:b]
        wa, wb = pa[bare], pb[bare]
        total += float(np.einsum("pk,ptk->pt", _unit(cells[wa]).reshape(len(wa), -1),
                                 _turns(_unit(cells[wb]))).max(axis=1).sum())
    if not bare.all():
        # the ring's pixels gathered in each quarter turn (the ring is the same turned),
        # each space's zero-mean unit-norm over them: as ring_vectors, without turning
        # whole cells
        turns = _ring_turn_index()
        ring = _channels(frame, corners, layout, RING_CELL).reshape(layout.size, -1, 2)
        ra, rb = pa[~bare], pb[~bare]
        va = _unit(ring[ra][:, turns[0]]).reshape(len(ra), -1)
        vb = _unit(ring[rb][:, turns[0]])[:, _ring_turn_perm()].reshape(len(rb), 4, -1)
        total += float(np.einsum("pk,ptk->pt", va, vb).max(axis=1).sum())
    return total / len(pa)


_RING_TURNS: list[np.ndarray] = []
_RING_PERM: list[np.ndarray] = []


def _ring_turn_perm() -> np.ndarray:
    """(4, k): the ring's pixels (in :func:`_ring_turn_index`'s first order) in each
    quarter turn, as positions in that order."""
    if not _RING_PERM:
        turns = _ring_turn_index()
        pos = np.full(RING_CELL * RING_CELL, -1)
        pos[turns[0]] = np.arange(turns.shape[1])
        _RING_PERM.append(pos[turns])
    return _RING_PERM[0]


def _ring_turn_index() -> np.ndarray:
    """(4, k): for each quarter turn of a :data:`RING_CELL` cell, the flat indices of the
    pixels that land on the ring (:func:`_ring_mask`), in the ring's order."""
    if not _RING_TURNS:
        index = np.arange(RING_CELL * RING_CELL).reshape(RING_CELL, RING_CELL)
        mask = _ring_mask()
        _RING_TURNS.append(np.stack([np.rot90(index, k)[mask] for k in range(4)]))
    return _RING_TURNS[0]


def refine_print(frame: np.ndarray, corners: np.ndarray, layout: Layout,
                 steps: tuple[float, ...] = (0.06, 0.03, 0.015), passes: int = 4
                 ) -> np.ndarray:
    """A grid on a board in play settled on its twin pairs' print: each corner moved a
    fraction of a space at a time (as :func:`refine_grid`) while the pairs grow more alike,
    the pairs left bare compared whole and the others by the print round their chips
    (:func:`_print_mean`). For a grid already within a tenth of a space or so; the result
    is judged by the caller."""
    pairs = twin_pairs(layout)
    if len(pairs) < 8:
        return np.float32(corners)
    pa = np.array([p[0] for p in pairs])
    pb = np.array([p[1] for p in pairs])
    free = _bare_spaces(frame, corners, layout)
    bare = free[pa] & free[pb]
    return _climb(corners, layout, lambda c: _print_mean(frame, c, layout, pa, pb, bare),
                  steps, passes)


def print_sure(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> int:
    """Under a grid on a board in play: the twin pairs surely alike (:data:`SURE_RANK`), the
    pairs left bare compared whole (:func:`space_vectors`), the others by the print round
    their chips (:func:`ring_vectors`: a chip hides a space's middle, not its corners, where
    a card shows its index and a court picture its ground). Under a turned grid the pairs
    are unrelated spaces: about one in 30 is surely alike by chance."""
    pairs = twin_pairs(layout)
    spaces = np.array(sorted({s for p in pairs for s in p}))
    bare = _bare_spaces(frame, corners, layout)
    kept = np.array([bool(bare[i] and bare[j]) for i, j in pairs])
    _, whole, _ = _score(space_vectors(frame, corners, layout), pairs, spaces)
    _, ring, _ = _score(ring_vectors(frame, corners, layout), pairs, spaces)
    return int((np.where(kept, whole, ring) >= SURE_RANK).sum())


#: a corner of a grid moved this share of a space, in eight directions, for
#: :func:`corners_on_chips`
PEAK_STEP = 0.3


def _quadrant_centred(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """(4,) coloured chips centred in their spaces (:data:`CENTRED`) in the quarter of the
    board at each corner (top-left, top-right, bottom-right, bottom-left)."""
    out = np.zeros(4, int)
    hr, hc = layout.rows / 2, layout.cols / 2
    for i, dx, dy in chip_offsets(frame, corners, layout):
        r, c = divmod(i, layout.cols)
        q = (0, 1, 3, 2)[(r >= hr) * 2 + (c >= hc)]
        out[q] += np.hypot(dx, dy) < CENTRED
    return out


def corners_on_chips(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> bool:
    """Each corner of the grid where its quarter's chips say: no corner moved alone by
    :data:`PEAK_STEP` of a space, in any of eight directions, centres more chips in its
    quarter of the board. A grid with one corner a third of a space off keeps most chips
    centred over the rest of the board (:func:`lattice_confirms` can pass it); its own
    quarter tells."""
    unit = np.float32([[0, 0], [layout.cols, 0], [layout.cols, layout.rows], [0, layout.rows]])
    h = _grid_homography(corners, layout)
    here = _quadrant_centred(frame, corners, layout)
    d = PEAK_STEP
    moves = [(d, 0), (-d, 0), (0, d), (0, -d)] + [(a * d * 0.7071, b * d * 0.7071)
                                                  for a in (1, -1) for b in (1, -1)]
    for k in range(4):
        for dx, dy in moves:
            u = unit.copy()
            u[k] += (dx, dy)
            moved = cv2.perspectiveTransform(u[None], h)[0]
            if _quadrant_centred(frame, moved, layout)[k] > here[k]:
                return False
    return True


#: pairs left bare enough to settle a grid on them alone (fewer, and the steps could fit a
#: grid to a few pairs by chance)
SETTLE_BARE = 12


def bare_pairs(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> list[tuple[int, int]]:
    """The twin pairs with no chip-like middle on either space under the grid."""
    bare = _bare_spaces(frame, corners, layout)
    return [p for p in twin_pairs(layout) if bare[p[0]] and bare[p[1]]]


def settle_bare(frame: np.ndarray, corners: np.ndarray, layout: Layout,
                sizes: bool = False) -> np.ndarray | None:
    """A board in play: the grid (its turn, then fine steps) settled on the pairs left bare
    of chips only (the chips on the others pull the steps off a right grid), or None when
    fewer than :data:`SETTLE_BARE` are bare. ``sizes``: the quadrilateral may be the whole
    board with its edge, its size (1 to 0.85 of it, :data:`SCALES`) settled too. The
    result still has to pass :func:`check_grid`."""
    if not pairs_tell_turn(layout):
        return None
    turns = range(4) if layout.rows == layout.cols else (0, 2)
    # the pairs left bare under each turn (a pair's two spaces are other spaces of the
    # picture under another turn: its own bare pairs, or a wrong turn would be judged by
    # pairs that are bare only under the first)
    options = []
    for s in (SCALES if sizes else (1.0,)):
        base = shifted(corners, layout, 0, 0, s) if s != 1.0 else np.float32(corners)
        for t in turns:
            c = np.roll(base, -t, axis=0)
            kept = bare_pairs(frame, c, layout)
            if len(kept) < SETTLE_BARE:
                continue
            pa = np.array([p[0] for p in kept])
            pb = np.array([p[1] for p in kept])
            options.append((_twin_mean(frame, c, layout, pa, pb), len(options), c, kept))
    if not options:
        return None
    options.sort(key=lambda o: -o[0])
    # sizes: the quadrilateral may be the whole board with its edge (the bright board on a
    # dark table), its size settled as settle_grid does, on the bare pairs; the two
    # likeliest refined, from a coarser step
    steps = (0.25, 0.12, 0.06, 0.03) if sizes else (0.12, 0.06, 0.03)
    done = []
    for _, _, c, kept in options[:2 if sizes else 1]:
        r = refine_grid(frame, c, layout, steps=steps, passes=6, pairs=kept)
        pa = np.array([p[0] for p in kept])
        pb = np.array([p[1] for p in kept])
        done.append((_twin_mean(frame, r, layout, pa, pb), r))
    return max(done, key=lambda d: d[0])[1]


#: a grid confirmed on a board in play is moved onto its chips (:func:`settle_on_chips`)
#: when at least this many chips are centred under the moved grid ...
FINE_CHIPS = 8
#: ... and this many times as many as under the grid as confirmed (plus two), no corner
#: moving more than this share of a space
FINE_GAIN = 1.5
FINE_REACH = 0.5


def settle_on_chips(frame: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """A board in play, its grid confirmed by the pairs: the last fraction of a space, from
    the chips' own places. Chips lie in the middle of their spaces; where they are found
    off-centre (:func:`chip_offsets`), the grid is moved by the shift (a tenth of a space
    at a time, +-0.3) that centres most, then by their median offset.
    The moved grid is kept only when many more chips are centred under it
    (:data:`FINE_CHIPS`, :data:`FINE_GAIN`), no corner moved more than
    :data:`FINE_REACH` of a space, and the pairs still confirm it (:func:`check_grid`).
    A grid found round the board's paper on a dark table, or with a corner out of the
    picture, can be a fifth of a space off: confirmed (the check refuses a third), but
    its spaces read across their edges, and the reader keeps that grid for every frame."""
    corners = np.float32(corners)
    before = centred_chips(frame, corners, layout)
    # a grid a fifth of a space off hides most chips from the chip test (their middles
    # straddle two spaces): first the shift, a tenth of a space at a time, that centres most
    grid, most = corners, before
    for dx in np.arange(-0.3, 0.31, 0.1):
        for dy in np.arange(-0.3, 0.31, 0.1):
            if abs(dx) < 1e-6 and abs(dy) < 1e-6:
                continue
            moved = shifted(corners, layout, float(dx), float(dy))
            k = centred_chips(frame, moved, layout)
            if k > most:
                grid, most = moved, k
    # then by the chips' median offset from their spaces' middles (robust to a chip put
    # off-centre), kept when it centres no fewer
    offs = chip_offsets(frame, grid, layout)
    if len(offs) >= FINE_CHIPS:
        mx = float(np.median([o[1] for o in offs]))
        my = float(np.median([o[2] for o in offs]))
        cand = shifted(grid, layout, mx, my)
        if centred_chips(frame, cand, layout) >= most:
            grid = cand
    space = float(np.linalg.norm(corners[1] - corners[0])) / layout.cols
    if float(np.linalg.norm(grid - corners, axis=1).max()) > FINE_REACH * space:
        return corners
    after = centred_chips(frame, grid, layout)
    if after < FINE_CHIPS or after < FINE_GAIN * before + 2:
        return corners
    if not check_grid(frame, grid, layout, chips=True).ok:
        return corners
    return np.float32(grid)
