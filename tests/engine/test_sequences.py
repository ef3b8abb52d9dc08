import random

import pytest
from hypothesis import given, settings, strategies as st

from engine.board import Board
from engine.editions import Options, get_edition
from engine.errors import IllegalMoveError
from engine.game import Game, builtin_layout
from engine.layout import Layout, builtin_layout_text, parse_layout, parse_space
from engine.moves import Move

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
def test_a_line_laid_from_one_end_holds_two_sequences_only_from_nine(length, expected):
    b = board()
    row = [f"{chr(ord('b') + i)}4" for i in range(length)]
    put(b, row, 0)
    assert b.counts[0] == expected


def test_line_of_ten_laid_in_order_is_two_sequences():
    b = board()
    put(b, [f"{chr(ord('a') + i)}5" for i in range(10)], 0)
    assert b.counts[0] == 2
    assert [q.text() for q in b.sequences] == ["a5-e5", "e5-i5"]


def test_filling_the_middle_of_nine_makes_two_at_once():
    b = board()
    put(b, ["b4", "c4", "d4", "e4", "g4", "h4", "i4", "j4"], 0)
    assert b.counts[0] == 0
    assert put(b, ["f4"], 0) == 2
    assert [q.text() for q in b.sequences] == ["b4-f4", "f4-j4"]


def test_crossing_sequences_share_one_space():
    b = board()
    put(b, ["b5", "c5", "d5", "e5", "f5"], 0)
    assert put(b, ["d2", "d3", "d4", "d6"], 0) == 1      # column d shares d5
    assert b.counts[0] == 2


def test_sharing_more_than_one_space_is_an_option():
    b = board(shared=2)
    put(b, [f"{chr(ord('b') + i)}4" for i in range(8)], 0)     # b4-f4, then e4-i4 shares e4 f4
    assert b.counts[0] == 2
    b1 = board(shared=1)
    put(b1, [f"{chr(ord('b') + i)}4" for i in range(8)], 0)
    assert b1.counts[0] == 1


def test_sharing_is_checked_against_each_sequence_of_the_team():
    b = board(shared=1)
    put(b, ["b2", "c2", "d2", "e2", "f2"], 0)             # row 2
    put(b, ["b3", "b4", "b5", "b6"], 0)                   # column b with b2: b2-b6
    assert b.counts[0] == 2
    # the diagonal b2..f6 would share only b2 with each: allowed
    assert put(b, ["c3", "d4", "e5", "f6"], 0) == 1
    assert b.counts[0] == 3


def test_advanced_break_updates_the_count():
    opts = Options(advanced=True)
    g = game_with({n: 1 for n in ["b4", "c4", "d4", "e4", "f4", "g4"]}, hand=["JH"], options=opts)
    assert g.board.counts[1] == 1 and g.board.sequences[0].text() == "b4-f4"
    g.push(Move("remove", "JH", g.layout.parse_space("b4")))
    # the sequence is broken; c4-g4 is five in a row, but no placement made it a sequence
    assert g.board.counts[1] == 0 and g.board.sequences == []
    assert not g.board.is_locked(g.layout.parse_space("c4"))
    g2 = game_with({n: 1 for n in ["b4", "c4", "d4", "e4", "f4"]}, hand=["JS"], options=opts)
    g2.push(Move("remove", "JS", g2.layout.parse_space("d4")))
    assert g2.board.counts[1] == 0


def test_a_broken_sequence_is_made_again_by_the_placement_that_completes_it():
    opts = Options(advanced=True)
    g = game_with({n: 1 for n in ["b4", "c4", "d4", "e4", "f4", "g4"]}, hand=["JH"], options=opts)
    g.push(Move("remove", "JH", g.layout.parse_space("d4")))
    assert g.board.counts[1] == 0
    g.board.place(g.layout.parse_space("d4"), 1)
    # the new chip completes b4-f4 and c4-g4; the team takes one, the default b4-f4
    assert [q.text() for q in g.board.sequences] == ["b4-f4"]


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
       st.integers(0, 2**32 - 1), st.integers(0, 2))
def test_incremental_detection_equals_a_full_scan(edition, teams, seed, shared):
    """The windows a placement completes, found through the precomputed masks of the lines
    through its space, are those found by reading every window of every line; the counts
    are the stored sets; a chip is protected exactly when a stored set holds it."""
    if edition == "travel":
        teams = 2
    e = get_edition(edition)
    shared = min(shared, e.sequence_length - 1)
    b = board(edition, teams, shared)
    rng = random.Random(seed)
    for _ in range(rng.randrange(20, 200)):
        i = rng.randrange(b.layout.size)
        if b.cells[i] == 0:
            t = rng.randrange(teams)
            incremental = sorted(w for ids in b._candidates(i, t) for wi in ids
                                 for w in [b._win.spaces[wi]])
            assert incremental == b.scan_candidates(i, t)
            gain = b.gain(i, t)
            assert b.place(i, t) == gain
        elif b.cells[i] > 0 and rng.random() < 0.3:
            b.remove(i)
        assert b.counts == [sum(q.team == t for q in b.sequences) for t in range(teams)]
        held = {c for q in b.sequences for c in q.spaces}
        assert all(b.is_locked(j) == (b.cells[j] > 0 and j in held) for j in range(b.layout.size))


# --- the two example games of issue 20, as positions ---------------------------------------
def blue_and_filler(g, blue: list[str], green: list[str]) -> None:
    """Blue places ``blue`` in order; green answers each with the next of ``green``."""
    for b_name, g_name in zip(blue, green + [None] * len(blue)):
        place_any(g, b_name)
        if g_name is not None and not g.over:
            place_any(g, g_name)


def place_any(g, name: str) -> int:
    """The mover places on ``name`` with that space's card (swapped into the hand)."""
    s = g.layout.parse_space(name)
    card = g.layout.symbols[s]
    hand = g.hands[g.current]
    if card not in hand:
        for pile in [g.deck] + [h for i, h in enumerate(g.hands) if i != g.current]:
            if card in pile:
                pile[pile.index(card)] = hand[0]
                hand[0] = card
                break
    return g.push(Move("place", card, s))


def test_example_1_a_line_of_nine_made_from_its_middle_is_one_sequence():
    """h5 h6 h1 h2 h8 h7 h4 h3 h9: h4 makes h4-h8; h3 and h9 add no second sequence (h1-h5
    would share h4 and h5 with it), so blue has one sequence and has not won."""
    g = Game("classic", 2, rng=random.Random(3))
    order = ["h5", "h6", "h1", "h2", "h8", "h7", "h4", "h3", "h9"]
    blue_and_filler(g, order, ["b2", "b4", "b6", "b8", "d2", "d4", "d6", "d8"])
    assert [(q.team, q.text()) for q in g.board.sequences] == [(0, "h4-h8")]
    assert g.board.counts == [1, 0]
    assert not g.over and g.winner is None
    # the chips that lengthen the line are not protected; those of h4-h8 are
    for name in ["h1", "h2", "h3", "h9"]:
        assert not g.board.is_locked(g.layout.parse_space(name))
    for name in ["h4", "h5", "h6", "h7", "h8"]:
        assert g.board.is_locked(g.layout.parse_space(name))
    # h10 would not make one either: h6-h10 shares three spaces with h4-h8
    assert g.board.gain(g.layout.parse_space("h10"), 0) == 0


def test_example_1_the_old_count_of_runs_would_have_declared_a_win():
    """The same nine chips laid from one end are two sequences (h1-h5, then h5-h9)."""
    g = Game("classic", 2, rng=random.Random(3))
    blue_and_filler(g, ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"],
                    ["b2", "b4", "b6", "b8", "d2", "d4", "d6", "d8"])
    assert [q.text() for q in g.board.sequences] == ["h1-h5", "h5-h9"]
    assert g.over and g.winner == 0


def corner_at_h1() -> Layout:
    """The classic board with a free corner at h1 (and its 8S twin b8 free too, so every
    card is still printed equally often), as in the second example of issue 20."""
    text = builtin_layout_text("classic").replace(
        "XX 2S 3S 4S 5S 6S 7S 8S 9S XX", "XX 2S 3S 4S 5S 6S 7S XX 9S XX").replace(
        "KC 8S TC", "KC XX TC")
    return parse_layout(text, "corner-h1.txt")


@pytest.mark.parametrize("corner,line,extra", [
    ("h1", ["h2", "h3", "h4", "h5"], "h6"),       # the issue's own example (a corner at h1)
    ("j1", ["j2", "j3", "j4", "j5"], "j6"),       # the same on the printed board's corner j1
])
def test_example_2_a_chip_that_lengthens_a_sequence_may_be_removed(corner, line, extra):
    layout = corner_at_h1() if corner == "h1" else None
    g = Game("classic", 2, rng=random.Random(4), layout=layout)
    assert g.layout.parse_space(corner) in g.layout.free
    blue_and_filler(g, line + [extra], ["b2", "b4", "b6", "d2"])
    assert [q.text() for q in g.board.sequences] == [f"{corner}-{line[-1]}"]
    assert g.team == 1                      # green to move, holding a one-eyed jack
    if "JH" not in g.hands[g.current]:
        g.hands[g.current][0] = "JH"
    s_extra = g.layout.parse_space(extra)
    assert s_extra in g.targets("JH")
    for name in line:
        assert g.layout.parse_space(name) not in g.targets("JH")
        with pytest.raises(IllegalMoveError, match="part of a completed sequence"):
            g.check(Move("remove", "JH", g.layout.parse_space(name)))
    g.push(Move("remove", "JH", s_extra))
    assert g.board.counts == [1, 0] and g.board.cells[s_extra] == 0


def test_a_longer_line_completed_at_once_takes_the_five_with_most_room():
    """b4 c4 d4 e4 and g4 then f4: six in a row at once. b4-f4 leaves f4-j4 open for a
    second sequence on the row; c4-g4 would leave none. The default is b4-f4."""
    b = board()
    put(b, ["b4", "c4", "d4", "e4", "g4"], 0)
    s = b.layout.parse_space("f4")
    opts = b.options(s, 0)
    assert [[q.text() for q in o] for o in opts] == [["b4-f4"], ["c4-g4"]]
    assert b.room(0, opts[0]) > b.room(0, opts[1])
    assert put(b, ["f4"], 0) == 1 and b.sequences[0].text() == "b4-f4"


def test_the_players_may_name_the_five():
    g = game_with({n: 0 for n in ["b4", "c4", "d4", "e4", "g4"]}, hand=["JD"])
    f4 = g.layout.parse_space("f4")
    c4_g4 = tuple(sorted(g.layout.parse_space(n) for n in ["c4", "d4", "e4", "f4", "g4"]))
    m = Move("place", "JD", f4, (c4_g4,))
    assert m.text() == "place JD f4 five c4-g4"
    assert Move.parse("place JD f4 five c4-g4") == m
    assert Move.from_json(m.to_json()) == m
    assert m.to_json()["five"] == [["c4", "d4", "e4", "f4", "g4"]]
    g.push(m)
    assert [q.text() for q in g.board.sequences] == ["c4-g4"]
    assert not g.board.is_locked(g.layout.parse_space("b4"))


def test_a_five_the_placement_does_not_complete_is_refused():
    g = game_with({n: 0 for n in ["b4", "c4", "d4", "e4", "g4"]}, hand=["JD"])
    f4 = g.layout.parse_space("f4")
    wrong = tuple(sorted(g.layout.parse_space(n) for n in ["d4", "e4", "f4", "g4", "h4"]))
    with pytest.raises(IllegalMoveError, match="d4-h4 is not a sequence"):
        g.check(Move("place", "JD", f4, (wrong,)))
    with pytest.raises(IllegalMoveError, match="completes no sequence"):
        g.check(Move("place", "JD", g.layout.parse_space("a8"), (wrong,)))


def test_a_sequence_shares_at_most_one_space_with_each_earlier_one_of_its_team():
    b = board()
    put(b, ["b4", "c4", "d4", "e4", "f4"], 0)
    put(b, ["g4", "h4", "i4"], 0)           # f4..i4 + j4 would share only f4
    assert put(b, ["j4"], 0) == 1
    assert [q.text() for q in b.sequences] == ["b4-f4", "f4-j4"]


def test_legal_moves_are_exactly_the_moves_check_accepts():
    rng = random.Random(9)
    for n in range(12):
        g = Game(rng.choice(["classic", "travel", "jewish"]), 2, rng=random.Random(n),
                 options=Options(advanced=n % 3 == 0))
        while not g.over and len(g.history) < 400:
            legal = g.legal_moves()
            assert len(set(legal)) == len(legal)
            hand = set(g.hands[g.current])
            every = [Move(a, c, s) for c in hand for a in ("place", "remove")
                     for s in range(g.layout.size)] + [Move("dead", c) for c in hand] + [Move("pass")]
            accepted = []
            for m in every:
                try:
                    g.check(m)
                except IllegalMoveError:
                    continue
                accepted.append(m)
            assert set(accepted) == set(legal)
            g.push(rng.choice(legal))


def test_a_sequence_prints_and_parses_itself():
    from engine.board import Sequence
    from engine.errors import RecordError
    q = Sequence(1, tuple(sorted(parse_space(n) for n in ["h4", "h5", "h6", "h7", "h8"])))
    assert q.text() == "h4-h8" and str(q) == "h4-h8"
    assert Sequence.parse("h4-h8", 1) == q == Sequence.parse("h8-h4", 1)
    assert Sequence.from_json(q.to_json()) == q
    assert q.to_json() == {"team": 1, "spaces": ["h4", "h5", "h6", "h7", "h8"]}
    assert Sequence.parse("a1-e5", 0).names() == ["a1", "b2", "c3", "d4", "e5"]
    with pytest.raises(RecordError, match="not on one straight line"):
        Sequence.parse("a1-c2", 0)
    with pytest.raises(RecordError):
        Sequence.from_json({"team": "blue", "spaces": ["a1"]})


def test_a_free_corner_is_never_a_shared_space_even_when_no_sharing_is_allowed():
    # review attack: with max_shared_spaces = 0, two sequences of one team through the
    # same free corner share no chip (docs/rules.md: corners are in any number of sequences)
    for shared in (0, 1, 2):
        g = Game("classic", 2, options=Options(max_shared_spaces=shared), rng=random.Random(1))
        for name in ("a2", "a3", "a4", "a5", "b1", "c1", "d1", "e1"):
            g.board.place(g.layout.parse_space(name), 0)
        assert [str(s) for s in g.board.sequences] == ["a1-a5", "a1-e1"], shared
    # but a chip shared with max_shared_spaces = 0 still is refused
    g = Game("classic", 2, options=Options(max_shared_spaces=0), rng=random.Random(1))
    for name in ("c1", "c2", "c3", "c4", "c5", "d5", "e5", "f5", "g5"):
        g.board.place(g.layout.parse_space(name), 0)
    assert [str(s) for s in g.board.sequences] == ["c1-c5"]
