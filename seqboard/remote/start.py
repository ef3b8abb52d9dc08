"""Creating, joining and resuming a remote game: the session, its record, the controller."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from engine.editions import Options
from engine.referee import Referee

from ..errors import UserError
from ..session import Session
from . import protocol as P
from .game import RemoteGame, setup_message

MODE = "remote"


def _note(session: Session, info: dict) -> None:
    """The remote game's own facts, kept in the record (the join code and, at the dealing
    board, the deck's seed) so that a restarted board can go on."""
    if session.recorder is not None:
        session.recorder.write({"type": "event", "event": "note",
                                "text": f"remote game {info['game']} as board {info['board']}",
                                "remote": info})


def create(session: Session, link, *, board: str, seats: list[int], code: str | None = None,
           deck_seed: int | None = None, **kw) -> tuple[RemoteGame, str]:
    """This board creates a game for ``session`` (seats 0-based); returns the controller and
    the join code to give the other board."""
    code = code or P.new_code()
    game, secret = P.parse_code(code)
    deck_seed = random.randrange(1 << 30) if deck_seed is None else deck_seed
    setup = setup_message(session, {board: sorted(seats)})
    setup["creator"] = board
    _note(session, {"game": game, "code": code, "board": board, "seats": sorted(seats),
                    "creator": board, "deck_seed": deck_seed})
    rg = RemoteGame(session, link, game=game, secret=secret, board=board, seats=seats,
                    setup=setup, deck_seed=deck_seed, **kw)
    rg.announce()
    return rg, code


def fetch_setup(link, code: str, timeout: float = 10.0) -> dict:
    """The game's setup as its creator published it (retained), checked; UserError when it
    does not come (a wrong code, or the other board's game is not on this broker)."""
    game, secret = P.parse_code(code)
    link.subscribe(f"{P.game_topic(game)}/board/+/setup")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for t, payload in link.drain():
            try:
                _, board, kind, _ = P.parse_topic(t)
                msg = P.decode(payload, t, P.board_key(secret, board or ""))
            except P.Refused:
                continue
            if kind == "setup" and msg.get("creator") == board:
                return msg
        time.sleep(0.02)
    raise UserError(f"join code {code}: no game {game} on this broker (check the code, and "
                    f"that both boards use the same remote.host)")


def session_from_setup(setup: dict, recorder, names: list[str] | None = None) -> Session:
    try:
        ref = Referee(setup["edition"], setup["players"], setup["teams"],
                      Options.from_json(setup.get("options", {})), None,
                      tuple(setup["colours"]), setup["first_player"])
    except Exception as exc:  # a setup that passed the checks but not the engine's
        raise UserError(f"the creating board's setup cannot be played here: {exc}") from None
    return Session(ref, recorder=recorder, mode=MODE, names=names or setup.get("names") or [])


def join(link, code: str, *, board: str, seats: list[int] | None, recorder,
         timeout: float = 10.0, **kw) -> RemoteGame:
    """This board joins the game of ``code`` with ``seats`` (0-based; None: every seat
    still free)."""
    setup = fetch_setup(link, code, timeout)
    game, secret = P.parse_code(code)
    n = setup["players"]
    held = {s for b, ss in setup["boards"].items() if b != board for s in ss}
    if board in setup["boards"] and board != setup["creator"]:
        seats = seats or setup["boards"][board]
    free = [s for s in range(n) if s not in held]
    seats = sorted(seats) if seats else free
    if not seats or any(s not in free for s in seats):
        raise UserError(f"remote.seats: seats {[s + 1 for s in seats]} are not free in game "
                        f"{game} (free: {[s + 1 for s in free] or 'none'})")
    if board == setup["creator"]:
        raise UserError(f"remote.board: {board!r} is the creating board's name; give this "
                        f"board another one")
    session = session_from_setup(setup, recorder)
    _note(session, {"game": game, "code": code, "board": board, "seats": seats,
                    "creator": setup["creator"]})
    rg = RemoteGame(session, link, game=game, secret=secret, board=board, seats=seats,
                    setup=setup, **kw)
    rg.announce()
    return rg


def resume(path: Path, recorder, link, **kw) -> RemoteGame:
    """Go on with an unfinished remote game from this board's record and the broker's
    retained messages."""
    from ..session import resume_session
    session = resume_session(path, recorder, MODE)
    entries = [json.loads(x) for x in Path(path).read_text("utf-8").splitlines() if x.strip()]
    info = next((e["remote"] for e in entries if e.get("event") == "note" and "remote" in e), None)
    if info is None:
        raise UserError(f"{path}: not a remote game's record (no remote note)")
    game, secret = P.parse_code(info["code"])
    setup = setup_message(session, {info["board"]: info["seats"]})
    if info["board"] == info["creator"]:
        setup["creator"] = info["board"]
        # the creator knows the seats of the others from the broker (join again) or its own
        # retained setup, which is fetched first
        try:
            setup = {**fetch_setup(link, info["code"], timeout=3.0)}
        except UserError:
            pass
        setup["first_player"] = entries[0].get("first_player", 0)
    else:
        setup = fetch_setup(link, info["code"])
    rg = RemoteGame(session, link, game=game, secret=secret, board=info["board"],
                    seats=info["seats"], setup=setup, deck_seed=info.get("deck_seed"),
                    history=entries, **kw)
    rg.announce()
    return rg
