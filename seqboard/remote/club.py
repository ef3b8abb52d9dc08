"""The club view: every table publishing to a broker, live, read-only.

Each remote game's dealing board keeps a retained summary on ``seqboard/v1/game/<id>/state``
(who plays, the sequences, whose turn, the result). The club view subscribes to all of them
and never publishes: a watcher needs only read access on the broker (docs/remote.md).
"""

from __future__ import annotations

import time

from engine.referee import COLOUR_NAMES

from . import protocol as P

ALL_STATES = f"{P.PREFIX}/+/state"


class Club:
    def __init__(self, link, clock=time.time) -> None:
        self.link = link
        self.clock = clock
        self.tables: dict[str, dict] = {}
        self.seen: dict[str, float] = {}      # game -> when its last state arrived here
        self.dropped: list[str] = []
        link.subscribe(ALL_STATES)

    def poll(self) -> int:
        """Take what arrived; the number of tables that changed."""
        changed = 0
        for t, payload in self.link.drain(10_000):
            try:
                game, _, kind, _ = P.parse_topic(t)
                if kind != "state":
                    raise P.Refused(f"{t}: not a state topic")
                msg = P.decode(payload, t, None)
            except P.Refused as exc:
                self.dropped.append(str(exc))
                del self.dropped[:-100]
                continue
            self.tables[game] = msg
            self.seen[game] = self.clock()
            changed += 1
        return changed

    def rows(self) -> list[dict]:
        out = []
        for game, s in sorted(self.tables.items()):
            colours = s.get("colours") or []
            names = s.get("names") or []
            teams = [COLOUR_NAMES.get(c, c) for c in colours]
            if s.get("over"):
                w = s.get("winner")
                result = f"{teams[w]} won" if isinstance(w, int) and 0 <= w < len(teams) \
                    else "over"
            else:
                p = s.get("to_move", 0)
                who = names[p] if isinstance(p, int) and p < len(names) else f"player {p + 1}"
                result = f"{who} to move"
            out.append({"game": game, "edition": s.get("title") or s.get("edition"),
                        "boards": ", ".join(sorted(s.get("boards") or {})),
                        "score": " - ".join(f"{t} {n}" for t, n in zip(teams, s["sequences"])),
                        "moves": s["n"], "status": result, "last": s.get("last", ""),
                        "over": bool(s.get("over"))})
        return out

    def render(self) -> str:
        rows = self.rows()
        if not rows:
            return "no table is publishing to this broker yet"
        head = f"{'game':<6} {'edition':<16} {'boards':<22} {'sequences':<22} {'moves':>5}  status"
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(f"{r['game']:<6} {str(r['edition'])[:16]:<16} {r['boards'][:22]:<22} "
                         f"{r['score'][:22]:<22} {r['moves']:>5}  {r['status']}")
        playing = sum(1 for r in rows if not r["status"].endswith(("won", "over")))
        lines.append(f"{len(rows)} table(s), {playing} playing")
        return "\n".join(lines)


PAGE = """<!doctype html><html><head><meta charset=utf-8>
<meta name=viewport content='width=device-width,initial-scale=1'><title>seqboard club</title>
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}
td,th{border-bottom:1px solid #ccc;padding:.3em .6em;text-align:left}
tr.over td{color:#555}.status{font-weight:bold}#note{color:#777}</style></head><body>
<h1>seqboard club</h1><p id=note>every table on the broker, live (read-only)</p>
<table><thead><tr><th>game</th><th>edition</th><th>boards</th><th>sequences</th>
<th>moves</th><th>status</th><th>last</th></tr></thead><tbody id=tables></tbody></table>
<p id=count></p>
<script>
function cell(text){const td=document.createElement('td');td.textContent=text;return td}
async function refresh(){
  try{
    const r=await fetch('tables.json',{cache:'no-store'});const rows=await r.json();
    const body=document.getElementById('tables');body.replaceChildren();
    let playing=0;
    for(const t of rows){
      const tr=document.createElement('tr');tr.dataset.game=t.game;
      if(t.over)tr.className='over';else playing++;
      for(const k of ['game','edition','boards','score','moves','status','last'])
        tr.appendChild(cell(String(t[k]??'')));
      tr.children[5].className='status';body.appendChild(tr);
    }
    document.getElementById('count').textContent=
      rows.length?`${rows.length} table(s), ${playing} playing`:'no table is publishing to this broker yet';
    document.getElementById('note').textContent='every table on the broker, live (read-only)';
  }catch(e){document.getElementById('note').textContent='the club view is not answering'}
}
refresh();setInterval(refresh,1000);
</script></body></html>"""


class ClubPage:
    """The club view as a page: ``/`` (it fetches ``/tables.json`` every second) and
    ``/tables.json``. Read-only: GET and HEAD only, nothing else is served. The main loop
    hands it the rows (:meth:`show`); the server thread only reads them."""

    def __init__(self, host: str = "0.0.0.0", port: int = 8090) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.lock = threading.Lock()
        self._json = b"[]"
        page = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, code: int, body: bytes, kind: str, head: bool = False) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("X-Content-Type-Options", "nosniff")
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def do_GET(self, head: bool = False):  # noqa: N802 - the http.server name
                path = self.path.split("?", 1)[0]
                if path in ("/", "/index.html"):
                    self._send(200, PAGE.encode(), "text/html; charset=utf-8", head)
                elif path == "/tables.json":
                    with page.lock:
                        body = page._json
                    self._send(200, body, "application/json", head)
                else:
                    self._send(404, b'{"error": "no such page"}', "application/json", head)

            def do_HEAD(self):  # noqa: N802
                self.do_GET(head=True)

            def _read_only(self):
                self._send(405, json.dumps({"error": f"{self.command} is not allowed: the "
                                            "club view is read-only"}).encode(),
                           "application/json")

            do_POST = do_PUT = do_DELETE = do_PATCH = _read_only  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="club-page",
                                       daemon=True)

    def start(self) -> "ClubPage":
        self.thread.start()
        return self

    def show(self, rows: list[dict]) -> None:
        import json
        body = json.dumps(rows).encode()
        with self.lock:
            self._json = body

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
