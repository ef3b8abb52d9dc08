"""``seqboard demo``: two computer players finish a game on a simulated table, no hardware.

Every stage runs for real: simulated hands put chips on a simulated board, the synthetic
camera films it (or the matrix emulator senses it), the board is read and stabilised, the
referee judges each change, the record is written, and the indicators light on gpiozero's
mock pins and in the terminal.
"""

from __future__ import annotations

import argparse
import random
import sys

from ..inputs import number

SEED = number(0, 2**63 - 1, int)

EPILOG = """examples:
  seqboard demo                       a game filmed by the synthetic camera, in under a minute
  seqboard demo --source matrix       the same game sensed by the LED-matrix emulator
  seqboard demo --seed 7 --fast       a repeatable game, as fast as the machine goes
  seqboard demo --records /tmp/recs   write the game record there, then:
  seqboard replay /tmp/recs/*-demo.jsonl

A demo stopped half-way (Ctrl-C, power cut) is offered for resuming at the next start;
--new starts afresh, --resume resumes without asking.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="watch two computer players finish a game (no hardware)",
                       description="Watch computer players finish a game on a simulated table: "
                                   "camera (or sensor matrix), referee, record and indicators "
                                   "all running for real, with no hardware at all.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("--source", choices=("camera", "matrix", "direct"), default="camera",
                   help="how the table is read: the synthetic camera (default), the LED-matrix "
                        "emulator over its serial protocol, or directly (a perfect sensor)")
    p.add_argument("--seed", type=SEED, help="seed of the deal and the players (default: random)")
    p.add_argument("--level", default="greedy", help="computer players' level (default greedy)")
    p.add_argument("--speed", type=number(0.1, 1000), default=4.0,
                   help="how many times faster than real time the table moves, 0.1 to 1000 "
                        "(default 4)")
    p.add_argument("--fast", action="store_true",
                   help="no pacing: as fast as the machine goes (with --source matrix: 10 times "
                        "real time, as the serial link runs in real time)")
    p.add_argument("--no-mistakes", action="store_true",
                   help="no scripted mistakes (by default a chip of the wrong colour goes down "
                        "at move 5 and one on a wrong space at move 12)")
    p.set_defaults(func=run)


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE",
                   help="configuration file (default ~/.config/seqboard/seqboard.toml, or the "
                        "built-in defaults when it does not exist)")
    p.add_argument("--records", metavar="DIR", help="where game records go (default records.dir)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--resume", action="store_true", default=None,
                   help="resume the unfinished game without asking")
    g.add_argument("--new", dest="resume", action="store_false",
                   help="start a new game even if one is unfinished")
    p.add_argument("--no-dashboard", action="store_true", help="do not serve the web dashboard")


def run(args: argparse.Namespace) -> int:
    from engine.players import KINDS as PLAYERS

    from ..app import Pacer, attach_indicators, load_settings, open_session, records_dir
    from ..app import run as run_app
    from ..errors import UserError
    from ..loop import Commands
    from ..sources.table import Director, Mistake, Table

    if args.level not in PLAYERS:
        raise UserError(f"--level: expected one of {', '.join(sorted(PLAYERS))}, got {args.level!r}")
    cfg = load_settings(args.config)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    directory = records_dir(cfg, args.records)
    from ..recorder import RecordsLock
    with RecordsLock(directory, "demo"):      # one demo per records folder at a time
        n = cfg["game.players"]
        session = open_session(cfg, "demo", directory, args.resume, seed=seed, full_game=True,
                               computers={p: args.level for p in range(n)})
        seed = session.seed if session.seed is not None else seed
        level = session.computers.get(0, args.level)
        ref = session.referee
        print(f"seqboard demo: {ref.edition.title}, {ref.n_players} computer players ({level}), "
              f"seed {seed}, read by the {args.source}", flush=True)
        table = Table.from_observation(_table_from_board(session))
        mistakes = () if args.no_mistakes else (Mistake(4, "colour"), Mistake(11, "space"))
        director = Director(session, table, kind=level, seed=seed, mistakes=mistakes)
        commands = Commands()
        closers = attach_indicators(session, cfg, commands, mock_gpio=True)
        source = make_source(args.source, table, session, cfg, seed)
        dash = start_dashboard(cfg, session, commands, directory, args, source)
        # The matrix emulator and its serial link run in real time: the table may not outrun them.
        speed = args.speed if not args.fast else (10.0 if args.source == "matrix" else 0)
        pacer = Pacer(real=False, speed=speed)
        try:
            run_app(session, source, commands=commands, pacer=pacer, step=director.step, tick=0.1,
                    until=lambda: session.ended or pacer.now > 3600, closers=closers)
        finally:
            if dash is not None:
                dash.stop()
        print(f"game record: {session.recorder.path if session.recorder else '-'}")
        gpio = next((c for c in closers if hasattr(c, "patterns")), None)
        if gpio is not None:
            print("buzzer patterns sounded on the mock pins: "
                  + ", ".join(gpio.history_summary()))
        return 0 if session.ended else 1


def _table_from_board(session):
    """The physical board at the start: the referee's board (a resumed game's chips)."""
    from engine.observation import Observation, SpaceState
    exp = session.referee.expected()
    r = session.referee
    states = list(exp.states)
    for team in range(r.n_teams):
        for i in r.board.sequence_spaces(team):
            states[i] = SpaceState.WHITE
    return Observation(exp.rows, exp.cols, tuple(states))


def make_source(kind: str, table, session, cfg, seed: int):
    from ..sources.table import DirectSource
    if kind == "direct":
        return DirectSource(table, settle=0.3)
    from .. import sources
    if kind == "camera":
        return sources.synthetic_camera(table, session.referee.layout, seed)
    return sources.emulated_matrix(table, session)


def start_dashboard(cfg, session, commands, directory, args, source=None, actions=None):
    """The web dashboard, when enabled; its address and PIN are printed, kept under the
    live board and reprinted by the ``a`` key. A PIN made up here is written to the
    configuration (``dashboard.pin``) so that it stays the same at the next start."""
    if args.no_dashboard or not cfg["dashboard.enabled"]:
        return None
    from ..dashboard import Dashboard
    from ..indicators.terminal import NOTES
    pin = cfg["dashboard.pin"] or keep_pin(cfg, session.mode)
    dash = Dashboard(cfg.section("dashboard"), directory, commands,
                     pin=pin, host=cfg["dashboard.host"],
                     port=cfg["dashboard.port"], source=source, actions=actions,
                     voice=cfg["ui.voice"])
    dash.attach(session)
    try:
        url = dash.start()
    except OSError as exc:
        print(f"dashboard not started: port {cfg['dashboard.port']}: {exc.strerror}",
              file=sys.stderr)
        return None
    NOTES["dashboard"] = f"dashboard: {url} (PIN {dash.pin} to act from the page; a: show again)"
    print(NOTES["dashboard"], flush=True)
    return dash


def keep_pin(cfg, mode: str) -> str | None:
    """A new PIN written to the configuration file, or None (the dashboard makes one up for
    this run only): the demo does not create a configuration file of its own."""
    import secrets

    from hw_config.config import DEFAULT_PATH, set_key
    if mode == "demo" and cfg.path is None:
        return None
    pin = f"{secrets.randbelow(10**6):06d}"
    try:
        path = set_key(cfg.path, "dashboard", "pin", pin)
    except OSError as exc:
        print(f"dashboard: the PIN is for this run only: cannot write "
              f"{cfg.path or DEFAULT_PATH}: {exc.strerror}", file=sys.stderr, flush=True)
        return pin
    print(f"dashboard: a new PIN, written to {path} (dashboard.pin): it stays at the next start",
          flush=True)
    return pin
