"""Two seqboard processes, each reading its own emulated matrix board (the real serial
protocol over TCP), play a whole remote game through a real Mosquitto. The test is the
people at both tables: it places the chips each board asks for, and at a player's turn a
chip the player's virtual cards (printed at that board) allow. With faults: one board
stopped (SIGSTOP) for a few seconds, and one board killed (SIGKILL: a power cut) and
started again, resuming from its record and the broker while its chips stay on the board.
Another pair starts its game from the dashboard pages (create, join with the code, with the
PIN) and agrees an undo through them.

Every wait is for a line the board prints or a move in its record, with generous limits:
a loaded machine makes the test slower, never wrong."""

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
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from engine.layout import Layout  # noqa: F401  (layout names come from the engine)
from engine.record import parse_record, replay

from ..app.helpers import write_config
from .broker import free_port

ENV = dict(os.environ, PYTHONUNBUFFERED="1")
#: seconds a board is stopped (SIGSTOP): the issue asks for a minute; 30 s is past the point
#: where the broker drops it (keep-alive 15 s, dropped after 1.5 times that), which is what a
#: minute tests, at half the cost
STOP = float(os.environ.get("SEQBOARD_TEST_STOP", "30"))
COLOUR = {"blue": "B", "green": "G", "red": "R"}
PROPOSAL = re.compile(r"(blue|green|red) \(board \w+\) plays (\S+) (on|removing) ([a-z]+\d+)")
MY_TURN = re.compile(r"\((blue|green|red)\) to move here; cards: (.*)$")


def _reader(proc, q):
    for line in proc.stdout:
        q.put(line.rstrip("\n"))


class Emulator:
    def __init__(self, size: str = "10x10") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "seqboard", "matrix", "emulate", "--tcp", "0", "--sensor",
             "identity", "--seconds", "600", "--size", size], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
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
    def __init__(self, tmp: Path, broker, name: str, page: bool = False,
                 edition: str = "classic") -> None:
        from engine.game import builtin_layout
        self.name = name
        self.edition = edition
        self.dir = tmp / name
        self.dir.mkdir()
        lay = builtin_layout(edition)
        self.emu = Emulator(f"{lay.rows}x{lay.cols}")
        self.port = free_port()
        dash = {"enabled": True, "host": "127.0.0.1", "port": self.port, "pin": "2468"} \
            if page else {"enabled": False}
        self.cfg = write_config(self.dir, sensing={"source": "matrix"},
                                matrix={"port": self.emu.url, "sensor": "identity",
                                        "settle_seconds": 0.05},
                                gpio={"enabled": False}, dashboard=dash,
                                game={"edition": edition},
                                remote={"host": "127.0.0.1", "port": broker.port, "board": name,
                                        "hand_pages_port": free_port()})
        self.proc = None
        self.lines: queue.Queue = queue.Queue()
        self.log: list[str] = []
        self.again: str | None = None

    def start(self, *args: str, command: str = "play") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "seqboard", command, "--config", str(self.cfg), "--records",
             str(self.dir / "records"), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, text=True, env=ENV)
        threading.Thread(target=_reader, args=(self.proc, self.lines), daemon=True).start()

    def page(self, body: dict) -> dict:
        """Log in on this board's dashboard with the PIN and post an action; its answer."""
        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        url = f"http://127.0.0.1:{self.port}"
        for path, data in (("/api/login", {"pin": "2468"}), ("/api/action", body)):
            req = urllib.request.Request(url + path, data=json.dumps(data).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "X-Seqboard": "1"})
            end = time.monotonic() + 60
            while True:                  # the page may be restarting (local -> remote)
                try:
                    with opener.open(req, timeout=60) as r:
                        answer = json.loads(r.read())
                    break
                except OSError:
                    if time.monotonic() > end:
                        raise
                    time.sleep(0.2)
        return answer

    def wait_for(self, pattern: str, limit: float = 90) -> re.Match:
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
        """The remote game's record (a board started as a referee has its local one too)."""
        return next(p for p in sorted((self.dir / "records").glob("*.jsonl"))
                    if p.name.endswith("-remote.jsonl"))

    def cells(self):
        """The board as this board's record has it (the replayed referee's board)."""
        text = self.record().read_text("utf-8", errors="replace")
        lines = text.splitlines()
        while lines:
            try:
                json.loads(lines[-1])
                break
            except ValueError:
                lines.pop()
        return replay(parse_record("\n".join(lines), "x")).referee.board

    def moves(self) -> list[tuple]:
        out = []
        for line in self.record().read_text("utf-8").splitlines():
            try:
                e = json.loads(line)
            except ValueError:               # the last line, being written as we read
                break
            if e["type"] == "move":
                out.append((e["n"], e["player"], e["action"], e.get("card"), e.get("space")))
        return out


def _choose(cards: list[str], board, colour: str,
            edition: str = "classic") -> tuple[str, str] | None:
    """A chip the cards allow: (command for the emulator, why)."""
    cells = board.cells
    from engine.game import builtin_layout
    from engine.referee import Referee
    lay = builtin_layout(edition)
    ed = Referee(edition, 2, None).edition
    for card in cards:
        if card in ed.wild_cards:          # two-eyed jacks (ADD): any empty space
            s = next((i for i, c in enumerate(cells) if c == 0 and i not in lay.free), None)
            if s is None:                  # a board played full: the jack places nothing
                continue
            return f"place {lay.space_name(s)} {colour}", card
        if card in ed.remove_cards:
            continue
        for s in lay.spaces_of.get(card, ()):
            if cells[s] == 0:
                return f"place {lay.space_name(s)} {colour}", card
    if any(c in ed.remove_cards for c in cards):   # only a one-eyed jack (REMOVE) to play
        team = "BGR".index(colour)
        safe = set().union(*(board.sequence_spaces(t) for t in range(3)))
        s = next((i for i, c in enumerate(cells) if c > 0 and c - 1 != team and i not in safe),
                 None)
        if s is not None:
            return f"remove {lay.space_name(s)}", "a one-eyed jack"
    return None


def _play(boards: list[Board], until_moves: int | None = None, limit: float = 300,
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
                # (the record has the last move: it is written before this line is printed)
                choice = _choose(m.group(2).split(), b.cells(), COLOUR[m.group(1)], b.edition)
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
        # a few moves, until north's player is to move
        _play([north, south], until_moves=6)
        while north.again is None:
            _play([north, south], until_moves=len(north.moves()) + 1)
        # south is stopped for STOP seconds (longer than the broker's keep-alive: the broker
        # drops it); north's player moves meanwhile: south catches up when it runs again
        os.kill(south.proc.pid, signal.SIGSTOP)
        t0 = time.monotonic()
        line, north.again = north.again, None
        m = MY_TURN.search(line)
        north.emu.say(_choose(m.group(2).split(), north.cells(), COLOUR[m.group(1)])[0])
        n0 = len(north.moves())
        end = time.monotonic() + 60
        while len(north.moves()) == n0:
            assert time.monotonic() < end, "north's move was not taken"
            time.sleep(0.1)
        time.sleep(max(0.0, STOP - (time.monotonic() - t0)))
        os.kill(south.proc.pid, signal.SIGCONT)
        assert "seqboard-south" in broker.log() and "exceeded timeout" in broker.log()
        _play([north, south], until_moves=len(north.moves()) + 8, limit=120)
        assert south.moves() == north.moves()[:len(south.moves())]
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
        assert len(list((north.dir / "records").glob("*.jsonl"))) == 1       # resumed, not new
    finally:
        for b in (north, south):
            if b.proc is not None and b.proc.poll() is None:
                b.proc.kill()
            b.emu.close()


def test_two_boards_start_from_their_pages_and_agree_an_undo(tmp_path, broker):
    north = Board(tmp_path, broker, "north", page=True)
    south = Board(tmp_path, broker, "south", page=True)
    try:
        # each board runs as a referee with its page; someone with the PIN creates the game
        # on north's page and types the code into south's
        for b in (north, south):
            b.start("--new", "--mock-gpio", command="referee")
            b.wait_for(r"dashboard: http://127\.0\.0\.1:\d+/")
        made = north.page({"action": "remote_create"})
        assert made["ok"] and re.fullmatch(r"[0-9A-Z]{4}(-[0-9A-Z]{4}){3}", made["code"])
        north.wait_for(rf"resumed remote game {made['game']} at move 0 as board north")
        joined = south.page({"action": "remote_join", "code": made["code"].lower()})
        assert joined["ok"] and joined["seats"] == [2] and joined["game"] == made["game"]
        south.wait_for(rf"resumed remote game {made['game']} at move 0 as board south")
        # a few moves; then, just after a chip was placed, north's page asks for an undo
        _play([north, south], until_moves=5)
        while north.moves()[-1][2] != "place":
            _play([north, south], until_moves=len(north.moves()) + 1)
        north.again = south.again = None         # the turn that was next is undone
        n = len(north.moves())
        space = north.moves()[-1][4]
        assert north.page({"action": "undo"})["ok"]
        south.wait_for(rf"board north asks to undo move {n}\b")
        # (a second answer from the page: south agrees with its undo button)
        assert south.page({"action": "undo"})["ok"]
        for b in (north, south):
            b.wait_for(rf"undo agreed by every board: moves {n} to {n} taken back; put {space} "
                       "back as it was before")
            b.emu.say(f"remove {space}")            # the people take the chip off
        _play([north, south])
        for b in (north, south):
            assert b.proc.wait(60) == 0
        lines = []
        for b in (north, south):
            text = b.record().read_text("utf-8").splitlines()
            lines.append([(e["n"], e["player"], e["action"], e.get("card"), e.get("space"))
                          if e["type"] == "move" else e["event"]
                          for e in map(json.loads, text)
                          if e["type"] == "move" or e.get("event") == "undo"])
        assert lines[0] == lines[1] and "undo" in lines[0]
        rn = replay(parse_record(north.record().read_text("utf-8"), "north"))
        rs = replay(parse_record(south.record().read_text("utf-8"), "south"))
        assert rn.ok and rs.ok and rn.over and rn.winner == rs.winner is not None
        assert rn.referee.moves == rs.referee.moves
    finally:
        for b in (north, south):
            if b.proc is not None and b.proc.poll() is None:
                b.proc.kill()
            b.emu.close()


@pytest.mark.parametrize("edition", ["travel", "jewish"])
def test_two_processes_play_a_whole_game_of_each_edition(tmp_path, broker, edition):
    north = Board(tmp_path, broker, "north", edition=edition)
    south = Board(tmp_path, broker, "south", edition=edition)
    try:
        north.start("--remote", "create", "--new")
        code = north.wait_for(r"join code (\S+)").group(1)
        south.start("--remote", code, "--new")
        south.wait_for(r"joined remote game \w+ as board south, seats 2")
        _play([north, south])
        for b in (north, south):
            assert b.proc.wait(60) == 0
        assert north.moves() == south.moves() and len(north.moves()) > 8
        rn = replay(parse_record(north.record().read_text("utf-8"), "north"))
        rs = replay(parse_record(south.record().read_text("utf-8"), "south"))
        assert rn.ok and rs.ok and rn.over and rn.winner == rs.winner is not None
        assert rn.referee.edition.name == rs.referee.edition.name == edition
    finally:
        for b in (north, south):
            if b.proc is not None and b.proc.poll() is None:
                b.proc.kill()
            b.emu.close()
