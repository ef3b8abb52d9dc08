"""The HTTP and WebSocket part of the bad-input corpus (issue 21), against the real server.

Every case is sent over a real socket to a dashboard served by uvicorn (as on the Pi),
each from a loopback address of its own. Each must get a clean error reply (a 4xx with a
JSON ``error``, or uvicorn's own 400 for what is not HTTP at all; an ``error`` message on a
WebSocket), must change nothing (the game, the queued actions, the logged-in browsers),
and must leave no traceback in the log. A hypothesis fuzz of the JSON endpoints follows.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.observation import Observation, SpaceState
from engine.referee import Referee
from seqboard.dashboard import MAX_BODY, MAX_DEPTH, WS_MAX_SIZE, Dashboard
from seqboard.loop import Commands
from seqboard.session import Session

PIN = "2468"


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def tracebacks(self) -> list[str]:
        return [self.format(r) for r in self.records
                if r.exc_info or "Traceback" in r.getMessage()]


class Server:
    def __init__(self, tmp) -> None:
        (tmp / "good.jsonl").write_text('{"type":"setup"}\n')
        (tmp.parent / "secret.jsonl").write_text("secret\n")
        self.session = Session(Referee("classic", 2), mode="referee")
        lay = self.session.referee.layout
        obs = Observation.empty(10, 10)
        for name, colour in (("a5", "B"), ("b5", "G"), ("j2", "B")):
            obs = obs.replace({lay.parse_space(name): SpaceState(colour)})
            assert self.session.observe(obs).is_move
        self.commands = Commands()
        self.log = Captured()
        self.loggers = [logging.getLogger(n) for n in ("", "uvicorn", "uvicorn.error", "asyncio",
                                                        "seqboard", "websockets")]
        for lg in self.loggers:
            lg.addHandler(self.log)
        self.thread_errors: list = []
        self._hook = threading.excepthook
        threading.excepthook = lambda args: self.thread_errors.append(args)
        self.dash = Dashboard(None, tmp, self.commands, pin=PIN, host="127.0.0.1", port=0)
        self.dash.attach(self.session)
        self.dash.start()
        self.port = self.dash.port
        status, headers, _ = request(self.port, post("/api/login", {"pin": PIN}), "127.0.4.1")
        assert status == 200
        self.cookie = headers["set-cookie"].split(";")[0]
        self.n = 0

    def snapshot(self):
        return (json.dumps(self.session.view(), sort_keys=True), len(self.session.referee.moves),
                self.commands._q.qsize(), len(self.dash._tokens), self.session.dead_shown)

    def source(self) -> str:
        self.n += 1
        return f"127.0.5.{self.n % 250 + 1}" if self.n < 250 else f"127.0.6.{self.n % 250 + 1}"

    def close(self) -> None:
        self.dash.stop()
        threading.excepthook = self._hook
        for lg in self.loggers:
            lg.removeHandler(self.log)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("records"))
    yield s
    s.close()


def post(path: str, body, headers: dict | None = None, raw: bytes | None = None) -> bytes:
    data = raw if raw is not None else json.dumps(body).encode()
    h = {"Host": "x", "X-Seqboard": "1", "Content-Type": "application/json",
         "Content-Length": str(len(data)), "Connection": "close", **(headers or {})}
    return (f"POST {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items() if v is not None)
            + "\r\n").encode() + data


def request(port: int, data: bytes, src: str = "127.0.0.1", timeout: float = 10.0):
    """Send raw bytes; (status, headers, body) of the answer (status 0: closed unanswered)."""
    with socket.socket() as s:
        s.settimeout(timeout)
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        try:
            s.sendall(data)
        except OSError:
            pass
        buf = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    head, _, body = buf.partition(b"\r\n\r\n")
    if not head:
        return 0, {}, b""
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


# --- the corpus ----------------------------------------------------------------------------
BAD_JSON = [b"{", b"not json", b'{"pin":}', b'{"pin": "1"', b"\xff\xfe{}", b"{'pin': '1'}",
            b'{"pin": "1"}}', b"[1, 2]", b'"text"', b"123", b"null", b"true", b"\x00",
            b'{"pin": NaN}', b'{"a": 1e999999}']
DEEP = ([(b"[" * n + b"]" * n) for n in (MAX_DEPTH + 1, 100, 1000, 2000)]
        + [(b'{"a":' * n + b"1" + b"}" * n) for n in (MAX_DEPTH + 1, 500)]
        + [b'{"action": ' + b"[" * 1500 + b"]" * 1500 + b"}", b"[" * 4000])
WRONG = [1, 1.5, True, None, [], {}, ["undo"], {"a": 1}]


def cases():
    """(id, request bytes, accepted statuses, a word the error names, needs the cookie)."""
    out = []
    for path, cookie in (("/api/login", False), ("/api/action", True), ("/api/calibrate/capture", True)):
        for i, body in enumerate(BAD_JSON):
            out.append((f"badjson-{path}-{i}", path, body, (400,), None, cookie))
        for i, body in enumerate(DEEP):
            out.append((f"deep-{path}-{i}", path, body, (400,), "nested", cookie))
    # wrong types and unknown fields, for every field of every endpoint
    for v in WRONG + ["x" * 65]:
        out.append((f"pin-{v!r:.20}", "/api/login", json.dumps({"pin": v}).encode(), (400,), "pin", False))
    out.append(("pin-missing", "/api/login", b"{}", (400,), "pin", False))
    out.append(("pin-extra", "/api/login", b'{"pin": "1", "admin": true}', (400,), "admin", False))
    for v in WRONG + ["x" * 41, "", "format_disk", "__class__", "_emit", "hint\x00"]:
        out.append((f"action-{v!r:.20}", "/api/action", json.dumps({"action": v}).encode(),
                    (400,), "action", True))
    for v in WRONG + ["x" * 201]:
        out.append((f"cards-{v!r:.20}", "/api/action", json.dumps({"action": "hint", "cards": v}).encode(),
                    (400,), "cards", True))
    out.append(("undo-extra", "/api/action", b'{"action": "undo", "force": true}', (400,), "force", True))
    out.append(("calib-extra", "/api/calibrate/save", b'{"path": "/etc/passwd"}', (400,), "path", True))
    out.append(("calib-step", "/api/calibrate/format", b"{}", (404, 409), None, True))
    return out


CASES = cases()


def header_cases(port: int, cookie: str):
    """Requests wrong in their headers: size, origin, the X-Seqboard header, cookie."""
    out = []
    body = json.dumps({"action": "undo"}).encode()
    for origin in ("http://evil.example", "null", "http://x.evil", "file://", "https://x:1"):
        out.append((f"origin-{origin}", post("/api/action", None, {"Origin": origin, "Cookie": cookie}, body), (403,)))
        out.append((f"origin-login-{origin}", post("/api/login", {"pin": PIN}, {"Origin": origin}), (403,)))
    for xs in (None, "0", "true", ""):
        out.append((f"xseq-{xs}", post("/api/action", None, {"X-Seqboard": xs, "Cookie": cookie}, body), (403,)))
    for c in ("seqboard=forged", "seqboard=", "other=1", "seqboard=" + "A" * 3000):
        out.append((f"cookie-{c[:20]}", post("/api/action", None, {"Cookie": c}, body), (401,)))
    out.append(("no-cookie", post("/api/action", {"action": "undo"}), (401,)))
    big = b'{"pin": "' + b"1" * (MAX_BODY + 10) + b'"}'
    out.append(("over-4k", post("/api/login", None, None, big), (413,)))
    out.append(("huge-length", post("/api/login", None, {"Content-Length": "1000000000"}, b"{}"), (413,)))
    out.append(("bad-length", post("/api/login", None, {"Content-Length": "abc"}, b"{}"), (400, 413)))
    out.append(("neg-length", post("/api/login", None, {"Content-Length": "-1"}, b"{}"), (400, 413)))
    chunked = (b"POST /api/login HTTP/1.1\r\nHost: x\r\nX-Seqboard: 1\r\nTransfer-Encoding: chunked\r\n"
               b"Connection: close\r\n\r\n" + b"".join(b"1000\r\n" + b"{" * 4096 + b"\r\n" for _ in range(30))
               + b"0\r\n\r\n")
    out.append(("chunked-120k", chunked, (413,)))
    return out


METHODS = [(m, p) for m in ("GET", "PUT", "DELETE", "PATCH") for p in ("/api/login", "/api/action")] + \
    [(m, p) for m in ("POST", "PUT", "DELETE") for p in ("/api/state", "/", "/api/records", "/records/good.jsonl")] + \
    [("OPTIONS", "/api/action"), ("TRACE", "/"), ("FOO", "/api/state")]

PATHS = ["/records/..%2Fsecret.jsonl", "/records/../secret.jsonl", "/records/%2e%2e/secret.jsonl",
         "/records/secret", "/records/%252e%252e%252fsecret.jsonl", "/records/good.jsonl%00.txt",
         "/api/records/..%2Fsecret.jsonl/replay", "/api/records/nope.jsonl/replay",
         "/static/..%2F__init__.py", "/static/index.html%00.js", "/static/../../../etc/passwd",
         "/static/guard.py", "/cards/..%2F..%2Fgame.py.png", "/cards/ZZ.png", "/cards/5H.png.png",
         "/cards/JW.png", "/cards/%35H%00.png", "/nope", "/api/nope", "/" + "a" * 5000,
         "/api/calibrate/..%2Fsave", "//etc/passwd", "/records/" + "x" * 200 + ".jsonl"]

GARBAGE = [b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40, b"GET\r\n\r\n",
           b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
           b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: " + b"a" * 20000 + b"\r\n\r\n",
           b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(3000)) + b"\r\n",
           b"\r\n\r\n\r\n", b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
           b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"]


def check_unchanged(server: Server, before) -> None:
    assert server.snapshot() == before
    assert not server.log.tracebacks(), server.log.tracebacks()
    assert not server.thread_errors


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_json_bodies_get_a_clean_4xx_and_change_nothing(server, case):
    _, path, body, statuses, word, cookie = case
    before = server.snapshot()
    headers = {"Cookie": server.cookie} if cookie else {}
    status, _, raw = request(server.port, post(path, None, headers, body), server.source())
    assert status in statuses
    error = json.loads(raw)["error"]
    assert error and "\n" not in error
    if word:
        assert word in error
    check_unchanged(server, before)


def test_bad_headers_origins_cookies_and_sizes(server):
    for name, data, statuses in header_cases(server.port, server.cookie):
        before = server.snapshot()
        status, h, raw = request(server.port, data, server.source())
        assert status in statuses, name
        assert json.loads(raw)["error"] if h.get("content-type") == "application/json" else status == 400
        check_unchanged(server, before)


@pytest.mark.parametrize("method,path", METHODS)
def test_wrong_methods_get_405(server, method, path):
    before = server.snapshot()
    body = b"{}"
    data = (f"{method} {path} HTTP/1.1\r\nHost: x\r\nX-Seqboard: 1\r\nCookie: {server.cookie}\r\n"
            f"Content-Length: 2\r\nConnection: close\r\n\r\n").encode() + body
    status, _, raw = request(server.port, data, server.source())
    assert status == 405 and "not allowed" in json.loads(raw)["error"]
    check_unchanged(server, before)


@pytest.mark.parametrize("path", PATHS)
def test_path_tricks_reach_nothing(server, path):
    before = server.snapshot()
    data = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    status, _, raw = request(server.port, data, server.source())
    assert status in (400, 404), path
    assert b"secret" not in raw and b"import" not in raw
    check_unchanged(server, before)


@pytest.mark.parametrize("data", GARBAGE, ids=range(len(GARBAGE)))
def test_what_is_not_http_gets_400_or_is_closed(server, data):
    before = server.snapshot()
    status, _, _ = request(server.port, data, server.source())
    assert status in (0, 400, 413, 431)
    check_unchanged(server, before)


@pytest.mark.parametrize("sent", [b"{", b'{"pin": "24', b'{"action": "undo"'])
def test_a_body_cut_short_by_the_client_leaves_no_trace(server, sent):
    """The client announces 100 bytes, sends a few and hangs up (ClientDisconnect)."""
    before = server.snapshot()
    for path in ("/api/login", "/api/action"):
        head = post(path, None, {"Cookie": server.cookie, "Content-Length": "100"}, b"")
        with socket.socket() as s:
            s.bind((server.source(), 0))
            s.connect(("127.0.0.1", server.port))
            s.sendall(head + sent)
            time.sleep(0.05)
    time.sleep(0.3)                          # the server notices and gives up on them
    assert server.dash.guard.figures()["http"] == 0
    check_unchanged(server, before)


# --- WebSocket -----------------------------------------------------------------------------
WS_TEXT = (["not json", "", "[]", "[1, 2]", '"ping"', "null", "{}", '{"type": 1}', '{"type": null}',
            '{"type": ["ping"]}', '{"type": "delete everything"}', '{"type": "x' + "y" * 3000 + '"}',
            "x" * (MAX_BODY + 10), "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")]
           + ["[" * n + "]" * n for n in (MAX_DEPTH + 1, 1000, 2000)]
           + ['{"type": "ping", "t": ' + "[" * 1000 + "]" * 1000 + "}",
              '{"type": "ping", "t": ' + "[" * 10 + "]" * 10 + "}"])


def ws_connect(server: Server, origin: str | None = None):
    from websockets.sync.client import connect
    headers = {"Origin": origin} if origin else None
    return connect(f"ws://127.0.0.1:{server.port}/ws", additional_headers=headers,
                   origin=None, open_timeout=5, close_timeout=1, max_size=2**22)


def test_websocket_garbage_gets_an_error_reply_and_the_socket_stays(server):
    before = server.snapshot()
    with ws_connect(server) as ws:
        assert json.loads(ws.recv(5))["type"] == "state"
        for text in WS_TEXT:
            ws.send(text)
            reply = json.loads(ws.recv(5))
            if text.startswith('{"type": "ping"') and len(text) < 100:
                assert reply == {"type": "pong", "t": None}      # a "t" that is no number: dropped
            else:
                assert reply["type"] == "error" and reply["error"], text[:40]
        for data in (b"\x00\xff", b"{}", b"\x89\x00"):
            ws.send(data)
            assert "not binary" in json.loads(ws.recv(5))["error"]
        ws.send(json.dumps({"type": "ping", "t": 7}))
        assert json.loads(ws.recv(5)) == {"type": "pong", "t": 7}       # still there
    check_unchanged(server, before)


def test_nested_json_over_the_websocket_gets_the_promised_error(server):
    with ws_connect(server) as ws:
        ws.recv(5)
        ws.send("[" * 2000 + "]" * 2000)
        reply = json.loads(ws.recv(5))
        assert reply["type"] == "error" and "nested deeper" in reply["error"]


def test_an_oversized_websocket_message_closes_with_1009(server):
    from websockets.exceptions import ConnectionClosed
    before = server.snapshot()
    with ws_connect(server) as ws:
        ws.recv(5)
        ws.send("x" * (WS_MAX_SIZE + 1))
        with pytest.raises(ConnectionClosed) as info:
            while True:
                ws.recv(5)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1009
    check_unchanged(server, before)


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example",
                                    "https://attacker:8080", "file://"])
def test_the_websocket_refuses_other_origins(server, origin):
    from websockets.exceptions import InvalidStatus
    with pytest.raises(InvalidStatus) as info:
        ws_connect(server, origin)
    assert info.value.response.status_code == 403
    with ws_connect(server, f"http://127.0.0.1:{server.port}") as ws:     # its own page
        assert json.loads(ws.recv(5))["type"] == "state"
    assert not server.log.tracebacks()


def test_a_websocket_that_floods_messages_is_slowed_then_closed(server):
    from websockets.exceptions import ConnectionClosed
    with ws_connect(server) as ws:
        ws.recv(5)
        replies: list[dict] = []
        closed = threading.Event()

        def read() -> None:                 # read while sending: the server may close mid-flood
            try:
                while True:
                    replies.append(json.loads(ws.recv(10)))
            except (ConnectionClosed, TimeoutError):
                pass
            closed.set()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            for _ in range(600):
                ws.send('{"type": "ping"}')
        except ConnectionClosed:            # closed before all 600 went: that is the point
            pass
        reader.join(30)
    kinds = [r["type"] for r in replies]
    assert closed.is_set()
    assert 1 <= kinds.count("pong") <= 80
    assert any("too many messages" in r.get("error", "") for r in replies)
    assert not server.log.tracebacks()


# --- fuzz ------------------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20)
bodies = st.one_of(json_values, st.dictionaries(st.sampled_from(["pin", "action", "cards", "type", "t"]),
                                               json_values, max_size=3))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(["/api/login", "/api/action", "/api/calibrate/capture"]), body=bodies)
def test_fuzz_json_endpoints_answer_4xx_and_change_nothing(server, path, body):
    if path == "/api/login" and isinstance(body, dict) and isinstance(body.get("pin"), str) \
            and set(body) == {"pin"}:
        body = {"pin": body["pin"], "extra": 1}          # no wrong-PIN lockouts from the fuzz
    if path == "/api/action" and isinstance(body, dict) and isinstance(body.get("action"), str) \
            and body["action"] in ("confirm", "undo", "lost_draw", "toggle_dead", "show_move", "hint") \
            and set(body) <= {"action", "cards"}:
        body = {**body, "extra": 1}                       # a valid action would act
    before = server.snapshot()
    status, _, raw = request(server.port, post(path, body, {"Cookie": server.cookie}), server.source())
    assert 400 <= status < 500 and json.loads(raw)["error"]
    check_unchanged(server, before)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(message=st.one_of(bodies.map(json.dumps), st.text(max_size=200), st.binary(max_size=200)))
def test_fuzz_websocket_messages_get_a_reply(server, message):
    with ws_connect(server) as ws:
        ws.recv(5)
        ws.send(message)
        reply = json.loads(ws.recv(5))
        assert reply["type"] in ("error", "pong")
    assert not server.log.tracebacks()
