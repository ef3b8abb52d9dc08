"""A game of a SEQUENCE board edition with every card known: deck, hands, discard piles.

This is the full-information game that computer players, the demo and replays of fully
recorded games run on. Its methods read like the rule book: :meth:`Game.push` plays one
move, :meth:`Game.legal_moves` lists them, :meth:`Game.dead_cards` names the dead ones.
The referee of a physical game, which cannot see hands, is :class:`engine.referee.Referee`.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import compress
from operator import not_

from .board import EMPTY, Board
from .editions import Edition, Options, get_edition
from .errors import EngineError, IllegalMoveError
from .layout import Layout
from .moves import Move


@lru_cache(maxsize=16)
def builtin_layout(edition_name: str) -> Layout:
    """The edition's shipped layout, loaded and validated once per process."""
    return get_edition(edition_name).load_layout()


class MoveTable:
    """Every placement and removal a card can make on a layout, built once: moves are
    values, so :meth:`Game.legal_moves` hands out these instead of making new ones."""

    def __init__(self, layout: Layout, wild: frozenset, remove: frozenset) -> None:
        size = layout.size
        #: normal card -> ((space, Move), ...)
        self.place = {card: tuple((s, Move("place", card, s)) for s in spaces)
                      for card, spaces in layout.spaces_of.items()}
        #: normal card printed once or twice -> (space a, space b, the placements open for
        #: each of the 4 patterns (a open) + 2 * (b open)); a card printed once has b = a
        self.place2: dict[str, tuple[int, int, tuple[tuple[Move, ...], ...]]] = {}
        for card, pairs in self.place.items():
            if len(pairs) == 2:
                (a, ma), (b, mb) = pairs
                self.place2[card] = (a, b, ((), (ma,), (mb,), (ma, mb)))
            elif len(pairs) == 1:
                (a, ma), = pairs
                self.place2[card] = (a, a, ((), (), (), (ma,)))
        #: wild card -> a placement Move per space (index = space)
        self.wild = {card: [Move("place", card, s) for s in range(size)] for card in wild}
        #: removing card -> a removal Move per space
        self.remove = {card: [Move("remove", card, s) for s in range(size)] for card in remove}
        self.dead: dict[str, Move] = {}
        self.pass_ = Move("pass")

    def dead_move(self, card: str) -> Move:
        m = self.dead.get(card)
        if m is None:
            m = self.dead[card] = Move("dead", card)
        return m


def move_table(layout: Layout, edition: Edition) -> MoveTable:
    cache = layout.__dict__.setdefault("_move_tables", {})
    t = cache.get(edition.name)
    if t is None:
        t = cache[edition.name] = MoveTable(layout, edition.wild_cards, edition.remove_cards)
    return t


def _bits(m: int) -> list[int]:
    """The indices of the set bits of ``m``, lowest first."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


class Game:
    """One game: ``edition``, players seated ``0..n-1``, player ``p`` on team ``p % n_teams``.

    The deck is a list whose last element is the top card. ``rng`` (a seeded
    ``random.Random``) shuffles the deck and every reshuffle; nothing else is random.
    """

    def __init__(self, edition: Edition | str = "classic", n_players: int = 2,
                 n_teams: int | None = None, options: Options | None = None,
                 rng: random.Random | None = None, deck: list[str] | None = None,
                 layout: Layout | None = None, first_player: int = 0) -> None:
        self.edition = get_edition(edition) if isinstance(edition, str) else edition
        self.options = options or Options()
        self.options.validate()
        if n_teams is None:
            n_teams = self.edition.teams_for(n_players)
        elif n_players not in self.edition.player_counts or n_teams not in self.edition.valid_teams(n_players):
            raise EngineError(f"{self.edition.title}: {n_players} players cannot form {n_teams} teams")
        self.n_players = n_players
        self.n_teams = n_teams
        self.layout = layout or builtin_layout(self.edition.name)
        self.board = Board(self.layout, self.edition.sequence_length, n_teams,
                           self.options.max_shared_spaces)
        self.to_win = self.options.sequences_to_win or self.edition.sequences_to_win(n_teams)
        self.rng = rng or random.Random(0)
        if deck is None:
            deck = self.edition.deck()
            self.rng.shuffle(deck)
        elif sorted(deck) != sorted(self.edition.deck()):
            raise EngineError("the deck given is not this edition's deck")
        self.initial_deck = list(deck)
        self.deck = list(deck)
        self.hands: list[list[str]] = [[] for _ in range(n_players)]
        self.discards: list[list[str]] = [[] for _ in range(n_players)]
        self.first_player = first_player % n_players
        for _ in range(self.edition.hand_size(n_players)):
            for i in range(n_players):
                self.hands[(self.first_player + i) % n_players].append(self.deck.pop())
        self.current = self.first_player
        self.turn = 0
        self.dead_traded = False
        self.winner: int | None = None
        self.over = False
        self.end_reason = ""
        self.passes = 0
        self.reshuffles = 0
        self.history: list[tuple[int, Move]] = []
        #: sequences the last move made (the team may still name other five: rechoose)
        self.last_made = 0
        self._wild = self.edition.wild_cards
        self._remove = self.edition.remove_cards
        self._spaces_of = self.layout.spaces_of
        self._symbols = self.layout.symbols
        self._moves = move_table(self.layout, self.edition)

    def clone(self, rng: random.Random | None = None) -> "Game":
        """An independent copy of the position (no history) for search; ``rng`` shuffles
        its reshuffles (the original's own generator is never touched)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.board = self.board.copy()
        g.deck = list(self.deck)
        g.hands = [list(h) for h in self.hands]
        g.discards = [list(d) for d in self.discards]
        g.history = []
        g.rng = rng or random.Random(0)
        return g

    # --- reading the position -------------------------------------------------------------
    @property
    def team(self) -> int:
        """The team to move."""
        return self.current % self.n_teams

    def team_of(self, player: int) -> int:
        return player % self.n_teams

    def is_dead(self, card: str) -> bool:
        """A card is dead when every space showing it is covered."""
        spaces = self._spaces_of.get(card)
        if not spaces:
            return False
        cells = self.board.cells
        for s in spaces:
            if cells[s] == EMPTY:
                return False
        return True

    def dead_cards(self) -> set[str]:
        """Every board symbol that is dead on the current board (visible to everyone)."""
        cells = self.board.cells
        return {c for c, sp in self._spaces_of.items() if all(cells[s] != EMPTY for s in sp)}

    def removable(self, team: int | None = None) -> list[int]:
        """Spaces whose chip ``team`` may take with a removing card: another team's chip,
        not one of a completed sequence (unless the advanced variant is in use)."""
        team = self.team if team is None else team
        b = self.board
        others = 0
        for t, m in enumerate(b.own):
            if t != team:
                others |= m
        if not self.options.advanced:
            others &= ~b.locked
        return _bits(others)

    def targets(self, card: str, team: int | None = None) -> list[int]:
        """Spaces ``card`` could be played on now (placement or removal) by ``team``."""
        cells = self.board.cells
        if card in self._wild:
            return [i for i, c in enumerate(cells) if c == EMPTY]
        if card in self._remove:
            return self.removable(team)
        return [s for s in self._spaces_of.get(card, ()) if cells[s] == EMPTY]

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move, card by card in hand order, each
        card's spaces in board order, a card's dead-card trade after its moves (a pass
        only when nothing else is legal). A placement that completes a line longer than a
        sequence is listed once, with the default choice of five (``five`` empty)."""
        if self.over:
            return []
        cells = self.board.cells
        table = self._moves
        place = table.place
        moves: list[Move] = []
        add = moves.append
        dead: list[Move] | None = None
        removable = None
        traded = self.dead_traded
        place2 = table.place2
        for card in dict.fromkeys(self.hands[self.current]):
            e = place2.get(card)
            if e is not None:
                a, b, outs = e
                got = outs[(cells[a] == 0) + 2 * (cells[b] == 0)]
                if got:
                    moves += got
                elif not traded:
                    if dead is None:
                        dead = []
                    m = table.dead_move(card)
                    add(m)
                    dead.append(m)
                continue
            pairs = place.get(card)
            if pairs is not None:
                found = False
                for s, m in pairs:
                    if not cells[s]:
                        add(m)
                        found = True
                if not found and not traded:
                    if dead is None:
                        dead = []
                    m = table.dead_move(card)
                    add(m)
                    dead.append(m)
            elif card in self._wild:
                moves += compress(table.wild[card], map(not_, cells))
            elif card in self._remove:
                if removable is None:
                    removable = self.removable()
                ms = table.remove[card]
                moves += [ms[s] for s in removable]
        if dead is not None and len(moves) == len(dead) or not moves:
            return (dead or []) + [table.pass_]
        return moves

    def has_play(self) -> bool:
        """Whether the player to move can place or remove a chip with some card in hand."""
        team = self.team
        for card in self.hands[self.current]:
            if card in self._wild:
                if EMPTY in self.board.cells:
                    return True
            elif card in self._remove:
                if self.removable(team):
                    return True
            elif not self.is_dead(card):
                return True
        return False

    # --- playing --------------------------------------------------------------------------
    def check(self, move: Move) -> None:
        """Raise :class:`IllegalMoveError` with the reason if ``move`` is not legal now."""
        # the common legal placements and removals first, without building any words
        a, card, s = move.action, move.card, move.space
        if not self.over and not move.five and s.__class__ is int and 0 <= s < len(self.board.cells):
            cell = self.board.cells[s]
            if a == "place":
                if cell == EMPTY and (self._symbols[s] == card or card in self._wild) \
                        and card in self.hands[self.current]:
                    return
            elif a == "remove":
                if cell > 0 and cell - 1 != self.current % self.n_teams and card in self._remove \
                        and (self.options.advanced or not (self.board.locked >> s) & 1) \
                        and card in self.hands[self.current]:
                    return
        self._check_slowly(move)

    def _check_slowly(self, move: Move) -> None:
        if self.over:
            raise IllegalMoveError("the game is over")
        hand = self.hands[self.current]
        a, card, s = move.action, move.card, move.space
        if a == "pass":
            if self.has_play():
                raise IllegalMoveError("a pass is allowed only with no card to play")
            return
        if card not in hand:
            raise IllegalMoveError(f"{card} is not in player {self.current + 1}'s hand")
        if a == "dead":
            if self.dead_traded:
                raise IllegalMoveError("only one dead card may be traded each turn")
            if card in self._wild or card in self._remove or not self.is_dead(card):
                raise IllegalMoveError(f"{card} is not a dead card")
            return
        if s is None or not 0 <= s < self.layout.size:
            raise IllegalMoveError("the move needs a space on the board")
        cell = self.board.cells[s]
        where = self.layout.space_name(s)
        if a == "place":
            if card in self._remove:
                raise IllegalMoveError(f"{card} removes a chip; it cannot place one")
            if s in self.layout.free:
                raise IllegalMoveError(f"{where} is a free corner: no chip may go there")
            if cell != EMPTY:
                raise IllegalMoveError(f"{where} is already covered")
            if card not in self._wild and self._symbols[s] != card:
                raise IllegalMoveError(f"{card} does not match {where} ({self._symbols[s]})")
            if move.five:
                why = self.board.choice_error(s, self.team, move.five)
                if why:
                    raise IllegalMoveError(f"five named for {where}: {why}")
            return
        if move.five:
            raise IllegalMoveError("only a placement names the five of a sequence")
        if a == "remove":
            if card not in self._remove:
                raise IllegalMoveError(f"{card} cannot remove a chip")
            if cell <= 0:
                raise IllegalMoveError(f"there is no chip on {where}")
            if cell - 1 == self.team:
                raise IllegalMoveError(f"the chip on {where} is your own team's")
            if not self.options.advanced and self.board.is_locked(s):
                raise IllegalMoveError(f"the chip on {where} is part of a completed sequence")
            return
        raise IllegalMoveError(f"unknown action {a!r}")

    def push(self, move: Move, draw: bool = True) -> int:
        """Play ``move`` for the player to move; return the sequences it completed.

        ``draw=False`` records a lost draw (the player forgot to draw in time).
        """
        # the common legal placement first (Game.check's fast path, inlined), else check
        a, s = move.action, move.space
        p = self.current
        if a == "place" and not self.over and not move.five and s.__class__ is int \
                and 0 <= s < len(self._symbols) and self.board.cells[s] == EMPTY \
                and (self._symbols[s] == move.card or move.card in self._wild) \
                and move.card in self.hands[p]:
            pass
        else:
            self.check(move)
        self.history.append((p, move))
        gained = self.last_made = 0
        if a == "place" or a == "remove":
            card = move.card
            self.hands[p].remove(card)
            self.discards[p].append(card)
            self.passes = 0
            if a == "place":
                team = p % self.n_teams
                gained = self.last_made = self.board.place(move.space, team, move.five)
                if gained and self.board.counts[team] >= self.to_win:
                    self.winner = team
                    self.over = True
                    self.end_reason = "sequences completed"
            else:
                self.board.remove(move.space)
            if draw and not self.over:
                if self.deck:
                    self.hands[p].append(self.deck.pop())
                else:
                    self._draw(p)
        elif a == "dead":
            self.hands[p].remove(move.card)
            self.discards[p].append(move.card)
            self._draw(p)
            self.dead_traded = True
            return 0
        else:
            self.passes += 1
            if self.passes >= self.n_players:
                self.over = True
                self.end_reason = "no player can play"
        self.current = (p + 1) % self.n_players
        self.turn += 1
        self.dead_traded = False
        return gained

    def rechoose(self, five: tuple[tuple[int, ...], ...]) -> None:
        """The team of the last placement names other five for the sequence(s) it made
        (white chips shown at the table); raises IllegalMoveError when that placement
        could not have made them. The game's history keeps the move with its five."""
        if not self.history or self.history[-1][1].action != "place" or not self.last_made:
            raise IllegalMoveError("the last move made no sequence to choose the five of")
        p, m = self.history[-1]
        if not self.board.rechoose(self.last_made, five, m.space):
            raise IllegalMoveError("those are not five the last placement could make")
        self.history[-1] = (p, Move(m.action, m.card, m.space, five))

    def _draw(self, p: int) -> None:
        if not self.deck:
            pool = [c for pile in self.discards for c in pile]
            if not pool:
                return
            for pile in self.discards:
                pile.clear()
            self.rng.shuffle(pool)
            self.deck = pool
            self.reshuffles += 1
        self.hands[p].append(self.deck.pop())

    def table_talk(self, team: int, discards: dict[int, str]) -> None:
        """Table-talk penalty: every member of ``team`` discards the card named for them."""
        if not self.options.table_talk_penalty:
            raise IllegalMoveError("the table-talk penalty is not in use in this game")
        members = [p for p in range(self.n_players) if p % self.n_teams == team]
        for p in members:
            card = discards.get(p)
            if card is None:
                if self.hands[p]:
                    raise IllegalMoveError(f"player {p + 1} must name a card to discard")
                continue
            if card not in self.hands[p]:
                raise IllegalMoveError(f"{card} is not in player {p + 1}'s hand")
        for p in members:
            card = discards.get(p)
            if card is not None:
                self.hands[p].remove(card)
                self.discards[p].append(card)

    def result_text(self) -> str:
        if not self.over:
            return "game in progress"
        if self.winner is None:
            return f"drawn: {self.end_reason}"
        return f"team {self.winner + 1} ({self.edition.colours[self.winner]}) wins with " \
               f"{self.board.counts[self.winner]} sequence(s)"
