# seqboard matrix firmware: the protocol core (MicroPython and CPython).
#
# Shared by the Pico's main.py and the host-side emulator, so the emulator answers exactly
# as the firmware does. Written in the subset of Python that MicroPython runs: no typing,
# no dataclasses, no f-strings; struct and bytearray only. See docs/protocol.md.

import struct

VERSION = 1

HELLO_REQ = 0x01
HELLO = 0x02
STATE_REQ = 0x03
STATE = 0x04
CHANGE = 0x05
LEDS = 0x06
BLINK = 0x07
HEARTBEAT = 0x08
ACK = 0x09
NAK = 0x0A
ERROR = 0x0B
CARD = 0x0C     # a card read by the optional NFC card reader at the board's edge

CARD_RESEND_MS = 500
CARD_TRIES = 5
CARD_CODE_MAX = 8

NAK_CRC = 1
NAK_TYPE = 2
NAK_LENGTH = 3
NAK_VERSION = 4

ERR_SENSOR = 1
ERR_LED = 2
ERR_TOO_LONG = 3
ERR_INTERNAL = 4

SENSOR_OCCUPANCY = 0
SENSOR_IDENTITY = 1

HOST_SILENT_MS = 3000
HEARTBEAT_MS = 500
MAX_FRAME = 1024

_CRC_TABLE = None


def _table():
    global _CRC_TABLE
    if _CRC_TABLE is None:
        t = []
        for i in range(256):
            c = i << 8
            for _ in range(8):
                c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
            t.append(c & 0xFFFF)
        _CRC_TABLE = t
    return _CRC_TABLE


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection."""
    t = _table()
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray(b"\x00")
    code_idx = 0
    code = 1
    for b in data:
        if b == 0:
            out[code_idx] = code
            code_idx = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_idx] = code
                code_idx = len(out)
                out.append(0)
                code = 1
    out[code_idx] = code
    return bytes(out)


def cobs_decode(data):
    """Decode one COBS block (without the zero delimiter); None if malformed."""
    out = bytearray()
    idx = 0
    n = len(data)
    while idx < n:
        code = data[idx]
        if code == 0:
            return None
        end = idx + code
        if end > n:
            return None
        chunk = data[idx + 1:end]
        if 0 in chunk:
            return None
        out.extend(chunk)
        idx = end
        if code < 0xFF and idx < n:
            out.append(0)
    return bytes(out)


def build(kind, seq, payload=b""):
    """A whole frame on the wire: COBS(header, payload, CRC) and the zero delimiter."""
    body = struct.pack("<BBHH", VERSION, kind, seq & 0xFFFF, len(payload)) + bytes(payload)
    body += struct.pack("<H", crc16(body))
    return cobs_encode(body) + b"\x00"


def parse(block):
    """(kind, seq, payload) of one delimited block, or (None, seq_or_None, reason)."""
    body = cobs_decode(block)
    if body is None or len(body) < 8:
        return None, None, NAK_LENGTH
    ver, kind, seq, length = struct.unpack("<BBHH", body[:6])
    if len(body) != 8 + length:
        return None, None, NAK_LENGTH
    (crc,) = struct.unpack("<H", body[6 + length:])
    if crc16(body[:6 + length]) != crc:
        return None, None, NAK_CRC
    if ver != VERSION:
        return None, seq, NAK_VERSION
    return kind, seq, body[6:6 + length]


class Deframer:
    """Splits a byte stream at zero delimiters; a frame longer than MAX_FRAME is dropped
    (garbage), and the next delimiter starts afresh."""

    def __init__(self):
        self.buf = bytearray()
        self.overflow = False
        self.too_long = 0         # frames dropped for their length

    def feed(self, data):
        out = []
        for b in data:
            if b == 0:
                if self.overflow:
                    self.too_long += 1
                elif self.buf:
                    out.append(bytes(self.buf))
                self.buf = bytearray()
                self.overflow = False
            elif len(self.buf) < MAX_FRAME:
                self.buf.append(b)
            else:
                self.overflow = True
        return out


class BoardCore:
    """The microcontroller's side of the protocol, hardware behind three callables:

    ``scan()`` -> list of per-space values (0 empty, 1 occupied, 2 B, 3 G, 4 R, 5 W),
    ``show(colours)`` -> write a list of (r, g, b) in LED order, ``send(bytes)``.
    ``tick(now_ms)`` runs the board: scans, sends change hints and heartbeats, runs blinks,
    and shows the waiting pattern while the Pi is silent.
    """

    def __init__(self, rows, cols, sensor, led_count, scan, show, send, firmware="1.0"):
        self.rows = rows
        self.cols = cols
        self.sensor = sensor
        self.led_count = led_count
        self.scan = scan
        self.show = show
        self.send = send
        self.firmware = firmware
        self.deframer = Deframer()
        self.seq = 0
        self.snapshot = 0
        self.values = list(scan())
        self.leds = [(0, 0, 0)] * led_count
        self.brightness = 255
        self.blinks = {}          # led -> (r, g, b, on_ms, off_ms)
        self.last_host = None
        self.last_beat = 0
        self.now = 0
        self.applied_leds_seq = None
        self.waiting = True
        self._drawn = None
        self.card_counter = 0
        self.cards_out = {}       # counter -> [seq, reader, code bytes, last sent ms, tries]
        # announce ourselves at boot: a host that was talking to us learns we restarted
        self._out(HELLO, self.hello_payload())

    def _next(self):
        self.seq = (self.seq + 1) & 0xFFFF
        return self.seq

    def _out(self, kind, payload=b""):
        self.send(build(kind, self._next(), payload))

    def hello_payload(self):
        return struct.pack("<BBBH", self.rows, self.cols, self.sensor, self.led_count) + \
            self.firmware.encode()

    def state_payload(self):
        return struct.pack("<I", self.snapshot) + bytes(self.values)

    def card(self, reader, code):
        """A tagged card laid on the card reader ``reader`` (its seat), ``code`` its text
        ("5H", "ADD"): sent as CARD until the host acknowledges it (at most CARD_TRIES)."""
        self.card_counter = (self.card_counter + 1) & 0xFFFFFFFF
        body = code.encode()[:CARD_CODE_MAX]
        entry = [0, reader & 0xFF, body, self.now, 0]
        self.cards_out[self.card_counter] = entry
        self._send_card(self.card_counter, entry)

    def _send_card(self, counter, entry):
        entry[0] = self._next()
        entry[3] = self.now
        entry[4] += 1
        self.send(build(CARD, entry[0], struct.pack("<IB", counter, entry[1]) + entry[2]))

    def error(self, code, text):
        """Tell the host something is wrong with the board (a stuck sensor row, ...)."""
        self._out(ERROR, struct.pack("<B", code) + text.encode()[:200])

    def receive(self, data):
        dropped = self.deframer.too_long
        blocks = self.deframer.feed(data)
        if self.deframer.too_long != dropped:
            self.error(ERR_TOO_LONG, "dropped a frame longer than %d bytes" % MAX_FRAME)
        for block in blocks:
            kind, seq, payload = parse(block)
            if kind is None:
                self._out(NAK, struct.pack("<HB", 0xFFFF if seq is None else seq, payload))
                continue
            self.last_host = self.now
            self.handle(kind, seq, payload)
            if self.waiting and self.applied_leds_seq is not None:
                # the Pi is back after a stall: show its last picture again
                self.waiting = False
                self.render()

    def handle(self, kind, seq, payload):
        if kind in (HELLO_REQ, STATE_REQ) and payload:
            # a request carries no payload: a frame that has one is malformed (docs/protocol.md)
            self._out(NAK, struct.pack("<HB", seq, NAK_LENGTH))
            return
        if kind == HELLO_REQ:
            self._out(ACK, struct.pack("<H", seq))
            self._out(HELLO, self.hello_payload())
        elif kind == STATE_REQ:
            self._out(ACK, struct.pack("<H", seq))
            self._out(STATE, self.state_payload())
        elif kind == LEDS:
            if len(payload) != 1 + 3 * self.led_count:
                self._out(NAK, struct.pack("<HB", seq, NAK_LENGTH))
                return
            self._out(ACK, struct.pack("<H", seq))
            if seq == self.applied_leds_seq:
                return              # a retry of a frame already shown
            self.applied_leds_seq = seq
            self.brightness = payload[0]
            self.leds = [(payload[1 + 3 * i], payload[2 + 3 * i], payload[3 + 3 * i])
                         for i in range(self.led_count)]
            self.waiting = False
            self.render()
        elif kind == BLINK:
            if len(payload) < 9:
                self._out(NAK, struct.pack("<HB", seq, NAK_LENGTH))
                return
            r, g, b, on_ms, off_ms, n = struct.unpack("<BBBHHH", payload[:9])
            if len(payload) != 9 + 2 * n:
                self._out(NAK, struct.pack("<HB", seq, NAK_LENGTH))
                return
            self._out(ACK, struct.pack("<H", seq))
            for k in range(n):
                (led,) = struct.unpack("<H", payload[9 + 2 * k:11 + 2 * k])
                if led >= self.led_count:
                    continue
                if r == 0 and g == 0 and b == 0:
                    self.blinks.pop(led, None)
                else:
                    self.blinks[led] = (r, g, b, on_ms, off_ms)
            self.render()
        elif kind == HEARTBEAT:
            pass
        elif kind == ACK:
            if len(payload) == 2:
                (acked,) = struct.unpack("<H", payload)
                for counter in list(self.cards_out):
                    if self.cards_out[counter][0] == acked:
                        del self.cards_out[counter]
        elif kind == NAK:
            pass
        else:
            self._out(NAK, struct.pack("<HB", seq, NAK_TYPE))

    def render(self):
        self._drawn = (self.waiting and (self.now // 40) % 24,
                       tuple((self.now % max(1, b[3] + b[4])) < b[3] for b in self.blinks.values()))
        out = list(self.leds)
        for led, (r, g, b, on_ms, off_ms) in self.blinks.items():
            period = max(1, on_ms + off_ms)
            out[led] = (r, g, b) if (self.now % period) < on_ms else (0, 0, 0)
        if self.waiting:
            # the Pi is silent: every LED off but the four corners, breathing dim blue
            out = [(0, 0, 0)] * self.led_count
            lvl = 8 + (self.now // 40) % 24
            for i in (0, self.cols - 1, self.led_count - self.cols, self.led_count - 1):
                if 0 <= i < self.led_count:
                    out[i] = (0, 0, lvl)
        scale = self.brightness
        self.show([((r * scale) >> 8, (g * scale) >> 8, (b * scale) >> 8) for r, g, b in out])

    def tick(self, now_ms):
        self.now = now_ms
        values = list(self.scan())
        if values != self.values:
            for i in range(len(values)):
                if values[i] != self.values[i]:
                    self.snapshot = (self.snapshot + 1) & 0xFFFFFFFF
                    self._out(CHANGE, struct.pack("<IHB", self.snapshot, i, values[i]))
            self.values = values
        for counter in list(self.cards_out):
            entry = self.cards_out[counter]
            if now_ms - entry[3] >= CARD_RESEND_MS:
                if entry[4] >= CARD_TRIES:
                    del self.cards_out[counter]       # the host is not listening
                else:
                    self._send_card(counter, entry)
        if now_ms - self.last_beat >= HEARTBEAT_MS:
            self.last_beat = now_ms
            self._out(HEARTBEAT, struct.pack("<I", now_ms & 0xFFFFFFFF))
        silent = self.last_host is None or now_ms - self.last_host > HOST_SILENT_MS
        if silent and not self.waiting:
            self.waiting = True
        if self.blinks or self.waiting:
            # redraw only when what the LEDs show would change: a blink phase flips, or
            # the waiting pattern's level steps (a WS2812 chain takes ~3 ms to write)
            key = (self.waiting and (now_ms // 40) % 24,
                   tuple((now_ms % max(1, b[3] + b[4])) < b[3] for b in self.blinks.values()))
            if key != self._drawn:
                self.render()
