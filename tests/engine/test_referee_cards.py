"""The referee judging each chip against the card laid on the player's pile (issue 24)."""

from __future__ import annotations

import pytest

from engine.errors import EngineError
from engine.observation import SpaceState
from engine.referee import Referee


def ref_cards(edition="classic", **kw) -> Referee:
    r = Referee(edition, 2, **kw)
    r.judge_cards = True
    return r


def put(r: Referee, name: str, colour: str | None = None):
    """The board as expected, with a chip of the mover's colour on ``name``."""
    s = r.layout.parse_space(name)
    return r.expected().replace({s: SpaceState(colour or r.colours[r.team])})


def off(r: Referee, name: str):
    return r.expected().replace({r.layout.parse_space(name): SpaceState.EMPTY})


def names(r, card):
    return [r.layout.space_name(i) for i in r.layout.spaces_of[card]]


def test_the_chip_on_the_other_space_of_its_suit_is_caught_naming_card_and_spaces():
    r = ref_cards()
    a, b = names(r, "5H")
    wrong = names(r, "5D")[0]
    assert r.lay_card("5H", 0).kind == "waiting"
    v = r.observe(put(r, wrong))
    assert v.kind == "violation" and v.rule == "wrong_card"
    assert v.message == f"illegal: 5H laid: the chip on {wrong} is the 5D; 5H is on {a} or {b}"
    assert not r.moves                       # nothing applied
    # the chip lifted and put on the card's space: a placement, the card recorded
    assert r.observe(r.expected()).kind == "no_change"
    v = r.observe(put(r, b))
    assert v.kind == "placement" and v.spaces == (r.layout.parse_space(b),)
    assert r.moves[-1][1].card == "5H"
    assert r.card_laid is None and r.current == 1


def test_either_space_of_the_card_is_right_and_the_chip_may_come_before_the_card():
    r = ref_cards()
    a, b = names(r, "KC")
    v = r.observe(put(r, a))                 # chip first: it waits for the card
    assert v.kind == "waiting" and "waiting for the card laid" in v.message
    assert not r.moves
    v = r.lay_card("KC", 0)
    assert v.kind == "placement" and r.moves[-1][1].card == "KC"
    r.lay_card("KC", 1)
    assert r.observe(put(r, b)).kind == "placement"


def test_a_card_with_no_chip_waits_and_so_does_a_chip_with_no_card():
    r = ref_cards()
    v = r.lay_card("9S", 0)
    assert v.kind == "waiting" and v.message == "9S laid: waiting for its chip"
    assert r.observe(r.expected()).kind == "no_change"
    assert r.card_laid == "9S" and not r.moves


@pytest.mark.parametrize("jack", ["JD", "JC"])
def test_a_two_eyed_jack_places_on_any_open_space_but_never_removes(jack):
    r = ref_cards()
    r.lay_card("2S", 0)
    r.observe(put(r, names(r, "2S")[0]))
    r.lay_card(jack, 1)
    v = r.observe(put(r, "e5"))
    assert v.kind == "placement" and r.moves[-1][1].card == jack
    r.lay_card("7H", 0)
    r.observe(put(r, names(r, "7H")[0]))
    r.lay_card(jack, 1)
    v = r.observe(off(r, names(r, "2S")[0]))
    assert v.kind == "violation" and v.rule == "wrong_card"
    assert "only a one-eyed jack removes a chip" in v.message


@pytest.mark.parametrize("jack", ["JS", "JH"])
def test_a_one_eyed_jack_removes_and_never_places(jack):
    r = ref_cards()
    sp = names(r, "3C")[0]
    r.lay_card("3C", 0)
    r.observe(put(r, sp))
    r.lay_card(jack, 1)
    v = r.observe(put(r, names(r, "4C")[0]))
    assert v.kind == "violation" and "it removes a chip" in v.message
    assert r.observe(r.expected()).kind == "no_change"
    v = r.observe(off(r, sp))
    assert v.kind == "removal" and r.moves[-1][1].card == jack


def test_a_card_seen_but_unreadable_never_makes_a_violation():
    r = ref_cards()
    r.lay_card(None, 0)                      # a new card, not read
    wrong_for_any = names(r, "5D")[0]
    v = r.observe(put(r, wrong_for_any))
    assert v.kind == "placement" and r.moves[-1][1].card is None


def test_a_dead_card_trade_is_checked_against_the_board():
    r = ref_cards()
    a, b = r.layout.spaces_of["6S"]
    r.board.place(a, 1)
    r.board.place(b, 1)
    r.lay_card("6S", 0)                      # dead: both spaces taken
    v = r.lay_card("8D", 0)                  # then another card: 6S was traded
    assert v.kind == "waiting" and v.message.startswith("dead card 6S traded")
    assert r.dead_traded
    assert r.observe(put(r, names(r, "8D")[0])).kind == "placement"
    r.lay_card("4H", 1)                      # not dead: both spaces open
    v = r.lay_card("QS", 1)
    assert v.kind == "violation" and v.rule == "not_dead"
    assert "4H laid with no chip, then QS: 4H is not a dead card" in v.message


def test_a_card_on_the_pile_of_a_player_whose_turn_it_is_not():
    r = ref_cards()
    v = r.lay_card("AS", 1)
    assert v.rule == "card_out_of_turn" and r.card_laid is None


def test_the_card_supply_check_is_exact_with_known_cards():
    r = ref_cards()
    a, b = r.layout.spaces_of["TH"]
    r.lay_card("TH", 0)
    r.observe(put(r, r.layout.space_name(a)))
    r.lay_card("TH", 1)
    r.observe(put(r, r.layout.space_name(b)))
    # both tens of hearts are laid: a third one is not in the deck
    r.lay_card("JC", 0)
    r.observe(put(r, "e5"))
    r.lay_card("JC", 1)
    r.observe(put(r, "e6"))
    r.lay_card("JC", 0)                      # a third JC
    v = r.observe(put(r, "e7"))
    assert v.kind == "violation" and v.rule == "no_card_left" and "JC" in v.message


def test_jewish_edition_add_and_remove_and_pictures():
    r = ref_cards("jewish")
    pic = next(c for c in r.layout.spaces_of if len(r.layout.spaces_of[c]) == 2)
    other = next(c for c in r.layout.spaces_of if c != pic)
    r.lay_card(pic, 0)
    v = r.observe(put(r, r.layout.space_name(r.layout.spaces_of[other][0])))
    assert v.rule == "wrong_card" and v.message.startswith(f"illegal: {pic} laid:")
    r.observe(r.expected())
    assert r.observe(put(r, r.layout.space_name(r.layout.spaces_of[pic][0]))).kind == "placement"
    r.lay_card("ADD", 1)
    free_space = next(i for i, c in enumerate(r.board.cells) if c == 0)
    assert r.observe(put(r, r.layout.space_name(free_space))).kind == "placement"
    r.lay_card("REMOVE", 0)
    assert r.observe(off(r, r.layout.space_name(free_space))).kind == "removal"


def test_a_card_not_of_the_edition_is_refused():
    r = ref_cards()
    with pytest.raises(EngineError):
        r.lay_card("ADD", 0)
    with pytest.raises(EngineError):
        Referee("classic", 2).lay_card("5H")


def test_a_takeback_gives_the_card_back_to_the_pile():
    r = ref_cards()
    a, b = names(r, "7S")
    r.lay_card("7S", 0)
    r.observe(put(r, a))
    assert r.undo().kind == "takeback"
    assert r.card_laid == "7S"
    r.observe(r.expected())
    assert r.observe(put(r, b)).kind == "placement" and r.moves[-1][1].card == "7S"
