"""The link against the emulator with a bad line: nothing wrong applied, nothing lost."""

from __future__ import annotations

import time

import pytest

from firmware_bridge.emulator import Emulator, Faults
from firmware_bridge.link import LinkError, MatrixLink
from firmware_bridge.wiring import make_wiring

from ..waiting import wait_until as _wait


@pytest.fixture
def faulty():
    emu = Emulator(10, 10, faults=Faults(corrupt=0.01, seed=7))
    url = emu.start_tcp()
    link = MatrixLink(url, wiring=make_wiring(10, 10), led_rate=50)
    link.start(wait=5)
    yield emu, link
    link.stop()
    emu.stop()


def test_one_percent_corruption_every_led_frame_exact_none_lost(faulty):
    emu, link = faulty
    sent = []
    applied = []
    for k in range(40):
        frame = [((k * 7 + i) % 256, (k * 13) % 256, i % 256) for i in range(100)]
        in_led_order = link.wiring.to_leds(frame)
        sent.append(in_led_order)
        link.set_leds(frame)
        _wait(lambda: emu.led_frame() == in_led_order, 3.0)     # newest wins: wait for each
        applied.append(emu.led_frame())
    # every frame the board showed is exactly one the host sent, and each arrived
    assert applied == sent
    assert link.stats.retries > 0 or link.stats.rejected > 0     # the line really was bad


def test_one_percent_corruption_every_snapshot_exact(faulty):
    emu, link = faulty
    truth_states = []
    for space in range(0, 100, 7):
        emu.place(space)
        truth = tuple("occupied" if s <= space and s % 7 == 0 else None for s in range(100))
        truth_states.append(truth)
        assert _wait(lambda: (s := link.latest_snapshot()) is not None and s.spaces == truth, 4.0)
    # any snapshot the host ever held was a true state of the board (CRC-checked)
    assert link.latest_snapshot().spaces == truth_states[-1]


def test_pulled_cable_for_three_seconds_back_in_step_within_two(tmp_path):
    emu = Emulator(10, 10)
    url = emu.start_tcp()
    link = MatrixLink(url, wiring=make_wiring(10, 10))
    link.start(wait=5)
    link.set_leds([(0, 0, 200)] * 100)
    assert _wait(lambda: emu.led_frame() == [(0, 0, 200)] * 100)
    emu.pull_cable(3.0)
    plugged_back = time.monotonic() + 3.0
    assert _wait(lambda: link.state != "connected", 3.0)
    emu.place(12)                      # a chip goes down while the cable is out
    emu.reboot()                       # and the board restarts: its LEDs go dark
    assert _wait(lambda: time.monotonic() > plugged_back, 4.0)
    ok = _wait(lambda: link.state == "connected" and link.latest_snapshot() is not None
               and link.latest_snapshot().spaces[12] == "occupied"
               and emu.led_frame() == [(0, 0, 200)] * 100, 2.5)
    took = time.monotonic() - plugged_back
    link.stop()
    emu.stop()
    assert ok and took <= 2.5, f"back in step after {took:.2f} s"
    assert link.stats.reconnects >= 1


def test_board_reboot_restores_leds_and_blinks():
    emu = Emulator(10, 10)
    link = MatrixLink(emu.start_tcp(), wiring=make_wiring(10, 10))
    link.start(wait=5)
    link.set_leds([(9, 9, 9)] * 100)
    link.blink([3], (255, 0, 0))
    assert _wait(lambda: emu.led_frame() == [(9, 9, 9)] * 100 and 3 in emu.core.blinks)
    emu.reboot()
    assert _wait(lambda: emu.boots == 2)
    assert _wait(lambda: emu.led_frame() == [(9, 9, 9)] * 100 and 3 in emu.core.blinks, 3.0)
    assert link.stats.reboots == 1
    link.stop()
    emu.stop()


def test_duplicated_delayed_dropped_bytes():
    emu = Emulator(10, 10, faults=Faults(duplicate=0.005, drop=0.005, delay=0.002, delay_s=0.03, seed=3))
    link = MatrixLink(emu.start_tcp(), wiring=make_wiring(10, 10))
    link.start(wait=5)
    for space in (5, 50, 95):
        emu.place(space, None)
    assert _wait(lambda: (s := link.latest_snapshot()) is not None
                 and [i for i, v in enumerate(s.spaces) if v] == [5, 50, 95], 5.0)
    frame = [(1, 2, 3)] * 100
    link.set_leds(frame)
    assert _wait(lambda: emu.led_frame() == frame, 5.0)
    link.stop()
    emu.stop()


def test_over_a_pty_like_a_real_port():
    emu = Emulator(10, 10, sensor="identity")
    path = emu.start_pty()
    link = MatrixLink(path, wiring=make_wiring(10, 10, origin="bottom-right", serpentine=True))
    link.start(wait=5)
    assert link.hello.sensor == "identity"
    emu.place(0, "G")
    assert _wait(lambda: (s := link.latest_snapshot()) is not None and s.spaces[0] == "G")
    colours = [(0, 0, 0)] * 100
    colours[0] = (255, 255, 255)           # the top-left space ...
    link.set_leds(colours)
    # ... is the last LED of a chain starting bottom-right
    # ... is LED 90 of a serpentine chain from the bottom-right: the top row (the 10th)
    # runs back the other way, from the left
    assert _wait(lambda: emu.led_frame()[90] == (255, 255, 255))
    link.stop()
    emu.stop()


def test_no_port_is_a_clear_error(tmp_path):
    with pytest.raises(LinkError, match="ttyNOPE|No such file"):
        MatrixLink(str(tmp_path / "ttyNOPE")).start(wait=1)


def test_a_port_with_no_board_is_a_clear_error():
    link = MatrixLink("loop://")
    with pytest.raises(LinkError, match="no answer from a matrix board"):
        link.start(wait=0.5)


def test_a_board_of_another_protocol_version_is_reported_not_retried_forever():
    import socket
    import struct
    import threading

    from firmware_bridge import protocol as P

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    received = []

    def board():
        conn, _ = srv.accept()
        dec = P.Decoder()
        conn.settimeout(0.2)
        end = time.monotonic() + 3
        while time.monotonic() < end:
            try:
                data = conn.recv(4096)
            except socket.timeout:
                data = b""
            for f in dec.feed(data):
                received.append(f.kind)
                # a version-2 board refuses everything, and keeps its heartbeat going
                conn.sendall(P.Frame(P.NAK, len(received), struct.pack("<HB", f.seq, 4)).encode())
        conn.close()

    t = threading.Thread(target=board, daemon=True)
    t.start()
    link = MatrixLink(f"socket://127.0.0.1:{srv.getsockname()[1]}")
    with pytest.raises(LinkError, match="protocol version mismatch: seqboard speaks version 1"):
        link.start(wait=3)
    t.join()
    srv.close()
    assert len(link.board_errors) == 1 and link.latest_snapshot() is None
    # the refused hello and state requests were not resent again and again
    assert received.count(P.HELLO_REQ) == 1 and received.count(P.STATE_REQ) <= 2
