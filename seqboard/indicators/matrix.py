"""The LED under every space (through ``firmware_bridge``), fed the same events as the rest.

* the spaces of every sequence glow in the team's colour;
* the spaces of an illegal change blink red until the board is put right;
* the computer player's chosen space blinks in its team's colour until the chip is there;
* the spaces of the dead cards glow amber while ``session.dead_shown`` is on (on request:
  the confirm button held down, or ``d`` typed at the terminal).

:func:`led_plan` computes what to show from the session's view alone (pure, tested on its
own); :class:`MatrixLeds` sends it over the link: one full LED frame, and blink patterns run
on the microcontroller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..session import Event

RGB = {"B": (0, 0, 255), "G": (0, 200, 0), "R": (255, 0, 0)}
AMBER = (255, 120, 0)
RED = (255, 0, 0)
OFF = (0, 0, 0)


@dataclass
class LedPlan:
    colours: list[tuple[int, int, int]]
    blink: dict[int, tuple[int, int, int]] = field(default_factory=dict)   # space -> colour


def led_plan(view: dict, dead_shown: bool = False) -> LedPlan:
    """What every LED should show for this view of the game."""
    n = view["rows"] * view["cols"]
    colours = [OFF] * n
    if dead_shown:
        dead = set(view["dead_cards"])
        for i, sym in enumerate(view["symbols"]):
            if sym in dead:
                colours[i] = AMBER
    for team, spaces in enumerate(view["sequence_spaces"]):
        for i in spaces:
            colours[i] = RGB[view["colours"][team]]
    blink: dict[int, tuple[int, int, int]] = {}
    prop = view.get("proposal")
    if prop and prop.get("space") is not None:
        blink[prop["space"]] = RGB[view["colours"][view["to_move"]["team"]]]
    if view["warning"]:
        for i in view["warning"]["spaces"]:
            blink[i] = RED
    return LedPlan(colours, blink)


class MatrixLeds:
    """Sends :func:`led_plan` to the matrix whenever something changes.

    ``link`` is a ``firmware_bridge`` link with ``set_leds(colours)`` (board order; the link
    maps it through the wiring order and rate-limits, newest wins) and
    ``blink(spaces, colour)`` / ``blink(spaces, None)`` to stop.
    """

    def __init__(self, link, session) -> None:
        self.link = link
        self.session = session
        self.last: LedPlan | None = None

    def __call__(self, event: Event, view: dict) -> None:
        plan = led_plan(view, getattr(self.session, "dead_shown", False))
        if self.last is not None and plan == self.last:
            return
        self.link.set_leds(plan.colours)
        old = self.last.blink if self.last else {}
        stopped = [i for i in old if i not in plan.blink]
        if stopped:
            self.link.blink(stopped, None)
        by_colour: dict[tuple[int, int, int], list[int]] = {}
        for i, c in plan.blink.items():
            if old.get(i) != c:
                by_colour.setdefault(c, []).append(i)
        for c, spaces in by_colour.items():
            self.link.blink(sorted(spaces), c)
        self.last = plan

    def close(self) -> None:
        pass
