"""SEQUENCE STACKS game records: the same JSON Lines as the board editions
(``docs/game-record.md``), with ``"game": "stacks"`` in the setup line and one ``action``
line per thing a player does. A record replays exactly: a game the engine dealt carries
its seed, and a refereed game with real cards is re-checked against what was public.
"""

from __future__ import annotations

import random

from ..errors import EngineError, IllegalMoveError, RecordError
from .cards import load_deck
from .game import Action, StacksGame, StacksOptions

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
    return {"type": "end", "winner": game.winner, "result": game.result,
            "chips": [dict(c) for c in game.chips]}


def start_from_setup(setup: dict) -> StacksGame:
    try:
        options = StacksOptions.from_json(setup.get("options", {}))
        deck = load_deck(None if setup.get("deck", "default") == "default" else setup["deck"])
        seed = setup.get("seed")
        return StacksGame(int(setup["players"]), options=options, deck=deck,
                          known=bool(setup.get("known", True)) and seed is not None,
                          rng=random.Random(seed), first=int(setup.get("first", 0)))
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"line 1: the setup line is damaged ({exc})") from None
    except EngineError as exc:
        raise RecordError(f"line 1: {exc}") from None


def replay(entries: list[dict]) -> list[dict]:
    """Re-check every action; one step per line: ``n``, ``ok``, ``text`` (and ``why``)."""
    if not entries or entries[0].get("type") != "setup":
        raise RecordError("line 1: a record starts with its setup line")
    game = start_from_setup(entries[0])
    steps: list[dict] = []
    for k, e in enumerate(entries[1:], start=2):
        t = e.get("type")
        if t == "action":
            try:
                a = Action.from_json(e["action"])
            except (KeyError, TypeError) as exc:
                raise RecordError(f"line {k}: the action is damaged ({exc})") from None
            try:
                if a.kind == "resolve":
                    text = game.resolve()
                else:
                    if a.kind != "block" and e.get("player") not in (None, game.current) \
                            and game.pending is None:
                        raise IllegalMoveError(f"the record says player {e['player'] + 1}, "
                                               f"but it is {game.name(game.current)}'s turn")
                    text = game.apply(a)
                steps.append({"n": e.get("n", k), "line": k, "ok": True, "text": text})
            except IllegalMoveError as exc:
                steps.append({"n": e.get("n", k), "line": k, "ok": False,
                              "text": f"refused: {exc}", "why": str(exc)})
        elif t == "end":
            if game.pending is not None:
                game.resolve()
            same = e.get("winner") == game.winner
            steps.append({"n": "end", "line": k, "ok": same,
                          "text": f"result: {game.result or 'unfinished'}" +
                          ("" if same else f" (the record says winner {e.get('winner')})")})
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
