"""What a stranger on the network can no longer do to the dashboard: hold connections open,
exhaust the open files, lock the owner out, or get a traceback into the journal."""

from __future__ import annotations

import json
import logging
import os
import resource
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.referee import Referee
from seqboard.dashboard import Dashboard
from seqboard.dashboard.guard import PinGuard
from seqboard.loop import Commands
from seqboard.session import Session

from ..waiting import wait_until
from .test_bad_requests import Captured, post, request

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def served(tmp_path):
    made = []

    def make(**kw):
        session = Session(Referee("classic", 2), mode="referee")
        dash = Dashboard(None, tmp_path, Commands(), pin="2468", host="127.0.0.1", port=0, **kw)
        dash.attach(session)
        dash.start()
        made.append(dash)
        return dash
    yield make
    for d in made:
        d.stop()


def connect(port: int, src: str) -> socket.socket:
    s = socket.socket()
    s.settimeout(5)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def test_idle_slow_and_half_sent_requests_are_answered_408_and_closed(served):
    dash = served(request_timeout=0.5)
    half_head = connect(dash.port, "127.0.8.1")
    half_head.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    half_body = connect(dash.port, "127.0.8.2")
    half_body.sendall(b"POST /api/login HTTP/1.1\r\nHost: x\r\nX-Seqboard: 1\r\n"
                      b"Content-Length: 100\r\n\r\n{\"pin\"")
    idle = connect(dash.port, "127.0.8.3")
    # a slowloris: one header byte every 0.1 s never finishes the request in time
    slow = connect(dash.port, "127.0.8.4")
    t0 = time.monotonic()
    for ch in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaa":
        try:
            slow.sendall(bytes([ch]))
        except OSError:
            break
        time.sleep(0.1)
        if time.monotonic() - t0 > 2.5:
            break
    for s in (half_head, half_body, idle, slow):
        answer = s.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b'"the request did not arrive in time"' in answer
        assert s.recv(4096) == b""                      # and closed
    assert time.monotonic() - t0 < 4
    assert dash.guard.figures()["timed_out"] == 4 and dash.guard.figures()["http"] == 0
    # a page that asks in time is served as ever
    assert request(dash.port, b"GET /api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")[0] == 200


def test_connections_are_capped_and_a_flood_cannot_keep_the_owner_out(served):
    dash = served(max_connections=100)
    # one address: at most 64 of its connections are held, the oldest waiting one goes first
    one = [connect(dash.port, "127.0.9.1") for _ in range(80)]
    wait_until(lambda: dash.guard.figures()["evicted"] >= 16, timeout=30)
    assert dash.guard.http_by["127.0.9.1"] == 64
    assert one[0].recv(10) == b""                       # the oldest was closed for the newest
    # many addresses: at most 100 in all
    many = [connect(dash.port, f"127.0.10.{1 + k % 50}") for k in range(150)]
    wait_until(lambda: dash.guard.figures()["http"] >= 100, timeout=30)
    assert dash.guard.figures()["http"] <= 100
    # the owner, from yet another address, still gets the page and logs in
    status, _, body = request(dash.port, post("/api/login", {"pin": "2468"}), "127.0.11.1")
    assert status == 200
    status, _, body = request(dash.port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                              "127.0.11.1")
    assert status == 200 and b"<html" in body.lower()
    for s in one + many:
        s.close()


def test_accepted_connections_live_above_descriptor_1024(served):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    dash = served()
    assert dash.limits["open_files"] >= min(8192, hard)       # the soft limit was raised
    c = connect(dash.port, "127.0.12.1")
    assert wait_until(lambda: len(dash.guard.http) == 1, timeout=30)
    (proto,) = list(dash.guard.http)
    fd = proto.transport.get_extra_info("socket").fileno()
    if dash.limits["high_fds"]:
        assert fd >= 1024                  # the low ones stay free for select() (pyserial)
    else:                                  # a hard limit too low to move them: fewer held
        assert dash.limits["connections"] < 4096
    a, b = os.pipe()
    assert a < 1024
    os.close(a), os.close(b)
    c.close()


def test_accept_errors_are_said_once_a_minute_without_a_traceback(tmp_path):
    """Out of open files, asyncio cannot accept: one line, not one traceback a second."""
    script = textwrap.dedent(f"""
        import resource, socket, time, logging, sys
        sys.path.insert(0, {str(ROOT)!r})
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
        from engine.referee import Referee
        from seqboard.session import Session
        from seqboard.loop import Commands
        from seqboard.dashboard import Dashboard
        d = Dashboard(None, {str(tmp_path)!r}, Commands(), pin="1", host="127.0.0.1", port=0)
        d.attach(Session(Referee("classic", 2)))
        d.start()
        hog = []
        try:
            while True:
                hog.append(open("/dev/null"))
        except OSError:
            pass
        for f in hog[-6:]:
            f.close()                       # room for the clients, none for the server
        clients = []
        for _ in range(3):
            c = socket.socket(); c.settimeout(1)
            c.connect(("127.0.0.1", d.port)); clients.append(c)
        time.sleep(3.5)                     # asyncio retries the accept every second
        for f in hog[:20]:
            f.close()
        time.sleep(1.5)
        clients[0].sendall(b"GET /api/state HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
        print("ANSWER", clients[0].recv(20), flush=True)
        d.stop()
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                       check=False)
    assert "ANSWER b'HTTP/1.1 200 OK" in r.stdout, r.stderr
    lines = [x for x in r.stderr.splitlines() if "out of system resource" in x]
    assert len(lines) == 1 and "Too many open files" in lines[0]
    assert "Traceback" not in r.stderr


def test_pin_lockout_is_per_client_and_grows():
    now = [0.0]
    g = PinGuard(clock=lambda: now[0])
    for _ in range(4):
        assert g.failed("stranger") == 0
    assert g.failed("stranger") == 30                      # the fifth: 30 s
    assert g.wait("stranger") == 30 and g.wait("owner") == 0
    now[0] += 30
    for _ in range(4):
        g.failed("stranger")
    assert g.failed("stranger") == 60                      # then 60 s, 120 s ... up to 15 min
    now[0] += 60
    locks = []
    for _ in range(6):
        for _ in range(5):
            lock = g.failed("stranger")
        locks.append(lock)
        now[0] += lock
    assert locks == [120, 240, 480, 900, 900, 900]
    g.succeeded("owner")
    assert g.wait("owner") == 0


def test_a_stranger_guessing_pins_does_not_lock_the_owner_out(served):
    dash = served()
    statuses = [request(dash.port, post("/api/login", {"pin": f"{k:04d}"}), "127.0.13.1")
                for k in range(8)]
    assert [s for s, _, _ in statuses] == [403] * 5 + [429] * 3
    last = json.loads(statuses[-1][2])["error"]
    assert "127.0.13.1" in last and "wait" in last
    assert int(statuses[-1][1]["retry-after"]) <= 30
    # the right PIN from the stranger's address is refused too while locked ...
    assert request(dash.port, post("/api/login", {"pin": "2468"}), "127.0.13.1")[0] == 429
    # ... and the owner, from another address, logs in at once
    assert request(dash.port, post("/api/login", {"pin": "2468"}), "127.0.13.2")[0] == 200


def test_card_pictures_are_served_by_code(served):
    dash = served()
    cards = ROOT / "engine" / "data" / "cards"
    for code, name in (("5H", "heart5.png"), ("TD", "diamond10.png"), ("QS", "spadeQueen.png"),
                       ("AC", "clubAce.png"), ("JH", "heartJack.png"), ("5h", "heart5.png")):
        status, headers, body = request(
            dash.port, f"GET /cards/{code}.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        assert status == 200 and headers["content-type"] == "image/png"
        assert body == (cards / name).read_bytes()
    status, _, body = request(dash.port, b"GET /cards/1X.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status == 404 and "no such card" in json.loads(body)["error"]


def test_a_failure_inside_a_request_is_one_line_and_a_500(tmp_path):
    """A bug (here: a camera whose frame cannot be drawn) answers 500 and logs one line."""
    from starlette.testclient import TestClient

    class BrokenCamera:
        def annotated(self):
            raise ValueError("the frame is 0 x 0")
    log = Captured()
    logging.getLogger("seqboard.dashboard").addHandler(log)
    try:
        dash = Dashboard(None, tmp_path, Commands(), pin="1", source=BrokenCamera())
        with TestClient(dash.app) as client:
            r = client.get("/camera.jpg")
    finally:
        logging.getLogger("seqboard.dashboard").removeHandler(log)
    assert r.status_code == 500 and "internal error" in r.json()["error"]
    (line,) = [log.format(x) for x in log.records]
    assert line == "dashboard: GET /camera.jpg failed: ValueError: the frame is 0 x 0"
    assert not log.tracebacks()


def test_the_service_unit_sets_an_open_files_limit(capsys):
    from seqboard.cli import main as cli
    assert cli(["service", "print", "--mode", "referee", "--user", "pi"]) == 0
    assert "LimitNOFILE=8192" in capsys.readouterr().out.splitlines()


def test_a_stranger_cannot_dodge_the_lockout_with_forwarded_for(served):
    """X-Forwarded-For counts only from a proxy on the Pi itself (127.0.0.1, as for TLS)."""
    dash = served()
    for k in range(7):
        spoof = {"X-Forwarded-For": f"10.0.0.{k}"}
        status = request(dash.port, post("/api/login", {"pin": "0000"}, spoof), "127.0.14.1")[0]
    assert status == 429
    # through the local proxy, each browser is its own client
    for k in range(5):
        request(dash.port, post("/api/login", {"pin": "0000"}, {"X-Forwarded-For": "192.168.1.66"}))
    assert request(dash.port, post("/api/login", {"pin": "2468"},
                                   {"X-Forwarded-For": "192.168.1.66"}))[0] == 429
    assert request(dash.port, post("/api/login", {"pin": "2468"},
                                   {"X-Forwarded-For": "192.168.1.20"}))[0] == 200


def test_a_client_is_an_ipv4_address_or_an_ipv6_64():
    from seqboard.dashboard.guard import client_key
    # one machine can take any address of its /64: the limits count the /64
    assert client_key("2001:db8:1:2::10") == client_key("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert client_key("::ffff:192.168.1.5") == "192.168.1.5" and client_key("::1") == "::1"


def test_the_board_link_opens_and_reads_while_1100_connections_are_held(served):
    """pyserial waits with select(), which cannot watch a descriptor at or above 1024: the
    dashboard's connections keep above it, so the link still opens and reads."""
    import fcntl

    import serial
    dash = served()
    if not dash.limits["high_fds"]:
        pytest.fail(f"the open-files limit {dash.limits['open_files']} is too low for this test")
    held = []
    for k in range(1100):                   # the test's own ends kept high too
        s = socket.socket()
        s.bind((f"127.0.15.{1 + k % 40}", 0))
        s.connect(("127.0.0.1", dash.port))
        fd = fcntl.fcntl(s.fileno(), fcntl.F_DUPFD_CLOEXEC, 4096)
        held.append(socket.socket(fileno=fd))
        s.close()
    # the server accepts them on its own thread: on a busy machine that takes a while
    assert wait_until(lambda: dash.guard.figures()["http"] >= 1100, timeout=60), \
        f"the dashboard holds {dash.guard.figures()['http']} of 1100 connections"
    board, host = os.openpty()
    link = serial.Serial(os.ttyname(host), 115200, timeout=0.2)
    try:
        assert link.fileno() < 1024
        os.write(board, b"HELLO\n")
        assert link.read(6) == b"HELLO\n"
    finally:
        link.close()
        os.close(board), os.close(host)
        for s in held:
            s.close()
