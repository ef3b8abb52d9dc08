"""The dashboard under a flood of idle and half-sent connections while a game is refereed.

A dashboard serves a live referee session on 127.0.0.1; a page client (WebSocket) watches
it. Moves of a seeded game are fed to the session one by one, first quietly, then while
another process holds >= 2,000 idle or half-sent connections from 40 loopback addresses
(127.0.1.x, each one a "client"), reopening each one the server closes; then quietly again.
Meanwhile a stranger (127.0.2.1) guesses wrong PINs and the owner (127.0.2.2) logs in and
loads the page.

**Verdict latency** is measured from the observation being handed to the session (just
before ``Session.observe``) to the verdict's state message reaching the connected page
client. The ratio is the median under the flood over the median of the quiet runs.

Example::

    python benchmarks/faults_dashboard.py --quick
    python benchmarks/faults_dashboard.py --json

``measure(quick)`` returns the flat dict (used by ``benchmarks/faults.py``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import selectors
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FLOOD = 2200                   # connections the flood holds
FLOOD_ADDRESSES = 40           # 127.0.1.1 .. 127.0.1.40 (55 each, under the per-client cap)
STRANGER, OWNER = "127.0.2.1", "127.0.2.2"
SEQ = re.compile(rb'"seq":(\d+)')


def _raise_nofile(want: int) -> tuple[int, int]:
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)


# --- the flood (a process of its own, like a stranger's machine) ---------------------------
def flood(port: int, count: int, addresses: int, seconds: float) -> None:
    """Hold ``count`` idle / half-header / half-body connections, reopening closed ones;
    print one JSON line a half second: how many are open now."""
    soft, _ = _raise_nofile(count + 256)
    if soft < count + 64:
        print(json.dumps({"error": f"flood: open-files limit {soft} < {count + 64}"}), flush=True)
        return
    sel = selectors.DefaultSelector()
    kinds = [b"", b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ",
             b"POST /api/login HTTP/1.1\r\nHost: x\r\nX-Seqboard: 1\r\nContent-Length: 1000\r\n\r\n{\"pin\": \""]
    state = {}                 # sock -> [slot, connected]
    opened = closed = failed = 0

    def open_one(slot: int) -> None:
        nonlocal opened, failed
        s = socket.socket()
        s.setblocking(False)
        try:
            s.bind((f"127.0.1.{1 + slot % addresses}", 0))
        except OSError:
            s.close()
            failed += 1
            return
        s.connect_ex(("127.0.0.1", port))
        state[s] = [slot, False]
        sel.register(s, selectors.EVENT_WRITE | selectors.EVENT_READ)
        opened += 1

    for slot in range(count):
        open_one(slot)
    end = time.monotonic() + seconds
    next_report = 0.0
    while time.monotonic() < end:
        for key, ev in sel.select(0.1):
            s = key.fileobj
            slot, connected = state[s]
            gone = False
            if ev & selectors.EVENT_READ:
                try:
                    s.recv(4096)                        # any answer (408, 503) or EOF: closed
                    gone = True
                except BlockingIOError:
                    pass
                except OSError:
                    gone = True
            if not gone and ev & selectors.EVENT_WRITE and not connected:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    gone = True
                else:
                    state[s][1] = True
                    sel.modify(s, selectors.EVENT_READ)
                    try:
                        s.send(kinds[slot % 3])
                    except OSError:
                        gone = True
            if gone:
                sel.unregister(s)
                del state[s]
                s.close()
                closed += 1
                open_one(slot)
        now = time.monotonic()
        if now >= next_report:
            next_report = now + 0.5
            held = sum(1 for v in state.values() if v[1])
            print(json.dumps({"open": held, "opened": opened, "closed": closed,
                              "failed": failed}), flush=True)
    for s in list(state):
        s.close()


# --- the measurement ----------------------------------------------------------------------
class _Table:
    """A referee session served by a dashboard, fed one move at a time by a "main loop"."""

    def __init__(self, records: Path) -> None:
        from engine.game import Game
        from engine.players import GreedyPlayer
        from engine.referee import Referee
        from seqboard.dashboard import Dashboard
        from seqboard.loop import Commands
        from seqboard.session import Session
        self._Game, self._Greedy, self._Referee, self._Session = Game, GreedyPlayer, Referee, Session
        self.commands = Commands()
        self.dash = Dashboard(None, records, self.commands, pin="246813", host="127.0.0.1", port=0)
        self.games = 0
        self._new_game()
        self.url = self.dash.start()

    def _new_game(self) -> None:
        self.games += 1
        seed = 100 + self.games
        self.ref = self._Referee("classic", 2)
        self.session = self._Session(self.ref, mode="referee")
        self.game = self._Game("classic", 2, rng=random.Random(seed))
        self.players = [self._Greedy(random.Random(seed + 1)), self._Greedy(random.Random(seed + 2))]
        self.dash.attach(self.session)

    def next_observation(self):
        from engine.observation import SpaceState
        while True:
            if self.game.over or self.ref.over:
                self._new_game()
            g = self.game
            m = self.players[g.current].choose(g)
            g.push(m)
            if m.action in ("place", "remove"):
                break
        exp = self.ref.expected()
        st = SpaceState(self.ref.colours[self.ref.team]) if m.action == "place" else SpaceState.EMPTY
        return exp.replace({m.space: st})


class _Page:
    """A page client: the arrival time of every state message, by its seq."""

    def __init__(self, url: str) -> None:
        from websockets.sync.client import connect
        self.arrivals: dict[int, float] = {}
        self.ws = connect(url.replace("http://", "ws://") + "ws", open_timeout=10,
                          max_size=2**22)
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self) -> None:
        try:
            for msg in self.ws:
                now = time.monotonic()
                m = SEQ.search(msg.encode() if isinstance(msg, str) else msg)
                if m:
                    self.arrivals.setdefault(int(m.group(1)), now)
        except Exception:
            pass

    def close(self) -> None:
        self.ws.close()


def _run_moves(table: _Table, page: _Page, n: int, gap: float,
               judged: list[float] | None = None) -> list[float]:
    """Feed ``n`` moves; each one's latency (ms) to the page client (and, into ``judged``,
    to the session's verdict: the main loop's own time)."""
    out = []
    for _ in range(n):
        obs = table.next_observation()
        seq = table.dash._seq + 1
        t0 = time.monotonic()
        table.session.observe(obs)
        if judged is not None:
            judged.append((time.monotonic() - t0) * 1000)
        end = t0 + 5.0
        while seq not in page.arrivals and time.monotonic() < end:
            time.sleep(0.0005)
        if seq in page.arrivals:
            out.append((page.arrivals[seq] - t0) * 1000)
        time.sleep(gap)
    return out


def _post(addr: str, port: int, path: str, body: dict, cookie: str | None = None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(addr, 0))
    headers = {"Content-Type": "application/json", "X-Seqboard": "1"}
    if cookie:
        headers["Cookie"] = cookie
    c.request("POST", path, json.dumps(body), headers)
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def _get(addr: str, port: int, path: str) -> tuple[int, float]:
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(addr, 0))
    c.request("GET", path)
    r = c.getresponse()
    r.read()
    c.close()
    return r.status, (time.monotonic() - t0) * 1000


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def measure(quick: bool = False) -> dict:
    """The flat figures (see the module's docstring)."""
    import tempfile
    soft, hard = _raise_nofile(8192)
    moves = 40 if quick else 100         # each at 0.25 s: the flood lasts past its timeouts
    gap = 0.25
    out: dict = {"open_files_soft": soft, "open_files_hard": hard,
                 "open_files_enough": soft >= FLOOD + 1024 + 256}
    with tempfile.TemporaryDirectory() as tmp:
        table = _Table(Path(tmp))
        port = table.dash.port
        page = _Page(table.url)
        try:
            _run_moves(table, page, 3, gap)                      # warm up
            judged_quiet: list[float] = []
            judged_flood: list[float] = []
            quiet = _run_moves(table, page, moves // 2, gap, judged_quiet)
            rss_quiet = _rss_mb()
            seconds = 90 if quick else 180
            proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--flood", str(port), str(FLOOD),
                 str(FLOOD_ADDRESSES), str(seconds)],
                stdout=subprocess.PIPE, text=True)
            reports: list[dict] = []
            reader = threading.Thread(
                target=lambda: [reports.append(json.loads(line)) for line in proc.stdout],
                daemon=True)
            reader.start()
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                if table.dash.guard.figures()["http"] >= FLOOD * 0.97:
                    break
                time.sleep(0.2)
            held_samples: list[int] = []
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    held_samples.append(table.dash.guard.figures()["http"])
                    stop.wait(0.25)
            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            flooded = _run_moves(table, page, moves // 2, gap, judged_flood)
            # a stranger guesses; the owner, elsewhere, still gets in and loads the page
            stranger = [_post(STRANGER, port, "/api/login", {"pin": f"{k:06d}"}) for k in range(20)]
            owner = _post(OWNER, port, "/api/login", {"pin": "246813"})
            page_status, page_ms = _get(OWNER, port, "/")
            low_fds = []
            try:                                             # the board link reopens: a pty
                a, b = os.openpty()
                low_fds = [a, b]
            except OSError:
                pass
            flooded += _run_moves(table, page, moves // 2, gap, judged_flood)  # past the timeouts
            stop.set()
            sampler.join()
            figures = table.dash.guard.figures()
            rss_flood = _rss_mb()
            proc.terminate()
            proc.wait(10)
            for fd in low_fds:
                os.close(fd)
            time.sleep(1.0)
            quiet += _run_moves(table, page, moves // 2, gap, judged_quiet)
        finally:
            page.close()
            table.dash.stop()
    client_open = [r.get("open", 0) for r in reports if "open" in r]
    errors = [r["error"] for r in reports if "error" in r]
    q50, f50 = statistics.median(quiet), statistics.median(flooded)
    out.update({
        # held by the server, sampled every 0.25 s while the moves under flood were fed:
        # the median, and the lowest (right after a wave of 10 s timeouts, before the
        # flood has reopened them all) and highest sample
        "idle_connections_held": int(statistics.median(held_samples)) if held_samples else 0,
        "idle_connections_held_min": min(held_samples) if held_samples else 0,
        "idle_connections_held_max": max(held_samples) if held_samples else 0,
        "flood_connections_target": FLOOD,
        "flood_client_open_max": max(client_open) if client_open else 0,
        "flood_addresses": FLOOD_ADDRESSES,
        "verdict_latency_quiet_ms_p50": round(q50, 2),
        "verdict_latency_quiet_ms_p95": round(_p(quiet, 0.95), 2),
        "verdict_latency_flood_ms_p50": round(f50, 2),
        "verdict_latency_flood_ms_p95": round(_p(flooded, 0.95), 2),
        "verdict_latency_ratio_under_flood": round(f50 / q50, 3),
        "verdict_latency_ratio_under_flood_p95": round(_p(flooded, 0.95) / _p(quiet, 0.95), 3),
        "session_verdict_ms_quiet_p50": round(statistics.median(judged_quiet), 3),
        "session_verdict_ms_flood_p50": round(statistics.median(judged_flood), 3),
        "session_verdict_ms_flood_max": round(max(judged_flood), 3),
        "session_verdict_ms_quiet_max": round(max(judged_quiet), 3),
        "moves_quiet": len(quiet), "moves_flood": len(flooded),
        "server_rss_mb_quiet": round(rss_quiet, 1),
        "server_rss_mb_under_flood": round(rss_flood, 1),
        "server_timed_out": figures["timed_out"], "server_evicted": figures["evicted"],
        "server_refused": figures["refused"],
        "stranger_wrong_pins": sum(1 for s in stranger if s == 403),
        "stranger_refused_429": sum(1 for s in stranger if s == 429),
        "owner_login_status": owner,
        "pin_owner_locked_out": owner != 200,
        "owner_page_status": page_status, "owner_page_ms_under_flood": round(page_ms, 1),
        "board_link_fds_below_1024": bool(low_fds) and max(low_fds) < 1024,
    })
    if errors:
        out["flood_error"] = errors[0]
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--flood"]:
        flood(int(argv[1]), int(argv[2]), int(argv[3]), float(argv[4]))
        return 0
    ap = argparse.ArgumentParser(
        description="The dashboard under >= 2,000 idle/half-sent connections while a game is "
                    "refereed: connections held, verdict latency under the flood against "
                    "quiet, and whether a stranger guessing PINs locks the owner out.",
        epilog="example: python benchmarks/faults_dashboard.py --quick --json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="one flat JSON object")
    ap.add_argument("--quick", action="store_true", help="fewer moves (under a minute)")
    args = ap.parse_args(argv)
    if not args.json:
        print("flooding the dashboard while refereeing (about a minute or two) ...",
              file=sys.stderr, flush=True)
    out = measure(args.quick)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:38} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
