"""A second space model's opinion on the spaces the first is unsure of
(vision.spacenet.second_opinion, ``SEQBOARD_SPACE_SECOND``): tried in session five, not
shipped (docs/vision.md, "Session five"); the reader with one model reads as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from vision.calibration import calibrate
from vision.looks import look_conditions, parse_look
from vision.spacenet import MODEL_PATH, ModelError, SpaceNet, shared_model
from vision.synth import random_board, render
from vision.train_spaces import photometric

LAYOUT = builtin_layout("classic")
ROOT = Path(__file__).resolve().parents[2]
U = SpaceState.UNKNOWN

# a dim room (the light at 40 %, warm cast, gamma 1.2: the generic camera and light changes
# the models are trained with), tuned looks: what the development sets are made of
DIM = {"level": 0.4, "gamma": 1.2, "cast": np.float32([1.1, 1.0, 0.9])}


def _scene(look_text: str, seed: int, frame: int):
    look = parse_look(look_text, seed=seed)
    cond = look_conditions(look)
    empty = render(LAYOUT, Observation.empty(10, 10), cond, seed=seed, jitter=0, look=look)
    cal = calibrate([photometric(empty.image, np.random.default_rng(seed), DIM)], LAYOUT)
    board = random_board(LAYOUT, np.random.default_rng([seed, frame]), fill=0.4)
    img = render(LAYOUT, board, cond, seed=100 + frame, look=look).image
    return cal, board, photometric(img, np.random.default_rng([seed, frame, 1]), DIM)


def test_the_reader_asks_a_second_model_only_when_one_is_named(monkeypatch):
    monkeypatch.delenv("SEQBOARD_SPACE_SECOND", raising=False)
    monkeypatch.delenv("SEQBOARD_SPACE_MODEL", raising=False)
    assert shared_model().second is None
    # the second model is asked beside the one-space classifier (the board network of
    # session twelve, the default, takes its second look itself: the board turned)
    monkeypatch.setenv("SEQBOARD_SPACE_MODEL", str(MODEL_PATH))
    assert shared_model().second is None
    monkeypatch.setenv("SEQBOARD_SPACE_SECOND", str(MODEL_PATH))
    net = shared_model()
    assert net.path == MODEL_PATH and net.second is not None and net.second.path == MODEL_PATH


def assert_read_refuses_in_one_line(tmp_path, variable: str, bad) -> None:
    """`seqboard read PHOTO` with ``variable`` naming the broken model file ``bad``: exit 2
    and one line on stderr that names the file, no traceback."""
    photo = tmp_path / "board.png"
    import cv2
    cv2.imwrite(str(photo), render(LAYOUT, Observation.empty(10, 10), seed=1).image)
    p = subprocess.run([sys.executable, "-m", "seqboard.cli", "read", str(photo)], cwd=ROOT,
                       env=dict(os.environ, **{variable: str(bad)}),
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and bad.name in lines[0], p.stderr


def test_a_broken_second_model_file_is_one_clear_line(tmp_path):
    bad = tmp_path / "second.onnx"
    bad.write_bytes(MODEL_PATH.read_bytes()[:300])
    with pytest.raises(ModelError) as exc:
        SpaceNet(MODEL_PATH, SpaceNet(bad))
    assert "second.onnx" in str(exc.value) and "\n" not in str(exc.value)
    assert_read_refuses_in_one_line(tmp_path, "SEQBOARD_SPACE_SECOND", bad)


def test_a_space_the_two_models_read_apart_is_unknown_whatever_the_features_say():
    # both readings sure-looking together, but one model on its own prefers another state:
    # the reader does not guess (docs/vision.md, "Session five")
    from vision.classify import classify_learned
    from vision.reader import COMBINE
    from vision.spacenet import CLASSES
    probs = np.tile(np.eye(len(CLASSES))[0] * 0.999 + 0.0002, (4, 1))
    probs[1] = np.eye(len(CLASSES))[1] * 0.95 + 0.01
    feats = ([SpaceState.EMPTY, SpaceState.BLUE, SpaceState.EMPTY, SpaceState.EMPTY],
             np.ones(4), np.zeros(4, bool))
    agreed, _, _ = classify_learned(probs, feats, 4, *COMBINE["calibrated"])
    assert agreed[1] is SpaceState.BLUE
    disputed, _, _ = classify_learned(probs, feats, 4, *COMBINE["calibrated"],
                                      disputed=np.array([False, True, False, False]))
    assert disputed[1] is U and disputed[0] is SpaceState.EMPTY


def test_a_second_model_that_reads_like_the_first_changes_nothing():
    # the same file as its own second opinion: the eight readings are the four twice, so
    # the probabilities are the second look's and no space is disputed
    from vision.spacenet import second_opinion, space_inputs, steadied
    from vision.classify import features
    from vision.locate import straighten
    cal, board, img = _scene("art=ornate,board=glossy,chips=translucent,table=cloth,hand=bare,"
                             "light=lamp,camera=overhead", 9, 2)
    x = space_inputs(features(straighten(img, cal.corners, LAYOUT), 10, 10).norm,
                     cal.reference.patch)
    one = SpaceNet(MODEL_PATH)
    twice = SpaceNet(MODEL_PATH, SpaceNet(MODEL_PATH))
    p = one.probabilities(x)
    # spaces read again: those under 99 % (session nine's model is 90 % sure of every
    # space of this dim frame)
    assert (p.max(axis=1) < 0.99).any()
    probs, disputed = second_opinion(twice, x, p, 0.99, 32)
    assert np.abs(probs - steadied(one, x, p, 0.99, 32)).max() < 1e-4
    assert not disputed.any()
