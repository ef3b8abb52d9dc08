"""The board network (vision/models/board*.onnx, session twelve): every space of the
straightened board read in one pass, each with its neighbours in view; how the reader
combines it with the features (COMBINE["board"]); its training's inputs and options."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from tests.vision.test_combine import _read
from vision.calibration import calibrate
from vision.classify import calibrated_keywords, classify_learned, features
from vision.locate import straighten
from vision.looks import look_conditions, parse_look
from vision.reader import COMBINE, BoardReader
from vision.spacenet import (
    BOARD_PATHS,
    CLASSES,
    MODEL_PATH,
    BoardNet,
    ModelError,
    SpaceNet,
    load_model,
    shared_model,
    space_inputs,
)
from vision.synth import random_board, render

LAYOUT = builtin_layout("classic")
ROOT = Path(__file__).resolve().parents[2]
E, B, G, R, W, U = (SpaceState.EMPTY, SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED,
                    SpaceState.WHITE, SpaceState.UNKNOWN)

HELD_OUT = ["art=vintage,board=worn,chips=pastel,table=dark,light=dim_mixed,camera=overhead",
            "art=bigindex,board=folding,chips=translucent,table=patterned,light=spot,"
            "camera=angled",
            "art=vintage,board=glossy,chips=opaque,table=wood,light=lamp,camera=phone"]


def _scene(look_text: str, seed: int, layout=LAYOUT, fill: float = 0.4):
    look = parse_look(look_text, seed=seed)
    cond = look_conditions(look)
    empty = render(layout, Observation.empty(layout.rows, layout.cols), cond, seed=seed,
                   jitter=0, look=look).image
    cal = calibrate([empty], layout)
    truth = random_board(layout, np.random.default_rng(seed), fill=fill)
    r = render(layout, truth, cond, seed=seed + 1, look=look)
    _scene.unsure = r.unsure          # spaces a glare spot blows out (unknown is right there)
    return cal, truth, r.image


def test_the_reader_reads_with_the_shipped_board_network():
    # the default model is the board network, every file of it shipped in the package
    net = shared_model()
    assert isinstance(net, BoardNet) and net.board
    assert [p.name for p in net.paths] == [p.name for p in BOARD_PATHS]
    assert all(p.is_file() for p in BOARD_PATHS)
    assert BoardReader(None, LAYOUT).model is net


@pytest.mark.parametrize("look_text", HELD_OUT)
def test_held_out_boards_are_read_right_by_the_network_alone_and_by_the_reader(look_text):
    # card art, chips, tables, light and cameras of families nothing was trained on
    cal, truth, frame = _scene(look_text, 21)
    board = straighten(frame, cal.corners, LAYOUT)
    probs = shared_model().probabilities(space_inputs(features(board, 10, 10).norm,
                                                      cal.reference.patch))
    read = [CLASSES[k] for k in probs.argmax(axis=1)]
    unsure = _scene.unsure
    # the network alone: every space right but those under a glare spot, and none of those
    # read wrong with 90 % or more
    assert [LAYOUT.space_name(i) for i in range(LAYOUT.size)
            if read[i] != truth.states[i] and not unsure[i]] == []
    assert all(probs[i].max() < 0.9 for i in range(LAYOUT.size)
               if read[i] != truth.states[i])
    # through the reader: nothing wrong, and only a space under glare unknown
    got = BoardReader(cal, LAYOUT).read(frame).observation.states
    wrong = [LAYOUT.space_name(i) for i in range(LAYOUT.size)
             if got[i] is not U and got[i] is not truth.states[i]]
    assert wrong == []
    assert [LAYOUT.space_name(i) for i in range(LAYOUT.size) if got[i] is U and not unsure[i]] \
        == []


def test_a_board_turned_a_quarter_is_read_alike():
    # cards and boards lie any way round: the network reads the same spaces the same
    # whichever way the board is turned in its input
    cal, truth, frame = _scene(HELD_OUT[0], 31)
    board = straighten(frame, cal.corners, LAYOUT)
    x = space_inputs(features(board, 10, 10).norm, cal.reference.patch)
    net = load_model(BOARD_PATHS[0])
    as_lies = net.probabilities(x).argmax(axis=1).reshape(10, 10)
    big = net.board_of(x)
    turned = np.rot90(big, 1, axes=(2, 3))
    tiles = turned.reshape(7, 10, 16, 10, 16).transpose(1, 3, 0, 2, 4).reshape(100, 7, 16, 16)
    again = net.probabilities(tiles).argmax(axis=1).reshape(10, 10)
    assert (np.rot90(again, -1) == as_lies).all()


def test_a_board_seen_in_a_mirror_is_read_alike_and_the_second_look_reads_it_so():
    # training turned and mirrored every board: the network reads a mirrored board's
    # spaces as the board's own, and the second look (a space under 90 %) averages the
    # board as it lies with its mirror image (session thirteen: the mirror beat a quarter
    # turn on three of four development sets), each space kept in its own place
    from vision.spacenet import BOARD_VIEWS, second_opinion
    cal, truth, frame = _scene(HELD_OUT[0], 31)
    board = straighten(frame, cal.corners, LAYOUT)
    x = space_inputs(features(board, 10, 10).norm, cal.reference.patch)
    net = load_model(BOARD_PATHS[0])
    as_lies = net.probabilities(x)
    big = net.board_of(x)
    mirrored = np.ascontiguousarray(big[..., ::-1])
    tiles = mirrored.reshape(7, 10, 16, 10, 16).transpose(1, 3, 0, 2, 4).reshape(100, 7, 16, 16)
    again = net.probabilities(tiles).argmax(axis=1).reshape(10, 10)[:, ::-1]
    assert (again.ravel() == as_lies.argmax(axis=1)).all()
    assert (again.ravel() == [CLASSES.index(s) for s in truth.states]).sum() >= 99
    # view 4 is that mirror image, put back in the board's own order; view 6 the mirror
    # of the half turn: the board upside down
    view4 = np.exp(net.log_probabilities(big, 4)).argmax(axis=1)
    assert (view4 == again.ravel()).all()
    flipped = np.ascontiguousarray(big[:, :, ::-1, :])
    tiles = flipped.reshape(7, 10, 16, 10, 16).transpose(1, 3, 0, 2, 4).reshape(100, 7, 16, 16)
    upside = net.probabilities(tiles).argmax(axis=1).reshape(10, 10)[::-1, :]
    assert (np.exp(net.log_probabilities(big, 6)).argmax(axis=1) == upside.ravel()).all()
    assert BOARD_VIEWS == (0, 4)
    unsure = as_lies.copy()
    unsure[5] = np.full(len(CLASSES), 1 / len(CLASSES))        # one space under 90 %
    got, _ = second_opinion(net, x, unsure, 0.9)
    both = np.log(unsure + 1e-7) + net.log_probabilities(big, 4)
    want = np.exp(both / 2)
    want /= want.sum(axis=1, keepdims=True)
    assert np.allclose(got, want, atol=1e-5)
    assert got[5].argmax() == CLASSES.index(truth.states[5])


def test_a_travel_board_of_seven_rows_is_read_by_the_same_network():
    travel = builtin_layout("travel")
    cal, truth, frame = _scene("art=plain,board=mat,chips=opaque,table=wood,light=daylight,"
                               "camera=overhead", 41, travel)
    got = BoardReader(cal, travel).read(frame).observation.states
    assert len(got) == 49
    assert [travel.space_name(i) for i in range(49)
            if got[i] is not truth.states[i]] == []


def _rule(model: dict, feature_state: SpaceState) -> SpaceState:
    """One space (in a row of four, no covers) read by COMBINE["board"]."""
    return _read(model, feature_state, "board")


def test_board_rule_the_network_stands_from_90_percent_and_from_60_where_the_features_agree():
    assert _rule({B: 0.92, G: 0.08}, G) is B            # sure: whatever the features say
    assert _rule({W: 0.92, E: 0.08}, E) is W
    assert _rule({B: 0.7, G: 0.3}, B) is B              # unsure, the features agree
    assert _rule({B: 0.7, G: 0.3}, G) is U              # unsure, the features disagree
    assert _rule({B: 0.7, G: 0.3}, U) is U
    assert _rule({B: 0.5, G: 0.45, E: 0.05}, B) is U    # too unsure for anyone to settle


def test_beside_an_arm_the_features_doubt_does_not_count_for_the_board_network():
    # the network sees the arm's edge itself: beside a covered space its reading stands
    # from 98 % whatever the features' cover test said (the one-space model's rule leaves
    # such a space unknown)
    probs = np.tile(np.eye(len(CLASSES))[0] * 0.999 + 0.0002, (4, 1))
    probs[0] = np.eye(len(CLASSES))[len(CLASSES) - 1] * 0.99 + 0.002       # covered
    probs[1] = np.eye(len(CLASSES))[1] * 0.99 + 0.002                      # blue, 99 %
    feats = ([U, U, E, E], np.ones(4), np.array([True, False, False, False]))
    board, _, _ = classify_learned(probs, feats, 4, *COMBINE["board"],
                                   **calibrated_keywords(True))
    space, _, _ = classify_learned(probs, feats, 4, *COMBINE["calibrated"],
                                   **calibrated_keywords())
    assert board[1] is B and space[1] is U


def test_training_boards_are_the_boards_the_reader_gives_the_network():
    # training puts the cached spaces back together into boards; they must be exactly what
    # the reader builds from the same spaces, or the network learns from inputs it never
    # meets
    from vision.train_boards import batch_inputs, boards_of, tiles_to_board
    rng = np.random.default_rng(3)
    m = 2
    crops = rng.integers(0, 256, (m * 100, 3, 16, 16)).astype(np.uint8)
    refs = rng.integers(0, 256, (m * 100, 8 * 8 * 3)).astype(np.uint8)
    data = {"x": crops, "ref": refs, "y": rng.integers(0, 6, m * 100),
            "scene": np.repeat(np.arange(m), 100)}
    x, ref, y, scene = boards_of(data)
    got = batch_inputs(x, ref, np.arange(m), None, False, 0.0)
    net = load_model(BOARD_PATHS[0])
    for k in range(m):
        norm = crops[k * 100:(k + 1) * 100].transpose(0, 2, 3, 1).astype(np.float32)
        norm = norm.repeat(2, 1).repeat(2, 2).reshape(100, 32 * 32, 3)
        want = space_inputs(norm, refs[k * 100:(k + 1) * 100].astype(np.float32))
        assert np.abs(got[k] - tiles_to_board(want, 10, 10)[0]).max() < 1e-5
        assert np.abs(got[k] - net.board_of(want)[0]).max() < 1e-5
        assert (y[k].ravel() == data["y"][k * 100:(k + 1) * 100]).all()


def test_chip_augmentations_change_each_colour_alike_and_keep_the_input_form():
    from vision.train_boards import chip_opacity, chip_shades
    rng = np.random.default_rng(5)
    labels = np.array([0] * 40 + [1] * 20 + [2] * 20 + [3] * 10 + [4] * 10)
    tiles = np.zeros((100, 7, 16, 16), np.float32)
    colours = {0: (230, 230, 230), 1: (200, 60, 30), 2: (40, 170, 40), 3: (30, 40, 200),
               4: (235, 235, 235)}
    for i, c in enumerate(labels):
        tiles[i, 0:3] = (np.array(colours[c], np.float32)[:, None, None] / 127.5 - 1.0)
        tiles[i, 3:6] = 230 / 127.5 - 1.0
        tiles[i, 6] = 1.0
    before = tiles.copy()
    out = chip_shades(tiles.copy(), labels, rng, 1.0)
    assert out.min() >= -1.0 and out.max() <= 1.0
    assert (out[labels == 0] == before[labels == 0]).all()          # bare spaces stay
    for c in (1, 2, 3):                                            # every chip of a colour
        changed = out[labels == c, 0:3]                            # the same new shade
        assert np.abs(changed - changed[0]).max() < 1e-5
    out = chip_opacity(before.copy(), labels, np.random.default_rng(6), 1.0)
    for c in (1, 2, 3, 4):       # blended towards the empty space: nearer the paper, alike
        d0 = np.abs(before[labels == c, 0:3] - before[labels == c, 3:6]).mean()
        d1 = np.abs(out[labels == c, 0:3] - out[labels == c, 3:6]).mean()
        assert d1 < d0 or d0 == 0
    assert (out[labels == 0] == before[labels == 0]).all()


def test_train_boards_help_has_an_example_and_bad_options_are_one_line():
    p = subprocess.run([sys.executable, "-m", "vision.train_boards", "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0 and "python -m vision.train_boards --seed 1" in p.stdout
    for bad, key in ((["--widths", "16,32"], "--widths 16,32"),
                     (["--exclude", "art=nonesuch"], "art=nonesuch"),
                     (["--shift-aug", "2"], "--shift-aug 2"),
                     (["--opacity", "2"], "--opacity 2")):
        p = subprocess.run([sys.executable, "-m", "vision.train_boards", *bad], cwd=ROOT,
                           capture_output=True, text=True, timeout=120, check=False)
        assert p.returncode == 2
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and key in lines[0], p.stderr


def test_load_model_tells_a_board_network_from_a_one_space_model(tmp_path):
    assert isinstance(load_model(MODEL_PATH), SpaceNet)
    assert isinstance(load_model(BOARD_PATHS[0]), BoardNet)
    both = load_model(",".join(str(p) for p in (BOARD_PATHS[0], BOARD_PATHS[0])))
    assert isinstance(both, BoardNet) and len(both.nets) == 2
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"no network here" * 20)
    with pytest.raises(ModelError) as exc:
        load_model(junk)
    assert "junk.onnx" in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(ModelError) as exc:
        BoardNet([BOARD_PATHS[0], tmp_path / "gone.onnx"])
    assert "gone.onnx" in str(exc.value) and "missing" in str(exc.value)
