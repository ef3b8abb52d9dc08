"""A chip judged against the card laid (issue 24)."""

from __future__ import annotations

import pytest

from engine.card_check import judge_with_card
from engine.game import builtin_layout

L = builtin_layout("classic")
OPEN = frozenset(range(L.rows * L.cols)) - L.free


def sp(name):
    return L.parse_space(name)


def test_a_chip_on_the_other_card_names_the_card_and_its_open_spaces():
    a, b = (L.space_name(i) for i in L.spaces_of["5H"])
    wrong = L.spaces_of["5D"][0]
    v = judge_with_card(L, OPEN, "5H", placed=wrong)
    assert v.violation
    assert v.message == (f"5H laid: the chip on {L.space_name(wrong)} is the 5D; "
                         f"5H is on {a} or {b}")


def test_either_space_of_the_card_is_right_and_a_taken_one_is_named():
    a, b = L.spaces_of["5H"]
    assert judge_with_card(L, OPEN, "5H", placed=a).ok
    assert judge_with_card(L, OPEN, "5H", placed=b).ok
    v = judge_with_card(L, OPEN - {a}, "5D", placed=L.spaces_of["5H"][1])
    assert v.violation and f"5D is on {L.space_name(L.spaces_of['5D'][0])}" in v.message


def test_a_dead_card_is_said_when_both_its_spaces_are_taken():
    a, b = L.spaces_of["9S"]
    v = judge_with_card(L, OPEN - {a, b}, "9S", placed=L.spaces_of["2C"][0])
    assert v.violation and "a dead card to trade" in v.message


@pytest.mark.parametrize("jack", ["JD", "JC"])
def test_two_eyed_jacks_place_anywhere_open_and_never_remove(jack):
    anywhere = L.spaces_of["KS"][0]
    assert judge_with_card(L, OPEN, jack, placed=anywhere).ok
    assert judge_with_card(L, OPEN, jack, removed=anywhere).violation
    assert judge_with_card(L, OPEN - {anywhere}, jack, placed=anywhere).violation


@pytest.mark.parametrize("jack", ["JS", "JH"])
def test_one_eyed_jacks_remove_and_never_place(jack):
    s = L.spaces_of["QH"][0]
    assert judge_with_card(L, OPEN - {s}, jack, removed=s).ok
    v = judge_with_card(L, OPEN, jack, placed=s)
    assert v.violation and "removes a chip" in v.message


def test_a_removal_with_a_plain_card_is_a_violation():
    assert judge_with_card(L, OPEN, "7C", removed=L.spaces_of["7C"][0]).violation


def test_a_chip_without_a_card_and_a_card_without_a_chip_wait():
    v = judge_with_card(L, OPEN, None, placed=L.spaces_of["3D"][0])
    assert v.waiting and not v.ok and not v.violation
    v = judge_with_card(L, OPEN, "3D")
    assert v.waiting and "waiting for its chip" in v.message


def test_jewish_edition_pictures_and_add_remove():
    J = builtin_layout("jewish")
    opn = frozenset(range(J.rows * J.cols)) - J.free
    sym = next(s for s in J.spaces_of if s not in ("ADD", "REMOVE"))
    other = next(s for s in J.spaces_of if s != sym)
    assert judge_with_card(J, opn, sym, placed=J.spaces_of[sym][0]).ok
    v = judge_with_card(J, opn, sym, placed=J.spaces_of[other][0])
    where = J.space_name(J.spaces_of[other][0])
    assert v.violation and f"the chip on {where} is the {other}" in v.message
    assert judge_with_card(J, opn, "ADD", placed=J.spaces_of[other][0]).ok
    s = J.spaces_of[other][0]
    assert judge_with_card(J, opn - {s}, "REMOVE", removed=s).ok
