"""The host's side of the matrix protocol: typed messages, frames, and a stream decoder.

A frame on the wire is ``COBS(version, type, seq, length, payload, crc16) 0x00``; every
field little-endian; the CRC is CRC-16/CCITT-FALSE over everything before it. The full
specification, with every message's payload, is docs/protocol.md. The firmware has its own
implementation (firmware/proto.py, MicroPython); both are checked against the shared test
vectors in ``vectors/frames.json``.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field

VERSION = 1
MAX_FRAME = 1024

HELLO_REQ, HELLO, STATE_REQ, STATE, CHANGE, LEDS, BLINK, HEARTBEAT, ACK, NAK, ERROR, CARD = \
    range(1, 13)
NAMES = {HELLO_REQ: "hello_req", HELLO: "hello", STATE_REQ: "state_req", STATE: "state",
         CHANGE: "change", LEDS: "leds", BLINK: "blink", HEARTBEAT: "heartbeat", ACK: "ack",
         NAK: "nak", ERROR: "error", CARD: "card"}
CARD_CODE_MAX = 8
NAK_REASONS = {1: "bad CRC", 2: "unknown type", 3: "bad length", 4: "wrong version"}
ERROR_CODES = {1: "sensor fault", 2: "LED fault", 3: "frame too long", 4: "internal error"}

#: Values per space in STATE and CHANGE.
SPACE_VALUES = {0: None, 1: "occupied", 2: "B", 3: "G", 4: "R", 5: "W"}
VALUE_OF = {v: k for k, v in SPACE_VALUES.items()}


class ProtocolError(ValueError):
    """A frame that is not a valid message; never applied."""


def crc16(data: bytes) -> int:
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    for part in data.split(b"\x00"):
        while len(part) >= 254:
            out.append(0xFF)
            out += part[:254]
            part = part[254:]
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            raise ProtocolError(f"bad COBS block: the code byte at byte {i} (0x{code:02x}) "
                                f"points past the end of the {n}-byte block")
        chunk = data[i + 1:i + code]
        if 0 in chunk:
            raise ProtocolError(f"zero inside a COBS block at byte {i + 1 + chunk.index(0)}")
        out += chunk
        i += code
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    kind: int
    seq: int
    payload: bytes = b""

    @property
    def name(self) -> str:
        return NAMES.get(self.kind, f"type {self.kind}")

    def encode(self) -> bytes:
        body = struct.pack("<BBHH", VERSION, self.kind, self.seq & 0xFFFF, len(self.payload)) + self.payload
        return cobs_encode(body + struct.pack("<H", crc16(body))) + b"\x00"

    @classmethod
    def decode(cls, block: bytes) -> "Frame":
        """One block between delimiters; :class:`ProtocolError` for anything not a valid frame."""
        body = cobs_decode(block)
        if len(body) < 8:
            raise ProtocolError(f"frame too short: {len(body)} bytes decoded, at least 8 needed")
        ver, kind, seq, length = struct.unpack_from("<BBHH", body)
        if len(body) != 8 + length:
            raise ProtocolError(f"length field does not match: bytes 4-5 say {length}, "
                                f"the frame carries {len(body) - 8}")
        (crc,) = struct.unpack_from("<H", body, 6 + length)
        if crc16(body[:6 + length]) != crc:
            raise ProtocolError(f"CRC mismatch: bytes {6 + length}-{7 + length} say 0x{crc:04x}, "
                                f"the frame's CRC is 0x{crc16(body[:6 + length]):04x}")
        if ver != VERSION:
            err = ProtocolError(f"protocol version {ver}, expected {VERSION} (byte 0)")
            err.version = ver
            raise err
        if kind not in NAMES:
            raise ProtocolError(f"unknown message type {kind} (byte 1)")
        return cls(kind, seq, bytes(body[6:6 + length]))


class Decoder:
    """Feeds bytes, yields frames; garbage is skipped up to the next delimiter and counted."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.rejected = 0
        self.last_error = ""
        self.other_version: int | None = None   # a well-formed frame of another version

    def feed(self, data: bytes) -> list[Frame]:
        out = []
        self.buf += data
        while True:
            k = self.buf.find(0)
            if k < 0:
                if len(self.buf) > MAX_FRAME:
                    self.buf.clear()          # garbage with no delimiter: resynchronise
                    self.rejected += 1
                    self.last_error = f"more than {MAX_FRAME} bytes with no delimiter: dropped"
                break
            block = bytes(self.buf[:k])
            del self.buf[:k + 1]
            if not block:
                continue
            if len(block) > MAX_FRAME:
                self.rejected += 1
                self.last_error = f"a block of {len(block)} bytes, longer than {MAX_FRAME}: dropped"
                continue
            try:
                out.append(Frame.decode(block))
            except ProtocolError as exc:
                self.rejected += 1
                self.last_error = str(exc)
                if getattr(exc, "version", None) is not None:
                    self.other_version = exc.version
        return out


# --- payloads ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hello:
    rows: int
    cols: int
    sensor: str                 # "occupancy" or "identity"
    led_count: int
    firmware: str = ""

    def pack(self) -> bytes:
        return struct.pack("<BBBH", self.rows, self.cols, 0 if self.sensor == "occupancy" else 1,
                           self.led_count) + self.firmware.encode()

    @classmethod
    def unpack(cls, p: bytes) -> "Hello":
        if len(p) < 5:
            raise ProtocolError("hello too short")
        rows, cols, sensor, leds = struct.unpack_from("<BBBH", p)
        if sensor not in (0, 1) or rows == 0 or cols == 0:
            raise ProtocolError("hello with impossible capabilities")
        return cls(rows, cols, "occupancy" if sensor == 0 else "identity", leds,
                   clean_text(p[5:], 64))


@dataclass(frozen=True)
class Snapshot:
    """A full sensor state: one value per space in board order (None, "occupied", or a
    colour letter), and the board's snapshot counter. The link numbers the snapshots it
    accepts (``serial``, 1 upwards) and notes when each arrived (``received``, monotonic
    seconds): two readings are two snapshots only if their serials differ."""

    counter: int
    spaces: tuple
    identity: bool = False
    serial: int = field(default=0, compare=False)
    received: float = field(default=0.0, compare=False)

    def pack(self) -> bytes:
        return struct.pack("<I", self.counter) + bytes(VALUE_OF[v] for v in self.spaces)

    @classmethod
    def unpack(cls, p: bytes, n: int, identity: bool = False) -> "Snapshot":
        if len(p) != 4 + n:
            raise ProtocolError(f"state of {len(p) - 4} spaces, the board has {n}")
        if any(b > 5 for b in p[4:]):
            raise ProtocolError("state with an unknown space value")
        (counter,) = struct.unpack_from("<I", p)
        return cls(counter, tuple(SPACE_VALUES[b] for b in p[4:]), identity)


@dataclass(frozen=True)
class Blink:
    colour: tuple[int, int, int]
    on_ms: int
    off_ms: int
    leds: tuple[int, ...] = field(default_factory=tuple)

    def pack(self) -> bytes:
        return struct.pack("<BBBHHH", *self.colour, self.on_ms, self.off_ms, len(self.leds)) + \
            b"".join(struct.pack("<H", i) for i in self.leds)

    @classmethod
    def unpack(cls, p: bytes) -> "Blink":
        if len(p) < 9:
            raise ProtocolError("blink too short")
        r, g, b, on, off, n = struct.unpack_from("<BBBHHH", p)
        if len(p) != 9 + 2 * n:
            raise ProtocolError("blink length does not match")
        return cls((r, g, b), on, off, struct.unpack_from(f"<{n}H", p, 9))


ERROR_TEXT_MAX = 200


def clean_text(raw: bytes | str, limit: int = ERROR_TEXT_MAX) -> str:
    """Text from the board made safe to show: UTF-8 (bad bytes replaced), every control
    character and escape sequence removed, whitespace runs made one space, at most
    ``limit`` characters (an ellipsis marks a cut)."""
    import unicodedata
    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
    out = []
    for ch in text[:4 * limit]:
        cat = unicodedata.category(ch)
        if ch.isspace():
            out.append(" ")
        elif cat[0] == "C" or cat in ("Zl", "Zp"):
            continue              # ESC, BEL, bidi overrides, private use, ...
        else:
            out.append(ch)
    text = " ".join("".join(out).split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def pack_leds(colours: list[tuple[int, int, int]], brightness: int = 255) -> bytes:
    out = bytearray([brightness & 0xFF])
    for r, g, b in colours:
        out += bytes((r & 0xFF, g & 0xFF, b & 0xFF))
    return bytes(out)


def unpack_leds(p: bytes) -> tuple[int, list[tuple[int, int, int]]]:
    if len(p) < 1 or (len(p) - 1) % 3:
        raise ProtocolError("LED frame length is not 1 + 3 x LEDs")
    return p[0], [tuple(p[1 + 3 * i:4 + 3 * i]) for i in range((len(p) - 1) // 3)]


@dataclass(frozen=True)
class CardTag:
    """CARD: a tagged card read by the board's optional NFC card reader (docs/protocol.md)."""

    counter: int        # the board's card number: a card sent again keeps it
    reader: int         # which card reader (the seat it stands before)
    code: str           # the card's code as its tag holds it: "5H", "TD", "ADD"

    def pack(self) -> bytes:
        return struct.pack("<IB", self.counter, self.reader) + self.code.encode()[:CARD_CODE_MAX]

    @classmethod
    def unpack(cls, p: bytes) -> "CardTag":
        if not 6 <= len(p) <= 5 + CARD_CODE_MAX:
            raise ProtocolError(f"a card frame carries 6 to {5 + CARD_CODE_MAX} bytes, not {len(p)}")
        counter, reader = struct.unpack_from("<IB", p)
        try:
            code = p[5:].decode("ascii")
        except UnicodeDecodeError:
            raise ProtocolError("a card code is ASCII letters and digits") from None
        if not code.isalnum():
            raise ProtocolError(f"a card code is letters and digits, not {code!r}")
        return cls(counter, reader, code)


def describe(frame: Frame, n_spaces: int = 100) -> dict:
    """The decoded meaning of a frame, as the test vectors spell it."""
    p = frame.payload
    d: dict = {"type": frame.name, "seq": frame.seq}
    if frame.kind == HELLO:
        h = Hello.unpack(p)
        d.update(rows=h.rows, cols=h.cols, sensor=h.sensor, led_count=h.led_count, firmware=h.firmware)
    elif frame.kind == STATE:
        s = Snapshot.unpack(p, len(p) - 4)
        letter = {None: ".", "occupied": "o"}
        d.update(counter=s.counter, spaces="".join(letter.get(v, v) for v in s.spaces))
    elif frame.kind == CHANGE:
        counter, space, value = struct.unpack("<IHB", p)
        d.update(counter=counter, space=space, value=value)
    elif frame.kind == LEDS:
        bright, cols = unpack_leds(p)
        d.update(brightness=bright, leds=[list(c) for c in cols])
    elif frame.kind == BLINK:
        b = Blink.unpack(p)
        d.update(colour=list(b.colour), on_ms=b.on_ms, off_ms=b.off_ms, leds=list(b.leds))
    elif frame.kind == HEARTBEAT:
        d.update(uptime_ms=struct.unpack("<I", p)[0])
    elif frame.kind == ACK:
        d.update(acked=struct.unpack("<H", p)[0])
    elif frame.kind == NAK:
        seq, reason = struct.unpack("<HB", p)
        d.update(refused=seq, reason=NAK_REASONS.get(reason, str(reason)))
    elif frame.kind == ERROR:
        d.update(code=p[0] if p else 0, text=clean_text(p[1:]))
    elif frame.kind == CARD:
        c = CardTag.unpack(p)
        d.update(counter=c.counter, reader=c.reader, card=c.code)
    return d
