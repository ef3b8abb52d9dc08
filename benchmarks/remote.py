"""Remote play and the club view through a real, local Mosquitto.

* ``remote_move_latency_ms_p95``: two boards (each its own session, record, MQTT link and
  simulated table read by the referee, each on its own thread ticking every 20 ms as the
  app's loop does) play whole classic games; for every move, the time from the verdict at
  the board where it was judged to the proposal shown at the other board. Floor <= 100.
* ``club_tables``: simulated tables (a separate process, one MQTT client per table) each
  publishing its state summary after every move (one every ``--move-every`` s); the club
  view (:class:`seqboard.remote.club.Club`, polled every 50 ms as ``seqboard club`` does)
  in this process. ``club_move_latency_ms_p95``: publication to seen by the club. Floor
  <= 250 with >= 100 tables.
* ``broker_cpu_percent`` (Mosquitto, over the club run), ``club_cpu_percent`` (this
  process: the club view only) and ``remote_boards_cpu_percent`` (both boards during the
  games), in % of one core.

    python benchmarks/remote.py                # human-readable
    python benchmarks/remote.py --json         # one flat JSON object
    python benchmarks/remote.py --quick        # one game, 20 tables for 3 s
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine.referee import Referee  # noqa: E402
from seqboard.recorder import RecordWriter, new_record_path  # noqa: E402
from seqboard.remote import protocol as P  # noqa: E402
from seqboard.remote import start  # noqa: E402
from seqboard.remote.client import Link  # noqa: E402
from seqboard.remote.club import Club  # noqa: E402
from seqboard.remote.sim import Person  # noqa: E402
from seqboard.session import Session  # noqa: E402
from tests.remote.broker import Broker  # noqa: E402

TICK = 0.02


def p95(xs: list[float]) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def proc_cpu(pid: int) -> float:
    """Seconds of CPU (user + system) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _link(port: int, name: str) -> Link:
    lk = Link("127.0.0.1", port, client_id=f"bench-{name}-{random.randrange(1 << 30)}")
    lk.start()
    return lk


def remote_games(port: int, games: int, tmp: Path) -> dict:
    judged: dict[tuple[int, int], float] = {}
    shown: dict[tuple[int, int], float] = {}
    moves = 0
    cpu0 = time.process_time()
    wall0 = time.monotonic()
    for g in range(games):
        d = tmp / f"g{g}"
        d.mkdir()
        ref = Referee("classic", 2)
        sa = Session(ref, recorder=RecordWriter(new_record_path(d, "remote")), mode="remote")
        a, code = start.create(sa, _link(port, f"a{g}"), board="alpha", seats=[0], deck_seed=g)
        b = start.join(_link(port, f"b{g}"), code, board="beta", seats=None,
                       recorder=RecordWriter(new_record_path(d, "remote-b")))
        for rg in (a, b):
            def listen(event, view, rg=rg, g=g):
                if event.kind == "verdict" and event.verdict is not None \
                        and event.verdict.kind in ("placement", "removal") \
                        and "computer_card" not in event.data:
                    judged[(g, rg.n)] = time.perf_counter()
                elif event.kind == "proposal":
                    shown[(g, rg.n + 1)] = time.perf_counter()
            rg.session.subscribe(listen)
        people = [Person(a, seed=g), Person(b, seed=g + 100)]
        threads = [threading.Thread(target=_board_loop, args=(p,), daemon=True) for p in people]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        moves += a.n
        for rg in (a, b):
            rg.link.close()
            rg.session.recorder.close()
    cpu = time.process_time() - cpu0
    wall = time.monotonic() - wall0
    lat = [(shown[k] - judged[k]) * 1000 for k in judged if k in shown]
    return {"remote_move_latency_ms_p95": round(p95(lat), 1),
            "remote_move_latency_ms_median": round(statistics.median(lat), 1) if lat else None,
            "remote_moves_measured": len(lat), "remote_games": games,
            "remote_boards_cpu_percent": round(100 * cpu / wall, 1)}


def _board_loop(person: Person) -> None:
    end = time.monotonic() + 120
    while not person.rg.session.ended and time.monotonic() < end:
        person.tick(time.monotonic())
        time.sleep(TICK)


def tables_child(port: int, n: int, seconds: float, every: float) -> None:
    """N simulated tables, one MQTT client each, publishing a state after every 'move'."""
    links = [_link(port, f"t{i}") for i in range(n)]
    games = [P.new_code()[:5] for _ in range(n)]
    rng = random.Random(1)
    nxt = [time.monotonic() + rng.random() * every for _ in range(n)]
    moves = [0] * n
    end = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < end:
        now = time.monotonic()
        for i in range(n):
            if now >= nxt[i]:
                moves[i] += 1
                nxt[i] += every
                state = {"type": "state", "n": moves[i], "edition": "classic",
                         "title": "SEQUENCE", "names": [], "colours": ["B", "G"],
                         "boards": {f"t{i}a": [0], f"t{i}b": [1]}, "to_move": moves[i] % 2,
                         "sequences": [moves[i] // 40, 0], "to_win": 2, "over": False,
                         "winner": None, "last": "", "time": time.time(), "sim": 1}
                t = P.state_topic(games[i])
                links[i].publish(t, P.encode(state, t, None))
                sent += 1
        time.sleep(0.005)
    time.sleep(0.5)
    for lk in links:
        lk.close()
    print(json.dumps({"sent": sent}), flush=True)


def club_run(broker: Broker, n: int, seconds: float, every: float) -> dict:
    link = _link(broker.port, "club")
    lat: list[float] = []
    sims: set[str] = set()
    club = Club(link)
    real_drain = link.drain

    def drain(limit=10_000):
        got = real_drain(limit)
        now = time.time()
        for t, payload in got:
            try:
                msg = json.loads(payload)
                if msg.get("sim"):
                    lat.append((now - msg["time"]) * 1000)
                    sims.add(t)
            except (ValueError, KeyError, TypeError):
                pass
        return got

    link.drain = drain
    club.poll()
    b0 = proc_cpu(broker.pid())
    c0 = time.process_time()
    w0 = time.monotonic()
    child = subprocess.Popen([sys.executable, __file__, "--tables-child", str(n), str(seconds),
                              str(every), str(broker.port)], stdout=subprocess.PIPE, text=True)
    while child.poll() is None:
        club.poll()
        time.sleep(0.05)
    club.poll()
    wall = time.monotonic() - w0
    sent = json.loads(child.stdout.read().strip().splitlines()[-1])["sent"]
    link.close()
    assert len(sims) <= len(club.tables)
    return {"club_tables": len(sims), "club_messages": sent,
            "club_messages_seen": len(lat),
            "club_move_latency_ms_p95": round(p95(lat), 1),
            "broker_cpu_percent": round(100 * (proc_cpu(broker.pid()) - b0) / wall, 1),
            "club_cpu_percent": round(100 * (time.process_time() - c0) / wall, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="example: python benchmarks/remote.py --json --quick")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one game, 20 tables for 3 s")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--tables", type=int, default=120)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--move-every", type=float, default=2.0,
                    help="seconds between moves at each simulated table")
    ap.add_argument("--tables-child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tables_child:
        n, seconds, every, port = args.tables_child
        tables_child(int(port), int(n), float(seconds), float(every))
        return 0
    if args.quick:
        args.games, args.tables, args.seconds = 1, 20, 3.0
    tmp = Path(tempfile.mkdtemp(prefix="seqboard-bench-remote-"))
    broker = Broker(tmp / "broker" if (tmp / "broker").mkdir() is None else None).start()
    try:
        if not args.json:
            print(f"mosquitto on 127.0.0.1:{broker.port}; {args.games} remote game(s) ...",
                  file=sys.stderr, flush=True)
        out = remote_games(broker.port, args.games, tmp)
        if not args.json:
            print(f"{args.tables} simulated tables for {args.seconds:g} s ...", file=sys.stderr,
                  flush=True)
        out.update(club_run(broker, args.tables, args.seconds, args.move_every))
    finally:
        broker.cleanup()
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:32} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
