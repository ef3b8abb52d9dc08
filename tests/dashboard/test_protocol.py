"""The dashboard's requests at the protocol level: what a bad or hostile request gets."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from engine.referee import Referee
from seqboard.dashboard import MAX_BODY, Dashboard
from seqboard.loop import Commands
from seqboard.session import Session

H = {"X-Seqboard": "1"}


@pytest.fixture
def app(tmp_path):
    (tmp_path / "good.jsonl").write_text('{"type":"setup"}\n')
    (tmp_path.parent / "secret.jsonl").write_text("secret\n")
    session = Session(Referee("classic", 2), mode="referee")
    commands = Commands()
    dash = Dashboard(None, tmp_path, commands, pin="2468")
    dash.attach(session)
    with TestClient(dash.app) as client:
        yield client, session, commands


def test_looking_is_open_acting_needs_the_pin(app):
    client, session, commands = app
    assert client.get("/").status_code == 200
    state = client.get("/api/state").json()
    assert state["view"]["rows"] == 10
    r = client.post("/api/action", json={"action": "undo"}, headers=H)
    assert r.status_code == 401 and "PIN" in r.json()["error"]
    assert client.post("/api/login", json={"pin": "1234"}, headers=H).status_code == 403
    assert client.post("/api/login", json={"pin": "24\u00e968"}, headers=H).status_code == 403
    r = client.post("/api/login", json={"pin": 2468}, headers=H)
    assert r.status_code == 400 and r.json()["error"] == "pin: must be a text, not a number"
    assert client.post("/api/login", json={"pin": "2468"}, headers=H).status_code == 200
    r = client.post("/api/action", json={"action": "toggle_dead"}, headers=H)
    assert r.status_code == 200
    commands.run_pending()                      # the main loop runs it
    assert session.dead_shown


def test_cross_site_requests_are_refused(app):
    client, session, _ = app
    client.post("/api/login", json={"pin": "2468"}, headers=H)
    # a form on another site can send neither the header nor the same origin
    r = client.post("/api/action", data={"action": "undo"})
    assert r.status_code == 403 and "X-Seqboard" in r.json()["error"]
    r = client.post("/api/action", json={"action": "undo"},
                    headers={**H, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site" in r.json()["error"]


def test_malformed_oversized_and_unknown_requests_change_nothing(app):
    client, session, commands = app
    client.post("/api/login", json={"pin": "2468"}, headers=H)
    r = client.post("/api/action", content=b"{not json", headers=H)
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/action", content=json.dumps([1, 2]), headers=H)
    assert r.status_code == 400
    r = client.post("/api/action", content=b"x" * (MAX_BODY + 1), headers=H)
    assert r.status_code == 413
    r = client.post("/api/action", json={"action": "format_disk"}, headers=H)
    assert r.status_code == 400 and "unknown action" in r.json()["error"]
    r = client.post("/api/action", json={"action": "show_move"}, headers=H)
    assert r.status_code == 409                 # no computer move to show
    assert commands.run_pending() == 0 and not session.dead_shown


def test_no_path_reaches_outside_the_records_folder(app):
    client, _, _ = app
    assert client.get("/records/good.jsonl").text == '{"type":"setup"}\n'
    for bad in ("/records/..%2Fsecret.jsonl", "/records/../secret.jsonl", "/records/%2e%2e/secret.jsonl",
                "/records/secret", "/api/records/..%2Fsecret.jsonl/replay", "/static/..%2F__init__.py",
                "/static/index.html%00.js", "/cards/..%2F..%2Fgame.py.png"):
        r = client.get(bad)
        assert r.status_code == 404, bad
        assert "secret" not in r.text
    names = [x["name"] for x in client.get("/api/records").json()["records"]]
    assert names == ["good.jsonl"]


def test_five_wrong_pins_lock_the_login(app):
    client, _, _ = app
    for _ in range(5):
        assert client.post("/api/login", json={"pin": "0000"}, headers=H).status_code == 403
    r = client.post("/api/login", json={"pin": "2468"}, headers=H)
    assert r.status_code == 429 and "wait" in r.json()["error"]


def test_websocket_pushes_state_and_answers_malformed_messages(app):
    client, session, _ = app
    with client.websocket_connect("/ws") as ws:
        first = json.loads(ws.receive_text())
        assert first["type"] == "state"
        ws.send_text("not json")
        assert json.loads(ws.receive_text())["type"] == "error"
        ws.send_text(json.dumps({"type": "delete everything"}))
        assert "unknown message type" in json.loads(ws.receive_text())["error"]
        ws.send_text("x" * (MAX_BODY + 10))
        assert json.loads(ws.receive_text())["error"] == "message too long"
        ws.send_bytes(b"\x00\xff")
        assert "not binary" in json.loads(ws.receive_text())["error"]
        ws.send_text(json.dumps({"type": "ping", "t": 5}))
        assert json.loads(ws.receive_text()) == {"type": "pong", "t": 5}


def test_the_camera_view_is_the_latest_frame_with_the_grid_and_readings(tmp_path):
    import cv2
    import numpy as np

    from engine.observation import Observation
    from seqboard.sources import synthetic_camera
    from seqboard.sources.table import Table

    session = Session(Referee("classic", 2), mode="referee")
    table = Table.from_observation(Observation.empty(10, 10))
    cam = synthetic_camera(table, session.referee.layout, seed=3)
    dash = Dashboard(None, tmp_path, Commands(), pin="1", source=cam)
    dash.attach(session)
    with TestClient(dash.app) as client:
        assert client.get("/camera.jpg").status_code == 404          # no frame read yet
        cam.poll(0.0)
        r = client.get("/camera.jpg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
        img = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
        assert img.shape == cam.last_frame.shape
        # the grid and readings are drawn on it: not the bare frame
        assert np.abs(img.astype(int) - cam.last_frame.astype(int)).mean() > 2
    bare = Dashboard(None, tmp_path, Commands(), pin="1")
    with TestClient(bare.app) as client:
        assert client.get("/camera.jpg").json()["error"] == "no camera in this mode"


def test_a_browser_that_stops_reading_holds_up_nobody(tmp_path):
    import asyncio
    import threading

    import websockets

    from seqboard.session import Event

    session = Session(Referee("classic", 2), mode="referee")
    dash = Dashboard(None, tmp_path, Commands(), pin="1", host="127.0.0.1", port=0)
    dash.attach(session)
    url = dash.start().replace("http://", "ws://") + "ws"
    got = {}
    ready = threading.Event()

    async def clients():
        async with websockets.connect(url, close_timeout=0.2) as stuck, \
                websockets.connect(url, close_timeout=0.2) as reader:
            await stuck.recv()
            await reader.recv()
            ready.set()                             # from now on `stuck` reads nothing
            while True:
                msg = json.loads(await asyncio.wait_for(reader.recv(), 20))
                got["last"] = msg["seq"]
                if msg["event"]["text"] == "the end":
                    return
    t = threading.Thread(target=lambda: asyncio.run(clients()), daemon=True)
    t.start()
    assert ready.wait(10)
    big = "x" * 600
    for k in range(300):                            # ~9 MB a browser: more than a socket holds
        session._log_line("info", f"{k} {big}")
        session._emit(Event("info", None, "the end" if k == 299 else f"event {k}"))
    t.join(30)
    dash.stop()
    assert got.get("last") == dash._seq              # the reading browser got the newest state
    assert all(v.q.qsize() <= 64 for v in dash._clients)
