"""The game is never stuck: missed moves are caught up, a wrong chip put right recovers, the
board may go back to any earlier position, and a person can take the board as it stands.
Every record replays."""

from __future__ import annotations

import json

from engine.observation import Observation, SpaceState
from engine.record import parse_record, replay
from engine.referee import Referee
from seqboard.loop import key_action
from seqboard.recorder import RecordWriter
from seqboard.session import Session


def _session(tmp_path, players: int = 2, mode: str = "referee"):
    ref = Referee("classic", players)
    path = tmp_path / "game.jsonl"
    s = Session(ref, recorder=RecordWriter(path), mode=mode)
    events = []
    s.subscribe(lambda ev, view: events.append(ev))
    return s, ref, path, events


def _with(ref: Referee, chips: dict[str, str], base: Observation | None = None) -> Observation:
    base = base or ref.expected()
    return base.replace({ref.layout.parse_space(k): SpaceState(v) for k, v in chips.items()})


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def _replays(path, ref: Referee) -> None:
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok, [s.text for s in result.steps if not s.ok]
    assert result.referee.board.cells == ref.board.cells
    assert [m for _, m in result.referee.moves] == [m for _, m in ref.moves]


def test_two_missed_moves_are_caught_up_with_a_note_and_replay(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}), {"t": 1.0, "frame": 10})
    # the camera missed a moment: green's e5 and blue's f3 are both new
    v = s.observe(_with(ref, {"e5": "G", "f3": "B"}), {"t": 4.5, "frame": 45})
    assert v.kind == "placement"
    assert s.warning is None
    assert [ref.layout.space_name(m.space) for _, m in ref.moves] == ["b2", "e5", "f3"]
    notes = [e.text for e in events if e.kind == "caught_up"]
    assert notes == ["caught up: green e5, then blue f3"]
    assert ref.team == 1                         # green to move next
    lines = _lines(path)
    caught = [x for x in lines if x.get("caught_up")]
    assert [x["type"] for x in caught] == ["observation", "verdict"] * 2
    assert all(x["t"] == 4.5 and x["frame"] == 45 for x in caught)
    # the intermediate board: green's chip without blue's
    first = Observation.from_json(caught[0])
    assert first[ref.layout.parse_space("e5")] is SpaceState.GREEN
    assert first[ref.layout.parse_space("f3")] is SpaceState.EMPTY
    _replays(path, ref)


def test_no_legal_series_is_a_warning_that_names_what_to_put_right(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    # two blue chips: no series in turn order explains them (green must move between)
    v = s.observe(_with(ref, {"e5": "B", "f3": "B"}))
    assert v.kind == "violation"
    assert "to put right: take the chip off f3, take the chip off e5" in s.warning.message
    assert len(ref.moves) == 1
    # put right (both chips lifted): the warning ends, and play goes on
    s.observe(ref.expected())
    assert s.warning is None
    assert s.observe(_with(ref, {"e5": "G"})).kind == "placement"
    _replays(path, ref)


def test_a_wrong_chip_put_right_recovers(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    s.observe(_with(ref, {"c3": "G"}))
    # blue's chip on d4 is swapped for a green one by mistake, and blue places nothing
    wrong = _with(ref, {"d4": "G"})
    assert s.observe(wrong).kind == "violation"
    assert "it is blue's turn" in s.warning.message
    assert "take the chip off d4" in s.warning.message
    s.observe(ref.expected())                  # the green chip lifted again
    assert s.warning is None
    assert any(e.kind == "cleared" for e in events)
    assert s.observe(_with(ref, {"d4": "B"})).kind == "placement"
    assert len(ref.moves) == 3
    _replays(path, ref)


def test_a_takeback_to_an_earlier_position_undoes_several_moves(tmp_path):
    s, ref, path, events = _session(tmp_path)
    for space, colour in (("b2", "B"), ("c3", "G"), ("d4", "B"), ("e5", "G")):
        s.observe(_with(ref, {space: colour}))
    earlier = Observation.empty(10, 10)
    earlier = _with(ref, {"b2": "B"}, base=earlier.replace(
        {i: SpaceState.EMPTY for i in range(100)}))
    # the players put the board back as it was after blue's first move: three moves undone
    s.observe(earlier, {"t": 9.0, "frame": 90})
    assert [ref.layout.space_name(m.space) for _, m in ref.moves] == ["b2"]
    assert ref.team == 1 and s.warning is None
    assert any(e.kind == "undo" and "the last 3 moves undone" in e.text for e in events)
    # and the game goes on from there
    assert s.observe(_with(ref, {"j5": "G"})).kind == "placement"
    _replays(path, ref)


def test_take_the_board_as_it_stands(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    # chips appear that no series of moves explains (someone bumped the board)
    odd = _with(ref, {"e5": "B", "f3": "B", "g7": "R", "b2": "."})
    assert s.observe(odd).kind == "violation"
    assert key_action("t") == "take_board"
    assert s.take_board()
    assert s.warning is None
    exp = ref.expected()
    for name, st in (("e5", "B"), ("f3", "B"), ("b2", ".")):
        assert exp[ref.layout.parse_space(name)] is SpaceState(st)
    assert exp[ref.layout.parse_space("g7")] is SpaceState.EMPTY   # red is not in this game
    edit = [x for x in _lines(path) if x["type"] == "edit"]
    assert edit == [{"type": "edit", "board": exp.to_json()["board"],
                     "changed": ["b2", "f3", "e5"], "reason": "board taken as it stands"}]
    assert ref.team == 1                        # the turn is unchanged: green to move
    assert s.observe(_with(ref, {"h8": "G"})).kind == "placement"
    _replays(path, ref)
    assert not s.take_board()                   # nothing differs now: nothing to take


def test_a_board_taken_as_it_stands_that_holds_a_win_ends_the_game(tmp_path):
    """Two blue sequences on the board taken as it stands: blue has won, the game ends, the
    record has its end line and replays to the same winner."""
    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    # a bumped board, then blue's chips of two full lines (the camera missed them all)
    chips = {f"{c}{r}": "B" for c in "bcdef" for r in (4, 6)}
    assert s.observe(_with(ref, chips)).kind == "violation"
    assert s.take_board()
    assert ref.over and ref.winner == 0
    lines = _lines(path)
    assert lines[-1]["type"] == "end" and lines[-1]["winner"] == 0
    assert any(ev.kind == "game_over" for ev in events)
    result = replay(parse_record(path.read_text(), str(path)))
    assert result.ok, result.refusal
    assert result.winner == 0 and result.over


def test_a_long_series_waits_for_a_confirmation(tmp_path):
    s, ref, path, events = _session(tmp_path, players=3)
    # three players' moves all missed: blue, green, red
    obs = _with(ref, {"b2": "B", "c3": "G", "d4": "R"})
    v = s.observe(obs)
    assert v.kind == "violation" and v.rule == "confirm_catch_up"
    assert "caught up: blue b2, then green c3, then red d4" in v.message
    assert s.view()["confirm_catch_up"] is True
    assert len(ref.moves) == 0
    s.confirm()                                  # the c key, or the page's Confirm button
    assert [ref.layout.space_name(m.space) for _, m in ref.moves] == ["b2", "c3", "d4"]
    assert s.warning is None
    _replays(path, ref)


def test_an_occupancy_board_asks_which_order_and_confirm_takes_it(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.colour_blind = True
    # an occupancy board reports both new chips in the colour of the team to move
    obs = _with(ref, {"b2": "B", "c3": "B"})
    v = s.observe(obs)
    assert v.rule == "confirm_catch_up" and "more than one order" in v.message
    s.confirm()
    assert len(ref.moves) == 2 and s.warning is None
    _replays(path, ref)


def test_the_page_button_takes_the_board_and_a_resumed_game_keeps_the_edit(tmp_path):
    from starlette.testclient import TestClient

    from seqboard.dashboard import Dashboard
    from seqboard.loop import Commands
    from seqboard.session import resume_session

    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    s.observe(_with(ref, {"e5": "B", "f3": "B", "g7": "G"}))
    assert s.warning is not None
    commands = Commands()
    dash = Dashboard(None, tmp_path, commands, pin="2468")
    dash.attach(s)
    with TestClient(dash.app) as client:
        h = {"X-Seqboard": "1"}
        assert client.post("/api/login", json={"pin": "2468"}, headers=h).status_code == 200
        r = client.post("/api/action", json={"action": "take_board"}, headers=h)
        assert r.status_code == 200
    commands.run_pending()                      # the main loop runs it
    assert s.warning is None
    board = list(ref.board.cells)
    s.recorder.close()
    again = resume_session(path, RecordWriter(path, resume=True), "referee")
    assert again.referee.board.cells == board
    assert again.referee.team == ref.team


def test_a_missed_removal_by_a_jack_is_caught_up_too(tmp_path):
    s, ref, path, events = _session(tmp_path)
    s.observe(_with(ref, {"b2": "B"}))
    s.observe(_with(ref, {"c3": "G"}))
    s.observe(_with(ref, {"d4": "B"}))
    # missed: green's jack takes blue's d4 off, then blue places on e5
    s.observe(_with(ref, {"d4": ".", "e5": "B"}))
    assert [e.text for e in events if e.kind == "caught_up"] == \
        ["caught up: green removes d4, then blue e5"]
    assert [m.action for _, m in ref.moves] == ["place", "place", "place", "remove", "place"]
    # three changes are more than one move per seat (two players): a warning
    s.observe(_with(ref, {"c3": ".", "f6": "G", "g7": "B"}))
    assert s.warning is not None and "put green back on c3" in s.warning.message
    _replays(path, ref)


def test_a_space_that_will_not_settle_is_shown_at_that_space(tmp_path):
    import io

    from seqboard.indicators.terminal import TerminalIndicator
    s, ref, path, events = _session(tmp_path)
    screen = io.StringIO()
    s.subscribe(TerminalIndicator(screen, live=False, colour=False))
    a5 = ref.layout.parse_space("a5")
    s.report_space_problems({a5: "a5 keeps changing between green and red: check the light there"})
    assert s.view()["space_problems"] == [{"space": a5, "text": "a5 keeps changing between green "
                                                               "and red: check the light there"}]
    s.report_space_problems({})
    assert s.view()["space_problems"] == [] and s.source_problem is None
    lines = screen.getvalue().splitlines()
    assert lines[-2] == "[  0] SENSING a5 keeps changing between green and red: check the light there"
    assert lines[-1] == "[  0] ok: the board's sensing is back"
