"""The learned space classifier shipped in the package (vision/models/spaces.onnx)."""

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
from vision.classify import features
from vision.locate import straighten
from vision.looks import look_conditions, parse_look
from vision.reader import BoardReader
from vision.spacenet import CLASSES, MODEL_PATH, ModelError, SpaceNet, space_inputs
from vision.synth import render

LAYOUT = builtin_layout("classic")
EMPTY = Observation.empty(10, 10)
ROOT = Path(__file__).resolve().parents[2]

# a few chips of each colour, the flipped white side too, on a board of held-out art
CHIPS = {"b2": "B", "c7": "B", "h4": "B", "d3": "G", "f8": "G", "j5": "G",
         "e5": "R", "g2": "R", "b9": "R", "c4": "W", "i7": "W"}


def _board(chips: dict) -> Observation:
    states = [SpaceState.EMPTY] * LAYOUT.size
    for name, v in chips.items():
        states[LAYOUT.parse_space(name)] = SpaceState(v)
    return Observation(10, 10, tuple(states))


HELD_OUT = ["art=vintage,chips=pastel,table=patterned,light=daylight,camera=overhead",
            "art=bigindex,board=folding,chips=opaque,table=cloth,light=lamp,camera=angled"]


@pytest.mark.parametrize("look_text", HELD_OUT)
def test_shipped_model_reads_a_held_out_board_right(look_text):
    look = parse_look(look_text, seed=5)
    cond = look_conditions(look)
    empty = render(LAYOUT, EMPTY, cond, seed=1, jitter=0, look=look).image
    cal = calibrate([empty], LAYOUT)
    truth = _board(CHIPS)
    frame = render(LAYOUT, truth, cond, seed=2, look=look).image
    # the model alone, each space beside its empty picture: every space right
    board = straighten(frame, cal.corners, LAYOUT)
    probs = SpaceNet().probabilities(space_inputs(features(board, 10, 10).norm, cal.reference.patch))
    read = [CLASSES[k] for k in probs.argmax(axis=1)]
    assert [LAYOUT.space_name(i) for i in range(LAYOUT.size) if read[i] != truth.states[i]] == []
    # and through the reader (the model with the features): every space right
    assert BoardReader(cal, LAYOUT).read(frame).observation.states == truth.states


def test_reads_a_held_out_board_without_calibration():
    # without calibration the model reads each space alone, beside the twins' reading
    # (docs/vision.md): every chip of a stranger's board read right, nothing read as a
    # state it does not have; a doubtful space is unknown (here a few bare ones)
    look = parse_look(HELD_OUT[0], seed=6)
    truth = _board(CHIPS)
    frame = render(LAYOUT, truth, look_conditions(look), seed=3, look=look).image
    states = BoardReader(None, LAYOUT).read(frame).observation.states
    for name, v in CHIPS.items():
        assert states[LAYOUT.parse_space(name)] is SpaceState(v), name
    wrong = [LAYOUT.space_name(i) for i, (a, t) in enumerate(zip(states, truth.states))
             if a is not t]
    assert len(wrong) <= 4, wrong
    assert all(states[i] is SpaceState.UNKNOWN for i, (a, t) in enumerate(zip(states, truth.states))
               if a is not t)


@pytest.mark.parametrize("look_text", [
    "art=bigindex,board=mat,chips=opaque,table=wood,light=dim_mixed,camera=overhead",
    "art=vintage,board=worn,chips=translucent,table=cloth,light=lamp,camera=angled"])
def test_seqboard_read_a_strangers_photo_without_calibration(tmp_path, capsys, look_text):
    # a person points seqboard at a photo of a board it has never seen, no calibration:
    # the chips come out right (held-out card art, dim mixed light or translucent chips)
    import cv2
    import json

    from seqboard.cli import main
    look = parse_look(look_text, seed=8)
    truth = _board(CHIPS)
    photo = tmp_path / "strangers-board.jpg"
    cv2.imwrite(str(photo), render(LAYOUT, truth, look_conditions(look), seed=4, look=look).image)
    assert main(["read", str(photo), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["board"]
    read = [c for row in rows for c in row.split()] if " " in rows[0] else \
        [c for row in rows for c in row]
    assert len(read) == LAYOUT.size
    for name, v in CHIPS.items():
        assert read[LAYOUT.parse_space(name)] == v, (name, rows)
    # no space read as a chip it is not
    assert all(r in (t.value, "?") for r, t in zip(read, truth.states)), rows


def test_missing_or_broken_model_file_is_one_clear_line(tmp_path):
    with pytest.raises(ModelError) as exc:
        SpaceNet(tmp_path / "nothing.onnx")
    assert "nothing.onnx" in str(exc.value) and "missing" in str(exc.value)
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(MODEL_PATH.read_bytes()[:300])
    with pytest.raises(ModelError) as exc:
        SpaceNet(bad)
    assert "broken.onnx" in str(exc.value) and "\n" not in str(exc.value)


def test_seqboard_read_with_a_broken_model_says_so_in_one_line(tmp_path):
    bad = tmp_path / "junk.onnx"
    bad.write_bytes(b"this is no network" * 10)
    photo = tmp_path / "board.png"
    import cv2
    cv2.imwrite(str(photo), render(LAYOUT, EMPTY, seed=1).image)
    env = dict(os.environ, SEQBOARD_SPACE_MODEL=str(bad))
    p = subprocess.run([sys.executable, "-m", "seqboard.cli", "read", str(photo)], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "junk.onnx" in lines[0], p.stderr


def test_train_command_help_has_an_example():
    p = subprocess.run([sys.executable, "-m", "vision.train_spaces", "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0
    assert "python -m vision.train_spaces --seed 1" in p.stdout
    assert "--seed" in p.stdout and "--out" in p.stdout
    assert "--shift-aug 0.5" in p.stdout            # session nine's training, with its example
    p = subprocess.run([sys.executable, "-m", "vision.train_spaces", "--shift-aug", "1.5"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--shift-aug 1.5" in lines[0], p.stderr
    p = subprocess.run([sys.executable, "-m", "vision.train_spaces", "--widths", "16,40"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2                       # three layers, three widths
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--widths 16,40" in lines[0], p.stderr


def test_training_shift_augmentation_keeps_the_reader_input_form():
    # --shift-aug changes the cached crops as a camera the renderer never draws would (hues
    # turned, saturation, gamma, blur, JPEG, noise): the changed spaces must still be what
    # the reader gives the model, or the model learns from inputs it never meets
    from vision.spacenet import CHANNELS, SIDE, space_inputs
    from vision.train_spaces import shift_augment
    rng = np.random.default_rng(4)
    n = 400
    norm = np.full((n, 32 * 32, 3), 230.0, np.float32)
    norm[:, :, :] = rng.uniform(0, 255, (n, 1, 3))                      # flat chips, any colour
    x = space_inputs(norm, rng.uniform(0, 255, (n, 8 * 8 * 3)))
    x[n // 2:, 3:] = 0.0                                                 # half without calibration
    before = x.copy()
    out = shift_augment(x, np.random.default_rng(5), 0.5)
    assert out.shape == (n, CHANNELS, SIDE, SIDE) and out.dtype == np.float32
    assert out.min() >= -1.0 and out.max() <= 1.0
    changed = np.abs(out[:, :3] - before[:, :3]).reshape(n, -1).max(1) > 1e-3
    assert 0.3 < changed.mean() < 0.7                                   # about the share asked
    assert (out[n // 2:, 3:] == 0).all()                                # no reference stays none
    assert (out[:, 6] == before[:, 6]).all()
    ref = out[: n // 2, 3:6]                                            # 8 x 8, each pixel twice
    assert (ref[:, :, ::2, ::2] == ref[:, :, 1::2, 1::2]).all()
    assert (ref[:, :, ::2, ::2] == ref[:, :, 1::2, ::2]).all()
    assert (shift_augment(before.copy(), np.random.default_rng(5), 0.0) == before).all()


def test_training_input_from_the_cache_is_the_readers_input():
    # training rebuilds the network's input from the cached 8-bit crops and reference
    # patches, a part at a time (800 scenes at once did not fit in memory): every part,
    # the last one short, must give what the reader gives the model for the same space
    from vision.spacenet import space_inputs
    from vision.train_spaces import space_inputs_from_data
    rng = np.random.default_rng(9)
    n = 23
    crops = rng.integers(0, 256, (n, 16, 16, 3)).astype(np.uint8)
    refs = rng.integers(0, 256, (n, 8 * 8 * 3)).astype(np.uint8)
    norm = crops.astype(np.float32).repeat(2, 1).repeat(2, 2).reshape(n, 32 * 32, 3)
    want = space_inputs(norm, refs.astype(np.float32))
    data = {"x": crops.transpose(0, 3, 1, 2), "ref": refs, "y": np.zeros(n, np.int64)}
    got = space_inputs_from_data(data, chunk=5)
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-5
    assert (got[:, 6] == 1).all()



@pytest.mark.parametrize("look_text", HELD_OUT)
@pytest.mark.parametrize("seed", [6, 8])
def test_strangers_board_read_without_calibration_has_no_unknown_space(look_text, seed):
    # without calibration each space is shown to the model beside its twin (the other space
    # printed with the same card) where the twins' reading calls that twin empty: the
    # twin is the empty picture a calibration would have given. On these boards of
    # held-out art every space is read as it is, bare ones and the free corners included
    # (they were read unknown when the model saw each space alone)
    look = parse_look(look_text, seed=seed)
    truth = _board(CHIPS)
    frame = render(LAYOUT, truth, look_conditions(look), seed=3, look=look).image
    states = BoardReader(None, LAYOUT).read(frame).observation.states
    wrong = [f"{LAYOUT.space_name(i)}:{t.value}->{a.value}"
             for i, (a, t) in enumerate(zip(states, truth.states)) if a is not t]
    assert wrong == []


def test_a_space_is_compared_with_its_twin_only_where_the_twin_is_empty():
    from vision.pairs import twin_pairs
    from vision.reader import twin_reference
    look = parse_look(HELD_OUT[1], seed=6)
    truth = _board(CHIPS)
    frame = render(LAYOUT, truth, look_conditions(look), seed=3, look=look).image
    cal_free = BoardReader(None, LAYOUT)
    reading = cal_free.read(frame)
    f = features(reading.board, 10, 10)
    pairs = twin_pairs(LAYOUT)
    ref, has = twin_reference(f, pairs, reading.observation.states,
                              np.zeros(LAYOUT.size, bool), ([0, 9, 90, 99],))
    twin = {i: j for a, b in pairs for i, j in ((a, b), (b, a))}
    for name in CHIPS:
        i = LAYOUT.parse_space(name)
        # the twin of a chip has no reference (a chip is not its empty picture) ...
        assert not has[twin[i]], name
        if LAYOUT.space_name(twin[i]) in CHIPS:
            continue                      # e5 and i7: twins both under a chip
        # ... and the chip's own reference is its twin's empty print, turned to match
        assert has[i], name
        turned = [np.rot90(f.patch[twin[i]].reshape(8, 8, 3), k).ravel() for k in range(4)]
        assert any(np.array_equal(ref[i], t) for t in turned), name
    # the free corners, printed alike, stand in for each other
    assert all(has[i] for i in (0, 9, 90, 99))
