"""`seqboard replay` refuses every record that is not a game the rules allow: one test per
kind of bad record, each through the command as a user runs it (file, line and reason on
stderr, a non-zero exit, never a traceback)."""

import subprocess
import sys
import time

from engine.editions import Options
from engine.moves import Move
from engine.observation import SpaceState
from engine.record import (
    dumps,
    move_entry,
    observation_entry,
    record_simulated_game,
    setup_entry,
    verdict_entry,
)
from engine.referee import Referee
from seqboard.cli import main

SETUP = setup_entry(edition="classic", players=2, teams=2, colours=["B", "G"], options=Options())


def write(tmp_path, lines, name="g.jsonl"):
    f = tmp_path / name
    f.write_text("".join((ln if isinstance(ln, str) else dumps(ln)) + "\n" for ln in lines), "utf-8")
    return f


def replay_cmd(capsys, path):
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def refused(capsys, tmp_path, lines, line, *words, code=1):
    """The record is refused with exit ``code``, its file and ``line`` and ``words`` named."""
    path = write(tmp_path, lines)
    got, out, err = replay_cmd(capsys, path)
    assert got == code, out + err
    assert f"{path} line {line}" in err, err
    for w in words:
        assert w in err, err
    return err


def mv(n, player, text):
    return move_entry(n, player, Move.parse(text), 10)


def accepted(capsys, tmp_path, lines):
    code, out, err = replay_cmd(capsys, write(tmp_path, lines))
    assert code == 0, out + err
    return out


# --- moves the rules do not allow -----------------------------------------------------------

def test_a_removal_with_a_card_that_cannot_remove(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, mv(1, 0, "place 2S b1"), mv(2, 1, "remove 5S b1")],
            3, "5S cannot remove a chip")
    accepted(capsys, tmp_path, [SETUP, mv(1, 0, "place 2S b1"), mv(2, 1, "remove JS b1")])


def test_a_dead_card_that_is_not_dead(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, mv(1, 0, "place 2S b1"), mv(1, 1, "dead 2S")],
            3, "2S is not dead", "g9 still open")


def test_a_dead_card_that_does_not_exist(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, mv(0, 0, "dead ZZ")], 2, "ZZ is not a card")


def test_a_dead_card_event_that_is_not_dead(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, {"type": "event", "event": "dead_card", "card": "5H"}],
            2, "5H is not dead")


DEAD_2S = [SETUP, mv(1, 0, "place 2S b1"), mv(2, 1, "place 5S e1"), mv(3, 0, "place 2S g9")]


def test_a_second_dead_card_in_one_turn(capsys, tmp_path):
    # 2S covers both its spaces: green may trade it once, not twice in the same turn.
    accepted(capsys, tmp_path, DEAD_2S + [mv(3, 1, "dead 2S"), mv(4, 1, "place 5S d9")])
    refused(capsys, tmp_path, DEAD_2S + [mv(3, 1, "dead 2S"), mv(3, 1, "dead 2S")],
            6, "only one dead card may be traded each turn")


def test_a_move_by_the_player_not_to_play(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, mv(1, 1, "place 2S b1")], 2,
            "the record says player 1, but it is player 0's turn")


def test_swapped_moves_do_not_replay_with_colours_swapped(capsys, tmp_path):
    lines = [SETUP, mv(1, 0, "place 2S b1"), mv(2, 1, "place 5S e1")]
    refused(capsys, tmp_path, [lines[0], lines[2], lines[1]], 2, "player 0's turn")


def test_first_player_out_of_range(capsys, tmp_path):
    refused(capsys, tmp_path, [dict(SETUP, first_player=2), mv(1, 0, "place 2S b1")],
            1, "'first_player' must be a seat from 0 to 1", code=2)


def test_a_seeded_record_naming_the_wrong_player(capsys, tmp_path):
    _, entries = record_simulated_game("classic", 2, 5)
    entries[4] = dict(entries[4], player=1 - entries[4]["player"])
    refused(capsys, tmp_path, entries, 5, "it is player")


def test_moves_after_the_end_line(capsys, tmp_path):
    _, entries = record_simulated_game("classic", 2, 5)
    winner = entries[-1]["winner"]
    extra = mv(len(entries) - 1, 1 - winner, "pass")
    refused(capsys, tmp_path, entries + [extra], len(entries) + 1, "a move after the end line")


def test_an_end_line_with_the_wrong_winner_or_count(capsys, tmp_path):
    _, entries = record_simulated_game("classic", 2, 5)
    last = len(entries)
    refused(capsys, tmp_path, entries[:-1] + [dict(entries[-1], winner=1 - entries[-1]["winner"])],
            last, "recorded winner")
    refused(capsys, tmp_path, entries[:-1] + [dict(entries[-1], moves=entries[-1]["moves"] - 1)],
            last, "moves, the record holds")
    # the last move dropped: the end line no longer agrees
    refused(capsys, tmp_path, entries[:-2] + entries[-1:], last - 1, "recorded winner")


# --- observations and verdicts ------------------------------------------------------------

def _observed(chips: dict[int, str], ref=None):
    ref = ref or Referee("classic", 2)
    obs = ref.expected().replace({i: SpaceState(c) for i, c in chips.items()})
    return obs, ref.observe(obs)


def test_an_observation_of_two_chips_with_no_verdict_after_it(capsys, tmp_path):
    obs, v = _observed({1: "B", 2: "B"})
    assert v.kind == "violation" and v.rule == "two_chips"
    refused(capsys, tmp_path, [SETUP, observation_entry(obs), mv(1, 0, "place 2S b1")],
            2, "no verdict line after this observation")


def test_an_observation_of_a_chip_on_a_corner_with_no_verdict_after_it(capsys, tmp_path):
    obs, v = _observed({0: "B"})
    assert v.rule == "free_corner"
    refused(capsys, tmp_path, [SETUP, observation_entry(obs)], 2, "never judged")


def test_a_chip_refused_at_the_table_never_replays_as_legal(capsys, tmp_path):
    # blue to play; green puts a chip on d7: the referee said out of turn
    obs, v = _observed({63: "G"})
    assert v.kind == "violation" and v.rule == "out_of_turn"
    good = [SETUP, observation_entry(obs), verdict_entry(v, 10)]
    out = accepted(capsys, tmp_path, good)
    assert "places on d7" not in out
    claimed = dict(verdict_entry(v, 10), kind="placement", rule=None, text="green places on d7")
    refused(capsys, tmp_path, [SETUP, observation_entry(obs), claimed], 3,
            "recorded 'green places on d7' but the rules say 'illegal: a chip of a team whose "
            "turn it is not")
    refused(capsys, tmp_path, [SETUP, observation_entry(obs)], 2, "never judged")


def test_a_verdict_with_no_observation(capsys, tmp_path):
    _, v = _observed({1: "B"})
    refused(capsys, tmp_path, [SETUP, verdict_entry(v, 10)], 2, "no observation just before it")


def test_an_observation_whose_confidence_is_not_a_number(capsys, tmp_path):
    obs, v = _observed({1: "B"})
    e = observation_entry(obs)
    for bad in (["x"] * 100, "high", [1.5] * 100, [True] * 100, {"a": 1}):
        refused(capsys, tmp_path, [SETUP, dict(e, confidence=bad), verdict_entry(v, 10)],
                2, "'confidence' must be a list of numbers from 0 to 1", code=2)


def test_an_observation_of_another_board_size(capsys, tmp_path):
    e = {"type": "observation", "board": ["." * 9] * 9}
    refused(capsys, tmp_path, [SETUP, e, {"type": "verdict", "kind": "no_change"}], 2,
            "the observation is 9 x 9, the board 10 x 10", code=2)


def test_undo_with_nothing_to_undo(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, {"type": "event", "event": "undo"}], 2,
            "undo with nothing to undo")


def test_timing_keys_and_caught_up_moves_are_accepted_and_checked(capsys, tmp_path):
    obs, v = _observed({1: "B"})
    o = dict(observation_entry(obs), t=12.5, frame=340, caught_up=True)
    w = dict(verdict_entry(v, 10), t=12.5, frame=340, caught_up=True)
    m = dict(move_entry(1, 0, Move("place", None, 1), 10, via="observation"), caught_up=True)
    accepted(capsys, tmp_path, [SETUP, o, w, m])
    refused(capsys, tmp_path, [SETUP, dict(o, t="soon"), w], 2, "'t' must be a number", code=2)
    refused(capsys, tmp_path, [SETUP, o, dict(w, frame=-1)], 3, "'frame' must be a whole", code=2)


# --- edit lines: a person took the board as it stands -------------------------------------

def _edit(rows_chips: dict[int, str], changed, **kw):
    rows = [["."] * 10 for _ in range(10)]
    for i, c in rows_chips.items():
        rows[i // 10][i % 10] = c
    return {"type": "edit", "board": ["".join(r) for r in rows], "changed": changed,
            "reason": "chips knocked over", **kw}


def test_an_edit_sets_the_referees_board(capsys, tmp_path):
    lines = [SETUP, mv(1, 0, "place 2S b1"), _edit({1: "B", 44: "G"}, ["e5"]),
             mv(2, 1, "place 4H f5")]
    out = accepted(capsys, tmp_path, lines)
    assert "board taken as it stands (chips knocked over): e5 changed" in out
    # the edit removed b1: the next observation of an empty board is no change
    obs, v = _observed({}, Referee("classic", 2))
    e2 = [SETUP, mv(1, 0, "place 2S b1"), _edit({}, ["b1"]), observation_entry(obs),
          verdict_entry(v, 10)]
    accepted(capsys, tmp_path, e2)


def test_an_edit_whose_changed_spaces_are_not_the_difference(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, mv(1, 0, "place 2S b1"), _edit({1: "B", 44: "G"}, ["e5", "b1"])],
            3, "the board differs at e5")
    refused(capsys, tmp_path, [SETUP, _edit({44: "G"}, ["e5", "e5"])], 2, "'changed' names e5, e5")


def test_an_edit_with_a_chip_on_a_free_corner(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, _edit({0: "B"}, ["a1"])], 2, "free corner a1")


def test_an_edit_of_the_wrong_shape_or_colour(capsys, tmp_path):
    e = _edit({}, [])
    refused(capsys, tmp_path, [SETUP, dict(e, board=e["board"][:9])], 2, "10 rows", code=2)
    refused(capsys, tmp_path, [SETUP, _edit({5: "R"}, ["f1"])], 2, "'R' is not one of", code=2)


# --- the record's form ---------------------------------------------------------------------

def test_stacks_lines_in_a_board_record(capsys, tmp_path):
    action = {"type": "action", "n": 1, "player": 0, "action": {"kind": "discard", "card": "R1"}}
    refused(capsys, tmp_path, [SETUP, action], 2, "a SEQUENCE STACKS line", code=2)


def test_board_lines_in_a_stacks_record(capsys, tmp_path):
    st = {"type": "setup", "game": "stacks", "version": 1, "players": 2, "first": 0,
          "known": False, "seed": None, "options": {}, "deck": "default"}
    refused(capsys, tmp_path, [st, mv(1, 0, "place 2S b1")], 2, "a board-game line", code=2)


def test_an_unknown_version(capsys, tmp_path):
    refused(capsys, tmp_path, [dict(SETUP, version=99)], 1, "version 99 is not known", code=2)
    refused(capsys, tmp_path, [dict(SETUP, version="1")], 1, "'version' must be", code=2)


def test_an_unknown_line_type_is_refused_and_an_unknown_key_ignored(capsys, tmp_path):
    refused(capsys, tmp_path, [SETUP, {"type": "teleport"}], 2, "unknown line type 'teleport'",
            code=2)
    accepted(capsys, tmp_path, [dict(SETUP, colour_scheme="dark"),
                                dict(mv(1, 0, "place 2S b1"), mood="happy")])


def test_a_record_too_large_is_refused_before_reading(capsys, tmp_path):
    f = tmp_path / "huge.jsonl"
    with open(f, "wb") as fh:
        fh.write((dumps(SETUP) + "\n").encode())
        fh.truncate(65 * 2**20)          # sparse: no disk used
    code, _, err = replay_cmd(capsys, f)
    assert code == 2 and "larger than a game record may be (64 MB)" in err


def test_dev_zero_is_refused_without_filling_the_memory(tmp_path):
    # a child process with a 512 MB address-space limit: reading /dev/zero whole would fail
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20));"
            "from seqboard.cli import main; sys.exit(main(['replay', '/dev/zero']))")
    t = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 2, out.stderr
    assert "/dev/zero line 1: longer than 1,000,000 characters" in out.stderr
    assert "Traceback" not in out.stderr and time.monotonic() - t < 30


def test_a_line_nested_100000_deep(capsys, tmp_path):
    deep = '{"type":"note","x":' + "[" * 100_000 + "]" * 100_000 + "}"
    err = refused(capsys, tmp_path, [SETUP, deep], 2, "nested deeper than 32 levels", code=2)
    assert "RecursionError" not in err
    refused(capsys, tmp_path, ["[" * 100_000], 1, "nested deeper", code=2)


# --- SEQUENCE STACKS records -----------------------------------------------------------------

STACKS = {"type": "setup", "game": "stacks", "version": 1, "players": 2, "first": 0,
          "known": False, "seed": None, "options": {}, "deck": "default"}


def _act(n, player, **action):
    return {"type": "action", "n": n, "player": player, "action": action}


def test_stacks_direction_sideways(capsys, tmp_path):
    refused(capsys, tmp_path, [dict(STACKS, options={"direction": "sideways"})], 1,
            "option direction must be", code=2)


def test_stacks_options_as_a_list_or_a_count_as_a_string(capsys, tmp_path):
    refused(capsys, tmp_path, [dict(STACKS, options=["direction"])], 1, "'options' must be an object",
            code=2)
    refused(capsys, tmp_path, [dict(STACKS, options={"max_piles_per_colour": "2"})], 1,
            "option max_piles_per_colour must be a whole number", code=2)


def test_stacks_numeric_card_and_pile_as_a_string(capsys, tmp_path):
    refused(capsys, tmp_path, [STACKS, _act(1, 0, kind="play", card=5, pile=-1)], 2,
            "the action's 'card' must be a string", code=2)
    refused(capsys, tmp_path, [STACKS, _act(1, 0, kind="play", card="R1", pile="-1")], 2,
            "the action's 'pile' must be a whole number", code=2)


def test_stacks_version_and_first_player(capsys, tmp_path):
    refused(capsys, tmp_path, [dict(STACKS, version=99)], 1, "version 99 is not known", code=2)
    refused(capsys, tmp_path, [dict(STACKS, first=7)], 1, "'first' must be a player", code=2)


def test_stacks_action_after_the_end_line(capsys, tmp_path):
    end = {"type": "end", "winner": None, "result": "", "chips": [{"R": 0, "B": 0}] * 2}
    refused(capsys, tmp_path, [STACKS, _act(1, 0, kind="play", card="R1", pile=-1), end,
                               _act(2, 0, kind="discard", card="R2")],
            4, "an action after the end line")


def test_stacks_action_out_of_turn(capsys, tmp_path):
    refused(capsys, tmp_path, [STACKS, _act(1, 1, kind="play", card="R1", pile=-1)], 2,
            "the record says player 2")


def test_a_pipe_is_refused_at_once_not_waited_on(tmp_path):
    """A FIFO named like a record would block the open for ever (nobody writes to it)."""
    import os
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    out = subprocess.run([sys.executable, "-m", "seqboard", "replay", str(fifo)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2, out.stderr
    assert "is a pipe or a socket, not a game record file" in out.stderr
    assert str(fifo) in out.stderr and "Traceback" not in out.stderr
