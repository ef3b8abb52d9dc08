"""Hints for the person to move (terminal and dashboard), and the Pi's reason with its move."""

from __future__ import annotations

import io
import json
import threading
import time

from starlette.testclient import TestClient

from engine.observation import Observation, SpaceState
from engine.referee import Referee
from seqboard.app import load_settings, open_session
from seqboard.modes.computer import ComputerSeats
from seqboard.dashboard import Dashboard
from seqboard.indicators.terminal import TerminalIndicator
from seqboard.loop import Commands, read_keys
from seqboard.session import Session
from seqboard.sources.table import DirectSource, Table

from .helpers import write_config

H = {"X-Seqboard": "1"}
#: blue and green in turn; green ends with a four on row 5 whose gap is f5 (the 4 of hearts)
MOVES = [("a5", "B"), ("b5", "G"), ("j2", "B"), ("c5", "G"), ("j3", "B"), ("d5", "G"),
         ("j4", "B"), ("e5", "G")]
HAND = "4h 2s 3s ks qd 8c 9h"


def refereed_game() -> Session:
    session = Session(Referee("classic", 2), mode="referee")
    lay = session.referee.layout
    obs = Observation.empty(10, 10)
    for name, colour in MOVES:
        obs = obs.replace({lay.parse_space(name): SpaceState(colour)})
        assert session.observe(obs).is_move
    return session


def test_hints_from_the_terminal_for_the_cards_typed():
    session = refereed_game()
    out = io.StringIO()
    session.subscribe(TerminalIndicator(out, live=False, colour=False))
    commands = Commands()
    read_keys(lambda: session, commands, io.StringIO(f"h {HAND}\nh 4h zz\n"), out)
    commands.run_pending()
    hints = session.view()["hints"]
    assert [h["move"] for h in hints][0] == "place 4H f5"
    assert hints[0]["reason"].startswith("blocks green's four on row 5")
    assert 0.0 < hints[0]["chance"] < 1.0 and len(hints) == 3
    text = out.getvalue()
    assert "hint 1: place 4H f5: blocks green's four on row 5" in text
    assert "hint: 'zz' is not a card of SEQUENCE" in text
    # the hints are for this turn only: gone once the move is made
    lay = session.referee.layout
    session.observe(session.last_observation.replace({lay.parse_space("f5"): SpaceState.BLUE}))
    assert session.view()["hints"] == []


def test_hints_from_the_dashboard(tmp_path):
    session = refereed_game()
    commands = Commands()
    dash = Dashboard(None, tmp_path, commands, pin="1357")
    dash.attach(session)
    with TestClient(dash.app) as client:
        assert client.post("/api/action", json={"action": "hint", "cards": HAND},
                           headers=H).status_code == 401
        client.post("/api/login", json={"pin": "1357"}, headers=H)
        r = client.post("/api/action", json={"action": "hint", "cards": "4h 2s 99"}, headers=H)
        assert r.status_code == 400 and "'99' is not a card" in r.json()["error"]
        r = client.post("/api/action", json={"action": "hint", "cards": ""}, headers=H)
        assert r.status_code == 400 and "which cards you hold" in r.json()["error"]
        viewer = client.websocket_connect("/ws")          # someone looking, without the PIN
        with viewer as ws:
            ws.receive_text()
            stop = threading.Event()
            loop = threading.Thread(target=lambda: [commands.run_pending() or time.sleep(0.01)
                                                    for _ in iter(stop.is_set, True)])
            loop.start()                              # the main loop, which works hints out
            try:
                r = client.post("/api/action", json={"action": "hint", "cards": HAND}, headers=H)
            finally:
                stop.set()
                loop.join()
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
            # the hints come back to the browser that asked, and to it alone
            assert r.json()["hints"][0]["move"] == "place 4H f5"
            assert r.json()["move_number"] == len(MOVES)
            seen = json.loads(ws.receive_text())
        assert seen["event"]["kind"] == "hint" and seen["event"]["spaces"] == []
        for view in (seen["view"], client.get("/api/state").json()["view"]):
            assert view["hints"] == []
            assert not any(line["kind"] == "hint" for line in view["log"])
            assert "4H" not in json.dumps(view["log"])
        assert session.view()["hints"][0]["move"] == "place 4H f5"   # the terminal has them


def test_the_pi_says_why_it_plays_its_move(tmp_path):
    conf = load_settings(str(write_config(tmp_path, game={"computer_seats": [2]})))
    session = open_session(conf, "play", tmp_path / "records", False, seed=4, full_game=False,
                           computers={1: "hard"})
    pi = ComputerSeats(session, {1: "hard"}, seed=4)
    table = Table(10, 10)
    source = DirectSource(table, settle=0.2)
    lay = session.referee.layout
    now = 0.0
    table.set(lay.parse_space("b2"), SpaceState.BLUE)          # a person plays first
    for _ in range(5):
        now += 0.1
        pi.step(now)
        obs = source.poll(now)
        if obs is not None:
            session.observe(obs)
    assert session.proposal is not None
    move, why = session.proposal
    assert move.card in pi.hands[1] and why
    prop = session.view()["proposal"]
    assert prop["reason"] == why
    assert session.log[-1]["kind"] == "proposal" and session.log[-1]["text"].endswith(why)
