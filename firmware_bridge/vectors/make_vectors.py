"""Write ``frames.json``: frames as hex with their decoded meaning, for host and firmware tests.

    python -m firmware_bridge.vectors.make_vectors
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from firmware_bridge import protocol as P


def vectors() -> dict:
    good = [
        ("hello request", P.Frame(P.HELLO_REQ, 1)),
        ("hello from a 10 x 10 occupancy board", P.Frame(P.HELLO, 7, P.Hello(10, 10, "occupancy", 100, "pico-1.0").pack())),
        ("hello from a 7 x 7 identity board", P.Frame(P.HELLO, 8, P.Hello(7, 7, "identity", 49, "").pack())),
        ("state request", P.Frame(P.STATE_REQ, 2)),
        ("state of a 2 x 2 board", P.Frame(P.STATE, 9, P.Snapshot(5, (None, "occupied", "B", "W")).pack())),
        ("state of 100 spaces, mostly empty (zeros)", P.Frame(P.STATE, 10, P.Snapshot(65536, tuple([None] * 99 + ["R"])).pack())),
        ("change hint: space 44 occupied", P.Frame(P.CHANGE, 11, struct.pack("<IHB", 6, 44, 1))),
        ("LED frame of 4 LEDs", P.Frame(P.LEDS, 3, P.pack_leds([(255, 0, 0), (0, 0, 0), (0, 0, 255), (12, 34, 56)], 128))),
        ("LED frame of 100 LEDs (crosses a COBS block)", P.Frame(P.LEDS, 4, P.pack_leds([(i, 255 - i, 0) for i in range(100)], 255))),
        ("blink spaces 3 and 7 red", P.Frame(P.BLINK, 5, P.Blink((255, 0, 0), 250, 250, (3, 7)).pack())),
        ("stop blinking LED 3", P.Frame(P.BLINK, 6, P.Blink((0, 0, 0), 0, 0, (3,)).pack())),
        ("heartbeat", P.Frame(P.HEARTBEAT, 12, struct.pack("<I", 123456))),
        ("ack of frame 3", P.Frame(P.ACK, 13, struct.pack("<H", 3))),
        ("nak of frame 4: bad length", P.Frame(P.NAK, 14, struct.pack("<HB", 4, 3))),
        ("nak of an unreadable frame", P.Frame(P.NAK, 15, struct.pack("<HB", 0xFFFF, 1))),
        ("error report", P.Frame(P.ERROR, 16, b"\x02sensor row 3 stuck")),
        ("card 5H on the card reader of seat 1", P.Frame(P.CARD, 17, P.CardTag(3, 0, "5H").pack())),
        ("card ADD on the card reader of seat 2", P.Frame(P.CARD, 18, P.CardTag(4, 1, "ADD").pack())),
        ("sequence number wraps", P.Frame(P.HEARTBEAT, 0xFFFE, struct.pack("<I", 0))),
    ]
    out = {"version": P.VERSION, "valid": [], "invalid": []}
    for name, f in good:
        n = len(f.payload) - 4 if f.kind == P.STATE else 100
        out["valid"].append({"name": name, "hex": f.encode().hex(), "kind": f.kind, "seq": f.seq,
                             "payload": f.payload.hex(), "meaning": P.describe(f, n)})
    base = P.Frame(P.ACK, 3, struct.pack("<H", 1)).encode()
    flipped = bytearray(base)
    flipped[3] ^= 0x10
    body = struct.pack("<BBHH", 2, P.ACK, 3, 2) + struct.pack("<H", 1)
    wrong_version = P.cobs_encode(body + struct.pack("<H", P.crc16(body))) + b"\x00"
    body = struct.pack("<BBHH", 1, P.ACK, 3, 5) + struct.pack("<H", 1)
    bad_length = P.cobs_encode(body + struct.pack("<H", P.crc16(body))) + b"\x00"
    out["invalid"] = [
        {"name": "a bit flipped", "hex": bytes(flipped).hex(), "error": "CRC mismatch"},
        {"name": "cut short", "hex": (base[:4] + b"\x00").hex(), "error": "frame too short"},
        {"name": "protocol version 2", "hex": wrong_version.hex(), "error": "protocol version"},
        {"name": "length field says 5", "hex": bad_length.hex(), "error": "length field"},
        {"name": "COBS code past the end", "hex": "0901020300", "error": "COBS"},
    ]
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("frames.json")
    path.write_text(json.dumps(vectors(), indent=1) + "\n", "utf-8")
    print(f"wrote {path}")
