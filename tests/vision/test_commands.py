"""`seqboard calibrate --image` and `seqboard read` as a user runs them."""

from __future__ import annotations

import io
import json

import cv2
import numpy as np

from engine.game import builtin_layout
from engine.observation import Observation
from seqboard.cli import main
from seqboard.progress import SlowSteps
from vision.calibration import reporting
from vision.reader import BoardReader
from vision.synth import Conditions, random_board, render

LAYOUT = builtin_layout("classic")
COND = Conditions(tilt_deg=15, rotation_deg=25, kelvin=3500)


def test_calibrate_then_read(tmp_path, capsys):
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), render(LAYOUT, Observation.empty(10, 10), COND, seed=1, jitter=0).image)
    board = random_board(LAYOUT, np.random.default_rng(4))
    game = tmp_path / "game.jpg"
    cv2.imwrite(str(game), render(LAYOUT, board, COND, seed=2).image)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "--image", str(empty), "--out", str(cal)]) == 0
    assert cal.exists() and cal.with_suffix(".png").exists()
    capsys.readouterr()
    assert main(["read", str(game), "--calibration", str(cal)]) == 0
    assert capsys.readouterr().out.strip() == str(board)
    assert main(["read", str(game), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "\n".join(d["board"]) == str(board) and len(d["confidence"]) == 100


def test_calibrate_says_what_to_fix(tmp_path, capsys):
    dark = tmp_path / "dark.png"
    cv2.imwrite(str(dark), render(LAYOUT, Observation.empty(10, 10),
                                  Conditions(brightness=0.12), seed=1).image)
    assert main(["calibrate", "--image", str(dark), "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "too dark" in err[0]
    assert not (tmp_path / "c.json").exists()


def test_calibrate_with_manual_corners_and_warns_of_chips(tmp_path, capsys):
    r = render(LAYOUT, random_board(LAYOUT, np.random.default_rng(1)), COND, seed=1)
    img = tmp_path / "with-chips.png"
    cv2.imwrite(str(img), r.image)
    corners = ",".join(f"{v:.1f}" for v in r.grid_corners.ravel())
    assert main(["calibrate", "--image", str(img), "--out", str(tmp_path / "c.json"),
                 "--corners", corners]) == 0
    assert "calibrate with the board empty" in capsys.readouterr().err


def test_read_bad_inputs(tmp_path, capsys):
    assert main(["read", str(tmp_path / "missing.png")]) == 2
    assert "cannot read it as an image" in capsys.readouterr().err
    (tmp_path / "cal.json").write_text("{not json")
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((50, 50, 3), np.uint8))
    assert main(["read", str(img), "--calibration", str(tmp_path / "cal.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cal.json" in err[0]


def test_calibrate_warns_of_glare_and_names_the_spaces(tmp_path, capsys):
    cond = Conditions(tilt_deg=10, glare=2, light_seed=11)
    img = tmp_path / "glare.png"
    cv2.imwrite(str(img), render(LAYOUT, Observation.empty(10, 10), cond, seed=1, jitter=0).image)
    assert main(["calibrate", "--image", str(img), "--out", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert "warning: glare blows out" in err and "move the lamp" in err
    # no warning without the lamp
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), render(LAYOUT, Observation.empty(10, 10), Conditions(tilt_deg=10),
                                   seed=1, jitter=0).image)
    assert main(["calibrate", "--image", str(plain), "--out", str(tmp_path / "d.json")]) == 0
    assert "glare" not in capsys.readouterr().err


def test_calibrate_warns_of_a_dark_picture_it_can_still_use(tmp_path, capsys):
    dim = tmp_path / "dim.png"
    cv2.imwrite(str(dim), render(LAYOUT, Observation.empty(10, 10), Conditions(brightness=0.22),
                                 seed=1, jitter=0).image)
    assert main(["calibrate", "--image", str(dim), "--out", str(tmp_path / "c.json")]) == 0
    assert "warning: the picture is dark" in capsys.readouterr().err
    assert (tmp_path / "c.json").exists()
    bright = tmp_path / "bright.png"
    cv2.imwrite(str(bright), render(LAYOUT, Observation.empty(10, 10), Conditions(), seed=1,
                                    jitter=0).image)
    assert main(["calibrate", "--image", str(bright), "--out", str(tmp_path / "d.json")]) == 0
    assert "dark" not in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_search_for_the_board_shows_its_steps_on_a_terminal_and_a_quick_one_nothing():
    # reading a board without calibration reports each outline it tries
    r = render(LAYOUT, random_board(LAYOUT, np.random.default_rng(4)), COND, seed=2)
    heard: list[str] = []
    with reporting(heard.append):
        reading = BoardReader(None, LAYOUT).read(r.image)
    assert reading.found and heard and heard[0].startswith("possible outline 1 of ")
    heard.clear()
    BoardReader(None, LAYOUT).read(r.image)            # nobody listening: nothing heard
    assert heard == []
    # `seqboard read` and `seqboard calibrate` show the steps on a terminal once the search
    # has taken two seconds, on one line rewritten in place
    now = [0.0]
    term = _Terminal()
    steps = SlowSteps("seqboard read: x.png: looking for the board", term, after=2,
                      clock=lambda: now[0])
    steps("possible outline 1 of 5")                    # quick so far: nothing shown
    now[0] = 3.0
    steps("possible outline 2 of 5")
    steps("possible outline 1 of 5, each corner searched a space round (slow)")
    steps.close()
    out = term.getvalue()
    assert "outline 1 of 5 ..." not in out
    assert out.startswith("\rseqboard read: x.png: looking for the board: possible outline 2 "
                          "of 5 ...")
    assert out.endswith("(slow) ...\n") and out.count("\n") == 1 and out.count("\r") == 2
    # a log or a pipe gets nothing but the result (and the one-line error)
    log = io.StringIO()
    quiet = SlowSteps("seqboard read", log, after=0)
    quiet("possible outline 1 of 5")
    quiet.close()
    assert log.getvalue() == ""
