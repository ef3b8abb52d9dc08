"""The game as evidence: a doubtful reading that differs from the game is waited on, never
judged (engine/evidence.py, through the session every source goes through)."""

from __future__ import annotations

import json

from engine.evidence import screen
from engine.observation import Observation, SpaceState
from engine.record import parse_record, replay
from engine.referee import Referee
from seqboard.recorder import RecordWriter
from seqboard.session import Session


def _session(tmp_path):
    ref = Referee("classic", 2)
    path = tmp_path / "game.jsonl"
    s = Session(ref, recorder=RecordWriter(path))
    events = []
    s.subscribe(lambda ev, view: events.append(ev))
    return s, ref, path, events


def _seen(ref: Referee, chips: dict[str, tuple[str, float]]) -> Observation:
    """The game's board with ``chips`` read as (state, confidence)."""
    base = ref.expected()
    states, conf = list(base.states), list(base.confidence)
    for name, (st, c) in chips.items():
        i = ref.layout.parse_space(name)
        states[i], conf[i] = SpaceState(st), c
    return Observation(base.rows, base.cols, tuple(states), tuple(conf))


def _replays(path, ref):
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok, [s.text for s in result.steps if not s.ok]
    assert [m for _, m in result.referee.moves] == [m for _, m in ref.moves]


def _names(ref, spaces):
    return [ref.layout.space_name(i) for i in spaces]


def test_a_white_chip_off_a_sequence_is_not_a_verdict_but_a_wait(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}))
    # an empty space read white (dim light), read with full confidence: never a warning
    v = s.observe(_seen(ref, {"c3": ("W", 1.0)}))
    assert v.kind == "no_change" and s.warning is None
    assert _names(ref, s.waiting) == ["c3"] and s.view()["waiting"] == ["c3"]
    assert not [e for e in events if e.kind == "warning"]
    # blue's own chip read white, off any sequence: not judged either
    v = s.observe(_seen(ref, {"e5": ("W", 1.0)}))
    assert v.kind == "no_change" and s.warning is None and _names(ref, s.waiting) == ["e5"]
    # the game goes on: green's move beside the misread white chip is judged
    v = s.observe(_seen(ref, {"c3": ("W", 1.0), "h8": ("G", 1.0)}))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["h8"]
    assert _names(ref, s.waiting) == ["c3"]
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert not [x for x in lines if x.get("kind") == "violation"]
    _replays(path, ref)


def test_white_chips_on_a_completed_sequence_still_choose_the_five():
    ref = Referee("classic", 2)
    # blue b4 c4 d4 f4 g4 (green elsewhere between), then e4 makes a line of six
    for name, other in zip(["b4", "c4", "d4", "f4", "g4"], ["j9", "b8", "c8", "h2", "i6"]):
        assert ref.observe(_seen(ref, {name: ("B", 1.0)})).kind == "placement"
        assert ref.observe(_seen(ref, {other: ("G", 1.0)})).kind == "placement"
    assert ref.observe(_seen(ref, {"e4": ("B", 1.0)})).new_sequences == 1
    flipped = {n: ("W", 0.9) for n in ["c4", "d4", "e4", "f4", "g4"]}
    sc = screen(ref, _seen(ref, flipped))
    assert sc.waiting == ()                      # these white chips show the five: judged
    v = ref.observe(sc.observation)
    assert v.kind == "choice" and [q.text() for q in v.made] == ["c4-g4"]
    # once green has moved, a white chip on b4 (no longer of the five) is waited on
    ref.observe(_seen(ref, {"j3": ("G", 1.0)}))
    sc = screen(ref, _seen(ref, {"b4": ("W", 1.0)}))
    assert [ref.layout.space_name(i) for i in sc.waiting] == ["b4"]
    assert ref.observe(sc.observation).kind == "no_change"


def test_a_doubtful_reading_waits_and_is_judged_once_read_clearly(tmp_path):
    s, ref, path, events = _session(tmp_path)
    v = s.observe(_seen(ref, {"d6": ("B", 0.3)}))
    assert v.kind == "no_change" and ref.moves == [] and _names(ref, s.waiting) == ["d6"]
    assert any("waiting: not sure of d6" in x["text"] for x in s.log)
    v = s.observe(_seen(ref, {"d6": ("B", 0.9)}))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["d6"] and s.waiting == ()
    _replays(path, ref)


def test_a_band_of_chips_touching_a_doubtful_one_waits_whole_and_no_warning(tmp_path):
    """The soft shadow of an arm: a band of readings, some sure, one not: all wait."""
    s, ref, path, events = _session(tmp_path)
    band = {"c3": ("W", 0.8), "d4": ("R", 0.6), "e5": ("R", 0.3), "f6": ("G", 0.9)}
    v = s.observe(_seen(ref, band))
    assert v.kind == "no_change" and s.warning is None and ref.moves == []
    assert _names(ref, s.waiting) == ["c3", "d4", "e5", "f6"]
    # a sure chip far from the band is judged meanwhile
    v = s.observe(_seen(ref, band | {"j2": ("B", 0.95)}))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["j2"]
    _replays(path, ref)


def test_sure_readings_are_still_judged_and_warned():
    ref = Referee("classic", 2)
    sc = screen(ref, _seen(ref, {"b2": ("B", 0.9), "h7": ("B", 0.95)}))
    assert sc.waiting == ()
    v = ref.observe(sc.observation)
    assert (v.kind, v.rule) == ("violation", "two_chips")
    # a chip taken off read with doubt waits; read surely, blue taking its own chip warns
    ref.observe(_seen(ref, {"b2": ("B", 1.0)}))
    ref.observe(_seen(ref, {"h7": ("G", 1.0)}))
    sc = screen(ref, _seen(ref, {"b2": (".", 0.2)}))
    assert _names(ref, sc.waiting) == ["b2"] and ref.observe(sc.observation).kind == "no_change"
    v = ref.observe(screen(ref, _seen(ref, {"b2": (".", 0.9)})).observation)
    assert (v.kind, v.rule) == ("violation", "own_chip_removed")


def test_a_sensor_matrix_reading_is_never_doubted():
    """Observations with full confidence (a sensor matrix) pass unchanged."""
    ref = Referee("classic", 2)
    obs = _seen(ref, {"b2": ("B", 1.0), "c3": ("G", 1.0)})
    assert screen(ref, obs).observation is obs


def test_a_chip_of_a_colour_no_team_plays_waits(tmp_path):
    """Red in a blue-green game: the print of a red card misread, never a verdict."""
    s, ref, path, events = _session(tmp_path)
    v = s.observe(_seen(ref, {"j4": ("R", 0.9), "f3": ("B", 0.9)}))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["f3"]
    assert _names(ref, s.waiting) == ["j4"] and s.warning is None
    _replays(path, ref)


def test_a_chip_out_of_turn_waits_while_a_space_cannot_be_read_and_the_unseen_move_is_caught_up(tmp_path):
    """Green placed on c3 under glare (unknown), then blue on d4: blue's chip is not a
    move out of turn while c3 cannot be read; once c3 reads, both moves are caught up in
    their order (judged at once, the game would be one turn out for every later move)."""
    s, ref, path, events = _session(tmp_path)
    assert s.observe(_seen(ref, {"e5": ("B", 1.0)})).kind == "placement"
    v = s.observe(_seen(ref, {"c3": ("?", 0.0), "d4": ("B", 1.0)}))
    assert v.kind == "no_change" and s.warning is None
    assert _names(ref, s.waiting) == ["d4"]
    assert not [e for e in events if e.kind == "warning"]
    # the table is told why d4 waits: green's move may be out of sight (not "not sure of")
    assert s.log[-1]["text"] == ("waiting: d4 wait for green's move, which the camera may "
                                 "not see yet")
    s.observe(_seen(ref, {"c3": ("G", 1.0), "d4": ("B", 1.0)}))
    assert s.warning is None
    assert [(m.space, m.action) for _, m in ref.moves] == [
        (ref.layout.parse_space(x), "place") for x in ("e5", "c3", "d4")]
    assert [p for p, _ in ref.moves] == [0, 1, 0]
    _replays(path, ref)


def test_a_chip_out_of_turn_is_warned_when_every_empty_space_reads():
    s, ref, _, events = _session_no_record()
    s.observe(_seen(ref, {"e5": ("B", 1.0)}))
    v = s.observe(_seen(ref, {"d4": ("B", 1.0)}))
    assert v.kind == "violation" and s.warning is not None


def test_two_moves_seen_at_once_are_caught_up_in_turn_while_a_space_is_unknown(tmp_path):
    """A hand that never left the board: blue e5 and green h8 seen together, b2 unknown:
    blue's own chip shows, no move is hidden, both are caught up in turn."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"b2": ("?", 0.0), "e5": ("B", 1.0), "h8": ("G", 1.0)}))
    assert s.warning is None and not s.waiting
    assert [(p, ref.layout.space_name(m.space)) for p, m in ref.moves] == [(0, "e5"), (1, "h8")]
    _replays(path, ref)


def test_a_move_hidden_under_glare_keeps_later_chips_waiting_in_their_order(tmp_path):
    """Blue's chip on j5 under a glare spot is never read; green's e6 then blue's b5 show.
    Judged as they come, b5 would be taken for blue's hidden move and green's e6 after it
    (the game one turn out from then on); both wait instead, and nothing is warned."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0), "j5": ("?", 0.0)}))
    s.observe(_seen(ref, {"e5": ("B", 1.0), "h8": ("G", 1.0), "j5": ("?", 0.0)}))
    assert len(ref.moves) == 2
    s.observe(_seen(ref, {"e6": ("G", 1.0), "j5": ("?", 0.0)}))
    s.observe(_seen(ref, {"e6": ("G", 1.0), "b5": ("B", 1.0), "j5": ("?", 0.0)}))
    assert len(ref.moves) == 2 and s.warning is None
    assert _names(ref, s.waiting) == ["b5", "e6"]
    # the glare moves off: blue's j5 shows. It is judged first, then the chips that
    # waited on it, in turn
    s.observe(_seen(ref, {"e6": ("G", 1.0), "b5": ("B", 1.0), "j5": ("B", 1.0)}))
    assert [ref.layout.space_name(m.space) for _, m in ref.moves] == ["e5", "h8", "j5", "e6", "b5"]
    assert [p for p, _ in ref.moves] == [0, 1, 0, 1, 0]
    assert s.warning is None and not s.hidden_move and not s.waiting
    assert not [e for e in events if e.kind == "warning"]
    _replays(path, ref)


def _session_no_record():
    ref = Referee("classic", 2)
    s = Session(ref)
    events = []
    s.subscribe(lambda ev, view: events.append(ev))
    return s, ref, None, events


def test_a_doubtful_chip_on_a_free_corner_does_not_hold_its_neighbours_back(tmp_path):
    """The free corner a10's print read doubtfully as a chip in every frame (held-out card
    art): blue's move beside it on a9 is judged; the corner itself waits."""
    s, ref, path, events = _session(tmp_path)
    v = s.observe(_seen(ref, {"a10": ("G", 0.3), "a9": ("B", 1.0)}))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["a9"]
    assert _names(ref, s.waiting) == ["a10"]


def test_a_chip_taken_off_waits_too_while_a_move_may_be_hidden(tmp_path):
    """Blue's j5 unseen, green's e6 waiting on it: blue then takes green's h8 off. Judged,
    that removal would be blue's turn and blue's hidden j5 a move out of turn later."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}))
    s.observe(_seen(ref, {"h8": ("G", 1.0)}))
    s.observe(_seen(ref, {"j5": ("?", 0.0), "e6": ("G", 1.0)}))
    s.observe(_seen(ref, {"j5": ("?", 0.0), "e6": ("G", 1.0), "h8": (".", 1.0)}))
    assert len(ref.moves) == 2 and s.warning is None
    assert _names(ref, s.waiting) == ["e6", "h8"]


def _at(t: float) -> dict:
    return {"t": t, "frame": int(t * 10)}


def test_a_chip_the_camera_cannot_read_is_inferred_once_the_next_chips_come_in_turn(tmp_path):
    """Blue puts its chip on b4 and glare on that chip makes b4 read unknown from then on.
    Green's e6, blue's h6 and green's g8 come one after the other, each waiting on blue's
    unseen move. Once b4 has been unreadable for a while (8 s of the film), blue's b4 is
    the only place blue's move can be: it is inferred there, and the chips that waited
    are judged in the order they came. Nothing is warned, the record replays."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(2.0))
    s.observe(_seen(ref, {"h8": ("G", 1.0)}), _at(4.0))
    assert len(ref.moves) == 2
    b4 = {"b4": ("?", 0.0)}
    s.observe(_seen(ref, b4), _at(6.0))                                  # blue's b4, unread
    s.observe(_seen(ref, b4 | {"e6": ("G", 1.0)}), _at(7.5))
    s.observe(_seen(ref, b4 | {"e6": ("G", 1.0), "h6": ("B", 1.0)}), _at(9.0))
    s.observe(_seen(ref, b4 | {"e6": ("G", 1.0), "h6": ("B", 1.0), "g8": ("G", 1.0)}), _at(10.5))
    # b4 unread for 4.5 s only: it may be an arm's halo, the chips still wait
    assert len(ref.moves) == 2 and s.warning is None
    assert _names(ref, s.waiting) == ["e6", "h6", "g8"] or \
        sorted(_names(ref, s.waiting)) == ["e6", "g8", "h6"]
    s.observe(_seen(ref, b4 | {"e6": ("G", 1.0), "h6": ("B", 1.0), "g8": ("G", 1.0)}), _at(14.5))
    assert [(p, ref.layout.space_name(m.space)) for p, m in ref.moves] == \
        [(0, "e5"), (1, "h8"), (0, "b4"), (1, "e6"), (0, "h6"), (1, "g8")]
    assert s.warning is None and not s.waiting and not s.hidden_move
    assert not [e for e in events if e.kind == "warning"]
    note = [e.text for e in events if e.kind == "caught_up"]
    assert note == ["caught up: blue b4 (not seen: b4 cannot be read), then green e6, "
                    "then blue h6, then green g8"]
    _replays(path, ref)
    # the next chip is judged as usual
    v = s.observe(_seen(ref, b4 | {"a4": ("B", 1.0)}), _at(16.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["a4"]


def _glare_opening(tmp_path):
    """A session whose first two moves (blue e5, green h8) are read under glare over j5
    and j6, which stays unread: (session, referee, record path, events, the glare)."""
    s, ref, path, events = _session(tmp_path)
    glare = {"j5": ("?", 0.0), "j6": ("?", 0.0)}
    s.observe(_seen(ref, glare | {"e5": ("B", 1.0)}), _at(2.0))
    s.observe(_seen(ref, glare | {"h8": ("G", 1.0)}), _at(4.0))
    return s, ref, path, events, glare


def test_a_move_on_one_of_several_unreadable_spaces_passes_the_turn_and_makes_up_no_chip(tmp_path):
    """Glare over j5 and j6, unread all game: blue's move is on one of them, which one
    nobody can tell. No chip is made up (a phantom chip is worse than a missed one): once
    they have been unreadable a while, blue's move is taken as unseen (the turn passes,
    the board unchanged) and green's e6, which waited on it, is judged; the game goes on.
    When the glare goes and j5 shows blue's chip, the board takes it: no new move, no
    warning. The record replays."""
    s, ref, path, events, glare = _glare_opening(tmp_path)
    s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(6.0))
    assert len(ref.moves) == 2 and _names(ref, s.waiting) == ["e6"]
    s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(12.0))
    assert [(p, m.action, m.space) for p, m in ref.moves][2:] == \
        [(0, "unseen", None), (1, "place", ref.layout.parse_space("e6"))]
    assert ref.board.cells[ref.layout.parse_space("j5")] == 0      # nothing made up
    assert ref.board.cells[ref.layout.parse_space("j6")] == 0
    assert s.warning is None and not s.waiting
    assert "blue (not seen: on j5 or j6, which cannot be read)" in \
        [e.text for e in events if e.kind == "verdict"]
    v = s.observe(_seen(ref, glare | {"b5": ("B", 1.0)}), _at(14.0))
    assert v.kind == "placement" and v.player == 0
    # the glare goes: blue's unseen chip shows on j5
    v = s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(20.0))
    assert v.kind == "no_change" and s.warning is None
    assert ref.board.cells[ref.layout.parse_space("j5")] == 1
    assert len(ref.moves) == 5 and ref.current == 1
    _replays(path, ref)


def test_a_chip_out_of_turn_beside_a_space_read_again_is_warned_not_inferred(tmp_path):
    """j5 unread for a while, then read empty again: green's e6, placed while blue has not
    played, is a move out of turn (warned), not a blue chip made up on j5."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(2.0))
    s.observe(_seen(ref, {"h8": ("G", 1.0)}), _at(4.0))
    s.observe(_seen(ref, {"j5": ("?", 0.0)}), _at(5.0))
    s.observe(_seen(ref, {"j5": (".", 1.0), "e6": ("G", 1.0)}), _at(20.0))
    assert len(ref.moves) == 2
    assert s.warning is not None and "e6" in s.warning.message


def test_an_unseen_move_taken_back_with_undo_is_forgotten(tmp_path):
    """The undo button takes an unseen move back like any move: blue is to move again,
    and blue's chip then showing on j5 is blue's move, judged as such. The record replays."""
    s, ref, path = _glare_game_to_an_unseen_move(tmp_path, then_b5=False)
    assert s.undo() and s.undo()
    assert len(ref.moves) == 2 and ref.current == 0
    s.observe(_seen(ref, {"j6": (".", 1.0)}), _at(13.0))         # green's e6 taken off
    v = s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(15.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["j5"] and v.player == 0
    _replays(path, ref)


def test_chips_that_came_one_by_one_while_one_waited_are_caught_up_in_the_order_seen(tmp_path):
    """Blue's e5 reads doubtfully (an arm's edge, then the light) for a while; green's h8,
    blue's b5 and green's g8 come one after the other meanwhile, each waiting on it. When
    e5 reads surely, e5 is judged, then the three that waited: three moves, more than one
    a seat, which a board seen all at once would leave to a person (in which order did
    blue play?). Seen coming one by one, they are one legal series in that order: caught
    up, nothing warned, the record replays."""
    s, ref, path, events = _session(tmp_path)
    e5 = {"e5": ("B", 0.3)}
    s.observe(_seen(ref, e5))
    s.observe(_seen(ref, e5 | {"h8": ("G", 1.0)}))
    s.observe(_seen(ref, e5 | {"h8": ("G", 1.0), "b5": ("B", 1.0)}))
    s.observe(_seen(ref, e5 | {"h8": ("G", 1.0), "b5": ("B", 1.0), "g8": ("G", 1.0)}))
    assert len(ref.moves) == 0 and s.warning is None
    s.observe(_seen(ref, {"e5": ("B", 1.0), "h8": ("G", 1.0), "b5": ("B", 1.0), "g8": ("G", 1.0)}))
    assert [(p, ref.layout.space_name(m.space)) for p, m in ref.moves] == \
        [(0, "e5"), (1, "h8"), (0, "b5"), (1, "g8")]
    assert s.warning is None and not s.pending_catchup
    assert not [e for e in events if e.kind == "warning"]
    _replays(path, ref)


def test_chips_seen_all_at_once_in_more_than_one_order_are_not_caught_up(tmp_path):
    """Three chips seen for the first time together (the camera was off): blue's b5 and
    a9 could have come in either order, so none is guessed: warned as before, for a
    person to put right or take the board as it stands."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}))
    s.observe(_seen(ref, {"h8": ("G", 1.0)}))
    v = s.observe(_seen(ref, {"b5": ("B", 1.0), "g8": ("G", 1.0), "a9": ("B", 1.0)}))
    assert len(ref.moves) == 2 and v.kind == "violation"
    assert "more than one chip placed" in v.message and s.caught_up == 0


def test_a_chip_showing_after_the_chips_that_waited_is_not_taken_for_the_hidden_move(tmp_path):
    """Blue's i3 is unread (glare), i7 too (an arm's halo); green's h9 shows and waits.
    Then blue's chip shows on i7 while i3 is still unread: it may be blue's NEXT move,
    placed after green's h9, so it is not judged as the hidden one (that put blue's i7
    before green's h9 and i3 after, two moves out of place); everything waits. When i3
    reads, i3 is judged first, then h9, then i7, in their true order."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}))
    s.observe(_seen(ref, {"h8": ("G", 1.0)}))
    unread = {"i3": ("?", 0.0), "i7": ("?", 0.0)}
    s.observe(_seen(ref, unread))
    s.observe(_seen(ref, unread | {"h9": ("G", 1.0)}))
    s.observe(_seen(ref, {"i3": ("?", 0.0), "h9": ("G", 1.0), "i7": ("B", 1.0)}))
    assert len(ref.moves) == 2 and s.warning is None
    assert sorted(_names(ref, s.waiting)) == ["h9", "i7"]
    s.observe(_seen(ref, {"i3": ("B", 1.0), "h9": ("G", 1.0), "i7": ("B", 1.0)}))
    assert [(p, ref.layout.space_name(m.space)) for p, m in ref.moves] == \
        [(0, "e5"), (1, "h8"), (0, "i3"), (1, "h9"), (0, "i7")]
    assert s.warning is None
    _replays(path, ref)


def _glare_game_to_an_unseen_move(tmp_path, then_b5=True):
    """Blue's move unseen under the glare over j5 and j6, green's e6 judged after it, then
    (``then_b5``) blue's b5: the game as test_a_move_on_one_of_several_unreadable_spaces...
    leaves it."""
    s, ref, path, events, glare = _glare_opening(tmp_path)
    s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(6.0))
    s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(12.0))
    actions = ["place", "place", "unseen", "place"]
    if then_b5:
        s.observe(_seen(ref, glare | {"b5": ("B", 1.0)}), _at(14.0))
        actions.append("place")
    assert [m.action for _, m in ref.moves] == actions
    return s, ref, path


def _resume(tmp_path, path):
    """The game resumed from its record as `seqboard referee --resume` does (a power cut)."""
    from seqboard.app import load_settings, open_session

    from .helpers import write_config
    cfg = load_settings(str(write_config(tmp_path, gpio={"enabled": False})))
    s = open_session(cfg, "referee", path.parent, True, seed=None, full_game=False)
    assert s.recorder.path == path
    return s, s.referee


def test_an_unseen_move_is_still_waited_for_after_the_game_is_resumed_from_its_record(tmp_path):
    """The power goes after blue's move was taken as unseen (its chip on j5 or j6, under
    the glare). The game resumed from its record waits for that chip as the running game
    would: when the glare goes and j5 shows blue's chip, the board takes it (an edit, the
    turn unchanged), not a new move of blue out of turn. The record replays."""
    s, ref, path = _glare_game_to_an_unseen_move(tmp_path)
    line = [json.loads(x) for x in path.read_text().splitlines()
            if '"action":"unseen"' in x][0]
    assert line["where"] == ["j5", "j6"]                  # the spaces, written in the record
    s.recorder.close()
    del s                                                 # the power goes
    s, ref = _resume(tmp_path, path)
    assert [(t, sorted(_names(ref, w)), n) for t, w, n in s.unseen_moves] == [(0, ["j5", "j6"], 3)]
    events = []
    s.subscribe(lambda ev, view: events.append(ev))
    v = s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(1.0))
    assert v.kind == "no_change" and s.warning is None
    assert ref.board.cells[ref.layout.parse_space("j5")] == 1
    assert len(ref.moves) == 5 and ref.current == 1                  # green still to move
    assert [e.text for e in events if e.kind == "edit"] == \
        ["blue's move not seen earlier shows on j5"]
    edit = [json.loads(x) for x in path.read_text().splitlines() if '"type":"edit"' in x]
    assert [(e["changed"], e["unseen"]) for e in edit] == [(["j5"], 3)]
    # the game goes on from there: green's next chip is judged as usual
    v = s.observe(_seen(ref, {"g8": ("G", 1.0)}), _at(3.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["g8"] and v.player == 1
    _replays(path, ref)
    # resumed once more after that: nothing is waited for any more
    s.recorder.close()
    s, ref = _resume(tmp_path, path)
    assert s.unseen_moves == []


def test_an_unseen_move_in_a_record_written_before_its_spaces_were_is_restored_too(tmp_path):
    """Records written before the move line named its spaces: they are read from its
    text ("blue (not seen: on j5 or j6, which cannot be read)"); and an unseen move taken
    back before the power went is not waited for."""
    s, ref, path = _glare_game_to_an_unseen_move(tmp_path)
    s.recorder.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for e in lines:
        e.pop("where", None)
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in lines))
    s, ref = _resume(tmp_path, path)
    assert [(t, sorted(_names(ref, w)), n) for t, w, n in s.unseen_moves] == [(0, ["j5", "j6"], 3)]
    v = s.observe(_seen(ref, {"j6": ("B", 1.0), "j5": (".", 1.0)}), _at(1.0))
    assert v.kind == "no_change" and ref.board.cells[ref.layout.parse_space("j6")] == 1
    # taken back: blue's b5, green's e6 and blue's unseen move undone, then the power goes
    s2, ref2, path2 = _glare_game_to_an_unseen_move(tmp_path / "again")
    assert s2.undo() and s2.undo() and s2.undo()
    s2.recorder.close()
    s2, ref2 = _resume(tmp_path / "again", path2)
    assert s2.unseen_moves == [] and len(ref2.moves) == 2


def test_an_unseen_move_whose_chip_shows_later_is_completed_in_the_game_and_its_replay(tmp_path):
    """Blue's move was taken as unseen (on j5 or j6, under the glare), then green and blue
    played on. When the glare goes and blue's chip shows on j5, the record gets one more
    line, the edit that names the move ("unseen": 3) and its space: move 3 is from then
    on blue's placement on j5, in the running game, in `seqboard replay` and in a game
    resumed from the record. The move line stays as written (the record only grows)."""
    from engine.moves import Move
    s, ref, path = _glare_game_to_an_unseen_move(tmp_path)
    j5 = ref.layout.parse_space("j5")
    s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(20.0))
    assert ref.moves[2] == (0, Move("place", None, j5))
    assert [m.action for _, m in ref.moves] == ["place"] * 5 and ref.current == 1
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e["action"] for e in lines if e["type"] == "move"][2] == "unseen"
    edit = [e for e in lines if e["type"] == "edit"]
    assert [(e["changed"], e["unseen"]) for e in edit] == [(["j5"], 3)]
    _replays(path, ref)
    result = replay(parse_record(path.read_text(), str(path)))
    assert "move 3, not seen then, shows on j5" in [s.text for s in result.steps][-1]
    s.recorder.close()
    s, ref = _resume(tmp_path, path)
    assert ref.moves[2] == (0, Move("place", None, j5)) and s.unseen_moves == []


def test_moves_undone_after_an_unseen_move_was_completed_keep_its_chip(tmp_path):
    """Blue's move 3 was unseen; its chip showed on j5 after green's e6 and blue's b5.
    The players then undo b5 and e6 (the undo button) and take those chips off: blue's
    chip on j5 stays on the table and on the referee's board (move 3 put it there), so
    the board as it stands is no new chip and no warning, and green's e6 played again is
    judged as usual. The record replays and resumes to the same game."""
    from engine.moves import Move
    s, ref, path = _glare_game_to_an_unseen_move(tmp_path)
    j5 = ref.layout.parse_space("j5")
    s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(20.0))
    assert s.undo() and s.undo()
    assert len(ref.moves) == 3 and ref.current == 1
    assert ref.board.cells[j5] == 1 and ref.moves[2] == (0, Move("place", None, j5))
    v = s.observe(_seen(ref, {"j6": (".", 1.0)}), _at(22.0))
    assert v.kind == "no_change" and s.warning is None and not s.waiting
    v = s.observe(_seen(ref, {"j6": (".", 1.0), "e6": ("G", 1.0)}), _at(24.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["e6"] and v.player == 1
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert not [x for x in lines if x.get("kind") in ("violation", "warning")]
    _replays(path, ref)
    s.recorder.close()
    s, ref2 = _resume(tmp_path, path)
    assert ref2.moves == ref.moves and ref2.board.cells == ref.board.cells


def test_an_edit_that_names_a_move_not_unseen_does_not_replay(tmp_path):
    """A hand-edited record whose edit says a move seen on camera showed later: replay
    refuses it, naming the line and the move."""
    s, ref, path = _glare_game_to_an_unseen_move(tmp_path)
    s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(20.0))
    text = path.read_text().replace('"unseen":3', '"unseen":2')
    result = replay(parse_record(text, str(path)))
    assert not result.ok
    bad = [st.text for st in result.steps if not st.ok]
    assert bad and "'unseen' names move 2" in bad[0] and "not a move the camera did not see" in bad[0]


def test_a_chip_placed_and_taken_off_while_waiting_on_an_unseen_move_is_caught_up_too(tmp_path):
    """Glare over j5 and j6: blue's move there is not seen. Green's i9 shows (it waits on
    blue's move), then is gone again (blue took it off with a jack), then green's e7 shows.
    Once j5 and j6 have been unread a while, blue's move is taken as unseen and what was
    seen meanwhile follows in the order seen: green i9, blue removes i9, green e7. Before,
    i9's coming and going was lost (two moves missed). Nothing is warned, the record
    replays."""
    s, ref, path, events, glare = _glare_opening(tmp_path)
    s.observe(_seen(ref, glare | {"i9": ("G", 1.0)}), _at(6.0))
    assert len(ref.moves) == 2 and _names(ref, s.waiting) == ["i9"]
    s.observe(_seen(ref, glare), _at(6.5))                             # i9 taken off
    s.observe(_seen(ref, glare | {"e7": ("G", 1.0)}), _at(7.0))
    assert len(ref.moves) == 2                                          # j5, j6 unread 5 s only
    s.observe(_seen(ref, glare | {"e7": ("G", 1.0)}), _at(11.0))
    assert [(p, m.action, m.space and ref.layout.space_name(m.space)) for p, m in ref.moves] == \
        [(0, "place", "e5"), (1, "place", "h8"), (0, "unseen", None), (1, "place", "i9"),
         (0, "remove", "i9"), (1, "place", "e7")]
    assert s.warning is None and not s.waiting
    assert not [e for e in events if e.kind == "warning"]
    assert [e.text for e in events if e.kind == "caught_up"] == \
        ["caught up: blue (not seen: on j5 or j6, which cannot be read), then green i9, "
         "then blue removes i9, then green e7"]
    _replays(path, ref)


def test_a_chip_that_came_and_went_in_no_legal_order_is_not_caught_up(tmp_path):
    """The same, but the chip that came and went was green's, seen after green's e7:
    green cannot have played twice in a row, so it is not made a move; green's e7 is
    caught up after blue's unseen move, as before (nothing made up)."""
    s, ref, path, events, glare = _glare_opening(tmp_path)
    s.observe(_seen(ref, glare | {"e7": ("G", 1.0)}), _at(6.0))
    s.observe(_seen(ref, glare | {"e7": ("G", 1.0), "i9": ("G", 1.0)}), _at(7.0))
    s.observe(_seen(ref, glare | {"e7": ("G", 1.0)}), _at(9.0))        # i9 gone again
    s.observe(_seen(ref, glare | {"e7": ("G", 1.0)}), _at(14.0))
    assert [(p, m.action) for p, m in ref.moves][2:] == [(0, "unseen"), (1, "place")]
    assert ref.board.cells[ref.layout.parse_space("i9")] == 0
    _replays(path, ref)


def test_a_move_on_a_space_read_only_in_doubt_is_unseen_not_inferred_and_completed_later(tmp_path):
    """Blue's pale chip on b8 reads as a white chip at 0.3 in every observation (a spot
    light): green's e6 waits on blue's move. After 8 s blue's move is applied unseen,
    on b8, which is the one place left, but no chip is made up on a reading that is only
    a doubt; green's e6 is judged. When b8 reads blue surely (the light changed), the
    move is completed there."""
    from engine.moves import Move
    s, ref, path, events = _session(tmp_path)
    s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(2.0))
    s.observe(_seen(ref, {"h8": ("G", 1.0)}), _at(4.0))
    pale = {"b8": ("W", 0.3)}
    s.observe(_seen(ref, pale), _at(6.0))
    s.observe(_seen(ref, pale | {"e6": ("G", 1.0)}), _at(8.0))
    s.observe(_seen(ref, pale | {"e6": ("G", 1.0)}), _at(11.0))
    assert len(ref.moves) == 2 and "e6" in _names(ref, s.waiting)
    s.observe(_seen(ref, pale | {"e6": ("G", 1.0)}), _at(15.0))
    b8 = ref.layout.parse_space("b8")
    assert [(p, m.action) for p, m in ref.moves][2:] == [(0, "unseen"), (1, "place")]
    assert ref.board.cells[b8] == 0 and s.warning is None
    assert "blue (not seen: on b8, which cannot be read)" in \
        [e.text for e in events if e.kind == "verdict"]
    s.observe(_seen(ref, {"b8": ("B", 1.0)}), _at(18.0))
    assert ref.moves[2] == (0, Move("place", None, b8)) and ref.board.cells[b8] == 1
    _replays(path, ref)


def test_an_unseen_move_whose_chip_shows_later_and_wins_ends_the_game_as_its_replay_does(tmp_path):
    """Blue has played a sequence (b2-f2) and four spaces of a second (the free corner j1
    and j2-j4); blue's next move, under the glare over j5 and j6, is not seen. When the
    glare goes, blue's chip shows on j5: the second sequence, so blue has won. The running
    game ends there, as `seqboard replay` of its record says (before, only the replay
    declared the win and the game at the table went on)."""
    s, ref, path, events = _session(tmp_path)
    blue = ["b2", "c2", "d2", "e2", "f2", "j2", "j3", "j4"]
    green = ["b8", "d8", "f8", "b9", "d9", "f9", "b7", "h9"]
    chips: dict[str, tuple[str, float]] = {}
    t = 0.0
    for b, g in zip(blue, green):
        for name, colour in ((b, "B"), (g, "G")):
            chips[name] = (colour, 1.0)
            t += 2.0
            s.observe(_seen(ref, chips), _at(t))
    assert len(ref.moves) == 16 and ref.board.counts[0] == 1 and not ref.over
    glare = {"j5": ("?", 0.0), "j6": ("?", 0.0)}
    s.observe(_seen(ref, chips | glare), _at(t + 2.0))                 # blue's j5, unseen
    chips["e6"] = ("G", 1.0)
    s.observe(_seen(ref, chips | glare), _at(t + 4.0))
    s.observe(_seen(ref, chips | glare), _at(t + 12.0))
    s.observe(_seen(ref, chips | glare), _at(t + 20.0))
    assert [m.action for _, m in ref.moves][16:] == ["unseen", "place"] and not ref.over
    s.observe(_seen(ref, chips | {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(t + 24.0))
    assert ref.board.counts[0] == 2
    assert ref.over and ref.winner == 0
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert any(e["type"] == "edit" and e.get("unseen") == 17 for e in lines)
    assert [ev.text for ev in events if ev.kind == "game_over"] == ["blue wins"]
    assert lines[-1]["type"] == "end" and lines[-1]["winner"] == 0
    _replays(path, ref)


def _beside_glare(tmp_path, green_doubt: str = "G"):
    """Glare over j5 and j6 all game (unread). Blue's chip beside it, on i5, reads blue only
    in doubt (0.3: a chip touching a fixed cover) from the moment it is put down; green's
    e6 and blue's h6 come surely; then a chip on i4, beside the glare too, reads
    ``green_doubt`` only in doubt; then blue's b5 and green's g8 surely. The chips keep
    coming every 2 s and the board is then seen as it stands until 40 s: (session,
    referee, record path, events, the observations' times)."""
    s, ref, path, events, glare = _glare_opening(tmp_path)
    chips = dict(glare)
    times = []
    t = 4.0
    for name, reading in (("i5", ("B", 0.3)), ("e6", ("G", 1.0)), ("h6", ("B", 1.0)),
                          ("i4", (green_doubt, 0.3)), ("b5", ("B", 1.0)), ("g8", ("G", 1.0))):
        chips[name] = reading
        t += 2.0
        s.observe(_seen(ref, chips), _at(t))
        times.append(t)
    while t < 40.0:
        t += 2.0
        s.observe(_seen(ref, chips), _at(t))
        times.append(t)
    return s, ref, path, events, chips


def test_chips_beside_glare_read_only_in_doubt_do_not_stall_the_game(tmp_path):
    """Seed 3's film 1 (benchmarks/video.py): two moves beside a fixed glare read only in
    doubt (blue's i5, later green's i4), with sure chips between and after them. Before,
    every chip after i5 waited to the end of the film (the series with i4 left out is out
    of turn). Now, once both have read only in doubt for a while, each is its team's move
    there, unseen (no chip made up), in the order the chips came, and the sure chips are
    judged between them; no warning, and the record replays."""
    s, ref, path, events, chips = _beside_glare(tmp_path)
    sp = ref.layout.parse_space
    assert [(p, m.action, m.space) for p, m in ref.moves][2:] == [
        (0, "unseen", None), (1, "place", sp("e6")), (0, "place", sp("h6")),
        (1, "unseen", None), (0, "place", sp("b5")), (1, "place", sp("g8"))]
    assert ref.board.cells[sp("i5")] == 0 and ref.board.cells[sp("i4")] == 0   # made up: none
    assert s.warning is None and not [e for e in events if e.kind == "warning"]
    assert "green (not seen: on i4, which reads only in doubt)" in \
        [e.text for e in events if e.kind == "verdict"]
    _replays(path, ref)
    # the game goes on: blue's next chip is judged at once, and green's i4 is completed
    # when it reads surely
    v = s.observe(_seen(ref, chips | {"a4": ("B", 1.0)}), _at(42.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["a4"]
    s.observe(_seen(ref, chips | {"a4": ("B", 1.0), "i4": ("G", 1.0)}), _at(44.0))
    assert ref.moves[5][1].action == "place" and ref.moves[5][1].space == sp("i4")
    _replays(path, ref)


def test_a_chip_read_in_doubt_out_of_turn_is_not_taken_for_a_move_and_the_wait_is_said_once(tmp_path):
    """As above, but the chip on i4 reads blue (in doubt) where green was to move: no
    series in the order seen makes it a move, so nothing after blue's hidden move is
    judged: no move is made up (a phantom is worse than a missed move) and nothing is
    warned. After 20 s of waiting the referee says so once, in words: the spaces it waits
    on, and what the players can do."""
    s, ref, path, events, chips = _beside_glare(tmp_path, green_doubt="B")
    assert len(ref.moves) == 2 and s.warning is None
    assert not [e for e in events if e.kind == "warning"]
    assert {"e6", "h6", "b5", "g8"} <= set(_names(ref, s.waiting))
    said = [e for e in events if e.kind == "waiting"]
    assert len(said) == 1
    assert _names(ref, said[0].spaces) == ["i4", "i5", "j5", "j6"]
    assert said[0].text.startswith("waiting on i4, i5, j5, j6 for 20 s: blue's move is not "
                                   "seen (on i5, j5 or j6, which the camera cannot read) and "
                                   "the chips on b5, e6, h6, g8 wait for it; the camera "
                                   "cannot read i4 surely.")
    assert "press t" in said[0].text
    assert said[0].text in [line["text"] for line in s.view()["log"]]


def test_no_waiting_notice_for_a_wait_the_referee_resolves_on_its_own(tmp_path):
    """Blue's move unseen under the glare over j5 and j6: green's e6 waits on it until the
    glare has lasted 8 s, then both are judged. The glare stays for the rest of the game
    and the game goes on: the referee never says it is waiting."""
    s, ref, path, events, glare = _glare_opening(tmp_path)
    s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(6.0))
    assert len(ref.moves) == 2
    s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(10.0))
    assert len(ref.moves) == 4
    for t in range(12, 60, 4):
        s.observe(_seen(ref, glare | {"e6": ("G", 1.0)}), _at(float(t)))
    assert not [e for e in events if e.kind == "waiting"]


def test_a_lone_chip_read_only_in_doubt_is_said_once_and_judged_when_it_reads_surely(tmp_path):
    """Blue's first chip, on e5, reads blue only at 0.3 (a shadow over it?) and nothing
    else changes: the referee waits, and after 20 s says so once, naming e5; when e5 reads
    surely the move is judged as usual."""
    s, ref, path, events = _lone_doubt(tmp_path)
    said = [e.text for e in events if e.kind == "waiting"]
    assert said == ["waiting on e5 for 20 s: the camera cannot read e5 surely. Move the lamp "
                    "or whatever covers it, or press t (Take the board as it stands) and check "
                    "whose turn it is"]
    assert not ref.moves and s.warning is None
    v = s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(40.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["e5"]


# --- session eleven: the notice and the moves not seen, in the record; t for the notice ------
def _lone_doubt(tmp_path):
    """Blue's first chip, on e5, read blue only at 0.3 from 2 s to 38 s: the referee waits
    and says so once (session, referee, record path, events)."""
    s, ref, path, events = _session(tmp_path)
    for t in range(2, 40, 2):
        s.observe(_seen(ref, {"e5": ("B", 0.3)}), _at(float(t)))
    return s, ref, path, events


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_the_waiting_notice_is_in_the_record_and_in_its_replay(tmp_path):
    """The notice is written into the game record when it is said (a note: its words, the
    spaces it names, the source's time), and `seqboard replay` lists it among the steps;
    the record without it (as written before) replays to the same game."""
    s, ref, path, events = _lone_doubt(tmp_path)
    said = [e.text for e in events if e.kind == "waiting"]
    notes = [e for e in _lines(path) if e.get("event") == "note"]
    assert [(n["notice"], n["text"], n["spaces"], n["t"]) for n in notes] == \
        [("waiting", said[0], ["e5"], 22.0)]
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok
    assert [(st.kind, st.text) for st in result.steps if st.kind == "waiting"] == \
        [("waiting", said[0])]
    s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(40.0))
    _replays(path, ref)
    old = "".join(x + "\n" for x in path.read_text().splitlines() if '"event":"note"' not in x)
    before = replay(parse_record(old, "old.jsonl"))
    assert before.ok and [m for _, m in before.moves] == [m for _, m in ref.moves]


def test_a_record_cut_off_in_the_waiting_notice_loads_and_the_game_resumes(tmp_path):
    """The power goes while the notice is being written: the record replays up to the
    line before it, and the game resumed from it goes on (the chip judged once it reads
    surely)."""
    s, ref, path, events = _lone_doubt(tmp_path)
    s.recorder.close()
    text = path.read_text()
    assert text.splitlines()[-1].startswith('{"type":"event","event":"note"')
    cut = text[:text.rindex('"notice"')]                   # mid-line, no newline
    path.write_text(cut)
    parsed = parse_record(cut, path.name)
    assert parsed.stopped and "cut off mid-line" in parsed.stopped
    assert replay(parsed).ok
    s, ref = _resume(tmp_path, path)
    v = s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(1.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["e5"]
    _replays(path, ref)


def test_a_note_of_a_notice_with_bad_spaces_is_refused_naming_its_line(tmp_path):
    s, ref, path, events = _lone_doubt(tmp_path)
    lines = path.read_text().splitlines()
    k = next(i for i, x in enumerate(lines) if '"event":"note"' in x)
    from engine.errors import RecordError
    for bad in ({"spaces": "e5"}, {"spaces": ["z99"]}, {"notice": 5}, {"t": -1}):
        note = dict(json.loads(lines[k]), **bad)
        text = "".join(x + "\n" for x in lines[:k] + [json.dumps(note)] + lines[k + 1:])
        try:
            result = replay(parse_record(text, "m.jsonl"))
        except RecordError as exc:
            assert str(exc).startswith(f"line {k + 1}: "), (bad, str(exc))
        else:
            raise AssertionError(f"{bad} accepted: {result.ok}")


def test_moves_not_seen_and_caught_up_are_in_the_record_with_what_was_said(tmp_path):
    """Blue's move under the glare and green's beside it, applied unseen, with the sure
    chips between them: each is a move line of the record (`unseen`, the spaces it may be
    on), and the sentence the table heard ("caught up: ...") is a note after them."""
    s, ref, path, events, chips = _beside_glare(tmp_path)
    said = [e.text for e in events if e.kind == "caught_up"]
    assert len(said) == 1 and "(not seen: on i4, which reads only in doubt)" in said[0]
    lines = _lines(path)
    unseen = [e for e in lines if e.get("action") == "unseen"]
    assert [(e["n"], e["where"], e["caught_up"]) for e in unseen] == \
        [(3, ["i5", "j5", "j6"], True), (6, ["i4"], True)]
    notes = [e for e in lines if e.get("event") == "note"]
    assert [(n["notice"], n["text"]) for n in notes] == [("caught_up", said[0])]
    assert lines.index(notes[0]) > lines.index(unseen[-1])
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok and ("caught_up", said[0]) in [(st.kind, st.text) for st in result.steps]


def test_t_takes_the_chips_the_waiting_notice_names_and_ends_it(tmp_path):
    """The notice says "press t (Take the board as it stands)": t then takes the spaces it
    waits on as they read (before, they were unknown in the screened board, and t found
    nothing to take). Blue's chip on e5, read only in doubt while blue is to move, is one
    legal move: t judges it as blue's move (recorded as a move, not an edit), so green's
    next chip is green's move, not a warning of a move out of turn. The page's view holds
    the notice while it is in force."""
    s, ref, path, events = _lone_doubt(tmp_path)
    e5 = ref.layout.parse_space("e5")
    assert s.view()["stall"] == {"text": [e.text for e in events if e.kind == "waiting"][0],
                                 "spaces": [e5], "names": ["e5"]}
    assert s.take_board()
    assert ref.board.cells[e5] == 1 and ref.current == 1 and len(ref.moves) == 1
    assert s.view()["stall"] is None and s.view()["waiting"] == []
    lines = _lines(path)
    assert not [e for e in lines if e["type"] == "edit"]
    assert [e["space"] for e in lines if e["type"] == "move"] == ["e5"]
    v = s.observe(_seen(ref, {"e5": ("B", 0.3), "a4": ("G", 1.0)}), _at(42.0))
    assert v.kind == "placement" and _names(ref, v.spaces) == ["a4"] and s.warning is None
    _replays(path, ref)
    # a chip read in doubt of the team NOT to move is no move: t takes it as an edit and
    # the turn stays
    s, ref, path, events = _session(tmp_path / "out_of_turn")
    for t in range(2, 40, 2):
        s.observe(_seen(ref, {"e5": ("G", 0.3)}), _at(float(t)))
    assert s.view()["stall"]["names"] == ["e5"]
    assert s.take_board()
    assert ref.board.cells[e5] == 2 and ref.current == 0 and not ref.moves
    assert [e["changed"] for e in _lines(path) if e["type"] == "edit"] == [["e5"]]
    _replays(path, ref)
    # the notice of a move the camera cannot see, and chips waiting on it: t takes them all
    s, ref, path, events, chips = _beside_glare(tmp_path / "hidden", green_doubt="B")
    assert s.view()["stall"]["names"] == ["i4", "i5", "j5", "j6"]
    assert s.take_board() and s.view()["stall"] is None
    assert sorted(_names(ref, [i for i, c in enumerate(ref.board.cells) if c > 0])) == \
        ["b5", "e5", "e6", "g8", "h6", "h8", "i4", "i5"]
    assert s.observe(_seen(ref, chips), _at(44.0)).kind == "no_change" and not s.waiting
    _replays(path, ref)


def test_the_notice_ends_when_a_move_is_judged_or_its_spaces_read_as_the_game(tmp_path):
    s, ref, path, events = _lone_doubt(tmp_path)
    assert s.view()["stall"] is not None
    s.observe(_seen(ref, {"e5": ("B", 1.0)}), _at(40.0))
    assert s.view()["stall"] is None
    s, ref, path, events = _lone_doubt(tmp_path / "gone")
    s.observe(_seen(ref, {"e5": ("B", 0.3), "a4": ("G", 0.3)}), _at(40.0))
    assert s.view()["stall"]["names"] == ["e5"]           # another doubt: still e5's notice
    s.observe(_seen(ref, {"a4": ("G", 0.3)}), _at(42.0))  # e5's chip taken off again
    assert s.view()["stall"] is None and not ref.moves
