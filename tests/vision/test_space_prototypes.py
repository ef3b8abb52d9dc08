"""The board's own chips as evidence (session eight, vision/prototypes.py, docs/vision.md):
on a calibrated board, an unsure space is settled by its likeness to the spaces read
confidently in the same frame, and a chip reading unlike every chip of its colour on the
board is doubted. On by default (it passed the held-out run); ``SEQBOARD_SPACE_PROTOTYPES=off``
turns it off."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from tools.spaces_dev import shifted
from vision import prototypes
from vision.calibration import calibrate
from vision.looks import look_conditions, parse_look
from vision.reader import BoardReader
from vision.spacenet import CLASSES, MODEL_PATH, SpaceNet
from vision.synth import random_board, render

from tests.vision.test_second_opinion import assert_read_refuses_in_one_line

LAYOUT = builtin_layout("classic")
U = SpaceState.UNKNOWN
CHIPS = (SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED, SpaceState.WHITE)


def _scene(seed: int, change=None):
    look = parse_look("", seed=seed)
    cond = look_conditions(look)
    empty = render(LAYOUT, Observation.empty(10, 10), cond, seed=seed, jitter=0, look=look)
    board = random_board(LAYOUT, np.random.default_rng([seed, 1]), fill=0.5)
    r = render(LAYOUT, board, cond, seed=100 + seed, look=look)
    if change is None:
        return calibrate([empty.image], LAYOUT), board, r.image
    return calibrate([change(empty.image)], LAYOUT), board, change(r.image)


def _readers(cal):
    # the pass was built on the one-space classifier (vision/models/spaces.onnx), whose
    # doubts it settles; the board network read by default since session twelve is asked
    # apart (the reader of the player's board, ``_shipped``)
    one = SpaceNet(MODEL_PATH)
    return (BoardReader(cal, LAYOUT, model=one, veto=False, prototypes=False),
            BoardReader(cal, LAYOUT, model=one, veto=False, prototypes=True))


def _shipped(cal):
    return BoardReader(cal, LAYOUT)


def _blur_and_jpeg(img):
    # a soft lens and a camera that compresses hard: nothing the renderer draws itself
    # (session nine's model, trained through blur and JPEG, reads every white chip of a
    # σ 2.2 px, quality 20 frame sure: the lens is softer and the JPEG harder here)
    one = np.ones(3, np.float32)
    return shifted(img, dict(gamma=1.0, cast=one, hue=0.0, sat=1.0, blur=3.0, jpeg=12,
                             vignette=1.0))


def test_an_unsure_white_chip_among_confident_white_chips_is_read_white():
    cal, board, img = _scene(5, _blur_and_jpeg)
    plain, with_protos = _readers(cal)
    before = plain.read(img).observation.states
    after = with_protos.read(img).observation.states
    whites = [i for i, s in enumerate(board.states) if s is SpaceState.WHITE]
    sure = [i for i in whites if before[i] is SpaceState.WHITE]
    unsure = [i for i in whites if before[i] is U]
    # the blur and the compression leave some white chips unsure; others of the same board
    # are read confidently, and they tell what a white chip looks like here
    assert len(sure) >= 3 and len(unsure) >= 1
    for i in unsure:
        assert after[i] is SpaceState.WHITE
    # nothing else changes, and nothing is read wrong
    for i, (a, b) in enumerate(zip(before, after)):
        if i not in unsure:
            assert a is b
        assert b in (board.states[i], U)
    # the shipped reader (the board network) reads every white chip, nothing wrong
    shipped = _shipped(cal).read(img).observation.states
    assert all(shipped[i] is SpaceState.WHITE for i in whites)
    assert all(b in (board.states[i], U) for i, b in enumerate(shipped))


def _stained(img, cal, spaces, bgr):
    """``img`` with a round stain of colour ``bgr`` on each of ``spaces`` (a coffee ring, a
    sticker: something on an empty space that is not a chip)."""
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [10, 0], [10, 10], [0, 10]]),
                                    np.float32(cal.corners))
    out = img.copy()
    for i in spaces:
        r, c = divmod(i, 10)
        p = cv2.perspectiveTransform(np.float64([[[c + 0.5, r + 0.5], [c + 0.8, r + 0.5]]]),
                                     H)[0]
        rad = float(np.linalg.norm(p[1] - p[0]))
        cv2.circle(out, (int(p[0][0]), int(p[0][1])), int(rad * 0.9), bgr, -1, cv2.LINE_AA)
    return out


@pytest.mark.parametrize("seed,bgr", [(4, (180, 150, 250)), (3, (128, 128, 128))])
def test_an_empty_space_unlike_every_chip_is_not_read_as_a_chip(seed, bgr):
    # a pink (or grey) stain on empty spaces: the model alone takes it for a red (or blue)
    # chip, but it looks like none of this board's red (blue) chips, which are many
    cal, board, img = _scene(seed)
    bare = [i for i, s in enumerate(board.states)
            if s is SpaceState.EMPTY and i not in LAYOUT.free][:2]
    img = _stained(img, cal, bare, bgr)
    plain, with_protos = _readers(cal)
    before = plain.read(img).observation.states
    after = with_protos.read(img).observation.states
    assert all(before[i] in CHIPS for i in bare)          # without the pass: a phantom chip
    assert all(after[i] not in CHIPS for i in bare)       # with it: not a chip
    # the real chips of the board still read as they are
    chips = [i for i, s in enumerate(board.states) if s in CHIPS]
    assert sum(after[i] is board.states[i] for i in chips) >= len(chips) - 1
    # the shipped reader (the board network) takes no stain for a chip either
    shipped = _shipped(cal).read(img).observation.states
    assert all(shipped[i] not in CHIPS for i in bare)
    assert sum(shipped[i] is board.states[i] for i in chips) >= len(chips) - 1


def _frame(n=40, seed=0):
    """Model inputs and probabilities of a made-up calibrated frame: blue chips of one
    colour, the rest empty spaces like their reference; every reading sure."""
    rng = np.random.default_rng(seed)
    x = np.zeros((n, 7, 16, 16), np.float32)
    paper = rng.uniform(150, 230, (n, 3, 1, 1)).astype(np.float32)
    x[:, 0:3] = paper / 127.5 - 1 + rng.normal(0, 0.01, (n, 3, 16, 16))
    x[:, 3:6] = paper / 127.5 - 1
    x[:, 6] = 1
    blue = np.arange(0, n, 4)
    x[blue, 0:3, 3:13, 3:13] = (np.float32([40, 60, 160]).reshape(3, 1, 1) / 127.5 - 1
                                + rng.normal(0, 0.02, (len(blue), 3, 10, 10)))
    probs = np.full((n, 6), 0.001, np.float32)
    probs[:, 0] = 0.995
    probs[blue, 0], probs[blue, 1] = 0.001, 0.995
    states = [SpaceState.BLUE if i in blue else SpaceState.EMPTY for i in range(n)]
    return x, probs, states, blue


def test_only_the_models_likeliest_state_is_settled_and_never_beside_a_hand():
    x, probs, states, blue = _frame()
    green = CLASSES.index(SpaceState.GREEN)
    # another blue chip the model is unsure of: 60 % blue, 35 % green -> settled blue
    i = int(blue[3])
    probs[i, :] = 0.01
    probs[i, 1], probs[i, green] = 0.6, 0.35
    states[i] = U
    hand = np.zeros(len(states), bool)
    got, conf = prototypes.settle(probs, states, np.ones(len(states)), hand, x, 10)
    # green has no prototype on this board (no green chip read): it cannot be ruled out
    assert got[i] is U
    # with green chips read too (a prototype far from blue), the unsure space is blue
    x2, p2 = x.copy(), probs.copy()
    for j in (1, 2, 3):
        x2[j, 0:3, 3:13, 3:13] = np.float32([40, 160, 60]).reshape(3, 1, 1) / 127.5 - 1
        p2[j, :] = 0.001
        p2[j, green] = 0.995
    s2 = list(states)
    for j in (1, 2, 3):
        s2[j] = SpaceState.GREEN
    got, conf = prototypes.settle(p2, s2, np.ones(len(s2)), hand, x2, 10)
    assert got[i] is SpaceState.BLUE and conf[i] >= 0.5
    # as the board network's reader runs it (doubting only): left unknown
    assert prototypes.settle(p2, s2, np.ones(len(s2)), hand, x2, 10, near=-1.0)[0][i] is U
    # the model's second choice is never what the pass settles on
    p3 = p2.copy()
    p3[i, 1], p3[i, green] = 0.35, 0.6
    assert prototypes.settle(p3, s2, np.ones(len(s2)), hand, x2, 10)[0][i] is U
    # beside a hand (its neighbour covered), an unsure space stays unknown
    hand[i + 1] = True
    assert prototypes.settle(p2, s2, np.ones(len(s2)), hand, x2, 10)[0][i] is U


def test_on_by_default_never_without_a_calibration_and_a_bad_setting_is_one_line(
        monkeypatch, tmp_path):
    monkeypatch.delenv("SEQBOARD_SPACE_PROTOTYPES", raising=False)
    assert prototypes.ON is True and prototypes.enabled()
    cal, _, img = _scene(4)
    assert BoardReader(cal, LAYOUT, veto=False)._prototypes is not None
    # beside the board network (the reader's model since session twelve) the pass only
    # doubts: settling took a chip under glare for empty in a filmed game
    assert prototypes.BOARD_SETTLES is False
    monkeypatch.setenv("SEQBOARD_SPACE_PROTOTYPES", "off")
    assert BoardReader(cal, LAYOUT, veto=False)._prototypes is None
    monkeypatch.setenv("SEQBOARD_SPACE_PROTOTYPES", "on")
    assert BoardReader(cal, LAYOUT, veto=False)._prototypes is not None
    # without a calibration there is no empty board to compare with: the pass is not run
    uncal_on = BoardReader(None, LAYOUT, veto=False).read(img).observation.states
    uncal_off = BoardReader(None, LAYOUT, veto=False, prototypes=False).read(img)
    assert uncal_on == uncal_off.observation.states
    assert_read_refuses_in_one_line(tmp_path, "SEQBOARD_SPACE_PROTOTYPES", Path("maybe"))


def _twin_board(lone_unsure: bool):
    """20 spaces read without calibration (twins' inputs): 15 confident empty spaces beside
    their bare twin, 4 confident white chips, and one unsure space, bare paper as light as
    a white chip (the model: white 55 %, empty 40 %); ``lone_unsure``: its twin holds a
    chip, so nothing is beside it."""
    rng = np.random.default_rng(3)
    n = 20
    x = np.zeros((n, 7, 16, 16), np.float32)
    probs = np.zeros((n, len(CLASSES)), np.float32)
    states = []
    for i in range(n):
        if i < 4 or i == 19:
            x[i, 0:3] = 0.9 + rng.normal(0, 0.01, (3, 16, 16))
            probs[i, 4], probs[i, 0] = (0.99, 0.0) if i < 4 else (0.55, 0.4)
            states.append(SpaceState.WHITE if i < 4 else U)
        else:
            x[i, 0:3] = rng.uniform(-0.6, 0.8, (3, 16, 16))
            probs[i, 0] = 0.99
            states.append(SpaceState.EMPTY)
        if i < 4:
            x[i, 3:6] = rng.uniform(-0.6, 0.8, (3, 16, 16))
        elif not (i == 19 and lone_unsure):
            x[i, 3:6] = x[i, 0:3] + rng.normal(0, 0.01, (3, 16, 16))
        x[i, 6] = 0.0 if i == 19 and lone_unsure else 1.0
    lone = ~np.abs(x[:, 3:6]).reshape(n, -1).any(axis=1)
    return probs, states, np.full(n, 0.99, np.float32), np.zeros(n, bool), x, lone


def test_without_calibration_bare_paper_whose_twin_holds_a_chip_is_not_settled_white():
    # beside its bare twin, the unsure space is like every empty space of the board and
    # unlike nothing else: left to the model's likeliest state only if it were empty
    probs, states, conf, hand, x, lone = _twin_board(lone_unsure=True)
    assert lone[19] and lone.sum() == 1
    # with nothing beside it, how far it is from an empty space cannot be told: it is not
    # settled white (the "empty read white" of reading without calibration), it stays unknown
    settled, _ = prototypes.settle(probs, states, conf, hand, x, 5, lone=lone)
    assert settled[19] is U
    assert settled[:19] == states[:19]
    # the same space taken as if its empty picture were beside it (lone not said): settled
    # white on its likeness to the white chips, the mistake the lone spaces are kept from
    settled, _ = prototypes.settle(probs, states, conf, hand, x, 5)
    assert settled[19] is SpaceState.WHITE


def test_the_pass_is_off_by_default_on_boards_read_without_calibration():
    # session 8b: measured on tuned sets it settled nothing (docs/vision.md)
    assert prototypes.UNCALIBRATED is False
