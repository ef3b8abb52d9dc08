
from engine.editions import Options
from engine.observation import Observation, SpaceState
from engine.referee import Referee

B, G, E, W, U, R = (SpaceState.BLUE, SpaceState.GREEN, SpaceState.EMPTY, SpaceState.WHITE,
                    SpaceState.UNKNOWN, SpaceState.RED)


def ref(**kw):
    return Referee("classic", 2, **kw)


def seen(r: Referee, changes: dict[str, SpaceState]) -> Observation:
    return r.expected().replace({r.layout.parse_space(k): v for k, v in changes.items()})


def play(r: Referee, changes):
    v = r.observe(seen(r, changes))
    assert v.kind in ("placement", "removal"), v.message
    return v


def test_no_change():
    r = ref()
    assert r.observe(r.expected()).kind == "no_change"


def test_legal_placement_names_the_cards_that_explain_it():
    r = ref()
    v = r.observe(seen(r, {"e1": B}))
    assert v.kind == "placement" and v.team == 0 and v.spaces == (r.layout.parse_space("e1"),)
    assert v.cards == ("5S", "JC", "JD")
    assert r.current == 1


def test_chip_of_the_team_not_to_move_is_out_of_turn():
    r = ref()
    v = r.observe(seen(r, {"e1": G}))
    assert (v.kind, v.rule) == ("violation", "out_of_turn")
    assert r.current == 0 and r.board.cells[r.layout.parse_space("e1")] == 0


def test_colour_not_in_the_game():
    v = ref().observe(seen(ref(), {"e1": R}))
    assert v.rule == "wrong_colour"


def test_two_chips_in_one_turn():
    r = ref()
    v = r.observe(seen(r, {"e1": B, "f1": B}))
    assert v.rule == "two_chips" and len(v.spaces) == 2


def test_chip_on_a_free_corner():
    r = ref()
    assert r.observe(seen(r, {"a1": B})).rule == "free_corner"


def test_removal_of_an_opponent_chip():
    r = ref()
    play(r, {"e1": B})
    play(r, {"f1": G})
    v = r.observe(seen(r, {"f1": E}))          # blue takes green's chip off
    assert v.kind == "removal" and v.team == 0 and v.cards == ("JH", "JS")
    assert r.current == 1 and r.board.cells[r.layout.parse_space("f1")] == 0


def test_own_chip_removed():
    r = ref()
    play(r, {"e1": B})
    play(r, {"f1": G})
    v = r.observe(seen(r, {"e1": E}))          # blue removes its own chip
    assert v.rule == "own_chip_removed"


def test_sequence_chip_cannot_be_removed():
    r = ref()
    names_b = ["b3", "c3", "d3", "e3", "f3"]
    names_g = ["b5", "c5", "d5", "e5", "f5"]
    for nb, ng in zip(names_b, names_g):
        play(r, {nb: B})
        play(r, {ng: G})
    assert r.board.counts == [1, 1]
    v = r.observe(seen(r, {"c5": E}))
    assert v.rule == "sequence_chip_removed"
    ra = ref(options=Options(advanced=True))
    for nb, ng in zip(names_b, names_g):
        play(ra, {nb: B})
        play(ra, {ng: G})
    assert ra.observe(seen(ra, {"c5": E})).kind == "removal" and ra.board.counts == [1, 0]


def test_flipped_sequence_chips_are_no_change():
    r = ref()
    for nb, ng in zip(["b3", "c3", "d3", "e3", "f3"], ["b5", "c5", "d5", "e5", "h7"]):
        play(r, {nb: B})
        play(r, {ng: G})
    flipped = {n: W for n in ["b3", "c3", "d3", "e3", "f3"]}
    assert r.observe(seen(r, flipped)).kind == "no_change"


def test_chip_moved():
    r = ref()
    play(r, {"e1": B})
    play(r, {"e8": G})
    v = r.observe(seen(r, {"e1": E, "f1": B}))
    assert v.rule == "chip_moved" and set(v.spaces) == {r.layout.parse_space("e1"), r.layout.parse_space("f1")}


def test_chip_back_on_the_space_just_cleared():
    r = ref()
    play(r, {"e1": B})
    play(r, {"e8": G})
    play(r, {"e8": E})                          # blue removes green's chip: green to move
    v = r.observe(seen(r, {"e8": B}))           # blue puts a chip straight back there
    assert v.rule == "back_on_cleared"
    r2 = ref()
    play(r2, {"e1": B})
    play(r2, {"e8": G})
    v = r2.observe(seen(r2, {"e8": B}))         # removed and replaced in one go
    assert v.rule == "back_on_cleared"


def test_unknown_spaces_never_produce_a_verdict():
    r = ref()
    v = r.observe(seen(r, {"e1": U, "f1": U}))
    assert v.kind == "no_change"
    play(r, {"e1": B})
    assert r.observe(seen(r, {"e1": U})).kind == "no_change"


def test_takeback_to_the_previous_position():
    r = ref()
    play(r, {"e1": B})
    play(r, {"e8": G})
    play(r, {"e8": E})                        # blue removes green's chip
    v = r.observe(seen(r, {"e8": G}))         # ... and the removal is taken back
    assert v.kind == "placement"              # green may legally re-cover e8: a move first
    r2 = ref()
    play(r2, {"e1": B})
    play(r2, {"e8": G})
    play(r2, {"c3": B})
    v = r2.observe(seen(r2, {"c3": E}))       # blue's chip lifted: a legal removal by green
    assert v.kind == "removal"
    r3 = ref(options=__import__("engine.editions", fromlist=["Options"]).Options())
    for name, colour in [("b3", B), ("b5", G), ("c3", B), ("c5", G), ("d3", B), ("d5", G),
                         ("e3", B), ("e5", G)]:
        play(r3, {name: colour})
    play(r3, {"f3": B})                       # blue completes b3-f3
    v = r3.observe(seen(r3, {"f3": E}))       # a sequence chip cannot be removed: a takeback
    assert v.kind == "takeback" and r3.current == 0 and r3.board.counts == [0, 0]


def test_no_card_left_to_explain_a_placement():
    from engine.moves import Move
    r = ref()
    for card, name in [("JD", "b2"), ("JC", "b3"), ("JD", "b4"), ("JC", "b5")]:
        assert r.apply(Move("place", card, r.layout.parse_space(name))).kind == "placement"
    play(r, {"e1": B})            # a 5S (the wilds are all gone)
    play(r, {"d9": G})            # the other 5S
    play(r, {"d9": E})            # blue removes green's chip from d9
    play(r, {"g7": G})
    v = r.observe(seen(r, {"d9": B}))         # a third 5S: no copy and no wild left
    assert (v.kind, v.rule) == ("violation", "no_card_left")
    assert r.observe(seen(r, {"g9": B})).kind == "placement"     # 2S is still possible


def test_no_removing_card_left():
    r = ref()
    play(r, {"e1": B})
    for i, name in enumerate(["b2", "b3", "b4", "b5"]):
        team_colour = G if r.team == 1 else B
        play(r, {name: team_colour})
        play(r, {name: E})
    # four removals done; the next one has no one-eyed jack left
    mover = r.team
    target = next(i for i, c in enumerate(r.board.cells) if c > 0 and c - 1 != mover)
    v = r.observe(r.expected().replace({target: E}))
    assert v.rule == "no_remover_left"


def test_violation_leaves_the_state_unchanged_until_put_right():
    r = ref()
    v = r.observe(seen(r, {"e1": B, "f1": B}))
    assert v.kind == "violation"
    assert r.observe(r.expected()).kind == "no_change"
    assert r.observe(seen(r, {"e1": B})).kind == "placement"


# --- fixed sequences, white chips and the choice of five ----------------------------------
def six_at_once(r: Referee) -> Observation:
    """Blue b4 c4 d4 e4 g4 (green answering far away); then blue's f4 completes six in a
    row at once. Returns the observation with f4 placed (not yet judged)."""
    for nb, ng in zip(["b4", "c4", "d4", "e4", "g4"], ["b8", "d8", "f8", "h8", "j8"]):
        play(r, {nb: B})
        play(r, {ng: G})
    return seen(r, {"f4": B})


def test_a_longer_line_takes_the_default_five_and_the_extra_chip_is_removable():
    r = ref()
    v = r.observe(six_at_once(r))
    assert v.kind == "placement" and v.new_sequences == 1
    assert [q.text() for q in v.made] == ["b4-f4"] and "b4-f4" in v.message
    assert not r.board.is_locked(r.layout.parse_space("g4"))
    v = r.observe(seen(r, {"g4": E}))            # green's one-eyed jack takes g4
    assert v.kind == "removal", v.message


def test_white_chips_with_the_placement_choose_the_five():
    r = ref()
    obs = six_at_once(r).replace({r.layout.parse_space(n): W
                                  for n in ["c4", "d4", "e4", "f4", "g4"]})
    v = r.observe(obs)
    assert v.kind == "placement" and [q.text() for q in v.made] == ["c4-g4"]
    assert r.board.is_locked(r.layout.parse_space("g4"))
    assert not r.board.is_locked(r.layout.parse_space("b4"))
    assert r.moves[-1][1].five == (tuple(sorted(r.layout.parse_space(n)
                                                for n in ["c4", "d4", "e4", "f4", "g4"])),)


def test_white_chips_flipped_after_the_placement_change_the_five_until_the_next_move():
    r = ref()
    r.observe(six_at_once(r))
    assert [q.text() for q in r.board.sequences] == ["b4-f4"]
    # blue flips c4..g4: the referee takes the five they show
    flipped = {n: W for n in ["c4", "d4", "e4", "f4", "g4"]}
    v = r.observe(seen(r, flipped))
    assert v.kind == "choice" and [q.text() for q in v.made] == ["c4-g4"]
    assert [q.text() for q in r.board.sequences] == ["c4-g4"] and r.board.counts == [1, 0]
    assert r.current == 1                      # still green's turn: a choice is not a move
    assert r.observe(seen(r, flipped)).kind == "no_change"
    # green moves; then a white b4 is off the sequence: a violation
    play(r, {"a7": G})
    v = r.observe(seen(r, {"b4": W}))
    assert (v.kind, v.rule) == ("violation", "white_off_sequence")
    assert v.spaces == (r.layout.parse_space("b4"),)
    assert [q.text() for q in r.board.sequences] == ["c4-g4"]


def test_a_white_chip_off_any_sequence_is_a_violation():
    r = ref()
    play(r, {"e1": B})
    v = r.observe(seen(r, {"e1": W}))
    assert (v.kind, v.rule) == ("violation", "white_off_sequence")
    assert "white chip off a completed sequence" in v.message
    # a new chip put down white side up, completing nothing, is one too (nothing applied)
    v = r.observe(seen(r, {"e1": B, "f2": W}))
    assert (v.kind, v.rule) == ("violation", "white_off_sequence") and r.current == 1
    assert r.observe(seen(r, {"e1": B})).kind == "no_change"


def test_a_takeback_drops_the_sequences_of_the_move_taken_back():
    r = ref()
    before = r.expected()
    r.observe(six_at_once(r))
    assert r.board.counts == [1, 0]
    v = r.observe(seen(r, {"f4": E}))
    assert v.kind == "takeback" and r.board.counts == [0, 0] and r.board.sequences == []
    assert r.observe(before).kind != "no_change"


def test_a_dead_card_trade_needs_a_card_dead_on_the_board_now():
    r = ref()
    from engine.moves import Move
    v = r.apply(Move("dead", "5S"))                      # e1 and the other 5S are open
    assert (v.kind, v.rule) == ("violation", "not_dead") and "5S is not a dead card" in v.message
    assert r.apply(Move("dead", "ZZ")).rule == "not_dead"
    assert r.apply(Move("dead", "JD")).rule == "not_dead"   # jacks are never dead
    spaces = r.layout.spaces_of["5S"]
    play(r, {r.layout.space_name(spaces[0]): B})
    play(r, {r.layout.space_name(spaces[1]): G})
    assert r.apply(Move("dead", "5S")).kind == "no_change"  # now dead: blue trades it
    v = r.apply(Move("dead", "5S"))
    assert v.rule == "not_dead" and "one dead card" in v.message
    play(r, {"a2": B})
    assert r.apply(Move("dead", "5S")).kind == "no_change"  # green's turn: one for green


def test_the_five_can_be_named_without_white_chips():
    from engine.errors import EngineError
    import pytest
    r = ref()
    r.observe(six_at_once(r))
    c4_g4 = tuple(sorted(r.layout.parse_space(n) for n in ["c4", "d4", "e4", "f4", "g4"]))
    v = r.choose_five((c4_g4,))
    assert v.kind == "choice" and [q.text() for q in r.board.sequences] == ["c4-g4"]
    with pytest.raises(EngineError, match="could make: b4-f4; c4-g4"):
        r.choose_five((tuple(sorted(r.layout.parse_space(n) for n in ["a4", "b4", "c4", "d4", "e4"])),))
    play(r, {"a7": G})
    with pytest.raises(EngineError, match="made no sequence"):
        r.choose_five((c4_g4,))


def _unseen_then_shown(r: Referee, before, after, space: str):
    """Blue's seen moves ``before`` (green's in between), blue's move unseen, then the
    moves ``after`` (green first, alternating); then blue's chip shows on ``space``: the
    board takes it and the unseen move becomes that placement."""
    from engine.moves import Move
    for name in before:
        play(r, {name: B if r.team == 0 else G})
    n = len(r.moves) + 1
    assert r.apply(Move("unseen")).kind == "no_change"
    for name in after:
        play(r, {name: B if r.team == 0 else G})
    i = r.layout.parse_space(space)
    r.board.place(i, 0)
    r.complete_unseen(n, i)
    return n, i


def test_undoing_moves_after_a_completed_unseen_move_keeps_its_chip():
    """Blue's third move was not seen; its chip showed on j5 four moves later. Undoing
    those four moves (the undo button) keeps blue's chip on j5: move 3
    placed it, and the referee's board and moves agree all the way back. Undoing move 3
    itself takes it off."""
    from engine.moves import Move
    r = ref()
    n, j5 = _unseen_then_shown(r, ["e5", "h8"], ["e6", "b5", "g8", "c2"], "j5")
    assert n == 3
    assert r.board.cells[j5] == 1 and r.moves[2] == (0, Move("place", None, j5))
    for _ in range(4):
        assert r.undo().kind == "takeback"
        assert r.board.cells[j5] == 1
        # the table as it stands (blue's chip on j5) is the referee's board: nothing new
        assert r.observe(r.expected()).kind == "no_change"
        assert [m.space for _, m in r.moves][2] == j5
    assert len(r.moves) == 3 and r.current == 1
    # green plays again: judged against the board with j5
    assert play(r, {"i9": G}).player == 1
    for _ in range(2):
        r.undo()
    assert len(r.moves) == 2 and r.board.cells[j5] == 0 and r.current == 0


def test_a_sequence_through_a_completed_unseen_chip_follows_the_undos():
    """Blue had f5 g5 h5, played j5 unseen, then i5: when j5 shows, f5-j5 is blue's
    sequence. Undoing green's last move keeps it; undoing blue's i5 breaks it (j5 stays,
    i5 is gone); blue's i5 played again makes it again."""
    r = ref()
    _, j5 = _unseen_then_shown(r, ["f5", "a2", "g5", "a3", "h5", "a4"], ["a6", "i5", "a7"], "j5")
    assert r.board.counts == [1, 0]
    assert [q.text() for q in r.board.sequences] == ["f5-j5"]
    r.undo()                                             # green's a7
    assert r.board.counts == [1, 0] and r.board.cells[j5] == 1
    assert r.board.is_locked(j5)
    r.undo()                                             # blue's i5
    assert r.board.counts == [0, 0] and r.board.sequences == [] and r.board.cells[j5] == 1
    assert not r.board.is_locked(j5)
    v = play(r, {"i5": B})
    assert v.new_sequences == 1 and [q.text() for q in v.made] == ["f5-j5"]
