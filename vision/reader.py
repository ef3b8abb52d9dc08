"""From one frame to a reading of the board: locate it, straighten it, read every space.

Example::

    reader = BoardReader(load_calibration(path), layout)
    reading = reader.read(frame)          # FrameReading
    print(reading.observation)            # the 10 x 10 grid of . B G R W ?

Without a calibration the board is located in every frame and compared with the layout's
printed pictures; with one, the calibrated corners are used and checked, and the board is
found again when it was bumped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from engine.layout import Layout
from engine.observation import Observation, SpaceState

from .calibration import Calibration
from .classify import (Reference, alike_chip_coloured, calibrated_keywords, classify,
                       classify_by_twins, classify_learned, features)
from .doubt import doubt
from .pairs import outside_frame
from .locate import (BoardNotFound, find_aruco, find_outline, layout_template, orient,
                     straighten)


@dataclass
class FrameReading:
    """One frame's reading. ``found`` False: no board in view (``problem`` says why)."""

    observation: Observation
    confidence: tuple[float, ...]
    occluded: tuple[bool, ...]
    found: bool
    corners: np.ndarray | None = None
    board: np.ndarray | None = None        # the straightened board, for motion checks
    problem: str = ""
    timings: dict = field(default_factory=dict)
    #: spaces read as a chip that a shadow or an arm's edge could make (confidence lowered
    #: below 0.5: vision/doubt.py); empty when not measured
    doubtful: tuple[bool, ...] = ()
    #: per space, the confidence a chip doubted only for touching a cover (not for looking
    #: like a shadow) had before that doubt; 0.0 elsewhere; empty when not measured
    beside_cover: tuple[float, ...] = ()

    @property
    def hand(self) -> bool:
        return any(self.occluded)


def drawn_reference(layout: Layout) -> Reference:
    """The empty board as the layout's own pictures show it (used without calibration)."""
    from .locate import CANON
    from .synth import MARGIN, board_image
    img = board_image(layout, None, CANON * 2)
    m = int(round(MARGIN * CANON * 2))
    import cv2
    grid = img[m:m + layout.rows * CANON * 2, m:m + layout.cols * CANON * 2]
    grid = cv2.resize(grid, (layout.cols * CANON, layout.rows * CANON), interpolation=cv2.INTER_AREA)
    return Reference.from_features(features(grid, layout.rows, layout.cols), camera=False)


#: how the learned classifier and the features are combined (vision.classify.classify_learned):
#: (the model's least probability to overrule the features' reading, the model's least
#: probability of the features' state for it to stand where the model is unsure), or None:
#: the features alone. The model overrules the features when 90 % sure. Without calibration
#: the first model lost to the twins' reading on held-out looks and was not used; the
#: second (trained wider, docs/vision.md) reads beside the twins: on the tuned development
#: set 0.9657 of spaces right against the twins' 0.9415, and 2 wrong against 246.
#: Calibrated (session three, chosen on tuned development sets, docs/vision.md): where the
#: features read unknown the model stands at 70 %; its white against the features needs
#: 97 %; where it is unsure between empty and white (25 % of the other) the features do
#: not settle it. The third to fifth figures are classify_learned's overrules_unknown,
#: white_overrules and empty_or_white. Without calibration each space is shown to the model
#: beside its empty twin (:func:`twin_inputs`), and the model overrules the twins' reading
#: from 70 % sure (chosen on a tuned development set, the true grid: 0.9952 right at 90 %,
#: 0.9972 at 70 %, 0.9975 at 60 %; confidently wrong 0.0010, 0.0012, 0.0014). Session 6
#: (docs/vision.md): most confident wrong readings left were an empty space read white in
#: dim light, the model against the twins or both unsure; without calibration the model's
#: white against the twins now needs 97 % and an unsure model between empty and white is
#: not settled by the twins (calibrated boards' figures), and the unsure spaces get the
#: second look (STEADY_BELOW) as calibrated boards do. On the tuned development sets wrong
#: fell from 57 to 17 spaces of 31 400 and spaces right rose by 13. Session 8: the sixth to
#: eighth figures (classify_learned's least_chip, least_white, lone_overrules): without
#: calibration a coloured chip needs the model 30 % sure and a white one 70 % whoever read
#: it (the twins took an empty space beside a twin holding a chip, or a red print, for a
#: chip, and the unsure model's 2 % let it stand), and a space the model reads alone (its
#: twin holds a chip: no empty picture beside it) needs 95 % for a coloured chip against
#: the twins (a red print alone looks like a red chip to it). On the tuned development sets
#: (docs/vision.md, "session 8") wrong fell from 90 to 51 spaces of 71 400, right by 14.
#: Session twelve: "board" is the rule on a calibrated board read by the board network
#: (vision.spacenet.BoardNet, which reads every space with its neighbours in view): its
#: state stands from 90 % sure whatever the features say, from 60 % where the features read
#: the same, and anything less is unknown (the features never settle a space the network
#: is unsure of). Chosen on the tuned development sets (docs/vision.md, "Session twelve").
COMBINE = {"calibrated": (0.9, 0.02, 0.7, 0.97, 0.25),
           "alone": (0.7, 0.02, None, 0.97, 0.25, 0.3, 0.7, 0.95),
           "board": (0.9, 1.01, 0.9, 0.0, 1.01)}

#: without calibration, the share of a space's middle blown out to white (glare) from which
#: a white or an empty reading the features do not share is unknown (the features' own
#: glare bar, vision.classify.classify)
GLARE_HIDES = 0.25

#: without calibration, where the twins look alike and both middles show one chip's colour
#: (vision.classify.alike_chip_coloured), an empty reading needs the model this sure of
#: empty; else the space is read again alone (no twin beside it: its twin may hold the same
#: chip) and a chip the model gives ALONE_AGAIN is read; else the twins' empty stands. Two
#: translucent chips of one colour look like two bare copies of the card, and the unsure
#: model let the twins' empty stand (session 10, five tuned development sets, 26,000
#: spaces: 7 spaces read again, all chips, 5 read right; the other 2 stay empty, wrong, as
#: before: an unknown there cost bare spaces of held-out art; docs/vision.md). 0: off
ALIKE_EMPTY = 0.7
ALONE_AGAIN = 0.95

#: the spaces the model is less sure of than this are read again in the other three quarter
#: turns, with the second model's opinion (vision.spacenet.second_opinion), calibrated or
#: not (without calibration since session 6); 0: never
STEADY_BELOW = 0.9
#: at most this many of them, the least sure first (a hand makes many unsure spaces; the
#: second batch stays within 96 inputs, about the first's size)
STEADY_MOST = 32

#: the veto (session seven, docs/vision.md): on a calibrated board, a space the rule reads
#: as a chip or white becomes unknown where the veto model (vision/models/spaces_veto.onnx,
#: trained apart from the shipped model: other seeds, stronger light changes, other input
#: channels) gives that state less than this. It can take a reading back, never make one.
#: Off by default (vision.spacenet.VETO_ON: on the held-out looks it cost more right
#: readings than allowed); ``SEQBOARD_SPACE_VETO=on`` asks the shipped file, ``=path``
#: another. 0: never.
VETO_BAR = 0.3
#: the veto is asked only about readings the shipped model gives less than this (its
#: probability of the state read, after the second look): on the development sets every
#: wrong reading it took back was under 0.99 (docs/vision.md, "Session seven"); 1.01: all
VETO_ASK_BELOW = 0.99

#: a space within this of its empty picture (mean grey levels over its small picture and its
#: rings, as vision.classify.classify measures) is not covered, whatever the model says:
#: the features' own test for "nothing covers it" (0.6 x EMPTY_BELOW)
SAME_AS_EMPTY = 0.6 * 9.0

#: most spaces within this of the layout's own pictures: the board is printed like ours
OUR_PRINTING = 12.0


def twin_reference(f, pairs, states, hand, extra_twins=()) -> tuple[np.ndarray, np.ndarray]:
    """(n, 8*8*3) reference patches and (n,) whether each space has one: its twin (the
    other space printed with the same card), turned the way the two copies match best,
    where the twins' reading calls that twin empty and nothing covers either. Each group
    of ``extra_twins`` (the free corners, printed alike) stands in for each other too."""
    from .classify import PATCH
    n = len(f.patch)
    ref = np.zeros((n, PATCH * PATCH * 3), np.float32)
    has = np.zeros(n, bool)
    cells = f.patch.reshape(n, PATCH, PATCH, 3).astype(np.float32)
    twins: dict[int, list[int]] = {}
    for a, b in pairs:
        twins.setdefault(a, []).append(b)
        twins.setdefault(b, []).append(a)
    for group in extra_twins:
        for i in group:
            twins.setdefault(i, []).extend(j for j in group if j != i)
    for i, others in twins.items():
        if hand[i]:
            continue
        for j in others:
            if states[j] is not SpaceState.EMPTY or hand[j]:
                continue
            turns = [np.rot90(cells[j], k) for k in range(4)]
            k = int(np.argmin([np.abs(cells[i] - t).mean() for t in turns]))
            ref[i] = turns[k].reshape(-1)
            has[i] = True
            break
    return ref, has


def twin_inputs(f, pairs, states, hand, extra_twins=()) -> np.ndarray:
    """The learned classifier's input without a calibration: each space beside its empty
    twin (:func:`twin_reference`), or beside nothing where it has none."""
    from .spacenet import space_inputs
    ref, has = twin_reference(f, pairs, states, hand, extra_twins)
    x = space_inputs(f.norm, ref)
    x[~has, 3:] = 0.0
    return x


class BoardReader:
    """Reads frames of one board. ``markers=True`` finds it by its ArUco corner markers."""

    def __init__(self, calibration: Calibration | None, layout: Layout, markers: bool = False,
                 model=True, veto=True, prototypes=None) -> None:
        """``model``: the learned space classifier (vision/spacenet.py): True for the shipped
        one (raises :class:`~vision.spacenet.ModelError` when its file is missing or
        broken), a :class:`~vision.spacenet.SpaceNet`, or False for the hand-written
        features alone. ``veto``: the veto model (:data:`VETO_BAR`): True for the shipped
        one or ``SEQBOARD_SPACE_VETO``'s (raises ModelError likewise), a
        :class:`~vision.spacenet.VetoNet`, or False for none; asked on calibrated boards.
        ``prototypes``: the pass of vision/prototypes.py (unsure spaces settled by the
        board's own confident chips) on calibrated boards: True, False, or None for
        ``SEQBOARD_SPACE_PROTOTYPES`` (on unless set to off; beside the board network it
        only doubts, vision.prototypes.BOARD_SETTLES)."""
        if model is True:
            from .spacenet import shared_model
            model = shared_model()
        self.model = model or None
        if veto is True:
            from .spacenet import shared_veto
            veto = shared_veto() if self.model is not None else None
        self.veto = veto or None
        if prototypes is None:
            from .prototypes import enabled
            prototypes = enabled()
        from .prototypes import Prototypes
        self._prototypes = Prototypes() if prototypes and self.model is not None else None
        self.layout = layout
        self.calibration = calibration
        self.markers = markers or (calibration is not None and calibration.method == "aruco")
        self.reference = calibration.reference if calibration else drawn_reference(layout)
        self.corners = calibration.corners.copy() if calibration else None
        self._template = None
        self._bad = 0
        from .pairs import twin_pairs
        self._pairs = twin_pairs(layout) if len(twin_pairs(layout)) >= 8 else []
        r, c = layout.rows - 1, layout.cols - 1
        corners = [0, c, r * layout.cols, r * layout.cols + c]
        self._corners = [i for i in corners if i in layout.free]

    def _template_img(self):
        if self._template is None:
            self._template = layout_template(self.layout)
        return self._template

    def locate(self, frame: np.ndarray, previous: np.ndarray | None = None) -> np.ndarray:
        if self.calibration is None and not self.markers and previous is None and self._pairs:
            # no calibration: the grid confirmed by the board's own twin spaces, whatever
            # its printing (raises BoardNotFound, or GridRefused, saying what is wrong)
            from .calibration import _confirmed_grid
            return _confirmed_grid(frame, self.layout, chips=True)
        loc = find_aruco(frame) if self.markers else find_outline(frame)
        if loc.method == "aruco":
            return loc.corners
        return orient(frame, loc.corners, self.layout, self._template_img(), previous)

    def read(self, frame: np.ndarray) -> FrameReading:
        lay = self.layout
        t0 = time.perf_counter()
        timings: dict = {}
        if self.corners is None:
            try:
                self.corners = self.locate(frame)
            except BoardNotFound as exc:
                return self._nothing(str(exc))
        timings["locate_ms"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        board = straighten(frame, self.corners, lay)
        f = features(board, lay.rows, lay.cols)
        ours = self.calibration is None and float(np.median(
            np.abs(f.patch - self.reference.patch).mean(axis=1))) < OUR_PRINTING
        if self.calibration is None and self._pairs and not ours:
            # no calibration, another printing than ours: each space against its twin
            states, conf, hand = classify_by_twins(board, lay.rows, lay.cols, self._pairs,
                                                   lay.free)
        else:
            # against the drawn pictures (no calibration) a space must differ more to be a chip
            states, conf, hand = classify(f, self.reference, lay.free,
                                          9.0 if self.calibration is not None else 20.0, lay.cols)
        board_net = getattr(self.model, "board", False)
        combine = COMBINE["alone" if self.calibration is None else
                          "board" if board_net else "calibrated"]
        if self.model is not None and combine is not None:
            # the learned classifier, each space beside its own empty picture when calibrated,
            # combined with the features' reading: anything doubtful is unknown
            from .spacenet import second_opinion, space_inputs
            t3 = time.perf_counter()
            if self.calibration is not None:
                inputs = space_inputs(f.norm, self.reference.patch)
            elif self._pairs and not ours:
                # a stranger's printing: each space beside its twin where the twins' reading
                # calls that twin empty (the twin is the same card, empty: the calibration's
                # picture of the space, taken from the same frame)
                inputs = twin_inputs(f, self._pairs, states, hand, (self._corners,))
            else:
                inputs = space_inputs(f.norm, None)
            probs = self.model.probabilities(inputs)
            # spaces read without an empty picture beside them (their twin holds a chip)
            lone = ~np.abs(inputs[:, 3:]).reshape(len(inputs), -1).any(axis=1) \
                if self.calibration is None and self._pairs and not ours else None
            disputed = None
            if STEADY_BELOW:
                # the second look at unsure spaces, with the second model's opinion
                probs, disputed = second_opinion(self.model, inputs, probs, STEADY_BELOW,
                                                 STEADY_MOST)
            alike = alike_chip_coloured(f.centre, self._pairs, states) \
                if lone is not None and ALIKE_EMPTY else None
            blown = f.paper.min(axis=1) >= 250
            if self.calibration is None:
                # without the empty board's picture to compare, a glare spot over the middle
                # of a space hides whether a white chip or the paper is under it
                blown = blown | (f.glare > GLARE_HIDES)
            states, conf, hand = classify_learned(probs, (states, conf, hand), lay.cols, *combine,
                                                  blown=blown,
                                                  disputed=disputed, lone=lone,
                                                  **(calibrated_keywords(board_net)
                                                     if self.calibration is not None else {}))
            if alike is not None:
                states, conf = self._alone_again(inputs, probs, alike, states, conf)
            from . import prototypes as _protos
            if self._prototypes is not None and (self.calibration is not None
                                                 or _protos.UNCALIBRATED):
                # the board's own chips as evidence (session eight, vision/prototypes.py);
                # without calibration a space with nothing beside it has no empty descriptor
                alone = None if self.calibration is not None else \
                    ~np.abs(inputs[:, 3:6]).reshape(len(inputs), -1).any(axis=1)
                states, conf = _protos.settle(probs, states, conf, hand, inputs, lay.cols,
                                              self._prototypes,
                                              blown=f.paper.min(axis=1) >= 250, lone=alone,
                                              near=_protos.NEAR if _protos.BOARD_SETTLES
                                              or not board_net else -1.0,
                                              far=_protos.FAR if alone is None
                                              else _protos.UNCAL_FAR)
            if self.veto is not None and VETO_BAR and self.calibration is not None:
                t4 = time.perf_counter()
                states, conf = self._vetoed(inputs, probs, states, conf, hand)
                timings["veto_ms"] = (time.perf_counter() - t4) * 1000
            timings["model_ms"] = (time.perf_counter() - t3) * 1000
            if self.calibration is not None:
                hand = self._uncovered(hand, f)
        # readings a shadow or an arm's edge can make: doubtful (the referee waits on them)
        plain = np.asarray(conf, np.float32)
        conf, doubted, beside = doubt(states, conf, hand, f,
                              None if self.calibration is None and self._pairs and not ours
                              else self.reference, lay.cols)
        if self.calibration is None:
            # a photo taken close: spaces out of the picture are unknown, never guessed
            out = outside_frame(self.corners, frame.shape, lay)
            if out.any():
                states = [SpaceState.UNKNOWN if o else s for s, o in zip(states, out)]
                conf = np.where(out, 0.0, conf)
        timings["classify_ms"] = (time.perf_counter() - t1) * 1000
        # Bumped? Most spaces no longer look like the board: look for it again.
        band_diff = np.abs(f.band_patch - self.reference.band_patch).mean(axis=1)
        if (self.calibration is not None or not self._pairs) and (band_diff > 40).mean() > 0.5:
            self._bad += 1
            if self._bad >= 2:
                self._bad = 0
                try:
                    t2 = time.perf_counter()
                    self.corners = self.locate(frame, previous=self.corners)
                    timings["locate_ms"] += (time.perf_counter() - t2) * 1000
                    return self.read(frame)
                except BoardNotFound as exc:
                    return self._nothing(str(exc))
            return self._nothing("the board moved or is covered", found=True)
        self._bad = 0
        obs = Observation(lay.rows, lay.cols, tuple(states), tuple(float(c) for c in conf))
        return FrameReading(obs, tuple(float(c) for c in conf), tuple(bool(h) for h in hand), True,
                            self.corners.copy(), board, timings=timings,
                            doubtful=tuple(bool(d) for d in doubted),
                            beside_cover=tuple(float(c) if b else 0.0
                                               for c, b in zip(plain, beside)))

    def _alone_again(self, inputs, probs, alike, states, conf):
        """Without calibration: the spaces read empty beside a twin that looks alike with a
        chip's colour in both middles (``alike``, :data:`ALIKE_EMPTY`), the model less than
        ALIKE_EMPTY sure of empty, read again alone, in all four turns with the second
        model's opinion: a chip it gives at least :data:`ALONE_AGAIN` is read (two chips of
        one colour look like two bare copies of the card); anything else leaves the twins'
        empty as it was: alone, the model reads a red or green print up to 90 % as a chip
        (an empty f2 and g5 of the vintage art, tests/vision/test_spacenet.py), so an
        unknown there would cost bare spaces."""
        from .spacenet import CLASSES, COVERED, second_opinion
        again = np.flatnonzero(alike & (probs[:, 0] < ALIKE_EMPTY)
                               & np.array([s is SpaceState.EMPTY for s in states]))
        if not len(again):
            return states, conf
        if getattr(self.model, "board", False):
            # the board network reads the whole board, those spaces without a twin beside them
            x = inputs.copy()
            x[again, 3:] = 0.0
            p, disputed = second_opinion(self.model, x, self.model.probabilities(x), 1.01)
            p, disputed = p[again], disputed[again]
        else:
            x = inputs[again].copy()
            x[:, 3:] = 0.0
            p, disputed = second_opinion(self.model, x, self.model.probabilities(x), 1.01,
                                         len(again))
        states, conf = list(states), conf.copy()
        for k, i in enumerate(again):
            b = int(p[k].argmax())
            chip = 0 < b < COVERED and p[k, b] >= ALONE_AGAIN and not disputed[k]
            if chip:          # else the twins' empty stands (the model alone reads a
                states[i], conf[i] = CLASSES[b], float(p[k, b])   # red print as a red chip)
        return states, conf

    def _vetoed(self, inputs, probs, states, conf, hand):
        """``states`` and ``conf`` with the chips and white the veto model denies (gives less
        than :data:`VETO_BAR`) unknown, confidence 0; it is asked about those the shipped
        model (``probs``) is less than :data:`VETO_ASK_BELOW` sure of."""
        from .spacenet import CLASSES, vetoed
        index = {c: i for i, c in enumerate(CLASSES)}
        cls = np.array([index[s] for s in states])
        sure = probs[np.arange(len(cls)), np.minimum(cls, len(CLASSES) - 1)]
        asked = (cls >= 1) & (cls <= 4) & ~np.asarray(hand, bool) & (sure < VETO_ASK_BELOW)
        denied = vetoed(self.veto, inputs, cls, VETO_BAR, asked)
        if not denied.any():
            return states, conf
        states = [SpaceState.UNKNOWN if d else s for s, d in zip(states, denied)]
        return states, np.where(denied, 0.0, conf)

    def _uncovered(self, hand: np.ndarray, f) -> np.ndarray:
        """``hand`` less the spaces that look as they did on the empty board (within
        :data:`SAME_AS_EMPTY` of it): nothing covers them. A glare spot or a picture that
        the learned classifier takes for a cover was there at calibration too; taken for a
        hand, it would hold every frame back (a frame with a hand is never judged). They
        stay unknown (the classifier made them so), and only a cover is no longer claimed."""
        hand = np.asarray(hand, bool)
        if not hand.any():
            return hand
        ref = self.reference
        i = np.flatnonzero(hand)
        diff = np.maximum(np.abs(f.patch[i] - ref.patch[i]).mean(axis=1),
                          np.abs(f.radial[i] - ref.radial[i]).mean(axis=2).max(axis=1))
        out = hand.copy()
        out[i[diff < SAME_AS_EMPTY]] = False
        return out

    def _nothing(self, problem: str, found: bool = False) -> FrameReading:
        lay = self.layout
        obs = Observation(lay.rows, lay.cols, (SpaceState.UNKNOWN,) * lay.size)
        return FrameReading(obs, (0.0,) * lay.size, (True,) * lay.size, found, self.corners,
                            None, problem)
