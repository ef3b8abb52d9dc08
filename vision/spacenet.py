"""The learned classifier of a space: a small CNN shipped as ``vision/models/spaces.onnx``,
run through OpenCV's ``cv2.dnn`` (no other dependency at read time).

Its input, per space, is what :func:`space_inputs` makes from a straightened board (the
light divided out by the board's own paper, :func:`vision.classify.features`):

- channels 0-2: the space itself, 16 x 16, light-normalised (paper ~ 230), scaled to -1..1;
- channels 3-5: the same space on the calibration's empty board (its 8 x 8 reference
  patch, each pixel repeated to 16 x 16), or zeros when there is no calibration;
- channel 6: 1 where that reference is given, 0 where not.

So one model reads a calibrated board (each space compared with itself empty: that holds
across card art) and a stranger's board (no reference). Its six outputs are the
probabilities of :data:`CLASSES`: empty, blue, green, red, white (a flipped chip), and
covered (a hand, an arm, a sleeve: the space cannot be read). Retrain with
``python -m vision.train_spaces --seed 1`` (docs/vision.md).

A second model of the same network can be asked for a second opinion on the spaces the
first is unsure of (:func:`second_opinion`; ``SEQBOARD_SPACE_SECOND=path``): tried in
session five with the 800-scene model (``python -m vision.train_spaces --seed 1 --scenes
800``), better on the tuned development sets, worse on the held-out looks, so not shipped
and off by default (docs/vision.md, "Session five").

The veto (session seven, :class:`VetoNet`, ``vision/models/spaces_veto.onnx``): a second
model trained apart (other seeds, stronger light changes, other input channels:
:func:`veto_inputs`) asked about the spaces a calibrated board's rule reads as a chip or
white, where the shipped model is less than ``vision.reader.VETO_ASK_BELOW`` sure; a
reading it gives less than ``vision.reader.VETO_BAR`` becomes unknown (:func:`vetoed`).
Off by default (:data:`VETO_ON`): on the held-out looks it took back too many right
readings; ``SEQBOARD_SPACE_VETO=on`` turns it on, ``=path`` asks another file. It can
take a reading back, never make one.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from engine.observation import SpaceState

from .locate import CANON

SIDE = 16                  # the model's input side (pixels per space)
CHANNELS = 7
CLASSES = (SpaceState.EMPTY, SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED,
           SpaceState.WHITE, SpaceState.UNKNOWN)
COVERED = 5                # index of "covered" in CLASSES
MODEL_PATH = Path(__file__).with_name("models") / "spaces.onnx"
#: the board network (session twelve, :class:`BoardNet`): every space read in one pass over
#: the whole board, each with its neighbours in view; the reader's model since session
#: twelve. BOARD_PATHS: the shipped files, read in turn by the second look (one network:
#: a second one trained apart did not earn its place, docs/vision.md "Session twelve")
BOARD_PATH = Path(__file__).with_name("models") / "board.onnx"
BOARD_PATHS = (BOARD_PATH,)


class ModelError(Exception):
    """The shipped model file is missing or cannot be read (the message is one line)."""


def space_inputs(norm: np.ndarray, ref_patch: np.ndarray | None) -> np.ndarray:
    """(n, CHANNELS, SIDE, SIDE) float32 network input from the light-normalised pixels of
    every space (``SpaceFeatures.norm``, (n, CANON*CANON, 3)) and the calibration's
    reference patches (``Reference.patch``, (n, 8*8*3)) or None."""
    n = len(norm)
    # each space averaged to SIDE x SIDE: OpenCV's area resize gives numpy's mean of each
    # k x k block (the same numbers) in a twentieth of the time
    x = cv2.resize(np.ascontiguousarray(norm).reshape(n * CANON, CANON, 3), (SIDE, n * SIDE),
                   interpolation=cv2.INTER_AREA).reshape(n, SIDE, SIDE, 3)
    out = np.zeros((n, CHANNELS, SIDE, SIDE), np.float32)
    out[:, 0:3] = x.transpose(0, 3, 1, 2) / 127.5 - 1.0
    if ref_patch is not None:
        p = np.asarray(ref_patch, np.float32).reshape(n, 8, 8, 3)
        r = SIDE // 8
        p = p.repeat(r, axis=1).repeat(r, axis=2)
        out[:, 3:6] = p.transpose(0, 3, 1, 2) / 127.5 - 1.0
        out[:, 6] = 1.0
    return out


def _trial_run(model, path, what: str, channels: int) -> None:
    """One trial run of a model just loaded (a page of the reader's own input, all zeros): a
    file that loads but is not this network fails here, in one line, not mid-game."""
    from .onnx_net import input_shape
    declared = input_shape(path)
    try:
        out = model.probabilities(np.zeros((1, CHANNELS, SIDE, SIDE), np.float32))
    except cv2.error:
        out = None
    if (declared is not None and len(declared) > 1 and declared[1] not in (None, channels)) \
            or out is None or out.shape != (1, len(CLASSES)):
        raise ModelError(f"{path}: not a {what} model (expected {channels} x "
                         f"{SIDE} x {SIDE} in, {len(CLASSES)} classes out)")


class SpaceNet:
    """The shipped model, loaded once: ``probabilities(inputs)`` -> (n, 6). ``second``:
    another :class:`SpaceNet` whose opinion :func:`steadied` asks on unsure spaces."""

    def __init__(self, path: str | Path = MODEL_PATH, second: "SpaceNet | None" = None) -> None:
        from .onnx_net import load_net
        path = Path(path)
        self.net = load_net(path, "space classifier", "python -m vision.train_spaces", ModelError)
        self.path = path
        self.second = second
        _trial_run(self, path, "space classifier", CHANNELS)

    def probabilities(self, inputs: np.ndarray) -> np.ndarray:
        self.net.setInput(np.ascontiguousarray(inputs, np.float32))
        logits = self.net.forward().reshape(len(inputs), -1)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


class BoardNet:
    """The board network, loaded once: the same ``probabilities(inputs)`` -> (n, 6) as
    :class:`SpaceNet`, from the same per-space inputs (:func:`space_inputs`), but the
    spaces of a whole board are put back together and read in one pass, each with its
    neighbours in view (an arm reaching in from the edge, a shadow over several spaces).
    ``path`` may name several files (a list): the networks are read in turn by the second
    look (:func:`second_opinion`), each on the board turned another quarter.
    ``shape``: the board's (rows, columns); None for a square board."""

    board = True

    def __init__(self, path: "str | Path | list" = BOARD_PATH,
                 shape: tuple[int, int] | None = None) -> None:
        from .onnx_net import has_two_engines, load_net
        paths = [Path(p) for p in path] if isinstance(path, (list, tuple)) else [Path(path)]
        retrain = "python -m vision.train_boards --seed 1"
        self.path = paths[0]
        self.paths = paths
        self.shape = shape
        self.second = None
        nets = []
        for p in paths:
            try:
                self.nets = [load_net(p, "board network", retrain, ModelError)]
                _trial_run(self, p, "board network", CHANNELS)
            except ModelError:
                if not has_two_engines():
                    raise
                # OpenCV 5.0's classic engine cannot read the whole-board layer: its new one
                self.nets = [load_net(p, "board network", retrain, ModelError, classic=False)]
                _trial_run(self, p, "board network", CHANNELS)
            nets.append(self.nets[0])
        self.nets = nets
        self.net = nets[0]

    def _shape(self, n: int) -> tuple[int, int]:
        if self.shape and self.shape[0] * self.shape[1] == n:
            return self.shape
        r = int(round(n ** 0.5))
        if r * r == n:
            return r, r
        return 1, n          # a row of spaces: read alone (no neighbours above or below)

    def board_of(self, inputs: np.ndarray) -> np.ndarray:
        """The per-space inputs (n, 7, 16, 16) put back together: (1, 7, rows*16, cols*16)."""
        x = np.asarray(inputs, np.float32)
        rows, cols = self._shape(len(x))
        return x.reshape(rows, cols, CHANNELS, SIDE, SIDE).transpose(2, 0, 3, 1, 4) \
            .reshape(1, CHANNELS, rows * SIDE, cols * SIDE)

    def log_probabilities(self, board: np.ndarray, k: int = 0) -> np.ndarray:
        """Pass ``k`` over one board (1, 7, H, W): the network ``k`` mod their number reads
        the board turned ``k`` quarters, mirrored left to right for ``k`` 4 to 7 (training
        turned and mirrored every board); (rows*cols, 6) log-probabilities in the board's
        own order."""
        net = self.nets[k % len(self.nets)]
        turn, mirror = k % 4, (k // 4) % 2
        seen = board[..., ::-1] if mirror else board
        net.setInput(np.ascontiguousarray(np.rot90(seen, turn, axes=(2, 3)) if turn else seen,
                                          np.float32))
        logits = net.forward()[0]
        if turn:
            logits = np.rot90(logits, -turn, axes=(1, 2))
        if mirror:
            logits = logits[..., ::-1]
        lp = logits.reshape(len(CLASSES), -1).T
        lp = lp - lp.max(axis=1, keepdims=True)
        return lp - np.log(np.exp(lp).sum(axis=1, keepdims=True))

    def probabilities(self, inputs: np.ndarray, passes: int = 1) -> np.ndarray:
        """``passes`` > 1: the board read again turned (and by the other networks), the
        probabilities the geometric mean of the readings."""
        board = self.board_of(inputs)
        total = sum(self.log_probabilities(board, k) for k in range(max(1, passes)))
        return _normal(total / max(1, passes))


def steadied(model: "SpaceNet", inputs: np.ndarray, probs: np.ndarray,
             below: float, most: int = 100_000) -> np.ndarray:
    """``probs`` with the spaces the model is less than ``below`` sure of (the ``most`` least
    sure of them) read again turned a quarter, a half and three quarters round (cards are
    printed any way round; the model was trained on all four turns): their probabilities
    are the geometric mean of the four readings. One reading's chance slips are not all
    four's; costs a second, small batch (three inputs a space). Where ``model.second`` is
    set, its opinion is asked too (:func:`second_opinion`)."""
    return second_opinion(model, inputs, probs, below, most)[0]


def second_opinion(model: "SpaceNet", inputs: np.ndarray, probs: np.ndarray, below: float,
                   most: int = 100_000, agree: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """:func:`steadied`'s probabilities, and which spaces the two models dispute. Where
    ``model.second`` is set, it reads the unsure spaces in all four turns too, and their
    probabilities are the geometric mean of the eight readings: a second model, trained
    apart, slips on other spaces than the first. A space is disputed where either model,
    on its own four readings, gives the state the eight make most likely less than
    ``agree``: the reader leaves it unknown, whatever the features say. Without a second
    model nothing is disputed."""
    disputed = np.zeros(len(probs), bool)
    if getattr(model, "board", False):
        # the board network reads the whole board again, mirrored, when any space is unsure
        if (probs.max(axis=1) < below).any() and len(BOARD_VIEWS) > 1:
            return _combined_turns(model, inputs, probs), disputed
        return probs, disputed
    sure = probs.max(axis=1)
    unsure = np.flatnonzero(sure < below)
    if not len(unsure):
        return probs, disputed
    if len(unsure) > most:
        unsure = unsure[np.argsort(sure[unsure], kind="stable")[:most]]
    x = inputs[unsure]
    views = np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in (1, 2, 3)])
    p = model.probabilities(np.ascontiguousarray(views)).reshape(3, len(unsure), -1)
    first = np.log(probs[unsure] + 1e-7) + np.log(p + 1e-7).sum(axis=0)
    second = getattr(model, "second", None)
    if second is None:
        return _replaced(probs, unsure, first / 4.0), disputed
    q = second.probabilities(np.concatenate([x, views])).reshape(4, len(unsure), -1)
    other = np.log(q + 1e-7).sum(axis=0)
    out = _replaced(probs, unsure, (first + other) / 8.0)
    best = out[unsure].argmax(axis=1)[:, None]
    alone = [np.take_along_axis(_normal(logp / 4.0), best, axis=1)[:, 0] for logp in (first, other)]
    disputed[unsure] = (alone[0] < agree) | (alone[1] < agree)
    return out, disputed


#: the board network's second look: when a space is unsure, the whole board read again in
#: these views (the first, 0, is the reading as it lies): view k is the board turned k
#: quarters, mirrored left to right for k 4 to 7 (BoardNet.log_probabilities), and the
#: next network where several are given
BOARD_VIEWS = (0, 4)


def _combined_turns(model, inputs, probs):
    """``probs`` (the board read as it lies) with the board read again in the other views
    (:data:`BOARD_VIEWS`): the geometric mean of the readings."""
    board = model.board_of(inputs)
    total = np.log(probs + 1e-7)
    for k in BOARD_VIEWS[1:]:
        total = total + model.log_probabilities(board, k)
    return _normal(total / len(BOARD_VIEWS))


def _normal(logp: np.ndarray) -> np.ndarray:
    q = np.exp(logp - logp.max(axis=1, keepdims=True))
    return q / q.sum(axis=1, keepdims=True)


def _replaced(probs: np.ndarray, rows: np.ndarray, logp: np.ndarray) -> np.ndarray:
    out = probs.copy()
    out[rows] = _normal(logp)
    return out


#: the veto model (session seven, docs/vision.md): trained apart from the shipped one
VETO_PATH = Path(__file__).with_name("models") / "spaces_veto.onnx"
VETO_CHANNELS = 10


def veto_inputs(inputs: np.ndarray) -> np.ndarray:
    """The veto model's input from :func:`space_inputs`' (n, 7, 16, 16): other channels than
    the shipped model sees, so that it slips elsewhere: the space's light-normalised colour
    (3), its chromaticity (each channel over the three's mean, minus 1: the colour without
    its brightness, 3), its difference from the empty board's reference (3, zeros without
    one) and whether that reference is given (1)."""
    x = np.asarray(inputs, np.float32)
    rgb = x[:, 0:3]
    lum = (rgb + 1.0).mean(axis=1, keepdims=True)
    chroma = (rgb + 1.0) / np.maximum(lum, 0.05) - 1.0
    diff = (rgb - x[:, 3:6]) * x[:, 6:7]
    return np.ascontiguousarray(np.concatenate([rgb, chroma, diff, x[:, 6:7]], axis=1))


class VetoNet:
    """The veto model, loaded once: ``probabilities(inputs)`` -> (n, 6) from
    :func:`space_inputs`' inputs (it makes its own channels, :func:`veto_inputs`)."""

    def __init__(self, path: str | Path = VETO_PATH) -> None:
        from .onnx_net import load_net
        path = Path(path)
        self.net = load_net(path, "space veto", "python -m vision.train_spaces --net veto "
                            "--seed 7 --scenes 300 --epochs 4 --light strong --out "
                            "vision/models/spaces_veto.onnx", ModelError)
        self.path = path
        _trial_run(self, path, "space veto", VETO_CHANNELS)

    def probabilities(self, inputs: np.ndarray) -> np.ndarray:
        if not len(inputs):
            return np.zeros((0, len(CLASSES)), np.float32)
        self.net.setInput(veto_inputs(inputs))
        logits = self.net.forward().reshape(len(inputs), -1)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def vetoed(veto: "VetoNet", inputs: np.ndarray, states: np.ndarray, bar: float,
           asked: np.ndarray) -> np.ndarray:
    """Which spaces the veto model denies: of the spaces ``asked`` (a mask), those whose read
    state (``states``: indices into :data:`CLASSES`) it gives less than ``bar``. The reader
    makes them unknown: a veto can take a reading back, never make one."""
    out = np.zeros(len(states), bool)
    idx = np.flatnonzero(asked)
    if not len(idx):
        return out
    p = veto.probabilities(inputs[idx])
    out[idx] = p[np.arange(len(idx)), np.asarray(states)[idx]] < bar
    return out


_shared: dict = {}
_veto: dict = {}


def shared_veto() -> "VetoNet | None":
    """The veto model, loaded on first use (raises :class:`ModelError`), or None. Off by
    default (:data:`VETO_ON`: it did not pass the held-out runs, docs/vision.md "Session
    seven"); ``SEQBOARD_SPACE_VETO=on`` asks the shipped file (:data:`VETO_PATH`),
    ``=path`` another file, ``=off`` none."""
    name = os.environ.get("SEQBOARD_SPACE_VETO", "").strip()
    if name.lower() in ("off", "0", "none", "no"):
        return None
    if not name and not VETO_ON:
        return None
    path = VETO_PATH if name.lower() in ("", "on", "1", "yes") else Path(name)
    if path not in _veto:
        _veto[path] = VetoNet(path)
    return _veto[path]


#: whether the shipped veto is asked when SEQBOARD_SPACE_VETO is not set: no. On the
#: held-out looks it took back 2 of 15 wrong readings (wrong rate 0.000253 -> 0.000219) but
#: turned about 60 right readings unknown (spaces right 0.995063 -> 0.994079, more than the
#: 0.0005 allowed): docs/vision.md, "Session seven"
VETO_ON = False


def load_model(path: str | Path, second: "SpaceNet | None" = None) -> "SpaceNet | BoardNet":
    """The space model in ``path``: a :class:`BoardNet` when the file reads a whole board
    (its output keeps the board's rows and columns), else a :class:`SpaceNet` (raises
    :class:`ModelError`)."""
    import cv2

    from .onnx_net import load_net
    if isinstance(path, str) and "," in path:
        return BoardNet([p.strip() for p in path.split(",") if p.strip()])
    from .onnx_net import input_shape
    declared = input_shape(path)
    if declared is not None and len(declared) == 4 and declared[2:] == (None, None):
        return BoardNet(path)            # any size of board in: a board network
    net = load_net(Path(path), "space classifier", "python -m vision.train_boards --seed 1",
                   ModelError)
    try:
        net.setInput(np.zeros((1, CHANNELS, 2 * SIDE, 2 * SIDE), np.float32))
        dims = net.forward().shape
    except cv2.error:
        dims = ()
    if len(dims) == 4 and dims[2:] == (2, 2):
        return BoardNet(path)
    return SpaceNet(path, second)


def shared_model() -> "SpaceNet | BoardNet":
    """The shipped board network (:data:`BOARD_PATHS`), or the file(s) named by
    ``SEQBOARD_SPACE_MODEL`` (comma-separated board networks, or the one-space classifier
    ``vision/models/spaces.onnx``, with the second opinion of the file named by
    ``SEQBOARD_SPACE_SECOND`` if set), loaded on first use (raises :class:`ModelError`)."""
    name = os.environ.get("SEQBOARD_SPACE_MODEL") or ""
    path = name if "," in name else Path(name) if name else ",".join(map(str, BOARD_PATHS))
    second = os.environ.get("SEQBOARD_SPACE_SECOND") or None
    second = Path(second) if second else None
    if (path, second) not in _shared:
        _shared[path, second] = load_model(path, SpaceNet(second) if second else None)
    return _shared[path, second]
