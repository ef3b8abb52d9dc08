"""Builders for app tests: a configuration file, a session on a simulated table, mock pins."""

from __future__ import annotations

from pathlib import Path

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
