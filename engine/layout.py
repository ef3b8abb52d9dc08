"""Board layouts: data files that say which card (or picture) each space shows.

A layout file is text: ``#`` starts a comment, ``%`` starts a directive, every other
non-blank line is one board row of whitespace-separated symbols, top row first.
Directives: ``% free XX`` names the symbol of free spaces (default ``XX``);
``% verified no`` marks an arrangement that no public source confirms (its comments say
why). The edition decides which symbols are allowed and how often each must appear;
:func:`parse_layout` rejects anything else with the line and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Iterable

from .errors import LayoutError

#: Directions as (row step, column step): row, column, diagonal, anti-diagonal.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def space_name(index: int, cols: int = 10) -> str:
    """``0`` -> ``a1``: column letter, then row number counted from the top row."""
    r, c = divmod(index, cols)
    return f"{chr(ord('a') + c)}{r + 1}"


def parse_space(text: str, rows: int = 10, cols: int = 10) -> int:
    """``"c4"`` -> index; also accepts ``"r,c"`` (0-based). Raises ValueError."""
    t = text.strip().lower()
    if "," in t:
        r_s, c_s = t.split(",", 1)
        r, c = int(r_s), int(c_s)
    else:
        if len(t) < 2 or not t[0].isalpha() or not t[1:].isdigit():
            raise ValueError(f"not a space name: {text!r} (expected e.g. c4)")
        c, r = ord(t[0]) - ord("a"), int(t[1:]) - 1
    if not (0 <= r < rows and 0 <= c < cols):
        raise ValueError(f"space {text!r} is off the {rows} x {cols} board")
    return r * cols + c


@dataclass
class Layout:
    """A board: ``symbols[r * cols + c]``, the free spaces, and where each symbol stands."""

    name: str
    rows: int
    cols: int
    symbols: tuple[str, ...]
    free: frozenset[int]
    verified: bool = True
    comments: tuple[str, ...] = ()
    free_symbol: str = "XX"
    spaces_of: dict[str, tuple[int, ...]] = field(default_factory=dict)
    _steps: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        where: dict[str, list[int]] = {}
        for i, s in enumerate(self.symbols):
            if i not in self.free:
                where.setdefault(s, []).append(i)
        self.spaces_of = {s: tuple(v) for s, v in where.items()}

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def space_name(self, index: int) -> str:
        return space_name(index, self.cols)

    def parse_space(self, text: str) -> int:
        return parse_space(text, self.rows, self.cols)

    def steps(self) -> tuple[tuple[list[int], list[int]], ...]:
        """Per direction, (forward, backward) neighbour tables: index or -1 off the board."""
        if not self._steps:
            out = []
            for dr, dc in DIRECTIONS:
                fwd, back = [], []
                for i in range(self.size):
                    r, c = divmod(i, self.cols)
                    for sign, table in ((1, fwd), (-1, back)):
                        rr, cc = r + sign * dr, c + sign * dc
                        ok = 0 <= rr < self.rows and 0 <= cc < self.cols
                        table.append(rr * self.cols + cc if ok else -1)
                out.append((fwd, back))
            self._steps["t"] = tuple(out)
        return self._steps["t"]

    def lines(self, min_length: int) -> list[tuple[int, ...]]:
        """Every maximal straight line (row, column, diagonal) at least ``min_length`` long."""
        return [line for _, line in self.directed_lines(min_length)]

    def directed_lines(self, min_length: int) -> list[tuple[int, tuple[int, ...]]]:
        """The same lines, each with the index of its direction in DIRECTIONS."""
        result = []
        for d, (fwd, back) in enumerate(self.steps()):
            for i in range(self.size):
                if back[i] != -1:
                    continue
                line, j = [], i
                while j != -1:
                    line.append(j)
                    j = fwd[j]
                if len(line) >= min_length:
                    result.append((d, tuple(line)))
        return result

    def to_text(self) -> str:
        """The layout file text (round-trips through :func:`parse_layout`)."""
        out = [f"# {c}" if c else "#" for c in self.comments]
        if self.free_symbol != "XX":
            out.append(f"% free {self.free_symbol}")
        if not self.verified:
            out.append("% verified no")
        width = max(len(s) for s in self.symbols)
        for r in range(self.rows):
            row = self.symbols[r * self.cols:(r + 1) * self.cols]
            out.append(" ".join(s.ljust(width) for s in row).rstrip())
        return "\n".join(out) + "\n"


MAX_SIDE = 26                    # rows and columns: a space is named by a letter a-z


def _q(text: str, limit: int = 40) -> str:
    """A piece of the user's file quoted for an error line: escapes shown, cut short."""
    r = repr(text[:limit])
    return r + ("..." if len(text) > limit else "")


def _safe(sym: str) -> str:
    return sym if sym.isprintable() and len(sym) <= 40 else _q(sym)


def parse_layout(text: str, source: str = "<layout>", *, symbols: Iterable[str] | None = None,
                 copies: int | None = None, rows: int | None = None,
                 cols: int | None = None) -> Layout:
    """Parse and validate a layout.

    ``symbols``: the symbols allowed on a non-free space (None allows any);
    ``copies``: how many times each must appear (None: any, but all the same);
    ``rows``/``cols``: the required size (None: whatever the file has, rows all equal).
    """
    allowed = set(symbols) if symbols is not None else None
    free_symbol = "XX"
    verified = True
    comments: list[str] = []
    grid: list[tuple[int, list[str]]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            comments.append(line[1:].strip())
            continue
        if line.startswith("%"):
            parts = line[1:].split()
            if len(parts) != 2:
                raise LayoutError(f"{source} line {lineno}: a directive is '% key value', got {_q(line)}")
            key, value = parts
            if key == "free":
                free_symbol = value
            elif key == "verified":
                if value not in ("yes", "no"):
                    raise LayoutError(f"{source} line {lineno}: '% verified' takes yes or no, got {_q(value)}")
                verified = value == "yes"
            else:
                raise LayoutError(f"{source} line {lineno}: unknown directive {_q(key)} (known: free, verified)")
            continue
        grid.append((lineno, line.split("#", 1)[0].split()))
    if not grid:
        raise LayoutError(f"{source}: no board rows")
    if len(grid) > MAX_SIDE:
        raise LayoutError(f"{source} line {grid[MAX_SIDE][0]}: more than {MAX_SIDE} rows")
    want_cols = cols if cols is not None else len(grid[0][1])
    if not 1 <= want_cols <= MAX_SIDE:
        raise LayoutError(f"{source} line {grid[0][0]}: {want_cols} spaces in a row, "
                          f"expected 1 to {MAX_SIDE}")
    for lineno, row in grid:
        if len(row) != want_cols:
            raise LayoutError(f"{source} line {lineno}: {len(row)} spaces in this row, expected {want_cols}")
    if rows is not None and len(grid) != rows:
        raise LayoutError(f"{source} line {grid[-1][0]}: {len(grid)} rows, expected {rows}")
    flat: list[str] = []
    free: set[int] = set()
    first_line: dict[str, int] = {}
    counts: dict[str, int] = {}
    for lineno, row in grid:
        for sym in row:
            idx = len(flat)
            flat.append(sym)
            if sym == free_symbol:
                free.add(idx)
                continue
            if allowed is not None and sym not in allowed:
                raise LayoutError(f"{source} line {lineno}: unknown symbol {_q(sym)}")
            counts[sym] = counts.get(sym, 0) + 1
            first_line.setdefault(sym, lineno)
    if copies is not None:
        for sym, n in counts.items():
            if n != copies:
                raise LayoutError(f"{source} line {first_line[sym]}: {sym} appears {n} times, "
                                  f"expected {copies}")
        if allowed is not None:
            missing = sorted(allowed - set(counts))
            if missing:
                raise LayoutError(f"{source}: {len(missing)} symbol(s) never appear: "
                                  f"{', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}")
    elif len(set(counts.values())) > 1:
        sym = min(counts, key=lambda s: (counts[s], s))
        raise LayoutError(f"{source} line {first_line[sym]}: {_safe(sym)} appears {counts[sym]} times, "
                          f"but other symbols appear {max(counts.values())} times")
    name = Path(source).stem if source != "<layout>" else "custom"
    return Layout(name=name, rows=len(grid), cols=want_cols, symbols=tuple(flat),
                  free=frozenset(free), verified=verified, comments=tuple(comments),
                  free_symbol=free_symbol)


def builtin_layout_text(name: str) -> str:
    """The text of a layout shipped with the engine (``classic``, ``travel``, ``jewish``)."""
    try:
        return resources.files("engine.layouts").joinpath(f"{name}.txt").read_text("utf-8")
    except FileNotFoundError:
        raise LayoutError(f"no built-in layout named {name!r}") from None


MAX_LAYOUT_BYTES = 64 * 1024     # a 10 x 10 layout with comments is ~1 kB


def read_capped_text(p: Path, cap: int, what: str, error=LayoutError) -> str:
    """The UTF-8 text of a regular file of at most ``cap`` bytes: reads ``cap + 1`` bytes
    at most, so a device (``/dev/zero``), a pipe or a huge file costs nothing."""
    import os
    import stat
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):
            raise error(f"{p}: not a regular file: a {what} must be a text file")
        with open(p, "rb") as f:
            data = f.read(cap + 1)
    except OSError as exc:
        raise error(f"{p}: cannot read {what}: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise error(f"{p}: larger than {cap} bytes: not a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{p}: {what} is not UTF-8 text (byte {exc.start})") from None


def read_layout_text(path_or_name: str) -> tuple[str, str]:
    """(text, source) of a built-in layout name or a file path."""
    if "/" in path_or_name or path_or_name.endswith(".txt"):
        p = Path(path_or_name).expanduser()
        return read_capped_text(p, MAX_LAYOUT_BYTES, "layout"), str(p)
    return builtin_layout_text(path_or_name), f"layouts/{path_or_name}.txt"
