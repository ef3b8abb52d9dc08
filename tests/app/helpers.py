"""Builders for app tests: a configuration file, a session on a simulated table, mock pins."""

from __future__ import annotations

import json
from pathlib import Path

from engine.record import parse_record, replay
from hw_config.config import default_text


def write_config(tmp: Path, extra: str = "", **sections: dict) -> Path:
    """A configuration file: the commented defaults, with keys replaced per section."""
    text = default_text()
    for section, keys in sections.items():
        for key, value in keys.items():
            text = _set(text, section, key, value)
    path = tmp / "seqboard.toml"
    path.write_text(text + extra, "utf-8")
    return path


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return repr(v)


def _set(text: str, section: str, key: str, value) -> str:
    lines = text.split("\n")
    cur = None
    for i, ln in enumerate(lines):
        s = ln.strip()
        if s.startswith("[") and s.endswith("]"):
            cur = s[1:-1]
        elif cur == section and (s.startswith(key + " ") or s.startswith(key + "=")):
            lines[i] = f"{key} = {_toml(value)}"
            return "\n".join(lines)
    raise KeyError(f"{section}.{key} not in the default configuration")


def pin_history(factory, pin: int) -> list[tuple[float, float]]:
    return [(s.timestamp, float(s.state)) for s in factory.pin(pin).states]


def check_demo_record(records: Path) -> list[dict]:
    """The demo's record, checked as any source must leave it: every move of the table
    reached the referee through the source, the one rejected placement was taken back,
    blue won, and the record replays; its entries for more checks."""
    path = next(records.glob("*-demo.jsonl"))
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    verdicts = [e for e in entries if e["type"] == "verdict"]
    seen = [v for v in verdicts if v["kind"] in ("placement", "removal")]
    moved = [e for e in entries if e["type"] == "move" and e["via"] == "observation"]
    assert len(moved) >= 30
    assert len(seen) == len(moved) + 1          # and the rejected placement, taken back
    assert [e["event"] for e in entries if e["type"] == "event"] == ["reject"]
    assert entries[-1]["type"] == "end" and entries[-1]["winner"] == 0
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok and result.winner == 0
    return entries
