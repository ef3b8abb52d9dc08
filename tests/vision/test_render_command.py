"""`seqboard render`: pictures and short videos of a board in chosen conditions."""

from __future__ import annotations

import cv2
import pytest

from engine.observation import Observation
from seqboard.cli import main


def test_render_help_has_examples(capsys):
    assert main(["render", "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "seqboard render board.png" in out and "--video" in out


def test_render_a_position_with_a_hand_and_its_truth(tmp_path, capsys):
    out = tmp_path / "board.png"
    assert main(["render", str(out), "--chips", "d4=R,e5=B,a10=W", "--hand", "h8",
                 "--look", "art=vintage,table=dark,hand=greysleeve", "--size", "640x480",
                 "--seed", "3", "--truth"]) == 0
    printed = capsys.readouterr().out
    assert "art=vintage" in printed and "table=dark" in printed and "hand=greysleeve" in printed
    assert cv2.imread(str(out)).shape == (480, 640, 3)
    truth = Observation.parse((tmp_path / "board.truth.txt").read_text())
    assert truth[33].value == "R" and truth[44].value == "B" and truth[90].value == "W"
    assert truth[7 * 10 + 7].value == "?"           # the hand covers h8
    # the same command draws the same picture again (for a bug report)
    again = tmp_path / "again.png"
    assert main(["render", str(again), "--chips", "d4=R,e5=B,a10=W", "--hand", "h8",
                 "--look", "art=vintage,table=dark,hand=greysleeve", "--size", "640x480",
                 "--seed", "3"]) == 0
    assert (cv2.imread(str(out)) == cv2.imread(str(again))).all()


def test_render_a_short_video(tmp_path, capsys):
    folder = tmp_path / "frames"
    assert main(["render", str(folder), "--video", "3", "--random", "0.3", "--size", "320x240",
                 "--hand", "c4", "--truth"]) == 0
    frames = sorted(folder.glob("frame-*.png"))
    assert [f.name for f in frames] == ["frame-0001.png", "frame-0002.png", "frame-0003.png"]
    truths = (folder / "truth.txt").read_text().split("# ")[1:]
    # the hand is over the board in the middle frame only
    assert ["?" in t for t in truths] == [False, True, False]


@pytest.mark.parametrize("args, words", [
    (["--look", "table=lava"], "--look: unknown table family 'lava'"),
    (["--chips", "d4=X"], "the colour must be B, G, R or W"),
    (["--hand", "q99"], "--hand:"),
    (["--size", "big"], "--size:"),
])
def test_render_bad_input_is_one_clear_line(tmp_path, capsys, args, words):
    assert main(["render", str(tmp_path / "x.png"), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert not (tmp_path / "x.png").exists()
