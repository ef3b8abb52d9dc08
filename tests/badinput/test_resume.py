"""An unfinished record that cannot be resumed is named, with why; it is never ignored
without a word, and never changed."""

from __future__ import annotations

import json

from seqboard.cli import main

from ..app.helpers import write_config


def _pretty_unfinished(records, mode="demo"):
    records.mkdir()
    setup = {"type": "setup", "version": 1, "edition": "classic", "players": 2, "teams": 2,
             "colours": ["B", "G"], "options": {}, "first_player": 0, "mode": mode, "seed": 3}
    path = records / "20260101-120000-demo.jsonl"
    path.write_text(json.dumps(setup, indent=2) + "\n", "utf-8")
    return path


def test_resume_names_a_pretty_printed_record_and_why(tmp_path, capsys):
    path = _pretty_unfinished(tmp_path / "r")
    before = path.read_bytes()
    code = main(["demo", "--resume", "--records", str(tmp_path / "r"), "--config",
                 str(write_config(tmp_path)), "--no-dashboard"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert path.name in err[0] and "not one JSON entry per line" in err[0]
    assert path.read_bytes() == before


def test_a_new_game_says_which_record_it_does_not_resume(tmp_path, capsys):
    from seqboard.app import pick_record
    import io
    path = _pretty_unfinished(tmp_path / "r")
    out = io.StringIO()
    assert pick_record(tmp_path / "r", "demo", None, ask=lambda q: "y", out=out) is None
    assert f"not resuming {path.name}" in out.getvalue()
    assert "pretty-printed" in out.getvalue()


def test_a_device_or_pipe_named_like_a_record_is_not_read(tmp_path):
    import os

    from seqboard.recorder import unfinished_record, unresumable_records
    records = tmp_path / "r"
    records.mkdir()
    os.symlink("/dev/zero", records / "20260101-000000-demo.jsonl")
    os.mkfifo(records / "20260101-000001-demo.jsonl")
    # neither is read (a read of /dev/zero never ends, a pipe's blocks)
    assert unfinished_record(records, "demo") is None
    assert unresumable_records(records, "demo") == []


def test_resume_refuses_a_record_the_rules_do_not_allow_and_keeps_it(tmp_path):
    """A tampered unfinished record (a move by the player not to play) is not resumed: going
    on would write a game the rules do not allow. The file is kept as it was."""
    import pytest

    from hw_config.config import load_config
    from seqboard.app import open_session
    from seqboard.errors import UserError
    records = tmp_path / "r"
    records.mkdir()
    setup = {"type": "setup", "version": 2, "game": "board", "edition": "classic", "players": 2,
             "teams": 2, "colours": ["B", "G"], "options": {}, "first_player": 0, "mode": "referee"}
    move = {"type": "move", "n": 1, "player": 1, "action": "place", "card": "5H", "space": "e5",
            "via": "engine"}
    path = records / "20260101-120000-referee.jsonl"
    path.write_text(json.dumps(setup, separators=(",", ":")) + "\n"
                    + json.dumps(move, separators=(",", ":")) + "\n", "utf-8")
    before = path.read_bytes()
    cfg = load_config(str(write_config(tmp_path)))
    with pytest.raises(UserError) as err:
        open_session(cfg, "referee", records, True, seed=None, full_game=False)
    text = str(err.value)
    assert "\n" not in text and path.name in text and "line 2" in text and "cannot resume" in text
    assert path.read_bytes() == before
