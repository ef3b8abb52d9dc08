"""Remote games with faults: forged and misplaced moves, duplicates and delays, a broker
restarted mid-game, a board that powers off and resumes from its record."""

from __future__ import annotations

import signal
import time

from engine.observation import SpaceState
from seqboard.recorder import RecordWriter
from seqboard.remote import protocol as P
from seqboard.remote import start
from seqboard.remote.sim import Person
from seqboard.sources.table import Table

from .helpers import create_board, join_board, link, moves, replayed, run


def _wait(people, cond, limit=60.0):
    run(people, until=cond, limit=limit)


def _until_ready(*boards, limit=60.0):
    """Let the boards talk (no person acts) until every seat is taken."""
    end = time.monotonic() + limit
    while not all(rg.ready for rg in boards) and time.monotonic() < end:
        for rg in boards:
            rg.step()
        time.sleep(0.01)
    assert all(rg.ready for rg in boards)


def test_forged_moves_are_refused_and_the_game_goes_on(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _wait(people, lambda: a.ready and b.ready and a.n >= 2 and b.n >= 2)
    game, secret = P.parse_code(code)
    spy = link(broker, "watcher")
    # 1. a watcher without the join code writes a move under alpha's name: bad signature
    n = a.n + 1
    t = P.topic(game, "alpha", "move", n)
    forged = {"type": "move", "n": n, "seat": 0, "action": "place", "card": "JD", "space": 44}
    spy.publish(t, P.encode(forged, t, P.board_key("not-the-secret", "alpha")))
    # 2. beta, with a good key, signs a move for alpha's seat: beta does not hold seat 1
    t2 = P.topic(game, "beta", "move", n)
    spy.publish(t2, P.encode(forged, t2, P.board_key(secret, "beta")))
    # 3. junk: not JSON, and oversized
    spy.publish(P.topic(game, "beta", "move", n + 1), b"\xff{not json")
    spy.publish(P.topic(game, "beta", "move", n + 2), b"x" * (P.MAX_MESSAGE + 1))
    run(people)
    for rg in (a, b):
        text = " | ".join(rg.refusals)
        assert "bad or missing signature" in text or rg is a
    assert any("does not hold it" in r for r in a.refusals + b.refusals)
    assert any("not JSON" in r for r in a.refusals)
    assert any("over the 4096-byte limit" in r for r in a.refusals)
    # none of it was applied: both records identical and valid
    assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
    assert all(m[4] != 44 or m[1] != 0 for m in moves(a)[n - 1:n])
    spy.close()


def test_a_chip_placed_at_the_wrong_board_is_refused_until_taken_back(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    pa, pb = Person(a, seed=1), Person(b, seed=2)
    _until_ready(a, b)
    # seat 1 (alpha's) is to move; a person at beta puts a blue chip on the board
    r = b.session.referee
    space = next(i for i, c in enumerate(r.board.cells) if c == 0 and i not in r.layout.free)
    pb.table.set(space, SpaceState.BLUE)
    for i in range(3):
        pb.tick(i, act=False)
    w = b.session.warning
    assert w is not None and w.rule == "not_your_seat" and "board alpha" in w.message
    assert b.n == 0 and len(r.moves) == 0
    # taken back: the warning clears, and the game is played to the end
    pb.table.set(space, SpaceState.EMPTY)
    for i in range(3):
        pb.tick(10 + i, act=False)
    assert b.session.warning is None
    run([pa, pb])
    assert moves(a) == moves(b) and replayed(b).ok


def test_a_chip_no_card_in_hand_explains_is_refused(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    pa = Person(a, seed=1)
    _until_ready(a, b)
    r = a.session.referee
    hand = a.hands[0]
    # the seeded deal (deck seed 7) gives seat 1 no two-eyed jack, which would explain any space
    assert not any(c in r.edition.wild_cards for c in hand)
    bad = next(i for i, sym in enumerate(r.layout.symbols)
               if i not in r.layout.free and sym not in hand)
    pa.table.set(bad, SpaceState.BLUE)
    for i in range(3):
        pa.tick(i, act=False)
    w = a.session.warning
    assert w is not None and "holds no card" in w.message
    assert a.n == 0


def test_duplicated_and_delayed_moves_are_applied_once_in_order(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    held = {"msg": None, "released": False}
    real_drain = b.link.drain

    def drain(limit=1000):
        # every move arrives twice (once more from the spy below); the first copy of move 3
        # is held back and delivered late, once move 5 has come: stale, it must be ignored
        out = []
        for t, p in real_drain(limit):
            if t.endswith("/move/3") and held["msg"] is None and not held["released"]:
                held["msg"] = (t, p)
                continue
            out.append((t, p))
            if "/move/" in t:
                out.append((t, p))
        if held["msg"] is not None and any(t.endswith("/move/5") for t, _ in out):
            out.append(held["msg"])
            held["msg"], held["released"] = None, True
        return out

    b.link.drain = drain
    spy = link(broker, "replayer")
    game, _ = P.parse_code(code)
    spy.subscribe(f"{P.game_topic(game)}/board/alpha/move/+")
    people = [Person(a, seed=1), Person(b, seed=2)]
    t0 = time.monotonic()
    while not all(p.rg.session.ended for p in people) and time.monotonic() - t0 < 120:
        for p in people:
            p.tick(time.monotonic())
        for t, p in spy.drain():           # the broker delivers every move once more
            spy.publish(t, p, retain=False)
        time.sleep(0.002)
    assert all(p.rg.session.ended for p in people)
    assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
    assert held["released"]
    spy.close()


def test_broker_restarted_mid_game_nothing_lost_nothing_doubled(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _wait(people, lambda: a.n >= 8 and b.n >= 8)
    broker.stop(signal.SIGKILL)          # killed: whatever it had not saved is gone
    # the boards go on while the broker is down: a local move is judged and queued
    for i in range(50):
        for p in people:
            p.tick(100 + i)
        time.sleep(0.01)
    broker.start()
    run(people, limit=120)
    assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
    assert a.link.connections >= 2 and b.link.connections >= 2


def test_a_board_stalled_for_seconds_catches_up(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _wait(people, lambda: a.n >= 5)
    # beta's loop does nothing for 3 s (as a stopped process would); alpha waits for it
    t0 = time.monotonic()
    while time.monotonic() - t0 < 3:
        people[0].tick(time.monotonic())
        time.sleep(0.01)
    assert a.n <= b.n + 1
    run(people)
    assert moves(a) == moves(b) and replayed(b).ok


def test_a_board_that_powers_off_resumes_from_its_record_and_the_broker(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    people = [Person(a, seed=1), Person(b, seed=2)]
    _wait(people, lambda: b.n >= 9)
    # beta loses power: its link drops without a word, its memory is gone; the chips stay
    chips = Table.from_observation(b.session.referee.expected())
    path = b.session.recorder.path
    b.link.client._sock_close()
    b.link.client.loop_stop()
    b.session.recorder.close()
    for i in range(100):                  # alpha goes on: its move waits for beta
        people[0].tick(200 + i)
        time.sleep(0.005)
    b2 = start.resume(path, RecordWriter(path, resume=True), link(broker, "beta-again"))
    assert b2.n >= 9 and b2.seats == {1} and b2.board == "beta"
    run([people[0], Person(b2, seed=9, table=chips)])
    assert moves(a) == moves(b2) and replayed(a).ok and replayed(b2).ok


def test_a_chip_lifted_after_its_move_was_sent_must_go_back_there(tmp_path, broker):
    a, code = create_board(tmp_path, broker)
    b = join_board(tmp_path, broker, code)
    pa, pb = Person(a, seed=1), Person(b, seed=2)
    _until_ready(a, b)
    pa.act()                              # alpha's player places a chip: move 1 is sent
    for i in range(3):
        pa.tick(i, act=False)
    assert a.n == 1 and 1 in a.mine
    space = a.mine[1]["space"]
    pa.table.set(space, SpaceState.EMPTY)  # lifted again: the move was sent, refused
    for i in range(3):
        pa.tick(10 + i, act=False)
    w = a.session.warning
    assert w is not None and w.rule == "not_your_seat" and a.n == 1
    assert len(a.session.referee.moves) == 1
    pa.table.set(space, SpaceState.BLUE)   # put back: the warning clears
    for i in range(3):
        pa.tick(20 + i, act=False)
    assert a.session.warning is None and a.n == 1
    # (the undo key asks the other board instead: tests/remote/test_remote_undo.py)
    run([pa, pb])
    ra, rb = replayed(a), replayed(b)
    assert ra.ok and rb.ok and ra.winner == rb.winner
    assert ra.referee.moves == rb.referee.moves
