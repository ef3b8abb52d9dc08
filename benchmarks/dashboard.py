"""Dashboard under load: 50 browsers connected over WebSocket while a game is refereed.

It plays a seeded two-player game into a referee session (the main loop at its usual tick
of 50 ms, a move every few ticks, the terminal indicator attached as in the app), twice:
without the dashboard, and with the dashboard serving 50 WebSocket clients. It prints the
time from each verdict to its arrival in every client (p50, p95, max) and the main loop's
slowdown: the mean loop period with the dashboard over the mean without.

    python benchmarks/dashboard.py                 # the figures
    python benchmarks/dashboard.py --json          # {"dashboard_latency_ms_p95": ..., "dashboard_loop_slowdown": ...}
    python benchmarks/dashboard.py --clients 10 --moves 20
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.game import Game  # noqa: E402
from engine.observation import SpaceState  # noqa: E402
from engine.players import GreedyPlayer  # noqa: E402
from engine.referee import Referee  # noqa: E402
from seqboard.indicators.terminal import TerminalIndicator  # noqa: E402
from seqboard.loop import Commands  # noqa: E402
from seqboard.session import Session  # noqa: E402


def observations(moves: int, seed: int = 1):
    """The boards of a real game, move after move, as the referee would see them."""
    g = Game("classic", 2, rng=random.Random(seed))
    ref = Referee("classic", 2)
    players = [GreedyPlayer(random.Random(seed + 1)), GreedyPlayer(random.Random(seed + 2))]
    out = []
    while len(out) < moves and not g.over:
        m = players[g.current].choose(g)
        g.push(m)
        if m.action not in ("place", "remove"):
            continue
        exp = ref.expected()
        obs = exp.replace({m.space: SpaceState(ref.colours[ref.team]) if m.action == "place"
                           else SpaceState.EMPTY})
        ref.observe(obs)
        out.append(obs)
    return out


def run_loop(obs_list, session: Session, tick: float, every: int) -> list[float]:
    """The main loop: a tick, an observation every ``every`` ticks; the period of each tick."""
    commands = Commands()
    periods = []
    k = 0
    last = time.perf_counter()
    for i in range(len(obs_list) * every):
        commands.run_pending()
        if i % every == 0:
            session.observe(obs_list[k])
            k += 1
        time.sleep(tick)
        now = time.perf_counter()
        periods.append(now - last)
        last = now
    return periods


async def clients(url: str, n: int, expect: int, lat: list[float], ready: threading.Event,
                  done: threading.Event) -> None:
    import websockets

    async def one():
        async with websockets.connect(url, max_size=2 ** 22) as ws:
            await ws.recv()                               # the state on connection
            counter["ready"] += 1
            if counter["ready"] == n:
                ready.set()
            got = 0
            while got < expect:
                msg = json.loads(await ws.recv())
                if msg.get("event", {}).get("kind") in ("verdict", "warning"):
                    lat.append(time.time() - msg["sent"])
                    got += 1
    counter = {"ready": 0}
    await asyncio.gather(*(one() for _ in range(n)))
    done.set()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Dashboard latency and main-loop slowdown under load.",
                                 epilog="example: python benchmarks/dashboard.py --json")
    ap.add_argument("--json", action="store_true", help="print one flat JSON object")
    ap.add_argument("--clients", type=int, default=50, help="WebSocket clients (default 50)")
    ap.add_argument("--moves", type=int, default=40, help="moves played (default 40)")
    ap.add_argument("--tick", type=float, default=0.05, help="main-loop tick in seconds (default 0.05)")
    ap.add_argument("--every", type=int, default=3, help="ticks between moves (default 3)")
    args = ap.parse_args(argv)
    from seqboard.dashboard import Dashboard

    obs = observations(args.moves)
    print(f"without the dashboard: {len(obs)} moves ...", file=sys.stderr, flush=True)
    s0 = Session(Referee("classic", 2), mode="referee")
    s0.subscribe(TerminalIndicator(io.StringIO(), live=False, colour=False))
    base = run_loop(obs, s0, args.tick, args.every)

    print(f"with the dashboard and {args.clients} clients ...", file=sys.stderr, flush=True)
    s1 = Session(Referee("classic", 2), mode="referee")
    s1.subscribe(TerminalIndicator(io.StringIO(), live=False, colour=False))
    with tempfile.TemporaryDirectory() as tmp:
        dash = Dashboard(None, tmp, Commands(), pin="0000", host="127.0.0.1", port=0)
        dash.attach(s1)
        url = dash.start().replace("http://", "ws://") + "ws"
        lat: list[float] = []
        ready, done = threading.Event(), threading.Event()
        t = threading.Thread(target=lambda: asyncio.run(clients(url, args.clients, len(obs), lat,
                                                                 ready, done)), daemon=True)
        t.start()
        if not ready.wait(30):
            print("clients did not connect", file=sys.stderr)
            return 1
        loaded = run_loop(obs, s1, args.tick, args.every)
        done.wait(30)
        dash.stop()
    lat_ms = sorted(x * 1000 for x in lat)
    p95 = lat_ms[int(0.95 * (len(lat_ms) - 1))] if lat_ms else float("nan")
    out = {
        "dashboard_clients": args.clients,
        "dashboard_messages": len(lat_ms),
        "dashboard_latency_ms_p50": round(statistics.median(lat_ms), 2) if lat_ms else None,
        "dashboard_latency_ms_p95": round(p95, 2),
        "dashboard_latency_ms_max": round(lat_ms[-1], 2) if lat_ms else None,
        "dashboard_loop_period_ms": round(statistics.mean(loaded) * 1000, 3),
        "dashboard_loop_period_ms_without": round(statistics.mean(base) * 1000, 3),
        "dashboard_loop_slowdown": round(statistics.mean(loaded) / statistics.mean(base), 3),
    }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:36s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
