"""A structure-aware fuzz of game records: real recorded games, one line dropped,
duplicated, swapped or one field changed; each result either replays to exactly the same
game or is refused naming its line, never a traceback, never another game accepted.

"The same game" is what the record proves (docs/game-record.md, "What replay proves"):

* with a seed (every card known): every move with its player and card, dead-card trades
  included, the board at the end and the result;
* without a seed (a refereed game, the cards in people's hands): every placement, removal
  and pass with its player and space, the board at the end and the result. The cards such
  a record names are the players' word: replay checks that each fits (the card matches the
  space, a dead card is dead, one trade a turn) but no record can tell one fitting card
  from another, nor prove a dead-card trade that happened, so those are not compared.

The run in CI is kept short (``SEQBOARD_FUZZ_EXAMPLES``, default 1000, sets the number of
mutated records; e.g. ``SEQBOARD_FUZZ_EXAMPLES=20000`` for a deep run).
"""

from __future__ import annotations

import copy
import os
import random
import re
import tempfile
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import RecordError
from engine.game import Game
from engine.observation import Observation, SpaceState
from engine.players import make_player
from engine.record import dumps, parse_record, record_simulated_game, replay
from engine.referee import Referee
from seqboard.recorder import RecordWriter
from seqboard.session import Session

EXAMPLES = int(os.environ.get("SEQBOARD_FUZZ_EXAMPLES", "1000"))


def _obs(game: Game, colours=("B", "G", "R"), extra: dict[int, str] | None = None) -> Observation:
    states = [SpaceState(colours[c - 1]) if c > 0 else SpaceState.EMPTY for c in game.board.cells]
    for i, c in (extra or {}).items():
        states[i] = SpaceState(c)
    return Observation(game.layout.rows, game.layout.cols, tuple(states))


def refereed_record(seed: int, dealt: bool) -> list[dict]:
    """A game refereed from observations through a real Session and RecordWriter, with the
    mishaps of a real table: two chips at once (then put right), a chip lifted again (a
    takeback) and the undo button. ``dealt``: the Pi deals (the demo): the record has a
    seed, and every move its card."""
    rng = random.Random(seed)
    table = Game("classic", 2, rng=random.Random(seed))    # what happens at the table
    players = [make_player("random", random.Random(seed * 7 + p)) for p in range(2)]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "g.jsonl"
        writer = RecordWriter(path)
        ref = Referee("classic", 2)
        s = Session(ref, recorder=writer, mode="demo" if dealt else "referee",
                    game=Game("classic", 2, rng=random.Random(seed)) if dealt else None,
                    seed=seed if dealt else None)
        while not table.over and len(table.history) < 400:
            move = players[table.current].choose(table)
            if move.action == "dead":
                table.push(move)
                s.dead_card(move.card)
                continue
            if move.action == "pass":
                table.push(move)
                s.pass_turn()
                continue
            before = _obs(table)
            chips = [i for i, c in enumerate(table.board.cells)
                     if c > 0 and not table.board.is_locked(i)]
            if chips and rng.random() < 0.04:
                # a chip knocked off and the board taken as it stands, then put back the same
                # way (two edit lines; the session is not told, as nothing changes in the end)
                i = rng.choice(chips)
                name = table.layout.space_name(i)
                rows = "".join(str(before).split())
                knocked = rows[:i] + "." + rows[i + 1:]
                for b in (knocked, rows):
                    writer.write({"type": "edit", "board": [b[r * 10:(r + 1) * 10] for r in range(10)],
                                  "changed": [name], "reason": "a chip knocked off"})
            if rng.random() < 0.08:
                empty = [i for i, c in enumerate(table.board.cells) if c == 0]
                s.observe(_obs(table, extra={rng.choice(empty): "BG"[table.team],
                                             move.space: "BG"[table.team]
                                             if move.action == "place" else "."}))
                s.observe(before)                            # put right
            if dealt:
                s.propose(move)
            table.push(move)
            s.observe(_obs(table))
            if not table.over and not dealt and rng.random() < 0.08:
                # the chip lifted again (or put back): a takeback, or the next team's move
                # when that is legal, which the undo button then takes back
                if s.observe(before).is_move:
                    s.undo()
                s.observe(_obs(table))                       # and put back
            if not table.over and rng.random() < 0.05:
                s.undo()                                     # the undo button, then seen again
                if dealt:
                    s.propose(move)
                s.observe(_obs(table))
        s.finish()
        writer.close()
        return [__import__("json").loads(x) for x in path.read_text().splitlines()]


CORPUS_SIZE = 8


@cache
def corpus() -> tuple[tuple[str, bool, str], ...]:
    """(name, seeded, record text) of every game the fuzz starts from."""
    out = []
    for edition, n, seed, kinds in (("classic", 2, 1, ("random",)), ("classic", 3, 2, ("greedy", "random")),
                                    ("travel", 2, 3, ("random",)), ("jewish", 2, 4, ("random",)),
                                    ("classic", 4, 5, ("random",))):
        _, entries = record_simulated_game(edition, n, seed, kinds)
        out.append((f"simulated {edition} {n}p", True, _text(entries)))
    for seed in (11, 12):
        out.append((f"refereed {seed}", False, _text(refereed_record(seed, dealt=False))))
    out.append(("demo 13", True, _text(refereed_record(13, dealt=True))))
    assert len(out) == CORPUS_SIZE
    return tuple(out)


def _text(entries: list[dict]) -> str:
    return "".join(dumps(e) + "\n" for e in entries)


def fingerprint(result, seeded: bool):
    if seeded:
        moves = [(p, m.action, m.card, m.space) for p, m in result.moves]
    else:
        moves = [(p, m.action, m.space) for p, m in result.moves if m.action != "dead"]
    return moves, result.winner, result.over, tuple(result.referee.board.cells)


@cache
def original(k: int):
    name, seeded, text = corpus()[k]
    result = replay(parse_record(text, name))
    assert result.ok, (name, result.refusal)
    return fingerprint(result, seeded)


def test_the_corpus_holds_every_kind_of_line_and_replays():
    kinds = set()
    for k, (name, seeded, text) in enumerate(corpus()):
        original(k)
        for e in parse_record(text).entries:
            kinds.add((e["type"], e.get("kind") or e.get("event") or e.get("action")))
    for want in [("verdict", "placement"), ("verdict", "removal"), ("verdict", "violation"),
                 ("verdict", "takeback"), ("verdict", "no_change"), ("event", "undo"),
                 ("move", "place"), ("move", "remove"), ("move", "dead"), ("end", None),
                 ("edit", None)]:
        assert want in kinds, want


# --- mutations ---------------------------------------------------------------------------

_POOL = [None, True, False, 0, 1, -1, 2, 3, 7, 99, 1.5, "", "x", "c4", "b1", "a1", "e5", "j10",
         "k11", "5S", "2S", "JD", "JS", "JH", "ZZ", "place", "remove", "dead", "pass", "engine",
         "observation", "B", "G", "R", "undo", "reject", "lost_draw", "placement", "violation",
         [], [0], ["c4"], {}, {"a": 1}, float("nan")]


def _near(v, rnd: random.Random):
    """A value like ``v``: a neighbour of a number, a space or card next to it, a list
    with an element dropped or doubled, a flipped symbol in a board row."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + rnd.choice([-2, -1, 1, 2])
    if isinstance(v, float):
        return v * 0.5
    if isinstance(v, str):
        m = re.fullmatch(r"([a-j])(\d+)", v)
        if m:
            return f"{m.group(1)}{int(m.group(2)) + rnd.choice([-1, 1])}"
        if re.fullmatch(r"[2-9TJQKA][SHDC]", v):
            return rnd.choice("23456789TJQKA") + v[1]
        if v and set(v) <= set(".BGRW? "):
            i = rnd.randrange(len(v))
            return v[:i] + rnd.choice(".BGR") + v[i + 1:]
        return v + "x"
    if isinstance(v, list) and v:
        w = list(v)
        i = rnd.randrange(len(w))
        if rnd.random() < 0.5:
            del w[i]
        elif rnd.random() < 0.5:
            w.insert(i, w[i])
        else:
            w[i] = _near(w[i], rnd)
        return w
    if isinstance(v, dict) and v:
        w = dict(v)
        key = rnd.choice(sorted(w))
        w[key] = _near(w[key], rnd)
        return w
    return rnd.choice(_POOL)


def mutate(lines: list[str], op: str, rnd: random.Random) -> tuple[list[str], str]:
    """One mutation of a record (lines of JSON); returns the new lines and what was done."""
    lines = list(lines)
    n = len(lines)
    i = rnd.randrange(n)
    if op == "drop":
        del lines[i]
        return lines, f"drop line {i + 1}"
    if op == "duplicate":
        lines.insert(i, lines[i])
        return lines, f"duplicate line {i + 1}"
    if op == "swap":
        j = min(n - 1, i + 1) if rnd.random() < 0.7 else rnd.randrange(n)
        lines[i], lines[j] = lines[j], lines[i]
        return lines, f"swap lines {i + 1} and {j + 1}"
    if op == "move":
        j = rnd.randrange(n)
        lines.insert(j, lines.pop(i))
        return lines, f"move line {i + 1} to {j + 1}"
    entry = __import__("json").loads(lines[i])
    keys = sorted(entry)
    if op == "delete_key":
        key = rnd.choice(keys)
        del entry[key]
        what = f"line {i + 1}: delete {key}"
    elif op == "unknown_key":
        entry["zz_unknown"] = rnd.choice(_POOL)
        what = f"line {i + 1}: add an unknown key"
    else:
        key = rnd.choice(keys)
        if op == "near":
            entry[key] = _near(entry[key], rnd)
        else:
            entry[key] = copy.deepcopy(rnd.choice(_POOL))
        what = f"line {i + 1}: {key} = {str(entry[key])[:40]}"
    lines[i] = dumps(entry) if entry or rnd.random() < 0.5 else "{}"
    return lines, what


OPS = ["drop", "duplicate", "swap", "move", "delete_key", "unknown_key", "near", "pool"]


def check_mutant(k: int, op: str, seed: int) -> None:
    name, seeded, text = corpus()[k]
    lines, what = mutate(text.splitlines(), op, random.Random(seed))
    mutant = "".join(ln + "\n" for ln in lines)
    try:
        result = replay(parse_record(mutant, "m.jsonl"))
    except RecordError as exc:
        assert re.search(r"\bline \d+\b", str(exc)), (name, what, str(exc))
        return
    if result.ok:
        assert fingerprint(result, seeded) == original(k), \
            f"{name}, {what}: another game accepted"
    else:
        assert re.fullmatch(r"line \d+: .+", result.refusal or ""), (name, what, result.refusal)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, CORPUS_SIZE - 1), st.sampled_from(OPS), st.integers(0, 2**32))
def test_a_mutated_record_replays_the_same_game_or_is_refused_naming_its_line(k, op, seed):
    check_mutant(k, op, seed)


# --- SEQUENCE STACKS records -------------------------------------------------------------

@cache
def stacks_corpus() -> tuple[str, ...]:
    """Dealt STACKS games (every card known, the seed in the record) of 2 to 5 players."""
    from engine.stacks.game import StacksGame
    from engine.stacks.players import GreedyStacksPlayer, RandomStacksPlayer
    from engine.stacks.record import record_game
    out = []
    for n, seed in ((2, 1), (3, 2), (4, 3), (5, 4)):
        g = StacksGame(n, rng=random.Random(seed))
        players = [(GreedyStacksPlayer if p % 2 else RandomStacksPlayer)(random.Random(seed + p))
                   for p in range(n)]
        out.append(_text(record_game(g, players, seed)))
    return tuple(out)


def stacks_fingerprint(text: str):
    """What a STACKS record replays to: every action done, in order (the words the engine
    gives it) and the end."""
    from engine.stacks.record import replay as replay_stacks
    parsed = parse_record(text, "m.jsonl")
    steps = replay_stacks(parsed.entries, parsed.lines)
    bad = [s for s in steps if not s["ok"]]
    done = [s["text"] for s in steps if s["ok"] and s["n"] != "end"]
    return bad, (done, [s["text"] for s in steps if s["n"] == "end"][:1])


def test_the_stacks_corpus_replays():
    for text in stacks_corpus():
        bad, _ = stacks_fingerprint(text)
        assert not bad


@settings(max_examples=max(50, EXAMPLES // 3), deadline=None, derandomize=EXAMPLES <= 1000,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.sampled_from(OPS), st.integers(0, 2**32))
def test_a_mutated_stacks_record_replays_the_same_game_or_is_refused_naming_its_line(k, op, seed):
    text = stacks_corpus()[k]
    lines, what = mutate(text.splitlines(), op, random.Random(seed))
    try:
        bad, fp = stacks_fingerprint("".join(ln + "\n" for ln in lines))
    except RecordError as exc:
        assert re.search(r"\bline \d+\b", str(exc)), (what, str(exc))
        return
    if not bad:
        assert fp == stacks_fingerprint(text)[1], f"stacks {k}, {what}: another game accepted"
    else:
        assert all(isinstance(s.get("line"), int) for s in bad), (what, bad)


_NASTY = [None, True, -1, 0, 10**4000, 1e308, float("inf"), float("nan"), "", "x" * 100, [], [1],
          {}, {"a": []}, ["c4"], [["c4"]], [["a1", "b1", "c1", "d1", "e1"]], "?", "W",
          ["." * 10] * 10, ["B" * 10] * 10, [[0, "hard"], [9, "x"]]]
#: optional keys each kind of line may carry, tried besides the keys it has
_EXTRA = {"move": ["five", "sequences", "card", "space", "n", "draw"],
          "observation": ["t", "frame", "caught_up", "confidence"],
          "verdict": ["sequences", "t", "frame", "caught_up", "cards", "winner"],
          "edit": ["t", "frame", "reason"], "event": ["card", "team", "text", "five"],
          "end": ["moves", "board", "hands", "sequences"],
          "setup": ["seed", "computers", "names", "layout_text", "computer_seed"]}


def test_every_key_of_every_kind_of_line_given_a_value_of_the_wrong_kind():
    """Each key of one line of each kind (and the optional keys of its type) set to each
    value of the wrong kind or size, in its record (the 20 lines before it and 2 after):
    refused naming its line, or replayed; never a traceback."""
    from engine.stacks.record import replay as replay_stacks
    for name, seeded, text in corpus()[6:]:
        lines = [__import__("json").loads(x) for x in text.splitlines()]
        first = {}
        for i, e in enumerate(lines):
            first.setdefault((e["type"], e.get("kind") or e.get("event") or e.get("action")), i)
        for i in first.values():
            before = lines[:i] if i <= 21 else lines[:1] + lines[i - 20:i]
            for key in dict.fromkeys(list(lines[i]) + _EXTRA[lines[i]["type"]]):
                for v in _NASTY:
                    es = before + [dict(lines[i], **{key: v})] + lines[i + 1:i + 3]
                    try:
                        r = replay(parse_record(_text(es), "m.jsonl"))
                    except RecordError as exc:
                        assert re.search(r"\bline \d+\b", str(exc)), (name, key, v, str(exc))
                        continue
                    assert r.ok or re.fullmatch(r"line \d+: .+", r.refusal), (name, key, v)
    for text in stacks_corpus()[:2]:
        lines = [__import__("json").loads(x) for x in text.splitlines()]
        for i in (0, 1, 2, len(lines) - 1):
            for key in dict.fromkeys(list(lines[i]) + ["options", "action", "hands"]):
                for v in _NASTY + [{"kind": "play", "card": "R1", "pile": 10**4000},
                                   {"kind": "special", "card": "SC", "target": 10**30},
                                   {"direction": 5}, {"hand_size": 10**4000}]:
                    es = lines[:i] + [dict(lines[i], **{key: v})] + lines[i + 1:i + 3]
                    try:
                        p = parse_record(_text(es), "m.jsonl")
                        steps = replay_stacks(p.entries, p.lines)
                    except RecordError as exc:
                        assert re.search(r"\bline \d+\b", str(exc)), (key, v, str(exc))
                        continue
                    assert all(isinstance(s.get("line"), int) for s in steps if not s["ok"])
