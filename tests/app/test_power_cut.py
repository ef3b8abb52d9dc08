"""Pulling the power (SIGKILL) in the middle of a game, then starting again: the same game
goes on, move for move."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.record import parse_record, replay

from .helpers import write_config


def _cmd(cfg: Path, records: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "seqboard", "demo", "--source", "direct", "--seed", "11",
            "--config", str(cfg), "--records", str(records), "--no-dashboard", *extra]


def _moves(path: Path) -> list[tuple]:
    out = []
    for line in path.read_text("utf-8").splitlines():
        e = json.loads(line)
        if e["type"] == "move":
            out.append((e["n"], e["player"], e["action"], e.get("card"), e.get("space")))
    return out


def test_sigkill_mid_game_then_resume_plays_the_same_game(tmp_path):
    cfg = write_config(tmp_path, gpio={"enabled": True})
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # The game as it goes when nothing happens to it.
    whole = tmp_path / "whole"
    done = subprocess.run(_cmd(cfg, whole, "--fast", "--new"), capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    reference = _moves(next(whole.glob("*.jsonl")))
    assert len(reference) > 30

    # The same game, killed without warning after 20 moves.
    cut = tmp_path / "cut"
    proc = subprocess.Popen(_cmd(cfg, cut, "--speed", "25", "--new"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    record = None
    while time.monotonic() < deadline:
        files = list(cut.glob("*.jsonl"))
        if files and len(_moves_safe(files[0])) >= 20:
            record = files[0]
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert record is not None, "the game never reached 20 moves"
    before = _moves_safe(record)
    assert 20 <= len(before) < len(reference)

    # Started again: it resumes (no terminal to ask on) and finishes the same game.
    again = subprocess.run(_cmd(cfg, cut, "--fast"), capture_output=True, text=True, timeout=120,
                           env=env)
    assert again.returncode == 0, again.stderr
    assert "resuming the unfinished game" in again.stdout
    assert list(cut.glob("*.jsonl")) == [record]
    after = _moves(record)
    assert after == reference
    result = replay(parse_record(record.read_text("utf-8"), str(record)))
    assert result.ok and result.over


def _moves_safe(path: Path) -> list[tuple]:
    """Moves in a record being written (its last line may be cut off)."""
    out = []
    for line in path.read_text("utf-8", errors="replace").splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("type") == "move":
            out.append((e["n"], e["player"], e["action"], e.get("card"), e.get("space")))
    return out
