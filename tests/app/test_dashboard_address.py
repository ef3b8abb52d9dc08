"""Issue 22: the dashboard's address and PIN stay in sight, and a PIN made up once stays."""

from __future__ import annotations

import argparse
import io
import stat

import pytest

from hw_config.config import load_config, set_key
from seqboard.app import load_settings, open_session
from seqboard.commands.demo import start_dashboard
from seqboard.indicators.terminal import NOTES, TerminalIndicator
from seqboard.loop import Commands, read_keys

from ..ports import free_port
from .helpers import write_config


@pytest.fixture(autouse=True)
def clean_notes():
    NOTES.clear()
    yield
    NOTES.clear()



def test_set_key_keeps_the_file_and_creates_a_private_one(tmp_path):
    cfg = write_config(tmp_path)
    before = cfg.read_text("utf-8")
    set_key(str(cfg), "dashboard", "pin", "482913")
    after = cfg.read_text("utf-8")
    assert load_config(str(cfg))["dashboard.pin"] == "482913"
    assert after.count("\n") == before.count("\n") and after.count("#") == before.count("#")
    new = tmp_path / "sub" / "new.toml"
    set_key(str(new), "dashboard", "pin", "1234")
    assert load_config(str(new))["dashboard.pin"] == "1234"
    assert stat.S_IMODE(new.stat().st_mode) == 0o600          # the PIN is not for every user
    with pytest.raises(ValueError):
        set_key(str(new), "dashboard", "pin", "a b")


def _start(cfg_path, tmp_path, mode="referee"):
    conf = load_settings(str(cfg_path))
    session = open_session(conf, mode, tmp_path / "records", False, seed=1, full_game=False,
                           computers={})
    args = argparse.Namespace(no_dashboard=False)
    return start_dashboard(conf, session, Commands(), tmp_path / "records", args)


def test_a_service_start_keeps_the_pin_it_made_up(tmp_path, capsys):
    cfg = write_config(tmp_path, dashboard={"host": "127.0.0.1", "port": free_port()})
    dash = _start(cfg, tmp_path)
    first = dash.pin
    dash.stop()
    out = capsys.readouterr().out
    assert f"a new PIN, written to {cfg} (dashboard.pin)" in out
    assert f"PIN {first} to act from the page" in out
    assert load_config(str(cfg))["dashboard.pin"] == first
    dash = _start(cfg, tmp_path)                                  # the next start (a reboot)
    dash.stop()
    out = capsys.readouterr().out
    assert dash.pin == first and "a new PIN" not in out


def test_address_and_pin_under_the_live_board_and_on_the_a_key(tmp_path, capsys):
    cfg = write_config(tmp_path, dashboard={"host": "127.0.0.1", "port": free_port(),
                                            "pin": "5791"})
    dash = _start(cfg, tmp_path)
    try:
        line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("dashboard:"))
        assert "PIN 5791" in line and f":{dash.port}" in line
        # after many moves the live screen still shows it under the status line
        term = io.StringIO()
        TerminalIndicator(term, live=True, colour=False)(None, dash.session.view())
        screen = term.getvalue().splitlines()
        status = next(i for i, ln in enumerate(screen) if "sequences:" in ln)
        assert screen[status + 1] == line
        # and the a key prints it again in a plain terminal
        out = io.StringIO()
        read_keys(lambda: dash.session, Commands(), io.StringIO("a\n"), out)
        assert out.getvalue().strip() == line
        # the page never gets the PIN
        assert "5791" not in dash._state
    finally:
        dash.stop()
