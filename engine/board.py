"""The board: chips on spaces, and the sequences made on it, each a fixed set of spaces.

A sequence is made once, by the placement that completes it, and is from then on a fixed
set of ``k`` spaces in one straight line (``k`` = 5, 4 in the travel edition; a free space
counts for every team). It is never re-read from the runs on the board: chips that later
lengthen its line are not part of it (a removing card may take them), and the count, the
win, the shared-space rule and the protection of chips all follow from the stored sets.

When a placement completes several windows of ``k`` at once (a gap filled in a line
longer than ``k``, or lines in several directions), the team takes as many sequences as
the rules allow (each new one shares at most ``max_shared`` spaces with each of the team's
sequences, the others made by the same placement included) and chooses which: the players
may name them (``chosen``), otherwise :meth:`Board.options` gives the default, the choice
that leaves the team the most room for another sequence (see :meth:`Board.room`). In the
advanced variant a removing card may take a chip of a sequence: that sequence is broken
and no longer counts; the chips left form a new one only when a later placement of that
team completes it.

Lines and windows are precomputed once per layout as bit masks over Python integers
(bit ``i`` is space ``i``), so a placement touches only the windows through its space.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from .errors import RecordError
from .layout import Layout, parse_space, space_name

EMPTY = 0
FREE = -1


@dataclass(frozen=True)
class Sequence:
    """One completed sequence: the ``team`` that made it and its spaces, sorted."""

    team: int
    spaces: tuple[int, ...]

    def names(self, cols: int = 10) -> list[str]:
        return [space_name(s, cols) for s in self.spaces]

    def text(self, cols: int = 10) -> str:
        """``"h4-h8"``: its two ends (a sequence is a straight line)."""
        return f"{space_name(self.spaces[0], cols)}-{space_name(self.spaces[-1], cols)}"

    __str__ = text

    @classmethod
    def parse(cls, text: str, team: int, rows: int = 10, cols: int = 10) -> "Sequence":
        """``"h4-h8"`` (or ``"h4,h5,h6,h7,h8"``) of ``team``; raises RecordError."""
        try:
            return cls(team, parse_five(text, rows, cols))
        except ValueError as exc:
            raise RecordError(f"sequence {text!r}: {exc}") from None

    def to_json(self, cols: int = 10) -> dict:
        return {"team": self.team, "spaces": self.names(cols)}

    @classmethod
    def from_json(cls, obj: dict, rows: int = 10, cols: int = 10) -> "Sequence":
        try:
            team = obj["team"]
            names = obj["spaces"]
            if not isinstance(team, int) or isinstance(team, bool) or not isinstance(names, list):
                raise TypeError
            spaces = tuple(sorted(parse_space(n, rows, cols) for n in names))
        except (KeyError, TypeError, AttributeError):
            raise RecordError("a sequence is {\"team\": 0, \"spaces\": [\"c1\", ...]}") from None
        except ValueError as exc:
            raise RecordError(f"sequence: {exc}") from None
        return cls(team, spaces)


def line_between(a: int, b: int, rows: int = 10, cols: int = 10) -> tuple[int, ...] | None:
    """Every space from ``a`` to ``b`` on one straight line (row, column, diagonal),
    sorted; None when the two are not on one line."""
    ra, ca = divmod(a, cols)
    rb, cb = divmod(b, cols)
    dr, dc = rb - ra, cb - ca
    n = max(abs(dr), abs(dc))
    if n == 0:
        return (a,)
    if not (dr == 0 or dc == 0 or abs(dr) == abs(dc)):
        return None
    sr, sc = (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)
    return tuple(sorted((ra + sr * j) * cols + ca + sc * j for j in range(n + 1)))


def parse_five(text: str, rows: int = 10, cols: int = 10) -> tuple[int, ...]:
    """``"c1-c5"`` (two ends of a straight line) or ``"c1,c2,c3,c4,c5"`` -> sorted spaces.
    Raises ValueError."""
    t = text.strip()
    if "-" in t:
        a_s, b_s = t.split("-", 1)
        line = line_between(parse_space(a_s, rows, cols), parse_space(b_s, rows, cols), rows, cols)
        if line is None:
            raise ValueError(f"{text!r}: the two ends are not on one straight line")
        return line
    spaces = tuple(sorted({parse_space(p, rows, cols) for p in t.split(",") if p.strip()}))
    if not spaces:
        raise ValueError(f"not a set of spaces: {text!r}")
    return spaces


class Windows:
    """Every window of ``k`` spaces in a straight line of a layout, as bit masks."""

    def __init__(self, layout: Layout, k: int) -> None:
        self.k = k
        self.spaces: list[tuple[int, ...]] = []
        self.masks: list[int] = []
        self.line: list[int] = []
        #: per space, per line through it: the mask of the spaces of that line within
        #: ``k - 1`` of it, and the windows of that line holding the space
        self.through: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(layout.size)]
        for li, line in enumerate(layout.lines(k)):
            per_cell: dict[int, list[int]] = {}
            for start in range(len(line) - k + 1):
                w = tuple(sorted(line[start:start + k]))
                wi = len(self.spaces)
                self.spaces.append(w)
                m = 0
                for c in w:
                    m |= 1 << c
                    per_cell.setdefault(c, []).append(wi)
                self.masks.append(m)
                self.line.append(li)
            for c, ids in per_cell.items():
                near = 0
                for wi in ids:
                    near |= self.masks[wi]
                self.through[c].append((near, tuple(ids)))
        #: the cells of an empty board, and the free spaces as a mask
        self.blank = [FREE if i in layout.free else EMPTY for i in range(layout.size)]
        self.free_mask = sum(1 << i for i in layout.free)
        #: per space, every space of a window through it
        self.reach = [0] * layout.size
        for c, lines in enumerate(self.through):
            for near, _ in lines:
                self.reach[c] |= near


def windows(layout: Layout, k: int) -> Windows:
    """The layout's windows of ``k``, built once per layout."""
    cache = layout.__dict__.setdefault("_board_windows", {})
    w = cache.get(k)
    if w is None:
        w = cache[k] = Windows(layout, k)
    return w


class Board:
    """Chips on a layout, and the sequences made. ``cells[i]`` is ``EMPTY``, ``FREE`` or
    ``team + 1``; ``sequences`` lists the :class:`Sequence` s in the order made;
    ``counts[t]`` is how many of them are team ``t``'s."""

    __slots__ = ("layout", "k", "max_shared", "n_teams", "cells", "counts", "sequences",
                 "own", "free_mask", "locked", "_seq_masks", "_win")

    def __init__(self, layout: Layout, sequence_length: int, n_teams: int,
                 max_shared: int = 1) -> None:
        if not 0 <= max_shared < sequence_length:
            raise ValueError("max_shared must be below the sequence length")
        self.layout = layout
        self.k = sequence_length
        self.max_shared = max_shared
        self.n_teams = n_teams
        self._win = win = windows(layout, sequence_length)
        self.cells = win.blank[:]
        self.counts = [0] * n_teams
        self.sequences: list[Sequence] = []
        #: per team, the bit mask of its chips
        self.own = [0] * n_teams
        self.free_mask = win.free_mask
        #: the spaces of every sequence (a chip there is protected outside the advanced variant)
        self.locked = 0
        self._seq_masks: list[int] = []

    def copy(self) -> "Board":
        b = Board.__new__(Board)
        b.layout, b.k, b.max_shared, b.n_teams = self.layout, self.k, self.max_shared, self.n_teams
        b.cells = self.cells[:]
        b.counts = self.counts[:]
        b.sequences = self.sequences[:]
        b.own = self.own[:]
        b.free_mask = self.free_mask
        b.locked = self.locked
        b._seq_masks = self._seq_masks[:]
        b._win = self._win
        return b

    def snapshot(self) -> tuple:
        """The whole state, to put back with :meth:`restore` (``snapshot()[0]`` is the cells)."""
        return (self.cells[:], self.counts[:], self.sequences[:], self.own[:], self.locked,
                self._seq_masks[:])

    def restore(self, snap: tuple) -> None:
        cells, counts, seqs, own, locked, masks = snap
        self.cells[:] = cells
        self.counts[:] = counts
        self.sequences[:] = seqs
        self.own[:] = own
        self.locked = locked
        self._seq_masks[:] = masks

    # --- reading ------------------------------------------------------------------------
    def team_at(self, i: int) -> int | None:
        c = self.cells[i]
        return c - 1 if c > 0 else None

    def is_locked(self, i: int) -> bool:
        """Whether the chip on ``i`` belongs to a completed sequence (outside the advanced
        variant it cannot be removed). A chip that only lengthens a sequence's line is not."""
        return self.cells[i] > 0 and (self.locked >> i) & 1 == 1

    def sequence_spaces(self, team: int) -> set[int]:
        """Every space of ``team``'s sequences (free corners included)."""
        out: set[int] = set()
        for s in self.sequences:
            if s.team == team:
                out.update(s.spaces)
        return out

    def team_sequences(self, team: int) -> list[Sequence]:
        return [s for s in self.sequences if s.team == team]

    def open_spaces(self) -> list[int]:
        return [i for i, c in enumerate(self.cells) if c == EMPTY]

    def threat(self, i: int, team: int) -> int:
        """Longest run ``team`` would have through empty space ``i`` if it placed there."""
        v = team + 1
        cells = self.cells
        best = 0
        for fwd, back in self.layout.steps():
            n = 1
            for table in (fwd, back):
                j = table[i]
                while j != -1 and (cells[j] == v or cells[j] == FREE):
                    n += 1
                    j = table[j]
            best = max(best, n)
        return best

    # --- which windows a placement completes ---------------------------------------------
    def _candidates(self, i: int, team: int) -> list[list[int]]:
        """Per line through ``i``, the windows holding ``i`` that a chip of ``team`` there
        would complete and that share at most ``max_shared`` spaces with each of the
        team's sequences (lines with none left out)."""
        have = self.own[team] | self.free_mask | (1 << i)
        k = self.k
        out: list[list[int]] = []
        if (have & self._win.reach[i]).bit_count() < k:
            return out
        masks = self._win.masks
        mine = None
        for near, ids in self._win.through[i]:
            if (have & near).bit_count() < k:
                continue
            got = None
            for wi in ids:
                m = masks[wi]
                if m & have == m:
                    if got is None:
                        got = [wi]
                    else:
                        got.append(wi)
            if got is not None:
                if mine is None:
                    mine = [m for s, m in zip(self.sequences, self._seq_masks) if s.team == team]
                if mine:
                    lim = self.max_shared
                    got = [wi for wi in got
                           if all((masks[wi] & m).bit_count() <= lim for m in mine)]
                    if not got:
                        continue
                out.append(got)
        return out

    def gain(self, i: int, team: int) -> int:
        """How many sequences a chip of ``team`` on empty space ``i`` would make."""
        cand = self._candidates(i, team)
        if not cand:
            return 0
        return sum(self._most(ids)[0] for ids in self._line_sets(cand))

    def _line_sets(self, cand: list[list[int]]) -> list[list[int]]:
        return cand if self.max_shared > 0 else [[wi for ids in cand for wi in ids]]

    def _most(self, ids: list[int]) -> tuple[int, list[tuple[int, ...]]]:
        """The largest sets of windows among ``ids`` that pairwise share at most
        ``max_shared`` spaces: (their size, every such set)."""
        if len(ids) == 1:
            return 1, [(ids[0],)]
        masks = self._win.masks
        lim = self.max_shared
        chips = ~self.free_mask
        best: list[tuple[int, ...]] = []
        size = 0

        def grow(start: int, chosen: tuple[int, ...]) -> None:
            nonlocal best, size
            if len(chosen) > size:
                size, best = len(chosen), [chosen]
            elif len(chosen) == size:
                best.append(chosen)
            for j in range(start, len(ids)):
                wj = ids[j]
                if all((masks[wj] & masks[c] & chips).bit_count() <= lim for c in chosen):
                    grow(j + 1, chosen + (wj,))

        grow(0, ())
        return size, best

    def options(self, i: int, team: int) -> list[tuple[Sequence, ...]]:
        """The choices a chip of ``team`` on empty space ``i`` would leave the team: each the
        same largest number of new sequences, the default first (most :meth:`room`, then
        the smallest spaces); ``[]`` when it makes none."""
        cand = self._candidates(i, team)
        if not cand:
            return []
        per_line = [self._most(ids)[1] for ids in self._line_sets(cand)]
        sp = self._win.spaces
        combos = [tuple(wi for part in parts for wi in part) for parts in product(*per_line)]
        opts = [tuple(Sequence(team, sp[wi]) for wi in sorted(c, key=sp.__getitem__))
                for c in combos]
        if len(opts) == 1:
            return opts
        was = self.cells[i]
        self.cells[i] = team + 1
        self.own[team] |= 1 << i
        try:
            keyed = [(-self.room(team, o), [s.spaces for s in o], o) for o in opts]
        finally:
            self.cells[i] = was
            self.own[team] &= ~(1 << i)
        keyed.sort(key=lambda x: (x[0], x[1]))
        return [o for _, _, o in keyed]

    def room(self, team: int, extra: tuple[Sequence, ...] = ()) -> int:
        """How much room ``team`` has for another sequence: the windows of ``k`` spaces on
        the board (any line) that hold no other team's chip, are not a sequence already,
        and share at most ``max_shared`` spaces with each of the team's sequences (with
        ``extra`` ones added)."""
        others = 0
        for t, m in enumerate(self.own):
            if t != team:
                others |= m
        mine = [m for s, m in zip(self.sequences, self._seq_masks) if s.team == team]
        mine.extend(_mask(s.spaces) & ~self.free_mask for s in extra)
        lim = self.max_shared
        n = 0
        for w in self._win.masks:
            if w & others:
                continue
            if all((w & m).bit_count() <= lim for m in mine):
                n += 1
        return n

    # --- changing ----------------------------------------------------------------------
    def place(self, i: int, team: int, chosen: tuple[tuple[int, ...], ...] = ()) -> int:
        """Put a chip of ``team`` on empty space ``i``; fix the sequences it completes (the
        default choice, or the one holding every set of spaces in ``chosen``, which
        :meth:`choice_error` checks) and return how many."""
        bit = 1 << i
        mine = self.own[team] | bit
        self.cells[i] = team + 1
        self.own[team] = mine
        have = mine | self.free_mask
        win = self._win
        k = self.k
        if (have & win.reach[i]).bit_count() < k:
            return 0                       # too few of the team's chips around: no window
        masks = win.masks
        for near, ids in win.through[i]:
            if (have & near).bit_count() >= k:
                for wi in ids:
                    m = masks[wi]
                    if m & have == m:
                        break
                else:
                    continue
                break
        else:
            return 0                       # no window through i is complete
        self.cells[i] = EMPTY
        self.own[team] = mine & ~bit
        opts = self.options(i, team)
        self.cells[i] = team + 1
        self.own[team] = mine
        if not opts:
            return 0                       # complete, but each shares too much
        pick = _pick(opts, chosen) or opts[0]
        for s in pick:
            self._add(s)
        return len(pick)

    def _add(self, s: Sequence) -> None:
        # free spaces left out: they count in any number of sequences, never as shared
        m = _mask(s.spaces) & ~self.free_mask
        self.sequences.append(s)
        self._seq_masks.append(m)
        self.counts[s.team] += 1
        self.locked |= m

    def choice_error(self, i: int, team: int, chosen: tuple[tuple[int, ...], ...]) -> str | None:
        """Why the sets of spaces ``chosen`` are not a choice a chip of ``team`` on ``i``
        leaves (None when they are, or when nothing is chosen)."""
        if not chosen:
            return None
        opts = self.options(i, team)
        if not opts:
            return "it completes no sequence, so there is nothing to choose"
        for c in chosen:
            if len(c) != self.k:
                return f"a sequence is {self.k} spaces, not {len(c)}"
            if i not in c:
                return "every sequence chosen must hold the chip just placed"
        if _pick(opts, chosen) is None:
            names = " ".join(f"{space_name(c[0], self.layout.cols)}-"
                             f"{space_name(c[-1], self.layout.cols)}" for c in chosen)
            return f"{names} is not a sequence this chip completes (the rules allow: " + \
                "; ".join(" ".join(s.text(self.layout.cols) for s in o) for o in opts) + ")"
        return None

    def rechoose(self, n_last: int, chosen: tuple[tuple[int, ...], ...], i: int) -> bool:
        """Replace the last ``n_last`` sequences (made by the chip on ``i``) with the choice
        holding ``chosen``; False (nothing changed) when that is not a choice it had."""
        if n_last <= 0 or len(self.sequences) < n_last:
            return False
        team = self.sequences[-1].team
        last = self.sequences[-n_last:]
        del self.sequences[-n_last:]
        del self._seq_masks[-n_last:]
        self.counts[team] -= n_last
        self._relock()
        self.cells[i] = EMPTY
        self.own[team] &= ~(1 << i)
        opts = self.options(i, team)
        self.cells[i] = team + 1
        self.own[team] |= 1 << i
        pick = _pick(opts, chosen)
        for s in (pick or last):
            self._add(s)
        return pick is not None

    def remove(self, i: int) -> int:
        """Take the chip off space ``i``; return how many sequences it broke (a chip of a
        sequence can be taken only in the advanced variant: that sequence stops counting)."""
        v = self.cells[i]
        self.cells[i] = EMPTY
        if v > 0:
            self.own[v - 1] &= ~(1 << i)
        bit = 1 << i
        if not self.locked & bit:
            return 0
        keep = [(s, m) for s, m in zip(self.sequences, self._seq_masks) if not m & bit]
        lost = len(self.sequences) - len(keep)
        self.sequences[:] = [s for s, _ in keep]
        self._seq_masks[:] = [m for _, m in keep]
        self.counts[:] = [0] * self.n_teams
        for s in self.sequences:
            self.counts[s.team] += 1
        self._relock()
        return lost

    def poke(self, i: int, value: int) -> None:
        """Set a cell to ``value`` (``EMPTY`` or ``team + 1``) with no sequence made or
        broken: for search code that walks positions back."""
        v = self.cells[i]
        if v > 0:
            self.own[v - 1] &= ~(1 << i)
        self.cells[i] = value
        if value > 0:
            self.own[value - 1] |= 1 << i

    def _relock(self) -> None:
        m = 0
        for x in self._seq_masks:
            m |= x
        self.locked = m

    # --- the reference: the same answers by scanning every line -------------------------
    def scan_candidates(self, i: int, team: int) -> list[tuple[int, ...]]:
        """The windows through empty ``i`` that a chip of ``team`` would complete and the
        shared-space rule allows, found by reading every window of every line (slow; the
        check of the incremental :meth:`_candidates`)."""
        v = team + 1
        out = []
        free = set(self.layout.free)
        mine = [set(s.spaces) - free for s in self.sequences if s.team == team]
        for line in self.layout.lines(self.k):
            for start in range(len(line) - self.k + 1):
                w = line[start:start + self.k]
                if i not in w:
                    continue
                if all(j == i or self.cells[j] in (v, FREE) for j in w) and \
                        all(len(m & set(w)) <= self.max_shared for m in mine):
                    out.append(tuple(sorted(w)))
        return sorted(out)


def _mask(spaces) -> int:
    m = 0
    for c in spaces:
        m |= 1 << c
    return m


def _pick(opts: list[tuple[Sequence, ...]], chosen) -> tuple[Sequence, ...] | None:
    """The first option holding every set of spaces in ``chosen`` (None: no such option)."""
    if not chosen:
        return opts[0] if opts else None
    want = [tuple(sorted(c)) for c in chosen]
    for o in opts:
        have = {s.spaces for s in o}
        if all(w in have for w in want):
            return o
    return None
