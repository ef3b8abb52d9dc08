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
- it touches (side or corner) a space already doubtful for one of these reasons, and also
  differs from the game: the rest of a shadow's band, the far edge of an arm.

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
    #: why each space waits: "doubtful", "white" (off any sequence), "colour" (no team's)
    #: or "beside" (a doubtful one)
    why: tuple[tuple[int, str], ...] = ()


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


def screen(referee, obs: Observation, doubt: float = DOUBT) -> Screened:
    """``obs`` with its doubtful differences made unknown (see the module's docstring)."""
    diff = differs(referee, obs)
    if not diff:
        return Screened(obs)
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
        todo = list(why)
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
    if not why:
        return Screened(obs)
    waiting = tuple(sorted(why))
    return Screened(_unknown(obs, why), waiting, tuple((i, why[i]) for i in waiting))


def _unknown(obs: Observation, spaces) -> Observation:
    if not spaces:
        return obs
    states = list(obs.states)
    conf = list(obs.confidence)
    for i in spaces:
        states[i] = SpaceState.UNKNOWN
        conf[i] = 0.0
    return Observation(obs.rows, obs.cols, tuple(states), tuple(conf))


def _whites_explained(referee, obs: Observation) -> bool:
    """Whether the white chips of ``obs`` show a five: the referee (a copy) judges it a
    placement that shows its five, or the choice of the last placement's five."""
    from .catchup import clone
    v = clone(referee).observe(obs)
    return v.kind in ("placement", "choice")
