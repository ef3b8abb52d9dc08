"""Whole remote games between two boards through a real Mosquitto."""

from __future__ import annotations

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
