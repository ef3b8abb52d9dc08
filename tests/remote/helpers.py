"""Two boards of a remote game in one process: each its own session, record, MQTT link,
simulated table read through DirectSource, and a simulated person."""

from __future__ import annotations

import json
import time
from pathlib import Path

from engine.record import parse_record, replay
from engine.referee import Referee
from seqboard.recorder import RecordWriter, new_record_path
from seqboard.remote import start
from seqboard.remote.client import Link
from seqboard.remote.sim import Person
from seqboard.session import Session


def link(broker, name: str) -> Link:
    lk = Link("127.0.0.1", broker.port, client_id=f"seqboard-{name}")
    lk.start()
    return lk


def create_board(tmp: Path, broker, *, edition="classic", players=2, teams=None, seats=(0,),
                 name="alpha", deck_seed=7, code=None):
    d = tmp / name
    d.mkdir(exist_ok=True)
    ref = Referee(edition, players, teams)
    session = Session(ref, recorder=RecordWriter(new_record_path(d, "remote")), mode="remote")
    lk = link(broker, name)
    rg, code = start.create(session, lk, board=name, seats=list(seats), deck_seed=deck_seed,
                            code=code)
    return rg, code


def join_board(tmp: Path, broker, code: str, *, name="beta", seats=None):
    d = tmp / name
    d.mkdir(exist_ok=True)
    lk = link(broker, name)
    return start.join(lk, code, board=name, seats=list(seats) if seats else None,
                      recorder=RecordWriter(new_record_path(d, "remote")), timeout=30)


def run(people: list[Person], *, until=None, limit: float = 120.0, tick: float = 0.002) -> float:
    """Tick every board until ``until()`` (default: every game ended); the time taken."""
    until = until or (lambda: all(p.rg.session.ended for p in people))
    t0 = time.monotonic()
    now = 0.0
    while not until():
        if time.monotonic() - t0 > limit:
            raise AssertionError("remote game did not finish: " + "; ".join(
                f"{p.rg.board}: n={p.rg.n} pending={sorted(p.rg.pending)} "
                f"warning={p.rg.session.warning and p.rg.session.warning.message} "
                f"refusals={p.rg.refusals[-3:]}" for p in people))
        now += 0.05
        for p in people:
            p.tick(now)
        time.sleep(tick)
    return time.monotonic() - t0


def moves(rg) -> list[tuple]:
    """The moves of a board's record: (number, player, action, card, space)."""
    out = []
    for line in rg.session.recorder.path.read_text("utf-8").splitlines():
        e = json.loads(line)
        if e["type"] == "move":
            out.append((e["n"], e["player"], e["action"], e.get("card"), e.get("space")))
    return out


def replayed(rg):
    path = rg.session.recorder.path
    return replay(parse_record(path.read_text("utf-8"), str(path)))
