"""A user's mistake gets one clear line naming what is at fault, and a non-zero exit."""

from __future__ import annotations

from pathlib import Path

import pytest

from hw_config.reference import BEGIN, markdown
from seqboard.cli import main

from .helpers import write_config

ROOT = Path(__file__).resolve().parents[2]

BAD = [
    ("[game]\nplayers = 14\n", "game.players: expected a number from 2 to 12, got 14"),
    ("[game]\nplayers = \"two\"\n", "game.players: expected"),
    ("[game]\nedition = \"chess\"\n", "game.edition: expected one of"),
    ("[game]\nplayers = 5\n", "game.players: expected one of"),
    ("[game]\ncolours = [\"B\", \"B\"]\n", "game.colours"),
    ("[camra]\nwidth = 640\n", "camra: unknown key (did you mean 'camera'?)"),
    ("[camera]\nwidht = 640\n", "camera.widht: unknown key (did you mean 'width'?)"),
    ("[gpio]\nsequence_led = 20\n", "GPIO20 is already used"),
    ("[gpio]\nturn_leds = [5, 99]\n", "gpio.turn_leds: expected a list of BCM GPIO numbers"),
    ("[matrix]\nbaud = 1234\n", "matrix.baud: expected one of"),
    ("[game\nplayers = 2\n", "line 1"),
    ("[game]\nlayout = \"/nonexistent/board.txt\"\n", "game.layout"),
]


@pytest.mark.parametrize("text,expected", BAD, ids=[b[1][:30] for b in BAD])
def test_bad_config_gives_one_line_naming_the_key(tmp_path, capsys, text, expected):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text, "utf-8")
    code = main(["demo", "--config", str(cfg), "--records", str(tmp_path / "r"), "--fast"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("seqboard: error: ") and str(cfg) in err[0]
    assert expected in err[0]
    assert not (tmp_path / "r").exists() or not list((tmp_path / "r").iterdir())


def test_config_check_names_every_mistake(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[game]\nplayers = 14\n[camra]\nx = 1\n[gpio]\nsequence_led = 20\n", "utf-8")
    assert main(["config", "check", str(cfg)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3
    assert all(line.startswith(str(cfg) + ": ") for line in err)


def test_config_file_that_is_not_text(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_bytes(b"[game]\nplayers = \xff\xfe\n")
    assert main(["referee", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(cfg) in err[0]


def test_config_init_writes_a_file_that_checks(tmp_path, capsys):
    cfg = tmp_path / "new.toml"
    assert main(["config", "init", str(cfg)]) == 0
    assert main(["config", "check", str(cfg)]) == 0
    assert main(["config", "init", str(cfg)]) == 2      # never overwrites silently
    assert "already exists" in capsys.readouterr().err


def test_missing_serial_port_is_one_line(tmp_path, capsys):
    cfg = write_config(tmp_path, sensing={"source": "matrix"},
                       matrix={"port": str(tmp_path / "ttyNOPE")}, gpio={"enabled": False})
    code = main(["referee", "--config", str(cfg), "--records", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "matrix.port" in err[0] and "ttyNOPE" in err[0]


def test_missing_calibration_is_one_line(tmp_path, capsys):
    cfg = write_config(tmp_path, camera={"calibration": str(tmp_path / "none.json"),
                                         "device": str(tmp_path)}, gpio={"enabled": False})
    code = main(["referee", "--config", str(cfg), "--records", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "camera.calibration" in err[0] and "seqboard calibrate" in err[0]


def test_real_gpio_off_a_pi_is_one_line(tmp_path, capsys):
    cfg = write_config(tmp_path, sensing={"source": "matrix"}, matrix={"port": "loop://"})
    code = main(["referee", "--config", str(cfg), "--records", str(tmp_path / "r"), "--new"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("seqboard: error: gpio:")


def test_resume_without_an_unfinished_game(tmp_path, capsys):
    code = main(["demo", "--resume", "--records", str(tmp_path), "--config",
                 str(write_config(tmp_path))])
    assert code == 2 and "no unfinished demo game" in capsys.readouterr().err


def test_configuration_page_lists_every_key():
    page = (ROOT / "docs" / "configuration.md").read_text("utf-8")
    assert page[page.index(BEGIN):].strip() == markdown().strip(), \
        "docs/configuration.md is out of date: python -m hw_config.reference"


def test_service_print_gives_a_unit_that_restarts_and_runs_the_chosen_mode(capsys):
    from seqboard.cli import main as cli
    assert cli(["service", "print", "--mode", "play", "--user", "pi",
                "--config", "/home/pi/seqboard.toml"]) == 0
    unit = capsys.readouterr().out
    lines = unit.splitlines()
    assert "User=pi" in lines and "Restart=on-failure" in lines
    assert "WantedBy=multi-user.target" in lines
    exec_line = next(x for x in lines if x.startswith("ExecStart="))
    assert exec_line.endswith("seqboard play --config /home/pi/seqboard.toml")
    # the groups for the GPIO pins, the camera and the serial port
    assert "SupplementaryGroups=gpio video dialout" in lines
