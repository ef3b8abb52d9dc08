"""`seqboard matrix test` and `seqboard matrix emulate`, against the emulator."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from firmware_bridge.emulator import Emulator
from firmware_bridge.link import MatrixLink
from firmware_bridge.wiring import make_wiring
from seqboard.cli import main
from tests.app.helpers import write_config

from ..waiting import wait_until as _wait


def test_walks_leds_in_reading_order_and_echoes_sensors(tmp_path, capsys):
    emu = Emulator(10, 10)
    url = emu.start_tcp()
    cfg = write_config(tmp_path, leds={"origin": "bottom-right", "serpentine": True})
    lit = []          # (LED lit white, time) as the board showed them
    green = []

    def watch():
        end = time.monotonic() + 3.5
        while time.monotonic() < end:
            frame = emu.led_frame()
            whites = [i for i, c in enumerate(frame) if c == (255, 255, 255)]
            if whites and (not lit or lit[-1] != whites[0]):
                lit.append(whites[0])
            green.extend(i for i, c in enumerate(frame) if c == (0, 160, 0) and i not in green)
            time.sleep(0.005)

    def put_chip():
        time.sleep(1.0)
        emu.place(23)               # d3

    threads = [threading.Thread(target=watch), threading.Thread(target=put_chip)]
    for t in threads:
        t.start()
    rc = main(["matrix", "test", "--config", str(cfg), "--port", url, "--step", "0.1",
               "--seconds", "3"])
    for t in threads:
        t.join()
    emu.stop()
    out = capsys.readouterr().out
    assert rc == 0
    assert "10 x 10 spaces, 100 LEDs, sensor occupancy" in out
    wiring = make_wiring(10, 10, origin="bottom-right", serpentine=True)
    # the lit space walks a1, b1, c1, ...: from a chain that starts bottom-right and
    # snakes, a1 is LED 90, b1 LED 91 ... and a2 LED 89
    expected = [wiring.led_of[s] for s in range(12)]
    assert expected[:3] == [99 - 9, 99 - 8, 99 - 7] and expected[10] == 89
    assert lit[:8] == expected[:8]
    assert "LED  90 lights a1" in out and "LED  91 lights b1" in out
    # the chip on d3 is echoed with its LED, and that LED turns green on the board
    assert f"sensor d3 (LED {wiring.led_of[23]}): chip placed" in out
    assert wiring.led_of[23] in green


def test_no_board_on_the_port_is_one_line(tmp_path, capsys):
    cfg = write_config(tmp_path)
    rc = main(["matrix", "test", "--config", str(cfg), "--port", str(tmp_path / "ttyNONE")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("seqboard: error: --port: cannot open") and "ttyNONE" in err
    assert err.count("\n") == 1


def test_emulate_serves_a_board_that_takes_commands():
    proc = subprocess.Popen([sys.executable, "-m", "seqboard", "matrix", "emulate", "--tcp", "0",
                             "--sensor", "identity", "--seconds", "20"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = proc.stdout.readline()
        assert "emulated 10 x 10 matrix (identity) at socket://127.0.0.1:" in first
        url = first.rsplit(" at ", 1)[1].strip()
        proc.stdout.readline()
        link = MatrixLink(url, wiring=make_wiring(10, 10))
        link.start(wait=5)
        proc.stdin.write("place c4 R\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "ok place c4"
        assert _wait(lambda: (s := link.latest_snapshot()) is not None and s.spaces[32] == "R")
        proc.stdin.write("place z99\n")
        proc.stdin.flush()
        assert proc.stdout.readline().startswith("error:")
        link.stop()
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(10) == 0
    finally:
        proc.kill()
