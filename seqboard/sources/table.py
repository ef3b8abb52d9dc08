"""A simulated table: the physical board, the people's hands, and computer players acting.

The demo and the end-to-end tests need someone to put chips on the board. :class:`Table`
is the physical board (what the chips really are, and where a hand is), which a sensing
source reads: the synthetic camera renders it, the matrix emulator senses it.
:class:`Director` plays the people: it asks the computer players for their moves through
the session (the move is proposed, exactly as the Pi proposes its own move in
``seqboard play``), then a simulated hand places the chip a moment later, sometimes makes
a scripted mistake, and puts the board right when the referee complains.

Nothing here decides a verdict: the session sees only what the source reads off the table.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from engine.game import Game
from engine.moves import Move
from engine.observation import Observation, SpaceState
from engine.players import make_player

from ..session import Session

#: Seeds the computer players per turn (``seed * SEED_STRIDE + turn``), so a game resumed
#: after a power cut goes on exactly as it would have.
SEED_STRIDE = 100_003


@dataclass
class Table:
    """The physical board: a state per space, and the spaces a hand covers now."""

    rows: int
    cols: int
    states: list[SpaceState] = field(default_factory=list)
    hand: tuple[int, ...] = ()       # spaces under a hand (empty: no hand over the board)
    hand_at: int | None = None       # the space the hand reaches for
    changes: int = 0                 # bumps on every change, for sources that poll
    listeners: list[Callable[[int, SpaceState], None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.states:
            self.states = [SpaceState.EMPTY] * (self.rows * self.cols)

    @classmethod
    def from_observation(cls, obs: Observation) -> "Table":
        return cls(obs.rows, obs.cols, list(obs.states))

    def observation(self) -> Observation:
        return Observation(self.rows, self.cols, tuple(self.states))

    def set(self, space: int, state: SpaceState) -> None:
        if self.states[space] is state:
            return
        self.states[space] = state
        self.changes += 1
        for fn in self.listeners:
            fn(space, state)

    def hand_over(self, space: int, radius: int = 1) -> None:
        """A hand reaches for ``space``; it covers the spaces around it, and the arm the
        spaces between it and the nearest edge of the board below."""
        r0, c0 = divmod(space, self.cols)
        covered = {rr * self.cols + cc
                   for rr in range(r0 - radius, self.rows) for cc in range(c0 - radius, c0 + radius + 1)
                   if 0 <= rr < self.rows and 0 <= cc < self.cols}
        self.hand = tuple(sorted(covered))
        self.hand_at = space
        self.changes += 1

    def hand_away(self) -> None:
        self.hand = ()
        self.hand_at = None
        self.changes += 1


class DirectSource:
    """Reads the table as a perfect sensor would, with the settle time of a real one.

    A change counts once the table has been still for ``settle`` seconds with no hand over
    it; spaces under a hand read unknown. Used by tests of the app's own logic; the demo
    reads the table through the synthetic camera or the matrix emulator instead.
    """

    def __init__(self, table: Table, settle: float = 0.3) -> None:
        self.table = table
        self.settle = settle
        self._seen = -1
        self._since = 0.0
        self._reported: Observation | None = None

    def poll(self, now: float) -> Observation | None:
        t = self.table
        if t.changes != self._seen:
            self._seen, self._since = t.changes, now
            return None
        if t.hand or now - self._since < self.settle:
            return None
        obs = t.observation()
        if obs == self._reported:
            return None
        self._reported = obs
        return obs

    def close(self) -> None:
        pass


@dataclass
class Mistake:
    """A scripted slip by a person at the table: at turn ``turn`` the chip goes down in
    the wrong colour (``kind="colour"``) or on a wrong space (``kind="space"``)."""

    turn: int
    kind: str = "colour"


class Director:
    """Plays the people at a simulated table, one timed step at a time.

    Every seat is a computer player of ``kind``; each move is proposed to the session and
    then carried out by a hand on the table: it comes in over the space, the chip goes
    down (or comes off), the hand leaves. Completed sequences are flipped to their white
    side, as players do. When the session warns of an illegal change, the hand comes back
    and puts the board right.
    """

    def __init__(self, session: Session, table: Table, *, kind: str = "greedy",
                 seed: int = 0, mistakes: tuple[Mistake, ...] = (), pace: float = 0.25,
                 flip_sequences: bool = True) -> None:
        if session.game is None:
            raise ValueError("the director needs a full-information game")
        self.session = session
        self.table = table
        self.kind = kind
        self.seed = seed
        self.mistakes = {m.turn: m for m in mistakes}
        self.pace = pace
        self.flip_sequences = flip_sequences
        self._plan: list[tuple[float, Callable[[], None]]] = []
        self._busy_turn: int | None = None
        self.moves_done = 0

    @property
    def game(self) -> Game:
        return self.session.game  # type: ignore[return-value]

    def _colour(self, team: int) -> SpaceState:
        return SpaceState(self.session.referee.colours[team])

    def _schedule(self, now: float, steps: list[Callable[[], None]]) -> None:
        self._plan = [(now + self.pace * (k + 1), fn) for k, fn in enumerate(steps)]

    def step(self, now: float) -> None:
        """Advance the table by one tick (called by the main loop before it polls)."""
        if self._plan:
            while self._plan and self._plan[0][0] <= now:
                _, fn = self._plan.pop(0)
                fn()
            return
        s = self.session
        if s.ended:
            return
        if s.warning is not None:
            self._put_right(now)
            return
        if s.proposal is not None:
            return      # the chip is on its way, or the sensor has not settled yet
        if self.table.observation() != self._expected_table():
            self._flip_or_fix(now)
            return
        g = self.game
        if g.over:
            s.finish()
            return
        if self._busy_turn == g.turn:
            return
        self._busy_turn = g.turn
        player = make_player(self.kind, random.Random(self.seed * SEED_STRIDE + g.turn))
        move = player.choose(g)
        if move.action == "dead":
            s.dead_card(move.card)
            self._busy_turn = None
            return
        if move.action == "pass":
            s.pass_turn()
            self._busy_turn = None
            return
        s.propose(move, getattr(player, "last_reason", ""))
        self._carry_out(now, move, self.mistakes.pop(g.turn, None))

    def _expected_table(self) -> Observation:
        """What the board should show: the referee's board, sequences flipped white."""
        exp = self.session.referee.expected()
        if not self.flip_sequences:
            return exp
        states = list(exp.states)
        r = self.session.referee
        for team in range(r.n_teams):
            for i in r.board.sequence_spaces(team):
                if states[i].is_colour:
                    states[i] = SpaceState.WHITE
        return Observation(exp.rows, exp.cols, tuple(states))

    def _carry_out(self, now: float, move: Move, mistake: Mistake | None) -> None:
        t, s = self.table, move.space
        assert s is not None
        team = self.session.referee.team
        if move.action == "remove":
            act = lambda: t.set(s, SpaceState.EMPTY)  # noqa: E731
            where = s
        elif mistake is not None and mistake.kind == "colour":
            wrong = next(c for c in ("B", "G", "R") if c != self.session.referee.colours[team])
            act = lambda: t.set(s, SpaceState(wrong))  # noqa: E731
            where = s
        elif mistake is not None and mistake.kind == "space":
            where = self._wrong_space(s)
            act = lambda: t.set(where, self._colour(team))  # noqa: E731
        else:
            act = lambda: t.set(s, self._colour(team))  # noqa: E731
            where = s
        if mistake is not None and move.action != "remove":
            self._announce(mistake, s, where)
        self._schedule(now, [lambda: t.hand_over(where), act, t.hand_away,
                             lambda: setattr(self, "moves_done", self.moves_done + 1)])

    def _announce(self, mistake: Mistake, meant: int, where: int) -> None:
        """Say in the output that the next slip is one of the demo's deliberate mistakes."""
        from ..session import Event
        name = self.session.referee.layout.space_name
        if mistake.kind == "colour":
            what = f"a chip of the wrong colour goes down on {name(meant)}"
        else:
            what = f"the chip goes down on {name(where)} instead of {name(meant)}"
        text = f"demo: a deliberate mistake to show the referee at work: {what}"
        self.session._log_line("info", text)
        self.session._emit(Event("info", None, text))

    def _wrong_space(self, s: int) -> int:
        r = self.session.referee
        empty = [i for i, c in enumerate(r.board.cells) if c == 0 and i != s
                 and i not in r.layout.free]
        return min(empty, key=lambda i: abs(i - s))

    def _fix_steps(self, target: Observation) -> list[Callable[[], None]]:
        t = self.table
        steps: list[Callable[[], None]] = []
        for i, (have, want) in enumerate(zip(t.states, target.states)):
            if have is not want and want is not SpaceState.UNKNOWN:
                steps += [(lambda i=i: t.hand_over(i)), (lambda i=i, w=want: t.set(i, w)), t.hand_away]
        return steps

    def _put_right(self, now: float) -> None:
        """Answer a warning: make the table show the game's board, with the proposed
        computer move carried out when one is waiting."""
        target = list(self._expected_table().states)
        s = self.session
        if s.proposal is not None:
            move, _ = s.proposal
            if move.space is not None:
                target[move.space] = (self._colour(s.referee.team) if move.action == "place"
                                      else SpaceState.EMPTY)
        self._schedule(now, self._fix_steps(Observation(self.table.rows, self.table.cols,
                                                        tuple(target))))

    def _flip_or_fix(self, now: float) -> None:
        self._schedule(now, self._fix_steps(self._expected_table()))
