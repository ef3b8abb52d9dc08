"""Serial link speed through the emulated matrix, its line paced at a real baud rate.

For each line speed (115200 and 1000000 baud) it measures:

* LED frames per second when the app always has a newer frame ready (every frame the board
  shows is a whole 100-LED frame), and the time per frame as a ratio to the wire time of
  that frame's bytes (1.0 would be a line never idle);
* the snapshot round trip: from asking for the full sensor state to holding it, in ms and as
  a ratio to the wire time of the request, its ACK and the answer.

    python benchmarks/bridge.py                 # human-readable
    python benchmarks/bridge.py --json          # {"led_frames_per_s_115200": ..., ...}
    python benchmarks/bridge.py --seconds 5     # a longer LED run per speed
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from firmware_bridge import protocol as P  # noqa: E402
from firmware_bridge.link import MatrixLink  # noqa: E402
from firmware_bridge.wiring import make_wiring  # noqa: E402

SPEEDS = (115200, 1000000)


def wire_s(nbytes: int, baud: int) -> float:
    return nbytes * 10 / baud          # 8N1: ten bit times per byte


def start_emulator(baud: int) -> tuple[subprocess.Popen, str]:
    """The emulated board in a process of its own, as the real one is a chip of its own
    (in this process it would compete with the link for the interpreter lock), on a pty:
    the host sees a serial port, as it would the real board's."""
    proc = subprocess.Popen([sys.executable, "-m", "seqboard", "matrix", "emulate", "--pty",
                             "--baud", str(baud)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = proc.stdout.readline()
    if " at " not in line:
        proc.kill()
        raise SystemExit(f"bridge benchmark: the emulator did not start: {line.strip()!r}")
    return proc, line.rsplit(" at ", 1)[1].strip()


def measure(baud: int, seconds: float, snapshots: int, progress) -> dict:
    proc, url = start_emulator(baud)
    link = MatrixLink(url, baud=baud, wiring=make_wiring(10, 10), led_rate=0)
    link.start(wait=5)
    try:
        # --- LED frames: the app always has a newer picture ready ---------------------------
        frame_bytes = len(P.Frame(P.LEDS, 1, P.pack_leds([(1, 2, 3)] * 100)).encode())
        stop = threading.Event()

        def feed():
            k = 0
            while not stop.is_set():
                if link._want_leds is None:          # the previous one is on its way
                    k += 1
                    link.set_leds([((k + i) % 256, k % 256, i) for i in range(100)])
                else:
                    time.sleep(0.0002)

        time.sleep(0.3)
        acked0 = link.stats.leds_acked
        t0 = time.perf_counter()
        th = threading.Thread(target=feed, daemon=True)
        th.start()
        time.sleep(seconds)
        acked = link.stats.leds_acked - acked0
        took = time.perf_counter() - t0
        stop.set()
        th.join()
        progress(f"{baud} baud: {acked} LED frames in {took:.1f} s")
        per_frame = took / max(acked, 1)
        led_fps = acked / took
        led_ratio = per_frame / wire_s(frame_bytes, baud)

        # --- snapshot round trip ---------------------------------------------------------------
        time.sleep(0.2)
        got = threading.Event()
        link.subscribe(lambda snap: got.set())
        # timed by the link itself: from the request leaving to the snapshot decoded
        link.stats.snapshot_rtts.clear()
        for i in range(snapshots):
            time.sleep(0.02)
            got.clear()
            link.request_snapshot()
            got.wait(2.0)
        rtts = list(link.stats.snapshot_rtts)
        snap = link.latest_snapshot()
        req = len(P.Frame(P.STATE_REQ, 1).encode())
        ack = len(P.Frame(P.ACK, 1, b"\x01\x00").encode())
        state = len(P.Frame(P.STATE, 1, snap.pack()).encode())
        rtt = statistics.median(rtts)
        # the request goes out, then the ACK and the answer come back
        rtt_wire = wire_s(req, baud) + wire_s(ack + state, baud)
        progress(f"{baud} baud: snapshot round trip {rtt * 1000:.2f} ms over {len(rtts)} requests")
        return {
            f"led_frames_per_s_{baud}": round(led_fps, 1),
            f"led_wire_ratio_{baud}": round(led_ratio, 3),
            f"led_frame_bytes_{baud}": frame_bytes,
            f"snapshot_rtt_ms_{baud}": round(rtt * 1000, 2),
            f"snapshot_wire_ratio_{baud}": round(rtt / rtt_wire, 3),
            f"snapshot_wire_ms_{baud}": round(rtt_wire * 1000, 2),
        }
    finally:
        link.stop()
        proc.terminate()
        proc.wait(5)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="LED frames per second and snapshot round trip through the emulated "
                    "matrix at 115200 and 1000000 baud.",
        epilog="example: python benchmarks/bridge.py --json")
    ap.add_argument("--json", action="store_true", help="print one flat JSON object")
    ap.add_argument("--seconds", type=float, default=3.0, help="LED run per speed (default 3)")
    ap.add_argument("--snapshots", type=int, default=60, help="round trips per speed (default 60)")
    args = ap.parse_args(argv)

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    out: dict = {}
    for baud in SPEEDS:
        out.update(measure(baud, args.seconds, args.snapshots, progress))
    if args.json:
        print(json.dumps(out))
    else:
        for baud in SPEEDS:
            print(f"{baud:>8} baud: {out[f'led_frames_per_s_{baud}']:7.1f} LED frames/s "
                  f"({out[f'led_wire_ratio_{baud}']:.2f} x the wire time of "
                  f"{out[f'led_frame_bytes_{baud}']} bytes), snapshot round trip "
                  f"{out[f'snapshot_rtt_ms_{baud}']:.2f} ms "
                  f"({out[f'snapshot_wire_ratio_{baud}']:.2f} x its "
                  f"{out[f'snapshot_wire_ms_{baud}']:.2f} ms wire time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
