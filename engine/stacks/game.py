"""SEQUENCE STACKS: the rules (docs/stacks.md, RULES.md section 4).

One :class:`StacksGame` serves two purposes:

* a full game the engine deals itself (seeded), every hand known: computer players,
  property tests, benchmarks, virtual tables;
* the referee of a game played with real cards (``known=False``): nobody tells the engine
  the hands or the deck, so they are ``?`` cards; every card laid, discarded or stolen is
  entered and checked against what is public (the piles, the discard piles, the chips, and
  how many of each card the deck holds).

Actions (:class:`Action`) are applied with :meth:`StacksGame.apply`, which raises
:class:`~engine.errors.IllegalMoveError` with the reason when an action breaks a rule.
A completed pile opens a Block window (:attr:`StacksGame.pending`): any other player may
play Block; :meth:`StacksGame.resolve` (or the next action of the player to move) closes
it and awards the chip.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from ..errors import IllegalMoveError
from .cards import COLOUR_NAMES, COLOURS, SPECIALS, UNKNOWN, DeckSpec, card_name, colour, \
    is_wild, load_deck, number


_COLOURED = frozenset(f"{c}{n}" for c in COLOURS for n in "12345W")


@dataclass(frozen=True)
class StacksOptions:
    """The open points of the rule book, each with its default (docs/stacks.md)."""

    direction: str = "clockwise"          # "clockwise" (to the left) or "counterclockwise"
    steal_chip_may_win: bool = False      # Steal a Chip may not complete its player's win
    two_player_reduction: bool = True     # the book's removal of cards for two players
    max_piles_per_colour: int = 2
    hand_size: int = 5
    win_chips: int = 5
    win_each_colour: int = 2
    #: full rounds with nothing laid, drawn or stolen before a stuck game is declared drawn
    stall_rounds: int = 2
    #: which cards the deck is rebuilt from when it runs out: "sequences", the book's "cards
    #: from previously made SEQUENCES" (the completed piles that earned a chip; played
    #: special cards and blocked piles stay out of play), or "out_of_play", the whole
    #: out-of-play pile (the engine's reading before issue 20)
    reshuffle: str = "sequences"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "StacksOptions":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def __post_init__(self) -> None:
        if self.reshuffle not in RESHUFFLES:
            raise IllegalMoveError(f"option reshuffle must be one of {', '.join(RESHUFFLES)}, "
                                   f"not {self.reshuffle!r}")


#: The readings of the reshuffle (StacksOptions.reshuffle).
RESHUFFLES = ("sequences", "out_of_play")


@dataclass(frozen=True)
class Action:
    """One thing a player does.

    ``kind``: ``play`` (a number or wild on a pile; ``pile`` -1 starts a new pile),
    ``special`` (Skip, Reverse, Steal a Card on ``target`` taking from ``choice``
    "discard" or "hand", Steal a Chip on ``target`` taking colour ``choice``), ``discard``
    (a card from hand onto one's own discard pile: ends the turn; ``card`` "" when the hand
    is empty), ``block`` (``player`` plays Block on the pile just completed).
    ``source`` is "hand" or "discard" (the top of one's own discard pile).
    """

    kind: str
    card: str = ""
    source: str = "hand"
    pile: int = -1
    target: int = -1
    choice: str = ""
    player: int = -1

    def to_json(self) -> dict:
        d = {"kind": self.kind}
        for k in ("card", "source", "pile", "target", "choice", "player"):
            v = getattr(self, k)
            if v != Action.__dataclass_fields__[k].default:
                d[k] = v
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Action":
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass
class Pile:
    colour: str
    cards: list[str] = field(default_factory=list)

    @property
    def height(self) -> int:
        return len(self.cards)


@dataclass
class Pending:
    """A pile just completed, its chip not yet given: the Block window."""

    pile: Pile
    player: int


class StacksGame:
    def __init__(self, players: int, *, rng: random.Random | None = None,
                 options: StacksOptions = StacksOptions(), deck: DeckSpec | None = None,
                 known: bool = True, first: int = 0) -> None:
        if not 2 <= players <= 6:
            raise IllegalMoveError(f"SEQUENCE STACKS is for 2 to 6 players, not {players}")
        self.n = players
        self.options = options
        self.spec = deck or load_deck()
        self.known = known
        self.rng = rng or random.Random(0)
        cards = self.spec.deck(players, options.two_player_reduction)
        self.total = {c: cards.count(c) for c in set(cards)}
        self.card_count = len(cards)
        if known:
            self.rng.shuffle(cards)
        else:
            cards = [UNKNOWN] * len(cards)
        self.deck: list[str] = cards                 # top is the end
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.discards: list[list[str]] = [[] for _ in range(players)]
        self.piles: list[Pile] = []
        self.out: list[str] = []                     # the out-of-play pile
        self.made: list[str] = []                    # its cards of SEQUENCES made (in out too)
        self.chips: list[dict[str, int]] = [{c: 0 for c in COLOURS} for _ in range(players)]
        self.supply = {c: int(self.spec.chips.get(c, 20)) for c in COLOURS}
        self.chip_count = sum(self.supply.values())
        self.current = first
        self.step = 1 if options.direction == "clockwise" else -1
        self.skips = 0
        self.pending: Pending | None = None
        self.winner: int | None = None
        self.over = False
        self.result = ""
        self.turns = 0
        self.history: list[tuple[int, Action]] = []
        self.log: list[str] = []                     # what happened, in words
        self._idle = 0                               # turns in a row without progress
        self._progress = False
        for _ in range(options.hand_size):
            for p in range(players):
                self._draw_one(p)

    # --- public facts --------------------------------------------------------------------
    def top(self, player: int) -> str | None:
        d = self.discards[player]
        return d[-1] if d else None

    def piles_of(self, c: str) -> list[int]:
        return [i for i, p in enumerate(self.piles) if p.colour == c]

    def visible(self, card: str) -> int:
        """Copies of ``card`` anyone can see: on the piles, discard piles, out of play."""
        n = sum(p.cards.count(card) for p in self.piles) + self.out.count(card)
        n += sum(d.count(card) for d in self.discards)
        if self.pending is not None:
            n += self.pending.pile.cards.count(card)
        return n

    def wins(self, chips: dict[str, int]) -> bool:
        o = self.options
        return sum(chips.values()) >= o.win_chips and all(chips[c] >= o.win_each_colour for c in COLOURS)

    def name(self, p: int) -> str:
        return f"player {p + 1}"

    # --- drawing -------------------------------------------------------------------------
    def _draw_one(self, p: int) -> bool:
        if not self.deck:
            if self.options.reshuffle == "sequences":
                # the deck is used up: the cards of the SEQUENCES made since, shuffled, are
                # the new deck; special cards and blocked piles stay out of play
                cards = self.made
                for c in cards:
                    self.out.remove(c)
            else:
                cards = self.out
                self.out = []
            self.made = []
            if not cards:
                return False
            if self.known:
                self.rng.shuffle(cards)
                self.deck = cards
            else:
                self.deck = [UNKNOWN] * len(cards)
            what = "the cards of the SEQUENCES made" if self.options.reshuffle == "sequences" \
                else "the out-of-play pile"
            self.log.append(f"{what} ({len(cards)} cards) shuffled into a new deck")
        self.hands[p].append(self.deck.pop())
        self._progress = True
        return True

    def draw_up(self, p: int) -> int:
        n = 0
        while len(self.hands[p]) < self.options.hand_size and self._draw_one(p):
            n += 1
        return n

    # --- what may be done ----------------------------------------------------------------
    def _has(self, p: int, card: str, source: str) -> bool:
        if source == "discard":
            return self.top(p) == card
        hand = self.hands[p]
        return card in hand or (UNKNOWN in hand and self.visible(card) < self.total.get(card, 0))

    def pile_targets(self, card: str) -> list[int]:
        """Where a number or wild may go: pile indexes, and -1 for a new pile."""
        c = colour(card)
        if c is None:
            return []
        n = number(card)
        wild = n == 0
        out = []
        same = 0
        for i, p in enumerate(self.piles):
            if p.colour != c:
                continue
            same += 1
            h = len(p.cards)
            if h < 5 and (wild or n == h + 1):
                out.append(i)
        if (wild or n == 1) and same < self.options.max_piles_per_colour:
            out.append(-1)
        return out

    def wins_with(self, p: int, c: str) -> bool:
        """Whether one more chip of colour ``c`` would win the game for player ``p``."""
        chips = dict(self.chips[p])
        chips[c] += 1
        return self.wins(chips)

    def actions_for(self, card: str, src: str) -> list[Action]:
        """What the player to move may do with ``card`` from ``src`` (hand or discard top)."""
        p = self.current
        out: list[Action] = []
        if card in _COLOURED:
            for i in self.pile_targets(card):
                out.append(Action("play", card, src, i))
        elif card in ("SK", "RV"):
            out.append(Action("special", card, src))
        elif card == "SC":
            for t in range(self.n):
                if t == p:
                    continue
                if self.discards[t]:
                    out.append(Action("special", card, src, target=t, choice="discard"))
                if self.hands[t]:
                    out.append(Action("special", card, src, target=t, choice="hand"))
        elif card == "CH":
            for t in range(self.n):
                if t == p:
                    continue
                for c in COLOURS:
                    if self.chips[t][c] and (self.options.steal_chip_may_win
                                             or not self.wins_with(p, c)):
                        out.append(Action("special", card, src, target=t, choice=c))
        return out

    def legal_actions(self) -> list[Action]:
        """Everything the player to move may do now (full-information games)."""
        if self.over:
            return []
        p = self.current
        out: list[Action] = []
        held = sorted(set(self.hands[p]))
        for card in held:
            if card != UNKNOWN:
                out += self.actions_for(card, "hand")
        if self.discards[p]:
            out += self.actions_for(self.discards[p][-1], "discard")
        for card in held:
            out.append(Action("discard", card))
        if not self.hands[p]:
            out.append(Action("discard", ""))
        return out

    def blockers(self) -> list[int]:
        """Players who may Block the pile just completed, in turn order after its player."""
        if self.pending is None:
            return []
        first = self.pending.player
        order = [(first + k * self.step) % self.n for k in range(1, self.n)]
        return [q for q in order if "BL" in self.hands[q] or
                (UNKNOWN in self.hands[q] and self.visible("BL") < self.total.get("BL", 0))]

    # --- doing it ------------------------------------------------------------------------
    def check(self, a: Action) -> str | None:
        """Why ``a`` is not allowed now, in words; None when it is."""
        if self.over:
            return "the game is over"
        if a.kind == "block":
            q = a.player
            if not 0 <= q < self.n:
                return f"no player {q + 1}"
            if self.pending is None:
                return "Block cancels a SEQUENCE as its 5 is laid: no SEQUENCE is waiting for its chip"
            if q == self.pending.player:
                return "Block is played on another player's SEQUENCE, not one's own"
            if not self._has(q, "BL", "hand"):
                return f"{self.name(q)} holds no Block"
            return None
        p = self.current
        if a.player not in (-1, p):
            return f"it is {self.name(p)}'s turn, not {self.name(a.player)}'s (only Block may be played out of turn)"
        if a.kind == "discard":
            if not a.card:
                return None if not self.hands[p] else "the turn ends by discarding a card from hand"
            if a.source != "hand":
                return "the discard comes from the hand"
            if a.card == UNKNOWN or not self._has(p, a.card, "hand"):
                return f"{self.name(p)} holds no {card_name(a.card)}"
            return None
        if a.source not in ("hand", "discard"):
            return f"unknown source {a.source!r}"
        if not self._has(p, a.card, a.source):
            if a.source == "discard":
                top = self.top(p)
                return (f"the top of {self.name(p)}'s discard pile is "
                        f"{card_name(top) if top else 'nothing'}, not {card_name(a.card)}")
            if self.visible(a.card) >= self.total.get(a.card, 0):
                return f"every {card_name(a.card)} of the deck is already in sight"
            return f"{self.name(p)} holds no {card_name(a.card)}"
        if a.kind == "play":
            c = colour(a.card)
            if c is None:
                return f"{card_name(a.card)} is not played on a pile"
            if a.pile == -1:
                if not (is_wild(a.card) or number(a.card) == 1):
                    return f"a new {COLOUR_NAMES[c]} pile starts with a 1 or a {COLOUR_NAMES[c]} wild"
                if len(self.piles_of(c)) >= self.options.max_piles_per_colour:
                    return (f"there are already {self.options.max_piles_per_colour} "
                            f"{COLOUR_NAMES[c]} piles")
                return None
            if not 0 <= a.pile < len(self.piles):
                return f"there is no pile {a.pile + 1}"
            pile = self.piles[a.pile]
            if pile.colour != c:
                return f"{card_name(a.card)} cannot go on a {COLOUR_NAMES[pile.colour]} pile"
            if not is_wild(a.card) and number(a.card) != pile.height + 1:
                return f"pile {a.pile + 1} needs a {pile.height + 1}, not a {number(a.card)}"
            return None
        if a.kind == "special":
            if a.card not in SPECIALS or a.card == "BL":
                return (f"{card_name(a.card)} is played on a pile" if colour(a.card) else
                        "Block is played on a SEQUENCE just completed")
            if a.card in ("SC", "CH"):
                t = a.target
                if not 0 <= t < self.n or t == p:
                    return f"{card_name(a.card)} names another player"
                if a.card == "SC":
                    if a.choice == "discard" and not self.discards[t]:
                        return f"{self.name(t)}'s discard pile is empty"
                    if a.choice == "hand" and not self.hands[t]:
                        return f"{self.name(t)} holds no cards"
                    if a.choice not in ("discard", "hand"):
                        return "Steal a Card takes from the discard pile or the hand"
                else:
                    if a.choice not in COLOURS:
                        return "Steal a Chip names the colour: R or B"
                    if not self.chips[t][a.choice]:
                        return f"{self.name(t)} has no {COLOUR_NAMES[a.choice]} chip"
                    if not self.options.steal_chip_may_win and self.wins_with(p, a.choice):
                        return "Steal a Chip cannot be used to win the game"
            return None
        return f"unknown action {a.kind!r}"

    def apply(self, a: Action) -> str:
        """Carry ``a`` out; what happened, in words. IllegalMoveError (with why) if not allowed."""
        if self.pending is not None and a.kind != "block":
            self.resolve()
            if self.over:
                raise IllegalMoveError("the game is over")
        why = self.check(a)
        if why:
            raise IllegalMoveError(why)
        p = a.player if a.kind == "block" else self.current
        self.history.append((p, a if a.player == p else
                             Action(a.kind, a.card, a.source, a.pile, a.target, a.choice, p)))
        if a.kind == "block":
            return self._block(p)
        if a.kind == "discard":
            return self._end_turn(p, a.card)
        self._take(p, a.card, a.source)
        self._progress = True
        if a.kind == "play":
            return self._play(p, a)
        return self._special(p, a)

    def _take(self, p: int, card: str, source: str) -> None:
        if source == "discard":
            self.discards[p].pop()
            return
        hand = self.hands[p]
        hand.remove(card if card in hand else UNKNOWN)

    def _refill_if_empty(self, p: int) -> str:
        # "If you are able to play all five of the cards in your hand during your turn,
        # without discarding, draw five more and continue playing."
        if not self.hands[p] and not self.over:
            n = self.draw_up(p)
            if n:
                return f"; {self.name(p)} played the whole hand and draws {n} more"
        return ""

    def _play(self, p: int, a: Action) -> str:
        c = colour(a.card)
        if a.pile == -1:
            self.piles.append(Pile(c, [a.card]))
            i = len(self.piles) - 1
            text = f"{self.name(p)} starts {COLOUR_NAMES[c]} pile {i + 1} with {card_name(a.card)}"
        else:
            i = a.pile
            self.piles[i].cards.append(a.card)
            text = f"{self.name(p)} lays {card_name(a.card)} on pile {i + 1}"
        if self.piles[i].height == 5:
            pile = self.piles.pop(i)
            self.pending = Pending(pile, p)
            text += f": the {COLOUR_NAMES[c]} SEQUENCE is complete"
        text += self._refill_if_empty(p)
        self.log.append(text)
        return text

    def resolve(self) -> str:
        """Close the Block window: the completed pile goes out of play and its player takes
        a chip of its colour (if any is left); the game may be won."""
        if self.pending is None:
            return ""
        pile, p = self.pending.pile, self.pending.player
        self.pending = None
        self.out += pile.cards
        self.made += pile.cards
        c = pile.colour
        if self.supply[c]:
            self.supply[c] -= 1
            self.chips[p][c] += 1
            text = f"{self.name(p)} takes a {COLOUR_NAMES[c]} chip"
        else:
            text = f"no {COLOUR_NAMES[c]} chip is left for {self.name(p)}"
        if self.wins(self.chips[p]):
            self.over, self.winner = True, p
            self.result = f"{self.name(p)} wins with {self._chips_text(p)}"
            text += f"; {self.result}"
        self.log.append(text)
        return text

    def _block(self, q: int) -> str:
        pend = self.pending
        self._take(q, "BL", "hand")
        self.pending = None
        self.out += pend.pile.cards + ["BL"]
        text = (f"{self.name(q)} plays Block: {self.name(pend.player)}'s "
                f"{COLOUR_NAMES[pend.pile.colour]} SEQUENCE is discarded, nobody earns a chip")
        self.log.append(text)
        return text

    def _special(self, p: int, a: Action) -> str:
        self.out.append(a.card)
        if a.card == "SK":
            self.skips += 1
            text = f"{self.name(p)} plays Skip: the next player is skipped"
        elif a.card == "RV":
            if self.n == 2:
                self.skips += 1
                text = f"{self.name(p)} plays Reverse: with two players it skips the other"
            else:
                self.step = -self.step
                text = f"{self.name(p)} plays Reverse: play changes direction"
        elif a.card == "SC":
            t = a.target
            if a.choice == "discard":
                card = self.discards[t].pop()
                what = f"the {card_name(card)} from the top of {self.name(t)}'s discard pile"
            else:
                hand = self.hands[t]
                card = hand.pop(self.rng.randrange(len(hand)))
                what = f"a card from {self.name(t)}'s hand"
            self.hands[p].append(card)
            text = f"{self.name(p)} plays Steal a Card and takes {what}"
        else:
            t, c = a.target, a.choice
            self.chips[t][c] -= 1
            self.chips[p][c] += 1
            text = (f"{self.name(p)} plays Steal a Chip and takes a {COLOUR_NAMES[c]} chip "
                    f"from {self.name(t)}")
            if self.wins(self.chips[p]):          # only with steal_chip_may_win
                self.over, self.winner = True, p
                self.result = f"{self.name(p)} wins with {self._chips_text(p)}"
                text += f"; {self.result}"
        text += self._refill_if_empty(p)
        self.log.append(text)
        return text

    def _end_turn(self, p: int, card: str) -> str:
        if card:
            self._take(p, card, "hand")
            self.discards[p].append(card)
            text = f"{self.name(p)} discards {card_name(card)}"
        else:
            text = f"{self.name(p)} has no card to discard"
        n = self.draw_up(p)
        if n:
            text += f" and draws {n}"
        self.turns += 1
        self._idle = 0 if self._progress else self._idle + 1
        self._progress = False
        nxt = (p + self.step) % self.n
        skipped = []
        while self.skips:
            skipped.append(nxt)
            nxt = (nxt + self.step) % self.n
            self.skips -= 1
        self.current = nxt
        if skipped:
            text += "; " + ", ".join(self.name(s) for s in skipped) + " skipped"
        if self._idle >= self.options.stall_rounds * self.n:
            self.over = True
            self.result = ("drawn: nothing was laid, drawn or stolen for "
                           f"{self.options.stall_rounds} rounds (deck and out-of-play pile empty)")
            text += f"; {self.result}"
        self.log.append(text)
        return text

    def _chips_text(self, p: int) -> str:
        ch = self.chips[p]
        return f"{ch['B']} blue and {ch['R']} red chips"

    # --- invariants (tests) --------------------------------------------------------------
    def cards_in_game(self) -> int:
        n = len(self.deck) + len(self.out) + sum(map(len, self.hands)) + sum(map(len, self.discards))
        n += sum(p.height for p in self.piles)
        if self.pending is not None:
            n += self.pending.pile.height
        return n

    def chips_in_game(self) -> int:
        return sum(self.supply.values()) + sum(sum(c.values()) for c in self.chips)

    def view(self) -> dict:
        """The public state, for displays (no hidden card)."""
        return {
            "game": "stacks", "players": self.n, "current": self.current,
            "direction": "clockwise" if self.step == 1 else "counterclockwise",
            "piles": [{"colour": p.colour, "cards": list(p.cards)} for p in self.piles],
            "pending": (None if self.pending is None else
                        {"player": self.pending.player, "colour": self.pending.pile.colour}),
            "discard_tops": [self.top(p) for p in range(self.n)],
            "hand_sizes": [len(h) for h in self.hands], "deck": len(self.deck),
            "out_of_play": len(self.out), "chips": [dict(c) for c in self.chips],
            "over": self.over, "winner": self.winner, "result": self.result,
        }
