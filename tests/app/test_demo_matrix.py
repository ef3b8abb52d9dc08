"""The app through the sensor matrix: the emulated board on a pty or socket, the serial
protocol, the referee, the record; and what the app does when the board goes silent."""

from __future__ import annotations

import io
import time

from engine.observation import SpaceState
from engine.referee import Referee
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import MatrixLink
from firmware_bridge.wiring import make_wiring
from seqboard.cli import main
from seqboard.indicators.terminal import TerminalIndicator
from seqboard.session import Session
from seqboard.sources import attach_matrix

from ..waiting import wait_until as _wait
from .helpers import check_demo_record, write_config


def test_demo_through_the_emulated_matrix(tmp_path, capsys):
    cfg = write_config(tmp_path)
    records = tmp_path / "records"
    code = main(["demo", "--source", "matrix", "--fast", "--seed", "1", "--records", str(records),
                 "--config", str(cfg), "--no-dashboard", "--new"])
    out = capsys.readouterr().out
    assert code == 0
    check_demo_record(records)
    assert "blue wins" in out


def test_a_silent_board_is_shown_and_nothing_is_judged_until_it_is_back():
    emu = Emulator(10, 10)
    link = MatrixLink(emu.start_tcp(), wiring=make_wiring(10, 10))
    link.start(wait=5)
    ref = Referee("classic", 2)
    session = Session(ref, mode="referee")
    screen = io.StringIO()
    session.subscribe(TerminalIndicator(screen, live=False, colour=False))
    src = attach_matrix(link, session, settle=0.1)
    verdicts = []
    session.subscribe(lambda ev, view: verdicts.append(ev.verdict) if ev.kind == "verdict" else None)

    def step():
        obs = src.poll(time.monotonic())
        if obs is not None:
            session.observe(obs)

    assert _wait(lambda: src.poll(time.monotonic()) is None and link.latest_snapshot() is not None)
    first = ref.layout.parse_space("b2")
    emu.place(first)
    assert _wait(lambda: ref.board.cells[first] == 1, step=step)   # blue's chip judged

    emu.pull_cable(3.0)                           # the cable is out ...
    assert _wait(lambda: session.source_problem is not None, 4.0, step=step)
    assert "not answering" in session.source_problem
    second = ref.layout.parse_space("e5")
    emu.place(second)                             # ... while green puts a chip down
    time.sleep(0.5)
    step()
    assert ref.board.cells[second] == 0           # nothing judged blind
    # back: the chip placed during the outage is judged from the fresh snapshot
    assert _wait(lambda: session.source_problem is None and ref.board.cells[second] == 2,
                 6.0, step=step)
    link.stop()
    emu.stop()
    text = screen.getvalue()
    assert "SENSING the matrix board is not answering" in text
    assert "ok: the board's sensing is back" in text
    assert [v.kind for v in verdicts if v is not None] == ["placement", "placement"]
    assert ref.expected().states[second] == SpaceState("G")


def test_board_error_reports_reach_the_terminal():
    emu = Emulator(10, 10)
    link = MatrixLink(emu.start_tcp(), wiring=make_wiring(10, 10))
    link.start(wait=5)
    session = Session(Referee("classic", 2), mode="referee")
    src = attach_matrix(link, session, settle=0.1)
    poll = lambda: src.poll(time.monotonic())  # noqa: E731
    assert _wait(lambda: session.source_problem is None and link.latest_snapshot(), step=poll)
    emu.core.error(1, "sensor row 3 stuck low")
    assert _wait(lambda: session.source_problem is not None, step=poll)
    assert session.source_problem == "the matrix board reports: sensor fault: sensor row 3 stuck low"
    link.stop()
    emu.stop()


def test_an_identity_board_reports_colours_and_an_unreadable_tag_is_never_judged():
    emu = Emulator(10, 10, sensor="identity")
    link = MatrixLink(emu.start_tcp(), wiring=make_wiring(10, 10))
    link.start(wait=5)
    ref = Referee("classic", 2)
    session = Session(ref, mode="referee")
    src = attach_matrix(link, session, settle=0.1)
    verdicts = []
    session.subscribe(lambda ev, view: verdicts.append(ev.verdict) if ev.kind in ("verdict", "warning") else None)

    def step():
        obs = src.poll(time.monotonic())
        if obs is not None:
            session.observe(obs)

    assert _wait(lambda: link.latest_snapshot() is not None, step=step)
    # blue to move, but the board itself says the chip is green: out of turn
    wrong = ref.layout.parse_space("c3")
    emu.place(wrong, "G")
    assert _wait(lambda: any(v is not None and v.kind == "violation" for v in verdicts), step=step)
    assert ref.board.cells[wrong] == 0
    emu.remove(wrong)
    # a chip whose tag cannot be read is unknown, never a colour and never judged
    blank = ref.layout.parse_space("d4")
    emu.place(blank)                      # "occupied": no colour read
    time.sleep(0.4)
    step()
    assert ref.board.cells[blank] == 0
    emu.set_space(blank, "B")             # the tag is read: blue's chip
    assert _wait(lambda: ref.board.cells[blank] == 1, step=step)
    link.stop()
    emu.stop()
    kinds = [v.kind for v in verdicts if v is not None]
    assert kinds[0] == "violation" and kinds[-1] == "placement"
