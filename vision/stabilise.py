"""Stabilising: a change counts only once the board has been still, and uncovered, for a
while. Spaces under a hand are unknown, never empty; a hand passing over the board never
produces a change.

The board is stable when its KNOWN spaces agree over the settle window. A space that
flickers between unknown and one state (a space at the lens edge, under glare) is reported
unknown, and does not keep the rest of the board from settling; the referee ignores it until
it reads steadily. A space that keeps flipping between two states (three flips or more
within ``problem_after`` seconds) is a problem at that space: it is reported unknown, named
in :attr:`Stabiliser.problems`, and the rest of the board settles without it.

Chips do not move by themselves: a hand brings or takes every one. A space whose reading
changed although no hand came over it, or next to it, since the last report (the board
was seen all along) is a misreading until it has lasted ``untouched_after`` seconds (a
shadow passing, a reflection): it is reported unknown meanwhile. A change no hand was seen
making is still accepted after that time, so the game is never held up by a hand the
reader missed.

A cover that does not move is no hand: a space read as covered in most frames for
``stuck_after`` seconds while the rest of the board is seen (glare on one space, a stain, a
printed picture the reader takes for skin) would otherwise hold every frame back, and the
referee would wait for the whole game. Once every covered space of a frame has been covered
in most frames of that time, the frame counts as one without a hand: those spaces are
reported unknown (readings beside them are doubtful already: vision/doubt.py), they are
named in :attr:`Stabiliser.problems`, and the rest of the board settles. A hand that
comes in covers new spaces and is waited for as before.

A speck is no hand: a patch of covered spaces (touching by a side or a corner) of at most
:data:`SPECK` spaces is too small for a hand or an arm. Glare the reader takes for a cover
on one space in this frame and another in the next does not hold the board back: the
speck's spaces are unknown in that frame, the rest settles at once. A chip beside a speck
or a fixed cover, doubted by the reader only for touching a "cover" that is none, takes
its confidence from the window's other frames (beside one in every frame: doubtful).
Beside a fixed cover too small for an arm or a hand (:data:`FIXED_AT_MOST` spaces), and
beside no other, a team's chip a hand brought is not doubted for touching it: it takes
the confidence it had before that doubt (``FrameReading.beside_cover``), so a chip put
next to glare is judged (session ten, doubt10; docs/recovery.md).

Each space's confidence in a stable observation is the least it had over the settle
window: a reading doubted in any frame of it (vision/doubt.py: a shadow, an arm's edge)
stays doubtful, and the referee waits on it (engine/evidence.py). When a space that was
doubtful in the last report has been read surely for the whole window, the observation
is reported again, so a chip first seen beside an arm is judged once it reads clearly.

Time is whatever the caller passes: the camera's clock, or a file's frame times (so a video
gives the same observations on any machine, at any speed).

Example::

    stab = Stabiliser(settle=0.6)
    for t, frame in frames:                  # t: seconds, from any clock (tests pass their own)
        obs = stab.update(reader.read(frame), t)
        if obs is not None:
            referee.observe(obs)
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from engine.evidence import DOUBT
from engine.observation import Observation, SpaceState

from .reader import FrameReading

_CODES = {s: k for k, s in enumerate(SpaceState)}
_STATES = list(SpaceState)
_UNKNOWN = _CODES[SpaceState.UNKNOWN]
#: a reading this confident is judged by the referee
SURE = DOUBT
#: a space covered in at least this share of the frames of the last ``stuck_after`` seconds
#: is a fixed cover (glare, a mark), not a hand
STUCK_SHARE = 0.75
#: a covered patch of at most this many spaces is no hand (a speck of glare, a mark)
SPECK = 2
#: the confidence of a chip beside a speck or a fixed cover in every frame of the window
#: (doubtful: the referee waits on it)
DOUBTFUL_BESIDE = 0.3
#: a fixed cover of at most this many spaces (touching by a side or a corner) is no arm or
#: hand resting on the board (they cover a larger patch): a chip beside it only is not
#: doubted for touching it (seed 3's glare covers 3 spaces)
FIXED_AT_MOST = 4
_TEAMS = {_CODES[SpaceState.BLUE], _CODES[SpaceState.GREEN], _CODES[SpaceState.RED]}


class Stabiliser:
    """Turns per-frame readings into stable observations.

    A reading is held back while the board is not found, while a hand covers any space,
    while the picture of the board still moves (``motion`` grey levels, mean over the board),
    and until the known spaces have agreed for ``settle`` seconds. A stable observation is
    reported once; it is reported again only after a known space changed (or after
    :meth:`forget`).
    """

    def __init__(self, settle: float = 0.6, motion: float = 4.0,
                 problem_after: float | None = None, flips: int = 3,
                 untouched_after: float | None = None, stuck_after: float | None = None) -> None:
        self.settle = settle
        #: a space covered in most frames of this long (STUCK_SHARE), the rest of the board
        #: seen, is a fixed cover (not a hand): reported unknown, the rest settles
        self.stuck_after = stuck_after if stuck_after is not None else max(3.0, 5 * settle)
        self._covers: deque[tuple[float, np.ndarray]] = deque()  # (t, covered) of recent frames
        self._stuck_problems: dict[int, str] = {}
        self._fixed: np.ndarray | None = None       # the fixed covers of the last frame
        self._flip_probs: dict[int, str] = {}
        self.motion = motion
        self.untouched_after = untouched_after if untouched_after is not None else max(3.0, 5 * settle)
        self._touched: np.ndarray | None = None     # a hand over or beside it since the report
        self._basis: np.ndarray | None = None       # each space's last reported known state
        self._untouched_since: dict[int, float] = {}
        self.problem_after = problem_after if problem_after is not None else max(2.0, 4 * settle)
        self.flips = flips
        self._window: deque[tuple[float, np.ndarray, np.ndarray]] = deque()
        self._reported_sure: np.ndarray | None = None   # spaces reported with confidence
        self._flip_times: dict[int, deque[float]] = {}
        self._seen: dict[int, set[int]] = {}        # the states a flickering space took
        self._last_known: np.ndarray | None = None
        self._reported: tuple | None = None
        self._last_board: np.ndarray | None = None
        self.problems: dict[int, str] = {}   # space -> what it flickers between
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

    def _reset(self, state: str) -> None:
        self.state = state
        self._window.clear()

    def _stuck(self, reading: FrameReading, t: float, names) -> np.ndarray | None:
        """The fixed covers: when every covered space of the reading has been covered in
        most frames (:data:`STUCK_SHARE`) of the last ``stuck_after`` seconds (a cover that
        does not move, not a hand), the (n,) mask of them; None when a space is covered that
        was not so (a hand: wait)."""
        n = len(reading.observation.states)
        self._fixed = None
        if not reading.found:
            self._covers.clear()
            self._stuck_problems = {}
            return None
        occ = np.asarray(reading.occluded, bool)
        self._covers.append((t, occ))
        while len(self._covers) >= 2 and self._covers[1][0] <= t - self.stuck_after:
            self._covers.popleft()
        if not occ.any():
            self._stuck_problems = {}
            return np.zeros(n, bool)
        specks = _specks(occ, reading.observation.rows, reading.observation.cols)
        if t - self._covers[0][0] < self.stuck_after:
            self._stuck_problems = {}
            return specks if not (occ & ~specks).any() else None
        share = np.mean([o for _, o in self._covers], axis=0)
        fixed = occ & (share >= STUCK_SHARE)
        self._stuck_problems = {
            int(i): f"{names(int(i))} has looked covered for {self.stuck_after:.0f} s and more: "
                    f"glare, a mark or something left on it? It is not judged meanwhile"
            for i in np.flatnonzero(fixed)}
        if (occ & ~fixed & ~specks).any():
            return None
        self._fixed = fixed
        return fixed | specks

    def _note_flips(self, codes: np.ndarray, t: float, names) -> None:
        """Count each space's changes between two known states; name the flickering ones."""
        known = codes != _UNKNOWN
        if self._last_known is None:
            self._last_known = np.where(known, codes, _UNKNOWN)
            return
        last = self._last_known
        flipped = known & (last != _UNKNOWN) & (codes != last)
        for i in np.flatnonzero(flipped):
            q = self._flip_times.setdefault(int(i), deque())
            q.append(t)
            self._seen.setdefault(int(i), set()).update((int(codes[i]), int(last[i])))
        self._last_known = np.where(known, codes, last)
        problems = {}
        for i, q in list(self._flip_times.items()):
            while q and t - q[0] > self.problem_after:
                q.popleft()
            if not q:
                del self._flip_times[i]
                self._seen.pop(i, None)
                continue
            if len(q) >= self.flips:
                what = " and ".join(_name(_STATES[k]) for k in sorted(self._seen.get(i, ())))
                problems[i] = f"{names(i)} keeps changing between {what}: check the light there"
        self._flip_probs = problems

    def update(self, reading: FrameReading, t: float, names=None) -> Observation | None:
        """The stable observation this reading completes, or None. ``names(i)``: a space's
        name for :attr:`problems` (default ``space i``)."""
        moving = self._moving(reading.board) if reading.found else True
        n = len(reading.observation.states)
        if self._touched is None:
            self._touched = np.zeros(n, bool)
        stuck = self._stuck(reading, t, names or (lambda i: f"space {i}"))
        hand = reading.found and reading.hand and stuck is None
        if not reading.found:
            self._touched[:] = True             # unseen: anything may have happened
        elif hand:
            rows, cols = reading.observation.rows, reading.observation.cols
            near = cv2.dilate(np.array(reading.occluded, np.uint8).reshape(rows, cols),
                              np.ones((3, 3), np.uint8)).ravel() > 0
            self._touched |= near
        if not reading.found or hand:
            self._reset("covered" if reading.found else "waiting")
            self.problems = {**self._flip_probs, **self._stuck_problems}
            return None
        if moving:
            self._reset("moving")
            return None
        obs = reading.observation
        codes = np.fromiter((_CODES[s] for s in obs.states), np.int8, len(obs.states))
        conf_now = np.asarray(reading.confidence, np.float32)
        if stuck is not None and stuck.any():
            # a fixed cover: unknown (the reader already doubts the spaces beside it)
            codes[stuck] = _UNKNOWN
            conf_now = np.where(stuck, 0.0, conf_now).astype(np.float32)
            # a chip beside them is doubted by the reader only for being beside a "cover"
            # that is none: this frame says nothing of it (NaN), the window's other frames
            # do (a space beside such a cover in every frame of the window stays doubtful)
            rows, cols = obs.rows, obs.cols
            beside = _around(stuck, rows, cols)
            doubted = np.asarray(reading.doubtful, bool) if reading.doubtful else \
                conf_now < SURE
            lifted = self._beside_fixed(reading, stuck, codes)
            conf_now = np.where(lifted, np.asarray(reading.beside_cover or conf_now, np.float32),
                                conf_now)
            conf_now = np.where(beside & ~stuck & doubted & ~lifted, np.nan,
                                conf_now).astype(np.float32)
        self._note_flips(codes, t, names or (lambda i: f"space {i}"))
        self.problems = {**self._flip_probs, **self._stuck_problems}
        self._window.append((t, codes, conf_now))
        # the window: the readings of the last `settle` seconds, and the one just before
        # them (which shows the board was already so when the window began)
        while len(self._window) >= 2 and self._window[1][0] <= t - self.settle:
            self._window.popleft()
        if t - self._window[0][0] < self.settle:
            self.state = "settling"
            return None
        arr = np.stack([c for _, c, _ in self._window])
        known = arr != _UNKNOWN
        hi = np.where(known, arr, -1).max(axis=0)
        lo = np.where(known, arr, 127).min(axis=0)
        conflict = known.any(axis=0) & (hi != lo)
        problem = np.zeros(len(codes), bool)
        if self.problems:
            problem[list(self.problems)] = True
        if (conflict & ~problem).any():
            self.state = "settling"
            return None
        steady = known.all(axis=0) & ~conflict & ~problem
        out = np.where(steady, arr[-1], _UNKNOWN)
        out = self._untouched_changes(out, t)
        key = tuple(_STATES[k] for k in out)
        self.state = "stable"
        # each space's confidence: the least it had over the window (a doubt in any frame
        # of it stands); a space read surely now that was doubtful when last reported is
        # reported again (the referee waited on it: engine/evidence.py)
        confs = np.stack([c for _, _, c in self._window])
        conf_w = np.where(np.isnan(confs), np.inf, confs).min(axis=0)
        conf_w = np.where(np.isinf(conf_w), DOUBTFUL_BESIDE, conf_w)
        sure = (out != _UNKNOWN) & (conf_w >= SURE)
        newly_sure = self._reported_sure is not None and bool((sure & ~self._reported_sure).any())
        if key == self._reported and not newly_sure:
            return None
        if self._reported is not None and self._basis is not None and not newly_sure \
                and not ((out != _UNKNOWN) & (out != self._basis)).any():
            return None                 # nothing read differs from what was reported
        self._reported = key
        self._reported_sure = sure
        known_now = out != _UNKNOWN
        self._basis = np.where(known_now, out, self._basis if self._basis is not None else _UNKNOWN)
        self._touched[:] = False
        steady = steady & known_now
        conf = tuple(float(c) if s else 0.0 for c, s in zip(conf_w, steady))
        return Observation(obs.rows, obs.cols, key, conf)


    def _beside_fixed(self, reading: FrameReading, stuck: np.ndarray,
                      codes: np.ndarray) -> np.ndarray:
        """(n,) the chips whose doubt for touching a cover is lifted: each touches only
        fixed covers of at most :data:`FIXED_AT_MOST` spaces (glare, a mark: no arm, no
        speck), is read as a team's chip, doubted for nothing else and sure otherwise
        (``FrameReading.beside_cover``), and was brought by a hand (one came over or next
        to it since the last report) or was reported so, surely, before. An arm's edge never
        gets here: a frame with a moving cover is waited out (no reading of it is used)."""
        n = len(codes)
        if self._fixed is None or not self._fixed.any() or not reading.beside_cover:
            return np.zeros(n, bool)
        rows, cols = reading.observation.rows, reading.observation.cols
        small_fixed = _specks(self._fixed, rows, cols, FIXED_AT_MOST)
        other = stuck & ~small_fixed           # specks and large fixed covers keep the doubt
        near_small = _around(small_fixed, rows, cols)
        near_other = _around(other, rows, cols)
        team = np.isin(codes, list(_TEAMS))
        plain = np.asarray(reading.beside_cover, np.float32) >= SURE
        before = np.zeros(n, bool)
        if self._basis is not None and self._reported_sure is not None:
            before = self._reported_sure & (self._basis == codes)
        return near_small & ~near_other & ~stuck & team & plain & \
            (self._touched | before)

    def _untouched_changes(self, out: np.ndarray, t: float) -> np.ndarray:
        """Spaces changed since the last report with no hand near them: unknown until the
        change has lasted ``untouched_after`` seconds."""
        if self._basis is None:
            return out
        # a hand that came and went leaving a space as it was: that visit is over
        self._touched &= ~((out == self._basis) & (out != _UNKNOWN))
        changed = (out != _UNKNOWN) & (self._basis != _UNKNOWN) & (out != self._basis) \
            & ~self._touched
        for i in list(self._untouched_since):
            if not changed[i]:
                del self._untouched_since[i]
        out = out.copy()
        for i in np.flatnonzero(changed):
            since = self._untouched_since.setdefault(int(i), t)
            if t - since < self.untouched_after:
                out[i] = _UNKNOWN
        return out


def _specks(occ: np.ndarray, rows: int, cols: int, at_most: int = SPECK) -> np.ndarray:
    """The covered spaces of ``occ`` in patches of at most ``at_most`` (:data:`SPECK`)
    spaces (side or corner touching): too small for a hand or an arm, which cover a patch
    of several spaces."""
    grid = occ.reshape(rows, cols).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(grid, connectivity=8)
    small = np.zeros(n, bool)
    small[1:] = stats[1:, cv2.CC_STAT_AREA] <= at_most
    return small[labels.ravel()] & occ


def _around(mask: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(n,) the spaces of ``mask`` and those touching one (side or corner)."""
    grid = np.asarray(mask, np.uint8).reshape(rows, cols)
    return cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel() > 0


def _name(state: SpaceState) -> str:
    return {".": "empty", "B": "blue", "G": "green", "R": "red", "W": "white",
            "?": "unknown"}[state.value]
