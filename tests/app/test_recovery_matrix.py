"""The sensor matrix catches up the same way as the camera: chips placed while the board was
off, or faster than one snapshot, are judged as the moves in turn order they must be."""

from __future__ import annotations

import time

from engine.referee import Referee
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import MatrixLink
from firmware_bridge.wiring import make_wiring
from seqboard.session import Session
from seqboard.sources import attach_matrix

from ..waiting import wait_until as _wait


def _table(sensor: str):
    emu = Emulator(10, 10, sensor=sensor)
    link = MatrixLink(emu.start_tcp(), wiring=make_wiring(10, 10))
    link.start(wait=5)
    ref = Referee("classic", 2)
    session = Session(ref, mode="referee")
    src = attach_matrix(link, session, settle=0.1)
    events = []
    session.subscribe(lambda ev, view: events.append(ev))

    def step():
        obs = src.poll(time.monotonic())
        if obs is not None:
            session.observe(obs)
    assert _wait(lambda: link.latest_snapshot() is not None, step=step)
    return emu, link, ref, session, events, step


def test_chips_placed_while_the_board_was_off_are_caught_up():
    emu, link, ref, session, events, step = _table("identity")
    b2, e5, f3 = (ref.layout.parse_space(n) for n in ("b2", "e5", "f3"))
    emu.place(b2, "B")
    assert _wait(lambda: ref.board.cells[b2] == 1, step=step)
    emu.pull_cable(3.0)                       # the board is off ...
    assert _wait(lambda: session.source_problem is not None, 4.0, step=step)
    emu.place(e5, "G")                        # ... while green, then blue, play
    emu.place(f3, "B")
    assert _wait(lambda: len(ref.moves) == 3, 8.0, step=step)
    link.stop()
    emu.stop()
    assert [ref.layout.space_name(m.space) for _, m in ref.moves] == ["b2", "e5", "f3"]
    assert [e.text for e in events if e.kind == "caught_up"] == ["caught up: green e5, then blue f3"]
    assert session.warning is None


def test_a_missed_snapshot_on_an_occupancy_board_is_offered_and_confirmed():
    emu, link, ref, session, events, step = _table("occupancy")
    b2, c3 = ref.layout.parse_space("b2"), ref.layout.parse_space("c3")
    emu.place(b2)                             # two chips faster than one settled snapshot
    emu.place(c3)
    # an occupancy board cannot tell whose chip is whose: the order is asked for
    assert _wait(lambda: session.pending_catchup is not None, 5.0, step=step)
    assert "more than one order" in session.warning.message
    session.confirm()
    link.stop()
    emu.stop()
    assert len(ref.moves) == 2 and session.warning is None
    assert {m.space for _, m in ref.moves} == {b2, c3}
