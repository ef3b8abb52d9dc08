"""Catching up: a stable board that is several moves ahead of the game.

A camera can miss a moment (a hand that never left the board between two moves, a board
that was off while chips were placed); the next stable observation then differs from the
game by more than one move. :func:`explain` looks for short series of moves, in turn order,
that turn the game's board into the observed one: up to one move per seat (at most
:data:`MAX_SERIES`), each placement in the colour of the team to move, each removal by a
team that may remove that chip. Every step is judged by an ordinary :class:`Referee` (a copy
of the game's), as one single-change observation, so a caught-up move is exactly as legal
as a move seen on its own, and replays the same way.

Example::

    series = explain(referee, observation)
    if len(series) == 1:                     # one series explains it, and only one
        for step in series[0].steps:
            referee.observe(step.observation)   # each is an ordinary single move
        print(series[0].note())   # "caught up: green f3, then blue e5"

Two more, for the camera: :func:`explain_in_order` keeps the order the changes were first
seen in (any number of moves a seat), and :func:`explain_unseen` explains chips that
waited on a move made on a space the camera cannot read (docs/recovery.md).

Pure, no I/O; the referee passed in is never changed.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, replace

from .board import EMPTY
from .moves import Move, Verdict
from .observation import Observation, SpaceState
from .referee import COLOUR_NAMES, Referee

#: The longest series considered (one move per seat, at most this many).
MAX_SERIES = 4


@dataclass(frozen=True)
class Step:
    """One caught-up move: the board after it (as a perfect sensor would see it) and the
    referee's verdict on it."""

    observation: Observation
    verdict: Verdict
    text: str = ""        # "green f3", "green removes e5"
    #: a move the sensing could not see at all (on one of several spaces it cannot read):
    #: applied as the move ``unseen``, the board left as it was
    unseen: bool = False
    #: the spaces the unseen move's chip is on one of
    where: tuple[int, ...] = ()


@dataclass(frozen=True)
class Series:
    """A legal series of moves, in turn order, that explains an observation."""

    steps: tuple[Step, ...]

    def note(self) -> str:
        """``caught up: green f3, then blue e5`` (a removal: ``green removes e5``)."""
        return "caught up: " + ", then ".join(st.text for st in self.steps)

    def moves(self) -> tuple[tuple[str, int, int | None], ...]:
        """(kind, space, team) of each step: what tells two series apart."""
        return tuple((s.verdict.kind, s.verdict.spaces[0] if s.verdict.spaces else None,
                      s.verdict.team) for s in self.steps)


def clone(referee: Referee) -> Referee:
    """An independent copy of ``referee`` (the layout and edition, immutable, are shared)."""
    memo = {id(referee.layout): referee.layout, id(referee.edition): referee.edition}
    return copy.deepcopy(referee, memo)


def differences(referee: Referee, obs: Observation) -> list[tuple[str, int, SpaceState]]:
    """The changes a series of moves must make, from the game's board to the known spaces
    of ``obs``: ``("place", space, state)`` and ``("remove", space, EMPTY)``; a space whose
    chip changed colour needs both (a removal, then another team's placement)."""
    cells = referee.board.cells
    out: list[tuple[str, int, SpaceState]] = []
    for i, st in enumerate(obs.states):
        if st is SpaceState.UNKNOWN:
            continue
        c = cells[i]
        if c > 0:
            if st is SpaceState.EMPTY:
                out.append(("remove", i, SpaceState.EMPTY))
            elif st.is_colour and st.value != referee.colours[c - 1]:
                out.append(("remove", i, SpaceState.EMPTY))
                out.append(("place", i, st))
        elif c == EMPTY and st.is_chip:
            out.append(("place", i, st))
    return out


def explain(referee: Referee, obs: Observation, max_moves: int | None = None,
            colour_blind: bool = False, least: int = 2) -> list[Series]:
    """Every legal series of two or more moves, in turn order, that makes the game's board
    into the known spaces of ``obs``; empty when none does (or when more than ``max_moves``
    changes would be needed; default: one per seat, at most :data:`MAX_SERIES`).

    ``colour_blind``: the sensor tells only where chips are (an occupancy matrix), so a new
    chip counts as the colour of whichever team places it in the series. ``least``: the
    fewest changes a series explains (1: a single move too, for the chips the players
    ask the referee to take as they read, :meth:`seqboard.session.Session.take_board`).
    """
    limit = min(max_moves or referee.n_players, MAX_SERIES)
    changes = differences(referee, obs)
    if not least <= len(changes) <= limit or referee.over or _chip_on_free(referee, obs):
        return []
    if any(st is SpaceState.WHITE for _, _, st in changes):
        return []          # a flipped chip is not a move of any team
    found: list[Series] = []
    seen: set = set()
    # one copy, each order's moves undone after it (a copy per order took 24 deep copies
    # of the whole game history for four changes: seconds on a Pi, the main loop stalled)
    work = clone(referee)
    n0 = len(work.moves)
    for order in itertools.permutations(range(len(changes))):
        series = _try(work, [changes[k] for k in order], colour_blind)
        while len(work.moves) > n0:
            work.undo()
        if len(work.moves) < n0:          # a step was read as a takeback: start afresh
            work = clone(referee)
        if series is not None and series.moves() not in seen:
            seen.add(series.moves())
            found.append(series)
    return found


#: The longest series inferred round a space the sensing cannot read (arrival order known).
MAX_UNSEEN_SERIES = 8
#: ... when moves on chips read only in doubt are in it (each such chip must have read so
#: for a long while first, and chips keep coming meanwhile)
MAX_DOUBTED_SERIES = 12


def explain_unseen(referee: Referee, obs: Observation, space: int | None,
                   arrivals: dict[int, int] | None = None,
                   colour_blind: bool = False, where: tuple[int, ...] = (),
                   gone: tuple[tuple[int, SpaceState, tuple[int, int], tuple[int, int]], ...] = (),
                   doubted: dict[int, SpaceState] | None = None) -> list[Series]:
    """The legal series, in turn order, that explain ``obs`` once the chip of the team to
    move is taken to be on ``space``, a space the sensing cannot read (unknown in ``obs``,
    empty in the game), each beginning with that placement; empty when none does.

    For a space the camera cannot read (glare on it, on the chip put there, the lens
    edge): the team to move placed its chip there unseen, and the next teams' chips are
    seen, one after the other. ``arrivals``: for each other space that differs, when it
    was first seen so (a count: lower came first); the series keep that order, and only
    changes seen at the same time are tried in every order. Without it, every order is
    tried (at most one move per seat, as :func:`explain`). The first step's text says it
    was not seen. The caller checks that ``space`` is the one place left where the move
    can be (:attr:`engine.evidence.Screened.hidden` is that space alone).

    ``space`` None: the move may be on any of several spaces that cannot be read
    (``where``, all unknown in ``obs``): no chip is made up on any of them. The first step
    is then the move ``unseen`` (:attr:`Step.unseen`: the turn passes, the board is left
    as it was); ``arrivals`` is needed.

    ``gone``: chips seen surely while they waited on the hidden move, then seen gone
    before it could be judged (a chip placed and taken off again meanwhile): each
    ``(space, state, (lo, hi) it came, (lo, hi) it went)``, empty in the game and in
    ``obs``. Each is a placement and a removal in the series, in the order seen (with
    ``space`` None only).

    ``doubted``: spaces empty in the game (and unknown in ``obs``) where a chip has read
    only in doubt for a long while, each with the colour it reads (a chip beside glare
    that the camera never reads surely): each is a move of that colour's team made when
    it was first seen (``arrivals``), on that space, which the camera cannot confirm. It
    joins the series as a move ``unseen`` there, in its place in the order seen, only when
    it is that team's turn then (with ``space`` None only; no chip is made up)."""
    if space is None:
        return _explain_unseen_somewhere(referee, obs, arrivals or {}, colour_blind, where,
                                         gone, doubted or {})
    if referee.over or obs.states[space] is not SpaceState.UNKNOWN \
            or referee.board.cells[space] != EMPTY or _chip_on_free(referee, obs):
        return []
    filled = obs.replace({space: SpaceState(referee.colours[referee.team])})
    changes = differences(referee, filled)
    if arrivals is None:
        found = explain(referee, filled, colour_blind=colour_blind)
    else:
        if len(changes) > MAX_UNSEEN_SERIES or \
                any(st is SpaceState.WHITE for _, _, st in changes):
            return []
        first = [c for c in changes if c[1] == space]
        rest = [c for c in changes if c[1] != space]
        orders = _arrival_orders(rest, arrivals)
        found = _try_orders(referee, [first + o for o in orders], colour_blind)
    where = referee.layout.space_name(space)
    out = []
    for series in found:
        steps = series.steps
        v = steps[0].verdict
        if v.kind == "placement" and v.spaces == (space,) and v.team == referee.team:
            out.append(Series((replace(steps[0], text=f"{steps[0].text} (not seen: {where} "
                                                      f"cannot be read)"),) + steps[1:]))
    return out


def explain_in_order(referee: Referee, obs: Observation,
                     arrivals: dict[int, int]) -> list[Series]:
    """The legal series, in turn order, that make the game's board into the known spaces
    of ``obs`` keeping the order the changes were first seen in (``arrivals``: for each
    space, a count; lower came first; changes seen at the same time are tried in every
    order); at most :data:`MAX_UNSEEN_SERIES` moves, any number per seat.

    "One move explains a change", over time: chips seen arriving one after the other
    while the referee could not judge them (a doubtful chip they waited on) are one
    series in that order, if it is legal. Several series (chips that arrived together,
    of one team) are left for a person to choose."""
    changes = differences(referee, obs)
    if not 2 <= len(changes) <= MAX_UNSEEN_SERIES or referee.over \
            or _chip_on_free(referee, obs) \
            or any(st is SpaceState.WHITE for _, _, st in changes):
        return []
    return _try_orders(referee, _arrival_orders(changes, arrivals), False)


def _explain_unseen_somewhere(referee: Referee, obs: Observation, arrivals: dict[int, int],
                              colour_blind: bool, where: tuple[int, ...],
                              gone=(), doubted: dict[int, SpaceState] | None = None
                              ) -> list[Series]:
    """:func:`explain_unseen` for a move on one of several unreadable spaces."""
    if referee.over or _chip_on_free(referee, obs) or not where \
            or any(obs.states[i] is not SpaceState.UNKNOWN or referee.board.cells[i] != EMPTY
                   for i in where):
        return []
    changes = differences(referee, obs)
    spans = None
    gone = [g for g in gone if referee.board.cells[g[0]] == EMPTY
            and obs.states[g[0]] is SpaceState.EMPTY and g[1].is_colour
            and all(c[1] != g[0] for c in changes)]
    if gone:
        # a chip that came and went while it waited: placed, then taken off, in that order
        late = 1 + max((v if isinstance(v, int) else v[1] for v in arrivals.values()),
                       default=0)
        spans = [arrivals.get(c[1], (late, late)) for c in changes]
        spans = [(v, v) if isinstance(v, int) else tuple(v) for v in spans]
        for space, st, came, went in gone:
            changes = changes + [("place", space, st), ("remove", space, SpaceState.EMPTY)]
            spans += [tuple(came), tuple(went)]
    for i, st in sorted((doubted or {}).items()):
        if i in where or not st.is_colour or referee.board.cells[i] != EMPTY \
                or obs.states[i] is not SpaceState.UNKNOWN or i not in arrivals:
            return []
        if spans is not None:
            v = arrivals[i]
            spans.append((v, v) if isinstance(v, int) else tuple(v))
        changes = changes + [("unseen", i, st)]
    if not changes or len(changes) >= (MAX_DOUBTED_SERIES if doubted else MAX_UNSEEN_SERIES) \
            or any(st is SpaceState.WHITE for _, _, st in changes):
        return []
    work = clone(referee)
    base = work.expected()
    v = work.apply(Move("unseen"))
    names = [referee.layout.space_name(i) for i in where]
    spots = listed(names)
    who = COLOUR_NAMES[referee.colours[v.team]]
    first = Step(base, v, f"{who} (not seen: on {spots}, which cannot be read)", unseen=True,
                 where=tuple(where))
    out = []
    orders = _arrival_orders(changes, arrivals, spans, {g[0] for g in gone})
    for series in _try_orders(work, orders, colour_blind):
        out.append(Series((first,) + series.steps))
    return out


def listed(names: list[str], word: str = "or") -> str:
    """``h3, i3 or j3`` (``word``: "and")."""
    return ", ".join(names[:-1]) + f" {word} " + names[-1] if len(names) > 1 else names[0]


def _arrival_orders(changes: list[tuple[str, int, SpaceState]], arrivals: dict,
                    spans: list[tuple[int, int]] | None = None,
                    came_and_went: set[int] = frozenset()
                    ) -> list[list[tuple[str, int, SpaceState]]]:
    """The orders of ``changes`` that keep what is known of when each came. ``arrivals``:
    for each space, ``(lo, hi)``: it changed after observation ``lo - 1`` (the last in
    which it was seen as the game has it) and by observation ``hi`` (the first in which
    it was seen changed); a bare count ``n`` is ``(n, n)``. A change comes surely before
    another only when it was seen before the other was last seen unchanged (``hi < lo``
    of the other); any other two are tried in both orders. Empty when there would be more
    than 120 orders to try. ``spans``: each change's ``(lo, hi)`` given (instead of by its
    space); ``came_and_went``: spaces placed on, then taken off again (their placement
    comes first)."""
    if spans is None:
        late = 1 + max((v if isinstance(v, int) else v[1] for v in arrivals.values()),
                       default=0)
        spans = []
        for c in changes:
            v = arrivals.get(c[1], (late, late))
            spans.append((v, v) if isinstance(v, int) else tuple(v))
    n = len(changes)
    before = [[k for k in range(n) if spans[k][1] < spans[j][0]] for j in range(n)]
    orders: list[list] = []

    def extend(order: list[int], left: set[int]) -> bool:
        if not left:
            picked = [changes[k] for k in order]
            if _removal_first([c for c in picked if c[1] not in came_and_went]):
                orders.append(picked)
            return len(orders) <= 120
        for j in sorted(left):
            if all(k not in left for k in before[j]):
                if not extend(order + [j], left - {j}):
                    return False
        return True

    if not extend([], set(range(n))):
        return []
    return orders


def _try_orders(referee: Referee, orders: list[list[tuple[str, int, SpaceState]]],
                colour_blind: bool) -> list[Series]:
    """The distinct legal series among ``orders``, each played on a copy of ``referee``."""
    found, seen = [], set()
    work = clone(referee)
    n0 = len(work.moves)
    for order in orders:
        series = _try(work, order, colour_blind)
        while len(work.moves) > n0:
            work.undo()
        if len(work.moves) < n0:
            work = clone(referee)
        if series is not None and series.moves() not in seen:
            seen.add(series.moves())
            found.append(series)
    return found


def _removal_first(order: list[tuple[str, int, SpaceState]]) -> bool:
    """Whether each space's removal comes before its placement in ``order``."""
    placed: set[int] = set()
    for action, space, _ in order:
        if action == "remove" and space in placed:
            return False
        if action == "place":
            placed.add(space)
    return True


def _try(ref: Referee, order: list[tuple[str, int, SpaceState]],
         colour_blind: bool) -> Series | None:
    """The series of ``order`` played on ``ref`` (changed: the caller undoes it)."""
    steps = []
    for action, space, st in order:
        if ref.over:
            return None
        base = ref.expected()
        if action == "unseen":
            # a chip read only in doubt: its team's move, if it is that team's turn
            if st.value != ref.colours[ref.team]:
                return None
            v = ref.apply(Move("unseen"))
            where = ref.layout.space_name(space)
            steps.append(Step(base, v, f"{COLOUR_NAMES[st.value]} (not seen: on {where}, "
                                       f"which reads only in doubt)", unseen=True,
                              where=(space,)))
            continue
        if action == "place":
            state = SpaceState(ref.colours[ref.team]) if colour_blind else st
            if base[space] is not SpaceState.EMPTY:
                return None
        else:
            state = SpaceState.EMPTY
        inter = base.replace({space: state})
        v = ref.observe(inter)
        if v.kind != ("placement" if action == "place" else "removal") or v.spaces != (space,):
            return None
        where = ref.layout.space_name(space)
        who = COLOUR_NAMES[ref.colours[v.team]]
        steps.append(Step(inter, v, f"{who} {where}" if action == "place" else f"{who} removes {where}"))
    return Series(tuple(steps))


def _chip_on_free(referee: Referee, obs: Observation) -> bool:
    """Whether ``obs`` shows a chip on a free space: no series of moves nor any earlier
    position explains that (the chip must come off)."""
    return any(obs.states[i].is_chip for i in referee.layout.free)


def earlier_position(referee: Referee, obs: Observation) -> int | None:
    """How many moves back the latest earlier position of the game lies whose board agrees
    with every known space of ``obs`` (a takeback of several moves); None when none does.

    Every space the moves taken back changed must be known in ``obs``: an unknown space
    (glare, the lens edge) is no evidence that its chip was taken back."""
    if _chip_on_free(referee, obs):
        return None
    ref = clone(referee)
    now = list(referee.board.cells)
    back = 0
    while ref.undo() is not None:
        back += 1
        if not differences(ref, obs):
            if any(obs.states[i] is SpaceState.UNKNOWN
                   for i, (a, b) in enumerate(zip(now, ref.board.cells)) if a != b):
                return None
            return back
    return None
