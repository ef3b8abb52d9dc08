"""``seqboard matrix``: check a sensor and LED matrix, or run its emulator.

``matrix test`` walks the LEDs one space at a time in reading order (a1, b1, ... j10), so
a builder sees at once whether the wiring order in the configuration is right, and echoes
every sensor as it changes (and lights that space green), so each sensor can be checked
against the LED above it.

``matrix emulate`` runs the emulated board on a pty or a TCP port, for trying the app
without the hardware; lines on standard input place and remove chips.
"""

from __future__ import annotations

import argparse
import sys
import time

from hw_config.schema import BAUDS

from ..inputs import number


def _baud(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = None
    if v not in BAUDS:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(map(str, BAUDS))}, got {text!r}")
    return v

EPILOG = """examples:
  seqboard matrix test                           the board of the configuration file
  seqboard matrix test --port /dev/ttyACM1       another port
  seqboard matrix test --port socket://127.0.0.1:7000 --seconds 60
  seqboard matrix emulate --tcp 7000             an emulated board at socket://127.0.0.1:7000
  seqboard matrix emulate --pty --sensor identity

While `matrix test` runs, the lit space moves across the top row from the left, then the
next row, and so on. If it moves another way, set [leds] origin, order and serpentine (or
table) in the configuration. Put a chip on any space: its name is printed and it turns
green. Stop with Ctrl-C.
"""

EMULATE_HELP = """commands on standard input (one per line):
  place a1 [B|G|R|W]     put a chip down (colour only on an identity board)
  remove a1              take it away
  pull 3                 pull the cable out for 3 seconds
  reboot                 restart the board
  quit
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("matrix", help="test the sensor/LED matrix wiring, or emulate one",
                       description="Check the LED wiring and sensors of a matrix board, or "
                                   "run the emulated board.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    msub = p.add_subparsers(dest="matrix_command", metavar="<test|emulate>")
    t = msub.add_parser("test", help="walk the LEDs and echo the sensors",
                        description="Walk the LEDs one space at a time and echo each sensor "
                                    "as it changes.",
                        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    t.add_argument("--config", metavar="FILE", help="configuration file (default: the usual place)")
    t.add_argument("--port", metavar="PORT|URL", help="serial port or pyserial URL (default matrix.port)")
    t.add_argument("--baud", type=_baud, help="line speed (default matrix.baud)")
    t.add_argument("--step", type=number(0.02, 60), default=0.4, metavar="S",
                   help="seconds each space stays lit, 0.02 to 60 (default 0.4)")
    t.add_argument("--seconds", type=number(0, 1e7, lo_open=True), metavar="S",
                   help="stop after this long (default: run until Ctrl-C)")
    t.set_defaults(func=run_test)
    e = msub.add_parser("emulate", help="run an emulated matrix board",
                        description="Run the emulated matrix board, speaking the serial protocol "
                                    "on a pty or a TCP port.",
                        epilog=EPILOG + "\n" + EMULATE_HELP,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    where = e.add_mutually_exclusive_group()
    where.add_argument("--tcp", type=number(0, 65535, int), metavar="PORT", default=None,
                       help="listen on 127.0.0.1:PORT (0: any free port)")
    where.add_argument("--pty", action="store_true", help="open a pty (the default)")
    e.add_argument("--size", default="10x10", metavar="RxC", help="board size (default 10x10)")
    e.add_argument("--sensor", choices=("occupancy", "identity"), default="occupancy",
                   help="what the board senses (default occupancy)")
    e.add_argument("--baud", type=_baud, help="pace the line at this speed (default: unpaced)")
    e.add_argument("--seconds", type=number(0, 1e7, lo_open=True), metavar="S",
                   help="stop after this long")
    e.set_defaults(func=run_emulate)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _link(args):
    from firmware_bridge.link import LinkError, MatrixLink
    from firmware_bridge.wiring import WiringError, wiring_from_config

    from ..app import load_settings
    from ..errors import UserError

    cfg = load_settings(args.config)
    port = args.port or cfg["matrix.port"]
    key = "--port" if args.port else "matrix.port"
    link = MatrixLink(port, baud=args.baud or cfg["matrix.baud"], brightness=cfg["leds.brightness"])
    try:
        link.start(wait=3.0)
    except LinkError as exc:
        raise UserError(f"{key}: cannot open {port}: {exc}") from None
    h = link.hello
    try:
        link.wiring = wiring_from_config(cfg.section("leds"), h.rows, h.cols)
    except WiringError as exc:
        link.stop()
        raise UserError(str(exc)) from None
    if link.wiring.count != h.led_count:
        link.stop()
        raise UserError(f"{port}: the board has {h.led_count} LEDs for {h.rows} x {h.cols} "
                        f"spaces; seqboard needs one LED per space")
    return link, port


def _name(space: int, cols: int) -> str:
    from engine.layout import space_name
    return space_name(space, cols)


def run_test(args: argparse.Namespace) -> int:
    link, port = _link(args)
    h = link.hello
    n = h.rows * h.cols
    out = sys.stdout
    print(f"matrix on {port}: {h.rows} x {h.cols} spaces, {h.led_count} LEDs, "
          f"sensor {h.sensor}, firmware {h.firmware or '?'}", file=out)
    print("watch the lit space walk a1, b1, ... along each row from the top-left; "
          "put chips down to test the sensors (Ctrl-C stops)", file=out, flush=True)
    first = link.latest_snapshot() or link.wait_snapshot(2.0)
    seen = list(first.spaces) if first else [None] * n
    occupied = {i for i, v in enumerate(seen) if v}
    if occupied:
        print("chips already down: " + " ".join(_name(i, h.cols) for i in sorted(occupied)),
              file=out, flush=True)
    end = time.monotonic() + args.seconds if args.seconds else None
    step = max(0.02, args.step)
    space = 0
    next_step = 0.0
    try:
        while end is None or time.monotonic() < end:
            now = time.monotonic()
            snap = link.latest_snapshot()
            if snap is not None and list(snap.spaces) != seen:
                for i, (a, b) in enumerate(zip(seen, snap.spaces)):
                    if a != b:
                        led = link.wiring.led_of[i]
                        what = "chip removed" if b is None else (
                            "chip placed" if b == "occupied" else f"chip {b} placed")
                        print(f"sensor {_name(i, h.cols)} (LED {led}): {what}", file=out, flush=True)
                seen = list(snap.spaces)
                occupied = {i for i, v in enumerate(seen) if v}
                next_step = 0.0          # show the change at once
            if now >= next_step:
                colours = [(0, 0, 0)] * n
                for i in occupied:
                    colours[i] = (0, 160, 0)
                colours[space] = (255, 255, 255)
                link.set_leds(colours)
                if next_step:            # a timed step, not a redraw after a change
                    print(f"LED {link.wiring.led_of[space]:3d} lights {_name(space, h.cols)}",
                          file=out, flush=True)
                    space = (space + 1) % n
                next_step = now + step
            if link.state != "connected":
                print(f"matrix link {link.state}; waiting for the board to come back", file=out,
                      flush=True)
                while link.state != "connected" and (end is None or time.monotonic() < end):
                    time.sleep(0.1)
            time.sleep(0.01)
    except KeyboardInterrupt:
        pass
    finally:
        link.set_leds([(0, 0, 0)] * n)
        time.sleep(0.1)
        st = link.stats
        link.stop()
        print(f"done: {st.frames_out} frames sent, {st.frames_in} received, "
              f"{st.rejected} rejected, {st.retries} resent, {st.reconnects} reconnects", file=out)
    return 0


def run_emulate(args: argparse.Namespace) -> int:
    import select

    from engine.layout import parse_space
    from firmware_bridge.emulator import Emulator

    from ..errors import UserError

    try:
        rows, cols = (int(x) for x in args.size.lower().split("x"))
        if not (1 <= rows <= 32 and 1 <= cols <= 32):
            raise ValueError
    except ValueError:
        raise UserError(f"--size: expected rows x cols like 10x10, got {args.size!r}") from None
    emu = Emulator(rows, cols, sensor=args.sensor, baud=args.baud)
    if args.tcp is not None:
        try:
            where = emu.start_tcp(args.tcp)
        except OSError as exc:
            raise UserError(f"--tcp: cannot listen on port {args.tcp}: {exc.strerror}") from None
    else:
        where = emu.start_pty()
    print(f"emulated {rows} x {cols} matrix ({args.sensor}) at {where}", flush=True)
    print(f"use it with: seqboard matrix test --port {where}", flush=True)
    end = time.monotonic() + args.seconds if args.seconds else None
    interactive = sys.stdin is not None and not sys.stdin.closed
    try:
        while end is None or time.monotonic() < end:
            if not interactive:
                time.sleep(0.1)
                continue
            r, _, _ = select.select([sys.stdin], [], [], 0.1)
            if not r:
                continue
            line = sys.stdin.readline()
            if not line:
                interactive = False          # stdin closed: keep serving until stopped
                continue
            words = line.split()
            if not words:
                continue
            cmd = words[0].lower()
            try:
                if cmd == "quit":
                    break
                elif cmd in ("place", "remove") and len(words) >= 2:
                    space = parse_space(words[1], rows, cols)
                    if cmd == "remove":
                        emu.remove(space)
                    else:
                        colour = words[2].upper() if len(words) > 2 else None
                        if colour not in (None, "B", "G", "R", "W"):
                            raise ValueError(f"unknown colour {words[2]!r}")
                        emu.place(space, colour)
                    print(f"ok {cmd} {words[1]}", flush=True)
                elif cmd == "pull":
                    secs = float(words[1]) if len(words) > 1 else 3.0
                    emu.pull_cable(secs)
                    print(f"ok cable out for {secs:g} s", flush=True)
                elif cmd == "reboot":
                    emu.reboot()
                    print("ok reboot", flush=True)
                else:
                    print(f"unknown command: {line.strip()!r}\n{EMULATE_HELP}", flush=True)
            except ValueError as exc:
                print(f"error: {exc}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return 0
