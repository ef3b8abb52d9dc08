# seqboard matrix firmware for a Raspberry Pi Pico (RP2040), MicroPython.
#
# Copy proto.py, hardware.py and this file to the Pico (e.g. `mpremote cp *.py :`).
# The Pico speaks the protocol of docs/protocol.md on its USB serial port, scans a
# multiplexed hall-sensor matrix (or MFRC522 NFC readers), and drives a WS2812 chain.
# Wiring: docs/wiring.md. Everything board-specific is in CONFIG below.

import sys
import time

import proto
from hardware import CardReaders, HallMatrix, Leds, NfcReaders, UsbSerial

CONFIG = {
    "rows": 10,
    "cols": 10,
    "led_pin": 28,                       # WS2812 data in (through a 330 ohm resistor)
    "row_pins": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],         # one row selected at a time
    "col_pins": [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],  # read with pull-ups
    "row_active": 1,                     # 1: row pin drives a MOSFET powering hall sensors
                                         # 0: row pin is the return of reed switches
    "settle_us": 60,                     # hall sensors' power-on time before reading
    "sensor": "hall",                    # "hall" (occupancy) or "nfc" (chip colours)
    # NFC: one MFRC522 per chip-select pin; "spaces" names the space each reader watches
    "nfc": {"spi": 0, "sck": 2, "mosi": 3, "miso": 4, "cs_pins": [5, 6, 7, 8], "rst": 9,
            "spaces": [0, 9, 90, 99]},
    "debounce_scans": 3,                 # a space must read the same this many scans
    # optional NFC card readers at the board's edge, one per seat (reader k before seat k):
    # a played card tapped on it is sent as CARD (docs/protocol.md, docs/cards.md); None: none
    "card_readers": None,                # e.g. {"spi": 1, "sck": 10, "mosi": 11, "miso": 12,
                                         #       "cs_pins": [20, 21], "rst": 22}
}


def build(config=CONFIG, port=None):
    """The board's protocol core wired to its hardware as ``config`` describes."""
    rows, cols = config["rows"], config["cols"]
    n = rows * cols
    if config["sensor"] == "nfc":
        sensors = NfcReaders(config["nfc"], n)
        kind = proto.SENSOR_IDENTITY
    else:
        sensors = HallMatrix(config["row_pins"], config["col_pins"], config["debounce_scans"],
                             config.get("row_active", 0), config.get("settle_us", 0))
        kind = proto.SENSOR_OCCUPANCY
    leds = Leds(config["led_pin"], n)
    port = port or UsbSerial()
    core = proto.BoardCore(rows, cols, kind, n, sensors.scan, leds.show, port.write,
                           firmware="pico-1.0")
    return core, port


def main(config=CONFIG):
    core, port = build(config)
    cards = CardReaders(config["card_readers"]) if config.get("card_readers") else None
    start = time.ticks_ms()
    next_cards = 0
    while True:
        data = port.read()
        if data:
            core.receive(data)
        now = time.ticks_diff(time.ticks_ms(), start)
        if cards is not None and now >= next_cards:
            next_cards = now + 100           # the readers take a few ms each
            for reader, code in cards.poll():
                core.card(reader, code)
        core.tick(now)
        time.sleep_ms(2)


if __name__ == "__main__" and sys.implementation.name == "micropython":
    main()
