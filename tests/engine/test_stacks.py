"""SEQUENCE STACKS: every rule in a concrete situation, and properties of whole games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineError, IllegalMoveError
from engine.record import dumps, parse_record
from engine.stacks import (Action, GreedyStacksPlayer, RandomStacksPlayer, StacksGame,
                           StacksOptions, load_deck, parse_card, play_stacks_game)
from engine.stacks.game import Pile
from engine.stacks.record import record_game, replay


def game(n=2, hands=None, deck=None, **opts) -> StacksGame:
    """A game in a set position: the given hands; the deck's top card is the last."""
    g = StacksGame(n, rng=random.Random(1), options=StacksOptions(**opts))
    pool = g.deck + [c for h in g.hands for c in h]
    for p in range(n):
        g.hands[p] = list(hands[p]) if hands and p < len(hands) else ["R5"] * 5
    g.deck = list(deck) if deck is not None else ["B3"] * 20
    # keep the card count true to the deck: the rest is out of play
    used = sum(map(len, g.hands)) + len(g.deck)
    g.out = pool[:max(0, len(pool) - used)]
    return g


def play(card, pile=-1, source="hand"):
    return Action("play", card, source, pile)


def test_cards_are_typed_as_short_codes():
    assert parse_card("r3") == "R3" and parse_card(" bw ") == "BW" and parse_card("skip") == "SK"
    with pytest.raises(EngineError, match="unknown card 'X9'"):
        parse_card("X9")


def test_a_pile_starts_with_a_one_or_a_wild_of_its_colour_and_is_built_in_order():
    g = game(hands=[["R2", "R1", "BW", "R4", "RW"]])
    with pytest.raises(IllegalMoveError, match="a new red pile starts with a 1 or a red wild"):
        g.apply(play("R2"))
    g.apply(play("R1"))
    g.apply(play("R2", 0))
    with pytest.raises(IllegalMoveError, match="blue wild cannot go on a red pile"):
        g.apply(play("BW", 0))
    g.apply(play("BW"))                       # a wild starts a pile of its colour
    assert [p.colour for p in g.piles] == ["R", "B"]
    with pytest.raises(IllegalMoveError, match="pile 1 needs a 3, not a 4"):
        g.apply(play("R4", 0))
    g.apply(play("RW", 0))                    # a wild stands for the 3
    g.apply(play("R4", 0))
    assert g.piles[0].cards == ["R1", "R2", "RW", "R4"]


def test_at_most_two_piles_of_each_colour():
    g = game(hands=[["R1", "R1", "R1", "B1", "B3"]])
    g.apply(play("R1"))
    g.apply(play("R1"))
    with pytest.raises(IllegalMoveError, match="already 2 red piles"):
        g.apply(play("R1"))
    g.apply(play("B1"))                       # blue has its own two
    assert len(g.piles) == 3


def test_the_top_of_ones_discard_pile_is_playable_then_the_card_under_it():
    g = game(hands=[["R1", "B4", "B4", "B4", "B4"]])
    g.discards[0] = ["R3", "R2"]              # R2 on top
    with pytest.raises(IllegalMoveError, match="top of player 1's discard pile is red 2"):
        g.apply(play("R3", 0, "discard"))
    g.apply(play("R1"))
    g.apply(play("R2", 0, "discard"))
    g.apply(play("R3", 0, "discard"))         # now the card under it
    assert g.discards[0] == [] and g.piles[0].cards == ["R1", "R2", "R3"]


def test_playing_the_whole_hand_draws_five_more_and_the_turn_goes_on():
    g = game(hands=[["R1", "R2", "R3", "R4", "B1"]], deck=["B2"] * 10)
    for a in (play("R1"), play("R2", 0), play("R3", 0), play("R4", 0)):
        g.apply(a)
    text = g.apply(play("B1"))
    assert "draws 5 more" in text and len(g.hands[0]) == 5 and g.current == 0


def test_discard_then_draw_up_to_five_ends_the_turn():
    g = game(hands=[["R1", "R4", "B5", "B5", "B5"], ["B5"] * 5], deck=["B2"] * 10)
    g.apply(play("R1"))
    with pytest.raises(IllegalMoveError, match="player 1 holds no red 2"):
        g.apply(Action("discard", "R2"))
    g.apply(Action("discard", "R4"))
    assert g.discards[0] == ["R4"] and len(g.hands[0]) == 5 and g.current == 1
    with pytest.raises(IllegalMoveError, match="it is player 2's turn, not player 1's"):
        g.apply(Action("play", "R2", player=0))


def test_a_completed_pile_goes_out_of_play_and_its_player_takes_a_chip():
    g = game(hands=[["R5", "B5", "B5", "B5", "B5"], ["B5"] * 5])
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    text = g.apply(play("R5", 0))
    assert "the red SEQUENCE is complete" in text and g.pending is not None
    g.resolve()
    assert g.chips[0] == {"R": 1, "B": 0} and g.piles == []
    assert g.out[-5:] == ["R1", "R2", "R3", "R4", "R5"] and g.supply["R"] == 19


def test_block_out_of_turn_cancels_the_sequence_just_completed():
    g = game(n=3, hands=[["R5", "B5", "B5", "B5", "B5"], ["B5"] * 5, ["BL", "B5", "B5", "B5", "B5"]])
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    with pytest.raises(IllegalMoveError, match="no SEQUENCE is waiting for its chip"):
        g.apply(Action("block", "BL", player=2))
    g.apply(play("R5", 0))
    assert g.blockers() == [2]
    with pytest.raises(IllegalMoveError, match="player 2 holds no Block"):
        g.apply(Action("block", "BL", player=1))
    text = g.apply(Action("block", "BL", player=2))
    assert "nobody earns a chip" in text
    assert g.chips[0] == {"R": 0, "B": 0} and "BL" not in g.hands[2] and g.out[-1] == "BL"
    assert g.current == 0                      # the player laying the 5 goes on


def test_block_is_not_for_ones_own_sequence():
    g = game(hands=[["R5", "BL", "B5", "B5", "B5"], ["B5"] * 5])
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    g.apply(play("R5", 0))
    assert g.blockers() == []
    with pytest.raises(IllegalMoveError, match="another player's SEQUENCE"):
        g.apply(Action("block", "BL", player=0))
    with pytest.raises(IllegalMoveError, match="Block is played on a SEQUENCE just completed"):
        g.apply(Action("special", "BL"))


def test_the_next_action_closes_the_block_window():
    g = game(hands=[["R5", "B1", "B5", "B5", "B5"], ["BL"] * 5])
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    g.apply(play("R5", 0))
    g.apply(play("B1"))                        # too late to block now
    assert g.chips[0]["R"] == 1
    with pytest.raises(IllegalMoveError, match="no SEQUENCE is waiting"):
        g.apply(Action("block", "BL", player=1))


def test_the_cards_of_sequences_made_are_shuffled_into_a_new_deck_when_the_deck_runs_out():
    """The book (000): "shuffle the cards from previously made SEQUENCES". A completed
    pile's cards come back; a played special card and a blocked pile stay out of play."""
    g = game(hands=[["R5", "B5", "B5", "B5", "B5"], ["SK", "B5", "B5", "B5", "B5"]], deck=[])
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    g.out = ["SK", "B1", "B2", "B3", "B4", "B5", "BL"]   # a special and a blocked pile, earlier
    total = g.cards_in_game()
    g.apply(play("R5", pile=0))
    g.resolve()                                          # player 1's red SEQUENCE: a chip
    assert g.chips[0]["R"] == 1 and g.made == ["R1", "R2", "R3", "R4", "R5"]
    text = g.apply(Action("discard", "B5"))
    assert "draws 2" in text
    assert sorted(g.hands[0][3:] + g.deck) == ["R1", "R2", "R3", "R4", "R5"]
    assert g.out == ["SK", "B1", "B2", "B3", "B4", "B5", "BL"] and g.made == []
    assert any("cards of the SEQUENCES made (5 cards) shuffled" in x for x in g.log)
    assert g.cards_in_game() == total


def test_the_whole_out_of_play_pile_is_reshuffled_with_the_old_reading():
    g = game(hands=[["R1", "B5", "B5", "B5", "B5"], ["B5"] * 5], deck=[], reshuffle="out_of_play")
    g.out = ["R2", "R3", "B4"]
    total = g.cards_in_game()
    g.apply(play("R1"))
    text = g.apply(Action("discard", "B5"))
    assert "draws 2" in text
    assert len(g.hands[0]) == 5 and len(g.deck) == 1 and g.out == []
    assert any("out-of-play pile (3 cards) shuffled into a new deck" in x for x in g.log)
    assert g.cards_in_game() == total


def test_with_no_sequence_made_an_empty_deck_is_not_rebuilt():
    g = game(hands=[["R1", "B5", "B5", "B5", "B5"], ["B5"] * 5], deck=[])
    g.out = ["R2", "R3", "B4", "SK"]
    g.apply(play("R1"))
    text = g.apply(Action("discard", "B5"))
    assert "draws" not in text and len(g.hands[0]) == 3 and g.out == ["R2", "R3", "B4", "SK"]


def test_an_unknown_reshuffle_reading_is_refused():
    with pytest.raises(EngineError, match="reshuffle must be one of sequences, out_of_play"):
        StacksOptions(reshuffle="everything")


def test_special_cards_go_out_of_play_and_do_not_end_the_turn():
    g = game(n=3, hands=[["SK", "B5", "B5", "B5", "B5"], ["B5"] * 5, ["B5"] * 5])
    g.apply(Action("special", "SK"))
    assert g.current == 0 and g.out[-1] == "SK"
    text = g.apply(Action("discard", "B5"))
    assert "player 2 skipped" in text and g.current == 2


def test_reverse_changes_direction_and_with_two_players_acts_as_skip():
    g = game(n=3, hands=[["RV", "B5", "B5", "B5", "B5"], ["B5"] * 5, ["B5"] * 5])
    g.apply(Action("special", "RV"))
    g.apply(Action("discard", "B5"))
    assert g.current == 2                      # to the right now
    g2 = game(n=2, hands=[["RV", "B5", "B5", "B5", "B5"], ["B5"] * 5])
    g2.apply(Action("special", "RV"))
    g2.apply(Action("discard", "B5"))
    assert g2.current == 0                     # the other player was skipped


def test_steal_a_card_from_a_discard_pile_or_a_hand():
    g = game(n=3, hands=[["SC", "SC", "B5", "B5", "B5"], ["R2", "R2", "R2", "R2", "R2"], ["B5"] * 5])
    g.discards[2] = ["R1", "RW"]
    g.apply(Action("special", "SC", target=2, choice="discard"))
    assert g.discards[2] == ["R1"] and "RW" in g.hands[0]
    g.apply(Action("special", "SC", target=1, choice="hand"))
    assert len(g.hands[1]) == 4 and g.hands[0].count("R2") == 1
    g2 = game(n=2, hands=[["SC", "B5", "B5", "B5", "B5"]])
    with pytest.raises(IllegalMoveError, match="Steal a Card names another player"):
        g2.apply(Action("special", "SC", target=0, choice="hand"))
    with pytest.raises(IllegalMoveError, match="player 2's discard pile is empty"):
        g2.apply(Action("special", "SC", target=1, choice="discard"))


def test_steal_a_chip_takes_a_chip_but_may_not_win():
    g = game(n=3, hands=[["CH", "CH", "B5", "B5", "B5"], ["B5"] * 5, ["B5"] * 5])
    g.chips = [{"R": 2, "B": 1}, {"R": 1, "B": 2}, {"R": 0, "B": 0}]
    g.apply(Action("special", "CH", target=1, choice="R"))
    assert g.chips[0] == {"R": 3, "B": 1} and g.chips[1] == {"R": 0, "B": 2}
    with pytest.raises(IllegalMoveError, match="cannot be used to win the game"):
        g.apply(Action("special", "CH", target=1, choice="B"))    # 3 red + 2 blue would win
    with pytest.raises(IllegalMoveError, match="player 3 has no red chip"):
        g.apply(Action("special", "CH", target=2, choice="R"))
    # the option that lets it win
    g2 = game(n=2, hands=[["CH", "B5", "B5", "B5", "B5"]], steal_chip_may_win=True)
    g2.chips = [{"R": 3, "B": 1}, {"R": 0, "B": 1}]
    g2.apply(Action("special", "CH", target=1, choice="B"))
    assert g2.over and g2.winner == 0


def test_win_needs_five_chips_with_two_of_each_colour():
    g = game()
    assert not g.wins({"R": 2, "B": 2})        # two and two is not a win
    assert not g.wins({"R": 4, "B": 1})
    assert g.wins({"R": 3, "B": 2}) and g.wins({"R": 2, "B": 4})
    g = game(hands=[["R5", "B5", "B5", "B5", "B5"], ["B5"] * 5])
    g.chips[0] = {"R": 2, "B": 2}
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    g.apply(play("R5", 0))
    g.resolve()
    assert g.over and g.winner == 0 and "player 1 wins" in g.result
    with pytest.raises(IllegalMoveError, match="the game is over"):
        g.apply(Action("discard", "B5"))


def test_two_player_deck_reduction():
    spec = load_deck()
    assert len(spec.deck(3)) == 120
    two = spec.deck(2)
    assert len(two) == 112 and "RV" not in two
    assert (two.count("BL"), two.count("CH"), two.count("SC"), two.count("SK")) == (2, 2, 2, 2)
    assert StacksGame(2).card_count == 112
    assert StacksGame(2, options=StacksOptions(two_player_reduction=False)).card_count == 120


def test_a_bad_deck_file_is_refused_naming_the_key(tmp_path):
    p = tmp_path / "deck.toml"
    p.write_text("[cards]\nR1 = 9\nZ9 = 3\n")
    with pytest.raises(EngineError, match=r"deck.toml: \[cards\] Z9: unknown card"):
        load_deck(p)
    p.write_text("[cards]\nR1 = -2\n")
    with pytest.raises(EngineError, match=r"\[cards\] R1: expected a count"):
        load_deck(p)
    p.write_text("[cards]\nR1 = 2\nB1 = 2\n[two_player_removed]\nR1 = 3\n")
    with pytest.raises(EngineError, match="removes 3, the deck has 2"):
        load_deck(p)


def test_counterclockwise_direction_option():
    g = game(n=3, hands=[["B5"] * 5] * 3, direction="counterclockwise")
    g.apply(Action("discard", "B5"))
    assert g.current == 2


def test_refereeing_real_cards_checks_what_is_public():
    g = StacksGame(2, known=False)
    assert set(g.hands[0]) == {"?"}
    g.apply(play("R1"))                        # any hidden card may be a red 1
    g.piles[0].cards += ["R2", "R3", "R4"]
    g.apply(play("R5", 0))
    g.resolve()
    # every Reverse is out of a two-player deck: nobody can lay one
    with pytest.raises(IllegalMoveError, match="every Reverse of the deck is already in sight"):
        g.apply(Action("special", "RV"))
    assert g.chips[0]["R"] == 1


def test_greedy_beats_random_nearly_always():
    won = 0
    for k in range(40):
        g = StacksGame(2, rng=random.Random(k), first=k % 2)
        play_stacks_game(g, [GreedyStacksPlayer(random.Random(k)), RandomStacksPlayer(random.Random(k))])
        won += g.winner == 0
    assert won >= 32


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10**6), st.sampled_from(["random", "greedy", "mixed"]))
def test_random_games_end_conserve_cards_and_chips_and_replay_exactly(n, seed, kind):
    g = StacksGame(n, rng=random.Random(seed))
    cards, chips = g.cards_in_game(), g.chips_in_game()
    players = [(RandomStacksPlayer if kind == "random" or (kind == "mixed" and p % 2)
                else GreedyStacksPlayer)(random.Random(seed + p)) for p in range(n)]
    entries = record_game(g, players, seed)
    assert g.over and (g.winner is not None or g.result.startswith("drawn"))
    assert g.cards_in_game() == cards and g.chips_in_game() == chips
    if g.winner is not None:
        assert g.wins(g.chips[g.winner])
    text = "\n".join(dumps(e) for e in entries) + "\n"
    steps = replay(parse_record(text, "r").entries)
    assert all(s["ok"] for s in steps)
    logged = [e["text"] for e in entries if e["type"] == "action"]
    assert [s["text"] for s in steps if s["n"] != "end"] == logged


def test_a_record_cut_off_replays_to_its_last_whole_line():
    g = StacksGame(2, rng=random.Random(3))
    entries = record_game(g, [GreedyStacksPlayer(random.Random(1)), GreedyStacksPlayer(random.Random(2))], 3)
    text = "\n".join(dumps(e) for e in entries[:20])
    cut = text + "\n" + dumps(entries[20])[:17]
    parsed = parse_record(cut, "r")
    assert parsed.stopped and "line 21" in parsed.stopped
    steps = replay(parsed.entries)
    assert all(s["ok"] for s in steps) and len(steps) == 20
