"""New game and resume from the page, in `seqboard referee` on the matrix emulator."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx2 as httpx

from firmware_bridge.emulator import Emulator

from ..app.helpers import write_config
from ..ports import free_port
from ..waiting import wait_until

H = {"X-Seqboard": "1"}



def _wait(cond, timeout=20.0):
    return wait_until(cond, timeout, ignore=(httpx.HTTPError,))


def test_new_game_and_resume_from_the_page(tmp_path):
    emu = Emulator(10, 10)
    url = emu.start_tcp()
    port = free_port()
    cfg = write_config(tmp_path, sensing={"source": "matrix"}, matrix={"port": url},
                       gpio={"enabled": False},
                       dashboard={"port": port, "pin": "4321", "host": "127.0.0.1"})
    records = tmp_path / "records"
    proc = subprocess.Popen([sys.executable, "-m", "seqboard", "referee", "--config", str(cfg),
                             "--records", str(records), "--new"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"

    def view():
        return c.get("/api/state").json()["view"]

    def unfinished():
        return sorted(p.name for p in records.glob("*.jsonl")
                      if '"type":"end"' not in p.read_text())
    try:
        c = httpx.Client(base_url=base, timeout=5)
        assert _wait(lambda: c.get("/api/state").json().get("view"))
        assert c.post("/api/login", json={"pin": "4321"}, headers=H).status_code == 200
        # nothing else unfinished yet: resume says so and changes nothing
        assert c.post("/api/action", json={"action": "resume"}, headers=H).status_code == 200
        assert _wait(lambda: any("no other unfinished game" in x["text"] for x in view()["log"]))
        # game A gets a move, then a new game is started from the page: A is put aside
        emu.place(44)
        assert _wait(lambda: view()["move_number"] == 1)
        first = unfinished()
        assert c.post("/api/action", json={"action": "new_game"}, headers=H).status_code == 200
        assert _wait(lambda: len(unfinished()) == 2)
        assert _wait(lambda: view()["move_number"] == 0)
        # resume brings game A back, with its move; B stays unfinished
        assert c.post("/api/action", json={"action": "resume"}, headers=H).status_code == 200
        assert _wait(lambda: view()["move_number"] == 1)
        assert view()["cells"][44] == 0 and len(unfinished()) == 2
        assert first[0] in unfinished()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
        emu.stop()
    assert proc.returncode == 0, out
    assert "dashboard: http://127.0.0.1:" in out
