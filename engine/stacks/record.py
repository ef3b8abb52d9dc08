"""SEQUENCE STACKS game records: the same JSON Lines as the board editions
(``docs/game-record.md``), with ``"game": "stacks"`` in the setup line and one ``action``
line per thing a player does. A record replays exactly: a game the engine dealt carries
its seed, and a refereed game with real cards is re-checked against what was public.
"""

from __future__ import annotations

import random

from ..errors import EngineError, IllegalMoveError, RecordError
from .cards import ALL_CODES, load_deck
from .game import RESHUFFLES, Action, StacksGame, StacksOptions

VERSION = 1


def setup_entry(game: StacksGame, seed: int | None, names: list[str] | None = None,
                seats: list[str] | None = None) -> dict:
    """The first line: who plays, the options, the deck, and the seed of a dealt game."""
    return {"type": "setup", "game": "stacks", "version": VERSION, "players": game.n,
            "first": game.current, "known": game.known, "seed": seed,
            "options": game.options.to_json(), "deck": game.spec.source,
            "names": names or [game.name(p) for p in range(game.n)],
            "seats": seats or ["person"] * game.n}


def action_entry(n: int, player: int, action: Action, text: str) -> dict:
    return {"type": "action", "n": n, "player": player, "action": action.to_json(), "text": text}


def end_entry(game: StacksGame) -> dict:
    """The last line: the winner, the result in words, everyone's chips and, in a game the
    engine dealt (every card known), everyone's hand at the end, sorted."""
    d = {"type": "end", "winner": game.winner, "result": game.result,
         "chips": [dict(c) for c in game.chips]}
    if game.known:
        d["hands"] = [sorted(h) for h in game.hands]
    return d


_OPTION_RANGES = {"max_piles_per_colour": (1, 10), "hand_size": (1, 20), "win_chips": (1, 40),
                  "win_each_colour": (0, 20), "stall_rounds": (1, 100)}
_ACTION_KINDS = ("play", "special", "discard", "block", "resolve")
_MAX_DECK_FILE = 1 << 20


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def options_from_json(d, line: int = 1) -> StacksOptions:
    """The options of a setup line, each checked: RecordError names the one at fault.
    Keys this version does not know are ignored."""
    if not isinstance(d, dict):
        raise RecordError(f"line {line}: 'options' must be an object")
    fields = StacksOptions.__dataclass_fields__
    for key, v in d.items():
        if key not in fields:
            continue
        if key == "direction":
            if v not in ("clockwise", "counterclockwise"):
                raise RecordError(f"line {line}: option direction must be \"clockwise\" or "
                                  f"\"counterclockwise\", not {v!r}")
        elif key == "reshuffle":
            if v not in RESHUFFLES:
                raise RecordError(f"line {line}: option reshuffle must be one of "
                                  f"{', '.join(RESHUFFLES)}, not {v!r}")
        elif key in _OPTION_RANGES:
            lo, hi = _OPTION_RANGES[key]
            if not _is_int(v) or not lo <= v <= hi:
                raise RecordError(f"line {line}: option {key} must be a whole number from "
                                  f"{lo} to {hi}, not {v!r}")
        elif not isinstance(v, bool):
            raise RecordError(f"line {line}: option {key} must be true or false, not {v!r}")
    if "reshuffle" not in d:
        # records from before the option rebuilt the deck from the whole out-of-play pile
        d = dict(d, reshuffle="out_of_play")
    return StacksOptions.from_json(d)


def start_from_setup(setup: dict, line: int = 1) -> StacksGame:
    v = setup.get("version", 1)
    if not _is_int(v) or not 1 <= v <= VERSION:
        raise RecordError(f"line {line}: record format version {v!r} is not known "
                          f"(this seqboard reads SEQUENCE STACKS records of version 1 to {VERSION})")
    options = options_from_json(setup.get("options", {}), line)
    players, first = setup.get("players"), setup.get("first", 0)
    if not _is_int(players) or not 2 <= players <= 6:
        raise RecordError(f"line {line}: 'players' must be 2 to 6, not {players!r}")
    if not _is_int(first) or not 0 <= first < players:
        raise RecordError(f"line {line}: 'first' must be a player from 0 to {players - 1}, "
                          f"not {first!r}")
    seed, known = setup.get("seed"), setup.get("known", True)
    if seed is not None and not _is_int(seed):
        raise RecordError(f"line {line}: 'seed' must be a whole number or null")
    if not isinstance(known, bool):
        raise RecordError(f"line {line}: 'known' must be true or false")
    for key in ("names", "seats"):
        if key in setup and not (isinstance(setup[key], list)
                                 and all(isinstance(x, str) for x in setup[key])):
            raise RecordError(f"line {line}: '{key}' must be a list of strings")
    deck = setup.get("deck", "default")
    if not isinstance(deck, str):
        raise RecordError(f"line {line}: 'deck' must be \"default\" or a deck file's path")
    try:
        if deck != "default":
            import os
            import stat
            st = os.stat(deck)
            if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_DECK_FILE:
                raise RecordError(f"line {line}: the deck file {deck} is not a deck file "
                                  f"(a TOML file under {_MAX_DECK_FILE >> 10} KB)")
        spec = load_deck(None if deck == "default" else deck)
        return StacksGame(players, options=options, deck=spec,
                          known=known and seed is not None, rng=random.Random(seed), first=first)
    except OSError as exc:
        raise RecordError(f"line {line}: the deck file {deck}: {exc.strerror}") from None
    except EngineError as exc:
        raise RecordError(f"line {line}: {exc}") from None


def action_from_json(d, line: int) -> Action:
    """An action object, each field checked: RecordError names the one at fault."""
    if not isinstance(d, dict):
        raise RecordError(f"line {line}: 'action' must be an object")
    if d.get("kind") not in _ACTION_KINDS:
        raise RecordError(f"line {line}: the action's 'kind' is one of {', '.join(_ACTION_KINDS)}")
    for key, default in (("card", ""), ("source", "hand"), ("choice", "")):
        if not isinstance(d.get(key, default), str):
            raise RecordError(f"line {line}: the action's '{key}' must be a string, "
                              f"not {d[key]!r}")
    card = d.get("card", "")
    if card and card not in ALL_CODES:
        raise RecordError(f"line {line}: {card!r} is not a SEQUENCE STACKS card")
    for key in ("pile", "target", "player"):
        if key in d and not _is_int(d[key]):
            raise RecordError(f"line {line}: the action's '{key}' must be a whole number, "
                              f"not {d[key]!r}")
    return Action.from_json(d)


def replay(entries: list[dict], lines: list[int] | None = None) -> list[dict]:
    """Re-check every action; one step per line: ``n``, ``line``, ``ok``, ``text`` (and
    ``why``). Malformed lines raise RecordError naming the line (``lines``: the line number
    of each entry, when blank lines were skipped)."""
    lines = lines or list(range(1, len(entries) + 1))
    if not entries or entries[0].get("type") != "setup":
        raise RecordError("line 1: a record starts with its setup line")
    game = start_from_setup(entries[0], lines[0])
    steps: list[dict] = []
    ended: dict | None = None
    count = 0
    for e, k in zip(entries[1:], lines[1:]):
        t = e.get("type")
        if t in ("move", "observation", "verdict", "edit"):
            raise RecordError(f"line {k}: a board-game line ({t!r}) in a SEQUENCE STACKS record")
        if t == "setup":
            raise RecordError(f"line {k}: a second setup line")
        if t == "event":
            if e.get("event") not in ("reject", "note"):
                raise RecordError(f"line {k}: unknown SEQUENCE STACKS event {e.get('event')!r}")
            if not isinstance(e.get("text", ""), str):
                raise RecordError(f"line {k}: an event's 'text' must be a string")
            continue      # a refused action at the table, or a note: nothing happened
        if t == "action":
            a = action_from_json(e.get("action"), k)
            player, n = e.get("player"), e.get("n")
            if player is not None and not _is_int(player):
                raise RecordError(f"line {k}: 'player' must be a whole number")
            if not _is_int(n):
                raise RecordError(f"line {k}: 'n' (the action's number) must be a whole number")
            count += 1
            if n != count:
                steps.append({"n": n, "line": k, "ok": False,
                              "text": f"numbered {n}, but it is action {count}",
                              "why": "actions out of order, or one missing or twice"})
                continue
            if ended is not None:
                steps.append({"n": n, "line": k, "ok": False, "text": "an action after the end line",
                              "why": "an action after the end line"})
                continue
            try:
                if a.kind == "resolve":
                    if game.pending is None:
                        raise IllegalMoveError("no SEQUENCE is waiting for its chip")
                    text = game.resolve()
                else:
                    if a.kind != "block" and player not in (None, game.current) \
                            and game.pending is None:
                        raise IllegalMoveError(f"the record says player {player + 1}, "
                                               f"but it is {game.name(game.current)}'s turn")
                    if a.kind == "block" and player is not None and a.player not in (-1, player):
                        raise IllegalMoveError(f"the line says player {player + 1} and its "
                                               f"Block says player {a.player + 1}")
                    text = game.apply(a)
                steps.append({"n": n, "line": k, "ok": True, "text": text})
            except IllegalMoveError as exc:
                steps.append({"n": n, "line": k, "ok": False,
                              "text": f"refused: {exc}", "why": str(exc)})
        elif t == "end":
            if ended is not None:
                # the table once wrote its end line twice: the same line again is no news
                steps.append({"n": "end", "line": k, "ok": e == ended, "text": (
                    "the end line again" if e == ended else "a second end line")})
                continue
            ended = e
            winner = e.get("winner")
            if winner is not None and not (_is_int(winner) and 0 <= winner < game.n):
                raise RecordError(f"line {k}: 'winner' must be a player from 0 to "
                                  f"{game.n - 1}, or null")
            if game.pending is not None:
                # the SEQUENCE just completed, nobody Blocked: its chip, as a resolve line gives
                steps.append({"n": count + 1, "line": k, "ok": True, "text": game.resolve()})
            same = winner == game.winner
            chips, hands = e.get("chips"), e.get("hands")
            if chips is not None and chips != [dict(c) for c in game.chips]:
                same = False
            if hands is not None and (not game.known or
                                      hands != [sorted(h) for h in game.hands]):
                same = False
            steps.append({"n": "end", "line": k, "ok": same,
                          "text": f"result: {game.result or 'unfinished'}" +
                          ("" if same else f" (the record says winner {winner}, chips {chips}"
                                            + (", and other hands" if hands is not None else "") + ")")})
        else:
            raise RecordError(f"line {k}: unknown line type {t!r}")
    if not any(s["n"] == "end" for s in steps):
        steps.append({"n": "end", "ok": True, "text": f"result: {game.result or 'unfinished'}"})
    return steps


def record_game(game: StacksGame, players: list, seed: int | None) -> list[dict]:
    """Play ``game`` to the end with ``players`` and return its record entries."""
    from .players import play_stacks_game
    entries = [setup_entry(game, seed)]
    n = [0]

    def on_action(p, a, text):
        n[0] += 1
        entries.append(action_entry(n[0], p, a, text))

    play_stacks_game(game, players, on_action=on_action)
    entries.append(end_entry(game))
    return entries
