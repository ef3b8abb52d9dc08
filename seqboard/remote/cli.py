"""``seqboard play --remote``: create, join or resume a game with a board elsewhere."""

from __future__ import annotations

import argparse
import re
import socket
import sys

from ..errors import UserError


def board_name(rc: dict) -> str:
    """This board's name in remote games: remote.board, else the user name, else the host."""
    name = rc["board"] or rc["username"] or socket.gethostname()
    name = re.sub(r"[^A-Za-z0-9_-]", "-", name)[:32].strip("-")
    return name or "board"


def lan_address(broker_host: str) -> str:
    """This machine's address as the players' phones on its network reach it."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((broker_host if broker_host not in ("localhost", "127.0.0.1")
                       else "192.0.2.1", 9))  # no packet is sent
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


def _hand_pages(rg, cfg, rc):
    """Each seat's own hand page (a link with its own secret), printed for the players."""
    if not rc["hand_pages_port"]:
        return None
    from .hands import HandPages
    names = {s: rg.session.names[s] for s in rg.seats if s < len(rg.session.names)}
    try:
        pages = HandPages(sorted(rg.seats), cfg["dashboard.host"], rc["hand_pages_port"],
                          names).start()
    except OSError as exc:
        print(f"hand pages not started: remote.hand_pages_port {rc['hand_pages_port']}: "
              f"{exc.strerror}", file=sys.stderr)
        return None
    rg.pages = pages
    for seat, url in pages.links(lan_address(rc["host"])).items():
        print(f"cards of player {seat + 1}: {url}  (open it on that player's phone only)",
              flush=True)
    return pages


def run_remote(args: argparse.Namespace) -> int:
    from .. import sources
    from ..app import Pacer, attach_indicators, load_settings, new_session, pick_record, \
        real_pin_factory, records_dir
    from ..app import run as run_app
    from ..commands.demo import start_dashboard
    from ..loop import Commands
    from ..recorder import RecordWriter, new_record_path
    from . import protocol as P
    from . import start
    from .client import Link

    cfg = load_settings(args.config)
    rc = cfg.section("remote")
    what = args.remote
    if what != "create":
        try:
            P.parse_code(what)
        except ValueError as exc:
            raise UserError(f"--remote: give create or a join code: {exc}") from None
    board = board_name(rc)
    seats = [s - 1 for s in (args.seat or rc["seats"])]
    if cfg["gpio.enabled"] and not args.mock_gpio:
        real_pin_factory()
    source_factory = sources.live_source_factory(cfg)
    directory = records_dir(cfg, args.records)
    link = Link.from_config(rc, client_id=f"seqboard-{board}-{P.new_code()[:4]}")
    link.start()
    try:
        path = pick_record(directory, start.MODE, args.resume)
        if path is not None:
            rg = start.resume(path, RecordWriter(path, resume=True), link,
                              undo_timeout=rc["undo_timeout"])
            print(f"resumed remote game {rg.game} at move {rg.n} as board {board}", flush=True)
        elif what == "create":
            n = cfg["game.players"]
            seats = seats or [0]
            if any(not 0 <= s < n for s in seats) or len(seats) >= n:
                raise UserError(f"remote.seats / --seat: seats {[s + 1 for s in seats]} must be "
                                f"some of 1..{n}, leaving a seat for the other board")
            session = new_session(cfg, start.MODE, directory, seed=None, full_game=False)
            rg, code = start.create(session, link, board=board, seats=seats,
                                    undo_timeout=rc["undo_timeout"])
            print(f"remote game created: join code {code}  (give it to the other board: "
                  f"seqboard play --remote {code})", flush=True)
        else:
            writer = RecordWriter(new_record_path(directory, start.MODE))
            rg = start.join(link, what, board=board, seats=seats or None, recorder=writer,
                            undo_timeout=rc["undo_timeout"])
            print(f"joined remote game {rg.game} as board {board}, seats "
                  f"{', '.join(str(s + 1) for s in sorted(rg.seats))}", flush=True)
        session = rg.session
        pages = _hand_pages(rg, cfg, rc)
        commands = Commands()
        closers = attach_indicators(session, cfg, commands, mock_gpio=args.mock_gpio)
        source = source_factory(session)
        dash = start_dashboard(cfg, session, commands, directory, args, source)
        r = session.referee
        print(f"seqboard play --remote: {r.edition.title}, {r.n_players} players; record "
              f"{session.recorder.path}; Ctrl-C to stop (the game can be resumed)", flush=True)
        try:
            run_app(session, source, commands=commands, pacer=Pacer(real=True), step=rg.step,
                    tick=0.02, closers=closers)
            rg.step()                    # the last move out before the link closes
        finally:
            if dash is not None:
                dash.stop()
            if pages is not None:
                pages.close()
    finally:
        link.close()
    print(f"remote game {rg.game}: {'over' if rg.session.ended else 'stopped'}", file=sys.stderr)
    return 0
