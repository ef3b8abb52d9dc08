"""Review attack: DNS rebinding. A page on a public name the attacker owns re-points that
name at the Pi; the browser then sends ``Host`` and ``Origin`` of that name, equal to each
other, and passed the same-origin check: it could guess PINs from the owner's own address
(locking the owner out) and read the live socket. Names only a local network resolves
pass; public names are refused."""

from __future__ import annotations

import base64
import os
import socket

from engine.observation import SpaceState
from engine.referee import Referee
from seqboard.dashboard import Dashboard
from seqboard.dashboard.guard import local_host
from seqboard.loop import Commands
from seqboard.session import Session

from .test_bad_requests import post, request


def _ws_handshake(port: int, host: str) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    data = (f"GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {key}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        return s.recv(200)


def test_a_public_name_pointed_at_the_pi_is_refused(tmp_path):
    session = Session(Referee("classic", 2), mode="referee")
    dash = Dashboard(None, tmp_path, Commands(), pin="2468", host="0.0.0.0", port=0)
    dash.attach(session)
    dash.start()
    try:
        port = dash.port
        evil = f"evil.example:{port}"
        status, _, body = request(port, post("/api/login", {"pin": "0000"},
                                             {"Host": evil, "Origin": f"http://{evil}"}))
        assert status == 403 and b"a name outside the local network" in body
        assert _ws_handshake(port, evil).startswith(b"HTTP/1.1 403")
        # five such guesses did not count against the address (the owner's browser)
        for _ in range(5):
            request(port, post("/api/login", {"pin": "0000"}, {"Host": evil, "Origin": f"http://{evil}"}))
        for name in (f"127.0.0.1:{port}", f"raspberrypi:{port}", f"seqboard.local:{port}"):
            status, _, _ = request(port, post("/api/login", {"pin": "2468"},
                                              {"Host": name, "Origin": f"http://{name}"}))
            assert status == 200, name
        assert _ws_handshake(port, f"seqboard.local:{port}").startswith(b"HTTP/1.1 101")
    finally:
        dash.stop()


def test_which_host_names_are_local():
    for ok in ("192.168.1.20:8080", "[fe80::1]:8080", "[::1]", "localhost:8080", "raspberrypi",
               "seqboard.local", "pi.home.arpa:80", "PI.LAN", "seqboard.local.", "pi.fritz.box"):
        assert local_host(ok), ok
    for bad in ("evil.example", "evil.example:8080", "attacker.com.", "x.local.evil.com", ""):
        assert not local_host(bad), bad
    assert local_host("pi.example.org", ("pi.example.org",))


def test_a_pin_typed_in_another_unicode_form_or_a_lone_surrogate(tmp_path):
    session = Session(Referee("classic", 2), mode="referee")
    dash = Dashboard(None, tmp_path, Commands(), pin="e\u0301te1", host="127.0.0.1", port=0)
    dash.attach(session)
    dash.start()
    try:
        port = dash.port
        # a lone surrogate is a clean wrong PIN, not a 500
        status, _, body = request(port, post("/api/login", None, raw=b'{"pin": "\\ud800\\ud800\\ud800\\ud800"}'))
        assert status == 403 and b"wrong PIN" in body
        # the phone sends the accent precomposed: still the owner's PIN
        assert request(port, post("/api/login", {"pin": "\u00e9te1"}))[0] == 200
    finally:
        dash.stop()
    dash = Dashboard(None, tmp_path, Commands(), pin="2468", host="127.0.0.1", port=0)
    dash.attach(session)
    dash.start()
    try:
        # full-width digits from a phone keyboard in a CJK input mode
        assert request(dash.port, post("/api/login", {"pin": "\uff12\uff14\uff16\uff18"}))[0] == 200
    finally:
        dash.stop()


def test_replays_need_no_pin_so_each_record_is_worked_out_once(tmp_path):
    # a replay takes a Pi's CPU for about a second and is open to anyone: a stranger asking
    # for it again and again, 64 at a time, kept that many threads replaying beside the
    # referee. Now one replay runs at a time and each record is replayed once.
    import json as _json
    import threading
    from seqboard.recorder import RecordWriter
    ref = Referee("classic", 2)
    path = tmp_path / "20260101-1200-referee.jsonl"
    session = Session(ref, recorder=RecordWriter(path), mode="referee")
    for name, colour in (("b2", "B"), ("c3", "G"), ("d4", "B")):
        session.observe(ref.expected().replace({ref.layout.parse_space(name): SpaceState(colour)}))
    dash = Dashboard(None, tmp_path, Commands(), pin="2468", host="127.0.0.1", port=0)
    dash.attach(session)
    dash.start()
    get = (f"GET /api/records/{path.name}/replay HTTP/1.1\r\nHost: x\r\n"
           "Connection: close\r\n\r\n").encode()
    try:
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(request(dash.port, get)))
                   for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [a[0] for a in answers] == [200] * 20
        assert len({a[2] for a in answers}) == 1
        first = _json.loads(answers[0][2])["steps"]
        assert [s["text"] for s in first if s["kind"] == "placement"] == [
            "blue places on b2 (5C)", "green places on c3 (2D)", "blue places on d4 (5C)"]
        assert dash.replays_worked_out == 1
        # the game goes on: the record changed, so it is replayed afresh
        session.observe(ref.expected().replace({ref.layout.parse_space("e5"): SpaceState("G")}))
        status, _, body = request(dash.port, get)
        assert status == 200
        again = _json.loads(body)["steps"]
        assert [s["text"] for s in again if s["kind"] == "placement"][-1] .startswith("green places on e5")
        assert dash.replays_worked_out == 2
    finally:
        dash.stop()
