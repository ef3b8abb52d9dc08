"""The game as evidence: which readings of a stable observation the referee may judge.

In a running game the referee knows what is on the board, so a reading that differs from
the game is a claim that a move was made, and a doubtful claim is never judged. Before an
observation reaches :meth:`Referee.observe`, :func:`screen` turns into "unknown, wait" every
space that differs from the game and is doubtful:

- its confidence is below :data:`DOUBT` (the sensing's own doubt: a space next to a hand,
  a sleeve or a shadow, a reading the classifier is unsure of; the camera gives these a low
  confidence, a sensor matrix never does);
- it is a white chip that no completed sequence explains (a white chip can only be a chip
  of a sequence flipped to show the five chosen, or the five the placement just seen
  shows: a white chip anywhere else is an empty space misread in dim light or a shadow's
  band, never a verdict);
- it is a chip of a colour no team of this game plays (red in a blue-green game: the
  print of a red card misread);
- it touches (side or corner) a space already doubtful for one of these reasons (not a
  free corner: a chip read doubtfully there is the corner's own print misread, more often
  than not), and also differs from the game: the rest of a shadow's band, the far edge of
  an arm;
- it is a new chip of a team whose turn it is not, and no new chip of the team to move
  (and of every team between) shows, while a space empty in the game cannot be read
  (unknown: glare, a hand's halo, an unsure reading): the team to move may have placed its
  chip there, unseen. Judged at once, that would be a false "out of turn" warning, or a
  caught-up series in the wrong order that puts every later move one turn out. Every new
  chip waits (one placed where the board was seen empty came after the hidden move) until
  one of those spaces shows a chip (that move is judged first, then the same board again:
  the chips that waited, in turn), or none of them is unknown any more (then the chip is
  judged: a real move out of turn is warned). The session passes :attr:`Screened.hidden`
  from one screen to the next.

An unknown space is ignored by the referee (it waits: nothing is applied, nothing is
warned). The screened observation is what is judged, recorded and replayed, so a replay
gives the same verdicts. Whatever the sensing, the rule only needs the per-space states and
confidences of the :class:`Observation` (the seam between sensing and rules).

Example::

    s = screen(referee, observation)
    verdict = referee.observe(s.observation)
    if s.waiting:
        print("waiting on", [referee.layout.space_name(i) for i in s.waiting])

Pure: the referee passed in is never changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .observation import Observation, SpaceState

#: below this confidence a reading that differs from the game is not judged (0..1)
DOUBT = 0.5


@dataclass(frozen=True)
class Screened:
    """The observation to judge and the spaces it waits on (doubtful, made unknown)."""

    observation: Observation
    waiting: tuple[int, ...] = ()
    #: why each space waits: "doubtful", "white" (off any sequence), "colour" (no team's),
    #: "beside" (a doubtful one) or "turn" (not its team's turn, and a move may be unseen)
    why: tuple[tuple[int, str], ...] = ()
    #: the spaces, unknown, where a move of the team to move may be hidden (chips of later
    #: teams wait on them): pass it to the next :func:`screen`
    hidden: frozenset[int] = frozenset()


def differs(referee, obs: Observation) -> list[int]:
    """The known spaces of ``obs`` that differ from the game's board: a chip where the game
    has none, no chip where it has one, another colour, or a white chip off the sequences
    (a flipped chip of a sequence is no difference)."""
    cells = referee.board.cells
    locked = referee.board.locked
    out = []
    for i, st in enumerate(obs.states):
        if st is SpaceState.UNKNOWN:
            continue
        c = cells[i]
        if c > 0:
            if st is SpaceState.EMPTY or (st.is_colour and st.value != referee.colours[c - 1]):
                out.append(i)
            elif st is SpaceState.WHITE and not (locked >> i) & 1:
                out.append(i)
        elif st.is_chip:
            out.append(i)
    return out


def screen(referee, obs: Observation, doubt: float = DOUBT,
           hidden: frozenset[int] = frozenset(),
           first_seen: dict[int, int] | None = None,
           unreadable: frozenset[int] = frozenset()) -> Screened:
    """``obs`` with its doubtful differences made unknown (see the module's docstring).
    ``hidden``: the last screen's :attr:`Screened.hidden` (a move may be hidden there).
    ``first_seen``: for each space that differs, when it was first seen so (a count of
    observations): a chip that shows where the hidden move may be, seen only after chips
    that wait on it, while another such space is unread, may be the team's next move:
    it waits too. ``unreadable``: spaces the sensing has read only in doubt (or not at
    all) for a long while (the session knows): their doubt does not spread to the
    readings beside them. A passing shadow or an arm's edge does not stay for good; a
    pale chip read as a white one in every frame, or glare on one space, does, and the
    chips played beside it later would wait for as long as it stays."""
    diff = differs(referee, obs)
    if not diff:
        # nothing new: a move awaited where nothing can be seen is still awaited
        return Screened(obs, hidden=_unseen_moves(referee, obs, diff, {}, hidden, first_seen or {}))
    why: dict[int, str] = {i: "doubtful" for i in diff if obs.confidence[i] < doubt}
    for i in diff:
        st = obs.states[i]
        if i not in why and st.is_colour and st.value not in referee.colours:
            why[i] = "colour"
    whites = [i for i in diff if obs.states[i] is SpaceState.WHITE and i not in why]
    if whites and not _whites_explained(referee, _unknown(obs, why)):
        why.update({i: "white" for i in whites})
    if why:
        # a doubt spreads to the differing readings that touch it
        rows, cols = obs.rows, obs.cols
        rest = set(diff) - set(why)
        # (not from a free corner: a chip read there is its own print misread, or a chip
        # put there by mistake; its neighbours' moves are judged)
        todo = [i for i in why if i not in referee.layout.free and i not in unreadable]
        while todo and rest:
            i = todo.pop()
            r, c = divmod(i, cols)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    j = rr * cols + cc
                    if 0 <= rr < rows and 0 <= cc < cols and j in rest:
                        rest.discard(j)
                        why[j] = "beside"
                        todo.append(j)
    hidden = _unseen_moves(referee, obs, diff, why, hidden, first_seen or {})
    if not why:
        return Screened(obs, hidden=hidden)
    waiting = tuple(sorted(why))
    return Screened(_unknown(obs, why), waiting, tuple((i, why[i]) for i in waiting), hidden)


def _unknown(obs: Observation, spaces) -> Observation:
    if not spaces:
        return obs
    states = list(obs.states)
    conf = list(obs.confidence)
    for i in spaces:
        states[i] = SpaceState.UNKNOWN
        conf[i] = 0.0
    return Observation(obs.rows, obs.cols, tuple(states), tuple(conf))


def _unseen_moves(referee, obs: Observation, diff: list[int], why: dict[int, str],
                  hidden: frozenset[int], first_seen: dict[int, int]) -> frozenset[int]:
    """Mark "turn" in ``why`` the new chips that wait on a move the sensing may not see;
    the spaces where that move may be hidden (empty when nothing waits).

    A new chip of a later team with no new chip of every team before it (from the team to
    move) means those moves were made where nothing can be seen, if anywhere: in a space
    empty in the game and unknown now. Until one of those spaces shows a chip, or none of
    them is unknown any more, every new chip waits (one placed where the board was seen
    empty came after the hidden move, not before it)."""
    cells = referee.board.cells
    free = referee.layout.free
    seen = _unknown(obs, why)
    # where a chip may be that cannot be seen: unknown to the sensing, or a doubtful reading
    # (not a white chip, nor one of a colour no team plays: those are no team's move)
    unknown = {i for i, st in enumerate(obs.states)
               if cells[i] == 0 and i not in free
               and (st is SpaceState.UNKNOWN or why.get(i) in ("doubtful", "beside"))}
    others = [i for i in diff if i not in why]          # the differences to be judged
    new = [i for i in others if seen.states[i].is_colour and cells[i] == 0]
    if hidden:
        shown = {i for i in hidden if seen.states[i].is_chip}
        rest = (hidden & unknown) - shown
        waited = [first_seen.get(i, 0) for i in others if i not in shown]
        if shown and rest and waited and \
                min(waited) < min(first_seen.get(i, 0) for i in shown):
            # a chip shows where the hidden move may be, after chips that wait on it were
            # seen, while another such space is still unread: that chip may be the same
            # team's NEXT move, the hidden one still out of sight. Everything waits, the
            # chip that showed too, until those spaces read
            why.update({i: "turn" for i in others})
            return frozenset(rest)
        if shown:
            # the hidden move shows: it is judged first, the rest after it (the session
            # judges the same board again)
            why.update({i: "turn" for i in others if i not in hidden})
            return frozenset()
        if not (hidden & unknown):
            return frozenset()           # nothing can hide it: judged as it stands
        # still hidden: nothing is judged, a removal no more than a chip (it may be the
        # next turn's)
        why.update({i: "turn" for i in others})
        return frozenset(hidden & unknown)
    if not unknown or len(new) != len(others):
        return frozenset()      # a chip taken off or changed: some team's move shows
    order = [referee.colours[(referee.team + k) % referee.n_teams] for k in range(referee.n_teams)]
    placed = {seen.states[i].value for i in new}
    ahead = []
    for i in new:
        team = order.index(seen.states[i].value) if seen.states[i].value in order else 0
        if any(c not in placed for c in order[:team]):
            ahead.append(i)
    if not ahead:
        return frozenset()
    why.update({i: "turn" for i in others})
    return frozenset(unknown)


def _whites_explained(referee, obs: Observation) -> bool:
    """Whether the white chips of ``obs`` show a five: the referee (a copy) judges it a
    placement that shows its five, or the choice of the last placement's five."""
    from .catchup import clone
    v = clone(referee).observe(obs)
    return v.kind in ("placement", "choice")
