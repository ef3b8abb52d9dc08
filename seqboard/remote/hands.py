"""Each player's own hand on their phone: a small page per player, behind a link with its
own secret (never the dashboard PIN), served by the board that seats the player.

The page shows the player's virtual cards and whether it is their turn, and refreshes
itself every two seconds. A player taps a card to play it with their next chip (or, after
placing a chip two of their cards could explain, taps the one they meant). Only the board's
main loop changes what is shown (:meth:`HandPages.update`) and takes the taps
(:meth:`HandPages.take_picks`); the server thread only reads the one and queues the other.
"""

from __future__ import annotations

import hmac
import html
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


class HandPages:
    def __init__(self, seats: list[int], host: str = "0.0.0.0", port: int = 0,
                 names: dict[int, str] | None = None) -> None:
        self.tokens = {seat: secrets.token_urlsafe(16) for seat in seats}
        self.names = names or {}
        self.state: dict[int, dict] = {seat: {"cards": [], "to_move": False, "note": "",
                                              "picked": None, "choices": []}
                                       for seat in seats}
        self.opened: set[int] = set()    # seats whose page was opened: they pick on the phone
        self.picks: dict[int, str] = {}  # taps not yet taken by the main loop
        self.lock = threading.Lock()
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the http.server name
                seat = pages.seat_of(self.path)
                if seat is None:
                    self.send_error(404, "no such page")
                    return
                with pages.lock:
                    pages.opened.add(seat)
                body = pages.page(seat).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Referrer-Policy", "no-referrer")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):  # noqa: N802 - a tap on a card: /hand/<secret>/pick, card=5H
                path = self.path
                seat = pages.seat_of(path[:-len("/pick")]) if path.endswith("/pick") else None
                if seat is None:
                    self.send_error(404, "no such page")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    length = -1
                if not 0 <= length <= 200:
                    self.send_error(413, "a tap is a short form")
                    return
                form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
                card = (form.get("card") or [""])[0].strip().upper()
                with pages.lock:
                    ok = card in pages.state[seat]["cards"] or card == "NONE"
                    if ok:
                        pages.opened.add(seat)
                        pages.picks[seat] = card
                        pages.state[seat]["picked"] = None if card == "NONE" else card
                if not ok:
                    self.send_error(409, f"{card[:8]!r} is not in your hand")
                    return
                self.send_response(303)
                self.send_header("Location", path[:-len("/pick")])
                self.send_header("Content-Length", "0")
                self.end_headers()

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

    def update(self, seat: int, cards: list[str], to_move: bool, note: str = "",
               picked: str | None = None, choices: list[str] = ()) -> None:
        with self.lock:
            if seat in self.state:
                self.state[seat] = {"cards": list(cards), "to_move": to_move, "note": note,
                                    "picked": picked, "choices": list(choices)}

    def take_picks(self) -> dict[int, str | None]:
        """The cards tapped since the last call (None: the tap was taken back)."""
        with self.lock:
            out, self.picks = self.picks, {}
        return {seat: None if c == "NONE" else c for seat, c in out.items()}

    def uses_phone(self, seat: int) -> bool:
        with self.lock:
            return seat in self.opened

    def page(self, seat: int) -> str:
        with self.lock:
            st = dict(self.state[seat])
        name = html.escape(self.names.get(seat, f"player {seat + 1}"))
        tok = self.tokens[seat]
        cards = "".join(
            f'<button class="card{" picked" if c == st["picked"] else ""}'
            f'{" choice" if c in st["choices"] else ""}" name=card value="{html.escape(c)}">'
            f'{html.escape(c)}</button>' for c in st["cards"])
        cards = f'<form method=post action="/hand/{tok}/pick">{cards}</form>'
        if st["choices"]:
            turn = (f"<p class=turn>which card did you play? tap "
                    f"{' or '.join(html.escape(c) for c in st['choices'])}</p>")
        elif st["to_move"]:
            turn = ("<p class=turn>your turn: tap a card, then place its chip (or place the "
                    "chip: the board takes the card it needs)</p>")
        else:
            turn = "<p>waiting for the others</p>"
        if st["picked"]:
            turn += (f"<p>next chip plays <b>{html.escape(st['picked'])}</b> "
                     f"<form method=post action=\"/hand/{tok}/pick\" style=display:inline>"
                     f"<button name=card value=none>cancel</button></form></p>")
        note = f"<p>{html.escape(st['note'])}</p>" if st["note"] else ""
        return ("<!doctype html><html><head><meta charset=utf-8>"
                "<meta name=viewport content='width=device-width,initial-scale=1'>"
                "<meta http-equiv=refresh content=2><title>your cards</title><style>"
                "body{font-family:sans-serif;margin:1em}.card{display:inline-block;border:1px "
                "solid #333;border-radius:6px;padding:.6em .5em;margin:.2em;font-size:1.4em;"
                "min-width:2em;text-align:center;background:#fff}.picked{background:#cfe;border-width:3px}"
                ".choice{outline:3px solid #c60}.turn{font-weight:bold;color:#063}</style>"
                f"</head><body><h1>{name}</h1><div id=hand>{cards}</div>{turn}{note}"
                "</body></html>")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
