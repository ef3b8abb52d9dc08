"""The board: chips on spaces, and sequences counted incrementally.

Sequences are counted from straight runs of one team's chips (a free space counts for every
team). A maximal run of length ``L`` holds ``0`` sequences when ``L < k`` and otherwise
``1 + (L - k) // (k - shared)`` sequences, where ``k`` is the sequence length and ``shared``
the number of spaces two sequences of one team may share (one, by the books): with ``k = 5``
a line of 9 is two sequences, a line of 10 two as well. Sequences in different directions
meet in at most one space, so they never share more. The team's count is the sum over every
maximal run in every line; a placement or removal changes only the runs through its space,
so only those (four directions, precomputed per layout) are examined.
"""

from __future__ import annotations

from .layout import Layout

EMPTY = 0
FREE = -1


class Board:
    """Chips on a layout. ``cells[i]`` is ``EMPTY``, ``FREE`` or ``team + 1``."""

    __slots__ = ("layout", "k", "stride", "n_teams", "cells", "counts", "_steps", "_open")

    def __init__(self, layout: Layout, sequence_length: int, n_teams: int,
                 max_shared: int = 1) -> None:
        if not 0 <= max_shared < sequence_length:
            raise ValueError("max_shared must be below the sequence length")
        self.layout = layout
        self.k = sequence_length
        self.stride = sequence_length - max_shared
        self.n_teams = n_teams
        self.cells = [FREE if i in layout.free else EMPTY for i in range(layout.size)]
        self.counts = [0] * n_teams
        self._steps = layout.steps()

    def copy(self) -> "Board":
        b = Board.__new__(Board)
        b.layout, b.k, b.stride, b.n_teams = self.layout, self.k, self.stride, self.n_teams
        b.cells = self.cells[:]
        b.counts = self.counts[:]
        b._steps = self._steps
        return b

    def _runs(self, length: int) -> int:
        return 0 if length < self.k else 1 + (length - self.k) // self.stride

    def _arm(self, i: int, table: list[int], v: int) -> int:
        """How many cells beyond ``i`` along ``table`` hold ``v`` or a free space."""
        cells = self.cells
        n = 0
        j = table[i]
        while j != -1:
            c = cells[j]
            if c != v and c != FREE:
                break
            n += 1
            j = table[j]
        return n

    def _delta(self, i: int, v: int) -> int:
        """Sequences of value ``v`` gained by making space ``i`` hold ``v``."""
        k = self.k
        delta = 0
        for fwd, back in self._steps:
            a = self._arm(i, fwd, v)
            b = self._arm(i, back, v)
            if a + b + 1 >= k:
                delta += self._runs(a + b + 1) - self._runs(a) - self._runs(b)
        return delta

    def place(self, i: int, team: int) -> int:
        """Put a chip of ``team`` on empty space ``i``; return the sequences it completes."""
        v = team + 1
        delta = self._delta(i, v)
        self.cells[i] = v
        self.counts[team] += delta
        return delta

    def remove(self, i: int) -> int:
        """Take the chip off space ``i``; return how many sequences its team lost."""
        v = self.cells[i]
        self.cells[i] = EMPTY
        lost = self._delta(i, v)
        self.counts[v - 1] -= lost
        return lost

    def team_at(self, i: int) -> int | None:
        c = self.cells[i]
        return c - 1 if c > 0 else None

    def is_locked(self, i: int) -> bool:
        """Whether the chip on ``i`` belongs to a completed sequence (a run of ``k`` or more)."""
        v = self.cells[i]
        if v <= 0:
            return False
        for fwd, back in self._steps:
            if self._arm(i, fwd, v) + self._arm(i, back, v) + 1 >= self.k:
                return True
        return False

    def sequence_spaces(self, team: int) -> set[int]:
        """Every space that is part of one of ``team``'s completed sequences."""
        v = team + 1
        out: set[int] = set()
        for line in self.layout.lines(self.k):
            run: list[int] = []
            for j in line + (-1,):
                if j != -1 and (self.cells[j] == v or self.cells[j] == FREE):
                    run.append(j)
                    continue
                if len(run) >= self.k:
                    out.update(run)
                run = []
        return out

    def full_count(self, team: int) -> int:
        """Sequences of ``team`` by scanning every line (the reference for the incremental count)."""
        v = team + 1
        total = 0
        for line in self.layout.lines(self.k):
            run = 0
            for j in line:
                if self.cells[j] == v or self.cells[j] == FREE:
                    run += 1
                else:
                    total += self._runs(run)
                    run = 0
            total += self._runs(run)
        return total

    def open_spaces(self) -> list[int]:
        return [i for i, c in enumerate(self.cells) if c == EMPTY]

    def threat(self, i: int, team: int) -> int:
        """Longest run ``team`` would have through empty space ``i`` if it placed there."""
        v = team + 1
        best = 0
        for fwd, back in self._steps:
            n = self._arm(i, fwd, v) + self._arm(i, back, v) + 1
            if n > best:
                best = n
        return best
