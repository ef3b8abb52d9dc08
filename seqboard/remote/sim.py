"""A simulated person at a board in a remote game, for tests and the benchmark.

They place the chips the other board's moves ask for, and for the seats held here they play
a card from the seat's virtual hand (the first legal move a greedy player picks) by putting
the chip on the simulated table. The board reads the table through :class:`DirectSource`,
so every move goes through the referee like a real one.
"""

from __future__ import annotations

import random

from engine.observation import SpaceState
from engine.players import make_player
from engine.search import seat_view

from ..sources.table import DirectSource, Table
from .game import RemoteGame


class Person:
    def __init__(self, rg: RemoteGame, *, settle: float = 0.0, seed: int = 0,
                 level: str = "random", table: Table | None = None) -> None:
        r = rg.session.referee
        self.rg = rg
        self.table = table or Table.from_observation(r.expected())
        self.source = DirectSource(self.table, settle=settle)
        self.rng = random.Random(seed)
        self.level = level
        self.placed_for: int | None = None
        self.put_right = False           # an undo was agreed: the board is put back first
        self.meant: str | None = None    # the card of the chip this person placed last
        rg.session.subscribe(self._heard)

    def _heard(self, event, view) -> None:  # noqa: ARG002
        if event.kind == "undo":
            self.put_right = True
            self.placed_for = None       # the turn undone is played again

    def colour(self, team: int) -> SpaceState:
        return SpaceState(self.rg.session.referee.colours[team])

    def act(self) -> None:
        """Do what a person at this board would do now (at most one chip)."""
        s = self.rg.session
        r = s.referee
        if self.put_right:               # the chips of the moves undone go back as they were
            self.put_right = False
            for i, st in enumerate(r.expected().states):
                if i not in r.layout.free:
                    self.table.set(i, st)
            return
        w = self.rg.which
        if w is not None and s.warning is not None and self.rg.pages is not None:
            # "which card?" on the phone: the person taps the card they meant
            choice = self.meant if self.meant in w["choices"] else w["choices"][0]
            with self.rg.pages.lock:
                self.rg.pages.picks[w["seat"]] = choice
            return
        if s.ended or s.warning is not None or not self.rg.ready:
            return
        if s.proposal is not None:
            move, _ = s.proposal
            self._put(move.action, move.space, r.team)
            return
        seat = r.current
        if seat not in self.rg.seats or self.rg.n + 1 in self.rg.pending:
            return
        hand = self.rg.hands.get(seat)
        if hand is None or self.rg.hands_n < self.rg.seat_last.get(seat, 0) \
                or self.placed_for == len(r.moves):
            return
        g = seat_view(r, seat, hand)
        moves = [m for m in g.legal_moves() if m.action in ("place", "remove")]
        if not moves:
            return                       # the controller trades a dead card or passes
        player = make_player(self.level, random.Random(self.rng.random()))
        move = player.choose(g)
        if move.action not in ("place", "remove"):
            move = moves[0]
        self.placed_for = len(r.moves)
        self.meant = move.card
        self._put(move.action, move.space, r.team)

    def _put(self, action: str, space: int, team: int) -> None:
        self.table.set(space, self.colour(team) if action == "place" else SpaceState.EMPTY)

    def tick(self, now: float, act: bool = True) -> None:
        """One turn of the board's main loop: the network, the person (unless ``act`` is
        false: the test moves the chips), the sensor."""
        self.rg.step(now)
        if act:
            self.act()
        obs = self.source.poll(now)
        if obs is None:
            obs = self.source.poll(now)  # settle 0: a change is seen on the next poll
        if obs is not None:
            self.rg.session.observe(obs)
