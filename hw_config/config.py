"""Load, validate and write the configuration file.

``load_config(path)`` returns a :class:`Config` (every section a dict with all keys, the
defaults filled in) or raises :class:`ConfigError` listing every mistake, each naming its
key and what it expected. A missing file is the defaults (a user who changes nothing).
"""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .schema import MAX_TEXT, SCHEMA, Key

MAX_BYTES = 256 * 1024          # a configuration file is a few kB

DEFAULT_PATH = "~/.config/seqboard/seqboard.toml"
SHOWN = 5                       # mistakes named on the one line a refused start prints


class ConfigError(ValueError):
    """The configuration file is unreadable or has mistakes (all of them listed)."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        shown = "; ".join(problems[:SHOWN])
        if len(problems) > SHOWN:
            shown += (f"; and {len(problems) - SHOWN} more (`seqboard config check {path}` "
                      f"lists them)")
        super().__init__(f"{path}: {shown}")


@dataclass
class Config:
    """A validated configuration: ``cfg.section("gpio")["illegal_led"]``."""

    data: dict[str, dict[str, Any]]
    path: str | None = None

    def section(self, name: str) -> dict[str, Any]:
        return self.data[name]

    def __getitem__(self, dotted: str) -> Any:
        sec, key = dotted.rsplit(".", 1)
        return self.data[sec][key]

    def expand(self, dotted: str) -> Path:
        """A path-valued key with ``~`` expanded."""
        return Path(str(self[dotted])).expanduser()


def _type_name(t: Any) -> str:
    return {int: "a whole number", float: "a number", str: "a string", bool: "true or false",
            list: "a list"}[t]


def _show(value: Any, limit: int = 60) -> str:
    """A value as the user wrote it, cut short (an error line stays one readable line)."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"a deeply nested {type(value).__name__}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_value(name: str, key: Key, value: Any) -> tuple[Any, str | None]:
    t = key.type
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if t is int and isinstance(value, bool) or not isinstance(value, t):
        got = type(value).__name__
        return value, f"{name}: expected {_type_name(t)}, got {got} {_show(value)}"
    if t is str and (len(value) > MAX_TEXT or not value.isprintable()):
        shown = value[:40] + ("..." if len(value) > 40 else "")
        return value, (f"{name}: expected at most {MAX_TEXT} printable characters (no control "
                       f"characters), got {_show(shown)}")
    if t is list and len(value) > key.max_items:
        return value, f"{name}: expected at most {key.max_items} items, got {len(value)}"
    if t is list and key.item is not None:
        for item in value:
            if isinstance(item, (list, dict)):
                return value, f"{name}: expected a list of {_type_name(key.item)}s, got a nested {type(item).__name__} in it"
            if not isinstance(item, key.item) or isinstance(item, bool) and key.item is int:
                return value, f"{name}: expected a list of {_type_name(key.item)}s, got {_show(item)} in it"
    if key.check:
        expected = key.check(value)
        if expected:
            return value, f"{name}: expected {expected}, got {_show(value)}"
    return value, None


def validate(raw: dict[str, Any], extra_checks: Callable[[dict], list[str]] | None = None
             ) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Defaults merged with ``raw``; and every problem found, in file order.

    ``extra_checks(data)`` may add problems that need outside knowledge (the app passes the
    rules engine's player counts).
    """
    problems: list[str] = []
    data: dict[str, dict[str, Any]] = {s: {k: v.default for k, v in keys.items()}
                                        for s, keys in SCHEMA.items()}

    def walk(prefix: str, table: dict[str, Any]) -> None:
        for k, v in table.items():
            dotted = f"{prefix}.{k}" if prefix else k
            if dotted in SCHEMA:
                if not isinstance(v, dict):
                    problems.append(f"{dotted}: expected a table [{dotted}], got {_show(v)}")
                    continue
                walk(dotted, v)
                continue
            if prefix in SCHEMA and k in SCHEMA[prefix]:
                value, problem = _check_value(dotted, SCHEMA[prefix][k], v)
                if problem:
                    problems.append(problem)
                else:
                    data[prefix][k] = value
                continue
            known = list(SCHEMA[prefix]) if prefix in SCHEMA else [s for s in SCHEMA if "." not in s]
            close = difflib.get_close_matches(k, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append(f"{dotted}: unknown key{hint}")

    walk("", raw)
    problems += _cross_checks(data)
    if extra_checks is not None:  # invalid values were not merged: it sees defaults there
        problems += extra_checks(data)
    return data, problems


def _cross_checks(d: dict[str, dict[str, Any]]) -> list[str]:
    """Checks between keys that need no knowledge of the rules (the app adds those)."""
    out: list[str] = []
    g = d["game"]
    n = g["players"]
    if g["first_player"] > n:
        out.append(f"game.first_player: expected a seat from 1 to {n}, got {g['first_player']}")
    bad = [s for s in g["computer_seats"] if s > n]
    if bad:
        out.append(f"game.computer_seats: expected seats from 1 to {n}, got {bad[0]}")
    if g["names"] and len(g["names"]) != n:
        out.append(f"game.names: expected {n} names, got {len(g['names'])}")
    gpio = d["gpio"]
    if gpio["enabled"]:
        used: dict[int, str] = {}
        singles = ["sequence_led", "dead_card_led", "illegal_led", "buzzer", "confirm_button",
                   "undo_button", "lost_draw_button"]
        named = [(f"gpio.turn_leds[{i}]", p) for i, p in enumerate(gpio["turn_leds"])]
        named += [(f"gpio.{k}", gpio[k]) for k in singles if gpio[k]]
        named += [(f"gpio.rgb_led[{i}]", p) for i, p in enumerate(gpio["rgb_led"])]
        for name, pin in named:
            if pin in used:
                out.append(f"{name}: GPIO{pin} is already used by {used[pin]}")
            else:
                used[pin] = name
        if gpio["rgb_led"] and len(gpio["rgb_led"]) != 3:
            out.append(f"gpio.rgb_led: expected 3 pins [red, green, blue], got {len(gpio['rgb_led'])}")
    table = d["leds"]["table"]
    if table and sorted(table) != list(range(len(table))):
        out.append("leds.table: expected each LED index 0..N-1 exactly once")
    return out


def read_raw(path: str) -> dict[str, Any]:
    import os
    import stat
    p = Path(path).expanduser()
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):
            raise ConfigError(str(p), ["not a regular file (a device, pipe or folder)"])
        with open(p, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(str(p), ["no such file (`seqboard config init` writes one)"]) from None
    except OSError as exc:
        raise ConfigError(str(p), [f"cannot read: {exc.strerror}"]) from None
    if len(data) > MAX_BYTES:
        raise ConfigError(str(p), [f"larger than {MAX_BYTES} bytes: not a configuration file"])
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(str(p), [f"byte {exc.start} is not UTF-8 text"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), [f"not valid TOML: {exc}"]) from None
    except RecursionError:
        raise ConfigError(str(p), [_too_deep(data.decode("utf-8", "replace"))]) from None
    return raw


def _too_deep(text: str) -> str:
    """Name the line (and key) of a value nested too deeply for the TOML reader."""
    section, depth, worst = "", 0, (0, 0, "")
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s.startswith("[") and s.endswith("]") and "=" not in s and depth == 0:
            section = s.strip("[]").strip()
            if s.count("[") > worst[0]:
                worst = (s.count("["), n, section[:40])
            continue
        here = 0
        for ch in line:
            if ch in "[{":
                depth += 1
                here = max(here, depth)
            elif ch in "]}":
                depth = max(0, depth - 1)
        if here > worst[0]:
            key = s.split("=", 1)[0].strip() if "=" in s else ""
            worst = (here, n, f"{section}.{key}".strip(".")[:80] if key else section[:40])
    _, n, key = worst
    where = f"line {n}" + (f" ({key})" if key else "")
    return f"{where}: values nested too deeply: not a configuration file"


def check_config(path: str, extra_checks: Callable[[dict], list[str]] | None = None) -> list[str]:
    """Every mistake in the file (empty when it is fine)."""
    try:
        raw = read_raw(path)
    except ConfigError as exc:
        return exc.problems
    return validate(raw, extra_checks)[1]


def load_config(path: str | None = None, *, missing_ok: bool = True,
                extra_checks: Callable[[dict], list[str]] | None = None) -> Config:
    """The configuration at ``path`` (default ``~/.config/seqboard/seqboard.toml``).

    With ``missing_ok``, a missing file at the default path gives the defaults.
    """
    target = path or DEFAULT_PATH
    p = Path(target).expanduser()
    if not p.exists() and missing_ok and path is None:
        data, problems = validate({}, extra_checks)
        return Config(data, None)
    raw = read_raw(target)
    data, problems = validate(raw, extra_checks)
    if problems:
        raise ConfigError(str(p), problems)
    return Config(data, str(p))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(v)


def default_text() -> str:
    """The commented starting file: every key at its default, with what it means."""
    out = ["# seqboard configuration: one file describes one installation.",
           "# Every key is optional; the value shown is the default.",
           "# Check it with: seqboard config check FILE", ""]
    for section, keys in SCHEMA.items():
        out.append(f"[{section}]")
        for k, key in keys.items():
            out.append(f"# {key.help}")
            out.append(f"{k} = {_toml_value(key.default)}")
        out.append("")
    return "\n".join(out)


def set_key(path: str | None, section: str, key: str, value: Any) -> Path:
    """Write one key into the configuration file (created, readable by its owner only, when
    missing), keeping every other line and comment; the file's path. OSError when it
    cannot be written. The value is checked against the schema first (ValueError)."""
    spec = SCHEMA[section][key]
    checked, problem = _check_value(f"{section}.{key}", spec, value)
    if problem:
        raise ValueError(problem)
    p = Path(path or DEFAULT_PATH).expanduser()
    line = f"{key} = {_toml_value(checked)}"
    if p.exists():
        lines = p.read_text("utf-8").split("\n")
    else:
        p.parent.mkdir(parents=True, exist_ok=True)
        lines = []
    cur, at, done = None, None, False
    for i, ln in enumerate(lines):
        t = ln.strip()
        if t.startswith("[") and t.endswith("]"):
            cur = t[1:-1].strip()
            if cur == section:
                at = i
        elif cur == section and (t.startswith(key + " ") or t.startswith(key + "=")):
            lines[i] = line
            done = True
            break
    if not done:
        if at is None:
            lines += ["", f"[{section}]", line, ""]
        else:
            lines.insert(at + 1, line)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text("\n".join(lines), "utf-8")
    os.chmod(tmp, p.stat().st_mode & 0o777 if p.exists() else 0o600)
    os.replace(tmp, p)
    return p
