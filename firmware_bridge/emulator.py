"""An emulator of the sensor and LED matrix, speaking the real protocol.

It runs the firmware's own protocol core (``firmware/proto.py``) with emulated sensors and
LEDs, reachable exactly as the real board: through a pty (a serial port path) or through a
pyserial URL (``socket://127.0.0.1:PORT``). Chips are placed by scripts or calls; faults
are injected on the wire: corrupted, dropped, delayed and duplicated bytes, a pulled cable,
a rebooting board; and the line can be paced at a real baud rate.

Example::

    emu = Emulator(rows=10, cols=10, sensor="occupancy")
    url = emu.start_tcp()                  # or: path = emu.start_pty()
    emu.place(44)                          # a chip on space 44 (identity boards: a colour)
    emu.leds()                             # what the LEDs show, in LED order
    emu.pull_cable(3.0)                    # gone for three seconds
    emu.stop()
"""

from __future__ import annotations

import os
import random
import select
import socket
import sys
import threading
import time
import tty
from dataclasses import dataclass

_FW = os.path.join(os.path.dirname(__file__), "firmware")
if _FW not in sys.path:
    sys.path.insert(0, _FW)
import proto  # noqa: E402  (the firmware's module, run under CPython)

VALUES = {None: 0, "occupied": 1, "B": 2, "G": 3, "R": 4, "W": 5}


@dataclass
class Faults:
    """What the wire does to bytes, each with its probability per byte (seeded)."""

    corrupt: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0          # probability that a byte (and all after it) waits ...
    delay_s: float = 0.05       # ... this long
    seed: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    @property
    def active(self) -> bool:
        return bool(self.corrupt or self.drop or self.duplicate or self.delay)

    def apply(self, data: bytes) -> tuple[bytes, float]:
        if not self.active:
            return data, 0.0
        out = bytearray()
        wait = 0.0
        rng = self.rng
        for b in data:
            if rng.random() < self.drop:
                continue
            if rng.random() < self.corrupt:
                b ^= 1 << rng.randrange(8)
            out.append(b)
            if rng.random() < self.duplicate:
                out.append(b)
            if rng.random() < self.delay:
                wait = self.delay_s
        return bytes(out), wait


def _pause(seconds: float) -> None:
    """Sleep precisely: the OS wakes a sleeper a tenth of a millisecond late or more, which
    at 1 Mbaud is ten bytes; so sleep the bulk and spin the rest (only while bytes flow on
    a paced line)."""
    end = time.monotonic() + seconds
    if seconds > 0.0015:
        time.sleep(seconds - 0.001)
    while time.monotonic() < end:
        pass


class Emulator:
    def __init__(self, rows: int = 10, cols: int = 10, sensor: str = "occupancy",
                 led_count: int | None = None, baud: int | None = None,
                 faults: Faults | None = None, script: list[tuple[float, int, str | None]] = ()) -> None:
        self.rows, self.cols = rows, cols
        self.sensor = sensor
        self.led_count = led_count or rows * cols
        self.baud = baud
        self.faults_out = faults or Faults()
        self.faults_in = Faults(**{k: getattr(self.faults_out, k) for k in
                                   ("corrupt", "drop", "duplicate", "delay", "delay_s")},
                                seed=self.faults_out.seed + 1) if faults else Faults()
        self.script = sorted(script, key=lambda x: x[0])
        self._values = [0] * (rows * cols)
        self._shown = [(0, 0, 0)] * self.led_count
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._unplugged_until = 0.0
        self._reboot = False
        self._thread: threading.Thread | None = None
        self._server: socket.socket | None = None
        self._master: int | None = None
        self.url: str | None = None
        self.path: str | None = None
        self.bytes_in = 0
        self.bytes_out = 0
        self.frames_shown = 0
        self.boots = 0
        self.sent_states = 0
        self._glitch: dict[int, int] | None = None    # the next STATE answer only: space -> value
        self._delay_state = False                     # hold the next STATE back ...
        self._held: bytes | None = None               # ... and send it after the one after it
        self._capture = False
        self._release = False
        self._double = False
        self._double_next = False
        self._cards_in: list[tuple[int, str]] = []     # cards laid, for the core to send
        self._boot()

    # --- the board ------------------------------------------------------------------------
    def _boot(self) -> None:
        resize = getattr(self, "_resize", None)
        if resize is not None:
            self._resize = None
            with self._lock:
                self.rows, self.cols = resize
                self.led_count = self.rows * self.cols
                self._values = [0] * (self.rows * self.cols)
                self._shown = [(0, 0, 0)] * self.led_count
        self._held, self._capture, self._release = None, False, False
        self._out = bytearray()
        self.core = proto.BoardCore(self.rows, self.cols,
                                    proto.SENSOR_OCCUPANCY if self.sensor == "occupancy" else proto.SENSOR_IDENTITY,
                                    self.led_count, self._scan, self._show, self._core_send,
                                    firmware="emulator")
        plain = self.core.state_payload
        self.core.state_payload = lambda: self._state_payload(plain)
        self.boots += 1
        self._t0 = time.monotonic()

    def _scan(self) -> list[int]:
        with self._lock:
            vals = list(self._values)
        if self.sensor == "occupancy":
            vals = [1 if v else 0 for v in vals]
        return vals

    def _state_payload(self, plain) -> bytes:
        """The core's STATE payload, with the faults a test asked for: a glitch in this one
        answer, or this answer held back until after the next (a late snapshot)."""
        payload = plain()
        self.sent_states += 1
        if self._glitch is not None:
            body = bytearray(payload)
            for space, value in self._glitch.items():
                body[4 + space] = value
            payload, self._glitch = bytes(body), None
        if self._double_next:
            self._double_next, self._double = False, True
        if self._delay_state and self._held is None:
            self._delay_state = False
            self._capture = True          # the frame built from this payload is held
        elif self._held is not None:
            self._release = True          # the held one follows the frame built now
        return payload

    def _core_send(self, data: bytes) -> None:
        if self._capture:
            self._capture, self._held = False, bytes(data)
            return
        self._out.extend(data)
        if self._double:
            self._double = False
            self._out.extend(data)        # the very same frame again
        if self._release:
            self._release = False
            held, self._held = self._held, None
            self._out.extend(held)

    def glitch_next_state(self, space: int, value: str | None = "occupied") -> None:
        """The board's next STATE answer misreads ``space`` (one snapshot only; the
        counter does not move, as no change was sensed)."""
        self._glitch = {space: VALUES[value]}

    def double_next_state(self) -> None:
        """The next STATE frame reaches the host twice (same seq, same bytes)."""
        self._double_next = True

    def delay_next_state(self) -> None:
        """The next STATE answer arrives late: after the answer to the request after it."""
        self._delay_state = True

    def _show(self, colours: list) -> None:
        with self._lock:
            self._shown = list(colours)
            self.frames_shown += 1

    # --- what a test or the demo does to it ------------------------------------------------
    def place(self, space: int, colour: str | None = "occupied") -> None:
        """A chip on ``space``; identity boards sense its colour (B, G, R, W)."""
        with self._lock:
            self._values[space] = VALUES[colour if colour else "occupied"]

    def lay_card(self, reader: int, code: str) -> None:
        """A tagged card laid on the optional NFC card reader ``reader`` (before seat
        ``reader``): the board sends CARD until the host acknowledges it."""
        self._cards_in.append((reader, code))

    def remove(self, space: int) -> None:
        with self._lock:
            self._values[space] = 0

    def set_space(self, space: int, value: str | None) -> None:
        if value is None:
            self.remove(space)
        else:
            self.place(space, value)

    def leds(self) -> list[tuple[int, int, int]]:
        """What the LEDs show now, in LED order (brightness applied)."""
        with self._lock:
            return list(self._shown)

    def led_frame(self) -> list[tuple[int, int, int]]:
        """The last LED frame received, in LED order, before blinking and brightness."""
        return list(self.core.leds)

    def pull_cable(self, seconds: float) -> None:
        """The USB cable out for ``seconds``: the connection drops; the board keeps power."""
        self._unplugged_until = time.monotonic() + seconds

    def reboot(self, rows: int | None = None, cols: int | None = None) -> None:
        """The board resets: LEDs dark, it forgets everything but the chips on it. With
        ``rows``/``cols`` it comes back as a board of another size (another firmware)."""
        if rows is not None or cols is not None:
            self._resize = (rows or self.rows, cols or self.cols)
        self._reboot = True

    # --- transports -------------------------------------------------------------------------
    def start_tcp(self, port: int = 0) -> str:
        self._listen(port)
        self.url = f"socket://127.0.0.1:{self._server.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve_tcp, name="matrix-emulator", daemon=True)
        self._thread.start()
        return self.url

    def start_pty(self) -> str:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        self._master = master
        self._slave = slave
        self.path = os.ttyname(slave)
        self._thread = threading.Thread(target=self._serve_pty, name="matrix-emulator", daemon=True)
        self._thread.start()
        return self.path

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._master is not None:
            for fd in (self._master, self._slave):
                try:
                    os.close(fd)
                except OSError:
                    pass

    close = stop

    def _listen(self, port: int) -> None:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", port))
        srv.listen(1)
        srv.settimeout(0.05)
        self._server = srv

    def _serve_tcp(self) -> None:
        port = self._server.getsockname()[1]
        while not self._stop.is_set():
            if time.monotonic() < self._unplugged_until:
                # unplugged: the port is gone, connecting is refused
                if self._server is not None:
                    self._server.close()
                    self._server = None
                time.sleep(0.01)
                self._tick()
                continue
            if self._server is None:
                try:
                    self._listen(port)
                except OSError:
                    time.sleep(0.05)
                    continue
            try:
                conn, _ = self._server.accept()
            except (socket.timeout, OSError):
                self._tick()
                continue
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.setblocking(False)
            self._session(lambda n: conn.recv(n), conn.sendall, conn.fileno())
            try:
                conn.close()
            except OSError:
                pass

    def _serve_pty(self) -> None:
        while not self._stop.is_set():
            if time.monotonic() < self._unplugged_until:
                # a pty cannot vanish and come back under the same name: a pulled cable is
                # silence, and bytes written meanwhile are lost
                self._drain(self._master)
                time.sleep(0.01)
                self._tick()
                continue
            self._session(lambda n: os.read(self._master, n),
                          lambda b: os.write(self._master, b), self._master, until_unplugged=True)

    def _drain(self, fd: int) -> None:
        while select.select([fd], [], [], 0)[0]:
            try:
                os.read(fd, 4096)
            except OSError:
                return

    def _tick(self) -> None:
        now = time.monotonic()
        if self._reboot:
            self._reboot = False
            self._boot()
        with self._lock:
            while self.script and self.script[0][0] <= now - self._t0:
                _, space, value = self.script.pop(0)
                self._values[space] = VALUES[value]
        while self._cards_in:
            reader, code = self._cards_in.pop(0)
            self.core.card(reader, code)
        self.core.tick(int((now - self._t0) * 1000))

    def _session(self, recv, send, fd: int, until_unplugged: bool = True) -> None:
        """One connection: bytes in to the core, the core's bytes out, paced and faulted."""
        credit_t = time.monotonic()
        out_sent = 0.0
        pending_out = bytearray()
        hold_until = 0.0
        while not self._stop.is_set():
            if until_unplugged and time.monotonic() < self._unplugged_until:
                return
            if self._reboot:
                self._tick()
                pending_out.clear()
            # while bytes wait to go out, wake often enough to pace them byte by byte
            r, _, _ = select.select([fd], [], [], 0 if pending_out else 0.002)
            if r:
                try:
                    data = recv(4096)
                except (BlockingIOError, InterruptedError):
                    data = b""
                except OSError:
                    return
                if r and not data and self._master is None:
                    return                      # the host closed the connection
                if data:
                    self.bytes_in += len(data)
                    data, _ = self.faults_in.apply(data)
                    if self.baud:
                        _pause(len(data) * 10 / self.baud)   # the UART takes its time
                    self.core.receive(data)
            self._tick()
            if self._out:
                chunk, wait = self.faults_out.apply(bytes(self._out))
                self._out.clear()
                if not pending_out:
                    # the line was idle: its time starts now (no credit saved up while idle)
                    credit_t, out_sent = time.monotonic(), 0.0
                pending_out += chunk
                if wait:
                    hold_until = time.monotonic() + wait
            now = time.monotonic()
            if pending_out and now >= hold_until:
                n = len(pending_out)
                if self.baud:
                    # pace: at most the bytes the line could have carried by now
                    allowed = int((now - credit_t) * self.baud / 10 - out_sent)
                    if allowed <= 0:
                        # wait out the one byte time rather than a whole loop
                        _pause((out_sent + 1) * 10 / self.baud - (now - credit_t))
                        now = time.monotonic()
                        allowed = int((now - credit_t) * self.baud / 10 - out_sent)
                        if allowed <= 0:
                            continue
                    n = min(n, allowed)
                try:
                    send(bytes(pending_out[:n]))
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    return
                del pending_out[:n]
                self.bytes_out += n
                out_sent += n
            elif self.baud and not pending_out:
                credit_t, out_sent = now, 0.0
