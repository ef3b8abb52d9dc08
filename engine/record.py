"""Game records: one JSON object a line, written as the game goes, replayable exactly.

The line types and their fields are documented in ``docs/game-record.md``. This module
builds entries, parses record text (a record cut off mid-line by a power failure parses up
to its last whole line and says where it stopped) and replays a record through the
referee, and through a full-information :class:`Game` when the record holds the deck seed.
File I/O belongs to the app; the engine only turns text into entries and back.
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass, field
from itertools import accumulate

from .board import FREE
from .editions import Options, get_edition
from .errors import EngineError, RecordError
from .game import Game
from .layout import parse_layout, parse_space, space_name
from .moves import Move, Verdict
from .observation import Observation
from .referee import Referee

#: Record format version written now; every version from 1 up to it replays.
#: 2 added: ``sequences`` on moves and verdicts, ``moves`` on the end line, ``edit`` lines,
#: and the optional ``t`` / ``frame`` / ``caught_up`` keys of observations and verdicts.
VERSION = 2
BOARD_TYPES = ("setup", "move", "observation", "verdict", "event", "end", "edit")
STACKS_TYPES = ("setup", "action", "event", "end")
TYPES = tuple(dict.fromkeys(BOARD_TYPES + STACKS_TYPES))
EVENTS = ("lost_draw", "dead_card", "table_talk", "undo", "reject", "confirm", "note", "five",
          "card")
#: what the referee said, kept in the record as ``note`` events with a ``notice`` (a note
#: of another notice, from a newer writer, replays as a plain note)
NOTICES = ("waiting", "caught_up")
#: how a card laid on a pile was known (``card`` events)
CARD_VIA = ("camera", "typed", "page", "nfc")

#: Limits on what a record may hold: a longer line or a deeper one is refused with its
#: number before it is parsed (a 10 x 10 observation line is about 1 KB).
MAX_LINE_CHARS = 1_000_000
MAX_DEPTH = 32
#: The largest record file read (checked before and while reading).
MAX_RECORD_BYTES = 64 * 1024 * 1024


def dumps(entry: dict) -> str:
    """One record line (no newline): compact, keys in a stable order."""
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(raw: str) -> int:
    """How deeply ``raw`` (one JSON text) nests arrays and objects, without parsing it."""
    if raw.count("[") + raw.count("{") <= MAX_DEPTH:
        return 0 if "[" not in raw and "{" not in raw else 1
    brackets = [c for c in _STRINGS.sub("", raw) if c in _DEPTH_STEP]
    return max(accumulate(_DEPTH_STEP[c] for c in brackets), default=0)


def loads_line(raw: str, where: str) -> object:
    """One JSON line, its length and nesting checked first; RecordError names ``where``."""
    if len(raw) > MAX_LINE_CHARS:
        raise RecordError(f"{where}: longer than {MAX_LINE_CHARS:,} characters")
    if json_depth(raw) > MAX_DEPTH:
        raise RecordError(f"{where}: nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw)
    except RecursionError:
        raise RecordError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:      # e.g. a number of more digits than Python converts
        raise RecordError(f"{where}: {str(exc).split(';')[0]}") from None


@dataclass
class ParsedRecord:
    entries: list[dict]
    #: Where reading stopped early, in words (a line cut off mid-way), or None.
    stopped: str | None = None
    #: 1-based line number of each entry.
    lines: list[int] = field(default_factory=list)
    #: The name the record was read under (a file name), for messages.
    source: str = "record"


def parse_record(text: str, source: str = "record") -> ParsedRecord:
    """Parse record text; reject malformed lines with their number and the reason.

    Only the very last line may be incomplete (no newline and not whole JSON): that is a
    record cut off by a power failure, and reading stops before it. Each line is checked
    for length and nesting before it is parsed (:data:`MAX_LINE_CHARS`, :data:`MAX_DEPTH`).
    """
    entries: list[dict] = []
    numbers: list[int] = []
    stopped = None
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"{source}: larger than {MAX_RECORD_BYTES // 2**20} MB, not read")
    raw_lines = text.split("\n")
    last = len(raw_lines)
    for n, raw in enumerate(raw_lines, 1):
        if not raw.strip():
            continue
        try:
            obj = loads_line(raw, f"{source} line {n}")
        except json.JSONDecodeError as exc:
            if n == last:  # no newline after it: cut off while being written
                stopped = f"{source} line {n}: cut off mid-line; replayed up to line {n - 1}"
                break
            raise RecordError(f"{source} line {n}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict) or obj.get("type") not in TYPES:
            what = obj.get("type") if isinstance(obj, dict) else None
            raise RecordError(f"{source} line {n}: " + (
                f"unknown line type {what!r}" if isinstance(what, str) else
                "expected an object with a 'type' of " + ", ".join(TYPES)))
        entries.append(obj)
        numbers.append(n)
    if not entries:
        raise RecordError(f"{source}: empty record")
    if entries[0]["type"] != "setup":
        raise RecordError(f"{source} line {numbers[0]}: the first line must be the setup")
    return ParsedRecord(entries, stopped, numbers, source)


def check_version(setup: dict, line: int = 1) -> int:
    """The setup's format version; RecordError unless it is one this code reads."""
    v = setup.get("version")
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError(f"line {line}: 'version' must be a whole number (1 to {VERSION})")
    if not 1 <= v <= VERSION:
        raise RecordError(f"line {line}: record format version {v} is not known "
                          f"(this seqboard reads 1 to {VERSION})")
    return v


def setup_entry(*, edition: str, players: int, teams: int, colours: list[str],
                options: Options, first_player: int = 0, seed: int | None = None,
                layout_text: str | None = None, names: list[str] | None = None,
                mode: str = "referee", computers: list[tuple[int, str]] | None = None,
                computer_seed: int | None = None, judge_cards: bool = False) -> dict:
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
    if judge_cards:
        d["judge_cards"] = True
    return d


def card_entry(card: str | None, seat: int | None, via: str, v: Verdict, cols: int) -> dict:
    """A ``card`` event: a new card seen laid on a discard pile (``card`` None: seen but not
    read), and the referee's verdict on it (a waiting chip judged, or waiting for its chip)."""
    d = {"type": "event", "event": "card", "card": card, "via": via,
         "verdict": {k: x for k, x in verdict_entry(v, cols).items() if k != "type"}}
    if seat is not None:
        d["seat"] = seat
    return d


def sequence_names(made, cols: int) -> list[list[str]]:
    """Sequences as the record writes them: each its spaces in board order."""
    return [[space_name(s, cols) for s in sorted(q.spaces)] for q in made]


def move_entry(n: int, player: int, move: Move, cols: int, via: str = "engine",
               draw: bool = True, made=()) -> dict:
    """A move line; ``made``: the :class:`~engine.board.Sequence` s the move made (its
    ``five``, when the players chose, is part of the move)."""
    d = {"type": "move", "n": n, "player": player, **move.to_json(cols), "via": via}
    if not draw:
        d["draw"] = False
    if made:
        d["sequences"] = sequence_names(made, cols)
    return d


def observation_entry(obs: Observation) -> dict:
    j = obs.to_json()
    return {"type": "observation", "board": j["board"], "confidence": j["confidence"]}


def verdict_entry(v: Verdict, cols: int) -> dict:
    d = {"type": "verdict", **v.to_json(cols)}
    if v.made:
        d["sequences"] = sequence_names(v.made, cols)
    return d


def five_entry(v: Verdict, cols: int) -> dict:
    """The ``five`` event: the players named the five of the sequence(s) the last placement
    made (``v``: the referee's ``choice`` verdict from :meth:`Referee.choose_five`)."""
    names = sequence_names(v.made, cols)
    return {"type": "event", "event": "five", "five": names, "sequences": names,
            "text": v.message}


def board_rows(board, colours) -> list[str]:
    """The chips on ``board`` as observation rows: ``.`` empty (or free), a team's colour."""
    cols = board.layout.cols
    text = "".join(colours[c - 1] if c > 0 else "." for c in board.cells)
    return [text[i:i + cols] for i in range(0, len(text), cols)]


def end_entry(winner: int | None, reason: str, sequences: list[int],
              moves: int | None = None, hands: list[list[str]] | None = None,
              board: list[str] | None = None) -> dict:
    """The last line: the result, each team's sequences, (``moves``) how many move lines
    are in effect (every ``move`` line, dead-card trades included, less those undone),
    (``board``) the chips at the end as :func:`board_rows` gives them and, in a game whose
    every card is known, (``hands``) the cards each player holds at the end."""
    d = {"type": "end", "winner": winner, "reason": reason, "sequences": sequences}
    if moves is not None:
        d["moves"] = moves
    if board is not None:
        d["board"] = board
    if hands is not None:
        d["hands"] = [sorted(h) for h in hands]
    return d


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
    #: The moves in effect at the end, in order: (player, move) (undone ones left out).
    moves: list[tuple[int, Move]] = field(default_factory=list)

    @property
    def refusal(self) -> str | None:
        """The first line that does not check out, in words (``line N: why``), or None."""
        for s in self.steps:
            if not s.ok:
                return f"line {s.line}: {s.text}"
        return None

    def to_json(self) -> dict:
        return {"steps": [s.to_json() for s in self.steps], "winner": self.winner,
                "over": self.over, "result": self.result, "stopped": self.stopped, "ok": self.ok,
                "refusal": self.refusal}


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _field(entry: dict, key: str, typ, line: int):
    v = entry.get(key)
    if not isinstance(v, typ) or isinstance(v, bool) and typ is int:
        raise RecordError(f"line {line}: '{key}' must be {getattr(typ, '__name__', typ)}")
    return v


def _optional(entry: dict, key: str, typ, line: int, what: str):
    """``entry[key]`` when present (it must be a ``typ``); None when absent."""
    if key not in entry:
        return None
    v = entry[key]
    if not isinstance(v, typ) or (isinstance(v, bool) and bool not in (typ if isinstance(typ, tuple) else (typ,))):
        raise RecordError(f"line {line}: '{key}' must be {what}")
    return v


def _str_list(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def start_from_setup(setup: dict, line: int = 1) -> tuple[Referee, Game | None]:
    """The referee (and full game, when the setup holds a seed) a setup line describes."""
    check_version(setup, line)
    try:
        edition = get_edition(_field(setup, "edition", str, line))
        players = _field(setup, "players", int, line)
        teams = _optional(setup, "teams", int, line, "a whole number")
        options = setup.get("options", {})
        if not isinstance(options, dict):
            raise RecordError(f"line {line}: 'options' must be an object")
        options = Options.from_json(options)
        colours = setup.get("colours")
        if colours is not None and not _str_list(colours):
            raise RecordError(f"line {line}: 'colours' must be a list like [\"B\", \"G\"]")
        colours = tuple(colours or edition.colours[:teams or edition.teams_for(players)])
        first = setup.get("first_player", 0)
        if not _is_int(first) or not 0 <= first < players:
            raise RecordError(f"line {line}: 'first_player' must be a seat from 0 to {players - 1}, "
                              f"not {first!r}")
        for key, what in (("seed", "a whole number"), ("computer_seed", "a whole number")):
            _optional(setup, key, int, line, what)
        for key in ("mode", "layout_text"):
            _optional(setup, key, str, line, "a string")
        names = setup.get("names")
        if names is not None and not _str_list(names):
            raise RecordError(f"line {line}: 'names' must be a list of strings")
        computers = setup.get("computers", [])
        if not isinstance(computers, list) or not all(
                isinstance(c, list) and len(c) == 2 and _is_int(c[0]) and 0 <= c[0] < players
                and isinstance(c[1], str) for c in computers):
            raise RecordError(f"line {line}: 'computers' must be a list of [seat, level]")
        layout = None
        if "layout_text" in setup:
            layout = parse_layout(setup["layout_text"], "setup layout",
                                  symbols=edition.board_symbols(), copies=edition.copies_on_board)
        ref = Referee(edition, players, teams, options, layout, colours, first)
        jc = setup.get("judge_cards", False)
        if not isinstance(jc, bool):
            raise RecordError(f"line {line}: 'judge_cards' must be true or false")
        ref.judge_cards = jc
        game = None
        if "seed" in setup:
            game = Game(edition, players, ref.n_teams, options, random.Random(setup["seed"]),
                        layout=layout, first_player=first)
        return ref, game
    except RecordError:
        raise
    except (EngineError, TypeError, ValueError) as exc:
        raise RecordError(f"line {line}: bad setup: {exc}") from None


_VERDICT_KINDS = ("no_change", "placement", "removal", "takeback", "choice", "violation",
                  "waiting")


def _check_timing(entry: dict, line: int) -> None:
    """The optional keys of observations, verdicts and edits: ``t`` (seconds since the
    start), ``frame`` (the camera frame or matrix snapshot number), ``caught_up``."""
    t = entry.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))
                          or isinstance(t, float) and not math.isfinite(t) or t < 0):
        raise RecordError(f"line {line}: 't' must be a number of seconds (0 or more)")
    if "frame" in entry and (not _is_int(entry["frame"]) or entry["frame"] < 0):
        raise RecordError(f"line {line}: 'frame' must be a whole number (0 or more)")
    if "caught_up" in entry and not isinstance(entry["caught_up"], bool):
        raise RecordError(f"line {line}: 'caught_up' must be true or false")


def _check_verdict_entry(e: dict, line: int) -> None:
    if e.get("kind") not in _VERDICT_KINDS:
        raise RecordError(f"line {line}: a verdict's 'kind' is one of {', '.join(_VERDICT_KINDS)}")
    if not _str_list(e.get("spaces", [])):
        raise RecordError(f"line {line}: a verdict's 'spaces' must be a list like [\"c4\"]")
    if not _str_list(e.get("cards", [])):
        raise RecordError(f"line {line}: a verdict's 'cards' must be a list of cards")
    for key in ("team", "player", "winner", "new_sequences"):
        if e.get(key) is not None and not _is_int(e[key]):
            raise RecordError(f"line {line}: a verdict's '{key}' must be a whole number")
    for key in ("rule", "text"):
        if e.get(key) is not None and not isinstance(e[key], str):
            raise RecordError(f"line {line}: a verdict's '{key}' must be a string")
    _check_timing(e, line)


class _Replay:
    """One replay of a board-game record: the referee (and the dealt game) line by line."""

    def __init__(self, parsed: ParsedRecord, with_cells: bool) -> None:
        self.parsed = parsed
        self.with_cells = with_cells
        self.setup = setup = parsed.entries[0]
        if setup.get("game", "board") != "board":
            raise RecordError(f"line {parsed.lines[0]}: not a board-game record "
                              f"(game {setup.get('game')!r})")
        self.ref, self.game = start_from_setup(setup, parsed.lines[0])
        self.version = check_version(setup, parsed.lines[0])
        self.rows, self.cols = self.ref.layout.rows, self.ref.layout.cols
        self.deck = set(self.ref.edition.deck())
        self.steps: list[Step] = []
        #: the moves in effect: (player, move, drew)
        self.played: list[tuple[int, Move, bool]] = []
        self.closed = False                 # after an end line (until an undo reopens)
        self.obs: tuple[Observation, int] | None = None     # waiting for its verdict
        self.awaiting: Verdict | None = None  # a legal move just judged, before its move line
        self.lost_draw_at = -1              # the move whose draw was last marked lost

    # --- helpers --------------------------------------------------------------------------
    def fail(self, line: int, kind: str, text: str) -> None:
        self.steps.append(Step(line, kind, False, text))

    def ok(self, line: int, kind: str, text: str, verdict: dict | None = None) -> None:
        self.steps.append(Step(line, kind, True, text, verdict))

    def space(self, name, line: int, what: str = "space") -> int:
        if not isinstance(name, str):
            raise RecordError(f"line {line}: a {what} is named like \"c4\", not {name!r}")
        try:
            return parse_space(name, self.rows, self.cols)
        except ValueError as exc:
            raise RecordError(f"line {line}: {exc}") from None

    def sequences_differ(self, entry: dict, made, line: int) -> str | None:
        """Why the ``sequences`` a line records are not ``made`` (the rules'), or None.
        Version 1 records have none to check; from version 2 no key means none made."""
        rec = entry.get("sequences")
        if rec is None:
            if self.version < 2:
                return None
            rec = []
        if not isinstance(rec, list) or not all(_str_list(q) and q for q in rec):
            raise RecordError(f"line {line}: 'sequences' must be a list of sequences, each "
                              "a list of its spaces like [\"h4\", \"h5\", \"h6\", \"h7\", \"h8\"]")
        got = sorted(sorted(self.space(n, line) for n in q) for q in rec)
        if got == sorted(sorted(q.spaces) for q in made):
            return None
        said = "; ".join("-".join((q[0], q[-1])) for q in rec) or "none"
        rules = "; ".join(q.text(self.cols) for q in made) or "none"
        return f"recorded sequences {said}, the rules make {rules}"

    def traded_this_turn(self) -> bool:
        return bool(self.played) and self.played[-1][1].action == "dead"

    def check_dead(self, card: str | None, player: int) -> str | None:
        """Why trading ``card`` as dead now breaks the rules, or None."""
        ed = self.ref.edition
        if self.traded_this_turn():
            return "only one dead card may be traded each turn"
        if card is None:
            return None if self.ref.dead_cards() else "no card is dead on the board"
        if card not in self.deck:
            return f"{card} is not a card of {ed.title}"
        if card in ed.wild_cards or card in ed.remove_cards:
            return f"{card} is never dead: it does not stand on a space"
        if card not in self.ref.dead_cards():
            free = [self.ref.layout.space_name(s) for s in self.ref.layout.spaces_of.get(card, ())
                    if self.ref.board.cells[s] == 0]
            return f"{card} is not dead: {', '.join(free)} still open"
        return None

    def check_card(self, move: Move) -> str | None:
        """Why ``move``'s card cannot make it, or None (an unknown card is never wrong)."""
        card, ed = move.card, self.ref.edition
        if move.action == "place" and move.space in self.ref.layout.free:
            return f"{self.ref.layout.space_name(move.space)} is a free corner: no chip may go there"
        if card is None:
            return None
        if card not in self.deck:
            return f"{card} is not a card of {ed.title}"
        if move.action == "remove" and card not in ed.remove_cards:
            return f"{card} cannot remove a chip (only {', '.join(sorted(ed.remove_cards))})"
        if move.action == "place":
            if card in ed.remove_cards:
                return f"{card} removes a chip; it cannot place one"
            sym = self.ref.layout.symbols[move.space]
            if card not in ed.wild_cards and card != sym:
                return f"{card} does not match {self.ref.layout.space_name(move.space)} ({sym})"
        return None

    def undo_played(self) -> None:
        """The undo button or a takeback: the last move goes, with any dead trade after it."""
        self.lost_draw_at = -1
        while self.played and self.played[-1][1].action == "dead":
            self.played.pop()
        if self.played:
            self.played.pop()
        if self.game is not None:
            self.rebuild_game()

    def rebuild_game(self) -> None:
        _, game = start_from_setup(self.setup, self.parsed.lines[0])
        for _, m, drew in self.played:
            game.push(m, draw=drew)
        self.game = game

    def next_entry(self, k: int) -> dict | None:
        es = self.parsed.entries
        return es[k + 1] if k + 1 < len(es) else None

    # --- the lines ------------------------------------------------------------------------
    def run(self) -> ReplayResult:
        ref = self.ref
        entries, lines = self.parsed.entries, self.parsed.lines
        for k in range(1, len(entries)):
            entry, line = entries[k], lines[k]
            t = entry["type"]
            if self.with_cells and self.steps and self.steps[-1].cells is None:
                self.steps[-1].cells = list(ref.board.cells)
            awaiting, self.awaiting = self.awaiting, None
            if self.obs is not None and t != "verdict":
                self.obs = None
            try:
                if t == "observation":
                    self.observation(entry, line, k)
                elif t == "verdict":
                    self.verdict(entry, line, k)
                elif t == "move":
                    self.move(entry, line, awaiting)
                elif t == "event":
                    self.event(entry, line, awaiting)
                elif t == "edit":
                    self.edit(entry, line)
                elif t == "end":
                    self.end(entry, line)
                elif t == "setup":
                    raise RecordError(f"line {line}: a second setup line")
                else:
                    raise RecordError(f"line {line}: a SEQUENCE STACKS line ({t!r}) in a "
                                      "board-game record")
            except RecordError as exc:
                msg = str(exc)
                raise RecordError(msg if msg.startswith("line ") else f"line {line}: {msg}") from None
            except EngineError as exc:
                self.fail(line, t, f"illegal: {exc}")
        if self.with_cells and self.steps and self.steps[-1].cells is None:
            self.steps[-1].cells = list(ref.board.cells)
        game = self.game
        if ref.over:
            result = f"{ref.colour_name(ref.winner)} (team {ref.winner + 1}) wins" \
                if ref.winner is not None else "drawn"
        elif game is not None and game.over:
            result = game.result_text()
        else:
            result = "unfinished"
        ok = all(s.ok for s in self.steps)
        return ReplayResult(self.steps, ref.winner, ref.over or bool(game and game.over), result,
                            self.parsed.stopped, ok, ref, game,
                            [(p, m) for p, m, _ in self.played])

    def observation(self, entry: dict, line: int, k: int) -> None:
        _check_timing(entry, line)
        board = entry.get("board")
        if not _str_list(board):
            raise RecordError(f"line {line}: an observation's 'board' must be a list of rows")
        try:
            obs = Observation.from_json(entry)
        except EngineError as exc:
            raise RecordError(f"line {line}: {exc}") from None
        if (obs.rows, obs.cols) != (self.rows, self.cols):
            raise RecordError(f"line {line}: the observation is {obs.rows} x {obs.cols}, "
                              f"the board {self.rows} x {self.cols}")
        nxt = self.next_entry(k)
        if nxt is None and self.parsed.stopped:
            self.ok(line, "observation", "cut off before its verdict: not judged")
            return
        if nxt is None or nxt.get("type") != "verdict":
            self.fail(line, "observation", "no verdict line after this observation: it was "
                                           "never judged")
            return
        self.obs = (obs, line)

    def verdict(self, entry: dict, line: int, k: int) -> None:
        _check_verdict_entry(entry, line)
        if self.obs is None:
            self.fail(line, "verdict", "a verdict with no observation just before it")
            return
        obs, _ = self.obs
        self.obs = None
        recorded = Verdict.from_json(entry, self.rows, self.cols)
        ref = self.ref
        v = ref.observe(obs)
        same = v.same_as(recorded)
        seq_why = self.sequences_differ(entry, v.made, line) if same else None
        if same and seq_why is None:
            self.ok(line, v.kind, v.message, v.to_json(self.cols))
        else:
            said = recorded.message or recorded.kind
            self.steps.append(Step(line, v.kind, False, seq_why or
                                   f"recorded '{said}' but the rules say '{v.message}'",
                                   v.to_json(self.cols)))
        if v.kind == "choice":
            chosen = tuple(q.spaces for q in v.made)
            if self.played:
                p, m, drew = self.played[-1]
                self.played[-1] = (p, Move(m.action, m.card, m.space, chosen), drew)
            if self.game is not None:
                self.game.rechoose(chosen)
        elif v.kind == "takeback":
            self.undo_played()
            self.closed = False
        elif v.is_move:
            self.played.append((v.player, Move("place" if v.kind == "placement" else "remove",
                                               None, v.spaces[0]), True))
            self.awaiting = v
            nxt = self.next_entry(k)
            named = nxt is not None and (
                nxt.get("type") == "move" and nxt.get("via") == "observation"
                or nxt.get("type") == "event" and nxt.get("event") == "reject")
            if self.game is not None and not named and not (nxt is None and self.parsed.stopped):
                self.fail(line, "verdict", "no move line after this move: a record "
                                           "with a seed gives the card of every move")

    def move(self, entry: dict, line: int, awaiting: Verdict | None) -> None:
        ref, game = self.ref, self.game
        via = entry.get("via", "engine")
        if via not in ("engine", "observation"):
            raise RecordError(f"line {line}: 'via' is \"engine\" or \"observation\", not {via!r}")
        action = entry.get("action")
        if action == "dead" and entry.get("card") is None:
            move = Move("dead", None)
        else:
            move = Move.from_json(entry, self.rows, self.cols)
        player, n = entry.get("player"), entry.get("n")
        if not _is_int(player):
            raise RecordError(f"line {line}: a move's 'player' must be a seat number")
        if n is not None and not _is_int(n):
            raise RecordError(f"line {line}: a move's 'n' must be a whole number")
        draw = entry.get("draw", True)
        if not isinstance(draw, bool):
            raise RecordError(f"line {line}: 'draw' must be true or false")
        text = move.text(self.cols)
        if self.closed:
            self.fail(line, "move", f"{text}: a move after the end line")
            return
        if via == "observation":
            self.observed_move(entry, move, player, n, line, awaiting)
            return
        if player != ref.current:
            self.fail(line, "move", f"{text}: the record says player {player}, but it is "
                                    f"player {ref.current}'s turn")
            return
        why = self.check_dead(move.card, player) if move.action == "dead" else \
            None if move.action in ("pass", "unseen") else self.check_card(move)
        if why is None and move.action not in ("dead", "pass", "unseen") \
                and not 0 <= (move.space or 0) < ref.layout.size:
            why = "the move needs a space on the board"
        if why is None and game is not None:
            if move.action in ("place", "remove", "dead") and move.card is None:
                why = "a record with a seed needs the card of every move"
            else:
                try:
                    game.check(move)
                except EngineError as exc:
                    why = str(exc)
        if why is not None:
            self.fail(line, "move", f"{text}: illegal: {why}")
            return
        v = ref.apply(move)
        if v.kind == "violation":
            self.fail(line, "move", f"{text}: {v.message}")
            return
        self.played.append((player, move, draw))
        if game is not None:
            game.push(move, draw=draw)
        if not draw and move.action in ("place", "remove"):
            ref.note_lost_draw()
        why = self.sequences_differ(entry, v.made, line)
        if why is None and n is not None and n not in (len(self.played), len(ref.moves)):
            why = f"numbered {n}, but it is move {len(self.played)}"
        if why is not None:
            self.fail(line, "move", f"{text}: {why}")
        else:
            self.ok(line, "move", f"{text}: {v.message}", v.to_json(self.cols))

    def observed_move(self, entry: dict, move: Move, player: int, n, line: int,
                      awaiting: Verdict | None) -> None:
        """The move line after a verdict that recognised a move: it names the card."""
        text = move.text(self.cols)
        if awaiting is None:
            self.fail(line, "move", f"{text}: a move 'via observation' must follow the verdict "
                                    "that saw it")
            return
        kind = "place" if awaiting.kind == "placement" else "remove"
        if (move.action, move.space, player) != (kind, awaiting.spaces[0], awaiting.player):
            self.fail(line, "move", f"{text}: not the move the verdict before it saw")
            return
        why = self.check_card(move)
        if why is None and self.ref.judge_cards and self.ref.moves \
                and move.card != self.ref.moves[-1][1].card:
            why = f"the card laid was {self.ref.moves[-1][1].card or 'not read'}"
        made = tuple(q.spaces for q in awaiting.made)
        if why is None and move.five and not set(move.five) <= set(made):
            why = "'five' is not the five the verdict before it saw"
        if why is None and "sequences" in entry:   # the verdict before it holds them
            why = self.sequences_differ(entry, awaiting.made, line)
        if why is None and n is not None and n not in (len(self.played), len(self.ref.moves)):
            why = f"numbered {n}, but it is move {len(self.played)}"
        # the full game takes the five the referee saw (white chips may have shown them)
        move = Move(move.action, move.card, move.space, made)
        if why is None and self.game is not None:
            if move.card is None:
                why = "a record with a seed needs the card of every move"
            else:
                try:
                    self.game.check(move)
                except EngineError as exc:
                    why = str(exc)
        if why is not None:
            self.fail(line, "move", f"{text}: illegal: {why}")
            return
        self.played[-1] = (player, move, True)
        if self.game is not None:
            self.game.push(move)
        self.ok(line, "move", f"{text}: card checked")

    def event(self, entry: dict, line: int, awaiting: Verdict | None) -> None:
        ref = self.ref
        ev = entry.get("event")
        if ev not in EVENTS:
            raise RecordError(f"line {line}: unknown event {ev!r}")
        for key in ("text", "card"):
            if entry.get(key) is not None and not isinstance(entry[key], str):
                raise RecordError(f"line {line}: an event's '{key}' must be a string")
        if ev == "note":
            self.ok(line, self.note_kind(entry, line), str(entry.get("text", ev)))
            return
        if ev == "confirm":
            self.ok(line, ev, str(entry.get("text", ev)))
            return
        if ev == "undo":
            v = ref.undo()
            if v is None:
                self.fail(line, "undo", "undo with nothing to undo")
                return
            self.undo_played()
            self.closed = False
            self.ok(line, "undo", v.message)
            return
        if self.closed:
            self.fail(line, ev, f"{ev} after the end line")
            return
        if ev == "reject":
            # A legal-looking placement that was not the computer's chosen move: the
            # referee takes it back; the full game never saw it.
            if awaiting is None:
                self.fail(line, "reject", "a reject must follow the verdict of the move it rejects")
                return
            ref.undo()
            self.played.pop()
            self.ok(line, "reject", str(entry.get("text", "placement rejected")))
        elif ev == "lost_draw":
            if not ref.moves:
                self.fail(line, "lost_draw", "a lost draw before any move")
                return
            if self.lost_draw_at == len(ref.moves):
                self.fail(line, "lost_draw", "the last move's draw is already marked lost")
                return
            self.lost_draw_at = len(ref.moves)
            ref.note_lost_draw()
            self.ok(line, "lost_draw", "last draw marked lost")
        elif ev == "dead_card":
            card = entry.get("card")
            why = self.check_dead(card, ref.current)
            if why is None and self.game is not None:
                why = "a record with a seed gives dead-card trades as move lines"
            if why is not None:
                self.fail(line, "dead_card", f"dead card {card}: illegal: {why}")
                return
            ref.note_dead_card(card)
            self.played.append((ref.current, Move("dead", card), True))
            self.ok(line, "dead_card", f"dead card {card} traded")
        elif ev == "five":
            self.five_event(entry, line)
        elif ev == "card":
            self.card_event(entry, line)
        elif ev == "table_talk":
            team = entry.get("team")
            if not _is_int(team) or not 0 <= team < ref.n_teams:
                raise RecordError(f"line {line}: table_talk needs a valid 'team'")
            if not ref.options.table_talk_penalty:
                self.fail(line, "table_talk", "the table-talk penalty is not in use in this game")
                return
            ref.note_table_talk(team)
            self.ok(line, "table_talk", f"table talk: team {team + 1} discards")

    def note_kind(self, entry: dict, line: int) -> str:
        """A note's step kind: what the referee said (``notice``: ``waiting``, the notice
        that chips have long waited unjudged; ``caught_up``, moves it caught up), else
        ``note``. Its ``spaces``, ``t`` and ``frame`` are checked; nothing is applied."""
        notice = entry.get("notice")
        if notice is not None and not isinstance(notice, str):
            raise RecordError(f"line {line}: a note's 'notice' must be a string")
        if "spaces" in entry:
            if not isinstance(entry["spaces"], list):
                raise RecordError(f"line {line}: a note's 'spaces' must be a list like [\"c4\"]")
            for name in entry["spaces"]:
                self.space(name, line)
        _check_timing(entry, line)
        return notice if notice in NOTICES else "note"

    def card_event(self, entry: dict, line: int) -> None:
        """A card seen laid on a pile (issue 24): the referee judges again what it judged."""
        ref = self.ref
        card, seat, via = entry.get("card"), entry.get("seat"), entry.get("via", "camera")
        if seat is not None and not (_is_int(seat) and 0 <= seat < ref.n_players):
            raise RecordError(f"line {line}: a card event's 'seat' must be a seat from 0 to "
                              f"{ref.n_players - 1}")
        if via not in CARD_VIA:
            raise RecordError(f"line {line}: a card event's 'via' is one of {', '.join(CARD_VIA)}")
        rec = entry.get("verdict")
        if not isinstance(rec, dict):
            raise RecordError(f"line {line}: a card event needs its 'verdict'")
        _check_verdict_entry(rec, line)
        if not ref.judge_cards:
            self.fail(line, "card", "a card event in a game that does not judge with cards "
                                    "(no 'judge_cards' in the setup)")
            return
        was, prev = ref.dead_traded, ref.card_laid
        v = ref.lay_card(card, seat)        # EngineError: not a card of this edition
        if not was and ref.dead_traded:
            self.played.append((ref.current, Move("dead", None if prev == "?" else prev), True))
        recorded = Verdict.from_json(rec, self.rows, self.cols)
        if not v.same_as(recorded):
            said = recorded.message or recorded.kind
            self.steps.append(Step(line, "card", False,
                                   f"recorded '{said}' but the rules say '{v.message}'",
                                   v.to_json(self.cols)))
        else:
            self.ok(line, "card", v.message, v.to_json(self.cols))
        if v.is_move:
            self.played.append((v.player, Move("place" if v.kind == "placement" else "remove",
                                               None, v.spaces[0]), True))
            self.awaiting = v

    def five_event(self, entry: dict, line: int) -> None:
        """The team of the last placement named its five (typed in, or the page)."""
        five = entry.get("five")
        if not isinstance(five, list) or not five or not all(_str_list(f) and f for f in five):
            raise RecordError(f"line {line}: a five event's 'five' must be a list of sets of "
                              "spaces like [[\"c2\", \"d2\", \"e2\", \"f2\", \"g2\"]]")
        chosen = tuple(tuple(sorted(self.space(n, line) for n in f)) for f in five)
        v = self.ref.choose_five(chosen)          # EngineError: not a choice it had
        made = tuple(q.spaces for q in v.made)
        if self.played:
            p, m, drew = self.played[-1]
            self.played[-1] = (p, Move(m.action, m.card, m.space, made), drew)
        if self.game is not None:
            self.game.rechoose(made)
        why = self.sequences_differ(entry, v.made, line)
        if why is not None:
            self.fail(line, "five", why)
        else:
            self.ok(line, "five", v.message, v.to_json(self.cols))

    def edit(self, entry: dict, line: int) -> None:
        """A person took the board as it stands: the referee's board becomes ``board``."""
        _check_timing(entry, line)
        ref = self.ref
        rows = entry.get("board")
        if not _str_list(rows) or len(rows) != self.rows:
            raise RecordError(f"line {line}: an edit's 'board' must be a list of {self.rows} rows")
        allowed = {".": 0, "?": None, "W": None, **{c: t + 1 for t, c in enumerate(ref.colours)}}
        cells: list[int | None] = []
        for r, row in enumerate(rows, 1):
            row = row.replace(" ", "")
            if len(row) != self.cols:
                raise RecordError(f"line {line}: edit row {r} has {len(row)} spaces, "
                                  f"expected {self.cols}")
            for ch in row:
                if ch not in allowed:
                    raise RecordError(f"line {line}: edit row {r}: {ch!r} is not one of "
                                      f"{', '.join(allowed)}")
                cells.append(allowed[ch])
        changed = entry.get("changed")
        if not _str_list(changed):
            raise RecordError(f"line {line}: an edit's 'changed' must be a list like [\"e5\"]")
        named = [self.space(s, line) for s in changed]
        if "reason" in entry and not isinstance(entry["reason"], str):
            raise RecordError(f"line {line}: an edit's 'reason' must be a string")
        if self.closed:
            self.fail(line, "edit", "an edit after the end line")
            return
        free = [ref.layout.space_name(s) for s in sorted(ref.layout.free) if cells[s]]
        if free:
            self.fail(line, "edit", f"a chip on the free corner {', '.join(free)}")
            return
        old = [max(c, 0) for c in ref.board.cells]
        diff = [s for s in range(len(cells)) if cells[s] is not None and cells[s] != old[s]]
        if len(set(named)) != len(named) or sorted(named) != diff:
            self.fail(line, "edit", "'changed' names " + (", ".join(changed) or "nothing") +
                      ", the board differs at " +
                      (", ".join(ref.layout.space_name(s) for s in diff) or "no space"))
            return
        unseen = entry.get("unseen")
        if unseen is not None and not (_is_int(unseen) and len(named) == 1):
            raise RecordError(f"line {line}: an edit's 'unseen' must be the number of the "
                              f"move its one changed space completes")
        set_board(ref.board, cells)
        if self.game is not None:
            set_board(self.game.board, cells)
        if unseen is not None:
            # the chip of a move applied as unseen shows: that move was this placement
            try:
                ref.complete_unseen(unseen, named[0])
            except EngineError as exc:
                self.fail(line, "edit", f"'unseen' names move {unseen}: {exc}")
                return
        won = ref.check_win()
        if won is not None and self.game is not None and not self.game.over:
            self.game.winner, self.game.over = won, True
        reason = entry.get("reason")
        if unseen is not None:
            self.ok(line, "edit", f"move {unseen}, not seen then, shows on {changed[0]}: "
                                  f"its chip is put on the board")
            return
        self.ok(line, "edit", "board taken as it stands" + (f" ({reason})" if reason else "") +
                ": " + (", ".join(changed) or "nothing") + " changed")

    def end(self, entry: dict, line: int) -> None:
        ref, game = self.ref, self.game
        winner = entry.get("winner")
        if winner is not None and not (_is_int(winner) and 0 <= winner < ref.n_teams):
            raise RecordError(f"line {line}: 'winner' must be a team from 0 to "
                              f"{ref.n_teams - 1}, or null")
        seqs, moves = entry.get("sequences"), entry.get("moves")
        if seqs is not None and not (isinstance(seqs, list) and all(_is_int(x) for x in seqs)):
            raise RecordError(f"line {line}: 'sequences' must be a list of whole numbers")
        if moves is not None and not _is_int(moves):
            raise RecordError(f"line {line}: 'moves' must be a whole number")
        board = entry.get("board")
        if board is not None and not _str_list(board):
            raise RecordError(f"line {line}: 'board' must be a list of rows")
        hands = entry.get("hands")
        if hands is not None and not (isinstance(hands, list) and len(hands) == ref.n_players
                                      and all(_str_list(h) for h in hands)):
            raise RecordError(f"line {line}: 'hands' must be a list of each player's cards")
        if self.closed:
            self.fail(line, "end", "a second end line")
            return
        self.closed = True
        rules = ref.winner if ref.over else (game.winner if game is not None else None)
        problems = []
        if winner != rules or (game is not None and game.over and game.winner != winner):
            problems.append(f"recorded winner {winner}, the rules say {rules}")
        if seqs is not None and seqs != list(ref.board.counts):
            problems.append(f"recorded sequences {seqs}, the rules say {list(ref.board.counts)}")
        if moves is not None and moves != len(self.played):
            problems.append(f"recorded {moves} moves, the record holds {len(self.played)}")
        if board is not None and [r.replace(" ", "") for r in board] != \
                board_rows(ref.board, ref.colours):
            problems.append("the board recorded is not the board the moves leave")
        if hands is not None:
            if game is None:
                problems.append("'hands' in a record without a seed: no hand can be checked")
            elif [sorted(h) for h in hands] != [sorted(h) for h in game.hands]:
                problems.append("the hands recorded are not the hands the deal and the moves give")
        if problems:
            self.fail(line, "end", "; ".join(problems))
        else:
            self.ok(line, "end", f"result checked: winner {winner}")


def set_board(board, cells: list[int | None]) -> None:
    """Make ``board`` hold ``cells`` (0 empty, ``team + 1`` a chip, None as it is; free
    corners kept), space by space in board order as the session's "take the board as it
    stands" does: a chip taken off breaks the sequences it was in, a chip put on is placed
    as the rules place chips (a line it completes is a sequence, the default five)."""
    for s, c in enumerate(cells):
        old = board.cells[s]
        if c is None or old == FREE or old == c:
            continue
        if old > 0:
            board.remove(s)
        if c > 0:
            board.place(s, c - 1)


def replay(parsed: ParsedRecord, with_cells: bool = False) -> ReplayResult:
    """Re-check every line of a board-game record; report each step and the result
    (``with_cells``: each step carries the board after it, for step-by-step display).

    Malformed lines raise :class:`RecordError` naming the line; lines that break the
    rules or disagree with them are steps with ``ok`` false (``ReplayResult.refusal``).
    """
    return _Replay(parsed, with_cells).run()


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
        gained = game.push(move)
        made = game.board.sequences[-gained:] if gained else ()
        entries.append(move_entry(len(game.history), p, move, cols, made=made))
    entries.append(end_entry(game.winner, game.end_reason or "unfinished", list(game.board.counts),
                             moves=len(game.history), hands=game.hands,
                             board=board_rows(game.board, game.edition.colours)))
    return game, entries
