"""A session judging chips with the cards laid, its record replayed (issue 24)."""

from __future__ import annotations

import json

from engine.observation import SpaceState
from engine.record import parse_record, replay
from engine.referee import Referee
from seqboard.recorder import RecordWriter
from seqboard.session import Session


def make(tmp_path):
    ref = Referee("classic", 2)
    ref.judge_cards = True
    path = tmp_path / "game.jsonl"
    rec = RecordWriter(path)
    s = Session(ref, recorder=rec, mode="referee")
    events = []
    s.subscribe(lambda e, view: events.append(e))
    return s, path, events


def put(s, name):
    r = s.referee
    return r.expected().replace({r.layout.parse_space(name): SpaceState(r.colours[r.team])})


def name_of(s, card, k=0):
    r = s.referee
    return r.layout.space_name(r.layout.spaces_of[card][k])


def test_a_wrong_space_warns_then_the_record_holds_every_real_card_and_replays(tmp_path):
    s, path, events = make(tmp_path)
    r = s.referee
    s.lay_card("5H", 0, via="camera")
    wrong = name_of(s, "5D")
    v = s.observe(put(s, wrong))
    assert v.rule == "wrong_card"
    assert s.view()["warning"]["text"].startswith(f"illegal: 5H laid: the chip on {wrong} is the 5D")
    assert f"take the chip off {wrong}" in s.view()["warning"]["text"]
    s.observe(r.expected())                              # lifted: put right
    assert s.warning is None
    s.observe(put(s, name_of(s, "5H", 1)))
    assert r.moves[-1][1].card == "5H"
    # chip before card; a card typed at the terminal
    v = s.observe(put(s, name_of(s, "QD")))
    assert v.kind == "waiting"
    s.observe(put(s, name_of(s, "QD")))                  # seen again: said once
    assert sum(e.kind == "waiting" for e in events) == 1
    s.lay_card("QD", 1, via="typed")
    # an unreadable card: the page asks for it, then it is tapped
    assert s.lay_card(None, 0, via="camera").kind == "waiting"
    assert "cannot be read" in s.log[-1]["text"]
    s.observe(put(s, name_of(s, "2C")))
    s.lay_card("2C", 0, via="page")
    s.recorder.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["judge_cards"] is True
    assert [e["card"] for e in lines if e["type"] == "move"] == ["5H", "QD", "2C"]
    assert [e["via"] for e in lines if e.get("event") == "card"] == ["camera", "typed", "page"]
    result = replay(parse_record(path.read_text(), "game.jsonl"))
    assert result.ok, result.refusal
    assert [m.card for _, m in result.moves] == ["5H", "QD", "2C"]


def test_a_replay_refuses_a_move_line_naming_another_card_than_the_one_laid(tmp_path):
    s, path, _ = make(tmp_path)
    s.lay_card("7D", 0)
    s.observe(put(s, name_of(s, "7D")))
    s.recorder.close()
    text = path.read_text().replace('"card":"7D","space"', '"card":"JD","space"')
    result = replay(parse_record(text))
    assert not result.ok and "the card laid was 7D" in result.refusal


def test_the_next_players_card_before_an_unread_one_is_given_judges_without_cards(tmp_path):
    s, path, _ = make(tmp_path)
    s.lay_card(None, 0)                                  # unreadable
    s.observe(put(s, name_of(s, "8S")))
    assert not s.referee.moves                           # the chip waits
    s.lay_card("3D", 1)                                  # the next player's card
    r = s.referee
    assert len(r.moves) == 1 and r.moves[0][1].card is None and r.card_laid == "3D"
    s.recorder.close()
    assert replay(parse_record(path.read_text())).ok


def test_a_card_typed_at_the_terminal_with_k(tmp_path):
    import io

    from seqboard.loop import Commands, read_keys
    s, path, _ = make(tmp_path)
    r = s.referee
    commands, out = Commands(), io.StringIO()
    right = name_of(s, "TD")
    read_keys(lambda: s, commands, io.StringIO("k 10d\nk\nk zz\n"), out)
    commands.run_pending()
    assert r.card_laid == "TD"
    assert "card: name one card, e.g. k 5h" in out.getvalue()
    assert "card: 'zz' is not a card of" in out.getvalue()
    s.observe(put(s, right))
    assert r.moves[-1][1].card == "TD"


def test_a_dead_card_trade_seen_on_the_pile_is_recorded_and_replayed_and_a_forged_one_refused(
        tmp_path):
    s, path, _ = make(tmp_path)
    r = s.referee
    a, b = r.layout.spaces_of["6S"]
    for sp, seat, card in ((a, 0, "6S"), (b, 1, "6S")):
        s.lay_card(card, seat)
        s.observe(r.expected().replace({sp: SpaceState(r.colours[r.team])}))
    s.lay_card("6S", 0)                   # dead now: both 6S spaces taken; traded
    v = s.lay_card("9H", 0)
    assert v.kind == "waiting" and r.dead_traded and "dead card 6S traded" in v.message
    s.observe(put(s, name_of(s, "9H")))
    assert r.moves[-1][1].card == "9H"
    s.recorder.close()
    text = path.read_text()
    result = replay(parse_record(text))
    assert result.ok, result.refusal
    assert [m.action for _, m in result.moves] == ["place", "place", "dead", "place"]
    # the record says a card was laid that the rules judge otherwise: refused with its line
    forged = text.replace('"card":"9H","via":"camera"', '"card":"9D","via":"camera"', 1)
    bad = replay(parse_record(forged))
    assert not bad.ok and "rules say" in bad.refusal
