"""A real Mosquitto on a free loopback port with a temporary configuration (persistence
on), for the remote-play tests and the benchmark."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from ..ports import free_port  # noqa: F401  (the remote tests take it from here)

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"



class Broker:
    def __init__(self, directory: Path | None = None, extra: str = "",
                 conf: str | None = None) -> None:
        self.dir = Path(directory or tempfile.mkdtemp(prefix="seqboard-mqtt-"))
        self.port = free_port()
        self.conf = self.dir / "mosquitto.conf"
        self.conf.write_text(conf.replace("PORT", str(self.port)) if conf else
            f"listener {self.port} 127.0.0.1\n"
            f"user {getpass.getuser()}\n"   # started as root, mosquitto would switch user
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {self.dir}/\n"
            "autosave_interval 1\n"
            f"log_dest file {self.dir}/mosquitto.log\n"
            + extra, "utf-8")
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Broker":
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"mosquitto exited: {self.log()}")
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the broker (SIGTERM: it saves its persistence file first)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(10)
        self.proc = None

    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        p = self.dir / "mosquitto.log"
        return p.read_text("utf-8", errors="replace") if p.exists() else ""

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def available() -> bool:
    return os.access(MOSQUITTO, os.X_OK)
