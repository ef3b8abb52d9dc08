"""Whole remote games between two boards through a real Mosquitto."""

from __future__ import annotations

import json
import subprocess
import sys

from seqboard.remote.sim import Person

from .helpers import create_board, join_board, moves, replayed, run


def test_classic_two_players_whole_game_records_identical(tmp_path, broker):
    a, code = create_board(tmp_path, broker, seats=[0])
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    run(people)
    ra, rb = replayed(a), replayed(b)
    assert ra.ok and rb.ok
    assert ra.winner == rb.winner is not None
    ma, mb = moves(a), moves(b)
    assert len(ma) > 10 and ma == mb
    # every move carries the card the dealt hand held for it
    assert all(card for _, _, action, card, _ in ma if action in ("place", "remove"))
    assert a.session.referee.board.cells == b.session.referee.board.cells
    assert not a.refusals and not b.refusals
    # `seqboard replay` of either record: every step checked, the same result
    results = []
    for rg in (a, b):
        out = subprocess.run([sys.executable, "-m", "seqboard", "replay", "--json",
                              str(rg.session.recorder.path)], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        assert got["ok"] and got["over"]
        results.append((got["winner"], got["result"]))
    assert results[0] == results[1] and results[0][0] == ra.winner


def test_four_players_two_teams_seats_split_across_boards(tmp_path, broker):
    a, code = create_board(tmp_path, broker, players=4, seats=[0, 2], deck_seed=11)
    b = join_board(tmp_path, broker, code)
    assert b.seats == {1, 3}
    people = [Person(a, seed=3), Person(b, seed=4)]
    run(people)
    assert a.boards == b.boards == {"alpha": [0, 2], "beta": [1, 3]}
    assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
    assert replayed(a).winner == replayed(b).winner is not None


def test_three_teams_the_joining_board_takes_one_seat(tmp_path, broker):
    a, code = create_board(tmp_path, broker, players=3, seats=[0, 2], deck_seed=5)
    b = join_board(tmp_path, broker, code, seats=[1])
    people = [Person(a, seed=5), Person(b, seed=6)]
    run(people)
    assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
    assert a.session.referee.n_teams == 3 and replayed(b).winner is not None


def test_travel_and_jewish_editions(tmp_path, broker):
    for i, edition in enumerate(("travel", "jewish")):
        a, code = create_board(tmp_path, broker, edition=edition, name=f"a{i}", deck_seed=21 + i)
        b = join_board(tmp_path, broker, code, name=f"b{i}")
        assert b.session.referee.edition.name == edition
        run([Person(a, seed=7), Person(b, seed=8)])
        assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
        assert replayed(b).winner is not None or b.session.referee.over


def test_dead_cards_and_removals_cross_both_ways(tmp_path, broker):
    # deck seed 9 deals a game with dead cards traded at both boards and one-eyed jacks
    a, code = create_board(tmp_path, broker, deck_seed=9, name="a9")
    b = join_board(tmp_path, broker, code, name="b9")
    shown = {"a9": [], "b9": []}
    for rg in (a, b):
        rg.session.subscribe(lambda ev, view, rg=rg: shown[rg.board].append(ev.data["player"])
                             if ev.kind == "dead_card" else None)
    run([Person(a, seed=9), Person(b, seed=59)])
    ma, mb = moves(a), moves(b)
    assert ma == mb and replayed(a).ok and replayed(b).ok
    dead = [m for m in ma if m[2] == "dead"]
    assert {m[1] for m in dead} == {0, 1}           # traded by players at both boards
    assert any(m[2] == "remove" for m in ma)
    # every trade was told at both boards, in the same order
    assert shown["a9"] == shown["b9"] == [m[1] for m in dead]
