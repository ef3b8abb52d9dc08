# seqboard matrix firmware for a Raspberry Pi Pico (RP2040), MicroPython.
#
# Copy proto.py, hardware.py and this file to the Pico (e.g. `mpremote cp *.py :`).
# The Pico speaks the protocol of docs/protocol.md on its USB serial port, scans a
# multiplexed hall-sensor matrix (or MFRC522 NFC readers), and drives a WS2812 chain.
# Wiring: docs/wiring.md. Everything board-specific is in CONFIG below.

import sys
import time

import proto
from hardware import HallMatrix, Leds, NfcReaders, UsbSerial

CONFIG = {
    "rows": 10,
    "cols": 10,
    "led_pin": 28,                       # WS2812 data in (through a 330 ohm resistor)
    "row_pins": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],         # drive one row low at a time
    "col_pins": [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],  # read with pull-ups
    "sensor": "hall",                    # "hall" (occupancy) or "nfc" (chip colours)
    "nfc": {"spi": 0, "sck": 2, "mosi": 3, "miso": 4, "cs_pins": [5, 6, 7, 8], "rst": 9},
    "debounce_scans": 3,                 # a space must read the same this many scans
}


def main(config=CONFIG):
    rows, cols = config["rows"], config["cols"]
    n = rows * cols
    if config["sensor"] == "nfc":
        sensors = NfcReaders(config["nfc"], n)
        kind = proto.SENSOR_IDENTITY
    else:
        sensors = HallMatrix(config["row_pins"], config["col_pins"], config["debounce_scans"])
        kind = proto.SENSOR_OCCUPANCY
    leds = Leds(config["led_pin"], n)
    port = UsbSerial()
    core = proto.BoardCore(rows, cols, kind, n, sensors.scan, leds.show, port.write,
                           firmware="pico-1.0")
    start = time.ticks_ms()
    while True:
        data = port.read()
        if data:
            core.receive(data)
        core.tick(time.ticks_diff(time.ticks_ms(), start))
        time.sleep_ms(2)


if __name__ == "__main__" and sys.implementation.name == "micropython":
    main()
