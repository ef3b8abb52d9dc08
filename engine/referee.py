"""The referee of a physical game: turns a new stable observation into one verdict.

It knows what everybody at the table knows: the board, whose turn it is, and the public
record of cards played (each placement needs its card or a wild; each removal a removing
card). It does not see hands. Given a stable :class:`Observation`, :meth:`Referee.observe`
compares it with the board it expects and answers with exactly one :class:`Verdict`:
no change, a legal placement or removal by the team to move (applied), a takeback to the
position before the last move (undone), or a violation naming the spaces and the rule
(nothing applied: the board must be put right). Unknown spaces are ignored entirely.
"""

from __future__ import annotations

from collections import Counter

from .board import EMPTY, Board
from .editions import Edition, Options, get_edition
from .errors import EngineError, IllegalMoveError
from .game import builtin_layout
from .layout import Layout
from .card_check import judge_with_card
from .moves import RULES, Move, Verdict
from .observation import Observation, SpaceState

COLOUR_NAMES = {"B": "blue", "G": "green", "R": "red"}
#: :attr:`Referee.card_laid` when a new card was seen on the pile but could not be read
UNSEEN = "?"


class Referee:
    """Public-information state of a physical game, and the judge of observed changes."""

    def __init__(self, edition: Edition | str = "classic", n_players: int = 2,
                 n_teams: int | None = None, options: Options | None = None,
                 layout: Layout | None = None, colours: tuple[str, ...] | None = None,
                 first_player: int = 0) -> None:
        self.edition = get_edition(edition) if isinstance(edition, str) else edition
        self.options = options or Options()
        self.options.validate()
        self.n_players = n_players
        self.n_teams = n_teams or self.edition.teams_for(n_players)
        if self.n_teams not in self.edition.valid_teams(n_players):
            raise EngineError(f"{self.edition.title}: {n_players} players cannot form {self.n_teams} teams")
        self.layout = layout or builtin_layout(self.edition.name)
        self.colours = tuple(colours or self.edition.colours[:self.n_teams])
        if len(self.colours) != self.n_teams or len(set(self.colours)) != self.n_teams \
                or any(c not in COLOUR_NAMES for c in self.colours):
            raise EngineError(f"team colours {self.colours!r}: need {self.n_teams} different of B, G, R")
        self.board = Board(self.layout, self.edition.sequence_length, self.n_teams,
                           self.options.max_shared_spaces)
        self.to_win = self.options.sequences_to_win or self.edition.sequences_to_win(self.n_teams)
        self.current = first_player % n_players
        self.winner: int | None = None
        self.over = False
        self.last_cleared: int | None = None
        #: (space, how many) of the sequences the last move made, while the team may still
        #: show other five with white chips (until the next move)
        self.last_made: tuple[int, int] | None = None
        self.dead_traded = False            # a dead card traded this turn
        self.moves: list[tuple[int, Move]] = []
        self._undo: list[tuple] = []
        deck = self.edition.deck()
        self._copies = Counter(deck)
        self._wild = self.edition.wild_cards
        self._remove = self.edition.remove_cards
        self._n_wild = sum(self._copies[c] for c in self._wild)
        self._n_remove = sum(self._copies[c] for c in self._remove)
        self._deck_left = len(deck) - self.edition.hand_size(n_players) * n_players
        self._played: Counter = Counter()   # symbols placed since the last reshuffle
        self._removals = 0                  # removals since the last reshuffle
        self._wild_known = 0                # wilds known to be played (typed in, the Pi's)
        self._since_shuffle = 0             # cards onto discard piles since the last reshuffle
        # --- judging with the card laid (issue 24; docs/cards.md) ---
        #: every chip is judged against the card seen laid on its player's pile
        self.judge_cards = False
        #: the card laid this turn and not yet matched by a chip (UNSEEN: a card was laid
        #: but could not be read), and the stable observation of a chip waiting for its card
        self.card_laid: str | None = None
        self._held: Observation | None = None
        self._laid: Counter = Counter()     # known cards laid since the last reshuffle
        self._force_card: str | None = None  # the card a chip is judged with (see observe)

    # --- what the referee expects -----------------------------------------------------------
    @property
    def team(self) -> int:
        return self.current % self.n_teams

    def colour_name(self, team: int) -> str:
        return COLOUR_NAMES[self.colours[team]]

    def expected(self) -> Observation:
        """The observation a perfect sensor would give now (sequence chips in their colour)."""
        states = []
        for c in self.board.cells:
            if c > 0:
                states.append(SpaceState(self.colours[c - 1]))
            else:
                states.append(SpaceState.EMPTY)
        return Observation(self.layout.rows, self.layout.cols, tuple(states))

    def dead_cards(self) -> set[str]:
        cells = self.board.cells
        return {c for c, sp in self.layout.spaces_of.items() if all(cells[s] != EMPTY for s in sp)}

    def explaining_cards(self, space: int) -> tuple[str, ...]:
        """Cards that could explain a placement on ``space``: its own card, then any wild."""
        sym = self.layout.symbols[space]
        return tuple([sym] if sym in self._copies else []) + tuple(sorted(self._wild))

    def _supply_ok(self, symbol: str) -> bool:
        """Whether some card left could still explain one more placement on ``symbol``."""
        played = self._played.copy()
        played[symbol] += 1
        wild_needed = sum(max(0, n - self._copies.get(s, 0)) for s, n in played.items())
        return wild_needed + self._wild_known <= self._n_wild

    # --- judging ----------------------------------------------------------------------------
    def observe(self, obs: Observation) -> Verdict:
        """Judge one stable observation; apply it when it is a legal move or a takeback."""
        if (obs.rows, obs.cols) != (self.layout.rows, self.layout.cols):
            raise EngineError(f"observation is {obs.rows} x {obs.cols}, board is "
                              f"{self.layout.rows} x {self.layout.cols}")
        added, removed, changed = self._diff(obs, self.board.cells)
        if not (added or removed or changed):
            return self._whites(obs)
        self._held = None
        verdict = self._judge(obs, added, removed, changed)
        if self.judge_cards and verdict.is_move:
            verdict = self._with_card(obs, verdict, added, removed, changed)
        if verdict.kind == "violation" and self._undo and self._matches(obs, self._undo[-1][0][0]):
            # Back to the position before the last move, and no legal move explains it: a
            # takeback. (The last chip taken off again is read as the next team's removal
            # when that is legal: the undo button takes it back.)
            return self._takeback()
        return verdict

    def _judge(self, obs: Observation, added: list[int], removed: list[int],
               changed: list[int]) -> Verdict:
        if self.over:
            return self._violation("game_over", added + removed + changed)
        if changed:
            if len(changed) == 1 and not added and not removed:
                # Removed and replaced within one turn: by the mover it is a chip put back
                # on the space its removing card just cleared.
                if obs[changed[0]].value == self.colours[self.team]:
                    return self._violation("back_on_cleared", changed)
                return self._violation("chip_replaced", changed)
            return self._violation("several_changes", sorted(added + removed + changed))
        free_hit = [s for s in added if s in self.layout.free]
        if free_hit:
            return self._violation("free_corner", free_hit)
        if len(added) >= 2:
            return self._violation("two_chips", added)
        if len(added) == 1 and len(removed) == 1:
            a, r = added[0], removed[0]
            st = obs[a]
            if not st.is_colour or st.value == self.colours[self.board.cells[r] - 1]:
                return self._violation("chip_moved", [r, a])
            return self._violation("several_changes", sorted([a, r]))
        if len(removed) >= 2:
            return self._violation("several_changes", removed)
        if added:
            return self._placement(added[0], obs[added[0]], card=self._force_card,
                                   white=self._white(obs))
        off = sorted(i for i in self._white(obs) if not self.board.is_locked(i))
        if off and self.board.cells[removed[0]] - 1 != self.team:
            return self._violation("white_off_sequence", off)
        return self._removal(removed[0], card=self._force_card)

    # --- judging with the card laid (issue 24) -----------------------------------------------
    def lay_card(self, card: str | None, seat: int | None = None) -> Verdict:
        """A new card seen on a discard pile (read by the camera, typed, tapped, or an NFC
        reader): ``card`` its code, None when a new card was seen but could not be read;
        ``seat`` whose pile (None: the player to move's). Returns the verdict: a chip that
        waited for this card judged against it (a move applied, or a ``wrong_card``
        violation), else ``waiting`` for its chip. A card laid with no chip and then
        another card: the first was traded as a dead card, checked against the board."""
        if not self.judge_cards:
            raise EngineError("this game does not judge chips with the card laid")
        if card is not None and card not in self._copies:
            raise EngineError(f"{card!r} is not a card of {self.edition.title}")
        shown = card or "a card (unread)"
        if self.over:
            return self._violation("game_over", [])
        if seat is not None and seat != self.current:
            return Verdict("violation", team=self.team, player=self.current,
                           rule="card_out_of_turn",
                           message=f"illegal: {shown} laid on player {seat + 1}'s pile, but "
                                   f"it is player {self.current + 1}'s turn")
        prev, traded = self.card_laid, ""
        if prev is not None and self._held is None:
            # a card with no chip, then another one: the first was traded as a dead card
            try:
                self.note_dead_card(None if prev == UNSEEN else prev)
            except IllegalMoveError as exc:
                self.card_laid = card if card is not None else UNSEEN
                return Verdict("violation", team=self.team, player=self.current,
                               rule="not_dead", message=f"illegal: {prev} laid with no chip, "
                                                        f"then {shown}: {exc}")
            traded = f"dead card {prev} traded; "
        self.card_laid = card if card is not None else UNSEEN
        if self._held is not None:
            return self.observe(self._held)
        return Verdict("waiting", team=self.team, player=self.current,
                       message=f"{traded}{shown} laid: waiting for its chip")

    def _with_card(self, obs: Observation, v: Verdict, added, removed, changed) -> Verdict:
        """A legal-looking move ``v`` (applied on trial) judged against the card laid."""
        card = self.card_laid
        if card == UNSEEN:
            # a new card was seen but not read: judged as without cards (a card left
            # could explain it), never a violation of a card nobody read
            self.card_laid = None
            return v
        s = v.spaces[0]
        placed = v.kind == "placement"
        self._restore()
        if card is None:
            self._held = obs
            where = self.layout.space_name(s)
            return Verdict("waiting", spaces=(s,), team=self.team, player=self.current,
                           message=f"a chip {'on' if placed else 'taken off'} {where}: "
                                   f"waiting for the card laid")
        cells = self.board.cells
        open_spaces = {i for i, c in enumerate(cells) if c == EMPTY and i not in self.layout.free}
        cv = judge_with_card(self.layout, open_spaces, card, placed=s if placed else None,
                             removed=None if placed else s)
        if not cv.ok:
            return Verdict("violation", spaces=(s,), team=self.team, player=self.current,
                           rule="wrong_card", message=f"illegal: {cv.message}",
                           extra={"card": card, "card_spaces": [
                               i for i in self.layout.spaces_of.get(card, ()) if i in open_spaces]})
        self._force_card = card
        try:
            v = self._judge(obs, added, removed, changed)
        finally:
            self._force_card = None
        if v.is_move:
            self.card_laid = None
        return v

    def _card_supply(self, card: str, sym: str | None) -> str | None:
        """Why no copy of the known ``card`` is left to lay (exact: every card laid since
        the last reshuffle is known), or None."""
        if not self.options.check_card_supply:
            return None
        copies = self._copies.get(card, 0)
        if self._laid[card] + 1 > copies:
            return f" ({card}: {'both copies' if copies == 2 else 'every copy'} already laid)"
        if card in self._wild:
            played = self._played
            need = sum(max(0, n - self._copies.get(x, 0)) for x, n in played.items())
            if need + self._wild_known + 1 > self._n_wild:
                return f" ({card}: every wild already played)"
        elif sym is not None and not self._supply_ok(sym):
            return f" ({sym}: every copy and every wild already played)"
        return None

    def _diff(self, obs: Observation, cells: list[int]) -> tuple[list[int], list[int], list[int]]:
        added, removed, changed = [], [], []
        for i, st in enumerate(obs.states):
            if st is SpaceState.UNKNOWN:
                continue
            c = cells[i]
            if c > 0:
                if st is SpaceState.EMPTY:
                    removed.append(i)
                elif st.is_colour and st.value != self.colours[c - 1]:
                    changed.append(i)
            elif st.is_chip:
                added.append(i)
        return added, removed, changed

    def _matches(self, obs: Observation, cells: list[int]) -> bool:
        a, r, c = self._diff(obs, cells)
        return not (a or r or c)

    def _placement(self, s: int, st: SpaceState, card: str | None = None,
                   white: set[int] | None = None, five: tuple = ()) -> Verdict:
        team = self.team
        if s == self.last_cleared and self.moves:
            last_team = self.moves[-1][0] % self.n_teams
            if not st.is_colour or st.value == self.colours[last_team]:
                return self._violation("back_on_cleared", [s])
        if st.is_colour and st.value != self.colours[team]:
            if st.value in self.colours:
                return self._violation("out_of_turn", [s], extra=f" (it is {self.colour_name(team)}'s turn)")
            return self._violation("wrong_colour", [s])
        sym = self.layout.symbols[s]
        if card is None and self.options.check_card_supply and not self._supply_ok(sym):
            return self._violation("no_card_left", [s], extra=f" ({sym}: every copy and every wild already played)")
        if card is not None and self.judge_cards:
            why = self._card_supply(card, None if card in self._wild else sym)
            if why:
                return self._violation("no_card_left", [s], extra=why)
        five = five or ()
        if white:
            shown = self._five_shown(s, team, white)
            if isinstance(shown, Verdict):
                return shown
            five = shown or five
        elif five:
            why = self.board.choice_error(s, team, five)
            if why:
                raise EngineError(f"five named for {self.layout.space_name(s)}: {why}")
        return self._apply(Move("place", card, s, five))

    # --- white chips: the five a team shows --------------------------------------------------
    def _white(self, obs: Observation) -> set[int]:
        """Spaces read as a chip flipped to its white side."""
        return {i for i, st in enumerate(obs.states) if st is SpaceState.WHITE}

    def _five_shown(self, s: int, team: int, white: set[int]):
        """The choice of five that white chips show for a chip of ``team`` on ``s``: () when
        they show nothing new, a tuple of sets of spaces, or the violation (a white chip
        that no sequence explains)."""
        b = self.board
        off = {i for i in white if not (b.locked >> i) & 1}
        if not off:
            return ()
        opts = b.options(s, team)
        for o in opts:
            if off <= {c for q in o for c in q.spaces}:
                return tuple(q.spaces for q in o)
        return self._violation("white_off_sequence", sorted(off))

    def _whites(self, obs: Observation) -> Verdict:
        """An observation with no chip changed: white chips off the sequences either show
        the five the last placement's team chooses, or are a violation."""
        b = self.board
        white = self._white(obs)
        off = sorted(i for i in white if not (b.locked >> i) & 1)
        if not off:
            return Verdict("no_change", message="no change")
        if self.last_made is not None:
            s, n = self.last_made
            base = 0
            for q in b.sequences[:-n]:
                for c in q.spaces:
                    base |= 1 << c
            want = {i for i in white if not (base >> i) & 1}
            for o in self._alternatives(s, n):
                if want <= {c for q in o for c in q.spaces}:
                    return self._choose(o, "the five shown in white")
        return self._violation("white_off_sequence", off)

    def choose_five(self, five: tuple[tuple[int, ...], ...]) -> Verdict:
        """The team of the last placement names the five of the sequence(s) it made (by
        other means than white chips: typed in, or the page). Raises EngineError when the
        last move made no sequence or could not have made those."""
        if self.last_made is None:
            raise EngineError("the last move made no sequence: there is no five to choose")
        s, n = self.last_made
        opts = self._alternatives(s, n)
        want = [tuple(sorted(f)) for f in five]
        for o in opts:
            if all(w in {q.spaces for q in o} for w in want):
                return self._choose(o, "the five named")
        cols = self.layout.cols
        raise EngineError("not five the last placement could make; it could make: " +
                          "; ".join(" ".join(q.text(cols) for q in o) for o in opts))

    def five_choices(self) -> list:
        """The fives the last placement could name, when it made a sequence on a longer line
        (more than one choice); each choice a tuple of sequences. Empty otherwise."""
        if self.last_made is None or self.over:
            return []
        opts = self._alternatives(*self.last_made)
        return opts if len(opts) > 1 else []

    def _choose(self, option, how: str) -> Verdict:
        """Make ``option`` the sequences of the last placement (a ``choice`` verdict)."""
        b = self.board
        s, n = self.last_made
        player, move = self.moves[-1]
        team = player % self.n_teams
        chosen = tuple(q.spaces for q in option)
        if tuple(b.sequences[-n:]) != tuple(option):
            b.rechoose(n, chosen, s)
        self.moves[-1] = (player, Move(move.action, move.card, move.space, chosen))
        made = tuple(b.sequences[-n:])
        words = ", ".join(q.text(self.layout.cols) for q in made)
        return Verdict("choice", spaces=(s,), team=team, player=player, made=made,
                       message=f"{self.colour_name(team)} chooses {how}: {words}")

    def _alternatives(self, s: int, n: int) -> list:
        """The choices the last placement (on ``s``, ``n`` sequences made) had."""
        b = self.board.copy()
        team = b.sequences[-1].team
        del b.sequences[-n:]
        del b._seq_masks[-n:]
        b.counts[team] -= n
        b._relock()
        b.poke(s, EMPTY)
        return b.options(s, team)

    def _removal(self, s: int, card: str | None = None) -> Verdict:
        owner = self.board.cells[s] - 1
        if owner == self.team:
            return self._violation("own_chip_removed", [s])
        if not self.options.advanced and self.board.is_locked(s):
            return self._violation("sequence_chip_removed", [s])
        if self.options.check_card_supply and self._removals + 1 > self._n_remove:
            return self._violation("no_remover_left", [s])
        if card is not None and self.judge_cards and self._card_supply(card, None):
            return self._violation("no_remover_left", [s], extra=self._card_supply(card, None))
        return self._apply(Move("remove", card, s))

    def _violation(self, rule: str, spaces: list[int], extra: str = "") -> Verdict:
        names = ", ".join(self.layout.space_name(s) for s in spaces)
        return Verdict("violation", spaces=tuple(spaces), team=self.team, player=self.current,
                       rule=rule, message=f"illegal: {RULES[rule]}{extra} at {names}")

    # --- applying moves ---------------------------------------------------------------------
    def apply(self, move: Move) -> Verdict:
        """Apply a move known by other means (typed in, or the Pi's own) after checking it."""
        if self.over:
            return self._violation("game_over", [move.space] if move.space is not None else [])
        if move.action == "dead":
            try:
                self.note_dead_card(move.card)
            except IllegalMoveError as exc:
                return Verdict("violation", team=self.team, player=self.current,
                               rule="not_dead", message=f"illegal: {exc}")
            return Verdict("no_change", message=f"dead card {move.card} traded")
        if move.action in ("pass", "unseen"):
            return self._apply(move)
        s = move.space
        if s is None or not 0 <= s < self.layout.size:
            raise EngineError("the move needs a space on the board")
        if move.action == "place":
            if s in self.layout.free:
                return self._violation("free_corner", [s])
            if self.board.cells[s] != EMPTY:
                return self._violation("two_chips", [s], extra=" (space already covered)")
            if move.card is not None and move.card not in self._wild \
                    and move.card != self.layout.symbols[s]:
                raise EngineError(f"{move.card} does not match {self.layout.space_name(s)}")
            return self._placement(s, SpaceState(self.colours[self.team]), move.card,
                                   five=move.five)
        if self.board.cells[s] <= 0:
            raise EngineError(f"there is no chip on {self.layout.space_name(s)}")
        return self._removal(s, move.card)

    def _apply(self, move: Move) -> Verdict:
        team, player = self.team, self.current
        snapshot = (self.board.snapshot(), self.last_made, self.dead_traded, self.current,
                    self.winner, self.over, self.last_cleared, self._played.copy(),
                    self._removals, self._since_shuffle, self._deck_left, self._wild_known,
                    self.card_laid, self._laid.copy())
        self._undo.append(snapshot)
        self.moves.append((player, move))
        if move.card is not None and move.action in ("place", "remove"):
            self._laid[move.card] += 1
        s = move.space
        gained = 0
        if move.action == "place":
            gained = self.board.place(s, team, move.five)
            if move.card is not None and move.card in self._wild:
                self._wild_known += 1
            else:
                self._played[self.layout.symbols[s]] += 1
            self.last_cleared = None
            cards = self.explaining_cards(s)
            kind = "placement"
            text = f"{self.colour_name(team)} places on {self.layout.space_name(s)} " \
                   f"({self.layout.symbols[s]})"
        elif move.action == "remove":
            owner = self.board.cells[s] - 1
            self.board.remove(s)
            self._removals += 1
            self.last_cleared = s
            cards = tuple(sorted(self._remove))
            kind = "removal"
            text = f"{self.colour_name(team)} removes {self.colour_name(owner)}'s chip from " \
                   f"{self.layout.space_name(s)}"
        elif move.action == "unseen":
            # a card was played and a chip placed where the sensing cannot see
            cards, kind = (), "no_change"
            text = f"{self.colour_name(team)} moved where the camera cannot see"
        else:
            cards, kind, text = (), "no_change", f"{self.colour_name(team)} passes"
        if move.action != "pass":
            self._since_shuffle += 1
            self._draw()
        made = tuple(self.board.sequences[-gained:]) if gained else ()
        self.last_made = (s, gained) if gained else None
        self.dead_traded = False
        if gained:
            text += f": completes {gained} sequence{'s' if gained > 1 else ''} " + \
                ", ".join(q.text(self.layout.cols) for q in made)
        if self.board.counts[team] >= self.to_win:
            self.winner, self.over = team, True
            text += f"; {self.colour_name(team)} wins"
        self.current = (self.current + 1) % self.n_players
        return Verdict(kind, spaces=(s,) if s is not None else (), team=team, player=player,
                       cards=cards, new_sequences=gained, made=made,
                       winner=self.winner if self.over else None, message=text)

    def check_win(self) -> int | None:
        """After a position edit (a person took the board as it stands): a team that now holds
        the sequences to win has won, as if its last placement had made them. Several teams at
        once: the one whose turn came last wins (the edit stands for the moves just missed)."""
        if self.over:
            return self.winner
        for k in range(1, self.n_players + 1):
            team = (self.current - k) % self.n_players % self.n_teams
            if self.board.counts[team] >= self.to_win:
                self.winner, self.over = team, True
                return team
        return None

    def _draw(self, n: int = 1) -> None:
        for _ in range(n):
            if self._deck_left <= 0:
                # The deck ran out: every discard pile is shuffled into a new deck.
                self._deck_left = self._since_shuffle
                self._since_shuffle = 0
                self._played.clear()
                self._removals = 0
                self._wild_known = 0
                self._laid.clear()
            if self._deck_left > 0:
                self._deck_left -= 1

    def _restore(self) -> tuple[int, Move]:
        """Put the state back as it was before the last move (popped and returned)."""
        player, move = self.moves.pop()
        (board, self.last_made, self.dead_traded, self.current, self.winner, self.over,
         self.last_cleared, self._played, self._removals, self._since_shuffle, self._deck_left,
         self._wild_known, self.card_laid, self._laid) = self._undo.pop()
        if self.card_laid is None and move.card is not None and self.judge_cards:
            # the card stays on the pile: the chip may go back on the right space
            self.card_laid = move.card
        self.board.restore(board)
        return player, move

    def _takeback(self) -> Verdict:
        player, move = self._restore()
        self._held = None
        return Verdict("takeback", spaces=(move.space,) if move.space is not None else (),
                       team=player % self.n_teams, player=player,
                       message=f"takeback: {self.colour_name(player % self.n_teams)}'s last move undone")

    def complete_unseen(self, n: int, space: int) -> None:
        """Move ``n`` (numbered from 1), applied as ``unseen``, is now known: its chip shows
        on ``space`` (already on the board, in the colour of the team that made the move).
        The move becomes that placement in :attr:`moves` (its card still unknown); the
        board and the turn are not changed. The positions kept for undo after move ``n``
        get the chip too (with the sequences it completes there, the default five), so
        that undoing later moves never takes off a chip move ``n`` placed; undoing move
        ``n`` itself does. Raises :class:`EngineError` when move ``n`` is not an unseen
        move or the chip on ``space`` is not its team's."""
        if not (isinstance(n, int) and 1 <= n <= len(self.moves)):
            raise EngineError(f"there is no move {n}")
        player, move = self.moves[n - 1]
        if move.action != "unseen":
            raise EngineError(f"move {n} is not a move the camera did not see")
        team = player % self.n_teams
        if not 0 <= space < self.layout.size or self.board.cells[space] != team + 1:
            raise EngineError(f"{self.colour_name(team)}'s chip is not on "
                              f"{self.layout.space_name(space) if 0 <= space < self.layout.size else space}")
        self.moves[n - 1] = (player, Move("place", None, space))
        # the snapshot at index j is the position before move j + 1: those after move n
        # were taken without the chip, which was on the table all along
        for j in range(n, len(self._undo)):
            snap = self._undo[j]
            if snap[0][0][space] != EMPTY:
                # a chip the game had there meanwhile (a misreading, taken off since):
                # that position is left as the game had it
                continue
            board = self.board.copy()
            board.restore(snap[0])
            board.place(space, team)
            self._undo[j] = (board.snapshot(),) + snap[1:]

    def undo(self) -> Verdict | None:
        """Undo the last move (the undo button): the board must then be put back."""
        if not self._undo:
            return None
        return self._takeback()

    # --- what people tell the referee -------------------------------------------------------
    def note_lost_draw(self) -> None:
        """The last mover did not draw in time: their draw is lost (told, never guessed)."""
        self._deck_left += 1

    def note_dead_card(self, card: str | None) -> None:
        """The player to move traded a dead card: it is public, and they drew another.
        Raises :class:`IllegalMoveError` when ``card`` (None: not named) is not dead on the
        board now, or a dead card was already traded this turn."""
        if self.over:
            raise IllegalMoveError("the game is already over")
        if self.dead_traded:
            raise IllegalMoveError("only one dead card may be traded each turn")
        if card is not None:
            spaces = self.layout.spaces_of.get(card)
            if not spaces:
                raise IllegalMoveError(f"{card!r} is not a card of this board"
                                       + (" (wild and removing cards are never dead)"
                                          if card in self._copies else ""))
            if any(self.board.cells[s] == EMPTY for s in spaces):
                free = [self.layout.space_name(s) for s in spaces if self.board.cells[s] == EMPTY]
                raise IllegalMoveError(f"{card} is not a dead card ({', '.join(free)} open)")
        self.dead_traded = True
        if card is not None:
            self._played[card] += 1
            self._laid[card] += 1
        self._since_shuffle += 1
        self._draw()

    def note_table_talk(self, team: int) -> None:
        """Table talk by ``team``: each member discarded one card (onto the public piles)."""
        members = sum(1 for p in range(self.n_players) if p % self.n_teams == team)
        self._since_shuffle += members
