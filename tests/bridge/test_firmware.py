"""The reference firmware under CPython, with small fakes of MicroPython's hardware modules."""

from __future__ import annotations

import importlib
import struct
import sys
import types
from pathlib import Path

import pytest

import firmware_bridge
from firmware_bridge import protocol as P

FW = Path(firmware_bridge.__file__).parent / "firmware"


class FakePin:
    OUT, IN, PULL_UP = 1, 0, 2
    level: dict[int, int] = {}

    def __init__(self, pin, mode=None, pull=None, value=None):
        self.pin = pin
        if value is not None:
            FakePin.level[pin] = value

    def value(self, v=None):
        if v is None:
            return FakePin.level.get(self.pin, 1)
        FakePin.level[self.pin] = v


class FakeNeoPixel:
    def __init__(self, pin, n):
        self.buf = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, i, c):
        self.buf[i] = c

    def write(self):
        self.writes += 1


@pytest.fixture
def fw(monkeypatch):
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(Pin=FakePin))
    monkeypatch.setitem(sys.modules, "neopixel", types.SimpleNamespace(NeoPixel=FakeNeoPixel))
    monkeypatch.syspath_prepend(str(FW))
    for name in ("proto", "hardware"):
        sys.modules.pop(name, None)
    proto = importlib.import_module("proto")
    hardware = importlib.import_module("hardware")
    yield proto, hardware
    for name in ("proto", "hardware"):
        sys.modules.pop(name, None)


class Matrix:
    """Magnets over a 2 x 3 hall matrix: a column reads low while its row is driven low
    and a magnet sits at that crossing."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.magnets = set()

    def install(self, hm):
        matrix = self

        class ColPin:
            def __init__(self, c):
                self.c = c

            def value(self):
                for r, rp in enumerate(hm.rows):
                    if FakePin.level.get(rp.pin, 1) == 0 and (r, self.c) in matrix.magnets:
                        return 0
                return 1
        hm.cols = [ColPin(c) for c in range(self.cols)]


def _board(proto, hardware, rows=2, cols=3):
    hm = hardware.HallMatrix(list(range(rows)), list(range(10, 10 + cols)), debounce=2)
    m = Matrix(rows, cols)
    m.install(hm)
    leds = hardware.Leds(28, rows * cols)
    sent = bytearray()
    core = proto.BoardCore(rows, cols, proto.SENSOR_OCCUPANCY, rows * cols, hm.scan, leds.show,
                           sent.extend)
    return core, m, leds, sent


def _frames(sent: bytearray) -> list[P.Frame]:
    out = P.Decoder().feed(bytes(sent))
    sent.clear()
    return out


def test_hall_matrix_debounces_and_reports_changes_as_hints(fw):
    proto, hardware = fw
    core, m, leds, sent = _board(proto, hardware)
    core.tick(0)
    _frames(sent)
    m.magnets.add((1, 2))                       # a chip with its magnet on space 5
    core.tick(10)                               # one scan is not enough (debounce 2)
    assert not [f for f in _frames(sent) if f.kind == P.CHANGE]
    core.tick(20)
    changes = [f for f in _frames(sent) if f.kind == P.CHANGE]
    assert [struct.unpack("<IHB", f.payload)[1:] for f in changes] == [(5, 1)]
    core.receive(P.Frame(P.STATE_REQ, 1).encode())
    state = [f for f in _frames(sent) if f.kind == P.STATE][0]
    assert P.Snapshot.unpack(state.payload, 6).spaces == (None,) * 5 + ("occupied",)


def test_led_frames_shown_acked_and_retries_not_applied_twice(fw):
    proto, hardware = fw
    core, m, leds, sent = _board(proto, hardware)
    colours = [(10, 20, 30)] * 6
    frame = P.Frame(P.LEDS, 42, P.pack_leds(colours, 255)).encode()
    core.receive(frame)
    acks = [f for f in _frames(sent) if f.kind == P.ACK]
    assert [struct.unpack("<H", a.payload)[0] for a in acks] == [42]
    assert leds.np.buf == [((10 * 255) >> 8, (20 * 255) >> 8, (30 * 255) >> 8)] * 6
    writes = leds.np.writes
    core.receive(frame)                         # the host's retry: acknowledged again
    assert [f.kind for f in _frames(sent)] == [P.ACK] and leds.np.writes == writes


def test_bad_frames_get_a_nak_and_change_nothing(fw):
    proto, hardware = fw
    core, m, leds, sent = _board(proto, hardware)
    raw = bytearray(P.Frame(P.LEDS, 7, P.pack_leds([(255, 0, 0)] * 6)).encode())
    raw[20] ^= 0x40                            # inside the colours: the CRC catches it
    core.receive(bytes(raw))
    naks = [f for f in _frames(sent) if f.kind == P.NAK]
    assert len(naks) == 1 and struct.unpack("<HB", naks[0].payload)[1] == 1
    assert leds.np.buf == [(0, 0, 0)] * 6
    core.receive(P.Frame(P.LEDS, 8, P.pack_leds([(255, 0, 0)] * 2)).encode())   # wrong length
    naks = [f for f in _frames(sent) if f.kind == P.NAK]
    assert struct.unpack("<HB", naks[0].payload) == (8, 3)


def test_silent_pi_shows_the_waiting_pattern_and_blinks_run_on_the_board(fw):
    proto, hardware = fw
    core, m, leds, sent = _board(proto, hardware)
    core.receive(P.Frame(P.LEDS, 1, P.pack_leds([(0, 255, 0)] * 6)).encode())
    core.receive(P.Frame(P.BLINK, 2, P.Blink((255, 0, 0), 100, 100, (4,)).pack()).encode())
    core.tick(50)
    assert leds.np.buf[4][0] > 0 and leds.np.buf[0][1] > 0
    core.tick(150)
    assert leds.np.buf[4] == (0, 0, 0)          # its off phase
    core.tick(50 + proto.HOST_SILENT_MS + 10)   # nothing from the Pi for three seconds
    lit = [i for i, c in enumerate(leds.np.buf) if c != (0, 0, 0)]
    assert lit == [0, 2, 3, 5] and all(leds.np.buf[i][2] > 0 for i in lit)
    heartbeats = [f for f in _frames(sent) if f.kind == P.HEARTBEAT]
    assert heartbeats
    # the Pi was only stalled: its next frame of any kind brings its picture back
    core.receive(P.Frame(P.HEARTBEAT, 3, struct.pack("<I", 4000)).encode())
    core.tick(50 + proto.HOST_SILENT_MS + 60)
    assert leds.np.buf[0][1] > 0 and leds.np.buf[1] == leds.np.buf[0]


def test_unknown_message_type_is_refused(fw):
    proto, hardware = fw
    core, m, leds, sent = _board(proto, hardware)
    core.receive(proto.build(0x55, 9, b""))
    naks = [f for f in _frames(sent) if f.kind == P.NAK]
    assert struct.unpack("<HB", naks[0].payload) == (9, 2)


def test_boots_announcing_itself_and_reports_an_overlong_frame(fw):
    proto, hardware = fw
    core, m, leds, sent = _board(proto, hardware)
    boot = _frames(sent)
    # frame 1 after a boot is a hello: a host that was connected learns the board restarted
    assert [(f.kind, f.seq) for f in boot] == [(P.HELLO, 1)]
    assert P.Hello.unpack(boot[0].payload).rows == 2
    core.receive(b"\x05" * (proto.MAX_FRAME + 50) + b"\x00")     # garbage longer than a frame
    errors = [f for f in _frames(sent) if f.kind == P.ERROR]
    assert len(errors) == 1 and errors[0].payload[0] == proto.ERR_TOO_LONG
    assert P.describe(errors[0])["text"].startswith("dropped a frame longer than")
    core.receive(P.Frame(P.LEDS, 9, P.pack_leds([(0, 0, 255)] * 6)).encode())   # back in step
    assert [f.kind for f in _frames(sent)] == [P.ACK] and leds.np.buf[0][2] > 0


def test_hall_rows_selected_high_through_mosfets(fw):
    proto, hardware = fw
    FakePin.level.clear()
    hm = hardware.HallMatrix([0, 1], [10, 11, 12], debounce=1, row_active=1, settle_us=60)
    assert [FakePin.level[p] for p in (0, 1)] == [0, 0]       # no row powered at rest
    magnets = {(0, 1)}

    class ColPin:
        def __init__(self, c):
            self.c = c

        def value(self):
            powered = [r for r, rp in enumerate(hm.rows) if FakePin.level[rp.pin] == 1]
            return 0 if any((r, self.c) in magnets for r in powered) else 1
    hm.cols = [ColPin(c) for c in range(3)]
    assert hm.scan() == [0, 1, 0, 0, 0, 0]
    assert [FakePin.level[p] for p in (0, 1)] == [0, 0]       # and none left on after


class FakeReader:
    REQIDL, OK = 0x26, 0
    tags: dict = {}          # cs pin -> page 4 bytes, or None for no tag

    def __init__(self, spi_id, sck, miso, mosi, cs, rst):
        self.cs = cs

    def request(self, mode):
        return (self.OK if FakeReader.tags.get(self.cs) is not None else 2), None

    def SelectTagSN(self):
        return self.OK, [1, 2, 3, 4]

    def read(self, page):
        return FakeReader.tags[self.cs]


def test_firmware_main_builds_an_nfc_board_that_reports_colours(fw, monkeypatch):
    proto, hardware = fw
    monkeypatch.setitem(sys.modules, "mfrc522", types.SimpleNamespace(MFRC522=FakeReader))
    monkeypatch.setitem(sys.modules, "select", types.SimpleNamespace(poll=None, POLLIN=1))
    sys.modules.pop("main", None)
    main = importlib.import_module("main")
    try:
        cfg = dict(main.CONFIG, sensor="nfc")
        FakeReader.tags = {5: bytes([4, 0, 0, 0]), 6: None, 7: bytes([0x55, 0, 0, 0]), 8: None}

        class Port:
            def __init__(self):
                self.out = bytearray()

            def write(self, data):
                self.out.extend(data)
        port = Port()
        core, _ = main.build(cfg, port)
        hello = [f for f in P.Decoder().feed(bytes(port.out)) if f.kind == P.HELLO][0]
        assert P.Hello.unpack(hello.payload).sensor == "identity"
        core.tick(0)
        port.out.clear()
        core.receive(P.Frame(P.STATE_REQ, 1).encode())
        state = [f for f in P.Decoder().feed(bytes(port.out)) if f.kind == P.STATE][0]
        spaces = P.Snapshot.unpack(state.payload, 100, True).spaces
        # reader 0 watches space 0 (a red chip); reader 2 watches space 90 (a blank tag)
        assert spaces[0] == "R" and spaces[90] == "occupied"
        assert [i for i, v in enumerate(spaces) if v] == [0, 90]
    finally:
        sys.modules.pop("main", None)
