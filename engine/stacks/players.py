"""Computer players for SEQUENCE STACKS: random, and greedy (sensible rules of thumb).

A player has ``choose(game) -> Action`` for its own turn and ``block(game) -> bool`` for
the Block window after another player completes a pile. It looks only at what its seat
may see: its hand, the discard tops, the piles, the chips, the counts of cards.
"""

from __future__ import annotations

import random

from .cards import COLOURS, colour, is_wild, number
from .game import Action, StacksGame


class RandomStacksPlayer:
    """Any legal action, at random; plays on more often than it ends its turn."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(0)

    def choose(self, game: StacksGame) -> Action:
        rng = self.rng
        p = game.current
        hand = game.hands[p]
        if rng.random() < 0.8:
            cands = [(c, "hand") for c in hand]
            if game.discards[p]:
                cands.append((game.discards[p][-1], "discard"))
            rng.shuffle(cands)
            for card, src in cands:
                acts = game.actions_for(card, src)
                if acts:
                    return acts[0] if len(acts) == 1 else rng.choice(acts)
        return Action("discard", rng.choice(hand) if hand else "")

    def block(self, game: StacksGame, me: int) -> bool:
        return self.rng.random() < 0.5


class GreedyStacksPlayer:
    """Rules of thumb a good player follows.

    * Lay every card that builds a pile, number cards before wilds (wilds are kept for
      the gaps), the top of its discard pile first (it frees the card under it), and
      complete a pile whenever it can, above all in a colour it still needs.
    * Never bring a pile to 4 when it holds no 5 or wild of that colour and the next
      player could finish it... unless nothing else is left to do.
    * Skip and Steal a Card are played at once; Reverse when the player who would go next
      is ahead; Steal a Chip takes the colour it needs from the leader, never one that
      would not count.
    * Block is kept for an opponent's completed pile that brings them closer to winning.
    * It ends its turn discarding the card least useful to it: a card it can play next turn
      from the discard pile is better there than in hand.
    """

    name = "greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(0)

    @staticmethod
    def _need(game: StacksGame, p: int) -> dict[str, float]:
        """How much a chip of each colour is worth to player ``p``."""
        ch = game.chips[p]
        o = game.options
        out = {}
        for c in COLOURS:
            short = max(0, o.win_each_colour - ch[c])
            out[c] = 1.0 + 2.0 * short
        return out

    def _score(self, game: StacksGame, a: Action, me: int) -> float:
        if a.kind == "play":
            c = colour(a.card)
            need = self._need(game, me)
            h = 0 if a.pile == -1 else game.piles[a.pile].height
            s = 10.0 + h
            if h == 4:
                s += 40.0 * need[c]                       # completes a SEQUENCE
            if is_wild(a.card):
                s -= 6.0 if h < 4 else 0.0                # keep wilds for the gaps
            if a.source == "discard":
                s += 3.0
            if h == 3:
                # a pile at 4 invites the next player to finish it
                mine = [x for x in game.hands[me] if x != a.card and colour(x) == c
                        and (is_wild(x) or number(x) == 5)]
                if not mine:
                    s -= 12.0
            return s
        if a.kind == "special":
            if a.card == "SK":
                return 8.0
            if a.card == "SC":
                if a.choice == "discard":
                    top = game.top(a.target)
                    useful = colour(top) is not None and game.pile_targets(top)
                    return 9.0 if useful else 6.5
                return 7.0
            if a.card == "CH":
                need = self._need(game, me)[a.choice]
                lead = sum(game.chips[a.target].values())
                return 20.0 + 5.0 * need + lead
            if a.card == "RV":
                nxt = (me + game.step) % game.n
                prev = (me - game.step) % game.n
                ahead = sum(game.chips[nxt].values()) - sum(game.chips[prev].values())
                return 7.5 if ahead > 0 or game.n == 2 else -1.0
        return -100.0

    def _discard_value(self, game: StacksGame, card: str, me: int) -> float:
        """How much keeping ``card`` in hand is worth (the lowest is discarded)."""
        if card == "BL":
            return 50.0
        if card in ("SK", "SC", "CH", "RV"):
            return 30.0
        c = colour(card)
        if is_wild(card):
            return 40.0
        n = number(card)
        best = 99
        for p in game.piles:
            if p.colour == c and p.height < n:
                best = min(best, n - 1 - p.height)
        if n == 1:
            best = 0 if len(game.piles_of(c)) < game.options.max_piles_per_colour else best
        # a card two or more steps away is fine on the discard pile: it comes back later
        return 20.0 - min(best, 6) * 3.0 - (0 if best < 99 else 5.0)

    def choose(self, game: StacksGame) -> Action:
        me = game.current
        acts = game.legal_actions()
        best, best_s = None, 0.0
        for a in acts:
            if a.kind == "discard":
                continue
            s = self._score(game, a, me)
            if s > best_s:
                best, best_s = a, s
        if best is not None:
            return best
        ends = [a for a in acts if a.kind == "discard"]
        return min(ends, key=lambda a: (self._discard_value(game, a.card, me) if a.card else 0.0,
                                         a.card))

    def block(self, game: StacksGame, me: int) -> bool:
        pend = game.pending
        if pend is None:
            return False
        them = dict(game.chips[pend.player])
        them[pend.pile.colour] += 1
        if game.wins(them):
            return True                                   # stops a win: always
        total = sum(them.values())
        return total >= game.options.win_chips - 2 or them[pend.pile.colour] <= game.options.win_each_colour


STACKS_KINDS = ("random", "greedy", "easy", "medium", "hard")


def make_stacks_player(kind: str, rng: random.Random | None = None, *,
                       budget: float | None = None, clock=None):
    if kind == "random":
        return RandomStacksPlayer(rng)
    if kind == "greedy":
        return GreedyStacksPlayer(rng)
    if kind in ("easy", "medium", "hard"):
        from .search import StacksSearchPlayer
        return StacksSearchPlayer(kind, rng or random.Random(0), budget=budget, clock=clock)
    raise ValueError(f"unknown STACKS player {kind!r}: {', '.join(STACKS_KINDS)}")


def play_stacks_game(game: StacksGame, players: list, max_actions: int = 20000,
                     on_action=None) -> StacksGame:
    """Play to the end: each player acts on its turn, and the others may Block each pile
    completed. ``on_action(player, action, text)`` sees everything that happens."""
    for _ in range(max_actions):
        if game.over:
            break
        if game.pending is not None:
            blocked = False
            for q in game.blockers():
                if players[q].block(game, q):
                    a = Action("block", "BL", player=q)
                    text = game.apply(a)
                    if on_action:
                        on_action(q, a, text)
                    blocked = True
                    break
            if not blocked:
                text = game.resolve()
                if on_action:
                    on_action(game.history[-1][0] if game.history else 0, Action("resolve"), text)
            continue
        p = game.current
        a = players[p].choose(game)
        text = game.apply(a)
        if on_action:
            on_action(p, a, text)
    return game
