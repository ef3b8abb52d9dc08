"""One `seqboard referee` per records folder: a second run sharing the folder is refused
before it touches a record (its --new would close the first run's game); a lock left by a
process that died is taken over."""

from __future__ import annotations

import errno
import signal
import subprocess
import sys
import threading

import pytest

from firmware_bridge.emulator import Emulator
from seqboard.errors import UserError
from seqboard.recorder import RecordsLock

from ..waiting import wait_until
from .helpers import write_config


def _referee(cfg, records, *extra) -> list[str]:
    return [sys.executable, "-m", "seqboard", "referee", "--config", str(cfg),
            "--records", str(records), "--no-dashboard", *extra]


def _unfinished(records) -> list[str]:
    """Records begun (their setup line written) and not ended."""
    return sorted(p.name for p in records.glob("*.jsonl")
                  if p.read_text().endswith("\n") and '"type":"end"' not in p.read_text())


def test_a_second_referee_on_the_same_records_is_refused_and_a_dead_ones_lock_taken_over(tmp_path):
    emu = Emulator(10, 10)
    url = emu.start_tcp(0)
    cfg = write_config(tmp_path, sensing={"source": "matrix"}, matrix={"port": url},
                       gpio={"enabled": False}, dashboard={"enabled": False})
    records = tmp_path / "records"
    lock = records / ".seqboard-referee.lock"
    first = subprocess.Popen(_referee(cfg, records, "--new"), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    second = None
    try:
        assert wait_until(lambda: len(_unfinished(records)) == 1 and lock.exists()
                          and f"pid={first.pid}" in lock.read_text(), 120), first.poll()
        game = _unfinished(records)
        before = (records / game[0]).read_bytes()
        # the second run, with --new: refused in one line naming the folder and the first run
        got = subprocess.run(_referee(cfg, records, "--new"), capture_output=True, text=True,
                             timeout=120)
        assert got.returncode == 2, got.stdout + got.stderr
        err = got.stderr.strip()
        assert "\n" not in err and "Traceback" not in got.stderr, got.stderr
        assert str(records) in err and f"pid {first.pid}" in err and "referee" in err, err
        assert "--records" in err                                    # what to do instead
        # nothing lost: the first run's game is still unfinished (only its own run may have
        # added to it), no other record was begun, and the first run goes on
        assert _unfinished(records) == game and len(list(records.glob("*.jsonl"))) == 1
        assert (records / game[0]).read_bytes().startswith(before)
        assert first.poll() is None
        # the first run dies without cleaning up: its lock is left with its pid, and taken over
        first.send_signal(signal.SIGKILL)
        first.wait(30)
        assert f"pid={first.pid}" in lock.read_text()
        second = subprocess.Popen(_referee(cfg, records, "--resume"), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.extend(second.stdout), daemon=True)
        reader.start()
        assert wait_until(lambda: any("Ctrl-C to stop" in x for x in said), 120), said
        assert f"pid={second.pid}" in lock.read_text()
        second.send_signal(signal.SIGTERM)
        second.wait(30)
        reader.join(30)
        out = "".join(said)
        assert second.returncode == 0, out
        assert f"record {records / game[0]};" in out, out             # the same game goes on
        assert _unfinished(records) == game
        assert lock.read_text() == ""                 # a run that ends leaves no pid behind
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(30)
        emu.stop()


def test_two_sessions_in_one_process_and_other_modes(tmp_path):
    with RecordsLock(tmp_path, "referee"):
        with pytest.raises(UserError, match="in use by another `seqboard referee`"):
            RecordsLock(tmp_path, "referee").acquire()
        with RecordsLock(tmp_path, "play"):           # another mode keeps records of its own
            pass
    with RecordsLock(tmp_path, "referee"):            # let go at the end: taken again
        pass


def test_without_flock_the_pid_in_the_lock_decides(tmp_path, monkeypatch):
    """A file system without flock (some network shares): a live pid refuses, a dead one's
    lock is taken over."""
    import fcntl

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(fcntl, "flock", no_flock)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        lock = tmp_path / ".seqboard-referee.lock"
        lock.write_text(f"pid={alive.pid}\ncommand=seqboard referee\nstarted=13:00\n")
        with pytest.raises(UserError) as exc:
            RecordsLock(tmp_path, "referee").acquire()
        assert f"pid {alive.pid}: `seqboard referee`, since 13:00" in str(exc.value)
    finally:
        alive.kill()
        alive.wait(30)
    with RecordsLock(tmp_path, "referee"):            # its process is gone: taken over
        import os
        assert f"pid={os.getpid()}" in lock.read_text()
