"""The host's serial link to the matrix, on pyserial: it loses nothing and never lies.

* connects by port (``/dev/ttyACM0``) or pyserial URL (``socket://127.0.0.1:7000``);
* reconnects by itself when the cable is pulled and put back, or the board goes silent;
* resynchronises after garbage (frames are delimited; a bad frame is skipped whole);
* never applies a frame whose CRC or length is wrong;
* retries every request until it is acknowledged (a NAK retries at once);
* rate-limits LED frames, newest wins: an older frame is never resent once a newer exists;
* trusts only full snapshots: a change event only asks for one.

Example::

    link = MatrixLink("socket://127.0.0.1:7000", wiring=make_wiring(10, 10))
    link.start(wait=3)                     # LinkError if the port cannot be opened
    snap = link.latest_snapshot()          # Snapshot(counter, spaces, identity) or None
    link.set_leds([(0, 0, 255)] * 100)     # board order
    link.blink([44], (255, 0, 0))          # blink a space red; colour None stops it
    link.stop()

Thread-safe: one I/O thread owns the port; calls from other threads only leave requests.
"""

from __future__ import annotations

import dataclasses
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import serial

from . import protocol as P
from .wiring import Wiring

SILENT_AFTER = 2.0        # no frame from the board for this long: reconnect
HEARTBEAT_EVERY = 0.5
SNAPSHOT_EVERY = 1.0      # a snapshot now and then even without change events
RECONNECT_EVERY = 0.5
LED_WINDOW = 2            # LED frames on the wire unacknowledged at once: the line stays busy
                          # while the board answers, but a slow board never builds a backlog


class LinkError(Exception):
    """The matrix cannot be reached; the message says why."""


@dataclass
class LinkStats:
    frames_in: int = 0
    frames_out: int = 0
    bytes_out: int = 0
    bytes_in: int = 0
    rejected: int = 0
    retries: int = 0
    reconnects: int = 0
    reboots: int = 0
    leds_acked: int = 0
    snapshots: int = 0
    stale_snapshots: int = 0      # dropped: an older counter than one already held (late)
    duplicate_snapshots: int = 0  # dropped: the same STATE frame again (a doubled frame)
    led_acks: list = field(default_factory=list)   # times of LED frame ACKs (benchmarks)
    snapshot_rtts: list = field(default_factory=list)   # request sent -> snapshot held, s


class MatrixLink:
    def __init__(self, url: str, baud: int = 115200, wiring: Wiring | None = None,
                 led_rate: float = 30.0, brightness: float = 1.0,
                 on_state: Callable[[str], None] | None = None, retry_after: float | None = None) -> None:
        self.url = url
        self.baud = baud
        self.wiring = wiring
        self.led_interval = 1.0 / led_rate if led_rate > 0 else 0.0
        self.brightness = max(0, min(255, int(brightness * 255)))
        self.on_state = on_state
        # a frame not acknowledged within a round trip of its bytes (and some slack) is resent
        self.retry_after = retry_after if retry_after is not None else 0.08 + 1200 * 10 / baud
        self.stats = LinkStats()
        self.hello: P.Hello | None = None
        self.state = "disconnected"
        self._lock = threading.Lock()
        #: cards read by the board's NFC card reader, not yet taken: (reader, code)
        self._cards: list[tuple[int, str]] = []
        self._cards_seen: list[int] = []      # card counters taken (a resend is not new)
        self._io = threading.RLock()                 # the port, the pending table, sequence numbers
        self._newest_led_seq: int | None = None
        self._port = None
        self._decoder = P.Decoder()
        self._seq = 0
        self._pending: dict[int, tuple[P.Frame, float, int]] = {}   # seq -> frame, sent, tries
        self._snapshot: P.Snapshot | None = None
        self._snapshot_serial = 0
        self._payload_rejected = 0
        self._max_counter: int | None = None         # newest board counter held since greeting
        self._stale_run = 0
        self._last_state_frame: tuple[int, bytes] | None = None
        self.other_version: tuple[float, int] | None = None   # (when, version) a board spoke
        self._want_leds: list | None = None          # LED order, not yet sent
        self._shown_leds: list | None = None         # last LED frame sent (for reconnects)
        self._last_leds_at = 0.0
        self._blinks: dict[int, tuple] = {}          # LED -> (colour, on, off), to restore
        self._blink_queue: list[P.Blink] = []
        self._last_rx = 0.0
        self._uptime: tuple[float, int] | None = None   # (our time, its uptime)
        self._last_beat = 0.0
        self._last_snap_req = 0.0
        self._state_req_pending = False
        self._hello_event = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listeners: list[Callable[[P.Snapshot], None]] = []
        self.board_errors: list[tuple[float, str]] = []   # (when, ERROR report), newest last

    # --- lifecycle --------------------------------------------------------------------------
    def _open(self):
        try:
            return serial.serial_for_url(self.url, baudrate=self.baud, timeout=0.005,
                                         write_timeout=2.0)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise LinkError(str(exc).split(": ", 1)[-1] if str(exc) else type(exc).__name__) from None

    def start(self, wait: float = 3.0) -> None:
        """Open the port and say hello; LinkError if it cannot be opened or no board answers."""
        self._port = self._open()
        self._set_state("connected")
        self._last_rx = time.monotonic()
        self._greet()
        self._thread = threading.Thread(target=self._run, name="matrix-link", daemon=True)
        self._thread.start()
        if not wait:
            return
        end = time.monotonic() + wait
        while not self._hello_event.wait(0.05):
            mismatch = [t for _, t in self.board_errors if t.startswith("protocol version")]
            if mismatch or time.monotonic() > end:
                self.stop()
                raise LinkError(f"the matrix board on {self.url}: {mismatch[0]}" if mismatch else
                                f"no answer from a matrix board on {self.url} within {wait:.0f} s")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._close()

    close = stop

    def _close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:
                pass

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            if self.on_state:
                try:
                    self.on_state(state)
                except Exception:
                    pass

    # --- what the app calls -----------------------------------------------------------------
    def latest_snapshot(self) -> P.Snapshot | None:
        with self._lock:
            return self._snapshot

    def take_cards(self) -> list[tuple[int, str]]:
        """The cards the board's NFC card reader read since the last call: (reader, code),
        each once however often the board sent it."""
        with self._lock:
            out, self._cards = self._cards, []
        return out

    def subscribe(self, fn: Callable[[P.Snapshot], None]) -> None:
        self._listeners.append(fn)

    def set_leds(self, colours: list) -> None:
        """Colours (r, g, b) per space in board order; only the newest is ever sent."""
        leds = self.wiring.to_leds(colours) if self.wiring else list(colours)
        with self._lock:
            self._want_leds = leds
        self._kick()

    def set_led_order(self, leds: list) -> None:
        """Colours in LED order (the wiring test walks the chain itself)."""
        with self._lock:
            self._want_leds = list(leds)
        self._kick()

    def blink(self, spaces: list[int], colour: tuple[int, int, int] | None,
              on_ms: int = 250, off_ms: int = 250) -> None:
        leds = tuple(self.wiring.led_of[s] for s in spaces) if self.wiring else tuple(spaces)
        with self._lock:
            for led in leds:
                if colour is None:
                    self._blinks.pop(led, None)
                else:
                    self._blinks[led] = (colour, on_ms, off_ms)
            self._blink_queue.append(P.Blink(colour or (0, 0, 0), on_ms, off_ms, leds))
        self._kick()

    def request_snapshot(self) -> None:
        """Ask the board for its full state now (the answer arrives as a snapshot)."""
        with self._io:
            if self._port is not None:
                self._state_req_pending = False
                self._request_snapshot()

    def _kick(self) -> None:
        # send what is due from the caller's thread rather than wait for the I/O thread to
        # wake up: that would add up to a read timeout to every LED frame
        with self._io:
            if self._port is not None and self._thread is not None:
                self._send_due(time.monotonic())

    def wait_snapshot(self, timeout: float = 2.0, newer_than: int | None = None) -> P.Snapshot | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            s = self.latest_snapshot()
            if s is not None and (newer_than is None or s.counter != newer_than):
                return s
            time.sleep(0.005)
        return self.latest_snapshot()

    # --- the I/O thread ---------------------------------------------------------------------
    def _send(self, kind: int, payload: bytes = b"", reliable: bool = True) -> int:
        self._seq = (self._seq + 1) & 0xFFFF
        if self._seq == 0xFFFF:
            self._seq = 0
        frame = P.Frame(kind, self._seq, payload)
        self._write(frame)
        if reliable:
            self._pending[frame.seq] = (frame, time.monotonic(), 1)
        return frame.seq

    def _write(self, frame: P.Frame) -> None:
        data = frame.encode()
        port = self._port
        if port is None:
            return
        try:
            port.write(data)
        except (serial.SerialException, OSError):
            self._lost()
            return
        self.stats.frames_out += 1
        self.stats.bytes_out += len(data)

    def _greet(self) -> None:
        self._pending.clear()
        self._state_req_pending = False
        # a board greeted afresh (reconnected, restarted) may count its snapshots from 0
        self._max_counter = None
        self._stale_run = 0
        self._last_state_frame = None
        self._send(P.HELLO_REQ)
        self._request_snapshot()
        if self._shown_leds is not None and self._want_leds is None:
            self._want_leds = self._shown_leds
        self._last_leds_at = 0.0
        for led, (colour, on, off) in self._blinks.items():
            self._blink_queue.append(P.Blink(colour, on, off, (led,)))

    def _request_snapshot(self) -> None:
        if not self._state_req_pending:
            self._state_req_pending = True
            self._last_snap_req = time.monotonic()
            self._send(P.STATE_REQ)

    def _lost(self, state: str = "disconnected") -> None:
        self._close()
        with self._lock:
            self._snapshot = None      # stale from now on: only a fresh snapshot is the truth
        self._set_state(state)

    def _run(self) -> None:
        next_try = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if self._port is None:
                with self._io:
                    next_try = self._reconnect(now, next_try)
                continue
            try:
                port = self._port
                n = port.in_waiting
                data = port.read(n or 1)
            except (serial.SerialException, OSError, TypeError, AttributeError):
                with self._io:
                    self._lost()
                continue
            with self._io:
                if data:
                    self._received(data, time.monotonic())
                self._housekeeping(time.monotonic())

    def _reconnect(self, now: float, next_try: float) -> float:
        if now < next_try:
            time.sleep(0.01)
            return next_try
        try:
            self._port = self._open()
        except LinkError:
            time.sleep(0.02)
            return now + RECONNECT_EVERY
        self.stats.reconnects += 1
        self._decoder = P.Decoder()
        self._uptime = None
        self._last_rx = now
        self._set_state("connected")
        self._greet()
        return now + RECONNECT_EVERY

    def _received(self, data: bytes, now: float) -> None:
        self.stats.bytes_in += len(data)
        before = self._decoder.rejected
        for frame in self._decoder.feed(data):
            self._handle(frame, now)
        if self._decoder.other_version is not None:
            self.other_version = (now, self._decoder.other_version)
            self._decoder.other_version = None
        if self._decoder.rejected != before:
            # a frame from the board was unreadable: it may have been the answer we wait
            # for, or a change hint, so ask for the truth again now
            asked = False
            for seq, item in list(self._pending.items()):
                if item[0].kind in (P.STATE_REQ, P.HELLO_REQ):
                    self._resend(seq, item)
                    asked = True
            if not asked and self.hello is not None:
                self._request_snapshot()
        self.stats.rejected = self._decoder.rejected + self._payload_rejected

    def _handle(self, f: P.Frame, now: float) -> None:
        self.stats.frames_in += 1
        self._last_rx = now
        if self.state != "connected":
            self._set_state("connected")
        try:
            if f.kind == P.ACK:
                (seq,) = struct.unpack("<H", f.payload)
                item = self._pending.get(seq)
                if item is not None and item[0].kind in (P.STATE_REQ, P.HELLO_REQ):
                    return        # a request is done when its answer arrives, not its ACK
                done = self._pending.pop(seq, None)
                if done is not None and done[0].kind == P.LEDS:
                    self.stats.leds_acked += 1
                    self.stats.led_acks.append(now)
            elif f.kind == P.NAK:
                seq, reason = struct.unpack("<HB", f.payload)
                if reason == 4:
                    # the board speaks another protocol version: retrying will not help
                    self._pending.pop(seq, None)
                    text = f"protocol version mismatch: seqboard speaks version {P.VERSION}; update the board's firmware"
                    if not self.board_errors or self.board_errors[-1][1] != text:
                        self.board_errors.append((now, text))
                elif seq == 0xFFFF:
                    # the board got a frame it could not read: whatever is unacknowledged
                    # may have been it, so send those again now rather than at the timeout
                    for s, item in list(self._pending.items()):
                        if self._worth_resending(s, item):
                            self._resend(s, item)
                else:
                    item = self._pending.get(seq)
                    if item is not None and reason == 3 and item[2] >= 3:
                        # refused for its length three times: the board is not the one the
                        # frame was made for (another size); resending cannot help
                        del self._pending[seq]
                    elif item is not None and self._worth_resending(seq, item):
                        self._resend(seq, item)
            elif f.kind == P.HELLO:
                for seq, (fr, _, _) in list(self._pending.items()):
                    if fr.kind == P.HELLO_REQ:
                        del self._pending[seq]
                known = self.hello is not None
                self.hello = P.Hello.unpack(f.payload)
                self._hello_event.set()
                if known and f.seq == 1:
                    self._rebooted()      # frame 1 is the hello a board sends as it boots
            elif f.kind == P.STATE:
                n = self.hello.rows * self.hello.cols if self.hello else len(f.payload) - 4
                snap = P.Snapshot.unpack(f.payload, n, bool(self.hello and self.hello.sensor == "identity"))
                if self._last_state_frame == (f.seq, f.payload):
                    # the same frame twice (a doubled frame on the line): one snapshot, not a
                    # second reading that could confirm the first
                    self.stats.duplicate_snapshots += 1
                    return
                self._last_state_frame = (f.seq, f.payload)
                if not self._fresh(snap.counter):
                    # older than a snapshot already held: a late answer overtaken by a newer
                    # one; it says nothing about the board now
                    self.stats.stale_snapshots += 1
                    return
                self._state_req_pending = False
                for seq, (fr, sent, _) in list(self._pending.items()):
                    if fr.kind == P.STATE_REQ:
                        del self._pending[seq]
                        if len(self.stats.snapshot_rtts) < 1000:
                            self.stats.snapshot_rtts.append(time.monotonic() - sent)
                self._snapshot_serial += 1
                snap = dataclasses.replace(snap, serial=self._snapshot_serial, received=now)
                with self._lock:
                    self._snapshot = snap
                self.stats.snapshots += 1
                for fn in self._listeners:
                    fn(snap)
            elif f.kind == P.ERROR:
                code = f.payload[0] if f.payload else 0
                text = P.clean_text(f.payload[1:])       # never raw bytes on a terminal
                self.board_errors.append((now, f"{P.ERROR_CODES.get(code, f'error {code}')}: {text}"))
                del self.board_errors[:-20]
            elif f.kind == P.CARD:
                tag = P.CardTag.unpack(f.payload)
                self._send(P.ACK, struct.pack("<H", f.seq), reliable=False)
                if tag.counter not in self._cards_seen:
                    self._cards_seen.append(tag.counter)
                    del self._cards_seen[:-64]
                    with self._lock:
                        self._cards.append((tag.reader, tag.code))
            elif f.kind == P.CHANGE:
                struct.unpack("<IHB", f.payload)  # well formed, or rejected below
                self._request_snapshot()          # a hint only: ask for the truth
            elif f.kind == P.HEARTBEAT:
                (uptime,) = struct.unpack("<I", f.payload)
                if self._uptime is not None:
                    then, before = self._uptime
                    # the board's clock should have moved on as ours did; if it is behind
                    # by more than a heartbeat, it restarted in between (the boot
                    # announcement was lost)
                    if uptime - before < (now - then) * 1000 - 400:
                        self._rebooted()
                self._uptime = (now, uptime)
        except (struct.error, P.ProtocolError):
            # well framed, but its payload is not what its kind carries: never applied
            self._payload_rejected += 1
            self.stats.rejected += 1

    def _fresh(self, counter: int) -> bool:
        """Whether a snapshot counter is not older than the newest held since the greeting
        (serial-number arithmetic, so the u32 counter may wrap). Three older ones in a row
        mean the board's counter started again (a restart the host missed): accepted."""
        if self._max_counter is not None:
            behind = (self._max_counter - counter) & 0xFFFFFFFF
            if 0 < behind < 0x80000000:
                self._stale_run += 1
                if self._stale_run < 3:
                    return False
        self._stale_run = 0
        self._max_counter = counter
        return True

    def _rebooted(self) -> None:
        self._cards_seen.clear()          # its card counter starts again
        # it forgot its LEDs and blinks: greet it again, which restores them
        self.stats.reboots += 1
        self._uptime = None
        self._greet()

    def _resend(self, seq: int, item: tuple) -> None:
        frame, _, tries = item
        self.stats.retries += 1
        self._write(frame)
        self._pending[seq] = (frame, time.monotonic(), tries + 1)

    def _worth_resending(self, seq: int, item: tuple) -> bool:
        """An LED frame is resent only while it is the newest sent and none is waiting:
        the board must never go back to an older picture."""
        if item[0].kind != P.LEDS:
            return True
        if seq != self._newest_led_seq or self._want_leds is not None:
            del self._pending[seq]        # superseded: newest wins
            return False
        return True

    def _housekeeping(self, now: float) -> None:
        if now - self._last_rx > SILENT_AFTER:
            # the board went silent (unplugged, rebooting, hung): start again
            self._lost("silent")
            return
        for seq, item in list(self._pending.items()):
            if now - item[1] > self.retry_after and self._worth_resending(seq, item):
                self._resend(seq, item)
        self._send_due(now)
        if now - self._last_beat > HEARTBEAT_EVERY:
            self._last_beat = now
            self._send(P.HEARTBEAT, struct.pack("<I", int(now * 1000) & 0xFFFFFFFF), reliable=False)
        if now - self._last_snap_req > SNAPSHOT_EVERY:
            self._state_req_pending = False
            self._request_snapshot()

    def _send_due(self, now: float) -> None:
        """The newest LED frame if the window and the rate allow it, and queued blinks."""
        with self._lock:
            leds = self._want_leds
            blinks, self._blink_queue = self._blink_queue, []
        in_flight = sum(1 for it in self._pending.values() if it[0].kind == P.LEDS)
        if leds is not None and in_flight < LED_WINDOW and now - self._last_leds_at >= self.led_interval:
            with self._lock:
                if self._want_leds is leds:
                    self._want_leds = None
            self._newest_led_seq = self._send(P.LEDS, P.pack_leds(leds, self.brightness))
            self._shown_leds = leds
            self._last_leds_at = now
        for b in blinks:
            self._send(P.BLINK, b.pack())
