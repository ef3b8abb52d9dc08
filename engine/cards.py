"""Cards: short codes as they appear in game records.

Standard cards are rank + suit: ranks ``2-9 T J Q K A``, suits ``S H D C`` (``TH`` is the
ten of hearts). Jacks never appear on a board: the two-eyed jacks (diamonds, clubs) are
wild, the one-eyed jacks (hearts, spades) remove a chip. The Jewish Edition uses picture
names instead, and ``ADD`` / ``REMOVE`` cards in place of jacks.
"""

from __future__ import annotations

from .errors import CardError

RANKS = "23456789TJQKA"
SUITS = "SHDC"
RANK_NAMES = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
              "T": "10", "J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"}
SUIT_NAMES = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}

TWO_EYED_JACKS = ("JD", "JC")
ONE_EYED_JACKS = ("JH", "JS")
ADD = "ADD"
REMOVE = "REMOVE"


def parse_card(text: str) -> str:
    """Return the canonical code of a standard card (``"10h"`` -> ``"TH"``)."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise CardError(f"not a card code: {text!r} (expected rank 2-9/T/J/Q/K/A and suit S/H/D/C)")
    return t


def is_standard_card(code: str) -> bool:
    return len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def standard_deck(copies: int = 1) -> list[str]:
    """Every standard card ``copies`` times, in a fixed order (shuffle it yourself)."""
    return [r + s for _ in range(copies) for s in SUITS for r in RANKS]


def board_cards() -> list[str]:
    """The 48 standard cards that appear on a board: all but the jacks."""
    return [r + s for s in SUITS for r in RANKS if r != "J"]


def card_name(code: str) -> str:
    """Words for a card: ``"TH"`` -> ``"10 of hearts"``; other codes are returned as they are."""
    if is_standard_card(code):
        return f"{RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}s"
    return code


def picture_file(code: str) -> str | None:
    """File name of the card's picture in ``engine/data/cards`` (``heartKing.png``)."""
    if not is_standard_card(code):
        return None
    return f"{SUIT_NAMES[code[1]]}{RANK_NAMES[code[0]]}.png"
