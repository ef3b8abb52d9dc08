"""``seqboard play`` and ``seqboard referee``: a real game at a real board.

``referee`` watches people play and judges every change; ``play`` does the same with the
Pi in one or more seats: it shows its move on the LEDs and in the terminal, and the move
counts once a person has placed the chip.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from ..inputs import number
from .demo import SEED, add_common, start_dashboard

PLAY_EPILOG = """examples:
  seqboard play                       the Pi plays the seats in game.computer_seats
  seqboard play --computer 2          the Pi plays seat 2 against seat 1
  seqboard play --computer 2 --level greedy --mock-gpio   try it without wiring
  seqboard play --remote create       a game with a board elsewhere: prints a join code
  seqboard play --remote K7QF-3MZD-9TXA-2BCD --seat 2    join it at the other board

The board is read from the source in the configuration ([sensing] source = "camera" needs
`seqboard calibrate` first; "matrix" needs the sensor board on [matrix] port).
"""

REFEREE_EPILOG = """examples:
  seqboard referee                    watch and judge a game of people
  seqboard referee --config table.toml --records /mnt/usb/records
  seqboard referee --config video.toml --new --speed 0
                                      judge a filmed game (camera.device = a video file or a
                                      folder of frames) as fast as the machine goes

Keys while it runs: u undo, c confirm (also missed moves it offers), t take the board as it
stands. A video file or folder is judged on its own frames' time (camera.fps for a folder),
so the verdicts are the same at any --speed; at its end the run prints a summary and exits 0.
One run per records folder: a second `seqboard referee` on the same folder stops at once,
naming the run that uses it (docs/game-record.md); give it another --records DIR.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play at the real board, with the Pi in some seats",
                       description="Play at the real board; the Pi plays the computer seats, "
                                   "shows its moves, and referees every change.",
                       epilog=PLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("--computer", type=number(1, 12, int), action="append", metavar="SEAT",
                   help="a seat (1-based) the Pi plays; repeatable (default game.computer_seats)")
    p.add_argument("--level", help="the Pi's level (default game.computer_level)")
    p.add_argument("--seed", type=SEED, help="seed of the Pi's virtual cards (default random)")
    p.add_argument("--mock-gpio", action="store_true", help="use gpiozero's mock pins")
    p.add_argument("--remote", metavar="create|CODE",
                   help="play with a board elsewhere over the MQTT broker in [remote]: "
                        "`create` a game, or join one with its code (docs/remote.md)")
    p.add_argument("--seat", type=number(1, 12, int), action="append", metavar="SEAT",
                   help="with --remote: a seat (1-based) this board holds; repeatable "
                        "(default remote.seats)")
    p.set_defaults(func=run_play)
    r = sub.add_parser("referee", help="watch a game of people and judge every change",
                       description="Referee a game of people at the real board: every change "
                                   "is judged and shown on the indicators.",
                       epilog=REFEREE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(r)
    r.add_argument("--mock-gpio", action="store_true", help="use gpiozero's mock pins")
    r.set_defaults(func=run_referee)
    for q in (p, r):
        q.add_argument("--speed", type=float, default=1.0, metavar="X",
                       help="a video file or folder of frames plays at X times its own frame "
                            "rate (default 1; 0: as fast as possible); verdicts do not depend on it")


def run_play(args: argparse.Namespace) -> int:
    if args.remote:
        from ..remote.cli import run_remote
        return run_remote(args)
    return _run(args, "play")


def run_referee(args: argparse.Namespace) -> int:
    args.computer, args.level, args.seed = None, None, None
    return _run(args, "referee")


def _run(args: argparse.Namespace, mode: str) -> int:
    from engine.players import KINDS as PLAYERS
    from engine.record import parse_record

    from .. import sources
    from ..app import (Pacer, attach_indicators, load_settings, new_session, open_session,
                       real_pin_factory, records_dir)
    from ..app import run as run_app
    from ..modes.computer import ComputerSeats
    from ..errors import UserError
    from ..loop import Commands
    from ..session import Event, resume_session

    cfg = load_settings(args.config)
    n = cfg["game.players"]
    seats: dict[int, str] = {}
    if mode == "play":
        level = args.level or cfg["game.computer_level"]
        if level not in PLAYERS:
            raise UserError(f"--level / game.computer_level: expected one of "
                            f"{', '.join(sorted(PLAYERS))}, got {level!r}")
        chosen = args.computer or cfg["game.computer_seats"]
        if not chosen:
            raise UserError("play: no seat for the Pi: give --computer SEAT or set "
                            "game.computer_seats (or use `seqboard referee`)")
        for s in chosen:
            if not 1 <= s <= n:
                raise UserError(f"--computer: seat {s} is not one of 1..{n}")
            seats[s - 1] = level
    if args.speed < 0:
        raise UserError(f"--speed: expected 0 (as fast as possible) or more, got {args.speed}")
    # One run of this mode per records folder: a second would spoil this one's games (its
    # --new closes this one's game) and fight over its camera or port, so it stops here.
    from ..recorder import RecordsLock
    directory = records_dir(cfg, args.records)
    lock = RecordsLock(directory, mode)
    lock.acquire()
    try:
        # Then the hardware: a missing camera, port or GPIO fails before a record is written.
        if cfg["gpio.enabled"] and not args.mock_gpio:
            real_pin_factory()
        source_factory = sources.live_source_factory(cfg, speed=args.speed)
    except BaseException:
        lock.release()
        raise
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    from ..recorder import RecordWriter, unfinished_record
    restart: dict = {"to": None}
    commands = Commands()

    def current_path():
        return session.recorder.path if session.recorder is not None else None

    def new_game():
        restart["to"] = "new"

    def remote(what: str) -> dict:
        """The page's "create a remote game" / "join with a code" (with the PIN): the game is
        made on the broker here (seqboard.remote.api), then this run goes on as
        `seqboard play --remote`, resuming the record just written."""
        from ..remote.api import create_game, join_game
        try:
            started = create_game(cfg, records=args.records) if what == "create" else \
                join_game(cfg, what, records=args.records)
        except UserError as exc:
            return {"error": str(exc)}
        restart["to"] = "remote"
        seats = ", ".join(map(str, started.seats))
        text = (f"remote game {started.game} created: join code {started.code} (give it to the "
                f"other board); this board holds seats {seats}" if what == "create" else
                f"joined remote game {started.game}, seats {seats}")
        session._log_line("info", f"remote: game {started.game} {'created' if what == 'create' else 'joined'}")
        session._emit(Event("info", None, f"remote game {started.game}: starting"))
        print(text, flush=True)
        return {"code": started.code, "game": started.game, "seats": started.seats,
                "text": text}

    def resume_other():
        other = unfinished_record(directory, mode, besides=current_path())
        if other is None:
            session._log_line("info", "no other unfinished game to resume")
            session._emit(Event("info", None, "no other unfinished game to resume"))
            return
        restart["to"] = other

    dash = None
    resume = args.resume
    session = None
    real_source = None
    try:
        while True:
            if isinstance(restart["to"], Path):
                path, restart["to"] = restart["to"], None
                session = resume_session(path, RecordWriter(path, resume=True), mode)
            elif restart["to"] == "new":
                # the game being played is put aside, unfinished: "resume" brings it back
                restart["to"] = None
                session = new_session(cfg, mode, directory, seed=random.randrange(1_000_000),
                                      full_game=False, computers=seats)
            else:
                session = open_session(cfg, mode, directory, resume, seed=seed, full_game=False,
                                       computers=seats)
            # one reader of the terminal's keys, started with the first game, acting on the
            # game of the moment
            closers = attach_indicators(session, cfg, commands, mock_gpio=args.mock_gpio,
                                        keys=real_source is None, current=lambda: session)
            step = None
            if session.computers:
                entries = []
                if session.recorder is not None:
                    text = session.recorder.path.read_text("utf-8", errors="replace")
                    entries = parse_record(text, str(session.recorder.path)).entries
                pi = ComputerSeats.from_record(session, entries)
                step = pi.step
            real_source = source_factory(session)
            source = _KeepOpen(real_source)          # the camera or the link outlives a game
            if dash is None:
                dash = start_dashboard(cfg, session, commands, directory, args, source,
                                       actions={"new_game": new_game, "resume": resume_other,
                                                "remote_create": lambda: remote("create"),
                                                "remote_join": lambda code="": remote(code)})
            else:
                dash.source = source
                dash.attach(session)
            print(f"seqboard {mode}: {session.referee.edition.title}, {session.referee.n_players} "
                  f"players; record {current_path() or '-'}; Ctrl-C to stop (the game can be "
                  f"resumed)", flush=True)
            waiting = {"said": False}

            def until():
                if restart["to"] is not None:
                    return True
                if not session.ended:
                    return False
                if dash is None:
                    return True
                if not waiting["said"]:
                    waiting["said"] = True
                    from ..i18n import _
                    print(_("game over: start a new game from the dashboard, or Ctrl-C"), flush=True)
                return False
            # a file paces itself (its frames' own time); a live source is polled each tick
            recorded = getattr(real_source, "recorded", False)
            run_app(session, source, commands=commands, pacer=Pacer(real=True), step=step,
                    tick=0.0 if recorded else 0.02, closers=closers, until=until)
            if getattr(real_source, "finished", False):
                print(_summary(session, real_source), flush=True)
                if real_source.frames_read == 0:
                    from ..errors import UserError
                    skipped = getattr(getattr(real_source, "frames", None), "skipped", [])
                    why = f" (the first, {skipped[0][0]}: {skipped[0][1]})" if skipped else ""
                    raise UserError(f"camera.device: no frame of {real_source.name} could be "
                                    f"read{why}")
                break
            if restart["to"] in (None, "remote"):
                break
    finally:
        if dash is not None:
            dash.stop()
        if real_source is not None:
            real_source.close()
        lock.release()
    if restart["to"] == "remote":
        # the game made from the page goes on as `seqboard play --remote`, which resumes it
        from ..remote.cli import run_remote
        args.remote, args.resume, args.seat = "create", True, None
        return run_remote(args)
    return 0


def _summary(session, source) -> str:
    """One line at the end of a video file or folder: what was judged."""
    kinds = [e["kind"] for e in session.log]
    moves = len(session.referee.moves)
    warnings = kinds.count("violation")
    state = "the game is over" if session.ended else \
        "the game is unfinished (--resume goes on with the next file, --new starts afresh)"
    frames = getattr(source, "frames", None)
    name = getattr(frames, "name", source.name)
    skipped = getattr(frames, "skipped", [])
    unread = ""
    if skipped:
        first, why = skipped[0]
        unread = f" ({len(skipped)} unreadable, skipped: the first, {first}: {why})"
    return (f"end of {name}: {source.frames_read} frames{unread}; {moves} moves in the game "
            f"({session.caught_up} caught up), {warnings} warnings; {state}")


class _KeepOpen:
    """A source whose device stays open when one game ends and the next begins."""

    def __init__(self, source) -> None:
        self._source = source

    def __getattr__(self, name):
        return getattr(self._source, name)

    def poll(self, now: float):
        return self._source.poll(now)

    def close(self) -> None:
        pass

