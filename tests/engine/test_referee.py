
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
