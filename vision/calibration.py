"""The calibration file: where the board lies in the picture, what every empty space looks
like, and the camera settings to lock. JSON, versioned; documented in docs/calibration.md.
A broken file is refused with one line naming the file and the key at fault."""

from __future__ import annotations

import contextlib
import contextvars
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .classify import Reference
from .locate import BoardNotFound

VERSION = 1
#: a confirmed grid whose pairs rank below this is polished corner by corner (right grids on
#: tuned looks: 0.94 to 1.0, most above 0.99)
POLISH_RANK = 0.98
#: reading a board in play without calibration: a grid settled on the bare pairs must keep
#: at least half the chips centred that the quadrilateral as found centres, when it centres
#: at least this many (vision.pairs.centred_chips; docs/vision.md, session 8)
KEEP_CHIPS_FROM = 8
#: ... and, when it sees at least KEEP_CHIPS_FROM chips, centre at least this share of them;
#: so must every grid found for a board in play, whatever step confirmed it (session 10: a
#: candidate inside the board, not its outline, centres almost no chip as found, so the rule
#: above let a grid settled off it pass, 5 and 8.5 spaces off the board's, centring 1 of 13
#: and 0 of 29 chips it saw; a candidate reaching onto the table, settled and checked, 1 of
#: 14; the boards' own grids, on 66 tuned frames of five kinds seeing 8 chips or more,
#: centred 42 to 100 % of them; docs/vision.md)
KEEP_CHIPS_SHARE = 0.25
TOO_DARK = 35.0      # the board's paper darker than this (grey levels) cannot be read safely


class CalibrationError(Exception):
    """A calibration file that cannot be used; the message names the file and the key."""


@dataclass
class Calibration:
    layout: str                      # the layout's name (classic, travel, jewish, or a file's)
    rows: int
    cols: int
    corners: np.ndarray              # grid corners in the frame: tl, tr, br, bl
    image_size: tuple[int, int]      # (width, height) of the frames it was made from
    reference: Reference
    method: str = "outline"          # outline, aruco or manual
    camera: dict = field(default_factory=dict)   # locked exposure, gain, colour gains

    def to_json(self) -> dict:
        return {"version": VERSION, "layout": self.layout, "rows": self.rows, "cols": self.cols,
                "method": self.method, "image_size": list(self.image_size),
                "corners": np.round(self.corners, 2).tolist(), "camera": self.camera,
                "reference": self.reference.to_json()}

    def save(self, path: str | Path) -> None:
        p = Path(path).expanduser()
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(p.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), separators=(",", ":")), "utf-8")
        tmp.replace(p)      # never a half-written calibration


def _need(d: dict, key: str, typ, path: str):
    if key not in d:
        raise CalibrationError(f"{path}: missing key '{key}'")
    v = d[key]
    if not isinstance(v, typ) or isinstance(v, bool) and typ is not bool:
        raise CalibrationError(f"{path}: key '{key}' has the wrong type")
    return v


def load_calibration(path: str | Path) -> Calibration:
    import os
    import stat

    from .quad import corners_problem
    max_bytes = 4 * 1024 * 1024          # a 12 x 12 board's file is ~60 kB
    p = Path(path).expanduser()
    name = str(p)
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):
            raise CalibrationError(f"{name}: not a regular file")
        with open(p, "rb") as f:
            raw = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise CalibrationError(f"{name}: no such file (run `seqboard calibrate` first)") from None
    except OSError as exc:
        raise CalibrationError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise CalibrationError(f"{name}: larger than {max_bytes} bytes: not a calibration file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CalibrationError(f"{name}: byte {exc.start} is not UTF-8 text: not a "
                               f"calibration file") from None
    try:
        d = json.loads(text)
    except RecursionError:
        raise CalibrationError(f"{name}: nested too deeply: not a calibration file") from None
    except ValueError as exc:
        raise CalibrationError(f"{name}: not valid JSON (line {getattr(exc, 'lineno', '?')}): "
                               f"the file is damaged; run `seqboard calibrate` again") from None
    if not isinstance(d, dict):
        raise CalibrationError(f"{name}: not a calibration file")
    version = _need(d, "version", int, name)
    if version != VERSION:
        raise CalibrationError(f"{name}: key 'version' is {version}; this seqboard reads {VERSION}")
    rows, cols = _need(d, "rows", int, name), _need(d, "cols", int, name)
    for key, v in (("rows", rows), ("cols", cols)):
        if not 2 <= v <= 32:
            raise CalibrationError(f"{name}: key '{key}' is {v}; expected 2 to 32")
    raw_corners = _need(d, "corners", list, name)
    problem = corners_problem(raw_corners)
    if problem is not None:
        raise CalibrationError(f"{name}: key 'corners': {problem}")
    corners = np.asarray(raw_corners, np.float32)
    size = _need(d, "image_size", list, name)
    if len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                 and 16 <= v <= 20000 for v in size):
        raise CalibrationError(f"{name}: key 'image_size' must be [width, height], "
                               f"16 to 20000 pixels each")
    try:
        ref = Reference.from_json(_need(d, "reference", dict, name), rows * cols)
    except (KeyError, ValueError, TypeError, IndexError, OverflowError) as exc:
        if str(exc).startswith("key 'reference."):
            raise CalibrationError(f"{name}: {exc}") from None
        raise CalibrationError(f"{name}: key 'reference' is damaged ({exc})") from None
    from .classify import _BAND_I
    n = rows * cols
    for k, shape in (("band_patch", (n, len(_BAND_I) * 3)), ("skin", (n,))):
        got = np.shape(getattr(ref, k))
        if got != shape:
            raise CalibrationError(f"{name}: key 'reference.{k}' is damaged (shape {got}, "
                                   f"expected {shape}); run `seqboard calibrate` again")
    for k in ("patch", "centre", "band_patch", "skin", "radial", "paper"):
        if getattr(ref, k, None) is None:
            continue                      # "paper" is optional (files of older versions)
        if not np.isfinite(np.asarray(getattr(ref, k), np.float64)).all():
            raise CalibrationError(f"{name}: key 'reference.{k}' holds a number that is not finite")
    cam = d.get("camera", {})
    if not isinstance(cam, dict):
        raise CalibrationError(f"{name}: key 'camera' must be an object")
    layout = _need(d, "layout", str, name)
    if not 0 < len(layout) <= 200:
        raise CalibrationError(f"{name}: key 'layout' must be a layout's name")
    return Calibration(layout, rows, cols, corners, (size[0], size[1]),
                       ref, str(d.get("method", "outline"))[:40], cam)


def calibrate(frames: list[np.ndarray], layout, markers: bool = False,
              corners: np.ndarray | None = None, camera: dict | None = None,
              check: bool = True) -> Calibration:
    """Learn the board from frames of the empty board (a few, averaged against noise).

    ``corners`` (tl, tr, br, bl of the grid) skips finding the board: the manual fallback.
    Before anything is learnt the grid is confirmed by the board itself
    (:func:`vision.pairs.check_grid`: the two spaces printed with each card must look alike)
    and, found without markers, turned by the same pairs. Raises
    :class:`~vision.locate.BoardNotFound` saying what to fix, or :class:`GridRefused` (one
    of them) when the grid cannot be confirmed; a wrong grid is never returned.
    ``check=False`` skips the confirmation (for layouts the caller knows print no pairs).
    """
    from .classify import features
    from .locate import find_aruco, find_outline, layout_template, orient, straighten
    from .pairs import check_grid, refine_grid, twin_pairs
    if not frames:
        raise ValueError("no frames to calibrate from")
    first = frames[0]
    mean_frame = frames[0] if len(frames) == 1 else np.clip(
        sum(f.astype(np.float32) for f in frames) / len(frames), 0, 255).astype(np.uint8)
    method = "manual"
    confirmed = False
    if corners is None and not markers and check and twin_pairs(layout):
        # without markers, on a board that prints its cards twice: the outline finder's
        # quadrilateral, else other quadrilaterals that may be the board, each settled on
        # the spaces by the pairs; the first the pairs confirm is the grid
        method = "outline"
        corners, confirmed = _confirmed_grid(mean_frame, layout), True
    elif corners is None:
        loc = find_aruco(first) if markers else find_outline(first)
        method = loc.method
        corners = np.float32(loc.corners)
        if not markers:
            corners = orient(first, corners, layout, layout_template(layout))
    else:
        corners = np.float32(corners)
        if check:
            corners = refine_grid(mean_frame, corners, layout)
    if check and not confirmed:
        verdict = check_grid(mean_frame, corners, layout)
        if not verdict.ok:
            raise GridRefused(verdict.reason, corners, verdict)
    boards = [straighten(f, corners, layout).astype(np.float32) for f in frames]
    mean = np.clip(sum(boards) / len(boards), 0, 255).astype(np.uint8)
    feats = features(mean, layout.rows, layout.cols)
    if float(np.percentile(feats.paper.mean(axis=1), 90)) < TOO_DARK:
        # the board's own paper, not the frame (a dark table is no reason to refuse)
        raise BoardNotFound("the picture is too dark: turn on more light or open the lens")
    ref = Reference.from_features(feats)
    h, w = first.shape[:2]
    return Calibration(layout.name, layout.rows, layout.cols, corners, (w, h), ref, method,
                       camera or {})


#: who hears how far the search for the grid without markers has gone (:func:`reporting`)
_PROGRESS: contextvars.ContextVar = contextvars.ContextVar("grid_search_progress",
                                                           default=None)


@contextlib.contextmanager
def reporting(callback):
    """Within it, ``callback(text)`` hears each step of the search for the board's grid
    without markers: each candidate outline tried, and the slow corner search. A search that
    tries every candidate takes half a minute on a desktop and minutes on a Pi, and the user
    sees that it is going on."""
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def _say(text: str) -> None:
    callback = _PROGRESS.get()
    if callback is not None:
        callback(text)


def _confirmed_grid(frame: np.ndarray, layout, chips: bool = False) -> np.ndarray:
    """The grid of spaces without markers, confirmed by the twin pairs (see calibrate).
    ``chips``: a board in play (reading without calibration), the grid finally moved onto
    the chips' own places (:func:`vision.pairs.settle_on_chips`)."""
    grid = _found_grid(frame, layout, chips)
    if chips:
        from .pairs import settle_on_chips
        grid = settle_on_chips(frame, grid, layout)
    return grid


def _found_grid(frame: np.ndarray, layout, chips: bool = False) -> np.ndarray:
    from .locate import find_outline, layout_template, orient, other_candidates
    from .pairs import (SETTLED_PRINT, best_turn, centred_chips, check_grid, chips_centred,
                        corners_on_chips, crowded_confirms, lattice_confirms, pairs_tell_turn,
                        print_sure, refine_grid, search_corners, settle_bare, settle_grid,
                        settle_on_chips, twin_mean)
    problem: BoardNotFound | None = None
    settled: dict[int, np.ndarray] = {}

    def polish(grid: np.ndarray, verdict) -> np.ndarray:
        if verdict.rank >= POLISH_RANK or not pairs_tell_turn(layout):
            return grid
        # confirmed, but less surely than a grid right on the spaces: a corner may sit a
        # third of a space off where glare washed its spaces out, a trap for the steps
        # along the rows and columns; each corner searched a half space round, diagonals too
        near = refine_grid(frame, search_corners(frame, grid, layout, reach=0.5, step=0.25),
                           layout, steps=(0.12, 0.06, 0.03), passes=8)
        # on a board in play the chips lie in the middle of their spaces: a corner moved
        # where fewer of them are centred is not nearer the board's (session 18: a dim
        # corner under mixed light, its pairs more alike a third of a space off, moved a
        # grid 0.07 of a space off to 0.40, 15 of 23 chips centred instead of 19)
        if check_grid(frame, near, layout, chips).ok and \
                twin_mean(frame, near, layout) > twin_mean(frame, grid, layout) and \
                (not chips or chips_centred(frame, near, layout)[0]
                 >= chips_centred(frame, grid, layout)[0]):
            return near
        return grid

    def keeps_chips(quad: np.ndarray, near: np.ndarray) -> bool:
        # a board in play: the few bare pairs can settle a grid off the spaces, and a grid
        # off them makes more pairs look bare (their chips no longer seen); the chips lie in
        # the middle of their spaces whatever the printing, so a grid settled on the bare
        # pairs that centres fewer than half the chips centred under the quadrilateral as
        # found is refused (session 8: a grid 0.4 of a space off was read for a whole scene);
        # and so is one that centres less than a quarter of the chips it sees, whatever the
        # quadrilateral centred (session 10: a candidate inside the board centres none)
        before = centred_chips(frame, quad, layout)
        centred, seen = chips_centred(frame, near, layout)
        if not centres_its_chips(centred, seen):
            return False
        return before < KEEP_CHIPS_FROM or 2 * centred >= before

    def print_tells(near: np.ndarray) -> bool:
        # a grid settled on the few bare pairs can take a wrong turn (session 11: a dark
        # board with 58 chips, 13 pairs bare under the turned grid, passed at rank 0.79):
        # the print round the chips must say so too (SETTLED_PRINT pairs surely alike)
        return print_sure(frame, near, layout) >= SETTLED_PRINT

    def centres_its_chips(centred: int, seen: int) -> bool:
        return seen < KEEP_CHIPS_FROM or centred >= KEEP_CHIPS_SHARE * seen

    def attempt(k: int, quad: np.ndarray, as_found: bool = False, wide: bool = False):
        nonlocal problem
        if (as_found or chips) and not wide and pairs_tell_turn(layout):
            # the outline finder's corners are precise when right: confirmed as they are,
            # they are kept. Reading a board in play (chips), any candidate is tried as it
            # was found too: the steps that settle a grid follow all the pairs, and the
            # chips on most of them can pull a right quadrilateral (the bright board on a
            # dark table) a third of a space off; the check is the same either way
            turned = best_turn(frame, quad, layout)
            verdict = check_grid(frame, turned, layout, chips)
            if verdict.ok:
                return polish(turned, verdict)
            if chips:
                # the turn chosen by all the pairs, most of them under chips, may be wrong:
                # each other turn checked on the pairs left bare (under a wrong turn they
                # are unrelated spaces, which the check refuses)
                right = []
                for t in range(4) if layout.rows == layout.cols else (0, 2):
                    other = np.roll(np.float32(quad), -t, axis=0)
                    if np.abs(other - turned).max() < 1e-3:
                        continue
                    v = check_grid(frame, other, layout, chips)
                    if v.ok:
                        right.append((v.rank, t, other, v))
                if right:
                    _, _, other, v = max(right, key=lambda r: r[:2])
                    return polish(other, v)
                # a little off (the bright board on a dark table, found round its paper):
                # settled on the bare pairs alone, then the same check
                near = settle_bare(frame, quad, layout)
                if near is not None and keeps_chips(quad, near) and print_tells(near):
                    v = check_grid(frame, near, layout, chips)
                    if v.ok:
                        return polish(near, v)
                if not as_found:
                    # not the outline's: perhaps the whole board with its edge (the bright
                    # board on a dark table under a lamp's gradient), its size settled too
                    near = settle_bare(frame, quad, layout, sizes=True)
                    if near is not None and keeps_chips(quad, near) and print_tells(near):
                        v = check_grid(frame, near, layout, chips)
                        if v.ok:
                            return polish(near, v)
            if as_found and chips and verdict.better_shift is None:
                if crowded_confirms(frame, turned, layout):
                    # a board so full of chips that too few pairs are bare for the mean
                    # rank: the outline's precise corners, enough pairs surely alike under
                    # them
                    return turned
                # fuller still: the chips centred under the outline's corners, and the few
                # bare pairs telling the turn
                centred = lattice_confirms(frame, turned, layout)
                if centred is not None:
                    return centred
            elif chips and verdict.better_shift is None:
                # another candidate on a board too full of chips for the pairs: the chips'
                # places confirm it only when each corner too is where its quarter's chips
                # say (a candidate with one corner a third of a space off keeps the chips
                # centred over the rest of the board)
                centred = lattice_confirms(frame, turned, layout)
                if centred is not None and corners_on_chips(frame, centred, layout):
                    return centred
        if not wide:
            grid = settle_grid(frame, quad, layout)
            if not pairs_tell_turn(layout):
                grid = orient(frame, grid, layout, layout_template(layout))
            settled[k] = grid
            verdict = check_grid(frame, grid, layout, chips)
        else:
            # a corner or two a space off (the edge broken by glare near a corner): each
            # corner searched a space round, then the usual steps; from the quadrilateral
            # as found (in its four turns: with corners off, the pairs cannot tell the turn
            # before the search) and as settled
            # (a candidate confirmed before the search but refused after, off its chips,
            # was never settled: the search starts from its turns alone)
            grid, verdict = settled.get(k, np.float32(quad)), None
            _say(f"possible outline {k + 1} of {len(quads)}, each corner searched a space "
                 f"round (slow)")
            turns = sorted((np.roll(np.float32(quad), -t, axis=0) for t in range(4)),
                           key=lambda c: -twin_mean(frame, c, layout))
            for start in (*turns, *([settled[k]] if k in settled else [])):
                wider = refine_grid(frame, search_corners(frame, start, layout), layout)
                verdict = check_grid(frame, wider, layout, chips)
                if verdict.ok:
                    grid = wider
                    break
        if verdict.ok:
            # finer steps, for the last fraction of a space
            finer = refine_grid(frame, grid, layout, steps=(0.12, 0.06, 0.03), passes=8)
            last = check_grid(frame, finer, layout, chips)
            grid, verdict = (finer, last) if last.ok else (grid, verdict)
            return polish(grid, verdict)
        if problem is None:
            problem = GridRefused(verdict.reason, grid, verdict)
        return None

    quads: list[np.ndarray] = []
    unfound = False
    try:
        quads.append(np.float32(find_outline(frame, looks=False).corners))
    except BoardNotFound as exc:
        problem, unfound = exc, True
        if chips and "cut off" in str(exc):
            # a photo taken close, part of the board out of the picture: the outline found
            # in the picture with a dark margin round it (the field's hole then closes along
            # the picture's edge), its corners where the sides cross, perhaps outside the
            # picture; the pairs still have to confirm it, and the spaces out of the
            # picture are read unknown (vision.reader)
            try:
                quads.append(np.float32(find_outline(frame, cut=True).corners))
            except BoardNotFound:
                pass
    first = bool(quads)
    # the outline, else other quadrilaterals that may be the board (of those the pairs
    # confirm, the one where they look most alike); the corner search, which is slow, only
    # when none is confirmed by the small steps
    for quad in other_candidates(frame):
        if all(np.abs(quad - t).max() > 4 for t in quads):
            quads.append(quad)
    grid = _first_confirmed(quads, range(len(quads)), first, attempt, frame, layout, chips,
                            centres_its_chips)
    if grid is not None:
        return grid
    if unfound:
        # none confirmed, and the outline finder found no field at first: its second
        # looks (a ring with a gap: vision.locate.find_outline), last of all and as one
        # more candidate, never trusted as the outline's precise corners; tried only here,
        # so that no board read without them is read otherwise
        try:
            late = np.float32(find_outline(frame).corners)
        except BoardNotFound:
            late = None
        if late is not None:
            quads.append(late)
            grid = _first_confirmed(quads, [len(quads) - 1], False, attempt, frame, layout,
                                    chips, centres_its_chips)
            if grid is not None:
                return grid
    # last of all, where the field network sees the field of spaces (vision.fieldnet): for
    # a board whose outline is lost (its edge faded with its print, a shadow or a glare
    # spot across it, a dim picture under mixed light, a busy table: session 18, each of
    # these a frame no candidate above came within two spaces of); confirmed by the pairs
    # like every other, and asked only here, so that no board read without it is read
    # otherwise
    # (a region within half a space of a candidate already tried, its corner search of a
    # space round included, is nothing new: not tried again, which would only double the
    # time a board the pairs refuse takes to be refused)
    from .fieldnet import field_quads
    seen = [q for q in field_quads(frame) if not any(_near(q, t, layout) for t in quads)]
    if seen:
        start = len(quads)
        quads.extend(seen)
        grid = _first_confirmed(quads, range(start, len(quads)), False, attempt, frame,
                                layout, chips, centres_its_chips)
        if grid is not None:
            return grid
    raise problem or BoardNotFound(
        "no board found: make sure the whole board is in view, evenly lit, with nothing on its edge")


def _near(quad: np.ndarray, tried: np.ndarray, layout, within: float = 0.5) -> bool:
    """Whether every corner of ``quad`` lies within ``within`` of a space (the size of
    ``tried``'s spaces) of ``tried``'s, in one of its four turns."""
    q, t = np.float32(quad), np.float32(tried)
    side = max(float(np.linalg.norm(t[i] - t[(i + 1) % 4])) for i in range(4))
    space = side / max(layout.rows, layout.cols)
    return min(float(np.linalg.norm(np.roll(q, -k, axis=0) - t, axis=1).max())
               for k in range(4)) < within * space


def _first_confirmed(quads, ks, first: bool, attempt, frame, layout, chips: bool,
                     centres_its_chips):
    """Of the candidates ``quads[k]`` for k in ``ks``, the grid confirmed (see
    :func:`_found_grid`): the outline's own (``first``, k = 0) when confirmed, else of those
    confirmed the one whose pairs look most alike; None when none is."""
    from .pairs import chips_centred, pairs_tell_turn, settle_on_chips, twin_mean
    for wide in (False, True):
        if wide and not pairs_tell_turn(layout):
            break
        found = []
        for k in ks:
            quad = quads[k]
            if not wide:                # the wide pass says so in attempt
                _say(f"possible outline {k + 1} of {len(quads)}")
            grid = attempt(k, quad, as_found=first and k == 0, wide=wide)
            if grid is not None and chips and not centres_its_chips(
                    *chips_centred(frame, grid, layout)):
                # a board in play: whatever step confirmed it, a grid that centres less than
                # a quarter of the chips it sees is not the board's (session 10: a candidate
                # reaching onto the table, settled and checked, 9.8 spaces off), unless a
                # fifth of a space off: a chip is centred within a tenth, so a right grid
                # a little off centres none. Moved onto the chips' places (at most half
                # a space, the pairs confirming it again: settle_on_chips) it must centre
                # them (session 11: a grid confirmed 0.19 of a space off, 0 of 28 centred)
                near = settle_on_chips(frame, grid, layout)
                grid = near if centres_its_chips(*chips_centred(frame, near, layout)) else None
            if grid is not None:
                if first and k == 0:
                    return grid
                found.append((twin_mean(frame, grid, layout), grid))
        if found:
            return max(found, key=lambda f: f[0])[1]
    return None


class GridRefused(BoardNotFound):
    """A grid the board does not confirm: ``corners`` where it was, ``check`` the measure
    (:class:`vision.pairs.GridCheck`: which pairs failed), for the check picture."""

    def __init__(self, message: str, corners: np.ndarray, check) -> None:
        super().__init__(message)
        self.corners = corners
        self.check = check
