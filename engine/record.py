"""Game records: one JSON object a line, written as the game goes, replayable exactly.

The line types and their fields are documented in ``docs/game-record.md``. This module
builds entries, parses record text (a record cut off mid-line by a power failure parses up
to its last whole line and says where it stopped) and replays a record through the
referee, and through a full-information :class:`Game` when the record holds the deck seed.
File I/O belongs to the app; the engine only turns text into entries and back.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from .editions import Options, get_edition
from .errors import EngineError, RecordError
from .game import Game
from .layout import parse_layout
from .moves import Move, Verdict
from .observation import Observation
from .referee import Referee

VERSION = 1
TYPES = ("setup", "move", "observation", "verdict", "event", "end", "action",  # action: STACKS
         "edit")
EVENTS = ("lost_draw", "dead_card", "table_talk", "undo", "reject", "confirm", "note")


def dumps(entry: dict) -> str:
    """One record line (no newline): compact, keys in a stable order."""
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


@dataclass
class ParsedRecord:
    entries: list[dict]
    #: Where reading stopped early, in words (a line cut off mid-way), or None.
    stopped: str | None = None
    #: 1-based line number of each entry.
    lines: list[int] = field(default_factory=list)


def parse_record(text: str, source: str = "record") -> ParsedRecord:
    """Parse record text; reject malformed lines with their number and the reason.

    Only the very last line may be incomplete (no newline and not whole JSON): that is a
    record cut off by a power failure, and reading stops before it.
    """
    entries: list[dict] = []
    numbers: list[int] = []
    stopped = None
    raw_lines = text.split("\n")
    last = len(raw_lines)
    for n, raw in enumerate(raw_lines, 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            if n == last:  # no newline after it: cut off while being written
                stopped = f"{source} line {n}: cut off mid-line; replayed up to line {n - 1}"
                break
            raise RecordError(f"{source} line {n}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict) or obj.get("type") not in TYPES:
            raise RecordError(f"{source} line {n}: expected an object with a 'type' of "
                              f"{', '.join(TYPES)}")
        entries.append(obj)
        numbers.append(n)
    if not entries:
        raise RecordError(f"{source}: empty record")
    if entries[0]["type"] != "setup":
        raise RecordError(f"{source} line {numbers[0]}: the first line must be the setup")
    return ParsedRecord(entries, stopped, numbers)


def setup_entry(*, edition: str, players: int, teams: int, colours: list[str],
                options: Options, first_player: int = 0, seed: int | None = None,
                layout_text: str | None = None, names: list[str] | None = None,
                mode: str = "referee", computers: list[tuple[int, str]] | None = None,
                computer_seed: int | None = None) -> dict:
    d = {"type": "setup", "version": VERSION, "game": "board", "edition": edition,
         "players": players, "teams": teams, "colours": colours,
         "options": options.to_json(), "first_player": first_player, "mode": mode}
    if seed is not None:
        d["seed"] = seed
    if layout_text is not None:
        d["layout_text"] = layout_text
    if names:
        d["names"] = names
    if computers:
        d["computers"] = [[seat, level] for seat, level in computers]
    if computer_seed is not None:
        d["computer_seed"] = computer_seed
    return d


def move_entry(n: int, player: int, move: Move, cols: int, via: str = "engine",
               draw: bool = True) -> dict:
    d = {"type": "move", "n": n, "player": player, **move.to_json(cols), "via": via}
    if not draw:
        d["draw"] = False
    return d


def observation_entry(obs: Observation) -> dict:
    j = obs.to_json()
    return {"type": "observation", "board": j["board"], "confidence": j["confidence"]}


def verdict_entry(v: Verdict, cols: int) -> dict:
    return {"type": "verdict", **v.to_json(cols)}


def end_entry(winner: int | None, reason: str, sequences: list[int]) -> dict:
    return {"type": "end", "winner": winner, "reason": reason, "sequences": sequences}


@dataclass
class Step:
    """One replayed line: its number, what it was, whether it checked out, in words."""

    line: int
    kind: str
    ok: bool
    text: str
    verdict: dict | None = None
    cells: list | None = None      # the board after this step (replay(..., with_cells=True))

    def to_json(self) -> dict:
        d = {"line": self.line, "kind": self.kind, "ok": self.ok, "text": self.text}
        if self.verdict is not None:
            d["verdict"] = self.verdict
        if self.cells is not None:
            d["cells"] = self.cells
        return d


@dataclass
class ReplayResult:
    steps: list[Step]
    winner: int | None
    over: bool
    result: str
    stopped: str | None
    ok: bool
    referee: Referee | None = None
    game: Game | None = None

    def to_json(self) -> dict:
        return {"steps": [s.to_json() for s in self.steps], "winner": self.winner,
                "over": self.over, "result": self.result, "stopped": self.stopped, "ok": self.ok}


def _field(entry: dict, key: str, typ, line: int):
    v = entry.get(key)
    if not isinstance(v, typ) or isinstance(v, bool) and typ is int:
        raise RecordError(f"line {line}: '{key}' must be {getattr(typ, '__name__', typ)}")
    return v


def start_from_setup(setup: dict, line: int = 1) -> tuple[Referee, Game | None]:
    """The referee (and full game, when the setup holds a seed) a setup line describes."""
    try:
        edition = get_edition(_field(setup, "edition", str, line))
        players = _field(setup, "players", int, line)
        teams = _field(setup, "teams", int, line)
        options = Options.from_json(setup.get("options", {}))
        colours = tuple(setup.get("colours") or edition.colours[:teams])
        first = setup.get("first_player", 0)
        if not isinstance(first, int):
            raise RecordError(f"line {line}: 'first_player' must be int")
        layout = None
        if "layout_text" in setup:
            layout = parse_layout(_field(setup, "layout_text", str, line), "setup layout",
                                  symbols=edition.board_symbols(), copies=edition.copies_on_board)
        ref = Referee(edition, players, teams, options, layout, colours, first)
        game = None
        if "seed" in setup:
            seed = setup["seed"]
            if not isinstance(seed, int):
                raise RecordError(f"line {line}: 'seed' must be int")
            game = Game(edition, players, teams, options, random.Random(seed), layout=layout,
                        first_player=first)
        return ref, game
    except RecordError:
        raise
    except (EngineError, TypeError, ValueError) as exc:
        raise RecordError(f"line {line}: bad setup: {exc}") from None


def replay(parsed: ParsedRecord, with_cells: bool = False) -> ReplayResult:
    """Re-check every line of a board-game record; report each step and the result
    (``with_cells``: each step carries the board after it, for step-by-step display)."""
    setup = parsed.entries[0]
    if setup.get("game", "board") != "board":
        raise RecordError(f"line 1: not a board-game record (game {setup.get('game')!r})")
    ref, game = start_from_setup(setup, parsed.lines[0])
    rows, cols = ref.layout.rows, ref.layout.cols
    steps: list[Step] = []
    pending: Verdict | None = None   # verdict computed for the last observation
    pending_line = 0
    all_ok = True
    game_moves: list[tuple[Move, bool]] = []

    def fail(line: int, kind: str, text: str) -> None:
        nonlocal all_ok
        all_ok = False
        steps.append(Step(line, kind, False, text))

    for entry, line in zip(parsed.entries[1:], parsed.lines[1:]):
        t = entry["type"]
        if with_cells and steps and steps[-1].cells is None:
            steps[-1].cells = list(ref.board.cells)
        try:
            if t == "observation":
                obs = Observation.from_json(entry)
                pending = ref.observe(obs)
                pending_line = line
                if pending.kind == "takeback" and game is not None and game_moves:
                    game_moves.pop()
                    game = _rebuild(setup, game_moves)
            elif t == "verdict":
                recorded = Verdict.from_json(entry, rows, cols)
                if pending is None:
                    fail(line, "verdict", "verdict without an observation before it")
                    continue
                same = pending.same_as(recorded)
                text = pending.message if same else \
                    f"recorded '{recorded.message or recorded.kind}' but the rules say '{pending.message}'"
                steps.append(Step(pending_line, pending.kind, same, text, pending.to_json(cols)))
                all_ok &= same
                pending = None
            elif t == "move":
                move = Move.from_json(entry, rows, cols)
                draw = entry.get("draw", True) is not False
                via = entry.get("via", "engine")
                if via != "observation":
                    v = ref.apply(move)
                    ok = v.kind != "violation"
                    steps.append(Step(line, "move", ok, f"{move.text(cols)}: {v.message}", v.to_json(cols)))
                    all_ok &= ok
                if game is not None:
                    if move.action in ("place", "remove") and move.card is None:
                        fail(line, "move", "a full-information record needs the card of every move")
                        continue
                    game.check(move)
                    game.push(move, draw=draw)
                    game_moves.append((move, draw))
                    if via == "observation":
                        steps.append(Step(line, "move", True, f"{move.text(cols)}: card checked"))
                    elif not draw:
                        ref.note_lost_draw()
            elif t == "event":
                ev = entry.get("event")
                if ev not in EVENTS:
                    raise RecordError(f"line {line}: unknown event {ev!r}")
                if ev == "undo":
                    v = ref.undo()
                    if game is not None and game_moves:
                        game_moves.pop()
                        game = _rebuild(setup, game_moves)
                    steps.append(Step(line, "undo", v is not None,
                                      v.message if v else "nothing to undo"))
                elif ev == "reject":
                    # A legal-looking placement that was not the computer's chosen move: the
                    # referee takes it back; the full game never saw it.
                    v = ref.undo()
                    steps.append(Step(line, "reject", v is not None,
                                      entry.get("text", "placement rejected")))
                elif ev == "lost_draw":
                    ref.note_lost_draw()
                    steps.append(Step(line, "lost_draw", True, "last draw marked lost"))
                elif ev == "dead_card":
                    ref.note_dead_card(entry.get("card"))
                    steps.append(Step(line, "dead_card", True, f"dead card {entry.get('card')} traded"))
                elif ev == "table_talk":
                    team = entry.get("team")
                    if not isinstance(team, int) or not 0 <= team < ref.n_teams:
                        raise RecordError(f"line {line}: table_talk needs a valid 'team'")
                    ref.note_table_talk(team)
                    steps.append(Step(line, "table_talk", True, f"table talk: team {team + 1} discards"))
            elif t == "edit":
                changed = apply_edit(ref, entry, line)
                steps.append(Step(line, "edit", True, f"{entry.get('reason') or 'position edit'}: "
                                  f"{', '.join(changed) or 'nothing'} changed"))
            elif t == "end":
                winner = entry.get("winner")
                ok = winner == ref.winner and (game is None or game.winner == winner)
                steps.append(Step(line, "end", ok, f"recorded winner {winner}, rules say {ref.winner}"))
                all_ok &= ok
            elif t == "setup":
                raise RecordError(f"line {line}: a second setup line")
        except RecordError as exc:
            msg = str(exc)
            raise RecordError(msg if msg.startswith("line ") else f"line {line}: {msg}") from None
        except EngineError as exc:
            fail(line, t, f"illegal: {exc}")
    if with_cells and steps and steps[-1].cells is None:
        steps[-1].cells = list(ref.board.cells)
    if ref.over:
        result = f"{ref.colour_name(ref.winner)} (team {ref.winner + 1}) wins" \
            if ref.winner is not None else "drawn"
    elif game is not None and game.over:
        result = game.result_text()
    else:
        result = "unfinished"
    return ReplayResult(steps, ref.winner, ref.over or bool(game and game.over), result,
                        parsed.stopped, all_ok, ref, game)


def apply_edit(ref: Referee, entry: dict, line: int = 0) -> list[str]:
    """Set the referee's board to an ``edit`` line's ``board`` (rows as in observation
    lines; ``?`` and ``W`` keep what the board has); the names of the spaces changed.
    (A minimal reader of the line the app writes when a person takes the board as it
    stands; the turn does not change.)"""
    try:
        obs = Observation.from_json(entry)
    except EngineError as exc:
        raise RecordError(f"line {line}: bad edit board: {exc}") from None
    if (obs.rows, obs.cols) != (ref.layout.rows, ref.layout.cols):
        raise RecordError(f"line {line}: edit board is {obs.rows} x {obs.cols}")
    board = ref.board
    changed = []
    for i, st in enumerate(obs.states):
        c = board.cells[i]
        if c < 0 or not (st.value == "." or st.value in ref.colours):
            continue
        want = 0 if st.value == "." else ref.colours.index(st.value) + 1
        if want != c:
            if c > 0:
                board.remove(i)
            if want > 0:
                board.place(i, want - 1)
            changed.append(ref.layout.space_name(i))
    return changed


def _rebuild(setup: dict, moves: list[tuple[Move, bool]]) -> Game:
    _, game = start_from_setup(setup)
    assert game is not None
    for m, draw in moves:
        game.push(m, draw=draw)
    return game


def record_simulated_game(edition: str = "classic", n_players: int = 2, seed: int = 0,
                          kinds: tuple[str, ...] = ("random", "random"),
                          options: Options | None = None, n_teams: int | None = None,
                          max_turns: int = 2000) -> tuple[Game, list[dict]]:
    """Play computer players against each other and return the game and its record entries."""
    from .players import make_player
    options = options or Options()
    game = Game(edition, n_players, n_teams, options, random.Random(seed))
    players = [make_player(kinds[p % len(kinds)], random.Random(seed * 1000 + p + 1))
               for p in range(n_players)]
    entries = [setup_entry(edition=game.edition.name, players=n_players, teams=game.n_teams,
                           colours=list(game.edition.colours[:game.n_teams]), options=options,
                           seed=seed, mode="simulation")]
    cols = game.layout.cols
    while not game.over and len(game.history) < max_turns:
        p = game.current
        move = players[p].choose(game)
        game.push(move)
        entries.append(move_entry(len(game.history), p, move, cols))
    entries.append(end_entry(game.winner, game.end_reason or "unfinished", list(game.board.counts)))
    return game, entries
