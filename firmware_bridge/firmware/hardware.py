# seqboard matrix firmware: the Pico's hardware (MicroPython).
#
# Imported only on the Pico; tests run it under CPython with small fakes of `machine`,
# `neopixel` and `select` in sys.modules (tests/bridge/test_firmware.py).

import sys
import time

import machine
import neopixel
import select


class Leds:
    """A WS2812 chain on one pin; colours arrive in chain order."""

    def __init__(self, pin, count):
        self.np = neopixel.NeoPixel(machine.Pin(pin, machine.Pin.OUT), count)
        self.count = count
        self.last = None

    def show(self, colours):
        if colours == self.last:
            return
        for i, c in enumerate(colours):
            self.np[i] = c
        self.np.write()
        self.last = list(colours)


def _sleep_us(us):
    if us and hasattr(time, "sleep_us"):
        time.sleep_us(us)


class HallMatrix:
    """Sensors in a row x column matrix with a diode per sensor (docs/wiring.md): one row
    selected at a time, the columns read with pull-ups; a column reads low when the sensor
    at the crossing sees a magnet. ``row_active`` is the level that selects a row: 0 when
    the pin itself is the row's return (reed switches), 1 when it drives the gate of the
    row's MOSFET that powers its hall sensors. ``settle_us`` waits for the selected row's
    sensors to power up before reading. A space changes only after reading the same
    ``debounce`` scans running."""

    def __init__(self, row_pins, col_pins, debounce=3, row_active=0, settle_us=0):
        self.on = row_active
        self.off = 1 - row_active
        self.rows = [machine.Pin(p, machine.Pin.OUT, value=self.off) for p in row_pins]
        self.cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in col_pins]
        self.debounce = debounce
        self.settle_us = settle_us
        n = len(row_pins) * len(col_pins)
        self.stable = [0] * n
        self.count = [0] * n

    def raw(self):
        out = []
        for r in self.rows:
            r.value(self.on)
            _sleep_us(self.settle_us)
            for c in self.cols:
                out.append(1 if c.value() == 0 else 0)
            r.value(self.off)
        return out

    def scan(self):
        now = self.raw()
        for i, v in enumerate(now):
            if v != self.stable[i]:
                self.count[i] += 1
                if self.count[i] >= self.debounce:
                    self.stable[i] = v
                    self.count[i] = 0
            else:
                self.count[i] = 0
        return self.stable


class NfcReaders:
    """MFRC522 readers on one SPI bus, one chip-select each, polled in turn; reader k
    watches space ``cfg["spaces"][k]`` (board order; reader k watches space k if absent).
    Each chip's NTAG holds one byte naming its colour at page 4: 2 blue, 3 green, 4 red,
    5 white side up; a tag without it reads 1 (a chip, colour unknown). Spaces without a
    reader read empty."""

    def __init__(self, cfg, n):
        from mfrc522 import MFRC522   # the common MicroPython MFRC522 driver
        self.readers = [MFRC522(spi_id=cfg["spi"], sck=cfg["sck"], miso=cfg["miso"],
                                mosi=cfg["mosi"], cs=cs, rst=cfg["rst"]) for cs in cfg["cs_pins"]]
        self.spaces = list(cfg.get("spaces") or range(len(self.readers)))
        self.values = [0] * n

    def scan(self):
        for k, rdr in enumerate(self.readers):
            i = self.spaces[k]
            stat, _ = rdr.request(rdr.REQIDL)
            if stat != rdr.OK:
                self.values[i] = 0
                continue
            stat, uid = rdr.SelectTagSN()
            if stat != rdr.OK:
                continue
            data = rdr.read(4)
            self.values[i] = data[0] if data and 2 <= data[0] <= 5 else 1
        return self.values


class UsbSerial:
    """The USB CDC serial port (sys.stdin/stdout in binary), read without blocking."""

    def __init__(self):
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer

    def read(self):
        data = b""
        while self.poll.poll(0):
            data += self.inp.read(1)
            if len(data) >= 256:
                break
        return data

    def write(self, data):
        self.out.write(data)


class CardReaders:
    """The optional NFC card readers at the board's edge (issue 24): MFRC522s, one per seat
    (reader k before seat k). A player taps the card they play on their reader; its NTAG
    holds the card's code in ASCII from page 4 ("5H", "TD", "JC", "ADD", "REMOVE"; padded
    with zero bytes). A card is reported once as it comes onto the reader: the same tag
    again only after it has left."""

    def __init__(self, cfg):
        from mfrc522 import MFRC522
        self.readers = [MFRC522(spi_id=cfg["spi"], sck=cfg["sck"], miso=cfg["miso"],
                                mosi=cfg["mosi"], cs=cs, rst=cfg["rst"]) for cs in cfg["cs_pins"]]
        self.last = [None] * len(self.readers)

    def poll(self):
        out = []
        for k, rdr in enumerate(self.readers):
            stat, _ = rdr.request(rdr.REQIDL)
            if stat != rdr.OK:
                self.last[k] = None           # nothing on it: the next tag is new
                continue
            stat, uid = rdr.SelectTagSN()
            if stat != rdr.OK or uid == self.last[k]:
                continue
            data = rdr.read(4)                # pages 4-7: 16 bytes
            if not data:
                continue
            code = bytes(data[:8]).split(b"\0")[0]
            if code and all(48 <= c <= 57 or 65 <= c <= 90 for c in code):
                self.last[k] = uid
                out.append((k, code.decode()))
        return out
