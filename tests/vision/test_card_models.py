"""A card reader's model file missing (a broken install): the cards are still read, by what
is left, and the user is told once, at the referee's start, on the terminal and in the
game's log, and by `seqboard read --cards` (docs/cards.md, "The reader", step 6)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation
from seqboard import sources
from seqboard.cli import main
from vision.calibration import calibrate
from vision.cards import cardnet, midnet
from vision.cards.piles import PileSpot, piles_path, save_spots
from vision.cards.styles import card_image, card_style
from vision.synth import Conditions, render



@pytest.fixture
def without(tmp_path, monkeypatch):
    """``without(net)``: the shipped model file of ``net`` (midnet or cardnet) looked for
    where there is none, as after a broken install; said afresh in this test."""
    monkeypatch.setattr(sources, "_CARD_WARNED", set())

    def gone(module):
        cls = module.MidNet if module is midnet else module.CardNet
        nowhere = tmp_path / "gone" / module.MODEL_PATH.name
        monkeypatch.setattr(cls.__init__, "__defaults__", (nowhere,))
        module.shipped.cache_clear()
    yield gone
    monkeypatch.undo()
    midnet.shipped.cache_clear()
    cardnet.shipped.cache_clear()


def test_the_referee_says_once_that_the_middle_reader_is_missing(tmp_path, without, capsys):
    without(midnet)
    layout = builtin_layout("classic")
    cond = Conditions(width=640, height=480)
    frames = tmp_path / "frames"
    frames.mkdir()
    img = render(layout, Observation.empty(10, 10), cond, seed=1, jitter=0).image
    for k in range(3):
        cv2.imwrite(str(frames / f"frame_{k:03d}.png"), img)
    cal = tmp_path / "calibration.json"
    calibrate([img], layout).save(cal)
    save_spots(piles_path(cal), [PileSpot(0, 60, 400, 150)], 640, 480)
    cfg = tmp_path / "seqboard.toml"
    cfg.write_text(f'[game]\nplayers = 2\njudge_cards = true\n\n[sensing]\nsource = "camera"\n\n'
                   f'[camera]\ndevice = "{frames}"\ncalibration = "{cal}"\n'
                   f'width = 640\nheight = 480\n\n'
                   f'[gpio]\nenabled = false\n\n[dashboard]\nenabled = false\n', "utf-8")
    argv = ["referee", "--config", str(cfg), "--records", str(tmp_path / "records"), "--new",
            "--no-dashboard", "--speed", "0"]
    assert main(argv) == 0
    err = capsys.readouterr().err.strip().splitlines()
    said = [x for x in err if "midnet.onnx" in x]
    assert len(said) == 1, err
    assert said[0].startswith("warning: ") and "model file is missing" in said[0]
    assert "the index corners read the cards alone" in said[0]
    assert "python -m vision.cards.train mid" in said[0]             # how to get it back
    # a second game in the same process: not said again on the terminal ...
    assert main(argv) == 0
    assert "midnet.onnx" not in capsys.readouterr().err
    # ... but in each game's log, for the page
    from engine.referee import Referee
    from seqboard.app import load_settings
    from seqboard.session import Session
    ref = Referee("classic", 2)
    ref.judge_cards = True
    session = Session(ref)
    sources.live_source_factory(load_settings(str(cfg)), speed=0)(session)
    assert any("midnet.onnx" in x["text"] for x in session.log)


def test_read_cards_says_which_reader_is_missing_and_reads_with_the_rest(tmp_path, without,
                                                                          capsys):
    table = np.full((300, 400, 3), (30, 45, 25), np.uint8)      # a 9C on a green cloth
    im = card_image("9C", card_style("classic", 2), 150)
    a = im[..., 3:] / 255
    h, w = im.shape[:2]
    table[60:60 + h, 150:150 + w] = (im[..., :3] * a + table[60:60 + h, 150:150 + w]
                                     * (1 - a)).astype(np.uint8)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table)
    assert main(["read", str(photo), "--cards"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("9C") and "missing" not in err     # nothing said when all is there
    without(midnet)
    without(cardnet)
    assert main(["read", str(photo), "--cards"]) == 0
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    assert "cardnet.onnx" in lines[0] and "the classic reader reads the cards instead" in lines[0]
    assert "midnet.onnx" in lines[1]
    assert out.startswith("9C")               # the classic reader still reads a clear card
