"""The optional NFC card reader of a matrix board: CARD frames (issue 24, docs/protocol.md)."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import firmware_bridge
from engine.referee import Referee
from firmware_bridge import protocol as P
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import MatrixLink
from firmware_bridge.wiring import make_wiring
from seqboard.session import Session
from seqboard.sources import MatrixSource

from ..waiting import wait_until

sys.path.insert(0, str(Path(firmware_bridge.__file__).parent / "firmware"))
import proto  # noqa: E402  the firmware's module, under CPython


def test_a_card_tapped_on_a_seats_reader_judges_the_chip_over_a_pty():
    emu = Emulator(10, 10, sensor="identity")
    link = MatrixLink(emu.start_pty(), wiring=make_wiring(10, 10))
    ref = Referee("classic", 2)
    ref.judge_cards = True
    session = Session(ref, mode="referee")
    source = MatrixSource(link, session, settle=0.1)
    try:
        link.start(wait=10)
        wrong = ref.layout.spaces_of["5D"][0]
        emu.lay_card(0, "5H")                 # seat 1 taps the 5 of hearts
        emu.place(wrong, "B")                 # and puts the chip on a 5 of diamonds

        def step():
            obs = source.poll(__import__("time").monotonic())
            if obs is not None:
                session.observe(obs)
        assert wait_until(lambda: session.warning is not None, timeout=20, step=step)
        assert session.warning.rule == "wrong_card"
        assert session.warning.message.startswith(
            f"illegal: 5H laid: the chip on {ref.layout.space_name(wrong)} is the 5D")
        emu.remove(wrong)
        right = ref.layout.spaces_of["5H"][0]
        emu.place(right, "B")
        assert wait_until(lambda: len(ref.moves) == 1, timeout=20, step=step)
        assert ref.moves[0][1].card == "5H"
        # sent until acknowledged, taken once: no second card arrived from resends
        assert ref.card_laid is None
        emu.lay_card(1, "QQ")                 # a tag that is no card: said, nothing laid
        assert wait_until(lambda: any("'QQ'" in e["text"] for e in session.log),
                          timeout=20, step=step)
        assert ref.card_laid is None
    finally:
        link.stop()
        emu.stop()


def test_the_firmware_sends_a_card_again_until_acknowledged_then_stops():
    sent = []
    core = proto.BoardCore(2, 2, proto.SENSOR_OCCUPANCY, 4, lambda: [0] * 4, lambda c: None,
                           sent.append)
    sent.clear()
    core.tick(0)
    core.card(1, "TD")
    cards = [P.Frame.decode(b[:-1]) for b in sent if P.Frame.decode(b[:-1]).kind == P.CARD]
    assert P.CardTag.unpack(cards[0].payload) == P.CardTag(1, 1, "TD")
    core.tick(600)                              # no ACK: sent again, the same card number
    again = [P.Frame.decode(b[:-1]) for b in sent if P.Frame.decode(b[:-1]).kind == P.CARD]
    assert len(again) == 2 and P.CardTag.unpack(again[1].payload).counter == 1
    core.receive(P.Frame(P.ACK, 5, struct.pack("<H", again[1].seq)).encode())
    core.tick(1300)
    core.tick(2000)
    assert len([b for b in sent if P.Frame.decode(b[:-1]).kind == P.CARD]) == 2


def test_a_malformed_card_frame_is_refused_by_name():
    import pytest
    with pytest.raises(P.ProtocolError, match="card code"):
        P.CardTag.unpack(struct.pack("<IB", 1, 0) + b"5\xff")
    with pytest.raises(P.ProtocolError, match="6 to 13 bytes"):
        P.CardTag.unpack(b"\x01\x00")
