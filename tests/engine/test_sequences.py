import random

import pytest
from hypothesis import given, settings, strategies as st

from engine.board import Board
from engine.editions import Options, get_edition
from engine.game import builtin_layout

from .helpers import game_with, place


def board(edition="classic", teams=2, shared=1):
    e = get_edition(edition)
    return Board(builtin_layout(edition), e.sequence_length, teams, shared)


def put(b, names, team):
    return sum(b.place(b.layout.parse_space(n), team) for n in names)


@pytest.mark.parametrize("names", [
    ["b3", "c3", "d3", "e3", "f3"],            # row
    ["c2", "c3", "c4", "c5", "c6"],            # column
    ["c2", "d3", "e4", "f5", "g6"],            # diagonal
    ["f2", "e3", "d4", "c5", "b6"],            # anti-diagonal
])
def test_five_in_a_line_is_a_sequence(names):
    b = board()
    assert put(b, names[:4], 0) == 0
    assert put(b, names[4:], 0) == 1
    assert b.counts == [1, 0]


def test_corner_counts_for_every_team():
    b = board()
    assert put(b, ["b1", "c1", "d1", "e1"], 0) == 1        # a1 is a free corner
    assert put(b, ["a2", "a3", "a4", "a5"], 1) == 1        # same corner, other team
    assert b.counts == [1, 1]


def test_other_colour_breaks_the_line():
    b = board()
    put(b, ["b3", "c3", "e3", "f3"], 0)
    put(b, ["d3"], 1)
    assert b.counts == [0, 0]


@pytest.mark.parametrize("length,expected", [(5, 1), (8, 1), (9, 2)])
def test_line_lengths(length, expected):
    b = board()
    row = [f"{chr(ord('b') + i)}4" for i in range(length)]
    put(b, row, 0)
    assert b.counts[0] == expected


def test_line_of_ten_is_two_sequences():
    b = board()
    put(b, [f"{chr(ord('a') + i)}5" for i in range(10)], 0)
    assert b.counts[0] == 2


def test_filling_the_middle_of_nine_makes_two_at_once():
    b = board()
    put(b, ["b4", "c4", "d4", "e4", "g4", "h4", "i4", "j4"], 0)
    assert b.counts[0] == 0
    assert put(b, ["f4"], 0) == 2


def test_crossing_sequences_share_one_space():
    b = board()
    put(b, ["b5", "c5", "d5", "e5", "f5"], 0)
    assert put(b, ["d2", "d3", "d4", "d6"], 0) == 1      # column d shares d5
    assert b.counts[0] == 2


def test_sharing_more_than_one_space_is_an_option():
    b = board(shared=2)
    put(b, [f"{chr(ord('b') + i)}4" for i in range(8)], 0)     # 8 long, stride 3
    assert b.counts[0] == 2


def test_advanced_break_updates_the_count():
    opts = Options(advanced=True)
    g = game_with({n: 1 for n in ["b4", "c4", "d4", "e4", "f4", "g4"]}, hand=["JH"], options=opts)
    assert g.board.counts[1] == 1
    g.push(__import__("engine.moves", fromlist=["Move"]).Move("remove", "JH", g.layout.parse_space("b4")))
    assert g.board.counts[1] == 1          # c4-g4 still five: a new sequence
    g2 = game_with({n: 1 for n in ["b4", "c4", "d4", "e4", "f4"]}, hand=["JS"], options=opts)
    g2.push(__import__("engine.moves", fromlist=["Move"]).Move("remove", "JS", g2.layout.parse_space("d4")))
    assert g2.board.counts[1] == 0


def test_travel_sequences_are_four():
    b = board("travel")
    assert put(b, ["a2", "b2", "c2", "d2"], 0) == 1


def test_win_needs_two_sequences_for_two_teams():
    g = game_with({"b3": 0, "c3": 0, "d3": 0, "e3": 0, "b5": 0, "c5": 0, "d5": 0, "e5": 0},
                  hand=["7D", "3S", "2S", "4S", "5S", "6S", "8S"])
    # f3 is 4D in the classic layout? use the layout to find the cards
    f3, f5 = g.layout.symbols[g.layout.parse_space("f3")], g.layout.symbols[g.layout.parse_space("f5")]
    g.hands[0] = [f3, f5, "2S", "3S", "4S", "5S", "6S"]
    place(g, f3, "f3")
    assert g.board.counts[0] == 1 and not g.over
    g.current = 0
    place(g, f5, "f5")
    assert g.over and g.winner == 0


def test_three_teams_win_with_one():
    g = game_with({"b3": 0, "c3": 0, "d3": 0, "e3": 0}, n_players=3)
    card = g.layout.symbols[g.layout.parse_space("f3")]
    g.hands[0] = [card] + g.hands[0][1:]
    place(g, card, "f3")
    assert g.over and g.winner == 0 and g.to_win == 1


def test_jewish_one_sequence_wins():
    g = game_with({"b3": 0, "c3": 0, "d3": 0, "e3": 0}, edition="jewish")
    g.hands[0] = ["ADD"] + g.hands[0][1:]
    place(g, "ADD", "f3")
    assert g.over and g.winner == 0


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["classic", "travel", "jewish"]), st.integers(2, 3),
       st.integers(0, 2**32 - 1), st.integers(1, 2))
def test_incremental_count_equals_full_scan(edition, teams, seed, shared):
    if edition == "travel":
        teams = 2
    e = get_edition(edition)
    shared = min(shared, e.sequence_length - 1)
    b = board(edition, teams, shared)
    rng = random.Random(seed)
    for _ in range(rng.randrange(20, 160)):
        i = rng.randrange(b.layout.size)
        if b.cells[i] == 0:
            b.place(i, rng.randrange(teams))
        elif b.cells[i] > 0 and rng.random() < 0.4:
            b.remove(i)
        assert b.counts == [b.full_count(t) for t in range(teams)]
