"""Dashboard test fixtures: a live session served on a free port, and a real Chromium."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time

import pytest

from engine.game import Game
from engine.observation import SpaceState
from engine.players import GreedyPlayer
from engine.referee import Referee
from seqboard.dashboard import Dashboard
from seqboard.loop import Commands
from seqboard.session import Session

CHROMIUM = "/usr/bin/chromium"


def chromium_path() -> str:
    """Debian's chromium; installed here when missing and we may (as CI does)."""
    path = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if path:
        return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing Debian's chromium for the browser tests ...", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
                       check=False)
        path = shutil.which("chromium")
        if path:
            return path
    pytest.fail("the browser tests need Debian's chromium: sudo apt-get install -y chromium")


class LiveTable:
    """A referee session, a dashboard on a free port, a thread running the loop's commands,
    and a game of two greedy players that produces the next observation on demand."""

    def __init__(self, records, seed: int = 4, pin: str = "2468") -> None:
        self.ref = Referee("classic", 2)
        self.session = Session(self.ref, mode="referee")
        self.commands = Commands()
        self.records = records
        self.pin = pin
        self.dash = self._dashboard(0)
        self.url = self.dash.start()
        self.port = self.dash.port
        self.game = Game("classic", 2, rng=random.Random(seed))
        self.players = [GreedyPlayer(random.Random(seed + 1)), GreedyPlayer(random.Random(seed + 2))]
        self._stop = threading.Event()
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _dashboard(self, port: int) -> Dashboard:
        d = Dashboard(None, self.records, self.commands, pin=self.pin, host="127.0.0.1", port=port)
        d.attach(self.session)
        return d

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                self.commands.run_pending()
            time.sleep(0.02)

    def next_observation(self):
        """The board after the next move of the full game (dead-card trades skipped)."""
        g, ref = self.game, self.ref
        while True:
            m = self.players[g.current].choose(g)
            g.push(m)
            if m.action in ("place", "remove"):
                break
        exp = ref.expected()
        state = SpaceState(ref.colours[ref.team]) if m.action == "place" else SpaceState.EMPTY
        return exp.replace({m.space: state})

    def observe(self, obs):
        with self.lock:
            return self.session.observe(obs)

    def restart_dashboard(self) -> None:
        self.dash.stop()
        time.sleep(1.0)
        self.dash = self._dashboard(self.port)
        self.dash.start()

    def close(self) -> None:
        self._stop.set()
        self.dash.stop()


@pytest.fixture
def live(tmp_path):
    t = LiveTable(tmp_path)
    yield t
    t.close()
