"""A second, deliberately simple model of SEQUENCE's sequences, written from the rule books
(001, 002, 003, 004 in shared/seeds; RULES.md section 1), not from engine/board.py.

No masks, no runs, no incremental tricks: the board is a dict of chips, every window of
``k`` spaces in a row, column or diagonal is listed from the board's size, and after every
placement every window is read again. What the books say, and nothing else:

- a sequence is ``k`` chips of one colour in an unbroken straight line; a free corner
  counts as a chip of every colour (001, 004);
- it is made by the placement that completes it, and is from then on those ``k`` spaces;
  a completed sequence cannot be broken (001, 002, 004) except by the advanced variant's
  removal (004), after which it no longer counts;
- a later sequence may reuse at most ``max_shared`` spaces (the books: one) of each of the
  team's sequences (001, 002, 004);
- a one-eyed jack (REMOVE) may not take a chip of a completed sequence, outside the
  advanced variant.

Where one placement completes more windows than can all be sequences, the team chooses;
this model takes as many as the sharing rule allows and, among those choices, the one the
project documents as the default (docs/rules.md): the most windows left with no other
team's chip that could still be a sequence, then the smallest spaces.
"""

from __future__ import annotations

from itertools import combinations

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class ReferenceBoard:
    def __init__(self, rows: int, cols: int, free: set[int], k: int, max_shared: int) -> None:
        self.rows, self.cols, self.k, self.max_shared = rows, cols, k, max_shared
        self.free = set(free)
        self.chips: dict[int, int] = {}           # space -> team
        self.sequences: list[tuple[int, frozenset[int]]] = []   # (team, spaces), in order made
        self.windows = self._all_windows()
        #: how many choices the last placement had (0: it made no sequence)
        self.last_choices = 0

    def _all_windows(self) -> list[frozenset[int]]:
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in DIRECTIONS:
                    cells = [(r + j * dr, c + j * dc) for j in range(self.k)]
                    if all(0 <= rr < self.rows and 0 <= cc < self.cols for rr, cc in cells):
                        out.append(frozenset(rr * self.cols + cc for rr, cc in cells))
        return out

    def counts_for(self, space: int, team: int) -> bool:
        return space in self.free or self.chips.get(space) == team

    def complete_windows(self, team: int) -> set[frozenset[int]]:
        """Every window whose every space holds the team's chip or is free."""
        mine = {s for s in self.chips if self.chips[s] == team} | self.free
        return {w for w in self.windows if w <= mine}

    def may_share(self, a: frozenset[int], b: frozenset[int]) -> bool:
        return len(a & b - self.free) <= self.max_shared

    def team_sequences(self, team: int) -> list[frozenset[int]]:
        return [s for t, s in self.sequences if t == team]

    def room(self, team: int, seqs: list[frozenset[int]]) -> int:
        others = {s for s, t in self.chips.items() if t != team}
        return sum(1 for w in self.windows
                   if not (w & others) and all(self.may_share(w, s) for s in seqs))

    def place(self, space: int, team: int) -> list[frozenset[int]]:
        assert space not in self.chips and space not in self.free
        before = self.complete_windows(team)
        self.chips[space] = team
        new = self.complete_windows(team) - before
        mine = self.team_sequences(team)
        allowed = sorted((w for w in new if all(self.may_share(w, s) for s in mine)),
                         key=sorted)
        best: list[tuple[frozenset[int], ...]] = []
        for n in range(len(allowed), 0, -1):
            best = [c for c in combinations(allowed, n)
                    if all(self.may_share(a, b) for a, b in combinations(c, 2))]
            if best:
                break
        self.last_choices = len(best)
        if not best:
            return []
        pick = min(best, key=lambda c: (-self.room(team, mine + list(c)),
                                        sorted(sorted(w) for w in c)))
        made = sorted(pick, key=sorted)
        self.sequences += [(team, w) for w in made]
        return made

    def protected(self, space: int) -> bool:
        return any(space in s for _, s in self.sequences)

    def remove(self, space: int) -> None:
        del self.chips[space]
        self.sequences = [(t, s) for t, s in self.sequences if space not in s]

    def count(self, team: int) -> int:
        return len(self.team_sequences(team))
