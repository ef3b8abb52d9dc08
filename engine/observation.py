"""What sensing reports about the board: the one seam between vision/bridge and rules.

An :class:`Observation` holds, for every space, one :class:`SpaceState` and a confidence.
A camera and a sensor matrix both produce it; nothing after it knows which did. Its text
form is one line per board row of ``.`` (empty), ``B``/``G``/``R`` (a chip of that colour),
``W`` (a chip flipped to its white side) and ``?`` (unknown, e.g. under a hand).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .errors import ObservationError


class SpaceState(str, enum.Enum):
    EMPTY = "."
    BLUE = "B"
    GREEN = "G"
    RED = "R"
    WHITE = "W"
    UNKNOWN = "?"

    @property
    def is_chip(self) -> bool:
        return self in (SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED, SpaceState.WHITE)

    @property
    def is_colour(self) -> bool:
        return self in (SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED)


COLOUR_STATES = (SpaceState.BLUE, SpaceState.GREEN, SpaceState.RED)
_BY_CHAR = {s.value: s for s in SpaceState}


@dataclass(frozen=True)
class Observation:
    """A stable reading of the whole board: ``states[r * cols + c]`` for each space."""

    rows: int
    cols: int
    states: tuple[SpaceState, ...]
    confidence: tuple[float, ...] = field(default=())

    def __post_init__(self) -> None:
        n = self.rows * self.cols
        if len(self.states) != n:
            raise ObservationError(f"observation has {len(self.states)} spaces, expected {n}")
        if not self.confidence:
            object.__setattr__(self, "confidence", (1.0,) * n)
        elif len(self.confidence) != n:
            raise ObservationError(
                f"observation has {len(self.confidence)} confidences, expected {n}")

    @classmethod
    def parse(cls, text: str) -> Observation:
        """Parse the text form (rows of ``.BGRW?``, spaces between symbols optional)."""
        rows = []
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].replace(" ", "").strip()
            if not line:
                continue
            row = []
            for ch in line:
                if ch not in _BY_CHAR:
                    raise ObservationError(f"line {lineno}: unknown space symbol {ch!r}")
                row.append(_BY_CHAR[ch])
            rows.append(row)
        if not rows:
            raise ObservationError("empty observation")
        cols = len(rows[0])
        for i, row in enumerate(rows):
            if len(row) != cols:
                raise ObservationError(f"row {i + 1} has {len(row)} spaces, expected {cols}")
        return cls(len(rows), cols, tuple(s for row in rows for s in row))

    @classmethod
    def empty(cls, rows: int, cols: int) -> Observation:
        return cls(rows, cols, (SpaceState.EMPTY,) * (rows * cols))

    def __getitem__(self, index: int) -> SpaceState:
        return self.states[index]

    def __str__(self) -> str:
        return "\n".join(
            " ".join(s.value for s in self.states[r * self.cols:(r + 1) * self.cols])
            for r in range(self.rows))

    def replace(self, changes: dict[int, SpaceState]) -> Observation:
        """A copy with some spaces changed (confidence 1 for those)."""
        states = list(self.states)
        conf = list(self.confidence)
        for i, s in changes.items():
            states[i] = s
            conf[i] = 1.0
        return Observation(self.rows, self.cols, tuple(states), tuple(conf))

    def to_json(self) -> dict:
        return {"rows": self.rows, "cols": self.cols,
                "board": ["".join(s.value for s in self.states[r * self.cols:(r + 1) * self.cols])
                          for r in range(self.rows)],
                "confidence": [round(c, 3) for c in self.confidence]}

    @classmethod
    def from_json(cls, obj: dict) -> Observation:
        """The object :meth:`to_json` gives (``rows``/``cols`` optional): ``board`` a list
        of row strings, ``confidence`` a list of numbers from 0 to 1, one per space."""
        if not isinstance(obj, dict):
            raise ObservationError("an observation is an object with a 'board'")
        board = obj.get("board")
        if not isinstance(board, list) or not all(isinstance(r, str) for r in board):
            raise ObservationError("an observation's 'board' must be a list of row strings")
        obs = cls.parse("\n".join(board))
        for key, n in (("rows", obs.rows), ("cols", obs.cols)):
            if key in obj and obj[key] != n:
                raise ObservationError(f"the observation says {key} {obj[key]!r}, its board has {n}")
        conf = obj.get("confidence")
        if conf is None or conf == []:
            return obs
        if not isinstance(conf, list) or not all(
                isinstance(c, (int, float)) and not isinstance(c, bool) and 0.0 <= c <= 1.0
                for c in conf):
            raise ObservationError("an observation's 'confidence' must be a list of numbers "
                                   "from 0 to 1, one per space")
        return cls(obs.rows, obs.cols, obs.states, tuple(float(c) for c in conf))
