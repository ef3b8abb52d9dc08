"""The matrix path decides on evidence: a change counts only when consecutive distinct
snapshots agree; a glitched, late or doubled snapshot is never a move; a board that comes
back as another board (size, protocol) is a problem shown while the game waits."""

from __future__ import annotations

import socket
import struct
import threading
import time

import pytest

from engine.referee import Referee
from firmware_bridge import protocol as P
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import MatrixLink
from firmware_bridge.wiring import make_wiring
from seqboard.session import Session
from seqboard.sources import Settler, attach_matrix

from ..waiting import wait_until as _wait


class Table:
    """A session refereed from an emulated board over TCP, and what it said."""

    def __init__(self, sensor: str = "occupancy", settle: float = 0.1) -> None:
        self.emu = Emulator(10, 10, sensor=sensor)
        self.link = MatrixLink(self.emu.start_tcp(), wiring=make_wiring(10, 10))
        self.link.start(wait=5)
        self.ref = Referee("classic", 2)
        self.session = Session(self.ref, mode="referee")
        self.src = attach_matrix(self.link, self.session, settle=settle)
        self.events = []
        self.session.subscribe(lambda ev, view: self.events.append(ev)
                               if ev.kind in ("verdict", "warning", "undo") else None)

    def step(self) -> None:
        obs = self.src.poll(time.monotonic())
        if obs is not None:
            self.session.observe(obs)

    def run(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            time.sleep(0.01)

    def space(self, name: str) -> int:
        return self.ref.layout.parse_space(name)

    def count(self) -> int:
        s = self.link.stats
        return s.snapshots + s.stale_snapshots + s.duplicate_snapshots

    def snapshot_arrives(self, before: int, n: int = 1) -> bool:
        """``n`` more snapshots arrived (the glitched one, then the one confirming or not)."""
        return _wait(lambda: self.count() >= before + n, 3.0, step=self.step)

    def close(self) -> None:
        self.link.stop()
        self.emu.stop()


@pytest.fixture
def table():
    t = Table()
    assert _wait(lambda: t.session.source_problem is None and t.link.latest_snapshot(), 5,
                 step=t.step)
    t.run(0.3)
    yield t
    t.close()


def test_six_single_snapshot_glitches_are_never_moves(table):
    h3 = table.space("h3")
    for _ in range(6):
        before = table.count()
        table.emu.glitch_next_state(h3)          # one answer says h3 is occupied
        table.link.request_snapshot()
        assert table.snapshot_arrives(before, 2)  # it, and the one the host asks for after
        table.run(0.3)                           # long past the settle time
    assert table.events == []
    assert table.ref.board.cells[h3] == 0
    # and a real chip is judged as before
    table.emu.place(h3)
    assert _wait(lambda: table.ref.board.cells[h3] == 1, 3, step=table.step)
    assert [e.verdict.kind for e in table.events] == ["placement"]


def test_a_late_older_snapshot_gives_no_phantom_removal(table):
    b2 = table.space("b2")
    sent = table.emu.sent_states
    table.emu.delay_next_state()                 # this answer is held back ...
    table.link.request_snapshot()
    assert _wait(lambda: table.emu.sent_states > sent, 2)
    table.emu.place(b2)                          # ... a chip goes down; the newer state
    # arrives first, the held (older) one after it
    assert _wait(lambda: table.ref.board.cells[b2] == 1, 3, step=table.step)
    assert _wait(lambda: table.link.stats.stale_snapshots >= 1, 3, step=table.step)
    table.run(1.0)
    assert [e.verdict.kind for e in table.events] == ["placement"]
    assert table.ref.board.cells[b2] == 1


def test_a_doubled_state_frame_is_one_snapshot_not_a_confirmation(table):
    c3 = table.space("c3")
    before = table.link.stats.duplicate_snapshots
    table.emu.glitch_next_state(c3)
    table.emu.double_next_state()                # the glitched frame arrives twice
    table.link.request_snapshot()
    assert _wait(lambda: table.link.stats.duplicate_snapshots > before, 3, step=table.step)
    table.run(0.5)
    assert table.events == []


def test_a_snapshot_that_lasts_until_the_next_poll_is_not_settled_on_its_own():
    st = Settler(0.3)
    assert st.update(("x",), serial=1, at=0.0) is None
    # the same snapshot looked at again and again for a second: still one snapshot
    for k in range(1, 20):
        assert st.update(("x",), serial=1, at=k * 0.05) is None
    assert st.update(("x",), serial=2, at=0.1) is None     # a second one, too soon
    assert st.update(("x",), serial=3, at=0.35) == ("x",)  # a third, past the settle time
    assert st.update(("y",), serial=4, at=0.4) is None     # a different one restarts it
    assert st.update(("x",), serial=5, at=0.5) is None     # back: reported already


def test_identity_board_one_misread_colour_raises_no_warning():
    t = Table(sensor="identity")
    try:
        assert _wait(lambda: t.session.source_problem is None and t.link.latest_snapshot(), 5,
                     step=t.step)
        b2 = t.space("b2")
        t.emu.place(b2, "B")
        assert _wait(lambda: t.ref.board.cells[b2] == 1, 3, step=t.step)
        for _ in range(3):
            before = t.count()
            t.emu.glitch_next_state(b2, "G")         # one reading calls blue's chip green
            t.link.request_snapshot()
            assert t.snapshot_arrives(before, 2)
            t.run(0.3)
        assert [e.kind for e in t.events] == ["verdict"]
        assert t.session.warning is None
    finally:
        t.close()


def test_a_board_back_with_another_size_is_a_problem_and_the_game_waits(table):
    b2 = table.space("b2")
    table.emu.place(b2)
    assert _wait(lambda: table.ref.board.cells[b2] == 1, 3, step=table.step)
    table.emu.reboot(rows=9, cols=9)             # another firmware, another board
    assert _wait(lambda: table.session.source_problem is not None
                 and "9 x 9" in table.session.source_problem, 5, step=table.step)
    assert "waits" in table.session.source_problem
    table.run(1.0)                               # no exception, nothing judged
    assert not table.session.ended and table.ref.board.cells[b2] == 1
    boots = table.emu.boots
    table.emu.reboot(rows=10, cols=10)           # the right board again, chips as they were
    assert _wait(lambda: table.emu.boots > boots, 3)
    table.emu.place(b2)
    assert _wait(lambda: table.session.source_problem is None, 5, step=table.step)
    e5 = table.space("e5")
    table.emu.place(e5)
    assert _wait(lambda: table.ref.board.cells[e5] == 2, 4, step=table.step)
    assert [e.verdict.kind for e in table.events] == ["placement", "placement"]


def _frame(version: int, kind: int, seq: int, payload: bytes) -> bytes:
    body = struct.pack("<BBHH", version, kind, seq, len(payload)) + payload
    return P.cobs_encode(body + struct.pack("<H", P.crc16(body))) + b"\x00"


def test_a_board_speaking_another_protocol_version_is_shown_and_nothing_judged():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    stop = threading.Event()

    def board():                   # a board whose new firmware speaks version 2
        conn, _ = srv.accept()
        seq = 0
        while not stop.is_set():
            seq += 1
            conn.sendall(_frame(2, P.HEARTBEAT, seq, struct.pack("<I", seq * 200)))
            time.sleep(0.1)
        conn.close()

    th = threading.Thread(target=board, daemon=True)
    th.start()
    link = MatrixLink(f"socket://127.0.0.1:{srv.getsockname()[1]}", wiring=make_wiring(10, 10))
    link.start(wait=0)
    ref = Referee("classic", 2)
    session = Session(ref, mode="referee")
    src = attach_matrix(link, session, settle=0.1)
    try:
        assert _wait(lambda: src.poll(time.monotonic()) is None and session.source_problem
                     and "protocol version 2" in session.source_problem, 3)
        assert not session.ended
    finally:
        stop.set()
        link.stop()
        srv.close()


def test_board_error_text_is_sanitised_and_capped(table):
    table.emu.core.error(1, "row 3 \x1b[2J\x1b]0;pwned\x07stuck" + "x" * 500)
    assert _wait(lambda: table.link.board_errors, 3, step=table.step)
    text = table.link.board_errors[-1][1]
    assert "\x1b" not in text and "\x07" not in text and len(text) < 240
    assert text.startswith("sensor fault: row 3")
    assert _wait(lambda: table.session.source_problem is not None
                 and "row 3" in table.session.source_problem, 3, step=table.step)
