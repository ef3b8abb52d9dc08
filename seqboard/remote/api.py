"""Creating or joining a remote game from another part of seqboard: the page's buttons and
`seqboard setup` (the wizard) call these; `seqboard play --remote ...` then goes on with the
game (it resumes the record written here).

Example (the wizard, after writing the configuration)::

    from seqboard.app import load_settings
    from seqboard.remote.api import create_game, join_game

    cfg = load_settings(path)
    started = create_game(cfg, seats=[1])      # 1-based seats; None: remote.seats or seat 1
    print("give the other board this code:", started.code)
    # ... at the other board:
    joined = join_game(load_settings(other_path), started.code)
    # then at each board: seqboard play --remote create (or the code): the game goes on

Both connect to the broker in ``[remote]``, publish (and wait for the broker to hold it),
write this board's record and disconnect. A mistake of the user (no broker, a wrong code,
seats taken) is a :class:`~seqboard.errors.UserError` with one clear line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from . import protocol as P


@dataclass
class RemoteStart:
    code: str            # the join code (give it to the other board)
    game: str            # the game's id (the code's first five characters)
    board: str           # this board's name in the game
    seats: list[int]     # the seats this board holds, 1-based
    record: Path         # this board's record: `seqboard play --remote` resumes it


def _link(cfg, board: str):
    from .client import Link
    link = Link.from_config(cfg.section("remote"), client_id=f"seqboard-{board}-{P.new_code()[:4]}")
    link.start()
    return link


def _seats(cfg, seats: list[int] | None) -> list[int]:
    chosen = list(seats) if seats else list(cfg["remote.seats"])
    return [s - 1 for s in chosen]


def create_game(cfg, *, seats: list[int] | None = None, records: str | None = None) -> RemoteStart:
    """Create a remote game with the configuration's game settings; the join code."""
    from ..app import new_session, records_dir
    from . import start
    from .cli import board_name
    board = board_name(cfg.section("remote"))
    n = cfg["game.players"]
    held = _seats(cfg, seats) or [0]
    if any(not 0 <= s < n for s in held) or len(held) >= n or len(set(held)) != len(held):
        raise UserError(f"remote.seats: seats {[s + 1 for s in held]} must be some of 1..{n}, "
                        f"leaving a seat for the other board")
    directory = records_dir(cfg, records)
    link = _link(cfg, board)
    try:
        session = new_session(cfg, start.MODE, directory, seed=None, full_game=False)
        rg, code = start.create(session, link, board=board, seats=held)
        if not link.flush():
            raise UserError(f"remote: the broker at {link.host}:{link.port} did not take the "
                            f"new game in time")
        path = session.recorder.path
        session.recorder.close()
    finally:
        link.close()
    return RemoteStart(code, rg.game, board, sorted(s + 1 for s in held), path)


def join_game(cfg, code: str, *, seats: list[int] | None = None,
              records: str | None = None) -> RemoteStart:
    """Join the game of ``code`` (typed by a person: case and dashes forgiven)."""
    from ..app import records_dir
    from ..recorder import RecordWriter, new_record_path
    from . import start
    from .cli import board_name
    try:
        P.parse_code(code)
    except ValueError as exc:
        raise UserError(f"join code: {exc}") from None
    board = board_name(cfg.section("remote"))
    directory = records_dir(cfg, records)
    link = _link(cfg, board)
    writer = None
    try:
        writer = RecordWriter(new_record_path(directory, start.MODE))
        rg = start.join(link, code, board=board, seats=_seats(cfg, seats) or None,
                        recorder=writer)
        if not link.flush():
            raise UserError(f"remote: the broker at {link.host}:{link.port} did not take the "
                            f"request to join in time")
    except UserError:
        if writer is not None:           # nothing joined: no half record left to resume
            writer.close()
            writer.path.unlink(missing_ok=True)
        raise
    finally:
        link.close()
    writer.close()
    return RemoteStart(_canonical(code), rg.game, board,
                       sorted(s + 1 for s in rg.seats), writer.path)


def _canonical(code: str) -> str:
    game, secret = P.parse_code(code)
    raw = game + secret
    return "-".join(raw[i:i + 4] for i in range(0, len(raw), 4))
