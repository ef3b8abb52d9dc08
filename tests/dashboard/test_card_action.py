"""The card laid, tapped on the page (judging with cards, issue 24)."""

from __future__ import annotations

from starlette.testclient import TestClient

from engine.observation import SpaceState
from engine.referee import Referee
from seqboard.dashboard import Dashboard
from seqboard.loop import Commands
from seqboard.session import Session

H = {"X-Seqboard": "1"}


def serve(tmp_path, judge=True):
    ref = Referee("classic", 2)
    ref.judge_cards = judge
    session = Session(ref, mode="referee")
    commands = Commands()
    dash = Dashboard(None, tmp_path, commands, pin="2468")
    dash.attach(session)
    return session, commands, dash


def test_a_card_tapped_on_the_page_judges_the_chip(tmp_path):
    session, commands, dash = serve(tmp_path)
    r = session.referee
    with TestClient(dash.app) as client:
        assert client.post("/api/action", json={"action": "card", "card": "5h"},
                           headers=H).status_code == 401           # acting needs the PIN
        client.post("/api/login", json={"pin": "2468"}, headers=H)
        wrong = r.layout.spaces_of["5D"][0]
        session.observe(r.expected().replace({wrong: SpaceState("B")}))
        res = client.post("/api/action", json={"action": "card", "card": "5h"}, headers=H)
        assert res.status_code == 200 and res.json()["card"] == "5H"
        commands.run_pending()
        text = client.get("/api/state").json()["view"]["warning"]["text"]
        assert text.startswith(f"illegal: 5H laid: the chip on {r.layout.space_name(wrong)} is the 5D")
        res = client.post("/api/action", json={"action": "card", "card": "6Z"}, headers=H)
        assert res.status_code == 400 and "'6Z' is not a card of" in res.json()["error"]


def test_a_game_that_does_not_judge_cards_refuses_a_tapped_card(tmp_path):
    session, commands, dash = serve(tmp_path, judge=False)
    with TestClient(dash.app) as client:
        client.post("/api/login", json={"pin": "2468"}, headers=H)
        res = client.post("/api/action", json={"action": "card", "card": "5H"}, headers=H)
        assert res.status_code == 400 and "judge_cards" in res.json()["error"]
        assert commands.run_pending() == 0
