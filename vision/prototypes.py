"""The board's own chips as evidence (issue 19 item 3, session eight): a pass after
:func:`vision.classify.classify_learned` on calibrated boards.

In one frame the spaces read confidently tell what this board's blue, green, red and white
chips and its empty spaces look like, under this light and through this camera. Each
space is described by its centre in the light-normalised picture the model reads (the
paper at 230, :func:`vision.classify.features`; :func:`descriptors`): as a chip, by the
centre's mean colour and how uneven it is; as an empty space, by how it differs from its
own picture on the calibration's empty board. The confident readings of
each state give that state's prototype (the median) and its spread (the median distance of
its members). Then:

- an unsure space (read unknown, nothing covering it or beside it) is **settled** as a
  state only when that state is the model's likeliest, the space lies near its prototype
  and much nearer it than any other, and the model's second likeliest state has a
  prototype to be far from (settling on the model's second choice was tried: on the
  tuned development sets 14 right for 10 wrong, all between empty and white);
- a chip or white reading the model gives less than :data:`DOUBT_BELOW`, far from its own
  state's prototype and nearer another, is **doubted** (made unknown).

The prototypes can be kept over frames (:class:`Prototypes`, one per
:class:`~vision.reader.BoardReader`): a state with too few confident readings in a frame
(white chips are rare) uses the last frame's that had enough.

On by default (:data:`ON`; ``SEQBOARD_SPACE_PROTOTYPES=off`` turns it off): on the
held-out looks it raised spaces right from 0.995063 to 0.99573 and lowered confident wrong
readings from 0.000253 to 0.000185 of visible spaces (docs/vision.md, "Session eight").
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.observation import SpaceState

#: whether the pass runs when SEQBOARD_SPACE_PROTOTYPES is not set: yes (the one held-out
#: run of these bars: spaces right 0.995063 -> 0.99573, wrong rate 0.000253 -> 0.000185,
#: boards right 0.80 -> 0.8071; docs/vision.md "Session eight")
ON = True
#: whether the pass settles unsure spaces beside the board network (session twelve,
#: vision.spacenet.BoardNet, the reader's model): no, it only doubts chips unlike every
#: chip of their colour. On the tuned development sets, settling changed little for that
#: network and read more wrong (wrong readings 172 -> 176 and 4 -> 5 on two sets, doubting
#: alone the fewest on all five), and on a filmed held-out game it settled a blue chip
#: under a spot lamp's glare, which the network left unsure, as empty: a move missed for
#: the rest of the game (docs/vision.md, "Session twelve")
BOARD_SETTLES = False
#: whether the pass also runs on boards read WITHOUT calibration (session 8b): there a
#: space's reference channels hold its twin (bare) or nothing (``lone``), so a lone space
#: has no empty descriptor: it is neither an empty prototype's member nor compared with it
UNCALIBRATED = False
#: doubting without calibration (FAR there): never. On the tuned sets of session 8b the
#: calibrated bars doubted 14 readings without calibration, all of them right
UNCAL_FAR = 0.0
#: a reading is a prototype's member when the model gives its state at least this
MEMBER_SURE = 0.97
#: at least this many members make a prototype (empty spaces: EMPTY_MEMBERS)
MEMBERS = 3
EMPTY_MEMBERS = 6
#: the least spread of a prototype, in grey levels of the light-normalised space
SPREAD_FLOOR = 6.0
#: settling: the space within NEAR spreads of the state's prototype, and that distance at
#: most RATIO times its distance to any other prototype (in their own spreads)
NEAR = 3.0
RATIO = 0.5
#: ... and at least APART spreads from every other prototype
APART = 0.0
#: doubting: a confident chip reading more than FAR spreads from its state's prototype and
#: nearer another's (0: never)
FAR = 10.0
#: doubting asks only about readings the model gives less than this
DOUBT_BELOW = 0.99
#: the confidence given to a settled space (a reading the referee may judge on: >= 0.5)
SETTLED_CONF = 0.6

_STATES = (SpaceState.EMPTY, SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED,
           SpaceState.WHITE)


def enabled() -> bool:
    """``SEQBOARD_SPACE_PROTOTYPES``: on / off; unset: :data:`ON`. Any other value raises
    :class:`~vision.spacenet.ModelError` (one line: ``seqboard`` exits 2 with it)."""
    raw = os.environ.get("SEQBOARD_SPACE_PROTOTYPES", "")
    v = raw.strip().lower()
    if not v:
        return ON
    if v in ("on", "1", "yes", "true"):
        return True
    if v in ("off", "0", "no", "false"):
        return False
    from .spacenet import ModelError
    raise ModelError(f"SEQBOARD_SPACE_PROTOTYPES={raw!r}: expected on or off")


def descriptors(inputs: np.ndarray) -> np.ndarray:
    """(n, 5, 4): per space and state, what is compared with that state's prototype, in
    grey levels of the light-normalised space (paper 230). For empty: the centre's mean
    colour less its mean colour on the empty board (3), and how far the centre's pixels
    are, on average, from the empty board's (what a chip hides of the print). For each
    chip: the centre's mean colour itself (3) and how uneven the centre is (a chip is
    flat, print is not). The centre: the middle 8 x 8 of the 16 x 16 space.
    ``inputs``: the model's (n, 7, 16, 16), calibrated (each space beside its reference)."""
    x = np.asarray(inputs, np.float32)
    centre = (x[:, 0:3, 4:12, 4:12] + 1.0) * 127.5
    ref = (x[:, 3:6, 4:12, 4:12] + 1.0) * 127.5
    c = centre.mean(axis=(2, 3))
    r = ref.mean(axis=(2, 3))
    n = len(x)
    out = np.empty((n, 5, 4), np.float32)
    out[:, 1:, :3] = c[:, None, :]
    out[:, 1:, 3] = (centre.sum(axis=1) / 3.0).reshape(n, -1).std(axis=1)[:, None]
    out[:, 0, :3] = c - r
    out[:, 0, 3] = np.abs(centre - ref).mean(axis=(1, 2, 3))
    return out


@dataclass
class Prototypes:
    """The prototypes of the last frames: state index -> (centre, spread)."""

    kept: dict = field(default_factory=dict)

    def update(self, desc: np.ndarray, members: np.ndarray) -> dict:
        """This frame's prototypes (each state with enough members), the kept ones for the
        states without; the kept ones replaced by this frame's."""
        protos = dict(self.kept)
        for k in range(5):
            m = members[:, k]
            if m.sum() < (EMPTY_MEMBERS if k == 0 else MEMBERS):
                continue
            d = desc[m, k]
            centre = np.median(d, axis=0)
            spread = max(float(np.median(np.linalg.norm(d - centre, axis=1))), SPREAD_FLOOR)
            protos[k] = (centre, spread)
        self.kept = protos
        return protos


def settle(probs: np.ndarray, states: list, conf: np.ndarray, hand: np.ndarray,
           inputs: np.ndarray, cols: int, memory: Prototypes | None = None,
           blown: np.ndarray | None = None, near: float = NEAR, ratio: float = RATIO,
           far: float = FAR, doubt_below: float = DOUBT_BELOW, apart: float = APART,
           lone: np.ndarray | None = None) -> tuple[list, np.ndarray]:
    """``states`` and ``conf`` after the pass (module docstring). ``probs``: the model's
    (n, 6) after the second look; ``hand``: the spaces covered (classify_learned's);
    ``inputs``: the model's input (calibrated: each space beside its empty picture).
    ``lone``: the spaces with no empty picture beside them (read without calibration, the
    twin holding a chip): no empty descriptor, so they are left out of the empty state's
    prototype and never compared with it."""
    n = len(states)
    hand = np.asarray(hand, bool)
    beside = hand.copy()
    if hand.any() and cols:
        beside = cv2.dilate(hand.reshape(-1, cols).astype(np.uint8),
                            np.ones((3, 3), np.uint8)).ravel() > 0
    index = {s: k for k, s in enumerate(_STATES)}
    cls = np.array([index.get(s, -1) for s in states])
    p5 = probs[:, :5]
    members = np.zeros((n, 5), bool)
    ok = ~beside & (cls >= 0)
    members[np.flatnonzero(ok), cls[ok]] = p5[ok, cls[ok]] >= MEMBER_SURE
    lone = np.zeros(n, bool) if lone is None else np.asarray(lone, bool)
    members[lone, 0] = False
    desc = descriptors(inputs)
    protos = (memory or Prototypes()).update(desc, members)
    if not protos:
        return states, conf
    z = np.full((n, 5), np.nan, np.float32)
    for k, (centre, spread) in protos.items():
        z[:, k] = np.linalg.norm(desc[:, k] - centre, axis=1) / spread
    z[lone, 0] = np.nan
    states = list(states)
    conf = np.asarray(conf, np.float32).copy()
    zf = np.where(np.isnan(z), np.inf, z)
    # settling the unsure spaces
    unsure = (cls < 0) & ~beside & np.array([s is SpaceState.UNKNOWN for s in states])
    if blown is not None:
        unsure &= ~np.asarray(blown, bool)
    top2 = np.argsort(-p5, axis=1)[:, :2]
    for i in np.flatnonzero(unsure):
        k = int(np.argmin(zf[i]))
        if not np.isfinite(zf[i, k]) or k != top2[i, 0] or zf[i, k] > near:
            continue
        other = int(top2[i, 1])
        if np.isnan(z[i, other]):
            continue                  # the other likely state has no prototype to be far from
        rest = np.delete(zf[i], k)
        if zf[i, k] > ratio * rest.min() or rest.min() < apart:
            continue
        states[i] = _STATES[k]
        conf[i] = max(SETTLED_CONF, float(p5[i, k]))
    # doubting confident chips far from their own kind
    if far:
        chip = np.flatnonzero((cls >= 1) & ~hand)
        k = cls[chip]
        own = zf[chip, k]
        others = zf[chip].copy()
        others[np.arange(len(chip)), k] = np.inf
        doubted = chip[(p5[chip, k] < doubt_below) & np.isfinite(own) & (own > far)
                       & (others.min(axis=1) < own)]
        for i in doubted:
            states[i] = SpaceState.UNKNOWN
        conf[doubted] = np.minimum(conf[doubted], 0.5)
    return states, conf
