"""The Pi as a player at a table of people (``seqboard play``).

People hold real cards; the Pi cannot. Each seat the Pi plays gets a virtual hand dealt
from the Pi's own virtual deck (seeded, recorded as ``computer_seed``), so a resumed game
deals it the same cards. When it is the Pi's turn it chooses a move from what a player in
its seat knows (its hand and the board), proposes it (the LEDs and the terminal show it)
and the move counts once a person has put the chip there. A chip put elsewhere is refused
until the board is put right. Because the Pi's cards are not in the physical deck, the
card-supply check is off in games with the Pi (see docs/configuration.md).
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from engine.moves import Move
from engine.players import make_player
from engine.search import seat_view

from ..session import Event, Session

if TYPE_CHECKING:
    from engine.game import Game

SEED_STRIDE = 100_003


class ComputerSeats:
    """The seats the Pi plays, their virtual hands, and when to move."""

    def __init__(self, session: Session, seats: dict[int, str], seed: int,
                 history: list[tuple[int, str, str | None]] = ()) -> None:
        r = session.referee
        self.session = session
        self.seats = dict(seats)
        self.seed = seed
        self.rng = random.Random(seed)
        self.deck = r.edition.deck()
        self.rng.shuffle(self.deck)
        size = r.edition.hand_size(r.n_players)
        self.hands = {s: [self.deck.pop() for _ in range(size)] for s in sorted(self.seats)}
        self.played: list[str] = []
        for seat, action, card in history:
            if seat in self.hands and card in self.hands[seat]:
                self._played(seat, card)
        self.last_reason = ""
        # the hands before each of the Pi's cards was used, by the number of moves then made:
        # an undo (the button or a chip lifted back) gives the card back
        self._before: list[tuple[int, dict, list, list]] = []
        session.subscribe(self._on_event)

    @classmethod
    def from_record(cls, session: Session, entries: list[dict]) -> "ComputerSeats":
        """Rebuild the Pi's hands after a restart from the moves in its record."""
        history = [(e.get("player"), e.get("action"), e.get("card")) for e in entries
                   if e.get("type") == "move" and e.get("card")]
        return cls(session, session.computers, session.seed or 0, history)

    def _played(self, seat: int, card: str) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        self.played.append(card)
        if not self.deck:
            self.deck = self.played[:]
            self.played.clear()
            self.rng.shuffle(self.deck)
        if self.deck:
            hand.append(self.deck.pop())

    def _remember(self, moves_before: int) -> None:
        self._before.append((moves_before, {s: h[:] for s, h in self.hands.items()},
                             self.deck[:], self.played[:]))

    def _on_event(self, event: Event, view: dict) -> None:
        v = event.verdict
        if event.kind == "verdict" and v is not None and "computer_card" in event.data \
                and v.player in self.hands:
            self._remember(len(self.session.referee.moves) - 1)
            self._played(v.player, event.data["computer_card"])
        elif event.kind == "undo":
            now = len(self.session.referee.moves)
            back = None
            while self._before and self._before[-1][0] >= now:
                back = self._before.pop()
            if back is not None:
                _, hands, self.deck, self.played = back
                self.hands = hands

    def view_game(self) -> Game:
        """A game as the player to move (a Pi seat) sees it: the board and its own hand."""
        r = self.session.referee
        return seat_view(r, r.current, self.hands[r.current], self.played, self.deck)

    def step(self, now: float) -> None:  # noqa: ARG002 - the loop's step signature
        s = self.session
        r = s.referee
        if s.ended or s.warning is not None or s.proposal is not None or r.over:
            return
        seat = r.current
        if seat not in self.hands:
            return
        g = self.view_game()
        player = make_player(self.seats[seat], random.Random(self.seed * SEED_STRIDE + g.turn),
                             clock=time.monotonic)
        move: Move = player.choose(g)
        reason = getattr(player, "last_reason", "") or ""
        if move.action == "dead":
            self._remember(len(r.moves))
            self._played(seat, move.card)
            s.dead_card(move.card)
        elif move.action == "pass":
            s.pass_turn()
        else:
            s.propose(move, reason)
