"""A search player for SEQUENCE STACKS: determinized Monte Carlo over what a seat knows.

At each decision (an action in its turn, or whether to Block a pile just completed) the
player deals the cards it cannot see (the deck's make-up less its own hand and every card
in sight: piles, discard piles, the out-of-play pile) into the other hands, at their real
sizes, and into the deck; plays each candidate in that deal and lets every seat play on
with the greedy rules of thumb to the end of the game. Candidates share the same deals,
and the one that wins most often is played. A Block card is held back: the search decides
in the Block window whether cancelling this SEQUENCE is worth the card.

As with the board editions, the engine stays pure: a seeded generator, and a wall clock
only when the caller passes one.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable
from typing import ClassVar

from ..search import clear_gain
from .cards import COLOUR_NAMES, card_name, colour
from .game import Action, Pending, Pile, StacksGame
from .players import GreedyStacksPlayer


def clone(game: StacksGame, rng: random.Random) -> StacksGame:
    """An independent copy of the position for search (no history, no log)."""
    g = copy.copy(game)
    g.deck = list(game.deck)
    g.hands = [list(h) for h in game.hands]
    g.discards = [list(d) for d in game.discards]
    g.piles = [Pile(p.colour, list(p.cards)) for p in game.piles]
    g.out = list(game.out)
    g.made = list(game.made)
    g.chips = [dict(c) for c in game.chips]
    g.supply = dict(game.supply)
    if game.pending is not None:
        g.pending = Pending(Pile(game.pending.pile.colour, list(game.pending.pile.cards)),
                            game.pending.player)
    g.history = []
    g.log = _NoLog()
    g.rng = rng
    return g


class _NoLog(list):
    """A log that forgets (searching writes thousands of lines nobody reads)."""

    def append(self, _item) -> None:
        pass


def unseen_cards(game: StacksGame, seat: int) -> list[str]:
    """Cards ``seat`` cannot see, in an order that depends only on what it can see."""
    pool = Counter(game.total)
    pool.subtract(game.hands[seat])
    for pile in game.piles:
        pool.subtract(pile.cards)
    for pile in game.discards:
        pool.subtract(pile)
    pool.subtract(game.out)
    if game.pending is not None:
        pool.subtract(game.pending.pile.cards)
    return [c for c in sorted(pool) for _ in range(max(0, pool[c]))]


def determinize(game: StacksGame, seat: int, rng: random.Random) -> StacksGame:
    g = clone(game, random.Random(rng.random()))
    unseen = unseen_cards(game, seat)
    rng.shuffle(unseen)
    k = 0
    for p in range(game.n):
        if p == seat:
            continue
        n = len(game.hands[p])
        g.hands[p] = unseen[k:k + n]
        k += n
    g.deck = unseen[k:k + len(game.deck)]
    return g


def _playout(g: StacksGame, players: list, limit: int = 4000) -> None:
    for _ in range(limit):
        if g.over:
            return
        if g.pending is not None:
            for q in g.blockers():
                if players[q].block(g, q):
                    g.apply(Action("block", "BL", player=q))
                    break
            else:
                g.resolve()
            continue
        g.apply(players[g.current].choose(g))


def reason(game: StacksGame, a: Action) -> str:
    """One line of why for an action, from the position before it."""
    if a.kind == "block":
        pend = game.pending
        return (f"blocks player {pend.player + 1}'s {COLOUR_NAMES[pend.pile.colour]} SEQUENCE"
                if pend else "blocks")
    if a.kind == "discard":
        return f"ends the turn discarding {card_name(a.card)}" if a.card else "ends the turn"
    if a.kind == "play":
        c = colour(a.card)
        h = 0 if a.pile == -1 else game.piles[a.pile].height
        src = " from the discard pile" if a.source == "discard" else ""
        if h == 4:
            return f"completes a {COLOUR_NAMES[c]} SEQUENCE for a chip{src}"
        if a.pile == -1:
            return f"starts a {COLOUR_NAMES[c]} pile with {card_name(a.card)}{src}"
        return f"lays {card_name(a.card)} on the {COLOUR_NAMES[c]} pile {a.pile + 1}{src}"
    if a.card == "CH":
        return f"steals a {COLOUR_NAMES[a.choice]} chip from player {a.target + 1}"
    if a.card == "SC":
        where = "discard pile" if a.choice == "discard" else "hand"
        return f"steals a card from player {a.target + 1}'s {where}"
    if a.card == "SK":
        return "skips the next player"
    if a.card == "RV":
        return "reverses the direction of play"
    return card_name(a.card)


def _dedupe(actions: list[Action]) -> list[Action]:
    seen = set()
    out = []
    for a in actions:
        key = (a.kind, a.card, a.source, a.pile, a.target, a.choice)
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


class StacksSearchPlayer:
    """SEQUENCE STACKS computer player: ``level`` easy/medium/hard, ``seed``, ``budget``
    seconds per decision with a ``clock`` (see :class:`engine.search.SearchPlayer`)."""

    #: per level: deals, seconds a decision at most (with a clock), how often it picks at
    #: random among its best three
    LEVELS: ClassVar[dict[str, tuple[int, float, float]]] = {
        "easy": (2, 0.2, 0.5), "medium": (6, 0.5, 0.0), "hard": (14, 1.0, 0.0)}
    #: other plays looked at besides the rules' choice
    ALTERNATIVES = 3
    #: how much more often (a share of the deals) another action must win to be chosen
    MARGIN = 0.1

    def __init__(self, level: str = "hard", seed: int | random.Random = 0,
                 budget: float | None = None, clock: Callable[[], float] | None = None,
                 deals: int | None = None) -> None:
        if level not in self.LEVELS:
            raise ValueError(f"unknown level {level!r} (known: {', '.join(self.LEVELS)})")
        self.name = level
        deals_, seconds, self.slip = self.LEVELS[level]
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.budget = seconds if budget is None else budget
        self.clock = clock
        self.deals = deals_ if deals is None else deals
        self.greedy = GreedyStacksPlayer(random.Random(self.rng.random()))
        self.last_reason = ""

    def _candidates(self, game: StacksGame) -> list[Action]:
        """The greedy rules' choice first, then the few alternatives worth a look: the
        best other plays by the same rules, and the least useful cards to end with."""
        me = game.current
        acts = _dedupe(game.legal_actions())
        g = self.greedy
        first = g.choose(game)
        plays = sorted(((g._score(game, a, me), a) for a in acts if a.kind != "discard"),
                       key=lambda x: -x[0])
        ends = sorted((a for a in acts if a.kind == "discard"),
                      key=lambda a: (g._discard_value(game, a.card, me) if a.card else 0.0, a.card))
        out = [first]
        for sc, a in plays[:self.ALTERNATIVES]:
            if sc > 0 and a not in out:
                out.append(a)
        for a in ends[:2]:
            if a not in out:
                out.append(a)
        return out

    def _search(self, game: StacksGame, me: int, options: list, apply) -> list[list[float]]:
        """Per option, ``me``'s result in each deal (1 a win, 0 a loss, a share of a
        drawn game); every option plays in the same deals; ``apply(g, option)`` plays it."""
        results: list[list[float]] = [[] for _ in options]
        start = self.clock() if self.clock else 0.0
        for _ in range(self.deals):
            world = determinize(game, me, self.rng)
            seed = self.rng.random()
            for i, opt in enumerate(options):
                g = clone(world, random.Random(seed))
                apply(g, opt)
                pl = [GreedyStacksPlayer(random.Random(seed + q)) for q in range(g.n)]
                _playout(g, pl)
                results[i].append(1.0 if g.winner == me else
                                  (1.0 / g.n if g.winner is None else 0.0))
            if self.clock and self.clock() - start >= self.budget:
                break
        return results

    def _pick(self, results: list[list[float]]) -> int:
        """The first option (the rules' choice) unless another wins clearly more often."""
        best, best_gain = 0, 0.0
        for i in range(1, len(results)):
            gain = clear_gain(results[i], results[0], self.MARGIN)
            if gain > best_gain:
                best, best_gain = i, gain
        return best

    def analyse(self, game: StacksGame) -> list[tuple[Action, float, str]]:
        """The candidate actions of the player to move, the one to play first, with the
        share of the deals each won and its reason."""
        me = game.current
        cands = self._candidates(game)
        if len(cands) == 1:
            return [(cands[0], 1.0, reason(game, cands[0]))]
        # a winning chip is never left on the table
        for a in cands:
            if a.kind == "play" and a.pile != -1 and game.piles[a.pile].height == 4:
                c = colour(a.card)
                if game.wins_with(me, c) and game.supply[c]:
                    return [(a, 1.0, reason(game, a))]
        results = self._search(game, me, cands, lambda g, a: g.apply(a))
        best = self._pick(results)
        order = [best] + [i for i in range(len(cands)) if i != best]
        return [(cands[i], sum(results[i]) / max(1, len(results[i])), reason(game, cands[i]))
                for i in order]

    def choose(self, game: StacksGame) -> Action:
        ranked = self.analyse(game)
        pick = ranked[0]
        if self.slip and len(ranked) > 1 and self.rng.random() < self.slip:
            pick = self.rng.choice(ranked[:3])
        self.last_reason = pick[2]
        return pick[0]

    def block(self, game: StacksGame, me: int) -> bool:
        pend = game.pending
        if pend is None:
            return False
        if game.wins_with(pend.player, pend.pile.colour) and game.supply[pend.pile.colour]:
            self.last_reason = "blocks the SEQUENCE that would win the game"
            return True

        def apply(g: StacksGame, do: bool) -> None:
            if do:
                g.apply(Action("block", "BL", player=me))
            else:
                g.resolve()
        # the rules' answer stands unless the other wins clearly more often in the deals;
        # the other seats' Block decisions after ours are left to the playout
        rules = self.greedy.block(game, me)
        results = self._search(game, me, [rules, not rules], apply)
        do = rules if self._pick(results) == 0 else not rules
        self.last_reason = ("blocks the SEQUENCE" if do
                            else "keeps Block for a SEQUENCE that matters more")
        return do


