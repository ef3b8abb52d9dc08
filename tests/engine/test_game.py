import random

import pytest

from engine.editions import Options, get_edition
from engine.errors import EngineError, IllegalMoveError
from engine.game import Game
from engine.moves import Move

from .helpers import game_with, place


@pytest.mark.parametrize("players,size", [(2, 7), (3, 6), (4, 6), (6, 5), (8, 4), (9, 4),
                                          (10, 3), (12, 3)])
def test_classic_hand_sizes(players, size):
    g = Game("classic", players, rng=random.Random(0))
    assert all(len(h) == size for h in g.hands)
    assert len(g.deck) == 104 - players * size


def test_teams_alternate_seats():
    g = Game("classic", 6, rng=random.Random(0))
    assert g.n_teams == 2 and [g.team_of(p) for p in range(6)] == [0, 1, 0, 1, 0, 1]
    g3 = Game("classic", 6, n_teams=3, rng=random.Random(0))
    assert [g3.team_of(p) for p in range(6)] == [0, 1, 2, 0, 1, 2]


def test_player_counts_refused():
    with pytest.raises(EngineError, match="not 5"):
        Game("classic", 5)
    with pytest.raises(EngineError):
        Game("jewish", 5)
    with pytest.raises(EngineError):
        Game("travel", 3)


@pytest.mark.parametrize("edition,players,size", [("jewish", 2, 5), ("jewish", 3, 5),
                                                  ("jewish", 4, 4), ("jewish", 6, 4),
                                                  ("travel", 2, 7)])
def test_other_hand_sizes(edition, players, size):
    g = Game(edition, players, rng=random.Random(0))
    assert all(len(h) == size for h in g.hands)


def test_jack_suits():
    e = get_edition("classic")
    assert e.card_kind("JD") == e.card_kind("JC") == "wild"
    assert e.card_kind("JH") == e.card_kind("JS") == "remove"
    j = get_edition("jewish")
    assert j.card_kind("ADD") == "wild" and j.card_kind("REMOVE") == "remove"


def test_card_goes_on_its_space_and_is_drawn_for():
    g = game_with({}, hand=["5S", "2H", "3H", "4H", "6H", "7H", "8H"])
    deck_before = len(g.deck)
    place(g, "5S", "e1")
    assert g.board.cells[g.layout.parse_space("e1")] == 1
    assert g.discards[0] == ["5S"] and len(g.hands[0]) == 7 and len(g.deck) == deck_before - 1
    assert g.current == 1


def test_card_must_match_the_space():
    g = game_with({}, hand=["5S", "2H", "3H", "4H", "6H", "7H", "8H"])
    with pytest.raises(IllegalMoveError, match="does not match"):
        place(g, "5S", "f1")


def test_corner_is_never_playable():
    g = game_with({}, hand=["JD", "2H", "3H", "4H", "6H", "7H", "8H"])
    with pytest.raises(IllegalMoveError, match="free corner"):
        place(g, "JD", "a1")


def test_two_eyed_jack_goes_anywhere_open():
    g = game_with({"e5": 1}, hand=["JC", "2H", "3H", "4H", "6H", "7H", "8H"])
    place(g, "JC", "d4")
    with pytest.raises(IllegalMoveError, match="already covered"):
        g.current = 0
        g.hands[0].append("JD")
        place(g, "JD", "e5")


def test_one_eyed_jack_removes_an_opponent_chip_only():
    g = game_with({"e5": 1, "d4": 0}, hand=["JH", "2H", "3H", "4H", "6H", "7H", "8H"])
    with pytest.raises(IllegalMoveError, match="your own"):
        g.push(Move("remove", "JH", g.layout.parse_space("d4")))
    with pytest.raises(IllegalMoveError, match="cannot place"):
        place(g, "JH", "c3")
    g.push(Move("remove", "JH", g.layout.parse_space("e5")))
    assert g.board.cells[g.layout.parse_space("e5")] == 0 and g.current == 1


def test_sequence_chips_cannot_be_removed_unless_advanced():
    chips = {n: 1 for n in ["b4", "c4", "d4", "e4", "f4"]}
    g = game_with(chips, hand=["JS", "2H", "3H", "4H", "6H", "7H", "8H"])
    with pytest.raises(IllegalMoveError, match="completed sequence"):
        g.push(Move("remove", "JS", g.layout.parse_space("c4")))
    ga = game_with(chips, hand=["JS", "2H", "3H", "4H", "6H", "7H", "8H"],
                   options=Options(advanced=True))
    ga.push(Move("remove", "JS", ga.layout.parse_space("c4")))
    assert ga.board.counts[1] == 0


def dead_game():
    # both 6C spaces (a2, c4) covered: 6C is dead
    return game_with({"a2": 1, "c4": 1}, hand=["6C", "6C", "2H", "3H", "4H", "7H", "8H"])


def test_dead_card_is_visible_and_traded_once_per_turn_before_playing():
    g = dead_game()
    assert "6C" in g.dead_cards() and g.is_dead("6C")
    g.push(Move("dead", "6C"))
    assert g.current == 0 and len(g.hands[0]) == 7 and g.discards[0] == ["6C"]
    with pytest.raises(IllegalMoveError, match="one dead card"):
        g.push(Move("dead", "6C"))
    with pytest.raises(IllegalMoveError, match="not a dead card"):
        game_with({}, hand=["6C", "2H", "3H", "4H", "5H", "7H", "8H"]).push(Move("dead", "6C"))


def test_lost_draw_leaves_a_smaller_hand():
    g = game_with({}, hand=["5S", "2H", "3H", "4H", "6H", "7H", "8H"])
    g.push(Move("place", "5S", g.layout.parse_space("e1")), draw=False)
    assert len(g.hands[0]) == 6


def test_discards_are_reshuffled_when_the_deck_runs_out():
    g = Game("classic", 2, rng=random.Random(3))
    from engine.players import RandomPlayer
    p = [RandomPlayer(random.Random(1)), RandomPlayer(random.Random(2))]
    while g.reshuffles == 0 and not g.over:
        g.push(p[g.current].choose(g))
    if not g.over:
        cards = len(g.deck) + sum(map(len, g.hands)) + sum(map(len, g.discards))
        assert cards == 104 and len(g.deck) > 0


def test_table_talk_penalty():
    g = Game("classic", 4, rng=random.Random(0))
    before = [len(h) for h in g.hands]
    g.table_talk(1, {1: g.hands[1][0], 3: g.hands[3][0]})
    assert [len(h) for h in g.hands] == [before[0], before[1] - 1, before[2], before[3] - 1]
    with pytest.raises(IllegalMoveError):
        Game("classic", 4, options=Options(table_talk_penalty=False)).table_talk(0, {})


def test_move_text_round_trips():
    for text in ["place 5H c4", "remove JS j10", "dead 6C", "pass", "place ? d7"]:
        assert Move.parse(text).text() == text
