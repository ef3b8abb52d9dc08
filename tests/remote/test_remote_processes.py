"""Two seqboard processes, each reading its own emulated matrix board (the real serial
protocol over TCP), play a whole remote game through a real Mosquitto. The test is the
people at both tables: it places the chips each board asks for, and at a player's turn a
chip the player's virtual cards (printed at that board) allow. With faults: one board
stopped (SIGSTOP) for a few seconds, and one board killed (SIGKILL: a power cut) and
started again, resuming from its record and the broker while its chips stay on the board."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from engine.layout import Layout  # noqa: F401  (layout names come from the engine)
from engine.record import parse_record, replay

from ..app.helpers import write_config
from .broker import free_port

ENV = dict(os.environ, PYTHONUNBUFFERED="1")
COLOUR = {"blue": "B", "green": "G", "red": "R"}
PROPOSAL = re.compile(r"(blue|green|red) \(board \w+\) plays (\S+) (on|removing) ([a-z]+\d+)")
MY_TURN = re.compile(r"\((blue|green|red)\) to move here; cards: (.*)$")


def _reader(proc, q):
    for line in proc.stdout:
        q.put(line.rstrip("\n"))


class Emulator:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "seqboard", "matrix", "emulate", "--tcp", "0", "--sensor",
             "identity", "--seconds", "600"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, env=ENV)
        first = self.proc.stdout.readline()
        self.url = first.rsplit(" at ", 1)[1].strip()
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def say(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


class Board:
    def __init__(self, tmp: Path, broker, name: str) -> None:
        self.name = name
        self.dir = tmp / name
        self.dir.mkdir()
        self.emu = Emulator()
        self.cfg = write_config(self.dir, sensing={"source": "matrix"},
                                matrix={"port": self.emu.url, "sensor": "identity",
                                        "settle_seconds": 0.05},
                                gpio={"enabled": False}, dashboard={"enabled": False},
                                remote={"host": "127.0.0.1", "port": broker.port, "board": name,
                                        "hand_pages_port": free_port()})
        self.proc = None
        self.lines: queue.Queue = queue.Queue()
        self.log: list[str] = []
        self.again: str | None = None

    def start(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "seqboard", "play", "--config", str(self.cfg), "--records",
             str(self.dir / "records"), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, text=True, env=ENV)
        threading.Thread(target=_reader, args=(self.proc, self.lines), daemon=True).start()

    def wait_for(self, pattern: str, limit: float = 30) -> re.Match:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.log.append(line)
            m = re.search(pattern, line)
            if m:
                return m
        raise AssertionError(f"{self.name}: no {pattern!r} in:\n" + "\n".join(self.log[-30:]))

    def record(self) -> Path:
        return next((self.dir / "records").glob("*.jsonl"))

    def cells(self) -> list[int]:
        text = self.record().read_text("utf-8", errors="replace")
        lines = text.splitlines()
        while lines:
            try:
                json.loads(lines[-1])
                break
            except ValueError:
                lines.pop()
        return replay(parse_record("\n".join(lines), "x")).referee.board.cells

    def moves(self) -> list[tuple]:
        out = []
        for line in self.record().read_text("utf-8").splitlines():
            e = json.loads(line)
            if e["type"] == "move":
                out.append((e["n"], e["player"], e["action"], e.get("card"), e.get("space")))
        return out


def _choose(cards: list[str], cells: list[int], colour: str) -> tuple[str, str] | None:
    """A chip the cards allow: (command for the emulator, why)."""
    from engine.game import builtin_layout
    lay = builtin_layout("classic")
    for card in cards:
        if card in ("JD", "JC"):           # two-eyed jacks: any empty space
            s = next(i for i, c in enumerate(cells) if c == 0 and i not in lay.free)
            return f"place {lay.space_name(s)} {colour}", card
        if card in ("JH", "JS"):
            continue
        for s in lay.spaces_of.get(card, ()):
            if cells[s] == 0:
                return f"place {lay.space_name(s)} {colour}", card
    return None


def _play(boards: list[Board], until_moves: int | None = None, limit: float = 240,
          between=None) -> None:
    """Be the people at both tables until the game is over (or ``until_moves`` moves)."""
    end = time.monotonic() + limit
    over = set()
    while time.monotonic() < end and len(over) < len(boards):
        for b in boards:
            if b.again is not None:
                line, b.again = b.again, None
            else:
                try:
                    line = b.lines.get(timeout=0.05)
                except queue.Empty:
                    continue
            b.log.append(line)
            if "*** " in line:
                over.add(b.name)
            m = PROPOSAL.search(line)
            if m:
                colour, _, how, where = m.groups()
                b.emu.say(f"place {where} {COLOUR[colour]}" if how == "on" else f"remove {where}")
                continue
            m = MY_TURN.search(line)
            if m:
                if until_moves is not None and len(b.moves()) >= until_moves:
                    b.again = line             # this turn is played on the next call
                    return
                time.sleep(0.2)            # the record has the last move by now
                choice = _choose(m.group(2).split(), b.cells(), COLOUR[m.group(1)])
                assert choice is not None, f"{b.name}: nothing to play with {m.group(2)}"
                b.emu.say(choice[0])
        if between is not None:
            between()
    assert len(over) == len(boards), "\n".join(
        f"--- {b.name}\n" + "\n".join(b.log[-25:]) for b in boards)


def test_two_processes_play_a_whole_game_with_a_stop_and_a_power_cut(tmp_path, broker):
    north, south = Board(tmp_path, broker, "north"), Board(tmp_path, broker, "south")
    try:
        north.start("--remote", "create", "--seat", "1", "--new")
        code = north.wait_for(r"join code (\S+)").group(1)
        north.wait_for(r"cards of player 1: http://\S+/hand/\S+")
        south.start("--remote", code, "--new")
        south.wait_for(r"joined remote game \w+ as board south, seats 2")
        # a few moves, then south is stopped for 3 s: north waits, nothing is lost
        _play([north, south], until_moves=6, limit=120)
        os.kill(south.proc.pid, signal.SIGSTOP)
        time.sleep(3)
        os.kill(south.proc.pid, signal.SIGCONT)
        _play([north, south], until_moves=14, limit=120)
        # north loses power; started again, it resumes from its record and the broker
        north.proc.kill()
        north.proc.wait(10)
        before = north.moves()
        north.lines, north.again = queue.Queue(), None
        north.start("--remote", "create")
        north.wait_for(r"resumed remote game \w+ at move \d+ as board north")
        _play([north, south], limit=300)
        for b in (north, south):
            assert b.proc.wait(30) == 0
        assert north.moves()[:len(before)] == before
        assert north.moves() == south.moves() and len(north.moves()) > 20
        rn = replay(parse_record(north.record().read_text("utf-8"), "north"))
        rs = replay(parse_record(south.record().read_text("utf-8"), "south"))
        assert rn.ok and rs.ok and rn.over and rn.winner == rs.winner is not None
        assert len(list((north.dir / "records").glob("*.jsonl"))) == 1
    finally:
        for b in (north, south):
            if b.proc is not None and b.proc.poll() is None:
                b.proc.kill()
            b.emu.close()
