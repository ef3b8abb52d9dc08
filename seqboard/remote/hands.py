"""Each player's own hand on their phone: a small page per player, behind a link with its
own secret (never the dashboard PIN), served by the board that seats the player.

The page shows the player's virtual cards and whether it is their turn, and refreshes
itself every two seconds. Only the board's main loop changes what is shown
(:meth:`HandPages.update`); the server thread only reads it.
"""

from __future__ import annotations

import hmac
import html
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class HandPages:
    def __init__(self, seats: list[int], host: str = "0.0.0.0", port: int = 0,
                 names: dict[int, str] | None = None) -> None:
        self.tokens = {seat: secrets.token_urlsafe(16) for seat in seats}
        self.names = names or {}
        self.state: dict[int, dict] = {seat: {"cards": [], "to_move": False, "note": ""}
                                       for seat in seats}
        self.lock = threading.Lock()
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the http.server name
                seat = pages.seat_of(self.path)
                if seat is None:
                    self.send_error(404, "no such page")
                    return
                body = pages.page(seat).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Referrer-Policy", "no-referrer")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # no request lines on the terminal
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="hand-pages",
                                       daemon=True)

    def start(self) -> "HandPages":
        self.thread.start()
        return self

    def links(self, address: str) -> dict[int, str]:
        return {seat: f"http://{address}:{self.port}/hand/{tok}" for seat, tok in self.tokens.items()}

    def seat_of(self, path: str) -> int | None:
        if len(path) > 200 or not path.startswith("/hand/"):
            return None
        given = path[len("/hand/"):].split("?", 1)[0]
        found = None
        for seat, tok in self.tokens.items():
            if hmac.compare_digest(given.encode(), tok.encode()):
                found = seat
        return found

    def update(self, seat: int, cards: list[str], to_move: bool, note: str = "") -> None:
        with self.lock:
            if seat in self.state:
                self.state[seat] = {"cards": list(cards), "to_move": to_move, "note": note}

    def page(self, seat: int) -> str:
        with self.lock:
            st = dict(self.state[seat])
        name = html.escape(self.names.get(seat, f"player {seat + 1}"))
        cards = "".join(f'<span class="card">{html.escape(c)}</span>' for c in st["cards"])
        turn = "<p class=turn>your turn: place a chip your cards allow</p>" if st["to_move"] \
            else "<p>waiting for the others</p>"
        note = f"<p>{html.escape(st['note'])}</p>" if st["note"] else ""
        return ("<!doctype html><html><head><meta charset=utf-8>"
                "<meta name=viewport content='width=device-width,initial-scale=1'>"
                "<meta http-equiv=refresh content=2><title>your cards</title><style>"
                "body{font-family:sans-serif;margin:1em}.card{display:inline-block;border:1px "
                "solid #333;border-radius:6px;padding:.6em .5em;margin:.2em;font-size:1.4em;"
                "min-width:2em;text-align:center}.turn{font-weight:bold;color:#063}</style>"
                f"</head><body><h1>{name}</h1><div id=hand>{cards}</div>{turn}{note}"
                "</body></html>")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
