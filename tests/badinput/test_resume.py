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
