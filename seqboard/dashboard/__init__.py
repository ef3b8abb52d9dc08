"""The live dashboard: the board, every verdict and the controls in any browser on the LAN.

One more indicator: it subscribes to the session's events like the LEDs and the terminal,
and owns no game logic. Starlette on uvicorn, in a thread of its own with its own event
loop; the main loop only ever hands it a message (``call_soon_threadsafe``), so a slow or
vanished browser never blocks the game. Every asset ships in the package.

Safety on a shared network:

* looking is open; acting needs the PIN (printed at start, or ``[dashboard] pin``),
  exchanged once for an HttpOnly, SameSite=Strict cookie;
* every action is a JSON POST carrying the ``X-Seqboard`` header, from the same origin: a
  form on another site can send neither (cross-site request forgery);
* records are served by name from the records folder only, never by path;
* requests over 4 KiB, malformed JSON and unknown actions get a clear 4xx and change
  nothing; five wrong PINs lock the login for 30 seconds.

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
import re
import secrets
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable

STATIC = Path(__file__).resolve().parent / "static"
CARDS = Path(__file__).resolve().parent.parent.parent / "engine" / "data" / "cards"
MAX_BODY = 4096
QUEUE = 64                     # messages a slow browser may fall behind before it skips
RECORD_NAME = re.compile(r"^[\w.-]{1,120}\.jsonl$")
ACTIONS = ("confirm", "undo", "lost_draw", "toggle_dead", "show_move", "take_board")


def _lan_address() -> str:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))          # no packet is sent
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


class Dashboard:
    def __init__(self, cfg: dict | None, records_dir: Path, commands, *, pin: str | None = None,
                 host: str = "0.0.0.0", port: int = 8080, source=None,
                 actions: dict[str, Callable[[], Any]] | None = None, calibrator=None) -> None:
        self.records_dir = Path(records_dir)
        self.commands = commands
        self.pin = pin or f"{secrets.randbelow(10**6):06d}"
        self.host, self.port = host, port
        self.source = source
        self.extra_actions = actions or {}
        self.calibrator = calibrator
        self.session = None
        self._clients: set[asyncio.Queue] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._state = "{}"
        self._seq = 0
        self._tokens: set[str] = set()
        self._failures: list[float] = []
        self._frame: tuple[float, bytes] | None = None
        self._server = None
        self._thread: threading.Thread | None = None
        self.app = self._build()
        if calibrator is not None:
            self._state = json.dumps({"type": "state", "mode": "calibrate", "seq": 0,
                                      "sent": time.time(), "calibration": {"step": "ready"}})

    # --- the indicator side (main loop's thread) -------------------------------------------
    def attach(self, session) -> None:
        self.session = session
        session.subscribe(self)

    def __call__(self, event, view: dict) -> None:
        self._seq += 1
        obs = getattr(self.session, "last_observation", None)
        msg = json.dumps({
            "type": "state", "seq": self._seq, "sent": time.time(),
            "event": {"kind": event.kind, "text": event.text, "spaces": list(event.spaces)},
            "view": view,
            "observed": None if obs is None else [s.value for s in obs.states],
        }, separators=(",", ":"))
        self._publish(msg)

    def stacks(self, kind: str, game, text: str) -> None:
        """A :class:`~seqboard.stacks_table.StacksTable` listener: SEQUENCE STACKS live."""
        self._seq += 1
        self._publish(json.dumps({
            "type": "state", "mode": "stacks", "seq": self._seq, "sent": time.time(),
            "event": {"kind": kind, "text": text}, "stacks": game.view(), "log": game.log[-40:],
        }, separators=(",", ":")))

    def _publish(self, msg: str) -> None:
        self._state = msg
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._fanout, msg)
            except RuntimeError:      # the loop is shutting down
                pass

    def _fanout(self, msg: str) -> None:
        for q in list(self._clients):
            if q.full():
                # a slow browser: drop what it has not read, the newest state is enough
                while not q.empty():
                    q.get_nowait()
            q.put_nowait(msg)

    # --- the web side (its own thread) ------------------------------------------------------
    def _build(self):
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.requests import Request
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Route, WebSocketRoute
        from starlette.websockets import WebSocket, WebSocketDisconnect

        dash = self

        def error(status: int, text: str) -> JSONResponse:
            return JSONResponse({"error": text}, status_code=status)

        class LimitBody:
            """Refuse a body over MAX_BODY before it is read (413)."""

            def __init__(self, app):
                self.app = app

            async def __call__(self, scope, receive, send):
                if scope["type"] == "http":
                    headers = dict(scope.get("headers") or [])
                    length = headers.get(b"content-length")
                    too_big = False
                    try:
                        too_big = length is not None and int(length) > MAX_BODY
                    except ValueError:
                        too_big = True
                    if too_big:
                        await error(413, f"request body over {MAX_BODY} bytes")(scope, receive, send)
                        return
                await self.app(scope, receive, send)

        async def index(request: Request):
            return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

        async def static(request: Request):
            name = request.path_params["name"]
            if name not in ("app.js", "style.css"):
                return error(404, "no such file")
            return FileResponse(STATIC / name)

        async def card(request: Request):
            code = request.path_params["code"]
            if not re.fullmatch(r"[2-9TJQKA][SHDC]", code):
                return error(404, "no such card")
            path = CARDS / f"{code}.png"
            if not path.is_file():
                return error(404, "no such card")
            return FileResponse(path, headers={"Cache-Control": "max-age=86400"})

        async def state(request: Request):
            return Response(dash._state, media_type="application/json")

        async def read_json(request: Request) -> dict | JSONResponse:
            if request.headers.get("x-seqboard") != "1":
                return error(403, "missing the X-Seqboard header (requests from the page only)")
            origin = request.headers.get("origin")
            if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host"):
                return error(403, "cross-site request refused")
            body = await request.body()
            if len(body) > MAX_BODY:
                return error(413, f"request body over {MAX_BODY} bytes")
            try:
                data = json.loads(body or b"{}")
            except ValueError:
                return error(400, "the body is not JSON")
            if not isinstance(data, dict):
                return error(400, "the body must be a JSON object")
            return data

        async def login(request: Request):
            data = await read_json(request)
            if isinstance(data, Response):
                return data
            now = time.monotonic()
            dash._failures = [t for t in dash._failures if now - t < 30]
            if len(dash._failures) >= 5:
                return error(429, "too many wrong PINs: wait 30 seconds")
            pin = data.get("pin")
            if not isinstance(pin, str) or \
                    not secrets.compare_digest(pin.strip().encode(), dash.pin.encode()):
                dash._failures.append(now)
                return error(403, "wrong PIN")
            token = secrets.token_urlsafe(24)
            dash._tokens.add(token)
            resp = JSONResponse({"ok": True})
            resp.set_cookie("seqboard", token, httponly=True, samesite="strict", max_age=12 * 3600)
            return resp

        async def acting(request: Request) -> dict | JSONResponse:
            """The request's JSON, from a page that was given the PIN; or the refusal."""
            data = await read_json(request)
            if isinstance(data, Response):
                return data
            if request.cookies.get("seqboard") not in dash._tokens:
                return error(401, "enter the PIN shown on the terminal to act")
            return data

        async def action(request: Request):
            data = await acting(request)
            if isinstance(data, Response):
                return data
            name = data.get("action")
            if name == "hint" and dash.session is not None and dash.commands is not None:
                return hint(data)
            if name not in ACTIONS and name not in dash.extra_actions:
                return error(400, f"unknown action {name!r}")
            fn = dash._action(name) if dash.commands is not None else None
            if fn is None:
                return error(409, f"{name} is not available now")
            dash.commands.call(fn)
            return JSONResponse({"ok": True, "action": name})

        def hint(data: dict):
            """Hints for the player to move, from the cards they typed (or the engine's own
            hand in the demo); the ranked moves arrive with the next state."""
            from engine.errors import EngineError
            s = dash.session
            text = data.get("cards") or ""
            if not isinstance(text, str):
                return error(400, "cards: a text like \"5H 10D JS\"")
            try:
                cards = s.hint_hand(text)
            except EngineError as exc:
                return error(400, str(exc))
            dash.commands.call(lambda: s.hint(cards))
            return JSONResponse({"ok": True, "action": "hint"})

        async def calibrate_step(request: Request):
            data = await acting(request)
            if isinstance(data, Response):
                return data
            cal = dash.calibrator
            if cal is None:
                return error(409, "not calibrating: start `seqboard calibrate --serve`")
            step = request.path_params["step"]
            if step not in ("capture", "save"):
                return error(404, "no such step")
            result = await asyncio.to_thread(cal.capture if step == "capture" else cal.save)
            dash._seq += 1
            dash._publish(json.dumps({"type": "state", "mode": "calibrate", "seq": dash._seq,
                                      "sent": time.time(), "calibration": {"step": step, **result}}))
            return JSONResponse(result, status_code=200 if result.get("ok") else 422)

        async def calibration_picture(request: Request):
            cal = dash.calibrator
            data = None if cal is None else await asyncio.to_thread(cal.preview_jpeg)
            if data is None:
                return error(404, "nothing captured yet")
            return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

        async def records(request: Request):
            out = []
            for p in sorted(dash.records_dir.glob("*.jsonl"), key=lambda p: p.stat().st_mtime,
                            reverse=True)[:200]:
                st = p.stat()
                out.append({"name": p.name, "size": st.st_size, "modified": int(st.st_mtime)})
            return JSONResponse({"records": out})

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
            return JSONResponse(await asyncio.to_thread(_replay_json, p))

        async def camera(request: Request):
            src = dash.source
            if src is None or not hasattr(src, "annotated"):
                return error(404, "no camera in this mode")
            now = time.monotonic()
            if dash._frame is None or now - dash._frame[0] > 0.3:       # a few frames a second
                img = await asyncio.to_thread(src.annotated)
                if img is None:
                    return error(404, "no frame yet")
                import cv2
                ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 70])
                dash._frame = (now, buf.tobytes())
            return Response(dash._frame[1], media_type="image/jpeg",
                            headers={"Cache-Control": "no-store"})

        async def ws(websocket: WebSocket):
            await websocket.accept()
            q: asyncio.Queue = asyncio.Queue(maxsize=QUEUE)
            dash._clients.add(q)
            sender = None
            try:
                await websocket.send_text(dash._state)

                async def pump():
                    while True:
                        await websocket.send_text(await q.get())
                sender = asyncio.create_task(pump())
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        break
                    text = message.get("text")
                    if text is None:
                        await websocket.send_text(json.dumps(
                            {"type": "error", "error": "send JSON text, not binary"}))
                        continue
                    if len(text) > MAX_BODY:
                        await websocket.send_text(json.dumps({"type": "error", "error": "message too long"}))
                        continue
                    try:
                        msg = json.loads(text)
                        kind = msg["type"]
                    except (ValueError, KeyError, TypeError):
                        await websocket.send_text(json.dumps(
                            {"type": "error", "error": "not a JSON object with a type"}))
                        continue
                    if kind == "ping":
                        await websocket.send_text(json.dumps({"type": "pong", "t": msg.get("t")}))
                    else:
                        await websocket.send_text(json.dumps(
                            {"type": "error", "error": f"unknown message type {kind!r}"}))
            except (WebSocketDisconnect, RuntimeError):
                pass
            finally:
                dash._clients.discard(q)
                if sender is not None:
                    sender.cancel()

        routes = [
            Route("/", index), Route("/static/{name}", static), Route("/cards/{code}.png", card),
            Route("/api/state", state), Route("/api/login", login, methods=["POST"]),
            Route("/api/action", action, methods=["POST"]), Route("/api/records", records),
            Route("/records/{name}", download), Route("/api/records/{name}/replay", replay_record),
            Route("/camera.jpg", camera), WebSocketRoute("/ws", ws),
            Route("/api/calibrate/{step}", calibrate_step, methods=["POST"]),
            Route("/calibration.jpg", calibration_picture),
        ]
        return Starlette(routes=routes, middleware=[Middleware(LimitBody)])

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

    def start(self, wait: float = 5.0) -> str:
        """Serve in a thread; the address to open. OSError when the port is taken."""
        import uvicorn
        config = uvicorn.Config(self.app, host=self.host, port=self.port, log_level="warning",
                                ws="websockets-sansio", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=2)
        server = uvicorn.Server(config)
        server.install_signal_handlers = lambda: None       # the main loop owns the signals
        # bind now, in this thread, so a taken port is an error here and not in the thread
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        self._server = server
        started = threading.Event()

        def serve():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop

            async def main():
                started.set()
                await server.serve(sockets=[sock])
            try:
                loop.run_until_complete(main())
            finally:
                self._loop = None
                loop.close()
        self._thread = threading.Thread(target=serve, name="dashboard", daemon=True)
        self._thread.start()
        started.wait(wait)
        end = time.monotonic() + wait
        while not server.started and time.monotonic() < end:
            time.sleep(0.01)
        host = _lan_address() if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        self._thread = None


def _replay_json(path: Path) -> dict:
    """A record replayed for the page: each step with the board after it."""
    from engine.errors import RecordError
    from engine.record import parse_record, replay
    try:
        parsed = parse_record(path.read_text("utf-8", errors="replace"), path.name)
        if parsed.entries[0].get("game", "board") == "stacks":
            from engine.stacks.record import replay as replay_stacks
            return {"game": "stacks", "steps": replay_stacks(parsed.entries), "stopped": parsed.stopped}
        result = replay(parsed, with_cells=True)
    except RecordError as exc:
        return {"error": str(exc)}
    setup = parsed.entries[0]
    ref = result.referee
    return {"game": "board", "rows": ref.layout.rows, "cols": ref.layout.cols,
            "symbols": list(ref.layout.symbols), "free": sorted(ref.layout.free),
            "colours": list(ref.colours), "edition": setup.get("edition"),
            **result.to_json()}
