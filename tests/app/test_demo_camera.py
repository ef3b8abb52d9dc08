"""`seqboard demo`: the synthetic camera films a whole game into the app; every stage real."""

from __future__ import annotations

from seqboard.cli import main

from .helpers import check_demo_record, write_config


def test_demo_through_the_synthetic_camera(tmp_path, capsys):
    cfg = write_config(tmp_path)
    records = tmp_path / "records"
    code = main(["demo", "--fast", "--seed", "1", "--records", str(records), "--config", str(cfg),
                 "--no-dashboard", "--new"])
    out = capsys.readouterr().out
    assert code == 0
    entries = check_demo_record(records)
    rules = [v.get("rule") for v in entries if v["type"] == "verdict" and v["kind"] == "violation"]
    assert rules == ["out_of_turn"]
    assert any(e["type"] == "move" and e["action"] == "dead" for e in entries)
    assert "blue wins" in out and "buzzer patterns sounded on the mock pins" in out
