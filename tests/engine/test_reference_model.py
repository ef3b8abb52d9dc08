"""The engine's sequences against the simple reference model (reference_sequences.py), move
by move, over thousands of random games of every edition, team count and the variants
that change sequences: after every move both must hold the same sequences (same spaces,
same teams, same order), the same counts, the same winner, and agree on which chips a
removing card may take.

The players are biased towards long lines and many sequences (pure random play rarely
makes either): most moves extend the mover's longest line, and many games play on to
more sequences than the edition needs (``sequences_to_win``), so that lines longer than
five, gaps filled between two runs, crossing sequences and the shared-space rule come up
often. ``SEQBOARD_REFERENCE_GAMES`` sets the number of games (default 2200).
"""

from __future__ import annotations

import os
import random

import pytest

from engine.board import EMPTY
from engine.editions import Options
from engine.game import Game
from engine.moves import Move

from .reference_sequences import ReferenceBoard

GAMES = int(os.environ.get("SEQBOARD_REFERENCE_GAMES", "2200"))

#: (edition, players, teams, advanced, max_shared): every edition and team count
KINDS = [
    ("classic", 2, 2, False, 1),
    ("classic", 3, 3, False, 1),
    ("classic", 4, 2, True, 1),       # the advanced variant: sequences can be broken
    ("classic", 6, 3, True, 1),
    ("classic", 2, 2, False, 2),
    ("classic", 2, 2, False, 0),
    ("travel", 2, 2, False, 1),
    ("travel", 2, 2, True, 1),
    ("jewish", 2, 2, False, 1),
    ("jewish", 3, 3, False, 1),
    ("jewish", 6, 3, True, 1),
]


def builder_move(g: Game, rng: random.Random) -> Move:
    """Mostly the move that makes the mover's longest line longest (gaps filled, lines
    lengthened past five), sometimes a removal or any legal move."""
    moves = g.legal_moves()
    if rng.random() < 0.12:
        return rng.choice(moves)
    removals = [m for m in moves if m.action == "remove"]
    if removals and rng.random() < 0.5:
        return rng.choice(removals)
    team = g.team
    best, best_score = None, -1.0
    for m in moves:
        if m.action != "place":
            continue
        score = g.board.threat(m.space, team) + rng.random()
        if m.card in g._wild:
            score -= 1.5
        if score > best_score:
            best, best_score = m, score
    return best or rng.choice(moves)


def reference_for(g: Game) -> ReferenceBoard:
    return ReferenceBoard(g.layout.rows, g.layout.cols, set(g.layout.free), g.board.k,
                          g.options.max_shared_spaces)


def engine_sets(g: Game) -> list[tuple[int, frozenset[int]]]:
    return [(q.team, frozenset(q.spaces)) for q in g.board.sequences]


def compare_game(g: Game, ref: ReferenceBoard, moves, limit: int = 1500) -> dict:
    """Play ``moves`` (a function of the game giving the next move) on the engine and the
    model, at most ``limit``; assert agreement after every move. Returns statistics."""
    stats = {"moves": 0, "sequences": 0, "several_at_once": 0, "long_lines": 0, "choices": 0,
             "second_sequences": 0}
    step = 0
    while not g.over and step < limit:
        m = moves(g)
        step += 1
        team = g.team
        if m.action == "remove":
            # the removals the engine allows are exactly the model's
            allowed = {s for s, t in ref.chips.items() if t != team
                       and (g.options.advanced or not ref.protected(s))}
            assert set(g.removable(team)) == allowed
        before = len(ref.sequences)
        g.push(m)
        stats["moves"] += 1
        if m.action == "place":
            made = ref.place(m.space, team)
            if len(made) > 1:
                stats["several_at_once"] += 1
            if made and g.board.threat(m.space, team) > g.board.k:
                stats["long_lines"] += 1
            if ref.last_choices > 1:
                stats["choices"] += 1
            if made and ref.count(team) >= 2:
                stats["second_sequences"] += 1
        elif m.action == "remove":
            ref.remove(m.space)
        assert engine_sets(g) == ref.sequences, (
            f"after {m.text(g.layout.cols)} ({step}): engine "
            f"{[q.text(g.layout.cols) for q in g.board.sequences]}, model "
            f"{[(t, sorted(s)) for t, s in ref.sequences]}")
        assert g.board.counts == [ref.count(t) for t in range(g.n_teams)]
        stats["sequences"] += max(0, len(ref.sequences) - before)
        won = [t for t in range(g.n_teams) if ref.count(t) >= g.to_win]
        assert g.over == bool(won) or (g.over and g.winner is None)
        if won:
            assert g.winner == team and won == [team]
        for s in range(g.layout.size):
            assert g.board.is_locked(s) == (s in ref.chips and ref.protected(s))
    return stats


def place_at(g: Game, name: str) -> Move:
    """A placement on ``name`` with the card of that space (swapped into the hand)."""
    s = g.layout.parse_space(name)
    assert g.board.cells[s] == EMPTY
    card = g.layout.symbols[s]
    hand = g.hands[g.current]
    if card not in hand:
        for pile in [g.deck] + [h for i, h in enumerate(g.hands) if i != g.current]:
            if card in pile:
                pile[pile.index(card)] = hand[0]
                hand[0] = card
                break
    return Move("place", card, s)


@pytest.mark.parametrize("kind", range(len(KINDS)))
def test_engine_and_reference_model_agree_move_by_move(kind):
    edition, players, teams, advanced, shared = KINDS[kind]
    n_games = max(1, GAMES // len(KINDS))
    totals = {"moves": 0, "sequences": 0, "several_at_once": 0, "long_lines": 0, "choices": 0,
              "second_sequences": 0}
    for n in range(n_games):
        seed = 1000 * kind + n
        rng = random.Random(seed)
        to_win = rng.choice([None, None, 3, 4, 6])
        opts = Options(advanced=advanced, max_shared_spaces=shared, sequences_to_win=to_win)
        g = Game(edition, players, teams, options=opts, rng=random.Random(seed))
        stats = compare_game(g, reference_for(g), lambda gg: builder_move(gg, rng))
        for key in totals:
            totals[key] += stats[key]
    print(KINDS[kind], n_games, "games", totals)
    # the games really exercised what they are for
    assert totals["sequences"] >= n_games
    assert totals["choices"] > 0            # lines longer than five completed at once
    assert totals["long_lines"] > 0
    assert totals["second_sequences"] > 0


def test_the_random_games_make_several_sequences_with_one_chip():
    """Across kinds, one chip often completes two sequences at once (a line of nine filled
    in its middle, or two directions)."""
    several = 0
    for kind in (0, 2, 4, 8):
        edition, players, teams, advanced, shared = KINDS[kind]
        for n in range(25):
            rng = random.Random(77_000 + n)
            opts = Options(advanced=advanced, max_shared_spaces=shared, sequences_to_win=6)
            g = Game(edition, players, teams, options=opts, rng=random.Random(n))
            several += compare_game(g, reference_for(g),
                                    lambda gg: builder_move(gg, rng))["several_at_once"]
    assert several >= 3


def test_example_games_against_the_reference_model():
    """Both games of issue 20: the line of nine laid in the order h5 h6 h1 h2 h8 h7 h4 h3
    h9 (one sequence, not two), and h6 lengthening a sequence (taken by a one-eyed jack)."""
    g = Game("classic", 2, rng=random.Random(5), options=Options(sequences_to_win=3))
    ref = reference_for(g)
    order = ["h5", "h6", "h1", "h2", "h8", "h7", "h4", "h3", "h9"]
    other = ["b2", "b4", "b6", "b8", "d2", "d4", "d6", "d8", "e10"]

    def moves(gg: Game) -> Move:
        return place_at(gg, order.pop(0) if gg.current == 0 else other.pop(0))

    compare_game(g, ref, moves, limit=17)
    assert [q.text() for q in g.board.sequences] == ["h4-h8"]
    assert g.board.counts == [1, 0] and not g.over
