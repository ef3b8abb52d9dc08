"""seqboard.remote.api: create and join a remote game from the page or `seqboard setup`,
then go on with `seqboard play --remote` (here: its resume), through a real Mosquitto."""

from __future__ import annotations

import pytest

from seqboard.app import load_settings
from seqboard.errors import UserError
from seqboard.recorder import RecordWriter
from seqboard.remote import start
from seqboard.remote.api import create_game, join_game
from seqboard.remote.sim import Person

from ..app.helpers import write_config
from .helpers import link, moves, replayed, run


def _cfg(tmp_path, broker, name, **game):
    d = tmp_path / name
    d.mkdir()
    return load_settings(str(write_config(
        d, remote={"host": "127.0.0.1", "port": broker.port, "board": name},
        records={"dir": str(d / "records")}, game=game or {"players": 2})))


def test_create_and_join_then_play_resumes_both_records(tmp_path, broker):
    north = _cfg(tmp_path, broker, "north", players=4)
    south = _cfg(tmp_path, broker, "south")
    made = create_game(north, seats=[1, 3])
    assert made.board == "north" and made.seats == [1, 3] and made.record.exists()
    assert len(made.code) == 19 and made.game == made.code[:4] + made.code[5]
    joined = join_game(south, made.code.lower().replace("-", " "))    # typed by a person
    assert joined.seats == [2, 4] and joined.game == made.game and joined.code == made.code
    # the boards start playing later: each goes on from the record written here
    a = start.resume(made.record, RecordWriter(made.record, resume=True), link(broker, "n2"))
    b = start.resume(joined.record, RecordWriter(joined.record, resume=True),
                     link(broker, "s2"))
    people = [Person(a, seed=1), Person(b, seed=2)]
    # north was away when south joined: it takes the join from the broker when it is back
    run(people, until=lambda: a.ready and b.ready)
    assert a.creator and not b.creator and a.boards == b.boards == \
        {"north": [0, 2], "south": [1, 3]}
    run(people, limit=120)
    assert moves(a) == moves(b) and replayed(a).ok and replayed(b).ok
    assert replayed(a).winner == replayed(b).winner is not None


def test_mistakes_are_one_clear_line_and_leave_no_record(tmp_path, broker):
    south = _cfg(tmp_path, broker, "south")
    with pytest.raises(UserError, match="join code: a join code has 16"):
        join_game(south, "ABCD")
    with pytest.raises(UserError, match="no game ABCDE on this broker"):
        join_game(south, "ABCD-EFGH-JKMN-PQRS")
    assert not list((tmp_path / "south" / "records").glob("*.jsonl"))
    north = _cfg(tmp_path, broker, "north")
    with pytest.raises(UserError, match="seats \\[1, 2\\] must be some of 1..2"):
        create_game(north, seats=[1, 2])
    far = load_settings(str(write_config(tmp_path, remote={"host": "127.0.0.1", "port": 1})))
    with pytest.raises(UserError, match="cannot reach the broker at 127.0.0.1:1"):
        create_game(far)
