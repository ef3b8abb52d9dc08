"""Fuzzing every parser of user files and of the serial line: whatever the bytes, the answer
is a value or the parser's own error naming the file, never another exception."""

from __future__ import annotations

import json
import math
import struct
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError, LayoutError
from engine.layout import parse_layout
from engine.stacks import load_deck
from firmware_bridge import protocol as P
from hw_config.config import ConfigError, read_raw, validate
from hw_config.schema import SCHEMA
from vision.calibration import Calibration, CalibrationError, load_calibration

from .cases import ROOT, valid_calibration

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30)


def _tmp(data: bytes, suffix: str) -> Path:
    f = tempfile.NamedTemporaryFile(delete=False, suffix=suffix)
    f.write(data)
    f.close()
    return Path(f.name)


# --- the configuration ----------------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=400))
def test_config_reader_on_any_bytes(data):
    p = _tmp(data, ".toml")
    try:
        raw = read_raw(str(p))
    except ConfigError as exc:
        assert str(p) in str(exc) and "\n" not in str(exc)
        return
    finally:
        p.unlink()
    validate(raw)


section_values = st.dictionaries(
    st.sampled_from([k for keys in SCHEMA.values() for k in keys] + ["bogus"]), json_values,
    max_size=6)


@FUZZ
@given(st.dictionaries(st.sampled_from(list(SCHEMA) + ["camra"]), section_values, max_size=4))
def test_config_validation_of_any_values(raw):
    data, problems = validate(raw)
    for p in problems:
        assert "\n" not in p and len(p) < 400
    if not problems:                     # what passed is what the schema accepts
        for section, keys in SCHEMA.items():
            for name, key in keys.items():
                v = data[section][name]
                assert isinstance(v, key.type)
                if key.check:
                    assert key.check(v) is None
                if isinstance(v, float):
                    assert math.isfinite(v)


# --- layouts and decks ----------------------------------------------------------------------
CLASSIC = (ROOT / "engine" / "layouts" / "classic.txt").read_text("utf-8")


@FUZZ
@given(st.text(max_size=600))
def test_layout_parser_on_any_text(text):
    try:
        lay = parse_layout(text, "fuzz.txt")
    except LayoutError as exc:
        assert str(exc).startswith("fuzz.txt") and "\n" not in str(exc)
        return
    assert 1 <= lay.rows <= 26 and 1 <= lay.cols <= 26 and len(lay.symbols) == lay.size


@FUZZ
@given(st.integers(0, len(CLASSIC) - 1), st.text(max_size=8))
def test_layout_parser_on_a_damaged_classic_board(at, junk):
    from engine.editions import get_edition
    ed = get_edition("classic")
    text = CLASSIC[:at] + junk + CLASSIC[at + len(junk):]
    try:
        parse_layout(text, "fuzz.txt", symbols=ed.board_symbols(), copies=ed.copies_on_board)
    except LayoutError as exc:
        assert str(exc).startswith("fuzz.txt") and "\n" not in str(exc)


deck_text = st.one_of(
    st.binary(max_size=300),
    st.dictionaries(st.sampled_from(["cards", "two_player_removed", "chips", "x"]),
                    st.dictionaries(st.sampled_from(["R1", "B1", "RW", "BW", "SK", "R", "B", "Z9"]),
                                    st.integers(-5, 10**12) | st.floats() | st.text(max_size=3),
                                    max_size=4), max_size=3)
    .map(lambda d: "\n".join(f"[{k}]\n" + "\n".join(f"{c} = {json.dumps(v) if not isinstance(v, float) or math.isfinite(v) else 'nan'}" for c, v in t.items()) for k, t in d.items()).encode()))


@FUZZ
@given(deck_text)
def test_deck_parser_on_any_file(data):
    p = _tmp(data, ".toml")
    try:
        spec = load_deck(p)
    except EngineError as exc:
        assert str(p) in str(exc) and "\n" not in str(exc)
        return
    finally:
        p.unlink()
    assert all(0 <= v <= 100 for v in spec.cards.values())


# --- calibration files ------------------------------------------------------------------------
BASE_CAL = None


def _base():
    global BASE_CAL
    if BASE_CAL is None:
        # a real calibration cut down to a 2 x 2 board: quick to write and read many times
        BASE_CAL = valid_calibration()
        BASE_CAL.update(rows=2, cols=2)
        BASE_CAL["reference"] = {k: v[:4] for k, v in BASE_CAL["reference"].items()}
    return json.loads(json.dumps(BASE_CAL))


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["version", "rows", "cols", "corners", "image_size", "reference",
                        "layout", "camera", "method"]), json_values)
def test_calibration_loader_on_any_value_of_a_key(key, value):
    d = _base()
    d[key] = value
    p = _tmp(json.dumps(d).encode(), ".json")
    try:
        cal = load_calibration(p)
    except CalibrationError as exc:
        assert str(exc).startswith(str(p)) and "\n" not in str(exc)
        return
    finally:
        p.unlink()
    assert isinstance(cal, Calibration)
    from vision.quad import corners_problem
    assert corners_problem(cal.corners.tolist()) is None


@FUZZ
@given(st.lists(st.tuples(st.floats(), st.floats()), min_size=4, max_size=4))
def test_calibration_loader_on_any_corners(corners):
    d = _base()
    d["corners"] = [list(c) for c in corners]
    p = _tmp(json.dumps(d).encode(), ".json")
    try:
        cal = load_calibration(p)
    except CalibrationError as exc:
        assert "corners" in str(exc)
        return
    finally:
        p.unlink()
    assert all(math.isfinite(v) for v in cal.corners.ravel())


# --- the serial line --------------------------------------------------------------------------
@FUZZ
@given(st.lists(st.binary(max_size=80), max_size=8))
def test_host_decoder_on_any_bytes(chunks):
    dec = P.Decoder()
    frames = []
    for c in chunks:
        frames += dec.feed(c)
    for f in frames:                    # anything let through is a whole, valid frame
        assert P.Decoder().feed(f.encode()) == [f]


@FUZZ
@given(st.integers(1, 11), st.integers(0, 0xFFFF), st.binary(max_size=60), st.integers(0, 30),
       st.integers(0, 255))
def test_host_decoder_on_a_frame_with_one_byte_changed(kind, seq, payload, at, value):
    raw = bytearray(P.Frame(kind, seq, payload).encode())
    i = at % (len(raw) - 1)
    if raw[i] == value or value == 0:
        return
    raw[i] = value
    frames = P.Decoder().feed(bytes(raw))
    # a changed byte is caught (CRC, COBS, length), except where the change is undone
    # by COBS re-encoding to the same body: then the frame is exactly the one sent
    assert all(f == P.Frame(kind, seq, payload) for f in frames)


def _core():
    fw = str(ROOT / "firmware_bridge" / "firmware")
    if fw not in sys.path:
        sys.path.insert(0, fw)
    import proto
    out = bytearray()
    core = proto.BoardCore(2, 2, proto.SENSOR_IDENTITY, 4, lambda: [0, 2, 3, 5], lambda c: None,
                           out.extend)
    return core, out


@FUZZ
@given(st.lists(st.binary(max_size=80) | st.tuples(st.integers(0, 20), st.binary(max_size=40)),
                max_size=8))
def test_firmware_core_on_any_bytes_and_frames(items):
    core, out = _core()
    for it in items:
        data = P.Frame(it[0], 9, it[1]).encode() if isinstance(it, tuple) else it
        core.receive(data)
    # everything the board said is a valid frame, and it never NAKed with an unknown reason
    for f in P.Decoder().feed(bytes(out)):
        if f.kind == P.NAK:
            assert struct.unpack("<HB", f.payload)[1] in (1, 2, 3, 4)


@FUZZ
@given(st.integers(0, 0xFFFF), st.integers(1, 11), st.binary(max_size=300))
def test_board_payloads_never_crash_the_host(seq, kind, payload):
    for parse in (P.Hello.unpack, lambda p: P.Snapshot.unpack(p, 4), P.Blink.unpack, P.unpack_leds):
        try:
            parse(payload)
        except P.ProtocolError:
            pass
    text = P.clean_text(payload)
    assert len(text) <= P.ERROR_TEXT_MAX and all(c.isprintable() for c in text)
