"""A game at the table: the referee, the record, the warnings, and who listens.

:class:`Session` is the one place the main loop hands stable observations to. It asks the
referee for a verdict, writes the record, keeps the warning of an illegal change until the
board matches the game again, and tells every indicator (GPIO, LED matrix, terminal,
dashboard) through the same event. Indicators own no game logic: they read
:meth:`Session.view`, a plain JSON-able snapshot.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Callable

from engine import catchup, evidence
from engine.board import FREE
from engine.game import Game
from engine.moves import Move, Verdict
from engine.observation import Observation, SpaceState
from engine.record import (board_rows, card_entry, end_entry, five_entry, move_entry,
                           observation_entry, parse_record, replay, setup_entry, verdict_entry)
from engine.referee import COLOUR_NAMES, Referee


@dataclass
class Event:
    """What happened: ``kind`` is one of ``verdict``, ``warning``, ``cleared``, ``undo``,
    ``proposal`` (a computer move to be placed), ``dead_card``, ``lost_draw``, ``game_over``,
    ``new_game``, ``source`` (the sensing lost or back: ``text`` says what, empty when
    back), ``caught_up`` (moves the camera missed, accepted: ``text`` is the note),
    ``edit`` (the board taken as it stands), ``waiting`` (judging with cards: a chip
    waits for its card, or a card for its chip; with ``data["stall"]``, the notice that
    chips have waited :attr:`Session.stall_after` seconds unjudged), ``card`` (a card
    laid on a pile, or one the camera could not read: ``data`` has ``card``, ``seat``,
    ``via``), ``info``."""

    kind: str
    verdict: Verdict | None = None
    text: str = ""
    spaces: tuple[int, ...] = ()
    data: dict = field(default_factory=dict)


Listener = Callable[[Event, dict], None]


class Session:
    def __init__(self, referee: Referee, *, recorder=None, game: Game | None = None,
                 mode: str = "referee", seed: int | None = None,
                 names: list[str] | None = None, write_setup: bool = True,
                 computers: list[tuple[int, str]] | None = None) -> None:
        self.referee = referee
        self.game = game
        self.recorder = recorder
        self.mode = mode
        self.seed = seed
        self.names = names or []
        self.computers = dict(computers or [])   # seat -> level of the Pi's players
        self.listeners: list[Listener] = []
        self.warning: Verdict | None = None
        self.proposal: tuple[Move, str] | None = None
        self.proposer = "computer"          # who proposes: the Pi, or the other board (remote)
        # Remote play: called with each legal-looking change when nothing is proposed; returns
        # (refusal text or None, the card the mover holds for it or None). See seqboard/remote.
        self.seat_policy: Callable[[Verdict], tuple[str | None, str | None]] | None = None
        #: Remote play: the undo key (and button, and page) asks the other boards instead of
        #: undoing here; ``refuse_hook`` refuses their request; ``view_extra`` adds the remote
        #: game's state (``view()["remote"]``) for the page.
        self.undo_hook: Callable[[], bool] | None = None
        self.refuse_hook: Callable[[], bool] | None = None
        self.view_extra: Callable[[], dict] | None = None
        self.log: list[dict] = []
        self.last_observation: Observation | None = None
        self.dead_shown = False
        self.ended = False
        self.source_problem: str | None = None
        self.hints: list[dict] = []
        self.hints_at = -1
        #: a series of missed moves waiting for a person's confirmation (see observe)
        self.pending_catchup: tuple[catchup.Series, Observation, dict] | None = None
        #: spaces, unknown, where a move the camera did not see may be (engine/evidence.py)
        self.hidden_move: frozenset[int] = frozenset()
        #: the sensing tells where chips are, not their colour (an occupancy matrix)
        self.colour_blind = False
        #: a series this long or longer is accepted only when a person confirms it
        self.confirm_series_from = 3
        #: a space unknown in every observation for this long (seconds of the source's
        #: time) is one the sensing cannot read: the move of the team to move is inferred
        #: there when it is the only place it can be (see observe)
        self.unreadable_after = 8.0
        self._unread_since: dict[int, tuple[float | None, int]] = {}
        #: chips waited on this long (seconds of the source's time) without being judged:
        #: the referee says so, once, naming the spaces it waits on (see _note_stall)
        self.stall_after = 20.0
        self._stall_since: tuple[float, int, bool] | None = None   # (since, moves, said)
        self._stall_named: set[int] = set()
        #: the waiting notice said and still in force: its words, the spaces it names and
        #: the number of moves then (a move judged, an undo, the board taken, or none of
        #: its spaces waited on any more ends it); the page shows it with the button of
        #: ``t`` (view()["stall"])
        self.stall: tuple[str, tuple[int, ...], int] | None = None
        #: the last observation as read, before the screen made its doubtful spaces
        #: unknown: ``t`` takes the spaces waited on as they read (take_board)
        self._read: Observation | None = None
        self._long_unread: frozenset[int] = frozenset()
        self._observations = 0
        #: moves applied as ``unseen``: (team, the unreadable spaces its chip is on one of,
        #: its number in the referee's moves)
        self.unseen_moves: list[tuple[int, frozenset[int], int]] = []
        #: each known space differing from the game: its state and the observation (a
        #: count) it first showed so in
        self._arrivals: dict[int, tuple[SpaceState, int, int]] = {}
        #: chips that waited on a hidden move (read surely) and went again before it was
        #: judged: (space, state, (lo, hi) it came, (lo, hi) it went)
        self._gone: list[tuple[int, SpaceState, tuple[int, int], tuple[int, int]]] = []
        self._turn_waiting: frozenset[int] = frozenset()
        self._as_game: dict[int, int] = {}
        self._last_t: float | None = None
        self.space_problems: dict[int, str] = {}
        self.caught_up = 0
        #: judging with the card laid: the last ``waiting`` said (not repeated), and the
        #: seat whose new card the camera saw but could not read (typed or tapped next)
        self.waiting_text: str | None = None
        self.unread_card: int | None = None
        #: spaces the last observation differed on but was not sure of (waited on, unjudged)
        self.waiting: tuple[int, ...] = ()
        if recorder is not None and write_setup:
            r = referee
            recorder.write(setup_entry(
                edition=r.edition.name, players=r.n_players, teams=r.n_teams,
                colours=list(r.colours), options=r.options, first_player=r.current,
                seed=seed if game is not None else None, names=self.names, mode=mode,
                computers=sorted(self.computers.items()),
                computer_seed=seed if game is None and self.computers else None,
                judge_cards=referee.judge_cards,
                layout_text=r.layout.to_text() if r.layout.name not in ("classic", "travel", "jewish") else None))

    # --- listeners --------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)
        listener(Event("info", text="connected"), self.view())

    def _emit(self, event: Event) -> None:
        view = self.view()
        for listener in list(self.listeners):
            try:
                listener(event, view)
            except Exception as exc:  # one broken indicator must not stop the game
                self._log_line("info", f"indicator error: {exc}")

    def _write(self, entry: dict) -> None:
        if self.recorder is not None:
            self.recorder.write(entry)

    def _write_group(self, entries: list[dict]) -> None:
        if self.recorder is not None:
            self.recorder.write_group(entries)

    def _log_line(self, kind: str, text: str, **extra) -> None:
        # numbered on past the 200 lines kept (the count was stuck at 201 once the log was full)
        n = self.log[-1]["n"] + 1 if self.log else 1
        self.log.append({"n": n, "kind": kind, "text": text, **extra})
        del self.log[:-200]

    # --- the referee's path -----------------------------------------------------------------
    def observe(self, obs: Observation, at: dict | None = None) -> Verdict:
        """Judge a new stable observation, record it and tell every indicator.

        ``at`` (``{"t": seconds, "frame": number}``) says where in the source the
        observation came from; it is written on its record lines.

        A change no single move explains is, in this order: a takeback to an earlier
        position of the game (several moves back); a short legal series of moves the
        sensing missed (caught up, or offered for confirmation); else a warning that names
        what to put right. The game is never stuck: :meth:`take_board` accepts the board as
        it stands.

        First the game is taken as evidence (:func:`engine.evidence.screen`): a space that
        differs from the game and is doubtful (low confidence, a white chip off every
        sequence, or touching such a space) becomes unknown: it is waited on, never judged.
        The screened observation is the one judged and recorded."""
        r = self.referee
        seen = obs
        at = dict(at or {})
        self._observations += 1
        self._last_t = at.get("t")
        self._read = obs
        self._reveal_unseen(obs, at)
        self._note_arrivals(obs)
        # spaces read only in doubt (or not at all) for a long while: their doubt does not
        # spread to the chips played beside them
        self._long_unread = frozenset(i for i in self._unread_since if self._unreadable(i))
        screened = evidence.screen(r, obs, hidden=self.hidden_move,
                                   first_seen={i: hi for i, (_, _, hi) in self._arrivals.items()},
                                   unreadable=self._long_unread)
        self._note_unread(obs, screened)
        self.hidden_move = screened.hidden
        self._turn_waiting = frozenset(i for i, why in screened.why if why == "turn")
        if screened.hidden and any(why == "turn" for _, why in screened.why) \
                and all(self._unreadable(i) for i in screened.hidden):
            # the move of the team to move can only be where the camera has not read for
            # a long while: on that space when it is one (inferred there), else somewhere
            # among them (the move "unseen": no chip made up), when that makes the whole
            # change one legal series in the order it was seen (engine.catchup)
            if len(screened.hidden) == 1 and \
                    seen.states[next(iter(screened.hidden))] is SpaceState.UNKNOWN:
                # (a space read only in doubt is never given a chip by inference: the
                # move is unseen there, and completed if its chip reads surely later)
                (space,) = screened.hidden
                series = self._series(seen, unseen=space)
            else:
                series = self._series(seen, where=tuple(sorted(screened.hidden)))
            if len(series) == 1:
                self.hidden_move = frozenset()
                self.waiting = ()
                self.last_observation = seen
                self.pending_catchup = None
                return self._accept(series[0], at)
        obs = screened.observation
        if screened.waiting != self.waiting:
            self.waiting = screened.waiting
            why = dict(screened.why)
            turn = [i for i in screened.waiting if why.get(i) == "turn"]
            unsure = [i for i in screened.waiting if why.get(i) != "turn"]
            if unsure:
                names = ", ".join(r.layout.space_name(i) for i in unsure)
                self._log_line("info", f"waiting: not sure of {names} (a shadow, an arm's edge, "
                                       f"the light?); judged once they read clearly",
                               spaces=unsure)
            if turn:
                # chips of later teams, while the move of the team to move may be out of sight
                names = ", ".join(r.layout.space_name(i) for i in turn)
                self._log_line("info", f"waiting: {names} wait for {r.colour_name(r.team)}'s move, "
                                       f"which the camera may not see yet",
                               spaces=turn)
        self._note_stall(screened, at)
        self.last_observation = obs
        self.pending_catchup = None
        v = r.observe(obs)
        cols = r.layout.cols
        if v.kind == "no_change":
            if self.waiting_text is not None and self.warning is None:
                # a chip that waited for its card is gone: recorded, so that a replay
                # forgets it too
                self._write_group([observation_entry(obs) | at, verdict_entry(v, cols) | at])
                self.waiting_text = None
            if self.warning is not None:
                self._write_group([observation_entry(obs) | at, verdict_entry(v, cols) | at])
                old, self.warning = self.warning, None
                self._log_line("cleared", "board put right")
                self._emit(Event("cleared", v, "board put right", old.spaces))
            return v
        if v.kind == "waiting":
            return self._waiting(v, [observation_entry(obs) | at, verdict_entry(v, cols) | at])
        self.waiting_text = None
        if v.kind == "violation":
            back = catchup.earlier_position(r, obs) if not r.over else None
            # (not in remote play: the moves taken back were sent to the other board)
            if back is not None and back >= 2 and self.seat_policy is None:
                return self._take_back(back, obs, at)
            series = self._series(obs)
            if len(series) == 1 and len(series[0].steps) < self.confirm_series_from:
                return self._accept(series[0], at)
            in_order = self._series(obs, in_order=True)
            if len(in_order) == 1:
                # the chips came one after the other, and in that order they are one
                # legal series: however many, one move explains each change
                return self._accept(in_order[0], at)
            v = dataclasses.replace(v, message=v.message + self._put_right(obs))
            if series:
                self._write_group([observation_entry(obs) | at, verdict_entry(v, cols) | at])
                return self._offer(series, obs, v, at)
        group = [observation_entry(obs) | at, verdict_entry(v, cols) | at]
        if v.kind != "placement" and v.kind != "removal":
            self._write_group(group)
        if v.kind == "violation":
            self.warning = v
            self._log_line("violation", v.message, spaces=list(v.spaces))
            self._emit(Event("warning", v, v.message, v.spaces))
            return v
        if self.warning is not None:
            self.warning = None
        if v.kind == "takeback":
            if self.game is not None:
                self._rebuild_game_without_last()
            self._withdraw_proposal()
            self._log_line("takeback", v.message)
            self._emit(Event("undo", v, v.message, v.spaces))
            return v
        if v.kind == "choice":      # white chips name the five of the last sequence(s)
            if self.game is not None:
                self.game.rechoose(r.moves[-1][1].five)
            spaces = tuple(sorted({c for q in v.made for c in q.spaces}))
            self._log_line("choice", v.message, spaces=list(spaces), team=v.team)
            self._emit(Event("verdict", v, v.message, spaces))
            return v
        card = None
        proposed = False
        if self.proposal is None and self.seat_policy is not None:
            refusal, card = self.seat_policy(v)
            if refusal:
                return self._refuse(obs, v, group, refusal, v.spaces, "not_your_seat")
        if self.proposal is not None:
            pmove, _ = self.proposal
            if v.spaces == (pmove.space,) and (v.kind == "placement") == (pmove.action == "place"):
                card, proposed = pmove.card, True
                if self.game is not None:
                    rmove = r.moves[-1][1]
                    self.game.push(Move(pmove.action, pmove.card, pmove.space, rmove.five))
                self.proposal = None
            else:
                return self._reject(obs, v, pmove, group)
        if card is None:
            card = r.moves[-1][1].card          # the card laid, when judging with cards
        move = Move("place" if v.kind == "placement" else "remove", card, v.spaces[0],
                    r.moves[-1][1].five)
        self._write_group(group + [move_entry(len(r.moves), v.player, move, cols, via="observation",
                                              made=v.made)])
        text = v.message
        if proposed and card is not None:
            # the proposed card, named as the proposal named it ("plays JC on e5")
            who, where = COLOUR_NAMES[r.colours[v.team]], r.layout.space_name(v.spaces[0])
            text = (text.replace(f"{who} places on {where}", f"{who} plays {card} on {where}", 1)
                    if v.kind == "placement" else
                    text.replace(f"{who} removes", f"{who} plays {card} and removes", 1))
        self._log_line(v.kind, text, spaces=list(v.spaces), team=v.team)
        self._emit(Event("verdict", v, text, v.spaces,
                         {"computer_card": card} if proposed else {}))
        if r.over:
            self.finish()
        elif not self.hidden_move and any(why == "turn" for _, why in screened.why):
            # a move hidden from the camera was judged: the chips that waited on it are
            # judged now, on the same board (the camera reports a board only once)
            self.observe(seen, at)
        return v

    # --- judging with the card laid (issue 24) ----------------------------------------------
    def lay_card(self, card: str | None, seat: int | None = None, via: str = "camera") -> Verdict:
        """A new card seen laid on a discard pile: read by the camera (``card`` None: seen
        but unreadable), typed at the terminal, tapped on the page, or read by an NFC reader.
        An unreadable card waits: the chip is judged once the card is typed or tapped (or,
        when the next player's card comes first, as without cards: never a violation of a
        card nobody read)."""
        r = self.referee
        if card is None and via == "camera":
            who = r.current if seat is None else seat
            self.unread_card = who
            text = (f"the card laid on player {who + 1}'s pile cannot be read: type it "
                    f"(k 5h) or tap it on the page")
            self._log_line("waiting", text)
            self._emit(Event("card", None, text, data={"card": None, "seat": who, "via": via}))
            return Verdict("waiting", team=r.team, player=r.current, message=text)
        if self.unread_card is not None and seat is not None and seat != self.unread_card \
                and self.unread_card == r.current:
            # the next player's card came before the unread one was given: that turn is
            # judged as without cards
            self.unread_card = None
            self.lay_card_now(None, r.current, "camera")
        if card is not None:
            self.unread_card = None
        return self.lay_card_now(card, seat, via)

    def lay_card_now(self, card: str | None, seat: int | None, via: str) -> Verdict:
        r = self.referee
        cols = r.layout.cols
        v = r.lay_card(card, seat)
        entry = card_entry(card, seat, via, v, cols)
        data = {"card": card, "seat": r.current if seat is None else seat, "via": via}
        if v.kind == "waiting":
            self._write(entry)
            self.waiting_text = v.message
            self._log_line("waiting", v.message)
            self._emit(Event("card", v, v.message, data=data))
            return v
        if v.kind == "violation":
            self._write(entry)
            if v.spaces and self.last_observation is not None:
                v = dataclasses.replace(v, message=v.message + self._put_right(self.last_observation))
            self.warning = v
            self._log_line("violation", v.message, spaces=list(v.spaces))
            self._emit(Event("warning", v, v.message, v.spaces))
            return v
        if v.is_move:
            self.waiting_text = None
            self.warning = None
            move = r.moves[-1][1]
            self._write_group([entry, move_entry(len(r.moves), v.player, move, cols,
                                                 via="observation", made=v.made)])
            self._log_line(v.kind, f"{v.message}: {card or 'a card unread'} laid",
                           spaces=list(v.spaces), team=v.team)
            self._emit(Event("verdict", v, v.message, v.spaces, data))
            if r.over:
                self.finish()
            return v
        self._write(entry)
        return v

    def _waiting(self, v: Verdict, group: list[dict]) -> Verdict:
        """A chip seen with no card laid yet: said once, recorded, nothing applied."""
        if v.message != self.waiting_text:
            self._write_group(group)
            self.waiting_text = v.message
            self._log_line("waiting", v.message, spaces=list(v.spaces))
            self._emit(Event("waiting", v, v.message, v.spaces))
        return v

    # --- catching up, taking back, putting right ----------------------------------------------
    def _reveal_unseen(self, obs: Observation, at: dict) -> None:
        """A move once applied as ``unseen`` (its chip on one of several spaces the camera
        could not read) whose chip now shows on one of them, surely, in its team's colour:
        the game's board takes that chip (a position edit, the turn unchanged), so it is
        not judged a new move."""
        r = self.referee
        # (an unseen move undone since is forgotten)
        self.unseen_moves = [(team, where, n) for team, where, n in self.unseen_moves
                             if n <= len(r.moves) and r.moves[n - 1][1].action == "unseen"]
        for k, (team, where, n) in enumerate(self.unseen_moves):
            shown = [i for i in sorted(where) if r.board.cells[i] == 0
                     and obs.states[i].value == r.colours[team]
                     and obs.confidence[i] >= evidence.DOUBT]
            if len(shown) != 1:
                continue
            i = shown[0]
            r.board.place(i, team)
            # the move is known now: move n is that placement (the record's edit line
            # names it, and replay and resume complete it the same way)
            r.complete_unseen(n, i)
            del self.unseen_moves[k]
            name = r.layout.space_name(i)
            self._write({"type": "edit", "board": r.expected().to_json()["board"],
                         "changed": [name], "reason": f"the move of {r.colour_name(team)} "
                                                      f"not seen earlier shows on {name}",
                         "unseen": n} | at)
            text = f"{r.colour_name(team)}'s move not seen earlier shows on {name}"
            self._log_line("edit", text, spaces=[i])
            self._emit(Event("edit", None, text, (i,)))
            if r.check_win() is not None:
                # its chip made the winning sequence: the game is over, as its replay says
                if self.game is not None and not self.game.over:
                    self.game.winner, self.game.over = r.winner, True
                self.finish()
            return

    def _note_arrivals(self, obs: Observation) -> None:
        """Keep, for each known space that differs from the game, the observation (a
        count) it first showed so in: the order changes came in while they waited."""
        keep = {}
        diff = set(evidence.differs(self.referee, obs))
        cells = self.referee.board.cells
        if not self.hidden_move:
            self._gone = []
        for i in self._turn_waiting:
            old = self._arrivals.get(i)
            if old is not None and i not in diff and obs.states[i] is SpaceState.EMPTY \
                    and cells[i] == 0 and old[0].is_colour:
                # a chip that waited on the hidden move is gone again: placed and taken
                # off meanwhile (caught up with the hidden move, in the order seen)
                self._gone.append((i, old[0], (old[1], old[2]),
                                   (self._observations, self._observations)))
        for i in diff:
            st = obs.states[i]
            old = self._arrivals.get(i)
            keep[i] = old if old is not None and old[0] is st else \
                (st, self._as_game.get(i, 0) + 1, self._observations)
        self._arrivals = keep
        # the last observation each space was seen as the game has it: a chip seen there
        # later came after it (a space unknown meanwhile says nothing of when)
        for i, st in enumerate(obs.states):
            if st is not SpaceState.UNKNOWN and i not in diff:
                self._as_game[i] = self._observations

    def _arrival_counts(self) -> dict[int, tuple[int, int]]:
        """For each space that differs: (after which observation, by which) it changed."""
        return {i: (lo, hi) for i, (_, lo, hi) in self._arrivals.items()}

    def _note_unread(self, obs: Observation, screened: evidence.Screened) -> None:
        """Keep, for each space not read in the observations, since when (the source's
        time, and the count of observations) it has been so without a break. Not read:
        unknown, or a doubtful reading the screen made unknown (a chip read only in doubt,
        e.g. a pale chip read as a white one in every frame, says no more of whose chip it
        is than an unknown space: a move waiting on it would wait for good)."""
        now = self._last_t
        unsure = {i for i, why in screened.why if why in ("doubtful", "beside")}
        for i, st in enumerate(obs.states):
            if st is SpaceState.UNKNOWN or i in unsure:
                self._unread_since.setdefault(i, (now, self._observations))
            else:
                self._unread_since.pop(i, None)

    def _unreadable(self, space: int) -> bool:
        """Whether ``space`` has been unknown in every observation for a long while
        (:attr:`unreadable_after` seconds of the source's time and three observations
        before this one): glare on it or the lens edge, not a hand passing."""
        since = self._unread_since.get(space)
        if since is None:
            return False
        t0, n0 = since
        now = self._last_t
        if self._observations - n0 < 3:
            return False
        # (an observation not stamped with the source's time says nothing of how long)
        return t0 is not None and now is not None and now - t0 >= self.unreadable_after

    def _note_stall(self, screened: evidence.Screened, at: dict) -> None:
        """Say once, in words, that the game has waited :attr:`stall_after` seconds (of the
        source's time) with chips it does not judge and no move judged: the spaces it
        waits on (where the move of the team to move cannot be seen, or readings it is not
        sure of) and what the players can do. Once per wait (a move judged ends it), and a
        space already named is not named again while it is waited on. A move already
        applied ``unseen`` is no wait (the game goes on without its chip)."""
        t = self._last_t
        r = self.referee
        why = dict(screened.why)
        gone_unseen = {i for _, where, _ in self.unseen_moves for i in where}
        hidden = sorted(i for i in self.hidden_move if i not in gone_unseen)
        self._stall_named &= set(why) | set(hidden)
        pending = {i: w for i, w in why.items() if i not in gone_unseen}
        if self.stall is not None and (self.stall[2] != len(r.moves) or
                                       not set(self.stall[1]) & (set(pending) | set(hidden))):
            self.stall = None                 # a move judged, or its spaces waited on no more
        if t is None or not pending:
            self._stall_since = None          # (no source time: how long is not known)
            return
        if self._stall_since is None or self._stall_since[1] != len(r.moves):
            self._stall_since = (t, len(r.moves), False)
        since, _, said = self._stall_since
        if said or t - since < self.stall_after:
            return
        self._stall_since = (since, len(r.moves), True)
        turn = sorted(i for i, w in pending.items() if w == "turn")
        if not turn:
            hidden = []
        unsure = sorted(i for i, w in pending.items() if w != "turn" and i not in hidden)
        on = set(unsure) | set(hidden or turn)
        if on <= self._stall_named:
            return
        self._stall_named |= on
        name = r.layout.space_name
        parts = []
        if turn:
            chips = (f"the chip on {name(turn[0])} waits" if len(turn) == 1 else
                     f"the chips on {', '.join(name(i) for i in turn)} wait")
            if hidden:
                spots = catchup.listed([name(i) for i in hidden])
                parts.append(f"{r.colour_name(r.team)}'s move is not seen (on {spots}, which "
                             f"the camera cannot read) and {chips} for it")
            else:
                parts.append(f"{chips} for {r.colour_name(r.team)}'s move")
        if unsure:
            parts.append(f"the camera cannot read "
                         f"{catchup.listed([name(i) for i in unsure], 'and')} surely")
        spaces = sorted(on)
        text = (f"waiting on {', '.join(name(i) for i in spaces)} for {int(t - since)} s: "
                + "; ".join(parts) + ". Move the lamp or whatever covers "
                + ("it" if len(spaces) == 1 else "them")
                + ", or press t (Take the board as it stands) and check whose turn it is")
        self.stall = (text, tuple(spaces), len(r.moves))
        # in the record too (a note: any reader of the format reads it; replay shows it)
        self._write({"type": "event", "event": "note", "notice": "waiting", "text": text,
                     "spaces": [name(i) for i in spaces]} | at)
        self._log_line("waiting", text, spaces=spaces)
        self._emit(Event("waiting", None, text, tuple(spaces), {"stall": True}))

    def _series(self, obs: Observation, unseen: int | None = None,
                where: tuple[int, ...] = (), in_order: bool = False) -> list[catchup.Series]:
        """The legal series of missed moves that explain ``obs``, when catching up is
        possible here: not while the Pi's proposal waits, nor for a Pi seat's move, nor in
        a game the engine deals (its cards decide the moves). ``unseen``: a space the
        sensing cannot read, where the team to move's chip is inferred
        (:func:`engine.catchup.explain_unseen`); ``where``: several such spaces, the
        move on one of them (the move ``unseen``: no chip made up); ``in_order``: any
        number of moves per seat, in the order the changes were first seen
        (:func:`engine.catchup.explain_in_order`)."""
        if self.game is not None or self.proposal is not None or self.seat_policy is not None:
            return []               # remote play: each chip is checked against its seat
        if self.referee.judge_cards:
            return []               # each chip waits for its own card
        if in_order:
            if self.colour_blind:
                return []           # an occupancy board: whose chip is whose is not seen
            arrivals = self._arrival_counts()
            together: dict = {}
            for i in evidence.differs(self.referee, obs):
                together[arrivals.get(i, -1)] = together.get(arrivals.get(i, -1), 0) + 1
            if max(together.values(), default=0) >= self.confirm_series_from:
                return []           # that many seen at once: a glance cannot trust it
            found = catchup.explain_in_order(self.referee, obs, arrivals)
        elif where:
            # the doubtful readings unknown, the chips that wait on the move kept
            screened = evidence.screen(self.referee, obs, unreadable=self._long_unread)
            turn = {i: obs.states[i] for i, why in screened.why if why == "turn"}
            states = list(screened.observation.states)
            conf = list(screened.observation.confidence)
            for i, st in turn.items():
                states[i], conf[i] = st, obs.confidence[i]
            seen = Observation(obs.rows, obs.cols, tuple(states), tuple(conf))
            # with the chips that came and went meanwhile, in the order seen; when they fit
            # no legal series, without them (as if never seen: nothing made of them)
            found = catchup.explain_unseen(
                self.referee, seen, None, self._arrival_counts(),
                colour_blind=self.colour_blind, where=where, gone=tuple(self._gone))
            if not found and self._gone:
                found = catchup.explain_unseen(
                    self.referee, seen, None, self._arrival_counts(),
                    colour_blind=self.colour_blind, where=where)
            doubted = self._doubted(obs, screened, where)
            if not found and doubted:
                # chips read only in doubt for a long while (beside glare) that came
                # among the chips that wait: each its team's move there, unseen, when the
                # order seen then makes one legal series (no chip made up)
                found = catchup.explain_unseen(
                    self.referee, seen, None, self._arrival_counts(),
                    colour_blind=self.colour_blind, where=where, doubted=doubted)
        elif unseen is not None:
            screened = evidence.screen(self.referee, obs.replace(
                {unseen: SpaceState(self.referee.colours[self.referee.team])}),
                unreadable=self._long_unread)
            if any(why == "turn" for _, why in screened.why):
                return []
            found = catchup.explain_unseen(self.referee, screened.observation.replace(
                {unseen: SpaceState.UNKNOWN}), unseen, self._arrival_counts(),
                colour_blind=self.colour_blind)
        else:
            found = catchup.explain(self.referee, obs, colour_blind=self.colour_blind)
        return [s for s in found if all(st.verdict.player not in self.computers for st in s.steps)]

    def _doubted(self, obs: Observation, screened: evidence.Screened,
                 where: tuple[int, ...]) -> dict[int, SpaceState]:
        """The spaces, empty in the game and not among ``where``, that read a chip of a
        team's colour, only in doubt, and have not been read surely for
        :attr:`unreadable_after` (the session's unreadable spaces): each with its colour."""
        r = self.referee
        return {i: obs.states[i] for i, why in screened.why
                if why in ("doubtful", "beside") and i not in where and i in self._long_unread
                and obs.states[i].is_colour and obs.states[i].value in r.colours
                and r.board.cells[i] == 0}

    def _accept(self, series: catchup.Series, at: dict) -> Verdict:
        """Apply a series of missed moves, each judged and recorded as an ordinary move."""
        r = self.referee
        cols = r.layout.cols
        note = series.note()
        last = None
        for step in series.steps:
            if step.unseen:
                # a move on a space the camera cannot read, which one not known
                move = Move("unseen")
                v = r.apply(move)
                # "where": the spaces its chip is on one of, so that a resumed game waits for
                # that chip as this one does (resume_session)
                self._write(move_entry(len(r.moves), v.player, move, cols, via="engine")
                            | at | {"caught_up": True, "text": step.text,
                                    "where": [r.layout.space_name(i) for i in sorted(step.where)]})
                self.unseen_moves.append((v.team, frozenset(step.where), len(r.moves)))
                self._log_line("unseen", step.text)
                self._emit(Event("verdict", v, step.text, (), {"caught_up": True}))
                last = v
                self.caught_up += 1
                continue
            v = r.observe(step.observation)
            if not v.same_as(step.verdict):      # cannot happen: the copy judged the same
                raise RuntimeError(f"catch-up diverged: {v.message}")
            move = Move("place" if v.kind == "placement" else "remove", None, v.spaces[0])
            self._write_group([observation_entry(step.observation) | at | {"caught_up": True},
                               verdict_entry(v, cols) | at | {"caught_up": True},
                               move_entry(len(r.moves), v.player, move, cols, via="observation",
                                          made=v.made)])
            self._log_line(v.kind, v.message + " (caught up)", spaces=list(v.spaces), team=v.team)
            self._emit(Event("verdict", v, v.message, v.spaces, {"caught_up": True}))
            last = v
            self.caught_up += 1
        old, self.warning = self.warning, None
        # the sentence said, in the record too (each move has its own lines above)
        self._write({"type": "event", "event": "note", "notice": "caught_up", "text": note} | at)
        self._log_line("caught_up", note)
        self._emit(Event("caught_up", last, note,
                         tuple(s.verdict.spaces[0] for s in series.steps if s.verdict.spaces)))
        if old is not None:
            self._emit(Event("cleared", last, "board put right", old.spaces))
        if r.over:
            self.finish()
        return last

    def _offer(self, series: list[catchup.Series], obs: Observation, v: Verdict,
               at: dict) -> Verdict:
        """A series to confirm: longer than a glance can trust, or in more than one order."""
        first = series[0]
        how = "in more than one order" if len(series) > 1 else f"{len(first.steps)} moves"
        text = (f"missed moves ({how})? {first.note()}: press c (or Confirm) to accept, "
                f"t to take the board as it stands, or put the board right")
        spaces = tuple(sorted({st.verdict.spaces[0] for st in first.steps}))
        warn = Verdict("violation", spaces=spaces, team=v.team, player=v.player,
                       rule="confirm_catch_up", message=text)
        self.warning = warn
        self.pending_catchup = (first, obs, at)
        self._log_line("violation", text, spaces=list(spaces))
        self._emit(Event("warning", warn, text, spaces))
        return warn

    def _take_back(self, back: int, obs: Observation, at: dict) -> Verdict:
        """The board is back at a position ``back`` moves ago: undo those moves."""
        r = self.referee
        last = None
        for _ in range(back):
            last = r.undo()
            self._write({"type": "event", "event": "undo", "reason": "takeback"} | at)
            if self.game is not None:
                self._rebuild_game_without_last()
        v = Verdict("no_change", message="no change")
        self._write_group([observation_entry(obs) | at, verdict_entry(v, r.layout.cols) | at])
        self.warning = None
        self.proposal = None          # the Pi chooses again for the position it is back at
        self.ended = False
        text = f"takeback: the board is back at move {len(r.moves) + 1}, the last {back} moves undone"
        self._log_line("takeback", text)
        self._emit(Event("undo", last, text, last.spaces if last else ()))
        return last

    def _put_right(self, obs: Observation) -> str:
        """``; to put right: take the chip off e5, put blue back on d4`` (known spaces)."""
        r = self.referee
        cells = r.board.cells
        todo = []
        for i, st in enumerate(obs.states):
            c = cells[i]
            if st is SpaceState.UNKNOWN or (c == FREE and not st.is_chip):
                continue
            name = r.layout.space_name(i)
            if c > 0 and st is SpaceState.EMPTY:
                todo.append(f"put {r.colour_name(c - 1)} back on {name}")
            elif c > 0 and st.is_chip and st.value != r.colours[c - 1]:
                todo.append(f"{name} should be {r.colour_name(c - 1)}")
            elif c <= 0 and st.is_chip:
                todo.append(f"take the chip off {name}")
        return "; to put right: " + ", ".join(todo) if todo else ""

    def take_board(self) -> bool:
        """Take the board as it stands (a key and a dashboard button): the game's board
        becomes what was last seen (known spaces; the turn does not change), recorded as a
        position edit. False when there is nothing to take.

        The spaces the referee waits on (read only in doubt, or chips waiting on a move
        the camera cannot see) are taken as they were read: the waiting notice tells the
        players to press t for them, and they are unknown in the screened observation."""
        obs = self.last_observation
        r = self.referee
        if obs is None or self.seat_policy is not None:
            return False            # remote play: the other board would not follow
        if self.waiting and self._read is not None:
            obs = obs.replace({i: self._read.states[i] for i in self.waiting})
            if self._take_as_moves(obs):
                return True
        self.hidden_move = frozenset()
        board = r.board
        changed = []
        for i, st in enumerate(obs.states):
            c = board.cells[i]
            if c == FREE or st is SpaceState.UNKNOWN or st is SpaceState.WHITE:
                continue
            want = 0 if st is SpaceState.EMPTY else \
                (r.colours.index(st.value) + 1 if st.value in r.colours else c)
            if want == c:
                continue
            if c > 0:
                board.remove(i)
            if want > 0:
                board.place(i, want - 1)
            changed.append(i)
        if not changed:
            return False
        rows = r.expected().to_json()["board"]
        names = [r.layout.space_name(i) for i in changed]
        self._write({"type": "edit", "board": rows, "changed": names,
                     "reason": "board taken as it stands"})
        old, self.warning = self.warning, None
        self.pending_catchup = None
        self.waiting, self.stall = (), None
        text = f"board taken as it stands: {', '.join(names)} changed"
        self._log_line("edit", text, spaces=changed)
        self._emit(Event("edit", None, text, tuple(changed)))
        self._emit(Event("cleared", None, "board taken as it stands",
                         old.spaces if old is not None else tuple(changed)))
        won = r.check_win()
        if won is not None:
            # the board as it stands holds a winning team's sequences: the game is over
            if self.game is not None and not self.game.over:
                self.game.winner, self.game.over = won, True
            self.finish()
        return True

    def _take_as_moves(self, obs: Observation) -> bool:
        """The chips the referee waited on, taken as they read, judged as moves when they
        are one legal series in turn order (a single move too): the blue chip read only in
        doubt on e5 while blue is to move is blue's move, and green moves next. Taken as a
        position edit instead (the turn unchanged), the next team's chip would be warned as
        out of turn. False when no series, or more than one, explains them: then the board
        is taken as an edit."""
        r = self.referee
        series = catchup.explain(r, obs, least=1)
        if len(series) != 1:
            return False
        at = {"t": self._last_t} if self._last_t is not None else {}
        self.hidden_move = frozenset()
        self.pending_catchup = None
        self.waiting, self.stall = (), None
        self._accept(series[0], at)
        return True

    def report_space_problems(self, problems: dict[int, str]) -> None:
        """Spaces the sensing cannot settle (flickering between two readings): shown at
        the space until they settle; the rest of the board is judged meanwhile."""
        if problems == self.space_problems:
            return
        self.space_problems = dict(problems)
        # shown where sensing trouble is shown (terminal, page, log); the spaces in the view
        self.source_status("; ".join(problems[i] for i in sorted(problems)) if problems else None)

    def _reject(self, obs: Observation, v: Verdict, pmove: Move, group: list[dict]) -> Verdict:
        """A legal-looking change that is not the computer's chosen move: take it back and
        warn until the board is put right (the chip lifted, or moved to the chosen space)."""
        r = self.referee
        where = r.layout.space_name(pmove.space) if pmove.space is not None else "?"
        did = "place a chip on" if pmove.action == "place" else "remove the chip from"
        text = f"not the {self.proposer}'s move: it plays {pmove.card} to {did} {where}; " \
               f"put the board right"
        spaces = tuple(sorted(set(v.spaces) | ({pmove.space} if pmove.space is not None else set())))
        return self._refuse(obs, v, group, text, spaces, "not_proposed")

    def _refuse(self, obs: Observation, v: Verdict, group: list[dict], text: str,
                spaces: tuple[int, ...], rule: str) -> Verdict:
        """Take a legal-looking change back and warn until the board is put right."""
        self.referee.undo()
        warn = Verdict("violation", spaces=spaces, team=v.team, player=v.player,
                       rule=rule, message=text)
        self._write_group(group + [{"type": "event", "event": "reject", "text": text}])
        self.warning = warn
        self._log_line("violation", text, spaces=list(spaces))
        self._emit(Event("warning", warn, text, spaces))
        return warn

    def choose_five(self, five: tuple[tuple[int, ...], ...]) -> Verdict:
        """The team of the last placement names the five of the sequence(s) it made (typed
        in, or the page); recorded as a ``five`` event. EngineError says why not."""
        r = self.referee
        v = r.choose_five(five)
        if self.game is not None:
            self.game.rechoose(r.moves[-1][1].five)
        self._write(five_entry(v, r.layout.cols))
        spaces = tuple(sorted({c for q in v.made for c in q.spaces}))
        self._log_line("choice", v.message, spaces=list(spaces), team=v.team)
        self._emit(Event("verdict", v, v.message, spaces))
        return v

    def finish(self) -> None:
        if self.ended:
            return
        self.ended = True
        r = self.referee
        reason = "sequences completed" if r.winner is not None else \
            (self.game.end_reason if self.game is not None and self.game.over else "stopped")
        self._write(end_entry(r.winner, reason, list(r.board.counts),
                              board=board_rows(r.board, r.colours),
                              hands=self.game.hands if self.game is not None else None))
        text = f"{COLOUR_NAMES[r.colours[r.winner]]} wins" if r.winner is not None else f"game over: {reason}"
        self._log_line("game_over", text)
        self._emit(Event("game_over", None, text))

    # --- what people tell it ------------------------------------------------------------------
    def propose(self, move: Move, reason: str = "", by: str = "computer") -> None:
        """A computer player's chosen move (or, ``by`` "other board", a remote player's),
        shown until a person places (or lifts) the chip."""
        self.proposal = (move, reason)
        self.proposer = by
        text = self.proposal_text(move, reason)
        self._log_line("proposal", text, spaces=[move.space] if move.space is not None else [])
        self._emit(Event("proposal", None, text, (move.space,) if move.space is not None else (),
                         {"card": move.card, "action": move.action}))

    def proposal_text(self, move: Move, reason: str = "") -> str:
        """The proposed move in words, with its reason when its level gives one."""
        by = self.proposer
        r = self.referee
        where = r.layout.space_name(move.space) if move.space is not None else ""
        text = f"{COLOUR_NAMES[r.colours[r.team]]} ({by}) plays {move.card} " \
               f"{'on' if move.action == 'place' else 'removing'} {where}"
        return f"{text}: {reason}" if reason.strip() else text

    def dead_card(self, card: str | None) -> None:
        """The player to move traded a dead card (told by a button, the page or the Pi)."""
        r = self.referee
        move = Move("dead", card)
        if self.game is not None:
            self.game.push(move)
        r.note_dead_card(card)
        self._write(move_entry(len(r.moves), r.current, move, r.layout.cols, via="engine"))
        text = f"{COLOUR_NAMES[r.colours[r.team]]} trades the dead card {card or '(unnamed)'}"
        self._log_line("dead_card", text)
        self._emit(Event("dead_card", None, text, data={"card": card, "player": r.current}))

    def parse_card(self, word: str) -> str:
        """One card typed or tapped (``5h``, ``10d``, ``add``, a picture name), checked
        against the edition's deck; EngineError names it when it is not one."""
        from engine.errors import EngineError
        if not self.referee.judge_cards:
            raise EngineError("this game does not judge chips with the card laid "
                              "(game.judge_cards = true in the configuration)")
        return self._deck_card(word)

    def _deck_card(self, word: str) -> str:
        """``word`` as a card of the edition's deck; EngineError names it when it is not."""
        from engine.cards import CardError, parse_card
        from engine.errors import EngineError
        ed = self.referee.edition
        deck = set(ed.deck())
        card = word.upper() if word.upper() in deck else word
        if card not in deck:
            try:
                card = parse_card(word)
            except CardError:
                raise EngineError(f"{word!r} is not a card of {ed.title}") from None
        return card

    def parse_hand(self, words: list[str]) -> list[str]:
        """Cards typed by a person (``5h 10d js``, or picture names in the Jewish Edition),
        checked against the edition's deck; EngineError names the one at fault."""
        from engine.errors import EngineError
        ed = self.referee.edition
        cards = [self._deck_card(w) for w in words]
        size = ed.hand_size(self.referee.n_players)
        if not 1 <= len(cards) <= size:
            raise EngineError(f"a hand holds 1 to {size} cards, not {len(cards)}")
        return cards

    def hint_hand(self, text: str | list[str]) -> list[str] | None:
        """The cards a hint request names; None (the engine's own hand) when nothing is
        typed in a game the engine deals. EngineError says what is wrong."""
        words = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        if words:
            return self.parse_hand(words)
        if self.game is None:
            from engine.errors import EngineError
            raise EngineError("say which cards you hold, e.g. 5H 10D JS")
        return None

    def hint(self, cards: list[str] | None = None, n: int = 3, clock=None,
             private: bool = False) -> list[dict]:
        """The best moves for the player to move, ranked, each with its reason: from the
        ``cards`` they hold (the Pi cannot see real cards), or from the engine's own game
        when it deals (the demo). Shown in the log and on the dashboard."""
        import time

        from engine.search import SearchPlayer, seat_view
        r = self.referee
        if cards is None:
            cards = self.hint_hand([])
        view = self.game if cards is None else seat_view(r, r.current, cards)
        player = SearchPlayer("hard", len(r.moves), clock=clock or time.monotonic)
        ranked = player.analyse(view)[:n]
        who = COLOUR_NAMES[r.colours[r.team]]
        self.hints_at = len(r.moves)
        self.hints = [{"move": h.move.text(r.layout.cols), "action": h.move.action,
                       "card": h.move.card, "space": h.move.space, "reason": h.reason,
                       "chance": round(h.score, 3) if h.move.action in ("place", "remove") else None}
                      for h in ranked]
        for i, h in enumerate(self.hints, 1):
            text = f"hint {i} for {who}: {h['move']} ({h['reason']})"
            self._log_line("hint", text, spaces=[h["space"]] if h["space"] is not None else [])
        # ``private``: asked from a phone; only the asker's page shows (and speaks) them
        self._emit(Event("hint", None, f"{len(self.hints)} hint(s) for {who}",
                         tuple(h["space"] for h in self.hints[:1] if h["space"] is not None),
                         {"private": private}))
        return self.hints

    def pass_turn(self) -> None:
        """The player to move cannot play any card (told by the engine or a person)."""
        r = self.referee
        move = Move("pass")
        if self.game is not None:
            self.game.push(move)
        v = r.apply(move)
        self._write(move_entry(len(r.moves), v.player, move, r.layout.cols, via="engine"))
        self._log_line("pass", v.message)
        self._emit(Event("verdict", v, v.message))
        if r.over or (self.game is not None and self.game.over):
            self.finish()

    def lost_draw(self) -> None:
        self.referee.note_lost_draw()
        self._write({"type": "event", "event": "lost_draw"})
        self._log_line("lost_draw", "the last player's draw is lost")
        self._emit(Event("lost_draw", None, "the last player's draw is lost"))

    def confirm(self) -> None:
        """A warning acknowledged: it stays on the board LEDs until put right, but stops
        sounding. Missed moves offered for confirmation are accepted."""
        if self.pending_catchup is not None:
            series, _, at = self.pending_catchup
            self.pending_catchup = None
            self._write({"type": "event", "event": "confirm"})
            self._accept(series, at)
            return
        if self.warning is not None:
            self._write({"type": "event", "event": "confirm"})
            self._emit(Event("info", self.warning, "warning confirmed"))

    def toggle_dead(self) -> bool:
        """Show or hide the dead cards' spaces (amber on the LED matrix); the new state."""
        self.dead_shown = not self.dead_shown
        self._emit(Event("info", None, "dead cards shown" if self.dead_shown else "dead cards hidden",
                         data={"dead_shown": self.dead_shown}))
        return self.dead_shown

    def undo(self) -> bool:
        """Undo the last move (the undo button); the board must then be put back. In remote
        play the undo is asked of the other boards, and done once they agree."""
        if self.undo_hook is not None:
            return self.undo_hook()
        return self.undo_now()

    def refuse_undo(self) -> bool:
        """Refuse the other board's request to undo (remote play); False when none waits."""
        return self.refuse_hook() if self.refuse_hook is not None else False

    def undo_now(self) -> bool:
        """Undo the last move here, at once (the undo itself, asked or agreed)."""
        v = self.referee.undo()
        if v is None:
            return False
        self._write({"type": "event", "event": "undo"})
        if self.game is not None:
            self._rebuild_game_without_last()
        self.warning = None
        self.pending_catchup = None
        self.hidden_move = frozenset()
        self.stall = None
        self.ended = False
        self._withdraw_proposal()
        self._log_line("undo", v.message)
        self._emit(Event("undo", v, v.message, v.spaces))
        return True

    def _withdraw_proposal(self) -> None:
        """A move was undone: the computer's pending move was chosen for a position and a
        turn no longer in force; it is withdrawn (the computer chooses again on its turn)."""
        if self.proposal is not None:
            self.proposal = None
            self._log_line("info", "the computer's proposed move is withdrawn")

    def _rebuild_game_without_last(self) -> None:
        g = self.game
        keep = g.history[:]
        # drop the last placement/removal and any dead trade of that turn after it
        while keep and keep[-1][1].action == "dead":
            keep.pop()
        if keep:
            keep.pop()
        fresh = Game(g.edition, g.n_players, g.n_teams, g.options, random.Random(self.seed),
                     layout=g.layout, first_player=g.first_player)
        for _, m in keep:
            fresh.push(m)
        self.game = fresh

    def source_status(self, problem: str | None) -> None:
        """The sensing is in trouble (``problem`` says what, in words) or back (None). While
        it is, no observation reaches the referee: nothing is judged on stale data."""
        if problem == self.source_problem:
            return
        self.source_problem = problem
        self._log_line("info", problem or "the board's sensing is back")
        self._emit(Event("source", text=problem or "the board's sensing is back"))

    # --- the snapshot every indicator reads ---------------------------------------------------
    def view(self) -> dict:
        r = self.referee
        lay = r.layout
        cells = []
        for i, c in enumerate(r.board.cells):
            cells.append("free" if i in lay.free else (c - 1 if c > 0 else None))
        seq = [sorted(r.board.sequence_spaces(t)) for t in range(r.n_teams)]
        w = self.warning
        prop = None
        if self.proposal is not None:
            m, why = self.proposal
            prop = {"action": m.action, "card": m.card, "space": m.space, "reason": why,
                    "text": self.proposal_text(m, why)}
        return {
            "mode": self.mode, "edition": r.edition.name, "title": r.edition.title,
            "rows": lay.rows, "cols": lay.cols, "symbols": list(lay.symbols),
            "cells": cells, "colours": list(r.colours),
            "colour_names": [COLOUR_NAMES[c] for c in r.colours],
            "names": self.names,
            "to_move": {"player": r.current, "team": r.team},
            "sequences": list(r.board.counts), "to_win": r.to_win,
            "sequence_spaces": seq, "dead_cards": sorted(r.dead_cards()),
            "sequences_made": [{"team": q.team, "text": q.text(lay.cols),
                                "spaces": list(q.spaces)} for q in r.board.sequences],
            "over": r.over, "winner": r.winner, "move_number": len(r.moves),
            "warning": None if w is None else {"rule": w.rule, "text": w.message,
                                                "spaces": list(w.spaces)},
            "proposal": prop, "log": self.log[-50:], "source_problem": self.source_problem,
            "hints": self.hints if self.hints_at == len(r.moves) else [],
            "space_problems": [{"space": i, "text": t} for i, t in sorted(self.space_problems.items())],
            "waiting": [r.layout.space_name(i) for i in self.waiting],
            # the waiting notice while it is in force (the page shows it with the button
            # of t; docs/recovery.md)
            "stall": None if self.stall is None or self.stall[2] != len(r.moves) else
            {"text": self.stall[0], "spaces": list(self.stall[1]),
             "names": [r.layout.space_name(i) for i in self.stall[1]]},
            "confirm_catch_up": self.pending_catchup is not None,
            # a sequence just made on a longer line: the fives its team may name instead
            "five_choices": [{"text": " ".join(q.text(lay.cols) for q in o),
                              "spaces": sorted({c for q in o for c in q.spaces}),
                              "chosen": tuple(q.spaces for q in o) == tuple(
                                  q.spaces for q in r.board.sequences[-len(o):])}
                             for o in r.five_choices()],
            # judging with cards (docs/cards.md): the card laid and not yet matched by a
            # chip ("?": seen, unread), what waits, and a seat whose card must be typed
            "judge_cards": r.judge_cards, "card_laid": r.card_laid,
            "card_waiting": self.waiting_text, "unread_card_seat": self.unread_card,
            "remote": self.view_extra() if self.view_extra is not None else None,
        }


def resume_session(path, recorder, mode: str) -> Session:
    """Rebuild a session from an unfinished record (a power cut or a crash) and go on."""
    from pathlib import Path

    from .recorder import trim_incomplete_tail
    from .commands.replay import load_record_text
    trim_incomplete_tail(Path(path))
    text = load_record_text(str(path))      # size and line caps: no file can fill the memory
    parsed = parse_record(text, str(path))
    result = replay(parsed)
    if result.refusal:
        # the record does not check out: going on would write a game the rules do not allow
        from engine.errors import RecordError
        raise RecordError(f"{result.refusal}: refused: not a game the rules allow")
    setup = parsed.entries[0]
    s = Session(result.referee, recorder=recorder, game=result.game, mode=mode,
                seed=setup.get("seed", setup.get("computer_seed")), names=setup.get("names"),
                write_setup=False,
                computers=[(int(a), str(b)) for a, b in setup.get("computers", [])])
    s.unseen_moves = unseen_from_record(parsed.entries, result.referee)
    s._log_line("info", f"resumed {Path(path).name} at move {len(result.referee.moves)}")
    return s


def unseen_from_record(entries: list[dict],
                       referee: Referee) -> list[tuple[int, frozenset[int], int]]:
    """The moves applied as ``unseen`` whose chip has not shown yet, from a game's record
    (:attr:`Session.unseen_moves`): each ``unseen`` move line's spaces (``where``; in
    records written before it, the spaces named in its ``text``), less those an ``edit``
    line says showed (``unseen``: the move's number; before it, the reason's words), less
    moves taken back since (``referee`` is the game replayed from the record)."""
    import re
    layout = referee.layout

    def spaces(names) -> frozenset[int] | None:
        try:
            got = frozenset(layout.parse_space(str(x)) for x in names)
        except (ValueError, TypeError):
            return None
        return got or None
    pending: dict[int, tuple[int, frozenset[int]]] = {}
    for e in entries:
        if e.get("type") == "move" and e.get("action") == "unseen":
            where = spaces(e["where"]) if isinstance(e.get("where"), list) else None
            if where is None:
                m = re.search(r"not seen: on (.+?), which cannot be read", str(e.get("text", "")))
                where = spaces(re.split(r", | or ", m.group(1))) if m else None
            n, player = e.get("n"), e.get("player")
            if where is not None and isinstance(n, int) and isinstance(player, int):
                pending[n] = (player % referee.n_teams, where)
        elif e.get("type") == "edit":
            if isinstance(e.get("unseen"), int):
                pending.pop(e["unseen"], None)
                continue
            m = re.fullmatch(r"the move of (\w+) not seen earlier shows on (\w+)",
                             str(e.get("reason", "")))
            if m is None:
                continue
            shown = spaces([m.group(2)])
            for n, (team, where) in sorted(pending.items()):
                if referee.colour_name(team) == m.group(1) and shown and shown <= where:
                    del pending[n]
                    break
    moves = referee.moves
    return [(team, where, n) for n, (team, where) in sorted(pending.items())
            if n <= len(moves) and moves[n - 1][1].action == "unseen"]
