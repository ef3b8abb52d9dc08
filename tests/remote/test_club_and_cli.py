"""The club view of a broker's tables, and the command line of remote play."""

from __future__ import annotations

import json
import subprocess
import sys

from seqboard.remote import protocol as P
from seqboard.remote.sim import Person

from ..app.helpers import write_config
from .helpers import create_board, join_board, link, run


def _cfg(tmp_path, broker, **remote):
    return write_config(tmp_path, remote={"host": "127.0.0.1", "port": broker.port, **remote},
                        gpio={"enabled": False})


def _seqboard(*args, timeout=30):
    return subprocess.run([sys.executable, "-m", "seqboard", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_club_shows_every_table_with_scores_and_results(tmp_path, broker):
    a, code = create_board(tmp_path, broker, name="north")
    b = join_board(tmp_path, broker, code, name="south")
    run([Person(a, seed=1), Person(b, seed=2)])
    c, code2 = create_board(tmp_path, broker, name="east", players=3, seats=[0, 1])
    c.step()
    game1, _ = P.parse_code(code)
    game2, _ = P.parse_code(code2)
    # junk on a state topic is dropped, not shown
    spy = link(broker, "junk")
    spy.publish(P.state_topic("ZZZZZ"), b'{"type":"state","n":-4}')
    spy.close()
    out = _seqboard("club", "--config", str(_cfg(tmp_path, broker)), "--once", "4", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["game"]: r for r in json.loads(out.stdout)}
    assert set(rows) == {game1, game2}
    won = rows[game1]
    winner = a.session.referee.colour_name(a.session.referee.winner)
    assert won["status"] == f"{winner} won" and won["boards"] == "north, south"
    assert won["moves"] == a.n and winner in won["score"]
    assert rows[game2]["status"] == "player 1 to move" and rows[game2]["moves"] == 0
    text = _seqboard("club", "--config", str(_cfg(tmp_path, broker)), "--once", "3")
    assert f"{game1}" in text.stdout and "2 table(s), 1 playing" in text.stdout


def test_joining_with_a_code_of_no_game_is_one_clear_line(tmp_path, broker):
    cfg = write_config(tmp_path, remote={"host": "127.0.0.1", "port": broker.port, "board": "far"},
                       sensing={"source": "matrix"}, matrix={"port": "/dev/no-such-board"})
    out = _seqboard("play", "--remote", "ABCD-EFGH-JKMN-PQRS", "--config", str(cfg),
                    "--records", str(tmp_path / "rec"), "--no-dashboard", "--mock-gpio",
                    timeout=60)
    # the configured source (a matrix on a serial port) is missing here: that is said first
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "matrix.port" in out.stderr
    # with the board there, the code itself is checked against the broker
    import pytest

    from seqboard.errors import UserError
    from seqboard.remote import start
    with pytest.raises(UserError, match="join code ABCD-EFGH-JKMN-PQRS: no game ABCDE"):
        start.join(link(broker, "far"), "ABCD-EFGH-JKMN-PQRS", board="far", seats=None,
                   recorder=None, timeout=1.0)


def test_a_broker_that_is_not_there_is_one_clear_line(tmp_path, broker):
    cfg = write_config(tmp_path, remote={"host": "127.0.0.1", "port": 1})
    out = _seqboard("club", "--config", str(cfg), "--once", "1")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "remote: cannot reach the broker at 127.0.0.1:1" in out.stderr
    bad = write_config(tmp_path, remote={"board": "no spaces allowed"})
    out = _seqboard("club", "--config", str(bad), "--once", "1")
    assert out.returncode != 0 and "remote.board" in out.stderr and "Traceback" not in out.stderr


def test_each_player_sees_only_their_own_hand_on_their_own_link(tmp_path, broker):
    import urllib.error
    import urllib.request

    from seqboard.remote.hands import HandPages
    a, code = create_board(tmp_path, broker, players=4, seats=[0, 2], deck_seed=3)
    b = join_board(tmp_path, broker, code)
    pages = HandPages([0, 2], "127.0.0.1", 0, {0: "Ann"}).start()
    a.pages = pages
    try:
        run([Person(a), Person(b)], until=lambda: a.ready and b.ready and a.n >= 1)
        a.step()
        links = pages.links("127.0.0.1")

        def get(url):
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.read().decode()
        page0, page2 = get(links[0]), get(links[2])
        assert "Ann" in page0 and "player 3" in page2
        for card in a.hands[0]:
            assert f">{card}<" in page0
        assert set(a.hands[0]) - set(a.hands[2]) and \
            not any(f">{c}<" in page2 for c in set(a.hands[0]) - set(a.hands[2]))
        for bad in (links[0][:-3] + "xyz", links[0].rsplit("/", 1)[0], "http://127.0.0.1:"
                    f"{pages.port}/"):
            try:
                get(bad)
                raise AssertionError(f"{bad} answered")
            except urllib.error.HTTPError as exc:
                assert exc.code == 404
    finally:
        pages.close()
