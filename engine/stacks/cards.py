"""SEQUENCE STACKS cards: short codes, what each is, and the deck's make-up (a data file).

Codes: ``R1``-``R5`` and ``B1``-``B5`` (red and blue numbers), ``RW`` / ``BW`` (wilds of a
colour), ``SK`` Skip, ``RV`` Reverse, ``SC`` Steal a Card, ``CH`` Steal a Chip, ``BL``
Block. ``?`` stands for a card nobody at the table can see (the referee of a physical game
does not know the hands or the deck).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import EngineError

COLOURS = ("R", "B")
COLOUR_NAMES = {"R": "red", "B": "blue"}
SPECIALS = {"SK": "Skip", "RV": "Reverse", "SC": "Steal a Card", "CH": "Steal a Chip",
            "BL": "Block"}
UNKNOWN = "?"
ALIASES = {"SKIP": "SK", "REVERSE": "RV", "REV": "RV", "STEAL": "SC", "STEALCARD": "SC",
           "STEALCHIP": "CH", "CHIP": "CH", "BLOCK": "BL", "RED": "RW", "BLUE": "BW",
           "R*": "RW", "B*": "BW"}
ALL_CODES = tuple(f"{c}{n}" for c in COLOURS for n in "12345W") + tuple(SPECIALS)
DECK_FILE = Path(__file__).resolve().parent.parent / "data" / "stacks-deck.toml"


def parse_card(text: str) -> str:
    """A card code from what a person types (``r3``, ``bw``, ``skip``); EngineError if none."""
    t = text.strip().upper().replace(" ", "").replace("-", "")
    t = ALIASES.get(t, t)
    if t in ALL_CODES:
        return t
    raise EngineError(f"unknown card {text.strip()!r}: R1-R5, B1-B5, RW, BW (wilds), "
                      "SK skip, RV reverse, SC steal a card, CH steal a chip, BL block")


_COLOUR = {f"{c}{n}": c for c in COLOURS for n in "12345W"}
_NUMBER = {f"{c}{n}": int(n) for c in COLOURS for n in "12345"}
_WILD = frozenset(f"{c}W" for c in COLOURS)


def colour(card: str) -> str | None:
    return _COLOUR.get(card)


def number(card: str) -> int:
    """1 to 5 for a number card, 0 for a wild or a special."""
    return _NUMBER.get(card, 0)


def is_wild(card: str) -> bool:
    return card in _WILD


def card_name(card: str) -> str:
    if card in SPECIALS:
        return SPECIALS[card]
    if card == UNKNOWN:
        return "a hidden card"
    c = COLOUR_NAMES[card[0]]
    return f"{c} wild" if card[1] == "W" else f"{c} {card[1]}"


@dataclass(frozen=True)
class DeckSpec:
    cards: dict[str, int]
    two_player_removed: dict[str, int]
    chips: dict[str, int]
    source: str = "default"

    def deck(self, players: int, reduce_for_two: bool = True) -> list[str]:
        """Every card of the deck (unshuffled) for ``players`` players."""
        out = []
        for code, n in self.cards.items():
            if players == 2 and reduce_for_two:
                n -= self.two_player_removed.get(code, 0)
            out += [code] * n
        return out


def load_deck(path: str | Path | None = None) -> DeckSpec:
    """The deck's make-up from a TOML data file (default: the published split)."""
    p = Path(path) if path else DECK_FILE
    name = str(p) if path else "default"
    from ..layout import read_capped_text
    text = read_capped_text(p, 64 * 1024, "deck file", EngineError) if path else \
        p.read_text("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EngineError(f"{p}: not a valid deck file: {exc}") from None
    except RecursionError:
        raise EngineError(f"{p}: not a valid deck file: values nested too deeply") from None

    def table(key: str, allowed) -> dict[str, int]:
        t = data.get(key, {})
        if not isinstance(t, dict):
            raise EngineError(f"{p}: [{key}] must be a table")
        for k, v in t.items():
            if k not in allowed:
                shown = k if k.isprintable() and len(k) <= 20 else repr(k[:20])
                raise EngineError(f"{p}: [{key}] {shown}: unknown card")
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 100:
                shown = repr(v) if isinstance(v, (int, float, bool, str)) else type(v).__name__
                raise EngineError(f"{p}: [{key}] {k}: expected a count from 0 to 100, "
                                  f"got {shown[:40]}")
        return dict(t)

    cards = table("cards", ALL_CODES)
    removed = table("two_player_removed", ALL_CODES)
    chips = table("chips", COLOURS)
    for k, v in removed.items():
        if v > cards.get(k, 0):
            raise EngineError(f"{p}: [two_player_removed] {k}: removes {v}, the deck has "
                              f"{cards.get(k, 0)}")
    for c in COLOURS:
        if not any(cards.get(f"{c}{n}", 0) for n in "1W"):
            raise EngineError(f"{p}: [cards]: no {COLOUR_NAMES[c]} 1 or wild: no pile could start")
        chips.setdefault(c, 20)
    return DeckSpec(cards, removed, chips, name)
