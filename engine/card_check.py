"""Judging a chip against the card laid (issue 24): a pure function, no I/O.

:func:`judge_with_card` takes the layout, the spaces open before the move, what changed
(a chip placed on a space, or a chip removed from one) and the card read on the pile
(``None`` when no new card was seen), and says whether the change matches the card:

- a standard card (or a Jewish Edition picture): the chip must be on one of its spaces;
- a two-eyed jack (JD JC) or ``ADD``: a chip on any open space;
- a one-eyed jack (JS JH) or ``REMOVE``: a removal (which chips may be removed, those in a
  sequence, is the referee's own check);
- a chip with no new card, or a new card with no chip, waits.

Not wired into :class:`engine.referee.Referee` yet (docs/cards.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ADD, ONE_EYED_JACKS, REMOVE, TWO_EYED_JACKS
from .layout import Layout


@dataclass(frozen=True)
class CardVerdict:
    ok: bool             # the change matches the card
    waiting: bool        # not enough seen yet to judge (no card, or no chip)
    message: str

    @property
    def violation(self) -> bool:
        return not self.ok and not self.waiting


def _spaces(layout: Layout, idx) -> str:
    names = [layout.space_name(i) for i in sorted(idx)]
    return " or ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " or " + names[-1]


def judge_with_card(layout: Layout, open_spaces, card: str | None,
                    placed: int | None = None, removed: int | None = None) -> CardVerdict:
    """Judge one change against the card laid. ``open_spaces``: the spaces without a chip
    before the change (free corners excluded)."""
    if placed is not None and removed is not None:
        raise ValueError("one change at a time: a chip placed or a chip removed")
    if placed is None and removed is None:
        if card is None:
            return CardVerdict(True, True, "nothing changed")
        return CardVerdict(False, True, f"{card} laid: waiting for its chip")
    if card is None:
        where = layout.space_name(placed if placed is not None else removed)
        return CardVerdict(False, True, f"a chip changed on {where}: waiting for the card laid")
    if card in ONE_EYED_JACKS or card == REMOVE:
        if removed is not None:
            return CardVerdict(True, False, f"{card} laid: the chip on "
                               f"{layout.space_name(removed)} removed")
        return CardVerdict(False, False, f"{card} laid: it removes a chip, but a chip was placed "
                           f"on {layout.space_name(placed)}")
    if removed is not None:
        return CardVerdict(False, False, f"{card} laid: only a one-eyed jack removes a chip, "
                           f"but the chip on {layout.space_name(removed)} was taken away")
    name = layout.space_name(placed)
    if card in TWO_EYED_JACKS or card == ADD:
        if placed in open_spaces:
            return CardVerdict(True, False, f"{card} laid: a chip on {name}")
        return CardVerdict(False, False, f"{card} laid: {name} was not open")
    mine = [i for i in layout.spaces_of.get(card, ()) if i not in layout.free]
    if placed in mine:
        if placed in open_spaces:
            return CardVerdict(True, False, f"{card} laid: a chip on {name}")
        return CardVerdict(False, False, f"{card} laid: {name} was not open")
    sym = layout.symbols[placed]
    what = "a free corner" if placed in layout.free else f"the {sym}"
    still = [i for i in mine if i in open_spaces]
    if not mine:
        where = f"{card} is not on this board"
    elif still:
        where = f"{card} is on {_spaces(layout, still)}"
    else:
        where = f"both {card} spaces are taken ({_spaces(layout, mine)}): a dead card to trade"
    return CardVerdict(False, False, f"{card} laid: the chip on {name} is {what}; {where}")
