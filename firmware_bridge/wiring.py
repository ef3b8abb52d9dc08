"""The order in which the LEDs are chained under the board.

Boards are wired in many ways: LED 0 in any corner, running along rows or columns, every
other row running back (serpentine) or not, or any order at all given as a table. The
host always speaks in board order (row-major from the layout's top-left space);
:class:`Wiring` maps that to LED order and back.
"""

from __future__ import annotations

from dataclasses import dataclass


class WiringError(ValueError):
    pass


@dataclass(frozen=True)
class Wiring:
    led_of: tuple[int, ...]          # board index -> LED index

    @property
    def count(self) -> int:
        return len(self.led_of)

    def to_leds(self, colours: list) -> list:
        """Board-order colours -> LED-order colours."""
        out = [(0, 0, 0)] * self.count
        for space, c in enumerate(colours):
            out[self.led_of[space]] = c
        return out

    def space_of(self, led: int) -> int:
        return self.led_of.index(led)


def make_wiring(rows: int, cols: int, origin: str = "top-left", order: str = "rows",
                serpentine: bool = True, table: list[int] | None = None) -> Wiring:
    n = rows * cols
    if table:
        if sorted(table) != list(range(n)):
            raise WiringError(f"leds.table: expected each LED 0..{n - 1} exactly once, "
                              f"got {len(table)} entries")
        return Wiring(tuple(table))
    if origin not in ("top-left", "top-right", "bottom-left", "bottom-right"):
        raise WiringError(f"leds.origin: unknown corner {origin!r}")
    led_of = [0] * n
    flip_r = origin.startswith("bottom")
    flip_c = origin.endswith("right")
    outer, inner = (rows, cols) if order == "rows" else (cols, rows)
    led = 0
    for a in range(outer):
        seq = range(inner)
        if serpentine and a % 2 == 1:
            seq = range(inner - 1, -1, -1)
        for b in seq:
            r, c = (a, b) if order == "rows" else (b, a)
            if flip_r:
                r = rows - 1 - r
            if flip_c:
                c = cols - 1 - c
            led_of[r * cols + c] = led
            led += 1
    return Wiring(tuple(led_of))


def wiring_from_config(leds: dict, rows: int, cols: int) -> Wiring:
    """The ``[leds]`` section of the configuration as a :class:`Wiring`."""
    return make_wiring(rows, cols, leds.get("origin", "top-left"), leds.get("order", "rows"),
                       leds.get("serpentine", True), leds.get("table") or None)
