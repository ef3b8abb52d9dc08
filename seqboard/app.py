"""What every mode shares: the configuration, the game record (new or resumed), the
indicators, the clock, and one run of the main loop.

The modes (``demo``, ``play``, ``referee``) differ only in where observations come from and
who makes the moves; all of them go through :func:`run` and so through one path:
source -> stable observation -> referee -> verdict -> indicators -> record.
"""

from __future__ import annotations

import dataclasses
import random
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

from engine.game import Game
from engine.referee import Referee
from hw_config.config import Config

from . import settings
from .errors import UserError
from .loop import Commands, Source, run_loop
from .recorder import RecordWriter, new_record_path, trim_incomplete_tail, unfinished_record
from .session import Session, resume_session


def load_settings(path: str | None) -> Config:
    cfg = settings.load(path)
    from . import i18n
    i18n.set_language(cfg["ui.language"])      # the terminal's, the voice's and the page's
    return cfg


def records_dir(cfg: Config, override: str | None) -> Path:
    d = Path(override).expanduser() if override else cfg.expand("records.dir")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"records.dir: cannot create {d}: {exc.strerror}") from None
    return d


def pick_record(directory: Path, mode: str, resume: bool | None,
                ask: Callable[[str], str] | None = None, out: TextIO | None = None) -> Path | None:
    """The unfinished record to resume, or None for a new game.

    ``resume`` True/False is the user's ``--resume``/``--new``; None asks on a terminal and
    resumes without asking otherwise (the Pi restarting after a power cut must go on).
    A record the user declines is closed with an ``abandoned`` end line, so it is not
    offered again.
    """
    out = out or sys.stdout
    path = unfinished_record(directory, mode)
    if path is None:
        from .recorder import unresumable_records
        skipped = unresumable_records(directory, mode)
        if resume:
            why = f"; {skipped[0][0].name}: {skipped[0][1]}" if skipped else ""
            raise UserError(f"--resume: no unfinished {mode} game in {directory}{why}")
        for p, why in skipped:
            print(f"note: not resuming {p.name}: {why}", file=out)
        return None
    if resume is None:
        if ask is None and sys.stdin.isatty():
            ask = input
        if ask is not None:
            answer = ask(f"An unfinished game was found ({path.name}). Resume it? [Y/n] ")
            resume = answer.strip().lower() not in ("n", "no")
        else:
            print(f"resuming the unfinished game {path.name} (start with --new for a fresh one)",
                  file=out)
            resume = True
    if resume:
        return path
    end_unfinished(path)
    return None


def end_unfinished(path: Path | None) -> None:
    """Close an unfinished game's record with an ``abandoned`` end line."""
    if path is None:
        return
    trim_incomplete_tail(path)
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"type":"end","winner":null,"reason":"abandoned","sequences":[]}\n')


def new_session(cfg: Config, mode: str, directory: Path, *, seed: int | None,
                full_game: bool, computers: dict[int, str] | None = None) -> Session:
    """A fresh game as the configuration describes it, with its record opened."""
    p = settings.game_params(cfg)
    if computers and full_game is False:
        # The Pi's virtual cards are not in the physical deck: the supply cannot be counted.
        p["options"] = dataclasses.replace(p["options"], check_card_supply=False)
    names = list(cfg["game.names"])
    ref = Referee(p["edition"], p["n_players"], p["n_teams"], p["options"], p["layout"],
                  p["colours"], p["first_player"])
    ref.judge_cards = bool(cfg["game.judge_cards"])
    game = None
    if full_game:
        game = Game(p["edition"], p["n_players"], p["n_teams"], p["options"],
                    random.Random(seed), layout=p["layout"], first_player=p["first_player"])
    path = new_record_path(directory, mode)
    writer = RecordWriter(path)
    return Session(ref, recorder=writer, game=game, mode=mode, seed=seed, names=names,
                   computers=sorted((computers or {}).items()))


def open_session(cfg: Config, mode: str, directory: Path, resume: bool | None, *,
                 seed: int | None, full_game: bool, computers: dict[int, str] | None = None,
                 out: TextIO | None = None, ask: Callable[[str], str] | None = None) -> Session:
    """Resume the unfinished game of this mode, or start a new one."""
    path = pick_record(directory, mode, resume, ask=ask, out=out)
    if path is None:
        return new_session(cfg, mode, directory, seed=seed, full_game=full_game,
                           computers=computers)
    from engine.errors import EngineError
    try:
        writer = RecordWriter(path, resume=True)
        return resume_session(path, writer, mode)
    except EngineError as exc:
        raise UserError(f"{path}: cannot resume: {exc} (start with --new)") from None


@dataclass
class Pacer:
    """The loop's clock. In real time it is the monotonic clock; the demo runs on a
    simulated clock that advances one tick per iteration and is paced ``speed`` times
    faster than real time (``speed=0``: as fast as the machine goes)."""

    real: bool = True
    speed: float = 1.0
    now: float = 0.0
    _start: float = field(default_factory=time.monotonic)

    def clock(self) -> float:
        return time.monotonic() if self.real else self.now

    def sleep(self, dt: float) -> None:
        if self.real:
            time.sleep(dt)
            return
        self.now += dt
        if self.speed > 0:
            ahead = self._start + self.now / self.speed - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)


def attach_indicators(session: Session, cfg: Config, commands: Commands, *,
                      mock_gpio: bool, stream: TextIO | None = None,
                      live: bool | None = None, keys: bool = True,
                      current: Callable[[], Session] | None = None) -> list[Any]:
    """Subscribe the terminal and (when enabled) the GPIO indicators; return them to close."""
    from .indicators.terminal import TerminalIndicator
    out: list[Any] = []
    term = TerminalIndicator(stream, live=live)
    session.subscribe(term)
    out.append(term)
    g = cfg.section("gpio")
    if g["enabled"]:
        factory = None
        if mock_gpio:
            from gpiozero.pins.mock import MockFactory, MockPWMPin
            factory = MockFactory(pin_class=MockPWMPin)
        else:
            factory = real_pin_factory()
        from .indicators.gpio import GpioIndicators
        r = session.referee
        gpio = GpioIndicators(g, r.n_teams, r.colours, pin_factory=factory)
        gpio.bind_buttons(session, commands.call)
        session.subscribe(gpio)
        out.append(gpio)
    if cfg["ui.voice"]:
        from .indicators.voice import Voice, VoiceIndicator
        u = cfg.section("ui")
        from .i18n import espeak_voice
        speaker = VoiceIndicator(Voice(voice=espeak_voice(u["voice_name"]), speed=u["voice_speed"],
                                       out=stream or sys.stdout))
        session.subscribe(speaker)
        out.append(speaker)
    if keys and sys.stdin is not None and sys.stdin.isatty():
        import threading

        from .loop import read_keys
        threading.Thread(target=read_keys, args=(current or (lambda: session), commands, sys.stdin,
                                                 stream or sys.stdout),
                         name="keys", daemon=True).start()
    return out


def real_pin_factory():
    """gpiozero's pin factory on a Pi; a clear message anywhere else."""
    try:
        from gpiozero import Device
        from gpiozero.pins.lgpio import LGPIOFactory
        Device.pin_factory = Device.pin_factory or LGPIOFactory()
        return Device.pin_factory
    except Exception as exc:  # no lgpio, or no /dev/gpiochip: not a Pi
        raise UserError("gpio: cannot reach the GPIO pins (lgpio is only on a Raspberry Pi: "
                        "`pip install .[pi]` there; elsewhere set gpio.enabled = false or "
                        f"use --mock-gpio): {exc}") from None


def run(session: Session, source: Source, *, commands: Commands, pacer: Pacer,
        step: Callable[[float], None] | None = None, tick: float = 0.05,
        until: Callable[[], bool] | None = None, closers: list[Any] = ()) -> None:
    """The main loop until the game ends (or the user stops it).

    SIGTERM (systemd stopping the service) ends the loop like Ctrl-C. Neither writes an end
    line: the game stays unfinished, and the next start offers to resume it.
    """
    stop = {"flag": False}

    def on_term(signum, frame):  # noqa: ARG001
        stop["flag"] = True

    old = None
    try:
        old = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread (tests)
        pass
    done = until or (lambda: session.ended)
    try:
        run_loop(session, source, commands=commands, clock=pacer.clock, sleep=pacer.sleep,
                 tick=tick, step=step, until=lambda: stop["flag"] or done())
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
        source.close()
        for c in closers:
            close = getattr(c, "close", None)
            if close:
                close()
        if session.recorder is not None:
            session.recorder.close()
