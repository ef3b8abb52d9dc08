"""Editions of the SEQUENCE board game as small declarative differences.

Each edition is a subclass of :class:`Edition` that sets a few class attributes (sequence
length, deck, which cards are wild or remove a chip, hand sizes, sequences to win) and,
where the rule differs in kind, overrides one named hook. Variants and the open points of
the rules digest are the fields of :class:`Options`, each with the default RULES.md states.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from importlib import resources

from .cards import ADD, ONE_EYED_JACKS, REMOVE, TWO_EYED_JACKS, board_cards, standard_deck
from .errors import EngineError
from .layout import Layout, parse_layout, read_layout_text


@dataclass(frozen=True)
class Options:
    """Variants and open points, as named options (defaults from RULES.md)."""

    #: Advanced variant (004): one-eyed jacks / REMOVE may take chips of completed
    #: sequences; that sequence stops counting and what remains may form new ones.
    advanced: bool = False
    #: Table-talk rule (001; optional in 004): when told of table talk, every member of
    #: that team discards one card of their choice.
    table_talk_penalty: bool = True
    #: How many spaces a new sequence may share with each earlier sequence of its team
    #: (open point; the books say one).
    max_shared_spaces: int = 1
    #: Override of the edition's sequences needed to win (None: the edition's rule).
    sequences_to_win: int | None = None
    #: Referee: a placement that no card left could explain is a violation.
    check_card_supply: bool = True

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict) -> "Options":
        known = {f.name for f in fields(cls)}
        unknown = set(obj) - known
        if unknown:
            raise EngineError(f"unknown option(s): {', '.join(sorted(unknown))}")
        opts = cls(**obj)
        opts.validate()
        return opts

    def validate(self) -> None:
        if not isinstance(self.max_shared_spaces, int) or not 0 <= self.max_shared_spaces <= 3:
            raise EngineError("option max_shared_spaces must be a whole number from 0 to 3")
        if self.sequences_to_win is not None and (
                not isinstance(self.sequences_to_win, int) or not 1 <= self.sequences_to_win <= 6):
            raise EngineError("option sequences_to_win must be a whole number from 1 to 6")
        for name in ("advanced", "table_talk_penalty", "check_card_supply"):
            if not isinstance(getattr(self, name), bool):
                raise EngineError(f"option {name} must be true or false")


class Edition:
    """The rules that differ between editions. Subclasses set the class attributes."""

    name = "base"
    title = "SEQUENCE"
    layout_name = "classic"
    sequence_length = 5
    copies_on_board = 2
    player_counts: tuple[int, ...] = (2,)
    hand_sizes: dict[int, int] = {}
    wild_cards: frozenset[str] = frozenset()
    remove_cards: frozenset[str] = frozenset()
    #: Colours of the teams in seat order: blue and green, red only for a third team.
    colours = ("B", "G", "R")

    def deck(self) -> list[str]:
        """The full deck, unshuffled."""
        raise NotImplementedError

    def board_symbols(self) -> list[str]:
        """Every symbol a non-free board space may show."""
        raise NotImplementedError

    def sequences_to_win(self, n_teams: int) -> int:
        return 2 if n_teams == 2 else 1

    def teams_for(self, n_players: int) -> int:
        """Teams for a player count: up to 3 play alone; more form 2 or 3 equal teams."""
        if n_players not in self.player_counts:
            raise EngineError(f"{self.title} is played by {', '.join(map(str, self.player_counts))}"
                              f" players, not {n_players}")
        if n_players <= 3:
            return n_players
        return 2 if n_players % 2 == 0 else 3

    def valid_teams(self, n_players: int) -> tuple[int, ...]:
        """Team counts allowed for a player count (6 and 12 players may form 2 or 3 teams)."""
        if n_players <= 3:
            return (n_players,)
        return tuple(t for t in (2, 3) if n_players % t == 0)

    def hand_size(self, n_players: int) -> int:
        try:
            return self.hand_sizes[n_players]
        except KeyError:
            raise EngineError(f"{self.title}: no hand size for {n_players} players") from None

    def card_kind(self, card: str) -> str:
        """``"wild"``, ``"remove"`` or ``"normal"``."""
        if card in self.wild_cards:
            return "wild"
        if card in self.remove_cards:
            return "remove"
        return "normal"

    def load_layout(self, path_or_name: str | None = None) -> Layout:
        """Load and validate this edition's layout (its built-in one, a name or a file)."""
        text, source = read_layout_text(path_or_name or self.layout_name)
        layout = parse_layout(text, source, symbols=self.board_symbols(),
                              copies=self.copies_on_board)
        return layout


class Classic(Edition):
    """The classic board game: 2-12 players, 104 cards, two sequences win (one with 3 teams)."""

    name = "classic"
    title = "SEQUENCE"
    layout_name = "classic"
    sequence_length = 5
    copies_on_board = 2
    player_counts = (2, 3, 4, 6, 8, 9, 10, 12)
    hand_sizes = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}
    wild_cards = frozenset(TWO_EYED_JACKS)
    remove_cards = frozenset(ONE_EYED_JACKS)

    def deck(self) -> list[str]:
        return standard_deck(2)

    def board_symbols(self) -> list[str]:
        return board_cards()


class Travel(Classic):
    """Travel edition: 2 players, one 52-card deck, each card once, sequences of four."""

    name = "travel"
    title = "SEQUENCE travel edition"
    layout_name = "travel"
    sequence_length = 4
    copies_on_board = 1
    player_counts = (2,)
    hand_sizes = {2: 7}

    def deck(self) -> list[str]:
        return standard_deck(1)

    def sequences_to_win(self, n_teams: int) -> int:
        return 2


def jewish_pictures() -> list[str]:
    text = resources.files("engine.data").joinpath("jewish_pictures.txt").read_text("utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


class Jewish(Edition):
    """Jewish Edition: pictures instead of cards, ADD/REMOVE instead of jacks, one sequence wins."""

    name = "jewish"
    title = "SEQUENCE Jewish Edition"
    layout_name = "jewish"
    sequence_length = 5
    copies_on_board = 2
    #: The book says 2 to 6, but also that more than 3 form equal teams: 5 cannot.
    player_counts = (2, 3, 4, 6)
    hand_sizes = {2: 5, 3: 5, 4: 4, 6: 4}
    wild_cards = frozenset({ADD})
    remove_cards = frozenset({REMOVE})

    def deck(self) -> list[str]:
        pics = jewish_pictures()
        return pics + pics + [ADD, ADD, REMOVE, REMOVE]

    def board_symbols(self) -> list[str]:
        return jewish_pictures()

    def sequences_to_win(self, n_teams: int) -> int:
        return 1


EDITIONS: dict[str, Edition] = {e.name: e for e in (Classic(), Travel(), Jewish())}


def get_edition(name: str) -> Edition:
    try:
        return EDITIONS[name]
    except KeyError:
        raise EngineError(f"unknown edition {name!r} (known: {', '.join(EDITIONS)})") from None
