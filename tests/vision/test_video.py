"""A rendered video in which hands place chips: the stable observations are exactly the
placements, in order, and nothing is reported while a hand is over the board."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from seqboard.sources.table import Table
from vision.calibration import calibrate, load_calibration
from vision.reader import BoardReader
from vision.stabilise import Stabiliser
from vision.synth import Conditions, SyntheticCamera, render

LAYOUT = builtin_layout("classic")


def _film(script, cond, fps=10.0, settle=0.4):
    """Run ``script`` (a list of (time, action) on the table) through camera, reader and
    stabiliser; return the stable observations with their times and the hand's times."""
    table = Table(10, 10)
    cam = SyntheticCamera(table, LAYOUT, seed=3, conditions=cond)
    empty = Observation.empty(10, 10)
    cal = calibrate([render(LAYOUT, empty, replace(cond, hand_at=None), seed=1, jitter=0).image], LAYOUT)
    reader, stab = BoardReader(cal, LAYOUT), Stabiliser(settle=settle)
    out, hand_times = [], []
    t, k = 0.0, 0
    end = script[-1][0] + 3.0
    while t < end:
        while k < len(script) and script[k][0] <= t:
            script[k][1](table)
            k += 1
        if table.hand_at is not None:
            hand_times.append(t)
        obs = stab.update(reader.read(cam.read()), t)
        if obs is not None:
            out.append((t, obs))
        t += 1.0 / fps
    return out, hand_times


def _placement(at: float, space: str, colour: str, hover: float = 0.6):
    i = LAYOUT.parse_space(space)
    return [(at, lambda tb: tb.hand_over(i)),
            (at + hover / 2, lambda tb: tb.set(i, SpaceState(colour))),
            (at + hover, lambda tb: tb.hand_away())]


def test_hands_placing_chips_give_exactly_the_placements_in_order():
    cond = Conditions(width=960, height=720, tilt_deg=18, rotation_deg=-6, kelvin=3400, noise=2)
    moves = [("c3", "B"), ("d4", "G"), ("e5", "B"), ("h2", "G"), ("b9", "B")]
    script = []
    for n, (space, colour) in enumerate(moves):
        script += _placement(1.0 + 2.0 * n, space, colour)
    # a hand passing over the board and leaving without touching anything
    passing = LAYOUT.parse_space("f6")
    script += [(11.0, lambda tb: tb.hand_over(passing)), (11.6, lambda tb: tb.hand_away())]
    script.sort(key=lambda x: x[0])
    out, hand_times = _film(script, cond)
    # exactly one stable observation per placement (the first is the empty board)
    boards = [obs for _, obs in out]
    assert boards[0] == Observation.empty(10, 10)
    got = []
    for before, after in zip(boards, boards[1:]):
        diff = [i for i in range(100) if before.states[i] is not after.states[i]]
        assert len(diff) == 1
        got.append((LAYOUT.space_name(diff[0]), after.states[diff[0]].value))
    assert got == moves
    # never while a hand was over the board
    for t, _ in out:
        assert all(abs(t - h) > 1e-9 for h in hand_times)


def test_calibration_file_round_trip_and_damage(tmp_path):
    cond = Conditions(tilt_deg=10)
    empty = Observation.empty(10, 10)
    cal = calibrate([render(LAYOUT, empty, cond, seed=1, jitter=0).image], LAYOUT)
    path = tmp_path / "cal.json"
    cal.save(path)
    again = load_calibration(path)
    assert np.allclose(again.corners, cal.corners, atol=0.01)
    board = Observation.parse("\n".join([". B . . . . . . . ."] + [". . . . . . . . . ."] * 9))
    frame = render(LAYOUT, board, cond, seed=5).image
    assert BoardReader(again, LAYOUT).read(frame).observation == board
    # damaged files: one clear line naming the file and the key
    import pytest

    from vision.calibration import CalibrationError
    d = json.loads(path.read_text())
    for key, value, words in [("corners", [[0, 0]], "corners"), ("version", 9, "version"),
                              ("reference", {"patch": []}, "reference")]:
        bad = dict(d, **{key: value})
        path.write_text(json.dumps(bad))
        with pytest.raises(CalibrationError, match=words):
            load_calibration(path)
    path.write_text(path.read_text()[:100])
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration(path)
