"""The remote protocol's join codes and message checks (no broker needed)."""

from __future__ import annotations

import pytest

from seqboard.remote import protocol as P

KEY = P.board_key("SECRETSECRE", "north")
T = P.topic("ABCDE", "north", "move", 3)
MOVE = {"type": "move", "n": 3, "seat": 0, "action": "place", "card": "5H", "space": 44}


def test_join_codes_are_forgiving_to_type_and_strict_on_content():
    code = P.new_code()
    assert len(code) == 19 and code.count("-") == 3
    game, secret = P.parse_code(code)
    assert P.parse_code(code.lower().replace("-", " ")) == (game, secret)
    assert P.parse_code("0OIL-1111-1111-1111")[0] == "00111"
    with pytest.raises(ValueError, match="has 16 letters"):
        P.parse_code("ABCD-EFGH")
    with pytest.raises(ValueError, match="'U' cannot be in a join code"):
        P.parse_code("UUUU-UUUU-UUUU-UUUU")


def test_a_signed_move_round_trips_and_every_fault_is_named():
    data = P.encode(MOVE, T, KEY)
    assert P.decode(data, T, KEY) == MOVE
    cases = {
        b"x" * (P.MAX_MESSAGE + 1): "over the 4096-byte limit",
        b"\xff\xfe": "not JSON",
        b"[" * 2000 + b"]" * 2000: "JSON nested too deep",
        b"[1, 2]": "not a JSON object",
        data.replace(b'"5H"', b'"6H"'): "bad or missing signature",
        P.encode(MOVE, T, P.board_key("SECRETSECRE", "south")): "bad or missing signature",
        P.encode(MOVE, P.topic("ABCDE", "north", "move", 4), KEY): "bad or missing signature",
        P.encode({**MOVE, "type": "boom"}, T, KEY): "unknown message type",
        P.encode({**MOVE, "n": 0}, T, KEY): "n must be a move number",
        P.encode({**MOVE, "seat": 12}, T, KEY): "seat must be 0..11",
        P.encode({**MOVE, "action": "fly"}, T, KEY): "action must be one of",
        P.encode({**MOVE, "space": None}, T, KEY): "needs a card and a space",
        P.encode({**MOVE, "card": "x" * 30}, T, KEY): "card must be a short card name",
        P.encode({**MOVE, "action": "pass"}, T, KEY): "only a placement or removal has a space",
    }
    for payload, why in cases.items():
        with pytest.raises(P.Refused, match=why):
            P.decode(payload, T, KEY)
    with pytest.raises(ValueError, match="over 4096"):
        P.encode({"type": "note", "text": "y" * 5000}, T, KEY)
    # the largest message a board sends (12 hands of 8 cards) fits
    hands = {"type": "hand", "n": 99999, "hands": {str(i): ["10H"] * 8 for i in range(12)}}
    assert P.decode(P.encode(hands, T, KEY), T, KEY) == hands


def test_topics_of_others_are_refused():
    for t in ("other/v1/game/X/state", "seqboard/v1/game/X/board/no way/move/1",
              "seqboard/v1/game/X/board/a/shout/1", "seqboard/v1/game/X/board/a/move/1/2"):
        with pytest.raises(P.Refused, match="not a seqboard topic"):
            P.parse_topic(t)
    assert P.parse_topic("seqboard/v1/game/X/state") == ("X", None, "state", None)
    assert P.parse_topic(T) == ("ABCDE", "north", "move", "3")
