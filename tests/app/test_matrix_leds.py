"""What the LEDs under the board show: sequences, illegal changes, the computer's move,
dead cards on request."""

from __future__ import annotations

from engine.moves import Move
from engine.observation import Observation, SpaceState
from engine.referee import Referee
from seqboard.indicators.matrix import AMBER, OFF, RED, RGB, MatrixLeds, led_plan
from seqboard.session import Session


class RecordingLink:
    """The link's LED side, as the matrix would receive it."""

    def __init__(self) -> None:
        self.frames: list[list] = []
        self.blinking: dict[int, tuple] = {}

    def set_leds(self, colours):
        self.frames.append(list(colours))

    def blink(self, spaces, colour):
        for s in spaces:
            if colour is None:
                self.blinking.pop(s, None)
            else:
                self.blinking[s] = colour


def _obs(ref: Referee, chips: dict[str, str]) -> Observation:
    cur = ref.expected()
    return cur.replace({ref.layout.parse_space(k): SpaceState(v) for k, v in chips.items()})


def test_sequence_glows_illegal_blinks_red_until_put_right():
    ref = Referee("classic", 2)
    s = Session(ref)
    link = RecordingLink()
    s.subscribe(MatrixLeds(link, s))
    # Blue builds b2..e2 with green elsewhere; the corner a1 completes... use row 2.
    blue = ["b2", "c2", "d2", "e2", "f2"]
    green = ["b5", "c5", "d5", "e5"]
    for k in range(5):
        s.observe(_obs(ref, {blue[k]: "B"}))
        if k < 4:
            s.observe(_obs(ref, {green[k]: "G"}))
    seq = [ref.layout.parse_space(n) for n in blue]
    frame = link.frames[-1]
    assert all(frame[i] == RGB["B"] for i in seq)
    assert sum(1 for c in frame if c != OFF) == 5
    # Green puts two chips down at once: both blink red, the sequence stays lit.
    bad = {"b7": "G", "c7": "G"}
    s.observe(_obs(ref, bad))
    spaces = {ref.layout.parse_space(n) for n in bad}
    assert {i for i, c in link.blinking.items() if c == RED} == spaces
    # Put right: the blinking stops.
    s.observe(ref.expected())
    assert not link.blinking
    assert all(link.frames[-1][i] == RGB["B"] for i in seq)


def test_computer_move_blinks_in_its_colour_and_dead_cards_on_request():
    ref = Referee("classic", 2)
    s = Session(ref)
    link = RecordingLink()
    leds = MatrixLeds(link, s)
    s.subscribe(leds)
    target = ref.layout.parse_space("c3")
    s.propose(Move("place", ref.layout.symbols[target], target), "test")
    assert link.blinking == {target: RGB["B"]}
    s.observe(_obs(ref, {"c3": "B"}))
    assert link.blinking == {}
    # Both spaces of one card covered: that card is dead; shown amber only on request.
    sym = ref.layout.symbols[ref.layout.parse_space("d4")]
    both = ref.layout.spaces_of[sym]
    assert AMBER not in led_plan(s.view(), dead_shown=True).colours
    s.observe(_obs(ref, {ref.layout.space_name(both[0]): "G"}))
    s.observe(_obs(ref, {"h8": "B"}))
    s.observe(_obs(ref, {ref.layout.space_name(both[1]): "G"}))
    assert sym in s.view()["dead_cards"]
    assert AMBER not in led_plan(s.view(), dead_shown=False).colours
    plan = led_plan(s.view(), dead_shown=True)
    assert [i for i, c in enumerate(plan.colours) if c == AMBER] == sorted(both)


def test_dead_cards_shown_on_request_by_holding_confirm_or_typing_d(tmp_path):
    import io
    import threading
    import time

    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hw_config.config import load_config
    from seqboard.indicators.gpio import HOLD_SECONDS, GpioIndicators
    from seqboard.loop import Commands, read_keys

    from .helpers import write_config

    ref = Referee("classic", 2)
    s = Session(ref)
    link = RecordingLink()
    s.subscribe(MatrixLeds(link, s))
    sym = ref.layout.symbols[ref.layout.parse_space("d4")]
    both = ref.layout.spaces_of[sym]
    s.observe(_obs(ref, {ref.layout.space_name(both[0]): "B"}))
    s.observe(_obs(ref, {"h8": "G"}))
    s.observe(_obs(ref, {ref.layout.space_name(both[1]): "B"}))
    assert AMBER not in link.frames[-1]
    # the confirm button held down
    factory = MockFactory(pin_class=MockPWMPin)
    g = load_config(write_config(tmp_path)).section("gpio")
    gpio = GpioIndicators(g, 2, ("B", "G"), pin_factory=factory)
    commands = Commands()
    queued = []
    held = threading.Event()

    def call(fn):                   # the press, then the hold, queued from gpiozero's threads
        commands.call(fn)
        queued.append(fn)
        if len(queued) >= 2:
            held.set()
    gpio.bind_buttons(s, call)
    pin = factory.pin(g["confirm_button"])
    pin.drive_low()
    time.sleep(HOLD_SECONDS)
    # released once the hold is seen (gpiozero's hold thread may be late on a loaded machine)
    assert held.wait(60), queued
    pin.drive_high()
    commands.run_pending()
    assert s.dead_shown
    assert [i for i, c in enumerate(link.frames[-1]) if c == AMBER] == sorted(both)
    # and "d" typed at the terminal hides them again; anything else prints the keys
    out = io.StringIO()
    read_keys(lambda: s, commands, io.StringIO("x\nd\n"), out)
    commands.run_pending()
    assert not s.dead_shown and AMBER not in link.frames[-1]
    assert "d show or hide the dead cards" in out.getvalue()
    gpio.close()
