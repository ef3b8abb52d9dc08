"""The bad-input corpus: files, arguments and serial frames a user (or a broken board) could
give, generated where that is natural, each with what the answer must name.

Every case is run the way a user meets it: a command line through ``seqboard.cli.main``
in-process (output captured), or a serial frame fed to the host's decoder and to the
firmware's core. What each must give (:func:`verify`): a non-zero exit, a clear error line
naming the file, key, argument or byte, no traceback, and nothing lost (files a case
marks as kept are unchanged afterwards).

``benchmarks/faults.py`` runs the same generators (:func:`all_cases`, :func:`run_case`).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import struct
import sys
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]

# What a case writes into its folder: bytes, or one of these markers.
FIFO, DIR = "<fifo>", "<dir>"


@dataclass
class Case:
    id: str
    group: str                         # config, calibration, record, layout, deck, image, cli, frame
    argv: list[str] = field(default_factory=list)   # "{d}" is the case's folder
    files: dict = field(default_factory=dict)       # name -> bytes | FIFO | DIR | callable(d)
    expect: tuple[str, ...] = ()       # each must appear in the error text ("{d}" expanded)
    keep: tuple[str, ...] = ()         # files that must be unchanged afterwards
    one_line: bool = True              # exactly one line on stderr (config check: one a mistake)
    stdout_ok: bool = False            # the answer may be a report on stdout (replay's verdicts)
    fn: Callable[[Path], "Result"] | None = None    # not a command: run this instead
    xfail: str | None = None           # known to fail today, and why (another branch's)


@dataclass
class Result:
    code: object                       # exit code, or "traceback"
    out: str
    err: str


# --- running ------------------------------------------------------------------------------
def run_cli(argv: list[str]) -> Result:
    from seqboard.cli import main
    out, err = io.StringIO(), io.StringIO()
    old_in = sys.stdin
    sys.stdin = io.StringIO("")            # a command that reads the keyboard sees it closed
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
            except BaseException:          # noqa: BLE001 - what a user would have seen
                traceback.print_exc(file=err)
                code = "traceback"
    finally:
        sys.stdin = old_in
    return Result(code, out.getvalue(), err.getvalue())


def materialise(case: Case, d: Path) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        p = d / name
        if content == FIFO:
            os.mkfifo(p)
        elif content == DIR:
            p.mkdir()
        elif callable(content):
            content(p)
        else:
            p.write_bytes(content)


def run_case(case: Case, d: Path) -> Result:
    materialise(case, d)
    if case.fn is not None:
        try:
            return case.fn(d)
        except BaseException:               # noqa: BLE001
            return Result("traceback", "", traceback.format_exc())
    return run_cli([a.replace("{d}", str(d)) for a in case.argv])


def snapshot(case: Case, d: Path) -> dict[str, bytes]:
    return {k: (d / k).read_bytes() for k in case.keep if (d / k).is_file()}


def verify(case: Case, res: Result, d: Path, before: dict[str, bytes]) -> list[str]:
    """Why the answer to a bad input is not good enough (empty: it is)."""
    bad = []
    if res.code == "traceback" or "Traceback" in res.err or "Traceback" in res.out:
        return [f"a traceback:\n{res.err[-2000:]}"]
    if res.code in (0, None):
        bad.append(f"exit {res.code!r}: accepted")
    text = res.err + (res.out if case.stdout_ok else "")
    lines = [ln for ln in res.err.splitlines() if ln.strip()]
    if not lines and not (case.stdout_ok and res.out.strip()):
        bad.append("no error line")
    elif case.one_line and len(lines) != 1:
        bad.append(f"{len(lines)} error lines: {lines[:3]}")
    for want in case.expect:
        want = want.replace("{d}", str(d))
        if want not in text:
            bad.append(f"the error does not name {want!r}: {text.strip()[:300]!r}")
    if any(len(ln) > 600 for ln in lines):
        bad.append("an error line longer than 600 characters")
    if any(ch in text for ch in "\x1b\x07\x00"):
        bad.append("control characters reach the terminal")
    for name, data in before.items():
        p = d / name
        if not p.is_file() or p.read_bytes() != data:
            bad.append(f"{name} was changed or removed")
    return bad


# --- helpers for the files ----------------------------------------------------------------
def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_header(w: int, h: int) -> bytes:
    """A PNG that says it is ``w`` x ``h`` (its pixels need not follow: the size alone
    must be refused before anything is decoded)."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", idat) + \
        _png_chunk(b"IEND", b"")


def real_png(w: int, h: int, seed: int = 0) -> bytes:
    import cv2
    import numpy as np
    img = np.random.default_rng(seed).integers(0, 255, (h, w, 3), dtype=np.uint8)
    return cv2.imencode(".png", img)[1].tobytes()


def jpeg_header(w: int, h: int) -> bytes:
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9 + sof + b"\xff\xd9"


def bmp_header(w: int, h: int) -> bytes:
    return b"BM" + struct.pack("<IHHI", 54, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, 0, 0, 0, 0, 0)


def nested(depth: int, open_: str = "[", close: str = "]") -> str:
    return open_ * depth + close * depth


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)             # JSON's escapes are TOML's basic string escapes
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return repr(v)


# --- configurations -----------------------------------------------------------------------
def _bad_values(key) -> list[tuple[str, object]]:
    """Values of the wrong type, out of range, not finite, too long, with control chars."""
    t = key.type
    out: list[tuple[str, object]] = []
    wrong = {int: "seven", float: "fast", str: 5, bool: "yes", list: 3}[t]
    out.append(("type", wrong))
    if t is int:
        out += [("huge", 10**30), ("float", 2.5)]
        if key.check is not None:
            out.append(("negative", -7))
    if t is float:
        out += [("nan", float("nan")), ("inf", float("inf")), ("neg-inf", float("-inf"))]
        if key.check is not None:
            out.append(("huge", 1e300))
    if t is str:
        out += [("escape", "a\x1b[2Jb"), ("overlong", "x" * 5000)]
    if t is list:
        item = key.item or str
        out += [("too-many", [2 if item is int else "B"] * 1100),
                ("nested", [[2 if item is int else "B"]]),
                ("wrong-item", ["x"] if item is int else [7])]
    return out


def config_cases() -> list[Case]:
    from hw_config.schema import SCHEMA
    cases = []
    for section, keys in SCHEMA.items():
        for name, key in keys.items():
            for label, value in _bad_values(key):
                text = f"[{section}]\n{name} = {toml_value(value)}\n"
                cases.append(Case(f"config-{section}.{name}-{label}", "config",
                                  ["config", "check", "{d}/c.toml"], {"c.toml": text.encode()},
                                  ("{d}/c.toml", f"{section}.{name}"), keep=("c.toml",),
                                  one_line=False))
    special = [
        ("names-nested-500", "[game]\nnames = " + nested(500) + "\n", "game.names"),
        ("names-nested-50", "[game]\nnames = " + nested(50) + "\n", "game.names"),
        ("tables-nested-400", "[" + ".".join(["x"] * 400) + "]\n", "{d}/c.toml"),
        ("inline-nested-500", "[game]\nx = " + nested(500, "{a=", "}").replace("{a=}", "{a=1}") + "\n", "{d}/c.toml"),
        ("leds-table-short", "[leds]\ntable = [0, 1, 2]\n", "leds.table"),
        ("leds-table-repeat", "[leds]\ntable = [" + ", ".join(["0"] * 100) + "]\n", "leds.table"),
        ("leds-table-big-index", "[leds]\ntable = [" + ", ".join(map(str, range(99))) + ", 5000]\n", "leds.table"),
        ("computer-seats-twice", "[game]\ncomputer_seats = [2, 2]\n", "game.computer_seats"),
        ("computer-seats-past-players", "[game]\ncomputer_seats = [3]\n", "game.computer_seats"),
        ("pin-one-char", '[dashboard]\npin = "1"\n', "dashboard.pin"),
        ("pin-spaces", '[dashboard]\npin = "   "\n', "dashboard.pin"),
        ("pin-inner-space", '[dashboard]\npin = "12 34"\n', "dashboard.pin"),
        ("pin-tab", '[dashboard]\npin = "1234\\t"\n', "dashboard.pin"),
        ("pin-too-long", '[dashboard]\npin = "' + "9" * 40 + '"\n', "dashboard.pin"),
        ("names-blank", '[game]\nnames = ["Ann", " "]\n', "game.names"),
        ("names-control", '[game]\nnames = ["Ann", "B\\u0007b"]\n', "game.names"),
        ("names-count", '[game]\nnames = ["Ann"]\n', "game.names"),
        ("host-bad", '[dashboard]\nhost = "my host; rm"\n', "dashboard.host"),
        ("records-nul", '[records]\ndir = "a\\u0000b"\n', "records.dir"),
        ("section-not-table", "game = 5\n", "game"),
        ("options-not-table", "[game]\noptions = 5\n", "game.options"),
        ("unknown-section", "[camra]\nwidth = 640\n", "camra"),
        ("unknown-key", "[camera]\nwidht = 640\n", "camera.widht"),
        ("duplicate-key", "[game]\nplayers = 2\nplayers = 3\n", "{d}/c.toml"),
        ("not-toml", "players: 2\n", "{d}/c.toml"),
        ("unclosed-table", "[game\nplayers = 2\n", "{d}/c.toml"),
        ("unclosed-string", '[game]\nedition = "classic\n', "{d}/c.toml"),
        ("first-player-past", "[game]\nfirst_player = 3\n", "game.first_player"),
        ("teams-impossible", "[game]\nplayers = 4\nteams = 3\n", "game.teams"),
        ("colours-too-few", '[game]\nplayers = 3\ncolours = ["B", "G"]\n', "game.colours"),
        ("gpio-pin-twice", "[gpio]\nsequence_led = 5\n", "gpio"),
        ("rgb-two-pins", "[gpio]\nrgb_led = [2, 3]\n", "gpio.rgb_led"),
        ("ten-thousand-unknown-keys", "[game]\n" + "".join(f"k{i} = 1\n" for i in range(10000)),
         "and 9900 more mistakes"),
    ]
    for label, text, want in special:
        cases.append(Case(f"config-{label}", "config", ["config", "check", "{d}/c.toml"],
                          {"c.toml": text.encode()}, ("{d}/c.toml", want), keep=("c.toml",),
                          one_line=False))
    files = [
        ("binary", b"\xff\xfe\x00[game]\x00\x01", "UTF-8"),
        ("utf16", "[game]\nplayers = 2\n".encode("utf-16"), "UTF-8"),
        ("huge", b"# " + b"x" * 300_000 + b"\n", "bytes"),
        ("empty-is-fine-but-dir", DIR, "regular file"),
        ("fifo", FIFO, "regular file"),
    ]
    for label, content, want in files:
        cases.append(Case(f"config-file-{label}", "config", ["config", "check", "{d}/c.toml"],
                          {"c.toml": content}, ("{d}/c.toml", want), one_line=True))
    cases.append(Case("config-file-dev-zero", "config", ["config", "check", "/dev/zero"], {},
                      ("/dev/zero", "regular file")))
    cases.append(Case("config-file-missing", "config", ["config", "check", "{d}/none.toml"], {},
                      ("{d}/none.toml", "no such file")))
    # the app refuses at start what config check refuses, one line, nothing written
    for label, text, want in [
        ("pin", '[dashboard]\npin = "1"\n', "dashboard.pin"),
        ("seats", "[game]\ncomputer_seats = [2, 2]\n", "game.computer_seats"),
        ("table", "[leds]\ntable = [0, 1, 2]\n", "leds.table"),
        ("names", "[game]\nnames = " + nested(500) + "\n", "game.names"),
        ("layout-dev-zero", '[game]\nlayout = "/dev/zero"\n', "game.layout"),
        ("speed-of-camera", "[camera]\nfps = nan\n", "camera.fps"),
        ("many-mistakes", "[game]\n" + "".join(f"k{i} = 1\n" for i in range(5000)), "4995 more"),
    ]:
        cases.append(Case(f"config-demo-{label}", "config",
                          ["demo", "--config", "{d}/c.toml", "--records", "{d}/rec", "--fast",
                           "--no-dashboard", "--new"],
                          {"c.toml": text.encode()}, ("{d}/c.toml", want), keep=("c.toml",)))
    return cases


# --- calibration files --------------------------------------------------------------------
_VALID_CAL: dict | None = None


def valid_calibration() -> dict:
    """A real calibration, made once from a rendered empty board."""
    global _VALID_CAL
    if _VALID_CAL is None:
        from engine.game import builtin_layout
        from engine.observation import Observation
        from vision.calibration import calibrate
        from vision.synth import Conditions, render
        lay = builtin_layout("classic")
        img = render(lay, Observation.empty(10, 10), Conditions(), seed=1, jitter=0).image
        _VALID_CAL = calibrate([img], lay).to_json()
    return json.loads(json.dumps(_VALID_CAL))


def _cal_file(mutate: Callable[[dict], object]) -> Callable[[Path], None]:
    def write(p: Path) -> None:
        d = valid_calibration()
        out = mutate(d)
        d = d if out is None else out
        p.write_text(d if isinstance(d, str) else json.dumps(d), "utf-8")
    return write


def _set(key, value):
    def m(d):
        d[key] = value
    return m


def _drop(key):
    def m(d):
        del d[key]
    return m


def _ref(sub, value):
    def m(d):
        d["reference"][sub] = value
    return m


def calibration_cases() -> list[Case]:
    muts: list[tuple[str, Callable, str]] = []
    for key in ("version", "rows", "cols", "corners", "image_size", "reference", "layout"):
        muts.append((f"missing-{key}", _drop(key), key))
        muts.append((f"type-{key}", _set(key, "x" if key != "layout" else 5), key))
    nan = float("nan")
    corner_sets = {
        "nan": [[nan, 1], [300, 1], [300, 300], [1, 300]],
        "inf": [[float("inf"), 1], [300, 1], [300, 300], [1, 300]],
        "identical": [[50, 50]] * 4,
        "collinear": [[0, 0], [100, 0], [200, 0], [300, 0]],
        "crossed": [[0, 0], [300, 300], [300, 0], [0, 300]],
        "three": [[0, 0], [300, 0], [300, 300]],
        "huge": [[0, 0], [1e12, 0], [1e12, 1e12], [0, 1e12]],
        "strings": [["a", "b"]] * 4,
        "tiny": [[10, 10], [12, 10], [12, 12], [10, 12]],
        "ragged": [[0, 0, 1], [300, 0], [300, 300], [0, 300]],
    }
    for label, c in corner_sets.items():
        muts.append((f"corners-{label}", _set("corners", c), "corners"))
    muts += [
        ("rows-zero", _set("rows", 0), "rows"), ("rows-huge", _set("rows", 100000), "rows"),
        ("cols-negative", _set("cols", -3), "cols"),
        ("size-zero", _set("image_size", [0, 0]), "image_size"),
        ("size-huge", _set("image_size", [10**9, 10]), "image_size"),
        ("size-three", _set("image_size", [1, 2, 3]), "image_size"),
        ("size-bool", _set("image_size", [True, True]), "image_size"),
        ("version-2", _set("version", 2), "version"),
        ("camera-list", _set("camera", [1]), "camera"),
        ("layout-long", _set("layout", "x" * 500), "layout"),
        ("ref-shape", _ref("centre", [[1, 2, 3]]), "reference"),
        ("ref-nan", lambda d: d["reference"]["centre"][0].__setitem__(0, nan), "reference"),
        ("ref-missing", lambda d: d["reference"].pop("patch") and None, "reference"),
        ("ref-string", _set("reference", "x"), "reference"),
        ("ref-ragged", _ref("radial", [[1], [1, 2]]), "reference"),
        # review attack: valid JSON, the other references right, these two of no shape
        ("ref-band-empty", _ref("band_patch", []), "reference.band_patch"),
        ("ref-band-short", lambda d: d["reference"].__setitem__(
            "band_patch", [row[:5] for row in d["reference"]["band_patch"]]), "reference.band_patch"),
        ("ref-skin-empty", _ref("skin", []), "reference.skin"),
        ("ref-paper-overflow", _ref("paper", [[1e308, 1, 1]] * 100), "reference.paper"),
        ("ref-skin-rows", lambda d: d["reference"].__setitem__(
            "skin", [[v] for v in d["reference"]["skin"]]), "reference.skin"),
        ("not-object", lambda d: [d], "{d}/cal.json"),
        ("nested-100000", lambda d: nested(100_000), "{d}/cal.json"),
        ("nested-obj-100000", lambda d: nested(100_000, '{"a":', "}").replace('{"a":}', "1"), "{d}/cal.json"),
        ("truncated", lambda d: json.dumps(d)[:200], "{d}/cal.json"),
        ("empty", lambda d: "", "{d}/cal.json"),
    ]
    img = real_png(100, 100)
    cases = []
    for label, mut, want in muts:
        cases.append(Case(f"calibration-{label}", "calibration",
                          ["read", "{d}/img.png", "--calibration", "{d}/cal.json"],
                          {"img.png": img, "cal.json": _cal_file(mut)},
                          ("{d}/cal.json", want), keep=("cal.json",)))
    for label, content, want in [("binary", b"\x00\xff\xfe" * 10, "UTF-8"),
                                 ("huge", b" " * (5 * 1024 * 1024), "bytes"),
                                 ("dir", DIR, "regular file"), ("fifo", FIFO, "regular file")]:
        cases.append(Case(f"calibration-file-{label}", "calibration",
                          ["read", "{d}/img.png", "--calibration", "{d}/cal.json"],
                          {"img.png": img, "cal.json": content}, ("{d}/cal.json", want)))
    cases.append(Case("calibration-file-dev-zero", "calibration",
                      ["read", "{d}/img.png", "--calibration", "/dev/zero"], {"img.png": img},
                      ("/dev/zero",)))
    return cases


# --- game records (parsing is engine/record.py's, on branch i20-records) --------------------
def _records_refuse_deep_nesting() -> bool:
    """Whether the record parser refuses deep nesting itself (with the file's name)."""
    from engine.errors import EngineError
    from engine.record import parse_record
    try:
        parse_record(nested(100_000) + "\n", "probe")
    except EngineError:
        return True
    except RecursionError:
        return False
    return True


def record_cases() -> list[Case]:
    setup = {"type": "setup", "version": 1, "edition": "classic", "players": 2, "teams": 2,
             "colours": ["B", "G"], "options": {}, "first_player": 0, "mode": "referee"}
    s = json.dumps(setup)
    bodies = {
        "empty": b"",
        "blank-lines": b"\n\n   \n",
        "not-json": b"hello\n",
        "middle-not-json": (s + "\n{oops\n" + s + "\n").encode(),
        "no-setup-first": b'{"type":"move","seat":0,"action":"place","space":"a2"}\n',
        "unknown-type": (s + '\n{"type":"teleport"}\n').encode(),
        "array-line": b"[1, 2, 3]\n",
        "binary": b"\xff\xfe\x00\x01" * 50 + b"\n",
        "nested-100000": (nested(100_000) + "\n").encode(),
        "nested-obj-100000": (nested(100_000, '{"a":', "}").replace('{"a":}', "1") + "\n").encode(),
        "players-huge": json.dumps({**setup, "players": 10**100}).encode() + b"\n",
        "players-text": json.dumps({**setup, "players": "two"}).encode() + b"\n",
        "edition-unknown": json.dumps({**setup, "edition": "chess"}).encode() + b"\n",
        "move-off-board": (s + '\n{"type":"move","n":0,"player":0,"action":"place","card":"2S","space":"z99"}\n').encode(),
        "move-bad-card": (s + '\n{"type":"move","n":0,"player":0,"action":"place","card":"99Q","space":"b1"}\n').encode(),
        "pretty-printed": json.dumps(setup, indent=2).encode() + b"\n",
        "nan-field": (s[:-1] + ', "seed": NaN}\n').encode(),
    }
    deep = None if _records_refuse_deep_nesting() else (
        "record parsing is engine/record.py's (branch i20-records): json.loads meets "
        "RecursionError; seqboard's last guard prints one line, but not naming the file")
    cases = []
    for label, body in bodies.items():
        if label == "move-bad-card":
            # a well-formed record of an illegal move: replay's report says so (exit 1)
            cases.append(Case(f"record-{label}", "record", ["replay", "{d}/r.jsonl"],
                              {"r.jsonl": body}, ("99Q",), keep=("r.jsonl",), one_line=False,
                              stdout_ok=True))
            continue
        cases.append(Case(f"record-{label}", "record", ["replay", "{d}/r.jsonl"],
                          {"r.jsonl": body}, ("{d}/r.jsonl",), keep=("r.jsonl",),
                          xfail=deep if label.startswith("nested") and deep else None))
    cases.append(Case("record-dir", "record", ["replay", "{d}/r.jsonl"], {"r.jsonl": DIR},
                      ("{d}/r.jsonl",)))
    cases.append(Case("record-missing", "record", ["replay", "{d}/none.jsonl"], {},
                      ("{d}/none.jsonl",)))
    return cases


# --- layouts (through game.layout, as a user gives one) -----------------------------------
def layout_cases() -> list[Case]:
    classic = (ROOT / "engine" / "layouts" / "classic.txt").read_text("utf-8")
    rows = [ln for ln in classic.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "%"))]
    first = rows[0].split()
    texts = {
        "empty": "",
        "comments-only": "# nothing\n# at all\n",
        "ragged": "\n".join(rows[:3] + [" ".join(rows[3].split()[:-1])] + rows[4:]),
        "nine-rows": "\n".join(rows[:9]),
        "eleven-rows": "\n".join(rows + rows[:1]),
        "thirty-rows": "\n".join(rows * 3),
        "hundred-columns": " ".join(first * 10) + "\n",
        "unknown-symbol": "\n".join([rows[0].replace(first[1], "ZZ", 1)] + rows[1:]),
        "triplicate": "\n".join([rows[0].replace(first[1], first[2], 1)] + rows[1:]),
        "directive-parts": "% free XX YY\n" + "\n".join(rows),
        "directive-unknown": "% colour red\n" + "\n".join(rows),
        "verified-maybe": "% verified maybe\n" + "\n".join(rows),
        "escape-symbol": "\n".join([rows[0].replace(first[1], "\x1b[2J", 1)] + rows[1:]),
        "long-line": "x" * 60_000 + "\n",
    }
    cases = []
    for label, text in texts.items():
        cfg = b'[game]\nlayout = "{d}/l.txt"\n'
        cases.append(Case(f"layout-{label}", "layout", ["config", "check", "{d}/c.toml"],
                          {"c.toml": lambda p, cfg=cfg: p.write_bytes(cfg.replace(b"{d}", str(p.parent).encode())),
                           "l.txt": text.encode()},
                          ("game.layout", "{d}/l.txt"), keep=("l.txt",)))
    for label, content, want in [("binary", b"\xff\xfe\x00" * 30, "UTF-8"),
                                 ("huge", b"# " + b"y" * 70_000, "bytes"),
                                 ("dir", DIR, "regular file"), ("fifo", FIFO, "regular file")]:
        cfg = b'[game]\nlayout = "{d}/l.txt"\n'
        cases.append(Case(f"layout-file-{label}", "layout", ["config", "check", "{d}/c.toml"],
                          {"c.toml": lambda p, cfg=cfg: p.write_bytes(cfg.replace(b"{d}", str(p.parent).encode())),
                           "l.txt": content}, ("game.layout", "{d}/l.txt", want)))
    for label, path in [("dev-zero", "/dev/zero"), ("missing", "{d}/none.txt")]:
        cfg = f'[game]\nlayout = "{path}"\n'.encode()
        cases.append(Case(f"layout-file-{label}", "layout", ["config", "check", "{d}/c.toml"],
                          {"c.toml": lambda p, cfg=cfg: p.write_bytes(cfg.replace(b"{d}", str(p.parent).encode()))},
                          ("game.layout", path)))
    return cases


# --- SEQUENCE STACKS decks -----------------------------------------------------------------
def deck_cases() -> list[Case]:
    texts = {
        "unknown-card": "[cards]\nR1 = 9\nZ9 = 3\n",
        "negative": "[cards]\nR1 = -2\n",
        "billion": "[cards]\nR1 = 1000000000\nB1 = 9\n",
        "float": "[cards]\nR1 = 2.5\nB1 = 9\n",
        "text": '[cards]\nR1 = "nine"\nB1 = 9\n',
        "list": "[cards]\nR1 = [9]\nB1 = 9\n",
        "cards-not-table": "cards = 5\n",
        "removes-more": "[cards]\nR1 = 2\nB1 = 2\n[two_player_removed]\nR1 = 3\n",
        "no-blue-start": "[cards]\nR1 = 9\n",
        "chips-huge": "[cards]\nR1 = 9\nB1 = 9\n[chips]\nR = 100000000\n",
        "chips-unknown": "[cards]\nR1 = 9\nB1 = 9\n[chips]\nQ = 3\n",
        "not-toml": "cards: lots\n",
        "nested-500": "x = " + nested(500) + "\n",
        "escape-key": '[cards]\n"\\u001b[2J" = 3\n',
    }
    cases = []
    base = ["stacks", "--config", "{d}/ok.toml", "--deck", "{d}/deck.toml", "--no-dashboard",
            "--mock-gpio", "--records", "{d}/rec"]
    ok = b"[gpio]\nenabled = false\n[dashboard]\nenabled = false\n"
    for label, text in texts.items():
        cases.append(Case(f"deck-{label}", "deck", base, {"ok.toml": ok, "deck.toml": text.encode()},
                          ("{d}/deck.toml",), keep=("deck.toml",)))
    for label, content, want in [("binary", b"\xff\xfe\x00" * 30, "UTF-8"),
                                 ("huge", b"# " + b"z" * 70_000, "bytes"),
                                 ("dir", DIR, "regular file"), ("fifo", FIFO, "regular file")]:
        cases.append(Case(f"deck-file-{label}", "deck", base, {"ok.toml": ok, "deck.toml": content},
                          ("{d}/deck.toml", want)))
    dz = [a if a != "{d}/deck.toml" else "/dev/zero" for a in base]
    cases.append(Case("deck-file-dev-zero", "deck", dz, {"ok.toml": ok}, ("/dev/zero", "regular file")))
    return cases


# --- images -------------------------------------------------------------------------------
def image_cases() -> list[Case]:
    import cv2
    import numpy as np
    tiny_jpeg = cv2.imencode(".jpg", np.zeros((10, 10, 3), np.uint8))[1].tobytes()
    cut_png = real_png(200, 200)[:300]
    images = {
        "1x1": (real_png(1, 1), "1 x 1"),
        "10x10": (real_png(10, 10), "10 x 10"),
        "63x63": (real_png(63, 63), "63 x 63"),
        "10x10-jpeg": (tiny_jpeg, "10 x 10"),
        "40000x40000": (png_header(40000, 40000), "40000 x 40000"),
        "20000x20000": (png_header(20000, 20000), "20000 x 20000"),
        "100000x1": (png_header(100000, 1), "100000 x 1"),
        "jpeg-30000": (jpeg_header(30000, 30000), "30000 x 30000"),
        "bmp-50000": (bmp_header(50000, 50000), "50000 x 50000"),
        "png-cut": (cut_png, "damaged"),
        "png-no-ihdr": (b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, "IHDR"),
        "text": (b"this is not a picture\n", "not a PNG"),
        "empty": (b"", "not a PNG"),
        "gif": (b"GIF89a" + b"\x00" * 20, "not a PNG"),
        "jpeg-garbage": (b"\xff\xd8\x12\x34\x56", "JPEG"),
        "dir": (DIR, "regular file"),
        "fifo": (FIFO, "regular file"),
    }
    cases = []
    keep_cal = json.dumps({"keep": "me"}).encode()
    for label, (content, want) in images.items():
        cases.append(Case(f"image-read-{label}", "image", ["read", "{d}/img.png"],
                          {"img.png": content}, ("{d}/img.png", want)))
        cases.append(Case(f"image-calibrate-{label}", "image",
                          ["calibrate", "--image", "{d}/img.png", "--out", "{d}/cal.json",
                           "--config", "{d}/none.toml"],
                          {"img.png": content, "cal.json": keep_cal,
                           "none.toml": b"[gpio]\nenabled = false\n"},
                          ("{d}/img.png", want), keep=("cal.json",)))
    for label, path in [("dev-zero", "/dev/zero"), ("missing", "{d}/none.png")]:
        cases.append(Case(f"image-read-{label}", "image", ["read", path], {}, (path,)))
    # where the calibration goes: never over a device, a pipe or a folder (the file is
    # written beside it and moved over it, which would replace the device itself)
    good = real_png(100, 100)
    for label, content in [("fifo", FIFO), ("dir", DIR), ("fifo-picture", None)]:
        files = {"img.png": good, "none.toml": b"[gpio]\nenabled = false\n"}
        out = "{d}/out.json"
        if content is None:
            files["out.png"] = FIFO
        else:
            files["out.json"] = content
        cases.append(Case(f"image-calibrate-out-{label}", "image",
                          ["calibrate", "--image", "{d}/img.png", "--out", out, "--config",
                           "{d}/none.toml"], files, ("--out", "not a plain file")))
    cases.append(Case("image-calibrate-out-newline", "image",
                      ["calibrate", "--image", "{d}/img.png", "--out", "{d}/a\nb.json",
                       "--config", "{d}/none.toml"],
                      {"img.png": good, "none.toml": b"[gpio]\nenabled = false\n"},
                      ("--out", "control characters")))
    return cases


# --- command-line arguments ---------------------------------------------------------------
def cli_cases() -> list[Case]:
    img = real_png(100, 100)
    files = {"img.png": img, "cal.json": b'{"keep": 1}', "c.toml": b"[gpio]\nenabled = false\n"}
    groups: list[tuple[list[str], str, list[str]]] = [
        (["demo", "--no-dashboard", "--records", "{d}/rec", "--config", "{d}/c.toml"], "--speed",
         ["nan", "inf", "-inf", "-5", "0", "1e-300", "1e300", "x", ""]),
        (["demo", "--no-dashboard", "--records", "{d}/rec", "--config", "{d}/c.toml"], "--seed",
         ["-1", "1e3", "x", str(2**64)]),
        (["demo", "--no-dashboard", "--records", "{d}/rec", "--config", "{d}/c.toml"], "--source",
         ["bogus"]),
        (["demo", "--no-dashboard", "--records", "{d}/rec", "--config", "{d}/c.toml"], "--level",
         ["bogus"]),
        (["calibrate", "--image", "{d}/img.png", "--out", "{d}/cal.json", "--config", "{d}/c.toml"],
         "--frames", ["0", "-1", "101", "x", "1e9", "nan"]),
        (["calibrate", "--image", "{d}/img.png", "--out", "{d}/cal.json", "--config", "{d}/c.toml"],
         "--corners", ["nan,1,2,3,4,5,6,7", "inf,0,90,0,90,90,0,90", "5,5,5,5,5,5,5,5",
                       "0,0,30,0,60,0,90,0", "0,0,90,90,90,0,0,90", "1,2,3,4,5,6,7",
                       "a,b,c,d,e,f,g,h", "", "0,0,900,0,900,900,0,900",
                       "-1e300,0,90,0,90,90,0,90",
                       # review attack: a mirror image (anticlockwise) was saved, exit 0
                       "90,5,5,5,5,90,90,90", "5,90,90,90,90,5,5,5"]),
        (["matrix", "emulate", "--seconds", "0.1"], "--tcp", ["99999", "-1", "x", "65536", "1e3"]),
        (["matrix", "emulate", "--seconds", "0.1"], "--baud", ["0", "1234", "-9600", "x"]),
        (["matrix", "emulate", "--seconds", "0.1"], "--size", ["0x0", "100x100", "axb", "10x", "-3x4"]),
        (["matrix", "emulate"], "--seconds", ["0", "-1", "nan", "inf"]),
        (["matrix", "test", "--config", "{d}/c.toml", "--port", "{d}/none"], "--baud", ["0", "7"]),
        (["matrix", "test", "--config", "{d}/c.toml", "--port", "{d}/none"], "--step", ["0", "nan", "-1"]),
        (["matrix", "test", "--config", "{d}/c.toml", "--port", "{d}/none"], "--seconds", ["nan", "-4"]),
        (["stacks", "--config", "{d}/c.toml", "--no-dashboard"], "--players", ["1", "7", "x", "1e9"]),
        (["stacks", "--config", "{d}/c.toml", "--no-dashboard"], "--first", ["0", "9"]),
        (["stacks", "--config", "{d}/c.toml", "--no-dashboard"], "--seed", ["-1", "x"]),
        (["stacks", "--config", "{d}/c.toml", "--no-dashboard"], "--computer", ["0", "9"]),
        (["stacks", "--config", "{d}/c.toml", "--piles", "{d}/t.piles.json"], "--place",
         ["x", "0:1,2,3", "5:1,2,3", "1:1,2", "1:1,2,-3", "1:nan,2,150", "1:1,inf,150", ""]),
        (["stacks", "--config", "{d}/c.toml", "--piles", "{d}/t.piles.json"], "--out-of-play",
         ["x", "1,2", "1,2,0", "nan,1,150", ""]),
        (["stacks", "--config", "{d}/c.toml", "--piles", "{d}/t.piles.json"], "--pile",
         ["x", "0:1,2,3", "1:nan,2,150", "1:1,2,inf"]),
        (["stacks", "--config", "{d}/c.toml", "--piles", "{d}/t.piles.json", "--image",
          "{d}/img.png"], "--place-card", ["x", "0:{d}/img.png", "9:{d}/img.png", "1:",
                                          "1:{d}/img.png"]),
        (["play", "--config", "{d}/c.toml", "--no-dashboard", "--records", "{d}/rec"], "--computer",
         ["0", "13", "x"]),
        (["play", "--config", "{d}/c.toml", "--no-dashboard", "--records", "{d}/rec"], "--seed",
         ["-1", "x"]),
        (["read", "{d}/img.png"], "--edition", ["chess"]),
    ]
    cases = []
    for base, opt, values in groups:
        for v in values:
            label = f"{' '.join(base[:2])}-{opt}-{v or 'empty'}".replace(" ", "-").replace("{d}/", "")
            cases.append(Case(f"cli-{label}", "cli", base + [opt, v], dict(files),
                              (opt,), keep=("cal.json",)))
    for argv, want in [(["bogus-command"], "bogus-command"), (["config", "frobnicate"], "frobnicate"),
                       (["replay"], "file"), (["read"], "image"),
                       (["matrix", "emulate", "--tcp", "1", "--pty", "--seconds", "1"], "--pty")]:
        cases.append(Case(f"cli-{'-'.join(argv)[:40]}", "cli", argv, {}, (want,)))
    return cases


# --- serial frames ------------------------------------------------------------------------
def _fw():
    fw = str(ROOT / "firmware_bridge" / "firmware")
    if fw not in sys.path:
        sys.path.insert(0, fw)
    import proto
    return proto


def _frame(version: int, kind: int, seq: int, payload: bytes, length: int | None = None,
           crc_fix: bool = True) -> bytes:
    from firmware_bridge import protocol as P
    body = struct.pack("<BBHH", version, kind, seq, len(payload) if length is None else length) + payload
    crc = P.crc16(body) if crc_fix else P.crc16(body) ^ 0x1234
    return P.cobs_encode(body + struct.pack("<H", crc)) + b"\x00"


def _serial_case(label: str, wire: bytes, host_error: str | None, board_nak: int | None,
                 board_error: int | None = None) -> Case:
    """``wire`` to the host's decoder (no frame, ``host_error`` named) and to the firmware's
    core (a NAK with ``board_nak``, or an ERROR ``board_error``; LEDs never change)."""
    def run(d: Path) -> Result:
        from firmware_bridge import protocol as P
        proto = _fw()
        problems = []
        dec = P.Decoder()
        frames = dec.feed(wire)
        if host_error is not None:
            if frames or dec.rejected < 1:
                problems.append(f"the host took {frames} from it")
            elif host_error not in dec.last_error:
                problems.append(f"the host's reason {dec.last_error!r} lacks {host_error!r}")
        sent = bytearray()
        shown = []
        core = proto.BoardCore(1, 4, proto.SENSOR_OCCUPANCY, 4, lambda: [0] * 4, shown.append,
                               sent.extend)
        sent.clear()
        leds_before = list(core.leds)
        core.receive(wire)
        answers = P.Decoder().feed(bytes(sent))
        kinds = [(f.kind, f.payload) for f in answers]
        if board_nak is not None:
            naks = [p for k, p in kinds if k == P.NAK]
            if not naks or naks[0][2] != board_nak:
                problems.append(f"the board answered {[P.describe(f) for f in answers]}, "
                                f"not NAK reason {board_nak}")
        if board_error is not None and not any(k == P.ERROR and p[0] == board_error for k, p in kinds):
            problems.append(f"the board sent no ERROR {board_error}")
        if any(k == P.ACK for k, _ in kinds):
            problems.append("the board acknowledged it")
        if core.leds != leds_before:
            problems.append("the board applied it")
        err = "; ".join(problems) if problems else (f"host: {dec.last_error}; board: " +
                                                     ", ".join(P.describe(f)["type"] for f in answers))
        return Result(1 if not problems else 0, "", err + "\n")
    return Case(f"frame-{label}", "frame", fn=run, expect=(host_error,) if host_error else ())


def frame_cases() -> list[Case]:
    from firmware_bridge import protocol as P
    good = _frame(1, P.LEDS, 7, bytes([255] + [10, 20, 30] * 4))
    cases = []
    # one byte changed, at every position of the frame's code and body: CRC or COBS catches it
    for i in range(len(good) - 1):
        bad = bytearray(good)
        bad[i] ^= 0x5A
        if bad[i] == 0:
            bad[i] = 0x01
        cases.append(_serial_case(f"byte-{i}-changed", bytes(bad), "", None))
    for n in range(1, len(good) - 1, 2):
        cases.append(_serial_case(f"cut-to-{n}", good[:n] + b"\x00", "", None))
    cases += [
        _serial_case("version-2", _frame(2, P.LEDS, 7, bytes(13)), "protocol version 2", 4),
        _serial_case("unknown-type", _frame(1, 0x77, 7, b""), "unknown message type 119", 2),
        _serial_case("length-field-wrong", _frame(1, P.LEDS, 7, bytes(13), length=12), "length field", 3),
        _serial_case("crc-wrong", _frame(1, P.LEDS, 7, bytes(13), crc_fix=False), "CRC mismatch", 1),
        _serial_case("too-short", P.cobs_encode(b"\x01\x06\x07") + b"\x00", "frame too short", 3),
        _serial_case("cobs-past-end", b"\x09\x01\x02\x00", "byte 0", 3),
        _serial_case("over-1024", P.cobs_encode(bytes(range(1, 255)) * 5) + b"\x00", "longer than 1024",
                     None, board_error=3),
        _serial_case("state-req-with-payload", _frame(1, P.STATE_REQ, 7, b"\x01"), None, 3),
        _serial_case("hello-req-with-payload", _frame(1, P.HELLO_REQ, 7, b"hi"), None, 3),
        _serial_case("leds-short", _frame(1, P.LEDS, 7, bytes(5)), None, 3),
        _serial_case("leds-long", _frame(1, P.LEDS, 7, bytes(40)), None, 3),
        _serial_case("leds-empty", _frame(1, P.LEDS, 7, b""), None, 3),
        _serial_case("blink-short", _frame(1, P.BLINK, 7, bytes(4)), None, 3),
        _serial_case("blink-count-wrong", _frame(1, P.BLINK, 7, struct.pack("<BBBHHH", 1, 1, 1, 5, 5, 9)), None, 3),
    ]
    return cases


def host_payload_cases() -> list[Case]:
    """Well-framed messages whose payload is wrong, from a board to the real link: never
    applied, counted as rejected, and the link goes on (a good STATE after them is held)."""
    from firmware_bridge import protocol as P
    bad = {
        "state-wrong-length": (P.STATE, struct.pack("<I", 9) + bytes(7)),
        "state-value-9": (P.STATE, struct.pack("<I", 9) + bytes([9] * 4)),
        "hello-short": (P.HELLO, b"\x01\x04"),
        "hello-sensor-7": (P.HELLO, struct.pack("<BBBH", 1, 4, 7, 4)),
        "hello-zero-rows": (P.HELLO, struct.pack("<BBBH", 0, 4, 0, 4)),
        "ack-three-bytes": (P.ACK, b"\x01\x02\x03"),
        "nak-one-byte": (P.NAK, b"\x01"),
        "heartbeat-two-bytes": (P.HEARTBEAT, b"\x01\x02"),
        "change-short": (P.CHANGE, b"\x01"),
        "error-escape-flood": (P.ERROR, b"\x01" + b"\x1b[2J\x1b]0;x\x07" * 200),
    }
    cases = []
    for label, (kind, payload) in bad.items():
        def run(d: Path, kind=kind, payload=payload, label=label) -> Result:
            import time

            from firmware_bridge.link import MatrixLink
            # loop:// is a serial line whose far end is this test: what is written to the
            # port arrives at the link as if the board had sent it
            link = MatrixLink("loop://")
            link.start(wait=0)
            try:
                port = link._port
                port.write(P.Frame(P.HELLO, 1, P.Hello(1, 4, "occupancy", 4, "test").pack()).encode())
                end = time.monotonic() + 2
                while link.hello is None and time.monotonic() < end:
                    time.sleep(0.005)
                before = link.stats.rejected
                port.write(P.Frame(kind, 5, payload).encode())
                good = P.Snapshot(1, ("occupied", None, None, None))
                port.write(P.Frame(P.STATE, 6, good.pack()).encode())
                while time.monotonic() < end + 1 and (link.latest_snapshot() is None or
                                                      link.stats.rejected <= before and kind != P.ERROR):
                    time.sleep(0.005)
                snap = link.latest_snapshot()
            finally:
                link.stop()
            problems = []
            if kind == P.ERROR:
                text = link.board_errors[-1][1] if link.board_errors else ""
                if "\x1b" in text or "\x07" in text or len(text) > 240:
                    problems.append(f"the board's text reaches the user raw: {text[:80]!r}")
                reason = f"shown as {text[:60]!r}"
            else:
                if link.stats.rejected <= before:
                    problems.append("not counted as rejected")
                reason = "rejected"
            if snap is None or snap.spaces != ("occupied", None, None, None):
                problems.append(f"the good STATE after it was not held: {snap}")
            return Result(1 if not problems else 0, "", ("; ".join(problems) or
                                                         f"{label}: {reason}") + "\n")
        cases.append(Case(f"frame-payload-{label}", "frame", fn=run))
    return cases


def all_cases() -> list[Case]:
    return (config_cases() + calibration_cases() + record_cases() + layout_cases() +
            deck_cases() + image_cases() + cli_cases() + frame_cases() + host_payload_cases())
