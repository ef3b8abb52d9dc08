"""Reading rendered boards: every condition a real camera varies, and the hard cases."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from vision.calibration import calibrate
from vision.locate import BoardNotFound, find_outline
from vision.reader import BoardReader
from vision.synth import Conditions, random_board, random_conditions, render

LAYOUT = builtin_layout("classic")
EMPTY = Observation.empty(10, 10)


def _calibrated(cond: Conditions, seed: int = 100) -> BoardReader:
    frame = render(LAYOUT, EMPTY, replace(cond, hand_at=None, glare=0), seed=seed, jitter=0).image
    return BoardReader(calibrate([frame], LAYOUT), LAYOUT)


def _errors(reading, truth: Observation) -> list[tuple[str, str, str]]:
    return [(LAYOUT.space_name(i), t.value, a.value)
            for i, (a, t) in enumerate(zip(reading.observation.states, truth.states)) if a != t]


@pytest.mark.parametrize("kind", ["clean", "perspective", "distortion", "warm_light",
                                  "cold_light", "dim", "uneven", "blur_jpeg"])
def test_every_visible_space_read_right(kind):
    rng = np.random.default_rng(sum(map(ord, kind)))
    for k in range(2):
        cond = random_conditions(rng, kind)
        reader = _calibrated(cond, seed=10 + k)
        board = random_board(LAYOUT, rng, fill=0.45)
        r = render(LAYOUT, board, cond, seed=20 + k)
        assert _errors(reader.read(r.image), r.truth) == []


def test_hand_covered_spaces_are_unknown_never_empty():
    rng = np.random.default_rng(5)
    for k in range(3):
        cond = random_conditions(rng, "hand")
        reader = _calibrated(cond)
        board = random_board(LAYOUT, rng)
        r = render(LAYOUT, board, cond, seed=k)
        reading = reader.read(r.image)
        assert reading.hand
        under = [i for i, occ in enumerate(r.occluded) if occ]
        centre = cond.hand_at
        assert reading.observation.states[centre] is SpaceState.UNKNOWN
        # every space mostly under the hand is unknown; no visible space is misread
        assert sum(reading.observation.states[i] is SpaceState.UNKNOWN for i in under) >= 0.8 * len(under)
        visible_wrong = [e for i, e in enumerate(_errors(reading, r.truth))
                         if not r.occluded[LAYOUT.parse_space(e[0])]]
        assert all(e[2] == "?" for e in visible_wrong)


def test_glare_never_gives_a_wrong_reading_and_does_not_lose_the_board():
    # a lamp's reflection stays put: the camera is calibrated under it and reads under it
    rng = np.random.default_rng([1, sum(map(ord, "glare"))])
    unknown = 0
    for k in range(6):
        cond = random_conditions(rng, "glare")
        empty = render(LAYOUT, EMPTY, cond, seed=int(rng.integers(1 << 30)), jitter=0)
        cal = calibrate([empty.image], LAYOUT)
        # found even where the glare blows the board's edge out
        assert np.abs(cal.corners - empty.grid_corners).max() < 4
        reader = BoardReader(cal, LAYOUT)
        board = random_board(LAYOUT, rng, fill=0.5)
        r = render(LAYOUT, board, cond, seed=k)
        states = reader.read(r.image).observation.states
        for i, (a, t) in enumerate(zip(states, r.truth.states)):
            if a != t:
                # only where the paper itself is blown out, and then only "unknown"
                assert r.unsure[i] and a is SpaceState.UNKNOWN, (LAYOUT.space_name(i), t, a)
                unknown += 1
    assert unknown < 6 * 10          # a lamp's spot, not the board


def test_red_chip_on_red_face_card_and_green_chip_on_dark_card():
    cond = Conditions(tilt_deg=12, rotation_deg=-20, kelvin=3000, noise=2)
    reader = _calibrated(cond)
    faces = [i for i, s in enumerate(LAYOUT.symbols) if s in ("KH", "QH", "KD", "QD")]
    dark = [i for i, s in enumerate(LAYOUT.symbols) if s in ("KS", "QS", "KC", "QC")]
    states = list(EMPTY.states)
    for i in faces:
        states[i] = SpaceState.RED
    for i in dark:
        states[i] = SpaceState.GREEN
    board = Observation(10, 10, tuple(states))
    r = render(LAYOUT, board, cond, seed=3)
    assert _errors(reader.read(r.image), r.truth) == []
    # and the empty face cards are not read as chips
    r0 = render(LAYOUT, EMPTY, cond, seed=4)
    assert _errors(reader.read(r0.image), r0.truth) == []


def test_printed_corner_chips_are_not_chips_and_flipped_chips_are_white():
    cond = Conditions(tilt_deg=20, kelvin=6500)
    reader = _calibrated(cond)
    states = list(EMPTY.states)
    for name in ("b1", "c1", "d1", "e1"):
        states[LAYOUT.parse_space(name)] = SpaceState.WHITE
    r = render(LAYOUT, Observation(10, 10, tuple(states)), cond, seed=1)
    obs = reader.read(r.image).observation
    assert all(obs.states[i] is SpaceState.EMPTY for i in LAYOUT.free)
    assert [obs.states[LAYOUT.parse_space(n)] for n in ("b1", "c1", "d1", "e1")] == [SpaceState.WHITE] * 4


def test_chip_half_off_its_space_still_read():
    cond = Conditions(tilt_deg=10)
    reader = _calibrated(cond)
    board = random_board(LAYOUT, np.random.default_rng(8), fill=0.3)
    r = render(LAYOUT, board, cond, seed=2, jitter=0.2)
    errs = _errors(reader.read(r.image), r.truth)
    assert errs == []


def test_board_bumped_is_found_again():
    cond = Conditions(tilt_deg=10, rotation_deg=5)
    reader = _calibrated(cond)
    board = random_board(LAYOUT, np.random.default_rng(2))
    moved = replace(cond, rotation_deg=14, offset=(0.04, 0.02))
    frame = render(LAYOUT, board, moved, seed=1).image
    first = reader.read(frame)           # the old corners no longer fit
    assert not first.found or first.observation.states.count(SpaceState.UNKNOWN) > 50
    second = reader.read(frame)
    assert second.found and _errors(second, render(LAYOUT, board, moved, seed=1).truth) == []


def test_reads_without_calibration_in_any_rotation():
    rng = np.random.default_rng(12)
    for rot in (0, 90, 180, 270):
        cond = Conditions(rotation_deg=rot + 7, tilt_deg=15)
        board = random_board(LAYOUT, rng)
        r = render(LAYOUT, board, cond, seed=rot)
        assert _errors(BoardReader(None, LAYOUT).read(r.image), r.truth) == []


@pytest.mark.parametrize("cond,words", [
    (Conditions(brightness=0.12), "too dark"),
    (Conditions(scale=1.35), "cut off"),
    (Conditions(tilt_deg=75), "obliquely"),
])
def test_says_what_to_fix_when_it_cannot_see_the_board(cond, words):
    with pytest.raises(BoardNotFound, match=words):
        find_outline(render(LAYOUT, EMPTY, cond, seed=1).image)


def test_other_layouts_render_and_read():
    for edition in ("travel", "jewish"):
        lay = builtin_layout(edition)
        empty = Observation.empty(lay.rows, lay.cols)
        cond = Conditions(tilt_deg=8)
        frame = render(lay, empty, cond, seed=1, jitter=0).image
        reader = BoardReader(calibrate([frame], lay), lay)
        board = random_board(lay, np.random.default_rng(3))
        r = render(lay, board, cond, seed=2)
        off = [(i, a, t) for i, (a, t) in enumerate(zip(reader.read(r.image).observation.states,
                                                         r.truth.states)) if a != t]
        # nothing read wrong; a space left in doubt waits for the next frame, and at most
        # one is (the networks learnt on the classic board: on the Jewish Edition's pictures
        # the board network leaves one empty space unknown, 52 % white, docs/vision.md)
        assert all(a is SpaceState.UNKNOWN for _, a, _ in off) and len(off) <= 1, off


def test_aruco_markers_find_the_board_in_any_rotation_and_after_a_bump():
    from vision.locate import find_aruco
    for rot, tilt in ((10, 15), (100, 30), (200, 5)):
        cond = Conditions(rotation_deg=rot, tilt_deg=tilt, markers=True, scale=0.95)
        empty = render(LAYOUT, EMPTY, cond, seed=1, jitter=0)
        assert np.abs(find_aruco(empty.image).corners - empty.grid_corners).max() < 3
        cal = calibrate([empty.image], LAYOUT, markers=True)
        assert cal.method == "aruco"
        reader = BoardReader(cal, LAYOUT)
        board = random_board(LAYOUT, np.random.default_rng(rot))
        r = render(LAYOUT, board, cond, seed=2)
        assert _errors(reader.read(r.image), r.truth) == []
    # bumped: the markers move with the board and are found again
    moved = replace(cond, rotation_deg=214, offset=(0.03, 0.0))
    r = render(LAYOUT, board, moved, seed=3)
    reader.read(r.image)
    assert _errors(reader.read(r.image), r.truth) == []


def test_markers_missing_says_which():
    from vision.locate import find_aruco
    frame = render(LAYOUT, EMPTY, Conditions(markers=True, scale=0.95), seed=1).image
    h, w = frame.shape[:2]
    frame[: h // 2, : w // 2] = (95, 130, 165)          # the top-left corner covered
    with pytest.raises(BoardNotFound, match=r"ArUco markers \[0\] not found"):
        find_aruco(frame)
