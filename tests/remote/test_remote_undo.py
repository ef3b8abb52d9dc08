"""Undo in remote play, agreed by both boards through a real Mosquitto: asked at one board
(its undo key), agreed or refused at the other, or lapsing unanswered; asked too late; both
boards asking at once. Each game is then played to its end: both records hold the same
lines, undo included, and replay to the same result."""

from __future__ import annotations

import json
import time

from seqboard.remote.sim import Person

from .helpers import create_board, join_board, moves, replayed, run


def _tick(people, until, limit=60.0, act=True):
    """Run the boards' loops (the people acting, or not) until ``until()``; event-driven
    with a generous limit, so that a loaded machine only makes it slower."""
    end = time.monotonic() + limit
    while not until():
        assert time.monotonic() < end, "; ".join(
            f"{p.rg.board}: n={p.rg.n} undos={p.rg.undos} req={p.rg.undo_req} "
            f"log={[x['text'] for x in p.rg.session.log[-4:]]}" for p in people)
        for p in people:
            p.tick(time.monotonic(), act=act)
        time.sleep(0.005)


def _quiet(a, b):
    """Both boards at the same move, nothing proposed or waiting."""
    return a.n == b.n and a.session.proposal is None and b.session.proposal is None \
        and not any(x > a.n for x in a.pending) and not any(x > b.n for x in b.pending) \
        and a.session.warning is None \
        and b.session.warning is None


def _said(rg, text):
    return any(text in line["text"] for line in rg.session.log)


def _undo_lines(rg):
    out = []
    for line in rg.session.recorder.path.read_text("utf-8").splitlines():
        e = json.loads(line)
        if e["type"] == "move" or e.get("event") == "undo":
            out.append((e.get("n"), e.get("player"), e.get("action") or e["event"], e.get("card"),
                        e.get("space")))
    return out


def _finish(people):
    a, b = people[0].rg, people[1].rg
    run(people, limit=120)
    assert _undo_lines(a) == _undo_lines(b)
    ra, rb = replayed(a), replayed(b)
    assert ra.ok and rb.ok and ra.winner == rb.winner is not None
    assert ra.referee.moves == rb.referee.moves
    return ra


def test_an_undo_asked_at_one_board_and_agreed_at_the_other(tmp_path, broker):
    a, code = create_board(tmp_path, broker, deck_seed=7)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _tick(people, lambda: a.n >= 5 and _quiet(a, b))
    n = a.n
    back_to = a._back_to()
    seat, undone = a.applied[back_to]
    before = moves(a)
    # someone at alpha presses the undo key: it is asked, not done
    assert a.session.undo() is True
    assert a.n == n and a.undo_req is not None and _said(a, "asked: waiting for board beta")
    _tick(people, lambda: b.undo_req is not None, act=False)
    assert _said(b, f"board alpha asks to undo move {back_to + 1}") and b.n == n
    assert b.session.view()["remote"]["undo"]["by"] == "alpha"
    # beta agrees with its own undo key: both boards take the same moves back
    assert b.session.undo() is True
    _tick(people, lambda: a.undos == 1 and b.undos == 1, act=False)
    assert a.n == b.n == back_to and a.undo_req is None and b.undo_req is None
    assert len(a.session.referee.moves) == len(b.session.referee.moves)
    assert a.session.referee.board.cells == b.session.referee.board.cells
    assert _said(a, "undo agreed by every board") and _said(b, "undo agreed by every board")
    # the card played goes back to its player's hand (dealt again from the seed)
    holder = a if seat in a.seats else b
    _tick(people, lambda: holder.hands.get(seat) is not None and holder.hands_u == 1,
          act=False)
    if undone.card is not None:
        assert undone.card in holder.hands[seat]
    # the people put the chips back, and the game is played to its end
    ra = _finish(people)
    after = moves(a)
    assert after[:n] == before and len(after) > n         # the undone move stays in the record
    assert any(e == (None, None, "undo", None, None) for e in _undo_lines(a))
    assert len(ra.referee.moves) < len(after)             # and counts no more


def test_a_refused_undo_changes_nothing(tmp_path, broker):
    a, code = create_board(tmp_path, broker, deck_seed=7)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _tick(people, lambda: a.n >= 4 and _quiet(a, b))
    n = a.n
    assert b.session.undo()                    # asked at beta this time
    _tick(people, lambda: a.undo_req is not None, act=False)
    assert a.session.refuse_undo() is True
    _tick(people, lambda: b.undo_req is None and _said(b, "board alpha refused the undo"),
          act=False)
    assert a.n == b.n == n and a.undos == b.undos == 0
    assert not a.session.refuse_undo()         # nothing left to refuse
    _finish(people)
    assert not any(e[2] == "undo" for e in _undo_lines(a))


def test_an_unanswered_undo_lapses_and_the_game_goes_on(tmp_path, broker):
    a, code = create_board(tmp_path, broker, deck_seed=7)
    b = join_board(tmp_path, broker, code)
    a.undo_timeout = 1.0                       # remote.undo_timeout, short for the test
    people = [Person(a, seed=1), Person(b, seed=2)]
    _tick(people, lambda: a.n >= 4 and _quiet(a, b))
    n = a.n
    assert a.session.undo()
    _tick(people, lambda: b.undo_req is not None, act=False)
    # nobody answers at beta: alpha withdraws it after its timeout, beta stops showing it
    _tick(people, lambda: a.undo_req is None and b.undo_req is None, act=False)
    assert _said(a, "the undo lapsed") and _said(b, "board alpha withdrew its undo request")
    assert a.n == b.n == n and a.undos == b.undos == 0
    # asked again later, and agreed this time (the old answers do not count)
    assert a.session.undo()
    _tick(people, lambda: b.undo_req is not None, act=False)
    assert b.session.undo()
    _tick(people, lambda: a.undos == b.undos == 1, act=False)
    _finish(people)


def test_an_undo_asked_after_the_other_board_moved_on_is_refused_by_it(tmp_path, broker):
    a, code = create_board(tmp_path, broker, deck_seed=7)
    b = join_board(tmp_path, broker, code)
    pa, pb = Person(a, seed=1), Person(b, seed=2)
    # alpha's player moves, beta places that chip: beta's player is to move
    _tick([pa, pb], lambda: a.n >= 3 and _quiet(a, b)
          and a.session.referee.current in b.seats)
    n = a.n
    # beta's player moves; alpha has not heard of it yet when its undo key is pressed
    _tick([pb], lambda: b.n == n + 1)
    assert a.session.undo()
    _tick([pa, pb], lambda: a.undo_req is None, act=False)
    assert _said(b, f"board beta has played move {n + 1} already") or \
        _said(a, f"has played move {n + 1} already")
    assert a.undos == b.undos == 0
    _finish([pa, pb])


def test_both_boards_asking_at_once_undo_once(tmp_path, broker):
    a, code = create_board(tmp_path, broker, deck_seed=7)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _tick(people, lambda: a.n >= 4 and _quiet(a, b))
    back_to = a._back_to()
    assert a.session.undo() and b.session.undo()       # both keys, before either hears
    _tick(people, lambda: a.undos == 1 and b.undos == 1, act=False)
    assert a.n == b.n == back_to
    _tick(people, lambda: a.undo_req is None and b.undo_req is None, act=False)
    ra = _finish(people)
    assert sum(1 for e in _undo_lines(a) if e[2] == "undo") == 1
    assert ra.ok
