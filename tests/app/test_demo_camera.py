"""`seqboard demo`: the synthetic camera films a whole game into the app; every stage real."""

from __future__ import annotations

import json

from engine.record import parse_record, replay
from seqboard.cli import main

from .helpers import write_config


def test_demo_through_the_synthetic_camera(tmp_path, capsys):
    cfg = write_config(tmp_path)
    records = tmp_path / "records"
    code = main(["demo", "--fast", "--seed", "5", "--records", str(records), "--config", str(cfg),
                 "--no-dashboard", "--new"])
    out = capsys.readouterr().out
    assert code == 0
    path = next(records.glob("*-demo.jsonl"))
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    verdicts = [e for e in entries if e["type"] == "verdict"]
    # the camera saw every move: as many placements/removals as moves via observation
    seen = [v for v in verdicts if v["kind"] in ("placement", "removal")]
    moved = [e for e in entries if e["type"] == "move" and e["via"] == "observation"]
    assert len(moved) >= 30 and len([e for e in entries if e.get("event") == "reject"]) == 1
    assert len(seen) == len(moved) + 1          # the rejected placement, taken back
    rules = [v.get("rule") for v in verdicts if v["kind"] == "violation"]
    assert rules == ["out_of_turn"]
    assert any(e["type"] == "move" and e["action"] == "dead" for e in entries)
    assert entries[-1]["type"] == "end" and entries[-1]["winner"] == 0
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok and result.winner == 0
    assert "blue wins" in out and "buzzer patterns sounded on the mock pins" in out
