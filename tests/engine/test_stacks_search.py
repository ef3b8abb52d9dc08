"""The SEQUENCE STACKS search player: legal, takes the winning chip, Blocks a winning
SEQUENCE, and is blind to the hands it cannot see."""

import os
import random

import pytest

from engine.stacks.game import Action, Pending, Pile, StacksGame
from engine.stacks.players import GreedyStacksPlayer, RandomStacksPlayer, make_stacks_player, \
    play_stacks_game
from engine.stacks.search import StacksSearchPlayer, unseen_cards


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_never_an_illegal_action(players):
    """StacksGame.apply raises on anything the rules refuse; 12 seeded games a count
    (25 until session 15, ``SEQBOARD_SWEEP_SCALE=2`` plays those; the hard level plays 200
    more in benchmarks/players.py)."""
    for n in range(max(1, round(12 * float(os.environ.get("SEQBOARD_SWEEP_SCALE", "1"))))):
        seats = []
        for s in range(players):
            if s == n % players:
                seats.append(StacksSearchPlayer("easy", n * 10 + s))
            else:
                seats.append((GreedyStacksPlayer if s % 2 else RandomStacksPlayer)(
                    random.Random(n * 10 + s)))
        g = StacksGame(players, rng=random.Random(n))
        play_stacks_game(g, seats)
        assert g.over
        assert g.cards_in_game() == g.card_count and g.chips_in_game() == g.chip_count


def position(seed: int = 1) -> StacksGame:
    g = StacksGame(2, rng=random.Random(seed))
    g.chips[0] = {"R": 2, "B": 2}
    g.supply["R"] -= 2
    g.supply["B"] -= 2
    return g


def test_takes_the_chip_that_wins():
    g = position()
    g.piles = [Pile("B", ["B1", "B2", "B3", "B4"]), Pile("R", ["R1"])]
    g.hands[0] = ["R2", "B5", "SK", "R4", "B1"]
    p = StacksSearchPlayer("hard", 1)
    action = p.choose(g)
    assert action == Action("play", "B5", "hand", 0)
    assert p.last_reason == "completes a blue SEQUENCE for a chip"
    g.apply(action)
    g.resolve()
    assert g.winner == 0


def test_blocks_the_sequence_that_would_win_and_keeps_block_otherwise():
    g = position()
    g.hands[1] = ["BL", "R1", "R2", "B3", "SK"]
    g.pending = Pending(Pile("B", ["B1", "B2", "B3", "B4", "B5"]), 0)
    p = StacksSearchPlayer("hard", 2)
    assert p.block(g, 1) is True
    assert p.last_reason == "blocks the SEQUENCE that would win the game"
    g.apply(Action("block", "BL", player=1))
    assert g.winner is None and g.chips[0]["B"] == 2


def test_the_same_action_whatever_the_hidden_hand_holds():
    checked = 0
    for seed in (5, 6, 7, 8, 9):
        g = StacksGame(2, rng=random.Random(seed))
        players = [make_stacks_player("greedy", random.Random(seed + k)) for k in range(2)]
        play_stacks_game(g, players, max_actions=25)
        if g.over or g.pending is not None:
            continue
        me, them = g.current, 1 - g.current
        visible = unseen_cards(g, me)
        first = StacksSearchPlayer("medium", seed).choose(g)
        pool = g.hands[them] + g.deck
        random.Random(seed + 50).shuffle(pool)
        k = len(g.hands[them])
        g.hands[them], g.deck = pool[:k], pool[k:]
        assert unseen_cards(g, me) == visible
        assert StacksSearchPlayer("medium", seed).choose(g) == first
        checked += 1
    assert checked >= 3


def test_every_action_of_a_game_has_a_reason():
    g = StacksGame(2, rng=random.Random(3))
    seen = []

    class Watch(StacksSearchPlayer):
        def choose(self, game):
            a = super().choose(game)
            seen.append(self.last_reason)
            return a

    play_stacks_game(g, [Watch("easy", 3), GreedyStacksPlayer(random.Random(4))])
    assert seen and all(seen)
    assert any(r.startswith(("lays", "starts", "completes")) for r in seen)
    assert any(r.startswith("ends the turn discarding") for r in seen)
