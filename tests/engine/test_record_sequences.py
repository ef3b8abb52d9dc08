"""Sequences in game records: fixed sets of spaces, written on the line of the move that
made them and checked on replay; the two example games of issue 20 through
`seqboard replay`."""


from engine.editions import Options
from engine.game import builtin_layout
from engine.moves import Move
from engine.record import (
    dumps,
    end_entry,
    move_entry,
    parse_record,
    record_simulated_game,
    replay,
    setup_entry,
)
from seqboard.cli import main

LAYOUT = builtin_layout("classic")
SETUP = setup_entry(edition="classic", players=2, teams=2, colours=["B", "G"], options=Options())
# green's chips: scattered, far from every line blue uses, never five in a line
GREEN = ["b4", "d4", "b6", "d6", "b8", "d8", "c10", "e10", "g10", "i10", "j5", "j7"]


def play(blue: list[str], green: list[str], sequences: dict[str, list[str]] | None = None,
         last_green: str | None = None) -> list[dict]:
    """A refereed record, blue and green in turn, every card the symbol of its space;
    ``sequences``: blue's move -> the spaces of the sequence it makes (written on its line)."""
    lines = [SETUP]
    n = 0
    for b, g in zip(blue, green + [None] * len(blue)):
        for player, space in ((0, b), (1, g)):
            if space is None:
                continue
            n += 1
            e = move_entry(n, player, Move("place", LAYOUT.symbols[LAYOUT.parse_space(space)],
                                           LAYOUT.parse_space(space)), 10)
            if sequences and player == 0 and space in sequences:
                e["sequences"] = [sequences[space]]
            lines.append(e)
    if last_green:
        n += 1
        lines.append(dict(move_entry(n, 1, Move.parse(last_green), 10)))
    return lines


def run(capsys, tmp_path, lines):
    f = tmp_path / "g.jsonl"
    f.write_text("".join((x if isinstance(x, str) else dumps(x)) + "\n" for x in lines), "utf-8")
    code = main(["replay", str(f)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err, f


H48 = ["h4", "h5", "h6", "h7", "h8"]


def test_example_one_a_line_of_nine_is_one_sequence(capsys, tmp_path):
    # h5 h6 h1 h2 h8 h7 h4 h3 h9: the sequence is h4-h8, made by h4; h3 and h9 make none
    blue = ["h5", "h6", "h1", "h2", "h8", "h7", "h4", "h3", "h9"]
    lines = play(blue, GREEN[:9], {"h4": H48})
    lines.append(end_entry(None, "stopped", [1, 0], moves=18))
    code, out, err, _ = run(capsys, tmp_path, lines)
    assert code == 0, out + err
    assert "blue places on h4 (8D): completes 1 sequence h4-h8" in out
    assert "result: unfinished" in out
    # the engine of before said two sequences and a win: such a record is refused
    claim = play(blue, GREEN[:9], {"h4": H48, "h9": ["h5", "h6", "h7", "h8", "h9"]})
    code, _, err, f = run(capsys, tmp_path, claim)
    assert code == 1
    assert f"{f} line 18: place 2H h9: recorded sequences h5-h9, the rules make none" in err
    won = lines[:-1] + [end_entry(0, "sequences completed", [2, 0])]
    code, _, err, f = run(capsys, tmp_path, won)
    assert code == 1 and "recorded winner 0, the rules say None" in err
    assert "recorded sequences [2, 0], the rules say [1, 0]" in err


A1E1 = ["a1", "b1", "c1", "d1", "e1"]


def test_example_two_a_chip_that_only_lengthens_a_sequence_may_be_removed(capsys, tmp_path):
    # the corner a1 and blue b1 c1 d1 e1 make a sequence; blue adds f1; a one-eyed jack takes f1
    lines = play(["b1", "c1", "d1", "e1", "f1"], GREEN[:4], {"e1": A1E1}, last_green="remove JS f1")
    code, out, err, _ = run(capsys, tmp_path, lines)
    assert code == 0, out + err
    assert "green removes blue's chip from f1" in out
    lines = play(["b1", "c1", "d1", "e1", "f1"], GREEN[:4], {"e1": A1E1}, last_green="remove JS e1")
    code, out, err, f = run(capsys, tmp_path, lines)
    assert code == 1 and f"{f} line 11" in err and "completed sequence" in err


def test_a_version_2_move_that_makes_a_sequence_without_saying_so_is_refused(capsys, tmp_path):
    lines = play(["b1", "c1", "d1", "e1"], GREEN[:3])
    code, _, err, f = run(capsys, tmp_path, lines)
    assert code == 1 and f"{f} line 8: place 5S e1: recorded sequences none, the rules make a1-e1" in err
    # a version 1 record has no sequences to check: the moves alone decide
    code, out, err, _ = run(capsys, tmp_path, [dict(SETUP, version=1)] + lines[1:])
    assert code == 0 and "completes 1 sequence a1-e1" in out


ROW2 = {"b2": "5C", "c2": "4C", "d2": "3C", "e2": "2C", "f2": "AH", "g2": "KH"}


def test_the_five_the_players_chose_is_replayed_and_checked(capsys, tmp_path):
    # blue holds b2 c2 d2 f2 g2; e2 completes a line of six: b2-f2 or c2-g2
    blue = ["b2", "c2", "d2", "f2", "g2"]
    base = play(blue, GREEN[:5])
    e2 = LAYOUT.parse_space("e2")
    chosen = move_entry(11, 0, Move("place", "2C", e2, (tuple(LAYOUT.parse_space(s) for s in
                                                               ["c2", "d2", "e2", "f2", "g2"]),)), 10)
    chosen["sequences"] = [["c2", "d2", "e2", "f2", "g2"]]
    code, out, err, _ = run(capsys, tmp_path, base + [chosen])
    assert code == 0, out + err
    assert "completes 1 sequence c2-g2" in out
    # the five chosen, but the line claims the other
    code, _, err, _ = run(capsys, tmp_path, base + [dict(chosen, sequences=[["b2", "c2", "d2", "e2", "f2"]])])
    assert code == 1 and "recorded sequences b2-f2, the rules make c2-g2" in err
    # a five that is no choice this chip has
    bad = dict(chosen, five=[["a2", "b2", "c2", "d2", "e2"]], sequences=[["a2", "b2", "c2", "d2", "e2"]])
    code, _, err, _ = run(capsys, tmp_path, base + [bad])
    assert code == 1 and "line 12" in err and "five named for e2" in err


def test_simulated_records_carry_every_sequence_and_replay(tmp_path):
    for seed in range(6):
        game, entries = record_simulated_game("classic", 2, seed, ("greedy", "random"))
        written = [q for e in entries if e["type"] == "move" for q in e.get("sequences", [])]
        assert written == [[LAYOUT.space_name(s) for s in q.spaces] for q in game.board.sequences]
        text = "".join(dumps(e) + "\n" for e in entries)
        result = replay(parse_record(text))
        assert result.ok and result.referee.board.sequences == game.board.sequences
        # any sequence changed on any line is refused, naming that line
        k = next(i for i, e in enumerate(entries) if e.get("sequences"))
        q = entries[k]["sequences"][0]
        other = dict(entries[k], sequences=[q[1:] + [q[0]]] if q[0] != q[-1] else [q])
        other["sequences"] = [[q[0]] + q[1:-1] + ["j10" if q[-1] != "j10" else "a1"]]
        bad = "".join(dumps(e) + "\n" for e in entries[:k] + [other] + entries[k + 1:])
        r = replay(parse_record(bad))
        assert not r.ok and r.refusal.startswith(f"line {k + 1}: ") and "recorded sequences" in r.refusal


def test_a_verdict_records_the_sequences_of_the_move_it_saw(capsys, tmp_path):
    from engine.observation import SpaceState
    from engine.record import observation_entry, verdict_entry
    from engine.referee import Referee
    ref = Referee("classic", 2)
    lines = [SETUP]
    for b, g in zip(["b1", "c1", "d1"], GREEN):
        for space, colour in ((b, "B"), (g, "G")):
            obs = ref.expected().replace({LAYOUT.parse_space(space): SpaceState(colour)})
            lines += [observation_entry(obs), verdict_entry(ref.observe(obs), 10)]
    obs = ref.expected().replace({LAYOUT.parse_space("e1"): SpaceState.BLUE})
    v = ref.observe(obs)
    ve = verdict_entry(v, 10)
    assert v.kind == "placement" and ve["sequences"] == [A1E1]
    code, out, err, _ = run(capsys, tmp_path, lines + [observation_entry(obs), ve])
    assert code == 0, out + err
    wrong = dict(ve, sequences=[["b1", "c1", "d1", "e1", "f1"]])
    code, _, err, _ = run(capsys, tmp_path, lines + [observation_entry(obs), wrong])
    assert code == 1 and "recorded sequences b1-f1, the rules make a1-e1" in err
    code, _, err, _ = run(capsys, tmp_path, lines + [observation_entry(obs), {k: x for k, x in ve.items()
                                                                             if k != "sequences"}])
    assert code == 1 and "recorded sequences none, the rules make a1-e1" in err


def _edit_rows(blue: list[str], green: list[str]) -> list[str]:
    rows = [["."] * 10 for _ in range(10)]
    for names, c in ((blue, "B"), (green, "G")):
        for n in names:
            i = LAYOUT.parse_space(n)
            rows[i // 10][i % 10] = c
    return ["".join(r) for r in rows]


def test_an_edit_keeps_the_sequences_whose_chips_all_stay(tmp_path):
    lines = play(["b1", "c1", "d1", "e1"], GREEN[:4], {"e1": A1E1})
    blue, green = ["b1", "c1", "d1", "e1"], GREEN[:4]
    kept = {"type": "edit", "board": _edit_rows(blue + ["h5"], green), "changed": ["h5"]}
    r = replay(parse_record("".join(dumps(e) + "\n" for e in lines + [kept])))
    assert r.ok and [q.names() for q in r.referee.board.sequences] == [A1E1]
    assert r.referee.board.counts == [1, 0]
    broken = {"type": "edit", "board": _edit_rows(["b1", "d1", "e1"], green), "changed": ["c1"]}
    r = replay(parse_record("".join(dumps(e) + "\n" for e in lines + [broken])))
    assert r.ok and r.referee.board.sequences == [] and r.referee.board.counts == [0, 0]
    # the chip put back by a placement makes the sequence again, on that move's line
    again = move_entry(9, 0, Move("place", "3S", LAYOUT.parse_space("c1")), 10)
    again["sequences"] = [A1E1]
    r = replay(parse_record("".join(dumps(e) + "\n" for e in lines + [broken, again])))
    assert r.ok, r.refusal
    assert [q.names() for q in r.referee.board.sequences] == [A1E1]


def test_white_chips_choosing_the_five_replay_as_a_choice(capsys, tmp_path):
    from engine.observation import SpaceState
    from engine.record import observation_entry, verdict_entry
    from engine.referee import Referee
    ref = Referee("classic", 2)
    lines = [SETUP]

    def see(changes):
        obs = ref.expected().replace({LAYOUT.parse_space(s): SpaceState(c) for s, c in changes.items()})
        v = ref.observe(obs)
        lines.extend([observation_entry(obs), verdict_entry(v, 10)])
        return v

    for b, g in zip(["b2", "c2", "d2", "f2", "g2"], GREEN):
        see({b: "B"})
        see({g: "G"})
    v = see({"e2": "B"})
    default = v.made[0].names()
    other = ["c2", "d2", "e2", "f2", "g2"] if default[0] == "b2" else ["b2", "c2", "d2", "e2", "f2"]
    v = see({s: "W" for s in other})
    assert v.kind == "choice" and [q.names() for q in v.made] == [other]
    code, out, err, _ = run(capsys, tmp_path, lines)
    assert code == 0, out + err
    assert "chooses the five shown in white" in out
    lines[-1] = dict(lines[-1], sequences=[default])
    code, _, err, _ = run(capsys, tmp_path, lines)
    assert code == 1 and f"line {len(lines)}" in err and "recorded sequences" in err


def _line_of_six(tmp_path):
    """A refereed, recorded session in which blue's e2 completes the line b2-g2 of six: the
    session, its writer, the record's path, the five taken by default and the other five."""
    from engine.observation import SpaceState
    from engine.referee import Referee
    from seqboard.recorder import RecordWriter
    from seqboard.session import Session
    path = tmp_path / "g.jsonl"
    writer = RecordWriter(path)
    s = Session(Referee("classic", 2), recorder=writer)

    def see(space, colour):
        r = s.referee
        return s.observe(r.expected().replace({LAYOUT.parse_space(space): SpaceState(colour)}))

    for b, g in zip(["b2", "c2", "d2", "f2", "g2"], GREEN):
        see(b, "B")
        see(g, "G")
    default = see("e2", "B").made[0].names()
    other = ["c2", "d2", "e2", "f2", "g2"] if default[0] == "b2" else ["b2", "c2", "d2", "e2", "f2"]
    return s, writer, path, default, other


def test_the_five_named_at_the_terminal_is_recorded_and_replayed(capsys, tmp_path):
    s, writer, path, default, other = _line_of_six(tmp_path)
    v = s.choose_five((tuple(LAYOUT.parse_space(x) for x in other),))
    assert [q.names() for q in v.made] == [other]
    writer.close()
    lines = path.read_text().splitlines()
    assert '"event":"five"' in lines[-1]
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert f"completes 1 sequence {default[0]}-{default[-1]}" in out and "chooses the five named" in out
    # a five this placement could not make is refused with its line
    bad = dict(__import__("json").loads(lines[-1]), five=[["a2", "b2", "c2", "d2", "e2"]])
    path.write_text("\n".join(lines[:-1] + [dumps(bad)]) + "\n")
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    assert code == 1 and f"line {len(lines)}" in err and "not five the last placement could make" in err


def test_an_edit_putting_a_sequence_chip_back_makes_the_sequence_again(tmp_path):
    lines = play(["b1", "c1", "d1", "e1"], GREEN[:4], {"e1": A1E1})
    green = GREEN[:4]
    off = {"type": "edit", "board": _edit_rows(["b1", "d1", "e1"], green), "changed": ["c1"]}
    back = {"type": "edit", "board": _edit_rows(["b1", "c1", "d1", "e1"], green), "changed": ["c1"]}
    r = replay(parse_record("".join(dumps(e) + "\n" for e in lines + [off, back])))
    assert r.ok, r.refusal
    assert [q.names() for q in r.referee.board.sequences] == [A1E1]
    # '?' and 'W' leave a space as it is
    keep = dict(back, board=[row.replace("B", "?", 1) for row in back["board"]], changed=[])
    r = replay(parse_record("".join(dumps(e) + "\n" for e in lines + [keep])))
    assert r.ok, r.refusal


def test_the_five_typed_at_the_terminal_key_f_becomes_the_sequence(capsys, tmp_path):
    """`f c2-g2` typed at the terminal (the key reader of play and referee) names the five
    of a line of six; a five the placement could not make is refused in one line."""
    import io

    from seqboard.loop import Commands, read_keys
    s, writer, path, default, other = _line_of_six(tmp_path)
    commands, out = Commands(), io.StringIO()
    read_keys(lambda: s, commands, io.StringIO(f"f {other[0]}-{other[-1]}\nf a2-e2\nf\n"), out)
    commands.run_pending()
    assert [q.names() for q in s.referee.board.sequences] == [other]
    said = out.getvalue().splitlines()
    assert len(said) == 2 and said[0].startswith("five: not five the last placement could make")
    assert said[1] == "five: name the five, e.g. f c4-g4"
    writer.close()
    assert main(["replay", str(path)]) == 0
    assert "chooses the five named" in capsys.readouterr().out
