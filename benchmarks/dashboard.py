"""Dashboard under load: 50, then 200 browsers connected over WebSocket while a game is refereed.

It plays a seeded two-player game into a referee session (the main loop at its usual tick
of 50 ms, a move every few ticks, the terminal indicator attached as in the app), twice:
without the dashboard, and with the dashboard serving 50 WebSocket clients, then 200 (a club
room of watchers: the keys ending in _200). It prints the time from each verdict to its
arrival in every client (p50, p95, max) and the main loop's slowdown: the mean loop period
with the dashboard over the mean without.

The clients run in a process of their own, as browsers do: their JSON decoding is not the
server's cost and does not hold the server's interpreter lock.

    python benchmarks/dashboard.py                 # the figures
    python benchmarks/dashboard.py --json          # {"dashboard_latency_ms_p95": ..., "dashboard_latency_ms_p95_200": ...}
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


async def clients(url: str, n: int, expect: int, lat: list[float], ready, done) -> None:
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


def client_process(url: str, n: int, expect: int, pipe) -> None:
    """The browsers: ``n`` WebSocket clients in a process of their own; says "ready" once all
    are connected, then sends back every latency measured (seconds)."""
    lat: list[float] = []

    class Said:
        def set(self):
            pipe.send("ready")

    class Done:
        def set(self):
            pass
    try:
        asyncio.run(asyncio.wait_for(clients(url, n, expect, lat, Said(), Done()), 120))
    except Exception as exc:                              # a timeout: what arrived counts
        print(f"clients: {type(exc).__name__}: {exc}", file=sys.stderr)
    pipe.send(lat)


def measure(obs, n_clients: int, tick: float, every: int,
            direct: list[float]) -> tuple[list[float], list[float]]:
    """The loop's periods and every client's latencies with ``n_clients`` connected; the
    share of states written straight to a connection appended to ``direct``."""
    import multiprocessing
    from seqboard.dashboard import Dashboard
    s1 = Session(Referee("classic", 2), mode="referee")
    s1.subscribe(TerminalIndicator(io.StringIO(), live=False, colour=False))
    with tempfile.TemporaryDirectory() as tmp:
        dash = Dashboard(None, tmp, Commands(), pin="0000", host="127.0.0.1", port=0)
        dash.attach(s1)
        url = dash.start().replace("http://", "ws://") + "ws"
        ctx = multiprocessing.get_context("spawn")
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=client_process, args=(url, n_clients, len(obs), theirs),
                           daemon=True)
        proc.start()
        if not mine.poll(60) or mine.recv() != "ready":
            proc.kill()
            dash.stop()
            raise SystemExit(f"{n_clients} clients did not connect")
        loaded = run_loop(obs, s1, tick, every)
        lat = mine.recv() if mine.poll(150) else []
        proc.join(10)
        dash.stop()
        sent = n_clients * len(obs)
        direct.append(dash.direct_writes / sent if sent else 0.0)
    return loaded, lat


def figures(lat: list[float], loaded: list[float], base: list[float], suffix: str) -> dict:
    lat_ms = sorted(x * 1000 for x in lat)
    p95 = lat_ms[int(0.95 * (len(lat_ms) - 1))] if lat_ms else float("nan")
    return {
        f"dashboard_messages{suffix}": len(lat_ms),
        f"dashboard_latency_ms_p50{suffix}": round(statistics.median(lat_ms), 2) if lat_ms else None,
        f"dashboard_latency_ms_p95{suffix}": round(p95, 2),
        f"dashboard_latency_ms_max{suffix}": round(lat_ms[-1], 2) if lat_ms else None,
        f"dashboard_loop_period_ms{suffix}": round(statistics.mean(loaded) * 1000, 3),
        f"dashboard_loop_slowdown{suffix}": round(statistics.mean(loaded) / statistics.mean(base), 3),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Dashboard latency and main-loop slowdown under load.",
                                 epilog="example: python benchmarks/dashboard.py --json")
    ap.add_argument("--json", action="store_true", help="print one flat JSON object")
    ap.add_argument("--clients", type=int, default=50, help="WebSocket clients (default 50)")
    ap.add_argument("--many", type=int, default=200,
                    help="the room of watchers measured next, keys ending in _200 (default 200; 0: skip)")
    ap.add_argument("--moves", type=int, default=40, help="moves played (default 40)")
    ap.add_argument("--tick", type=float, default=0.05, help="main-loop tick in seconds (default 0.05)")
    ap.add_argument("--every", type=int, default=3, help="ticks between moves (default 3)")
    args = ap.parse_args(argv)

    obs = observations(args.moves)
    print(f"without the dashboard: {len(obs)} moves ...", file=sys.stderr, flush=True)
    s0 = Session(Referee("classic", 2), mode="referee")
    s0.subscribe(TerminalIndicator(io.StringIO(), live=False, colour=False))
    base = run_loop(obs, s0, args.tick, args.every)
    out = {"dashboard_clients": args.clients,
           "dashboard_loop_period_ms_without": round(statistics.mean(base) * 1000, 3)}
    print(f"with the dashboard and {args.clients} clients ...", file=sys.stderr, flush=True)
    direct: list[float] = []
    loaded, lat = measure(obs, args.clients, args.tick, args.every, direct)
    out.update(figures(lat, loaded, base, ""))
    if args.many:
        print(f"with the dashboard and {args.many} clients ...", file=sys.stderr, flush=True)
        loaded, lat = measure(obs, args.many, args.tick, args.every, direct)
        suffix = "_200" if args.many == 200 else f"_{args.many}"
        out.update(figures(lat, loaded, base, suffix))
        # states framed once and written straight to a browser's connection (the rest went
        # through that browser's queue: it had fallen behind)
        out[f"dashboard_direct_share{suffix}"] = round(direct[-1], 3)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:36s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
