"""GPIO indicators through gpiozero: turn LEDs, sequence, dead-card and illegal-move LEDs,
a buzzer with one pattern per event, an optional RGB LED, and the buttons.

Wiring (BCM numbers, the defaults of ``[gpio]`` in the configuration):

* each LED: GPIO pin -> 330 ohm resistor -> LED anode; LED cathode -> GND.
  Turn LEDs on GPIO5, 6, 13 (one per team, in team order), sequence LED GPIO19,
  dead-card LED GPIO26, illegal-move LED GPIO21.
* active buzzer (5 V module with a transistor input, or a 3.3 V buzzer): signal -> GPIO20.
* RGB LED (common cathode): red, green, blue legs each through 220 ohm to the pins listed
  in ``rgb_led``; the common leg to GND.
* buttons: one leg to the GPIO (confirm GPIO16, undo GPIO12, lost draw optional), the other
  to GND; the internal pull-up is used, so no resistor is needed.

Example::

    from seqboard.indicators.gpio import GpioIndicators
    gpio = GpioIndicators(cfg.section("gpio"), n_teams=2, colours=("B", "G"))
    session.subscribe(gpio); gpio.bind_buttons(session)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..session import Event

#: Buzzer patterns: (on seconds, off seconds, repeats).
BUZZ = {
    "move": (0.05, 0.05, 1),
    "sequence": (0.12, 0.08, 2),
    "dead_card": (0.04, 0.06, 3),
    "warning": (0.4, 0.2, 3),
    "game_over": (0.6, 0.15, 4),
    "undo": (0.2, 0.0, 1),
    "proposal": (0.05, 0.1, 2),
}

RGB = {"B": (0, 0, 1), "G": (0, 1, 0), "R": (1, 0, 0)}


HOLD_SECONDS = 1.5      # the confirm button held this long toggles the dead cards


class GpioIndicators:
    """All GPIO outputs and buttons of one installation, fed by session events."""

    def __init__(self, gpio_cfg: dict[str, Any], n_teams: int, colours: tuple[str, ...],
                 pin_factory=None) -> None:
        try:
            from gpiozero import LED, Buzzer, RGBLED
        except ImportError:  # pragma: no cover - gpiozero is a dependency
            raise RuntimeError("gpiozero is not installed") from None
        self.pin_factory = pin_factory
        kw = {"pin_factory": pin_factory} if pin_factory is not None else {}
        self.colours = colours
        self.turn = [LED(p, **kw) for p in gpio_cfg["turn_leds"][:n_teams]]
        self.sequence = LED(gpio_cfg["sequence_led"], **kw) if gpio_cfg["sequence_led"] else None
        self.dead = LED(gpio_cfg["dead_card_led"], **kw) if gpio_cfg["dead_card_led"] else None
        self.illegal = LED(gpio_cfg["illegal_led"], **kw) if gpio_cfg["illegal_led"] else None
        self.buzzer = Buzzer(gpio_cfg["buzzer"], **kw) if gpio_cfg["buzzer"] else None
        self.rgb = RGBLED(*gpio_cfg["rgb_led"], **kw) if len(gpio_cfg["rgb_led"]) == 3 else None
        self._button_pins = {k: gpio_cfg[k] for k in ("confirm_button", "undo_button", "lost_draw_button")}
        self.buttons: dict[str, Any] = {}
        self.last_pattern: str | None = None
        self.patterns: list[str] = []
        self.counts: Counter[str] = Counter()

    def bind_buttons(self, session, call=None) -> None:
        """Wire the buttons to the session. ``call(fn)`` runs ``fn`` on the main loop's
        thread (gpiozero calls back from its own thread); default: call directly."""
        from gpiozero import Button
        kw = {"pin_factory": self.pin_factory} if self.pin_factory is not None else {}
        call = call or (lambda fn: fn())
        actions = {"confirm_button": session.confirm, "undo_button": session.undo,
                   "lost_draw_button": session.lost_draw}
        for key, pin in self._button_pins.items():
            if pin:
                b = Button(pin, pull_up=True, bounce_time=None, hold_time=HOLD_SECONDS, **kw)
                b.when_pressed = (lambda fn: (lambda: call(fn)))(actions[key])
                if key == "confirm_button":
                    # held down: show (or hide) the dead cards' spaces on the LED matrix
                    b.when_held = lambda: call(session.toggle_dead)
                self.buttons[key] = b

    def beep(self, pattern: str) -> None:
        self.last_pattern = pattern
        self.patterns.append(pattern)
        self.counts[pattern] += 1
        del self.patterns[:-50]
        if self.buzzer is not None:
            on, off, n = BUZZ[pattern]
            self.buzzer.beep(on_time=on, off_time=off, n=n, background=True)

    def __call__(self, event: Event, view: dict) -> None:
        team = view["to_move"]["team"]
        over = view["over"]
        for t, led in enumerate(self.turn):
            if over:
                led.blink(0.3, 0.3) if t == view["winner"] else led.off()
            elif t == team:
                led.on()
            else:
                led.off()
        if self.dead is not None:
            self.dead.value = bool(view["dead_cards"])
        if self.sequence is not None:
            if any(view["sequences"]):
                if event.kind == "verdict" and event.verdict and event.verdict.new_sequences:
                    self.sequence.blink(0.15, 0.15, n=6, background=True)
                elif not self.sequence.is_lit:
                    self.sequence.on()
            else:
                self.sequence.off()
        if self.illegal is not None:
            if view["warning"]:
                if event.kind == "warning":
                    self.illegal.blink(0.25, 0.25)
            else:
                self.illegal.off()
        if self.rgb is not None:
            if view["warning"]:
                self.rgb.blink(0.25, 0.25, on_color=(1, 0, 0))
            elif over and view["winner"] is not None:
                self.rgb.color = RGB[self.colours[view["winner"]]]
            else:
                self.rgb.color = RGB[self.colours[team]]
        kind = event.kind
        if kind == "verdict":
            self.beep("sequence" if event.verdict and event.verdict.new_sequences else "move")
        elif kind in ("warning", "dead_card", "undo", "proposal"):
            self.beep(kind)
        elif kind == "game_over":
            self.beep("game_over")

    def history_summary(self) -> list[str]:
        """What the buzzer sounded so far, e.g. ``["move x40", "warning x2"]``."""
        return [f"{k} x{n}" for k, n in sorted(self.counts.items())]

    def close(self) -> None:
        for dev in [*self.turn, self.sequence, self.dead, self.illegal, self.buzzer, self.rgb,
                    *self.buttons.values()]:
            if dev is not None:
                dev.close()


class StacksGpio:
    """SEQUENCE STACKS on the GPIO: a chip LED per colour (red, blue) showing the chips of the
    player to move (off: none, slow blink: one, on: the two the win needs), the sequence LED
    and a buzzer when a chip is won, the illegal-move LED and buzzer on a refused play.

    ``listener(kind, game, text)`` is a :class:`~seqboard.modes.stacks.StacksTable` listener.
    """

    def __init__(self, gpio_cfg: dict[str, Any], pin_factory=None) -> None:
        from gpiozero import LED, Buzzer
        kw = {"pin_factory": pin_factory} if pin_factory is not None else {}
        pins = gpio_cfg.get("chip_leds") or gpio_cfg["turn_leds"][:2]
        self.chip = {c: LED(p, **kw) for c, p in zip(("R", "B"), pins)}
        self.sequence = LED(gpio_cfg["sequence_led"], **kw) if gpio_cfg["sequence_led"] else None
        self.illegal = LED(gpio_cfg["illegal_led"], **kw) if gpio_cfg["illegal_led"] else None
        self.buzzer = Buzzer(gpio_cfg["buzzer"], **kw) if gpio_cfg["buzzer"] else None
        self.patterns: list[str] = []

    def beep(self, pattern: str) -> None:
        self.patterns.append(pattern)
        if self.buzzer is not None:
            on, off, n = BUZZ[pattern]
            self.buzzer.beep(on_time=on, off_time=off, n=n, background=True)

    def __call__(self, kind: str, game, text: str) -> None:
        who = game.winner if game.over and game.winner is not None else game.current
        chips = game.chips[who]
        need = game.options.win_each_colour
        for c, led in self.chip.items():
            if game.over and game.winner is not None:
                led.blink(0.3, 0.3)
            elif chips[c] >= need:
                led.on()
            elif chips[c]:
                led.blink(0.8, 0.8)
            else:
                led.off()
        if kind == "refused":
            if self.illegal is not None:
                self.illegal.blink(0.25, 0.25, n=6)
            self.beep("warning")
        elif kind in ("action", "block"):
            if self.illegal is not None:
                self.illegal.off()
            self.beep("move")
        elif kind == "chip":
            if self.sequence is not None:
                self.sequence.blink(0.15, 0.15, n=6)
            self.beep("sequence")
        elif kind == "over":
            self.beep("game_over")

    def close(self) -> None:
        for dev in [*self.chip.values(), self.sequence, self.illegal, self.buzzer]:
            if dev is not None:
                dev.close()
