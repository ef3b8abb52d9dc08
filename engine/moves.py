"""Moves and verdicts: small value types that print to and parse from their record text."""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Sequence, parse_five
from .errors import RecordError
from .layout import parse_space, space_name

ACTIONS = ("place", "remove", "dead", "pass", "unseen")


@dataclass(frozen=True)
class Move:
    """One action of a turn.

    ``place``: play ``card`` and put a chip on ``space``; ``remove``: play a chip-removing card
    and take the chip off ``space``; ``dead``: trade the dead ``card`` for a new one (before
    playing, at most once a turn); ``pass``: no legal play at all; ``unseen``: a move the
    sensing could not see (its chip on a space that cannot be read: glare, the lens edge);
    the turn passes and the board is left as it was. ``card`` is None when a
    referee saw the chip but not the card.

    ``five``: when a placement completes a line longer than a sequence (or several lines),
    the sets of spaces the team names as its new sequence(s), each sorted; empty for the
    default choice (:meth:`engine.board.Board.options`). Text: ``place JD f4 five b4-f4``
    (each set by its two ends); JSON: ``"five": [["b4", "c4", "d4", "e4", "f4"]]``.
    """

    action: str
    card: str | None = None
    space: int | None = None
    five: tuple[tuple[int, ...], ...] = ()

    def text(self, cols: int = 10) -> str:
        parts = [self.action]
        if self.card is not None:
            parts.append(self.card)
        elif self.action in ("place", "remove"):
            parts.append("?")
        if self.space is not None:
            parts.append(space_name(self.space, cols))
        if self.five:
            parts.append("five")
            parts.extend(f"{space_name(f[0], cols)}-{space_name(f[-1], cols)}" for f in self.five)
        return " ".join(parts)

    __str__ = text

    @classmethod
    def parse(cls, text: str, rows: int = 10, cols: int = 10) -> "Move":
        """``"place 5H c4"``, ``"remove JS d7"``, ``"dead 5H"``, ``"pass"``; ``?`` for an
        unknown card; ``"place JD f4 five b4-f4"`` names the five of a longer line."""
        parts = text.split()
        if not parts or parts[0] not in ACTIONS:
            raise RecordError(f"not a move: {text!r} (expected place, remove, dead, pass or unseen)")
        action = parts[0]
        want = {"place": 3, "remove": 3, "dead": 2, "pass": 1, "unseen": 1}[action]
        five: tuple[tuple[int, ...], ...] = ()
        if action == "place" and len(parts) > want and parts[want] == "five":
            if len(parts) == want + 1:
                raise RecordError(f"move {text!r}: 'five' needs the spaces, e.g. five b4-f4")
            try:
                five = tuple(parse_five(p, rows, cols) for p in parts[want + 1:])
            except ValueError as exc:
                raise RecordError(f"move {text!r}: {exc}") from None
            parts = parts[:want]
        if len(parts) != want:
            raise RecordError(f"move {text!r}: {action} takes {want - 1} argument(s)")
        card = None if want < 2 or parts[1] == "?" else parts[1]
        space = None
        if want == 3:
            try:
                space = parse_space(parts[2], rows, cols)
            except ValueError as exc:
                raise RecordError(f"move {text!r}: {exc}") from None
        return cls(action, card, space, five)

    def to_json(self, cols: int = 10) -> dict:
        d: dict = {"action": self.action, "card": self.card}
        if self.space is not None:
            d["space"] = space_name(self.space, cols)
        if self.five:
            d["five"] = [[space_name(s, cols) for s in f] for f in self.five]
        return d

    @classmethod
    def from_json(cls, obj: dict, rows: int = 10, cols: int = 10) -> "Move":
        try:
            action = obj["action"]
            card = obj.get("card")
            sp = obj.get("space")
        except (KeyError, TypeError, AttributeError):
            raise RecordError("a move needs an 'action'") from None
        if action not in ACTIONS:
            raise RecordError(f"unknown action {action!r}")
        if card is not None and not isinstance(card, str):
            raise RecordError(f"card must be a string, got {card!r}")
        space = None
        if action in ("place", "remove"):
            if not isinstance(sp, str):
                raise RecordError(f"a {action} needs a 'space' like \"c4\"")
            try:
                space = parse_space(sp, rows, cols)
            except ValueError as exc:
                raise RecordError(str(exc)) from None
        elif action == "dead" and not isinstance(card, str):
            raise RecordError("a dead-card trade needs its 'card'")
        five = _five_from_json(obj.get("five"), action, rows, cols)
        return cls(action, card, space, five)


def _five_from_json(val, action: str, rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """``"five"`` of a move's JSON: a list of sets, each a list of space names or "b4-f4"."""
    if val is None:
        return ()
    if action != "place" or not isinstance(val, list) or not val:
        raise RecordError("'five' is a non-empty list of the spaces of a placement's "
                          "sequence(s), e.g. [[\"b4\", \"c4\", \"d4\", \"e4\", \"f4\"]]")
    out = []
    for f in val:
        try:
            if isinstance(f, str):
                out.append(parse_five(f, rows, cols))
            elif isinstance(f, list) and f and all(isinstance(n, str) for n in f):
                out.append(tuple(sorted({parse_space(n, rows, cols) for n in f})))
            else:
                raise RecordError(f"'five': {f!r} is not a list of space names")
        except ValueError as exc:
            raise RecordError(f"'five': {exc}") from None
    return tuple(out)


#: Violation rules a referee names, with the words shown to players.
RULES = {
    "wrong_colour": "a chip of a colour not in this game",
    "out_of_turn": "a chip of a team whose turn it is not",
    "two_chips": "more than one chip placed in one turn",
    "free_corner": "a chip on a free corner",
    "sequence_chip_removed": "a chip of a completed sequence removed",
    "own_chip_removed": "a team removed its own chip",
    "chip_moved": "a chip moved from one space to another",
    "back_on_cleared": "a chip put back on the space just cleared",
    "no_card_left": "no card left could explain this placement",
    "no_remover_left": "no chip-removing card left could explain this removal",
    "chip_replaced": "a chip was swapped for one of another colour",
    "several_changes": "several chips changed at once",
    "game_over": "the game is already over",
    "not_proposed": "not the move the computer player chose",
    "not_your_seat": "a chip this board may not place now (remote play: another board's turn, or no card for it)",
    "white_off_sequence": "a white chip off a completed sequence",
    "not_dead": "a card traded as dead that is not dead",
    "confirm_catch_up": "missed moves found: a person confirms them",
    "wrong_card": "a chip not on a space of the card laid",
    "card_out_of_turn": "a card laid on the pile of a player whose turn it is not",
}


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to one stable observation of the board.

    ``kind`` is ``no_change``, ``placement``, ``removal``, ``takeback``, ``choice``,
    ``violation`` or ``waiting`` (judging with cards: a chip seen with no card laid yet, or a
    card with no chip; nothing applied). A legal move carries the team and player who made it, the space, the
    cards that could explain it, the sequences it completed (``new_sequences``, and
    ``made``: the :class:`~engine.board.Sequence` s themselves) and the winner if it won.
    A ``choice`` is the team showing, with white chips, other five for the sequence(s) its
    last placement made: ``made`` holds them, ``spaces`` the placement's space. A
    violation names its ``rule`` (a key of :data:`RULES`) and the ``spaces`` at fault.
    """

    kind: str
    spaces: tuple[int, ...] = ()
    team: int | None = None
    player: int | None = None
    cards: tuple[str, ...] = ()
    rule: str | None = None
    new_sequences: int = 0
    winner: int | None = None
    message: str = ""
    extra: dict = field(default_factory=dict, compare=False)
    made: tuple[Sequence, ...] = field(default=(), compare=False)

    @property
    def is_move(self) -> bool:
        return self.kind in ("placement", "removal")

    def to_json(self, cols: int = 10) -> dict:
        d: dict = {"kind": self.kind, "spaces": [space_name(s, cols) for s in self.spaces]}
        for key in ("team", "player", "rule", "winner"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.cards:
            d["cards"] = list(self.cards)
        if self.new_sequences:
            d["new_sequences"] = self.new_sequences
        d["text"] = self.message
        return d

    @classmethod
    def from_json(cls, obj: dict, rows: int = 10, cols: int = 10) -> "Verdict":
        try:
            kind = obj["kind"]
            spaces = tuple(parse_space(s, rows, cols) for s in obj.get("spaces", []))
            return cls(kind=kind, spaces=spaces, team=obj.get("team"), player=obj.get("player"),
                       cards=tuple(obj.get("cards", ())), rule=obj.get("rule"),
                       new_sequences=int(obj.get("new_sequences", 0)), winner=obj.get("winner"),
                       message=str(obj.get("text", "")))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"malformed verdict: {exc}") from None

    def same_as(self, other: "Verdict") -> bool:
        """Equal in everything but the words."""
        return (self.kind, self.spaces, self.team, self.player, self.cards, self.rule,
                self.new_sequences, self.winner) == (
            other.kind, other.spaces, other.team, other.player, other.cards, other.rule,
            other.new_sequences, other.winner)

    def __str__(self) -> str:
        return self.message or self.kind
