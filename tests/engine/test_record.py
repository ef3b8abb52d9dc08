import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.editions import Options
from engine.errors import RecordError
from engine.game import Game
from engine.players import GreedyPlayer, RandomPlayer, play_game
from engine.record import (
    dumps,
    observation_entry,
    parse_record,
    record_simulated_game,
    replay,
    setup_entry,
    verdict_entry,
)
from engine.referee import Referee


def text_of(entries):
    return "".join(dumps(e) + "\n" for e in entries)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([("classic", 2), ("classic", 3), ("classic", 4), ("travel", 2),
                        ("jewish", 2), ("jewish", 3)]),
       st.integers(0, 10**6), st.booleans())
def test_random_games_end_and_replay_exactly(ed_players, seed, advanced):
    edition, n = ed_players
    game, entries = record_simulated_game(edition, n, seed, ("random",),
                                          Options(advanced=advanced))
    assert game.over
    if game.winner is not None:
        assert game.board.counts[game.winner] >= game.to_win
        assert all(c < game.to_win for t, c in enumerate(game.board.counts) if t != game.winner)
    result = replay(parse_record(text_of(entries)))
    assert result.ok and result.winner == game.winner
    assert result.game.board.cells == game.board.cells
    assert result.game.hands == game.hands and result.referee.board.cells == game.board.cells


def test_referee_agrees_with_the_game_on_every_observed_move():
    game = Game("classic", 2, rng=random.Random(7))
    players = [GreedyPlayer(random.Random(1)), RandomPlayer(random.Random(2))]
    ref = Referee("classic", 2)
    while not game.over:
        move = players[game.current].choose(game)
        game.push(move)
        v = ref.observe(_obs_of(game, ref))
        if move.action == "dead":
            assert v.kind == "no_change"
            ref.note_dead_card(move.card)
        elif move.action == "place":
            assert v.kind == "placement" and v.spaces == (move.space,)
            assert move.card in v.cards
        elif move.action == "remove":
            assert v.kind == "removal" and v.spaces == (move.space,)
    assert ref.winner == game.winner and ref.board.counts == game.board.counts


def _obs_of(game, ref):
    from engine.observation import Observation, SpaceState
    cols = ref.colours
    states = tuple(SpaceState(cols[c - 1]) if c > 0 else SpaceState.EMPTY
                   for c in game.board.cells)
    return Observation(game.layout.rows, game.layout.cols, states)


def test_record_cut_off_mid_line_replays_to_its_last_whole_line(tmp_path):
    _, entries = record_simulated_game("classic", 2, 3)
    text = text_of(entries)
    cut = text[: text.index("\n", len(text) // 2) + 15]
    parsed = parse_record(cut, "g.jsonl")
    assert parsed.stopped and "cut off mid-line" in parsed.stopped
    whole = cut.count("\n")
    assert len(parsed.entries) == whole
    assert replay(parsed).result == "unfinished"


def test_malformed_line_in_the_middle_is_named():
    _, entries = record_simulated_game("classic", 2, 3)
    lines = text_of(entries).splitlines()
    lines[4] = "{not json"
    with pytest.raises(RecordError, match="line 5: not JSON"):
        parse_record("\n".join(lines) + "\n")


def test_tampered_move_is_reported():
    _, entries = record_simulated_game("classic", 2, 4)
    entries[3] = dict(entries[3], space="a1")     # onto a free corner
    result = replay(parse_record(text_of(entries)))
    assert not result.ok
    assert any("free corner" in s.text for s in result.steps if not s.ok)


def test_observation_verdict_lines_are_rechecked():
    ref = Referee("classic", 2)
    setup = setup_entry(edition="classic", players=2, teams=2, colours=["B", "G"],
                        options=Options())
    obs = ref.expected().replace({4: __import__("engine").SpaceState.BLUE})
    v = ref.observe(obs)
    good = [setup, observation_entry(obs), verdict_entry(v, 10)]
    assert replay(parse_record(text_of(good))).ok
    bad = [setup, observation_entry(obs), dict(verdict_entry(v, 10), kind="violation", rule="two_chips")]
    assert not replay(parse_record(text_of(bad))).ok


def test_replay_command(tmp_path):
    _, entries = record_simulated_game("classic", 2, 11, ("greedy", "random"))
    f = tmp_path / "g.jsonl"
    f.write_text(text_of(entries))
    out = subprocess.run([sys.executable, "-m", "seqboard", "replay", str(f)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "result: blue (team 1) wins" in out.stdout
    js = subprocess.run([sys.executable, "-m", "seqboard", "replay", "--json", str(f)],
                        capture_output=True, text=True, check=False)
    data = json.loads(js.stdout)
    assert data["ok"] and data["winner"] == 0 and len(data["steps"]) == len(entries) - 1
    f.write_text("garbage\n")
    bad = subprocess.run([sys.executable, "-m", "seqboard", "replay", str(f)],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "line 1: not JSON" in bad.stderr


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.text(max_size=200),
    st.lists(st.dictionaries(st.sampled_from(["type", "action", "card", "space", "board",
                                              "kind", "edition", "players", "teams", "event"]),
                             st.one_of(st.none(), st.integers(-3, 12), st.text(max_size=6),
                                       st.sampled_from(["setup", "move", "observation", "verdict",
                                                        "event", "end", "classic", "place",
                                                        "remove", "c4", "5S", "undo"]))),
             max_size=6).map(lambda es: "".join(json.dumps(e) + "\n" for e in es))))
def test_fuzz_record_parser_rejects_with_its_own_error_or_replays(text):
    try:
        parsed = parse_record(text)
        result = replay(parsed)
    except RecordError:
        return
    again = parse_record("".join(dumps(e) + "\n" for e in parsed.entries))
    assert again.entries == parsed.entries
    assert isinstance(result.ok, bool)


def test_greedy_beats_random_nearly_always():
    wins = 0
    n = 30
    for i in range(n):
        g = Game("classic", 2, rng=random.Random(i), first_player=i % 2)
        seats = [GreedyPlayer(random.Random(i)), RandomPlayer(random.Random(i + 1))]
        play_game(g, seats)
        wins += g.winner == 0
    assert wins >= n - 1
