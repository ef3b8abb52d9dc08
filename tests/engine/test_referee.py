
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
