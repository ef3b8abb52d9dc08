"""Attacks on catching up and takebacks (issue 25) found by the review: what no series of
moves explains is never caught up, and a takeback needs the board to show it."""

from __future__ import annotations

from engine.observation import Observation, SpaceState
from engine.referee import Referee
from seqboard.recorder import RecordWriter
from seqboard.session import Session


def _session(tmp_path):
    ref = Referee("classic", 2)
    s = Session(ref, recorder=RecordWriter(tmp_path / "game.jsonl"), mode="referee")
    return s, ref


def _with(ref: Referee, chips: dict[str, str]) -> Observation:
    return ref.expected().replace({ref.layout.parse_space(k): SpaceState(v)
                                   for k, v in chips.items()})


def _names(ref: Referee) -> list[str]:
    return [ref.layout.space_name(m.space) for _, m in ref.moves]


def test_a_chip_on_a_free_corner_is_never_caught_up_with_missed_moves(tmp_path):
    s, ref = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    # two missed moves, and a green chip on the free corner a1 as well
    v = s.observe(_with(ref, {"e5": "G", "f3": "B", "a1": "G"}))
    assert v.kind == "violation"
    assert _names(ref) == ["b2"]
    assert "take the chip off a1" in s.warning.message
    # the corner chip lifted: now the two moves are caught up
    assert s.observe(_with(ref, {"e5": "G", "f3": "B"})).kind == "placement"
    assert _names(ref) == ["b2", "e5", "f3"]


def test_a_chip_on_a_free_corner_is_not_a_takeback(tmp_path):
    s, ref = _session(tmp_path)
    for space, colour in (("b2", "B"), ("c3", "G"), ("d4", "B")):
        s.observe(_with(ref, {space: colour}))
    v = s.observe(_with(ref, {"c3": ".", "d4": ".", "j10": "B"}))
    assert v.kind == "violation"
    assert _names(ref) == ["b2", "c3", "d4"]


def test_a_takeback_is_not_taken_from_a_space_that_cannot_be_seen(tmp_path):
    s, ref = _session(tmp_path)
    for space, colour in (("b2", "B"), ("c3", "G"), ("d4", "B")):
        s.observe(_with(ref, {space: colour}))
    # green's c3 knocked off while blue's d4 sits in glare (unknown): the board agrees
    # with the position after b2 only where it is seen, so blue's d4 is not undone
    v = s.observe(_with(ref, {"c3": ".", "d4": "?"}))
    assert v.kind == "violation"
    assert _names(ref) == ["b2", "c3", "d4"]
    assert "put green back on c3" in s.warning.message
    # once d4 is seen empty too, it is the takeback
    s.observe(_with(ref, {"c3": ".", "d4": "."}))
    assert _names(ref) == ["b2"] and s.warning is None


def test_four_missed_moves_of_four_seats_are_all_found_and_the_game_is_untouched():
    # explain() now plays every order on one copy of the game and undoes it (it made a
    # deep copy of the whole game per order: seconds on a Pi for four changes)
    from engine import catchup
    ref = Referee("classic", 4)
    for name, colour in (("b2", "B"), ("c3", "G"), ("d4", "B"), ("e5", "G")):
        ref.observe(_with(ref, {name: colour}))
    before = (list(ref.board.cells), list(ref.moves), ref.current)
    obs = _with(ref, {"f6": "B", "g7": "G", "h8": "B", "i9": "G"})
    found = catchup.explain(ref, obs)
    # blue, green, blue, green: the two blue chips in either order, the two green too
    assert len(found) == 4
    assert all([s.verdict.team for s in series.steps] == [0, 1, 0, 1] for series in found)
    assert (list(ref.board.cells), list(ref.moves), ref.current) == before
    assert {tuple(ref.layout.space_name(s.verdict.spaces[0]) for s in series.steps)
            for series in found} == {("f6", "g7", "h8", "i9"), ("h8", "g7", "f6", "i9"),
                                     ("f6", "i9", "h8", "g7"), ("h8", "i9", "f6", "g7")}
