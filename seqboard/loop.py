"""The main loop: source -> stable observation -> referee -> verdict -> indicators -> record.

One path whatever the source. Sources (camera through ``vision``, sensor matrix through
``firmware_bridge``, the demo's synthetic table) implement :class:`Source`. Buttons and the
dashboard run on other threads; they hand actions to :class:`Commands`, which the loop runs
on its own thread, so the session is only ever touched from one thread.
"""

from __future__ import annotations

import queue
import time
from typing import Callable, Protocol

from engine.observation import Observation

from .i18n import N_, _
from .session import Session


class Source(Protocol):
    """Where stable observations come from."""

    def poll(self, now: float) -> Observation | None:
        """A new stable observation of the board, or None (nothing settled yet)."""

    def close(self) -> None: ...


class Commands:
    """Actions from other threads (buttons, the dashboard), run by the loop in order."""

    def __init__(self) -> None:
        self._q: queue.Queue[Callable[[], object]] = queue.Queue()

    def call(self, fn: Callable[[], object]) -> None:
        self._q.put(fn)

    def run_pending(self) -> int:
        n = 0
        while True:
            try:
                fn = self._q.get_nowait()
            except queue.Empty:
                return n
            fn()
            n += 1


KEYS = {"u": ("undo", N_("undo the last move")),
        "c": ("confirm", N_("confirm the warning (or the missed moves it offers)")),
        "t": ("take_board",
              N_("take the board as it stands (the game's board becomes what is seen)")),
        "d": ("toggle_dead", N_("show or hide the dead cards on the LEDs")),
        "l": ("lost_draw", N_("the last player's draw is lost")),
        "h": ("hint", N_("hints for the player to move: h and the cards held, e.g. h 5H 10D JS")),
        "f": ("five", N_("name the five of the sequence just made on a longer line, e.g. f c4-g4")),
        "k": ("card", N_("the card the player to move laid (judging with cards), e.g. k 5h")),
        "a": ("address", N_("show the dashboard's address and PIN again")),
        # remote play: u asks the other board for the undo, or agrees to its request
        "r": ("refuse_undo", N_("remote play: refuse the other board's request to undo"))}


def key_action(line: str) -> str | None:
    """The session's method a line typed at the terminal asks for, or None (help is
    printed for anything else)."""
    key = line.strip().lower()[:1]
    return KEYS[key][0] if key in KEYS else None


def read_keys(current: Callable[[], Session], commands: Commands, stream, out) -> None:
    """Read lines typed at the terminal (on a thread) and hand the actions to the loop,
    for whichever game ``current()`` is when the loop runs them."""
    for line in stream:
        name = key_action(line)
        if name is None:
            if line.strip():
                keys = ", ".join(f"{k} {_(d)}" for k, (_n, d) in KEYS.items())
                print(_("keys: {keys}").format(keys=keys), file=out, flush=True)
            continue
        if name == "address":
            from .indicators.terminal import NOTES
            print("\n".join(NOTES.values()) or _("no dashboard in this run"), file=out, flush=True)
            continue
        if name == "hint":
            words = line.split()[1:]
            commands.call(lambda words=words: _hint(current(), words, out))
            continue
        if name == "five":
            words = line.split()[1:]
            commands.call(lambda words=words: _five(current(), words, out))
            continue
        if name == "card":
            words = line.split()[1:]
            commands.call(lambda words=words: _card(current(), words, out))
            continue
        commands.call(lambda name=name: getattr(current(), name)())


def _hint(session: Session, words: list[str], out) -> None:
    """Hints from the cards typed after ``h`` (none: the engine's own hand, in the demo)."""
    from engine.errors import EngineError
    try:
        session.hint(session.hint_hand(words))
    except EngineError as exc:
        print(f"hint: {exc}", file=out, flush=True)


def _five(session: Session, words: list[str], out) -> None:
    """The five typed after ``f`` (``f c4-g4``; two sequences at once: ``f a1-a5 a6-a10``)
    become the sequence(s) of the last placement, recorded as a ``five`` event."""
    from engine.board import parse_five
    from engine.errors import EngineError
    layout = session.referee.layout
    if not words:
        print(_("five: name the five, e.g. f c4-g4"), file=out, flush=True)
        return
    try:
        five = tuple(parse_five(w, layout.rows, layout.cols) for w in words)
        session.choose_five(five)
    except (EngineError, ValueError) as exc:
        print(f"five: {exc}", file=out, flush=True)


def _card(session: Session, words: list[str], out) -> None:
    """The card typed after ``k`` (``k 5h``; ``k add`` in the Jewish Edition): laid by the
    player to move, judged with the chip (docs/cards.md)."""
    from engine.errors import EngineError
    if len(words) != 1:
        print("card: name one card, e.g. k 5h", file=out, flush=True)
        return
    try:
        session.lay_card(session.parse_card(words[0]), None, via="typed")
    except EngineError as exc:
        print(f"card: {exc}", file=out, flush=True)


def run_loop(session: Session, source: Source, *, commands: Commands | None = None,
             clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep, tick: float = 0.05,
             step: Callable[[float], None] | None = None,
             until: Callable[[], bool] | None = None) -> None:
    """Run until ``until()`` is true (default: the game is over), or the source is
    ``finished`` (the end of a video file or folder).

    ``step(now)`` runs once per tick before the source is polled: the demo and the computer
    players act there.
    """
    until = until or (lambda: session.ended)
    start: float | None = None
    polls = 0
    while not until():
        now = clock()
        if start is None:
            start = now
        if commands is not None:
            commands.run_pending()
        if step is not None:
            step(now)
        obs = source.poll(now)
        polls += 1
        if obs is not None:
            # where in the source it came from: the frame's own time and number when the
            # source has them (a camera, a file), else the loop's time and turn
            at = getattr(source, "last_stamp", None) or {"t": round(now - start, 3), "frame": polls}
            session.observe(obs, at)
        if getattr(source, "finished", False):
            break                      # the end of a video file or folder
        if tick:
            sleep(tick)
