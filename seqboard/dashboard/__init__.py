"""The live dashboard: the board, every verdict and the controls in any browser on the LAN.

One more indicator: it subscribes to the session's events like the LEDs and the terminal,
and owns no game logic. Starlette on uvicorn, in a thread of its own with its own event
loop; the main loop only ever hands it a message (``call_soon_threadsafe``), so a slow or
vanished browser never blocks the game. Every asset ships in the package.

Safety on a shared network (docs/dashboard.md, "Security"):

* looking is open; acting needs the PIN (printed at start, or ``[dashboard] pin``),
  exchanged once for an HttpOnly, SameSite=Strict cookie; five wrong PINs lock that client
  address (and no other) for 30 s, doubling at each further lockout;
* every action is a JSON POST carrying the ``X-Seqboard`` header, from the same origin, and
  the WebSocket refuses other origins: a page on another site can do neither;
* hints (the cards a player typed) go only to the browser that asked, in the answer to
  its request; they are never in the state every viewer gets;
* records are served by name from the records folder only, never by path;
* bodies over 4 KiB, JSON nested deeper than 16, wrong types and unknown fields or actions
  get a clear 4xx and change nothing; WebSocket messages likewise get an ``error`` reply;
* connections are timed out and capped (:mod:`seqboard.dashboard.guard`), and no request
  gives a traceback in the journal.

Example::

    dash = Dashboard(cfg.section("dashboard"), records_dir, commands, pin="2468", port=8080)
    dash.attach(session)
    print(dash.start())          # http://192.168.1.20:8080/
    ...
    dash.stop()
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import secrets
import socket
import unicodedata
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine
from engine.cards import picture_file

from .. import i18n

from .guard import (
    local_host,
    LOW_FDS,
    RESERVE_FDS,
    ConnectionGuard,
    HighFdSocket,
    JSONLimitError,
    PinGuard,
    QuietLog,
    client_key,
    loads_limited,
    protocols,
    raise_open_files,
)

STATIC = Path(__file__).resolve().parent / "static"
CARDS = Path(engine.__file__).resolve().parent / "data" / "cards"
MAX_BODY = 4096                # bytes in a request body or a WebSocket message we read
MAX_DEPTH = 16                 # JSON nesting in either
WS_MAX_SIZE = 65536            # a WebSocket message over this closes the socket (1009)
QUEUE = 64                     # messages a slow browser may fall behind before it skips
RECORD_NAME = re.compile(r"^[\w.-]{1,120}\.jsonl$")
CARD_CODE = re.compile(r"[2-9TJQKA][SHDC]")
ACTIONS = ("confirm", "undo", "lost_draw", "toggle_dead", "show_move", "take_board",
           "refuse_undo")
#: fields an action may carry besides "action" (anything else is refused by name)
ACTION_FIELDS: dict[str, dict[str, int]] = {"hint": {"cards": 200}, "five": {"five": 80},
                                           "card": {"card": 40}, "remote_join": {"code": 40}}
#: actions whose answer (a JSON object from the main loop) goes back to the asking page only:
#: remote play created or joined from the page (the join code is for whoever has the PIN)
ANSWERED = ("remote_create", "remote_join")
OPEN_FILES = 8192              # soft RLIMIT_NOFILE asked for at start (the unit sets this)
MAX_CONNECTIONS = 4096         # HTTP connections held at once (fewer when files are short)
MAX_WEBSOCKETS = 256
PER_CLIENT_CONNECTIONS = 64    # HTTP connections of one client address
PER_CLIENT_WEBSOCKETS = 16
REQUEST_TIMEOUT = 10.0         # seconds for a whole request (headers and body) to arrive
KEEP_ALIVE = 5                 # seconds an idle kept-alive connection stays open
HINT_WAIT = 60.0               # seconds a hint request waits for the main loop's answer
MAX_RECORD_REPLAY = 32 * 1024 * 1024
REPLAY_CACHE_BYTES = 16 * 1024 * 1024      # replays kept to answer again without working
WS_RATE = 20.0                 # messages a second a page may send (bursts of 2 s)
TOKENS = 256                   # browsers logged in at once (the oldest is forgotten)

log = logging.getLogger("seqboard.dashboard")


def _lan_address() -> str:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))          # no packet is sent
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def _kind(value) -> str:
    """A JSON value's kind in words, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _same_origin(headers, any_host: bool = False) -> bool:
    """No Origin (not a browser), or the Origin is the page's own host; and that host a
    name only the local network resolves (:func:`guard.local_host`), unless ``any_host``
    (the server listens on loopback only: a proxy in front answers for the names)."""
    origin = headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1] != headers.get("host"):
        return False
    return any_host or local_host(headers.get("host"), _own_names())


def pin_bytes(text: str) -> bytes:
    """A PIN as compared: spaces around it dropped, Unicode in its compatibility form
    (NFKC: a phone's full-width digits "１２３４" are 1234, an accent typed as a combining
    mark is the accented letter); a lone surrogate from JSON kept apart, never an error."""
    return unicodedata.normalize("NFKC", text.strip()).encode("utf-8", "surrogatepass")


def _own_names() -> tuple[str, ...]:
    """The machine's own host names (lower case), looked up once."""
    global _OWN_NAMES
    if _OWN_NAMES is None:
        names = {socket.gethostname().lower()}
        try:
            names.add(socket.getfqdn().lower())
        except OSError:
            pass
        _OWN_NAMES = tuple(n.rstrip(".") for n in names if n)
    return _OWN_NAMES


_OWN_NAMES: tuple[str, ...] | None = None


def page_words(texts) -> dict:
    """The template and parameters of each English sentence (seqboard.i18n), for the page."""
    return {t: i18n.words(t) for t in texts if t}


def public_view(view: dict) -> dict:
    """The view every viewer gets: without hints, which hold the cards a player typed."""
    if not view.get("hints") and not any(line.get("kind") == "hint" for line in view.get("log", ())):
        return view
    v = dict(view)
    v["hints"] = []
    v["log"] = [line for line in view.get("log", ()) if line.get("kind") != "hint"]
    return v


class Dashboard:
    def __init__(self, cfg: dict | None, records_dir: Path, commands, *, pin: str | None = None,
                 host: str = "0.0.0.0", port: int = 8080, source=None,
                 actions: dict[str, Callable[[], Any]] | None = None, calibrator=None,
                 max_connections: int = MAX_CONNECTIONS, max_websockets: int = MAX_WEBSOCKETS,
                 request_timeout: float = REQUEST_TIMEOUT, voice: bool = False,
                 setup: bool = False) -> None:
        self.records_dir = Path(records_dir)
        self.voice = voice          # ui.voice: the page speaks unless its viewer turns it off
        self.stacks_seats: list[str] = []       # SEQUENCE STACKS: "person" or a level per seat
        self.commands = commands
        self.pin = pin or f"{secrets.randbelow(10**6):06d}"
        self.host, self.port = host, port
        #: listening on loopback only: a proxy in front answers for the names (TLS)
        self.loopback_only = host in ("127.0.0.1", "::1", "localhost")
        self.source = source
        self.extra_actions = actions or {}
        self.calibrator = calibrator
        #: the page's own address, shown as a QR code on the page (``seqboard setup``)
        self.qr_url: str | None = None
        #: ``seqboard setup``: takes an answer typed on the page; False if none is awaited
        self.setup_answer: Callable[[str], bool] | None = None
        self.session = None
        self.max_connections, self.max_websockets = max_connections, max_websockets
        self.request_timeout = request_timeout
        self._clients: set[_Viewer] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._state = "{}"
        self._seq = 0
        self.direct_writes = 0          # states written straight to a browser's connection
        self._tokens: dict[str, float] = {}           # cookie -> when it expires (monotonic)
        #: replays answered, by (name, size, mtime): a replay costs a second of a Pi's CPU
        #: and needs no PIN, so each record is replayed once, one at a time
        self._replays: OrderedDict[tuple, bytes] = OrderedDict()
        self._replay_lock: tuple | None = None         # (its event loop, the lock)
        self.replays_worked_out = 0
        self.pins = PinGuard()
        self._hint_busy = False
        self._frame: tuple[float, bytes] | None = None
        self._server = None
        self._thread: threading.Thread | None = None
        self._filters: list[tuple[logging.Logger, logging.Filter]] = []
        self.guard: ConnectionGuard | None = None
        self.limits: dict = {}
        self.app = _Shield(self._build())
        if calibrator is not None:
            self._state = json.dumps({"type": "state", "mode": "calibrate", "seq": 0,
                                      "sent": time.time(), "camera": self.has_camera(),
                                      "calibration": {"step": "ready"},
                                      "language": i18n.configured()})
        if setup:
            self._state = json.dumps({"type": "state", "mode": "setup", "seq": 0,
                                      "sent": time.time(), "setup": {"steps": [], "done": []},
                                      "language": i18n.configured()})

    # --- the indicator side (main loop's thread) -------------------------------------------
    def attach(self, session) -> None:
        self.session = session
        session.subscribe(self)

    def __call__(self, event, view: dict) -> None:
        self._seq += 1
        obs = getattr(self.session, "last_observation", None)
        # a hint's spaces would show every viewer where the asker's cards go
        spaces = [] if event.kind == "hint" else list(event.spaces)
        msg = json.dumps({
            "type": "state", "seq": self._seq, "sent": time.time(),
            "event": {"kind": event.kind, "text": event.text, "spaces": spaces,
                      "new_sequences": getattr(event.verdict, "new_sequences", 0) or 0,
                      # the referee's notice that it has long waited (the page says it)
                      "stall": bool(event.data.get("stall"))},
            "view": public_view(view),
            # the page asks for /camera.jpg only when there is a camera to show
            "camera": self.has_camera(), "voice": self.voice,
            "observed": None if obs is None else [s.value for s in obs.states],
            # the page says the sentences in its viewer's language (seqboard/i18n): their
            # templates and parameters; older lines of the log come from /api/words
            "language": i18n.configured(),
            "words": page_words([event.text] + [line["text"] for line in view["log"][-3:]]
                                + [(view.get("warning") or {}).get("text"),
                                   (view.get("stall") or {}).get("text"),
                                   (view.get("proposal") or {}).get("text"),
                                   view.get("source_problem")]),
        }, separators=(",", ":"))
        self._publish(msg)

    def has_camera(self) -> bool:
        return self.source is not None and hasattr(self.source, "annotated")

    def stacks(self, kind: str, game, text: str) -> None:
        """A :class:`~seqboard.modes.stacks.StacksTable` listener: SEQUENCE STACKS live."""
        self._seq += 1
        self._publish(json.dumps({
            "type": "state", "mode": "stacks", "seq": self._seq, "sent": time.time(),
            "event": {"kind": kind, "text": text}, "stacks": game.view(), "log": game.log[-40:],
            # who sits where ("person" or the Pi's level): the page marks the Pi's seats
            "seats": list(self.stacks_seats),
            "language": i18n.configured(),
            "words": page_words(game.log[-40:] + [text, game.result or ""]),
        }, separators=(",", ":")))

    def setup_state(self, setup: dict) -> None:
        """``seqboard setup``: where the guide is (its steps, the camera, the QR code)."""
        self._seq += 1
        self._publish(json.dumps({"type": "state", "mode": "setup", "seq": self._seq,
                                  "sent": time.time(), "setup": setup,
                                  "camera": self.has_camera(), "language": i18n.configured()},
                                 separators=(",", ":")))

    def _publish(self, msg: str) -> None:
        self._state = msg
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._fanout, msg)
            except RuntimeError:      # the loop is shutting down
                pass

    def _fanout(self, msg: str) -> None:
        """One state to every browser. Encoded and framed once: a browser that keeps up
        gets the frame written straight to its connection (no task woken, nothing copied);
        one that does not (its connection's buffer full, or a send of its own under way)
        gets it through its queue, which keeps only the newest when it falls behind."""
        frame = None
        for v in list(self._clients):
            if v.direct():
                if frame is None:
                    frame = _text_frame(msg)
                v.proto.transport.write(frame)
                self.direct_writes += 1
                continue
            q = v.q
            if q.full():
                # a slow browser: drop what it has not read, the newest state is enough
                while not q.empty():
                    q.get_nowait()
            q.put_nowait(msg)

    # --- the web side (its own thread) ------------------------------------------------------
    def _build(self):
        from starlette.applications import Starlette
        from starlette.exceptions import HTTPException
        from starlette.middleware import Middleware
        from starlette.requests import ClientDisconnect, Request
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Route, WebSocketRoute
        from starlette.websockets import WebSocket, WebSocketDisconnect

        dash = self

        def error(status: int, text: str, headers: dict | None = None) -> JSONResponse:
            return JSONResponse({"error": text}, status_code=status, headers=headers)

        class LimitBody:
            """Refuse a body announced over MAX_BODY before it is read (413)."""

            def __init__(self, app):
                self.app = app

            async def __call__(self, scope, receive, send):
                if scope["type"] == "http":
                    length = None
                    for k, v in scope.get("headers") or ():
                        if k == b"content-length":
                            length = v
                    too_big = False
                    try:
                        too_big = length is not None and int(length) > MAX_BODY
                    except ValueError:
                        too_big = True
                    if too_big:
                        await error(413, f"request body over {MAX_BODY} bytes")(scope, receive, send)
                        return
                await self.app(scope, receive, send)

        async def http_error(request: Request, exc: HTTPException):
            text = {404: "no such page", 405: f"{request.method} is not allowed here"}.get(
                exc.status_code, str(exc.detail))
            return error(exc.status_code, text)

        async def internal(request: Request, exc: Exception):
            # the answer; Starlette then raises it again and _Shield logs it in one line
            return error(500, "internal error (see the journal)")

        async def index(request: Request):
            return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

        async def static(request: Request):
            name = request.path_params["name"]
            if name not in ("app.js", "style.css"):
                return error(404, "no such file")
            return FileResponse(STATIC / name)

        async def card(request: Request):
            code = request.path_params["code"].upper()
            if not CARD_CODE.fullmatch(code):
                return error(404, "no such card (a code like 5H, TD, QS)")
            path = CARDS / picture_file(code)
            if not path.is_file():
                return error(404, "no such card")
            return FileResponse(path, media_type="image/png",
                                headers={"Cache-Control": "max-age=86400"})

        async def words(request: Request):
            view = public_view(dash.session.view()) if dash.session is not None else {}
            texts = [line["text"] for line in view.get("log", ())]
            texts += [(view.get("warning") or {}).get("text"),
                      (view.get("proposal") or {}).get("text"), view.get("source_problem")]
            texts += [h.get("reason") for h in view.get("hints") or ()]
            return JSONResponse({"words": page_words(texts)}, headers={"Cache-Control": "no-store"})

        async def catalog(request: Request):
            lang = i18n.supported(request.path_params["lang"])
            if lang is None:
                return error(404, f"no such language (one of {', '.join(i18n.LANGUAGES)})")
            messages = await asyncio.to_thread(i18n.catalog_json, lang)
            return JSONResponse({"language": lang, "messages": messages},
                                headers={"Cache-Control": "max-age=3600"})

        async def state(request: Request):
            return Response(dash._state, media_type="application/json",
                            headers={"Cache-Control": "no-store"})

        async def read_json(request: Request) -> dict | JSONResponse:
            if request.headers.get("x-seqboard") != "1":
                return error(403, "missing the X-Seqboard header (requests from the page only)")
            if not _same_origin(request.headers, dash.loopback_only):
                host = (request.headers.get("host") or "")[:80]
                if request.headers.get("origin", "").split("://", 1)[-1] == host:
                    return error(403, f"the page was opened as {host!r}, a name outside the "
                                      "local network: open it by the Pi's address or NAME.local")
                return error(403, "cross-site request refused")
            body = bytearray()
            try:
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > MAX_BODY:
                        return error(413, f"request body over {MAX_BODY} bytes")
            except ClientDisconnect:
                return error(400, "the request ended before its body")   # nobody reads it
            try:
                data = loads_limited(bytes(body) or b"{}", MAX_DEPTH)
            except JSONLimitError as exc:
                return error(400, f"the body is {exc}")
            except ValueError:
                return error(400, "the body is not JSON")
            if not isinstance(data, dict):
                return error(400, f"the body must be a JSON object, not {_kind(data)}")
            return data

        def fields(data: dict, allowed: dict[str, int], required: tuple[str, ...] = ()):
            """None when every field is known, a text of at most its length; else the 400."""
            for key in required:
                if key not in data:
                    return error(400, f"{key}: missing")
            for key, value in data.items():
                if key not in allowed:
                    return error(400, f"{key[:40]!r}: unknown field (known: {', '.join(allowed)})")
                if not isinstance(value, str):
                    return error(400, f"{key}: must be a text, not {_kind(value)}")
                if len(value) > allowed[key]:
                    return error(400, f"{key}: longer than {allowed[key]} characters")
            return None

        def client(request: Request) -> str:
            return client_key(request.client.host if request.client else None)

        async def login(request: Request):
            data = await read_json(request)
            if isinstance(data, Response):
                return data
            who = client(request)
            wait = dash.pins.wait(who)
            if wait > 0:
                return error(429, f"too many wrong PINs from {who}: wait {math.ceil(wait)} seconds",
                             {"Retry-After": str(math.ceil(wait))})
            bad = fields(data, {"pin": 64}, ("pin",))
            if bad is not None:
                return bad
            if not secrets.compare_digest(pin_bytes(data["pin"]), pin_bytes(dash.pin)):
                locked = dash.pins.failed(who)
                text = "wrong PIN" + (f": {who} must now wait {math.ceil(locked)} seconds"
                                      if locked else "")
                return error(403, text)
            dash.pins.succeeded(who)
            token = secrets.token_urlsafe(24)
            now = time.monotonic()
            for t, until in list(dash._tokens.items()):
                if until < now:
                    del dash._tokens[t]
            while len(dash._tokens) >= TOKENS:
                del dash._tokens[next(iter(dash._tokens))]
            dash._tokens[token] = now + 12 * 3600
            resp = JSONResponse({"ok": True})
            resp.set_cookie("seqboard", token, httponly=True, samesite="strict", max_age=12 * 3600,
                            secure=request.url.scheme == "https")        # behind a TLS proxy
            return resp

        def logged_in(request: Request) -> bool:
            until = dash._tokens.get(request.cookies.get("seqboard") or "")
            return until is not None and until > time.monotonic()

        async def acting(request: Request) -> dict | JSONResponse:
            """The request's JSON, from a page that was given the PIN; or the refusal."""
            data = await read_json(request)
            if isinstance(data, Response):
                return data
            if not logged_in(request):
                return error(401, "enter the PIN shown on the terminal to act")
            return data

        async def action(request: Request):
            data = await acting(request)
            if isinstance(data, Response):
                return data
            name = data.get("action")
            if not isinstance(name, str):
                return error(400, "action: missing" if name is None else
                             f"action: must be a text like \"undo\", not {_kind(name)}")
            known = name in ("hint", "five", "card") or name in ACTIONS or name in ANSWERED \
                or name in dash.extra_actions
            if not known:
                return error(400, f"unknown action {name[:40]!r}")
            bad = fields(data, {"action": 40, **ACTION_FIELDS.get(name, {})})
            if bad is not None:
                return bad
            if name == "hint":
                if dash.session is None or dash.commands is None:
                    return error(409, "hint is not available now")
                return await hint(data)
            if name == "five":
                if dash.session is None or dash.commands is None:
                    return error(409, "five is not available now")
                return await five(data)
            if name == "card":
                # the card the player to move laid, tapped on the page (docs/cards.md)
                from engine.errors import EngineError
                s = dash.session
                if s is None or dash.commands is None:
                    return error(409, "card is not available now")
                try:
                    card = s.parse_card(str(data.get("card") or "").strip() or "(none)")
                except EngineError as exc:
                    return error(400, f"card: {exc}")
                dash.commands.call(lambda: s.lay_card(card, None, via="page"))
                return JSONResponse({"ok": True, "action": name, "card": card})
            if name in ANSWERED:
                fn = dash.extra_actions.get(name)
                if fn is None or dash.commands is None:
                    return error(409, f"{name} is not available now (remote play starts from "
                                      "`seqboard play` or `seqboard referee`)")
                return await answered(lambda: fn(**{k: v for k, v in data.items()
                                                     if k != "action"}))
            fn = dash._action(name) if dash.commands is not None else None
            if fn is None:
                return error(409, f"{name} is not available now")
            dash.commands.call(fn)
            return JSONResponse({"ok": True, "action": name})

        async def hint(data: dict):
            """Hints for the player to move, from the cards they typed (or the engine's own
            hand in the demo). Worked out by the main loop; the answer goes to this request
            only, never to the other viewers."""
            from engine.errors import EngineError
            s = dash.session
            if dash._hint_busy:
                return error(409, "a hint is being worked out: wait for it")
            try:
                cards = s.hint_hand(data.get("cards") or "")
            except EngineError as exc:
                return error(400, str(exc))
            loop = asyncio.get_running_loop()
            done: asyncio.Future = loop.create_future()

            def settle(result):
                dash._hint_busy = False
                if not done.done():
                    done.set_result(result)

            def work():
                try:
                    result = {"hints": s.hint(cards, private=True), "move_number": s.hints_at}
                    result["words"] = page_words([h["reason"] for h in result["hints"]]
                                                 + [h["move"] for h in result["hints"]])
                except EngineError as exc:
                    result = {"error": str(exc)}
                except Exception as exc:            # a bug: one line, the page gets a 500
                    log.error("dashboard: hint failed: %s: %s", type(exc).__name__, exc)
                    result = {"error": "the hint failed", "status": 500}
                try:
                    loop.call_soon_threadsafe(settle, result)
                except RuntimeError:               # the server stopped meanwhile
                    dash._hint_busy = False
            dash._hint_busy = True
            dash.commands.call(work)
            try:
                result = await asyncio.wait_for(asyncio.shield(done), HINT_WAIT)
            except TimeoutError:
                return error(503, "the referee did not answer in time: try again")
            if "error" in result:
                return error(result.get("status", 400), result["error"])
            return JSONResponse({"ok": True, "action": "hint", **result},
                                headers={"Cache-Control": "no-store"})

        async def in_main_loop(work: Callable[[], dict]) -> dict:
            """``work()`` run by the main loop (which owns the session); its answer."""
            loop = asyncio.get_running_loop()
            done: asyncio.Future = loop.create_future()

            def run():
                try:
                    result = work()
                except Exception as exc:            # a bug: one line, the page gets a 500
                    log.error("dashboard: %s: %s", type(exc).__name__, exc)
                    result = {"error": "the action failed", "status": 500}
                try:
                    loop.call_soon_threadsafe(lambda: done.done() or done.set_result(result))
                except RuntimeError:               # the server stopped meanwhile
                    pass
            dash.commands.call(run)
            try:
                return await asyncio.wait_for(asyncio.shield(done), HINT_WAIT)
            except TimeoutError:
                return {"error": "the referee did not answer in time: try again", "status": 503}

        async def five(data: dict):
            """The team that just made a sequence on a longer line names its five ("c4-g4";
            two sequences at once: "a1-a5 a6-a10"), as the terminal's key f does."""
            from engine.board import parse_five
            from engine.errors import EngineError
            text = data.get("five")
            if not isinstance(text, str) or not text.strip():
                return error(400, "five: name the five, e.g. \"c4-g4\"")
            s = dash.session

            def work() -> dict:
                lay = s.referee.layout
                try:
                    chosen = tuple(parse_five(w, lay.rows, lay.cols) for w in text.split())
                    v = s.choose_five(chosen)
                except (EngineError, ValueError) as exc:
                    return {"error": f"five: {exc}"}
                return {"text": v.message}
            result = await in_main_loop(work)
            if "error" in result:
                return error(result.get("status", 400), result["error"])
            return JSONResponse({"ok": True, "action": "five", **result})

        async def answered(work_fn):
            """Run ``work_fn`` on the main loop; its dict is the answer to this request."""
            result = await in_main_loop(work_fn)
            if "error" in result:
                return error(result.get("status", 409), result["error"])
            return JSONResponse({"ok": True, **result}, headers={"Cache-Control": "no-store"})

        async def calibrate_step(request: Request):
            data = await acting(request)
            if isinstance(data, Response):
                return data
            step = request.path_params["step"]
            allowed = {"pile": {"seat": 2, "x": 12, "y": 12}, "word": {"word": 6}}
            bad = fields(data, allowed.get(step, {}),
                         {"pile": ("seat",), "word": ("word",)}.get(step, ()))
            if bad is not None:
                return bad
            cal = dash.calibrator
            if cal is None:
                return error(409, "not calibrating: start `seqboard calibrate --serve`")
            if step not in ("capture", "save", "pile", "word"):
                return error(404, "no such step")

            def answered(done: str, result: dict) -> JSONResponse:
                # what the step did, to every page watching, and to the one that asked
                dash._seq += 1
                dash._publish(json.dumps({"type": "state", "mode": "calibrate",
                                          "seq": dash._seq, "sent": time.time(),
                                          "camera": dash.has_camera(),
                                          "calibration": {"step": done, **result},
                                          "language": i18n.configured()}))
                return JSONResponse(result, status_code=200 if result.get("ok") else 422)

            if step == "word":
                # the Jewish Edition's ADD or REMOVE card, laid in view since the last one
                word = data["word"].strip().upper()
                if word not in ("ADD", "REMOVE"):
                    return error(400, "word: ADD or REMOVE")
                result = await asyncio.to_thread(cal.mark_word, word)
                return answered("word", result)
            if step == "pile":
                # a seat's discard pile: a card laid there, clicked on the picture
                try:
                    seat = int(data["seat"])
                    x = float(data["x"]) if "x" in data else None
                    y = float(data["y"]) if "y" in data else None
                except ValueError:
                    return error(400, "seat, x, y: numbers (the seat from 1, x and y in the "
                                      "picture's pixels)")
                if not 1 <= seat <= 12 or (x is None) != (y is None) or \
                        not all(v is None or math.isfinite(v) for v in (x, y)):
                    return error(400, "seat: 1 to 12; x and y: both or neither, finite")
                result = await asyncio.to_thread(cal.mark_pile, seat - 1, x, y)
                return answered("pile", result)
            if step == "capture":
                def progress(frame: int, total: int) -> None:     # from the capturing thread
                    dash._seq += 1
                    dash._publish(json.dumps({
                        "type": "state", "mode": "calibrate", "seq": dash._seq,
                        "sent": time.time(), "camera": dash.has_camera(),
                        "calibration": {"step": "capturing", "frame": frame, "of": total},
                        "language": i18n.configured()}))
                cal.progress = progress
            result = await asyncio.to_thread(cal.capture if step == "capture" else cal.save)
            return answered(step, result)

        async def calibration_picture(request: Request):
            cal = dash.calibrator
            data = None if cal is None else await asyncio.to_thread(cal.preview_jpeg)
            if data is None:
                return error(404, "nothing captured yet")
            return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

        async def setup_answer(request: Request):
            """An answer to the setup guide's question, typed on the page (with the PIN)."""
            data = await acting(request)
            if isinstance(data, Response):
                return data
            bad = fields(data, {"answer": 200}, ("answer",))
            if bad is not None:
                return bad
            if dash.setup_answer is None:
                return error(409, "not setting up: start `seqboard setup`")
            if not dash.setup_answer(data["answer"]):
                return error(409, "no question is waiting for an answer")
            return JSONResponse({"ok": True})

        async def qr(request: Request):
            """The page's address as a QR code (SVG), once ``seqboard setup`` has it."""
            if dash.qr_url is None:
                return error(404, "no address to show yet")
            import io

            import segno
            buf = io.BytesIO()
            segno.make(dash.qr_url, error="m").save(buf, kind="svg", scale=8, border=2)
            return Response(buf.getvalue(), media_type="image/svg+xml",
                            headers={"Cache-Control": "no-store"})

        def listing() -> list[dict]:
            out = []
            for p in dash.records_dir.glob("*.jsonl"):
                try:
                    st = p.stat()
                except OSError:                     # removed meanwhile
                    continue
                out.append({"name": p.name, "size": st.st_size, "modified": int(st.st_mtime)})
            out.sort(key=lambda r: r["modified"], reverse=True)
            return out[:200]

        async def records(request: Request):
            return JSONResponse({"records": await asyncio.to_thread(listing)})

        def record_path(name: str) -> Path | None:
            if not RECORD_NAME.fullmatch(name):
                return None
            p = (dash.records_dir / name).resolve()
            if p.parent != dash.records_dir.resolve() or not p.is_file():
                return None
            return p

        async def download(request: Request):
            p = record_path(request.path_params["name"])
            if p is None:
                return error(404, "no such record")
            return FileResponse(p, media_type="application/x-ndjson", filename=p.name)

        async def replay_record(request: Request):
            p = record_path(request.path_params["name"])
            if p is None:
                return error(404, "no such record")
            st = p.stat()
            if st.st_size > MAX_RECORD_REPLAY:
                return error(413, f"{p.name}: over {MAX_RECORD_REPLAY // 2**20} MiB, too large "
                                  "to replay in the page (download it)")
            key = (p.name, st.st_size, st.st_mtime_ns)
            loop = asyncio.get_running_loop()
            if dash._replay_lock is None or dash._replay_lock[0] is not loop:
                dash._replay_lock = (loop, asyncio.Lock())
            async with dash._replay_lock[1]:        # one replay at a time, whoever asks
                body = dash._replays.get(key)
                if body is None:
                    body = json.dumps(await asyncio.to_thread(_replay_json, p)).encode()
                    dash.replays_worked_out += 1
                    dash._replays[key] = body
                    while sum(map(len, dash._replays.values())) > REPLAY_CACHE_BYTES \
                            and len(dash._replays) > 1:
                        dash._replays.popitem(last=False)
                else:
                    dash._replays.move_to_end(key)
            return Response(body, media_type="application/json")

        async def camera(request: Request):
            src = dash.source
            if not dash.has_camera():
                return error(404, "no camera in this mode")
            now = time.monotonic()
            if dash._frame is None or now - dash._frame[0] > 0.3:       # a few frames a second
                img = await asyncio.to_thread(src.annotated)
                if img is None:
                    return error(404, "no frame yet")
                import cv2
                _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 70])
                dash._frame = (now, buf.tobytes())
            return Response(dash._frame[1], media_type="image/jpeg",
                            headers={"Cache-Control": "no-store"})

        async def ws(websocket: WebSocket):
            if not _same_origin(websocket.headers, dash.loopback_only):
                await websocket.close(code=1008)        # the handshake is refused: 403
                return
            await websocket.accept()
            if dash._loop is None or dash._loop.is_closed():
                dash._loop = asyncio.get_running_loop()    # served by someone else's loop
            viewer = _Viewer(websocket.scope.get("seqboard.websocket"))
            q = viewer.q
            viewer.busy = True                  # the first state goes first
            dash._clients.add(viewer)
            sender = None
            allowance, last, dropped = 2 * WS_RATE, time.monotonic(), 0

            async def reply(kind: str, **data) -> None:
                await websocket.send_text(json.dumps({"type": kind, **data}))
            try:
                await websocket.send_text(dash._state)
                viewer.busy = False

                async def pump():
                    try:
                        while True:
                            msg = await q.get()
                            viewer.busy = True
                            await websocket.send_text(msg)
                            viewer.busy = False
                    except Exception:                   # the browser left: the reader ends too
                        pass
                sender = asyncio.create_task(pump())
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        break
                    now = time.monotonic()
                    allowance = min(2 * WS_RATE, allowance + (now - last) * WS_RATE)
                    last = now
                    if allowance < 1:
                        dropped += 1
                        if dropped == 1:
                            await reply("error", error=f"too many messages: at most {WS_RATE:g} "
                                                       "a second")
                        if dropped > 20 * WS_RATE:
                            await websocket.close(code=1008, reason="too many messages")
                            break
                        continue
                    allowance -= 1
                    dropped = 0
                    text = message.get("text")
                    if text is None:
                        await reply("error", error="send JSON text, not binary")
                        continue
                    if len(text) > MAX_BODY:
                        await reply("error", error="message too long")
                        continue
                    try:
                        msg = loads_limited(text, MAX_DEPTH)
                    except JSONLimitError as exc:
                        await reply("error", error=f"not a JSON object with a type: {exc}")
                        continue
                    except ValueError:
                        msg = None
                    kind = msg.get("type") if isinstance(msg, dict) else None
                    if not isinstance(kind, str):
                        await reply("error", error="not a JSON object with a type")
                    elif kind == "ping":
                        t = msg.get("t")
                        ok = t is None or (isinstance(t, (int, float)) and not isinstance(t, bool)) \
                            or (isinstance(t, str) and len(t) <= 64)
                        await reply("pong", t=t if ok else None)
                    else:
                        await reply("error", error=f"unknown message type {kind[:40]!r}")
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass
            finally:
                dash._clients.discard(viewer)
                if sender is not None:
                    sender.cancel()

        routes = [
            Route("/", index), Route("/static/{name}", static), Route("/cards/{code}.png", card),
            Route("/api/state", state), Route("/api/login", login, methods=["POST"]),
            Route("/api/words", words), Route("/i18n/{lang}.json", catalog),
            Route("/api/action", action, methods=["POST"]), Route("/api/records", records),
            Route("/records/{name}", download), Route("/api/records/{name}/replay", replay_record),
            Route("/camera.jpg", camera), WebSocketRoute("/ws", ws),
            Route("/api/calibrate/{step}", calibrate_step, methods=["POST"]),
            Route("/calibration.jpg", calibration_picture), Route("/qr.svg", qr),
            Route("/api/setup/answer", setup_answer, methods=["POST"]),
        ]
        return Starlette(routes=routes, middleware=[Middleware(LimitBody)],
                         exception_handlers={HTTPException: http_error, Exception: internal})

    def _action(self, name: str):
        s = self.session
        if name in self.extra_actions:
            return self.extra_actions[name]
        if s is None:
            return None
        if name == "show_move":
            if s.proposal is None:
                return None
            from ..session import Event
            move, why = s.proposal
            # show it again: the LEDs blink its space, the buzzer calls, the page highlights it
            return lambda: s._emit(Event("proposal", None, why or "the computer's move",
                                         (move.space,) if move.space is not None else ()))
        return getattr(s, name, None)

    # --- serving ------------------------------------------------------------------------------
    def _caps(self) -> tuple[int, int]:
        """Raise the open-files limit; the HTTP and WebSocket caps that fit in it."""
        soft, hard = raise_open_files(OPEN_FILES)
        high = soft >= LOW_FDS + 512
        budget = soft - LOW_FDS - RESERVE_FDS if high else soft - 256
        budget = max(budget, 48)
        ws_cap = min(self.max_websockets, max(8, budget // 16))
        http_cap = min(self.max_connections, max(16, budget - ws_cap))
        HighFdSocket.high = high
        self.limits = {"open_files": soft, "open_files_hard": hard, "high_fds": high,
                       "connections": http_cap, "websockets": ws_cap}
        if http_cap < self.max_connections:
            log.warning("dashboard: open-files limit %s (hard %s): at most %s connections "
                        "(raise LimitNOFILE)", soft, hard, http_cap)
        return http_cap, ws_cap

    def start(self, wait: float = 5.0) -> str:
        """Serve in a thread; the address to open. OSError when the port is taken."""
        import uvicorn
        http_cap, ws_cap = self._caps()
        guard = ConnectionGuard(http_cap=http_cap, ws_cap=ws_cap,
                                http_per_client=PER_CLIENT_CONNECTIONS,
                                ws_per_client=PER_CLIENT_WEBSOCKETS,
                                request_timeout=self.request_timeout)
        self.guard = guard
        http_protocol, ws_protocol = protocols(guard)
        config = uvicorn.Config(
            self.app, host=self.host, port=self.port, log_level="warning",
            http=http_protocol, ws=ws_protocol, lifespan="off", access_log=False,
            timeout_graceful_shutdown=2, timeout_keep_alive=KEEP_ALIVE,
            limit_concurrency=http_cap + ws_cap + 64, backlog=1024,
            h11_max_incomplete_event_size=8192, ws_max_size=WS_MAX_SIZE, ws_max_queue=4,
            ws_ping_interval=20.0, ws_ping_timeout=20.0, ws_per_message_deflate=False,
            server_header=False)
        server = uvicorn.Server(config)
        server.install_signal_handlers = lambda: None       # the main loop owns the signals
        # bind now, in this thread, so a taken port is an error here and not in the thread
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = HighFdSocket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        self._server = server
        started = threading.Event()
        name = f"dashboard:{self.port}"
        quiet = QuietLog(name)
        for logger_name in ("uvicorn.error", "asyncio", "seqboard.dashboard"):
            lg = logging.getLogger(logger_name)
            lg.addFilter(quiet)
            self._filters.append((lg, quiet))

        def on_loop_error(loop, context):
            exc = context.get("exception")
            what = context.get("message") or "event loop error"
            # e.g. "socket.accept() out of system resource" (EMFILE): asyncio waits a second
            # and tries again; said once a minute, without a traceback
            log.warning("dashboard: %s%s", what, f": {type(exc).__name__}: {exc}" if exc else "")

        def serve():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.set_exception_handler(on_loop_error)
            self._loop = loop

            async def main():
                started.set()
                await server.serve(sockets=[sock])
            try:
                loop.run_until_complete(main())
            except Exception as exc:                 # never a traceback from the thread
                log.error("dashboard stopped: %s: %s", type(exc).__name__, exc)
            finally:
                self._loop = None
                loop.close()
        self._thread = threading.Thread(target=serve, name=name, daemon=True)
        self._thread.start()
        started.wait(wait)
        end = time.monotonic() + wait
        while not server.started and time.monotonic() < end:
            time.sleep(0.01)
        host = _lan_address() if self.host in ("0.0.0.0", "", "::") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        self._thread = None
        for lg, f in self._filters:
            lg.removeFilter(f)
        self._filters = []


class _Viewer:
    """One browser's WebSocket: its queue, and its uvicorn connection when the server is
    ours (``scope["seqboard.websocket"]``), to which a state may be written directly."""

    __slots__ = ("q", "proto", "busy")

    def __init__(self, proto) -> None:
        self.q: asyncio.Queue = asyncio.Queue(maxsize=QUEUE)
        self.proto = proto
        self.busy = False

    def direct(self) -> bool:
        """A frame may be written now: nothing of its own in flight or queued, the
        connection open and not pushing back, and no extension rewriting frames."""
        p = self.proto
        return (p is not None and not self.busy and self.q.empty() and p.writable.is_set()
                and not p.close_sent and not p.transport.is_closing()
                and not p.conn.extensions and p.conn.state is _OPEN)


def _text_frame(msg: str) -> bytes:
    """A server's (unmasked) WebSocket text frame: the same bytes for every browser."""
    from websockets.frames import Frame, Opcode
    return Frame(Opcode.TEXT, msg.encode("utf-8")).serialize(mask=False, extensions=[])


try:
    from websockets.protocol import State as _State
    _OPEN = _State.OPEN
except ImportError:                     # pragma: no cover
    _OPEN = None


class _Shield:
    """The outermost ASGI layer: a client that leaves is no error, and anything else that
    escapes the app is one line in the log (never a traceback) and a 500 when nothing was
    answered yet."""

    def __init__(self, app) -> None:
        self.app = app

    def __getattr__(self, name):                # TestClient and friends reach the app's parts
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send):
        from starlette.requests import ClientDisconnect
        from starlette.websockets import WebSocketDisconnect
        answered = False

        async def tracked(message):
            nonlocal answered
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.close",
                                   "websocket.http.response.start"):
                answered = True
            await send(message)
        try:
            await self.app(scope, receive, tracked)
        except (ClientDisconnect, WebSocketDisconnect, OSError):
            return
        except Exception as exc:
            where = f"{scope.get('method', 'WS')} {scope.get('path', '')}"[:120]
            log.error("dashboard: %s failed: %s: %s", where, type(exc).__name__, str(exc)[:200])
            if scope["type"] == "http" and not answered:
                body = json.dumps({"error": "internal error (see the journal)"}).encode()
                try:
                    await send({"type": "http.response.start", "status": 500,
                                "headers": [(b"content-type", b"application/json"),
                                            (b"content-length", str(len(body)).encode())]})
                    await send({"type": "http.response.body", "body": body})
                except Exception:
                    pass


def _replay_json(path: Path) -> dict:
    """A record replayed for the page: each step with the board after it."""
    from engine.errors import EngineError
    from engine.record import parse_record, replay
    try:
        from ..commands.replay import load_record_text
        from ..errors import UserError
        try:
            text = load_record_text(str(path), max_bytes=MAX_RECORD_REPLAY)
        except UserError as exc:
            return {"error": str(exc)[:300]}
        parsed = parse_record(text, path.name)
        if parsed.entries[0].get("game", "board") == "stacks":
            from engine.stacks.record import replay as replay_stacks
            return {"game": "stacks", "steps": replay_stacks(parsed.entries), "stopped": parsed.stopped}
        result = replay(parsed, with_cells=True)
    except (EngineError, ValueError, RecursionError) as exc:
        return {"error": f"{path.name}: {exc}"[:300]}
    setup = parsed.entries[0]
    ref = result.referee
    return {"game": "board", "rows": ref.layout.rows, "cols": ref.layout.cols,
            "symbols": list(ref.layout.symbols), "free": sorted(ref.layout.free),
            "colours": list(ref.colours), "edition": setup.get("edition"),
            **result.to_json()}
