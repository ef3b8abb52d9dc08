"""Faults and bad inputs: does anything a glitch or a stranger does change the game?

* ``glitched_snapshot_phantoms``: refereed games on the emulated matrix board (the real
  serial protocol over TCP, the app's link, source, session and referee) while the board
  answers single state requests wrongly (a space misread, on occupancy and identity boards)
  and while answers arrive late, after a newer one. Every real chip placed must be judged
  once, and nothing else: a phantom is any verdict, warning or take-back the table did not
  make, or a space where the referee's board differs from the table at the end. Floor 0.
* ``bad_inputs_tried`` / ``bad_input_tracebacks``: the bad-input corpus
  (``tests/badinput/cases.py``: configs, calibrations, records, layouts, decks, images,
  arguments, serial frames) run as a user meets it; a traceback is any case whose output
  shows one. Floor 0. (``bad_input_not_clean`` counts cases whose answer falls short in
  another way: no line naming the file, key or byte, exit 0, a file changed.)
* the dashboard's figures (``idle_connections_held``, ``verdict_latency_ratio_under_flood``,
  ``pin_owner_locked_out``) come from ``benchmarks/faults_dashboard.py`` when it is there.

    python benchmarks/faults.py                 # human-readable
    python benchmarks/faults.py --json          # one flat JSON object
    python benchmarks/faults.py --quick         # fewer games (the same >= 100 faults)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine.referee import Referee  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402
from firmware_bridge.link import MatrixLink  # noqa: E402
from firmware_bridge.wiring import make_wiring  # noqa: E402
from seqboard.session import Session  # noqa: E402
from seqboard.sources import attach_matrix  # noqa: E402

SETTLE = 0.1


class Game:
    """One refereed game on an emulated board, the table's truth kept beside it."""

    def __init__(self, sensor: str, seed: int) -> None:
        self.emu = Emulator(10, 10, sensor=sensor)
        self.link = MatrixLink(self.emu.start_tcp(), wiring=make_wiring(10, 10))
        self.link.start(wait=5)
        self.ref = Referee("classic", 2)
        self.session = Session(self.ref, mode="referee")
        self.src = attach_matrix(self.link, self.session, settle=SETTLE)
        self.events: list[str] = []
        self.session.subscribe(lambda ev, view: self.events.append(ev.kind)
                               if ev.kind in ("verdict", "warning", "undo") else None)
        self.sensor = sensor
        self.rng = random.Random(seed)
        free = self.ref.layout.free
        self.spaces = [i for i in range(100) if i not in free]
        self.rng.shuffle(self.spaces)
        self.truth: dict[int, str] = {}         # space -> colour letter the table has
        self.placed = 0
        self.wait(lambda: self.session.source_problem is None and self.link.latest_snapshot(), 5)
        self.run(0.3)

    def step(self) -> None:
        obs = self.src.poll(time.monotonic())
        if obs is not None:
            self.session.observe(obs)

    def run(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            time.sleep(0.005)

    def wait(self, cond, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.step()
            if cond():
                return True
            time.sleep(0.005)
        return False

    def snapshots(self) -> int:
        s = self.link.stats
        return s.snapshots + s.stale_snapshots + s.duplicate_snapshots

    def place(self) -> bool:
        """A real, legal chip for the team to move; False when the game is over."""
        if self.session.ended or not self.spaces:
            return False
        space = self.spaces.pop()
        colour = self.ref.colours[self.ref.team]
        self.truth[space] = colour
        self.emu.place(space, colour if self.sensor == "identity" else None)
        self.placed += 1
        return self.wait(lambda: self.ref.board.cells[space] != 0, 3)

    def glitch(self) -> None:
        """One state answer misreads one space; then its confirmation comes and goes."""
        if self.sensor == "identity" and self.truth and self.rng.random() < 0.7:
            space = self.rng.choice(sorted(self.truth))
            value = self.rng.choice([c for c in "BGRW" if c != self.truth[space]] + [None, "occupied"])
        else:
            space = self.rng.choice([i for i in range(100) if i not in self.truth])
            value = "occupied" if self.sensor == "occupancy" else self.rng.choice("BGR")
        n = self.snapshots()
        self.emu.glitch_next_state(space, value)
        self.link.request_snapshot()
        self.wait(lambda: self.snapshots() > n, 2)             # the glitched one ...
        self.wait(lambda: self.snapshots() > n + 1, 2)         # ... and the one after it
        self.run(SETTLE)

    def late(self) -> None:
        """A state answer held back while a real chip goes down, arriving after the newer."""
        sent = self.emu.sent_states
        self.emu.delay_next_state()
        self.link.request_snapshot()
        self.wait(lambda: self.emu.sent_states > sent, 2)
        self.place()
        self.run(SETTLE * 2)

    def phantoms(self) -> int:
        verdicts = self.events.count("verdict")
        extra = max(0, verdicts - self.placed) + self.events.count("warning") + self.events.count("undo")
        wrong = sum(1 for i in range(100) if (self.ref.board.cells[i] != 0) != (i in self.truth)
                    and i not in self.ref.layout.free)
        return extra + wrong

    def close(self) -> None:
        self.link.stop()
        self.emu.stop()


def measure_glitches(glitches: int, late: int, seed: int = 1) -> dict:
    done_g = done_l = phantoms = placed = judged = stale = games = 0
    per_game_g = max(1, glitches // 4)
    sensor_cycle = ["occupancy", "identity"]
    while done_g < glitches or done_l < late:
        sensor = sensor_cycle[games % 2]
        g = Game(sensor, seed + games)
        games += 1
        try:
            for k in range(per_game_g):
                if done_g >= glitches and done_l >= late:
                    break
                if done_g < glitches:
                    g.glitch()
                    done_g += 1
                if done_l < late and k % 2 == 0:
                    g.late()
                    done_l += 1
                elif not g.place():
                    break
            g.run(0.3)
            phantoms += g.phantoms()
            placed += g.placed
            judged += g.events.count("verdict")
            stale += g.link.stats.stale_snapshots
        finally:
            g.close()
    return {"glitched_snapshot_phantoms": phantoms, "glitches_injected": done_g,
            "late_snapshots_injected": done_l, "late_snapshots_dropped": stale,
            "real_moves": placed, "real_moves_judged": min(judged, placed),
            "glitch_games": games}


def measure_bad_inputs() -> dict:
    sys.path.insert(0, ROOT)
    from tests.badinput.cases import all_cases, materialise, run_case, snapshot, verify
    cases = all_cases()
    tracebacks = not_clean = 0
    names = []
    base = Path(tempfile.mkdtemp(prefix="seqboard-faults-"))
    try:
        for k, case in enumerate(cases):
            d = base / f"{k}"
            before = {}
            if case.keep:
                materialise(case, d)
                before = snapshot(case, d)
                shutil.rmtree(d)
            res = run_case(case, d)
            problems = verify(case, res, d, before)
            if res.code == "traceback" or "Traceback" in res.err or "Traceback" in res.out:
                tracebacks += 1
                names.append(case.id)
            elif problems:
                not_clean += 1
                names.append(case.id)
            shutil.rmtree(d, ignore_errors=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    known = sum(1 for c in cases if c.xfail)
    return {"bad_inputs_tried": len(cases), "bad_input_tracebacks": tracebacks,
            "bad_input_not_clean": not_clean, "bad_input_known_failures": known,
            "bad_input_failing_cases": ",".join(names)}


def dashboard_figures(quick: bool) -> dict:
    path = Path(ROOT) / "benchmarks" / "faults_dashboard.py"
    if not path.exists():
        return {"dashboard_faults": "not measured: benchmarks/faults_dashboard.py is absent "
                                    "(the dashboard's part of issue 21, branch i21-dashboard)"}
    spec = importlib.util.spec_from_file_location("faults_dashboard", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return dict(mod.measure(quick=quick))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Inject matrix glitches and late snapshots into refereed games, run the "
                    "bad-input corpus, and (if present) the dashboard's fault figures.",
        epilog="example: python benchmarks/faults.py --json --quick",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="one flat JSON object on stdout")
    ap.add_argument("--quick", action="store_true",
                    help="fewer late snapshots (the 100 glitches stay), the dashboard's quick run")
    ap.add_argument("--glitches", type=int, default=100, help="single-snapshot glitches (default 100)")
    ap.add_argument("--late", type=int, default=None, help="late snapshots (default 40, quick 20)")
    args = ap.parse_args(argv)
    late = args.late if args.late is not None else (20 if args.quick else 40)
    if args.glitches < 0 or late < 0:
        ap.error("--glitches and --late are counts (0 or more)")
    t0 = time.monotonic()
    out: dict = {}
    say = (lambda *a: print(*a, file=sys.stderr, flush=True))
    say(f"glitches: {args.glitches} single-snapshot glitches and {late} late snapshots ...")
    out.update(measure_glitches(args.glitches, late))
    say("bad inputs: the corpus ...")
    out.update(measure_bad_inputs())
    say("dashboard ...")
    out.update(dashboard_figures(args.quick))
    out["faults_seconds"] = round(time.monotonic() - t0, 1)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:34s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
