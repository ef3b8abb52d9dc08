"""One board's side of a remote game: its seats, its virtual hands, and the moves that cross.

The other board's moves arrive as requests to place a chip, exactly like the computer's
(:meth:`Session.propose`): the LEDs, the terminal and the page show them, a person here
places the chip, the referee here checks it. A chip placed here for a seat this board does
not hold, or that the player's virtual hand cannot explain, is refused (the session takes
it back and warns until the board is put right). A legal move by a seat held here is
published, numbered; every board applies move ``n`` once, after ``n - 1``.

The creating board is the dealer: it keeps the seeded deck (the seed is in its record) and,
after every move, sends each board the hands of the seats it holds, and nothing else.
Everything here runs on the main loop's thread (:meth:`RemoteGame.step`).
"""

from __future__ import annotations

import logging
import random
import time

from engine.errors import EngineError
from engine.game import Game
from engine.moves import Move
from engine.referee import COLOUR_NAMES

from ..session import Event, Session
from . import protocol as P

log = logging.getLogger("seqboard.remote")


def setup_message(session: Session, boards: dict[str, list[int]]) -> dict:
    r = session.referee
    return {"type": "setup", "edition": r.edition.name, "players": r.n_players,
            "teams": r.n_teams, "colours": list(r.colours), "first_player": r.current,
            "options": r.options.to_json(), "names": list(session.names), "boards": boards}


class RemoteGame:
    """Attach to ``session``; call :meth:`step` from the main loop."""

    def __init__(self, session: Session, link, *, game: str, secret: str, board: str,
                 seats: list[int], setup: dict, deck_seed: int | None = None,
                 history: list[dict] = (), clock=time.time) -> None:
        self.session = session
        self.link = link
        self.game = game
        self.secret = secret
        self.board = board
        self.seats = set(seats)
        self.setup = setup
        self.creator = deck_seed is not None
        self.key = P.board_key(secret, board)
        self._keys: dict[str, bytes] = {board: self.key}
        self.clock = clock
        self.n = 0                       # shared moves applied here (placements, removals,
        self.pending: dict[int, tuple[str, dict]] = {}    # dead-card trades, passes)
        self.mine: dict[int, dict] = {}  # moves this board published, by number
        self.hands: dict[int, list[str]] = {}
        self.hands_n = -1
        self.seat_last: dict[int, int] = {}   # seat -> number of its last move
        self.dead_turn = -1
        self.told_turn = -1
        self.refusals: list[str] = []
        self.shown_at: dict[int, float] = {}  # move number -> when it was proposed here
        self._reconnected = False
        self._pending_card: str | None = None
        self.dealer: Game | None = None
        self.pages = None                # HandPages: each player's cards on their phone
        self.dealt = 0                   # moves the dealer has dealt after (never twice)
        r = session.referee
        if self.creator:
            self.deck_seed = deck_seed
            self.dealer = Game(r.edition, r.n_players, r.n_teams, r.options,
                               random.Random(deck_seed), layout=r.layout,
                               first_player=int(setup["first_player"]))
        for e in history:                # a resumed game: the moves in this board's record
            if e.get("type") == "move":
                self._count(Move.from_json(e, r.layout.rows, r.layout.cols), int(e["player"]))
        if self.creator:
            self._take_own_hands()
        for suffix in ("setup", "join", "move/+", f"hand/{board}"):
            link.subscribe(f"{P.game_topic(game)}/board/+/{suffix}")
        link.on_connect = self._on_connect
        session.seat_policy = self._policy
        session.subscribe(self._on_event)

    # --- who holds what ------------------------------------------------------------------
    @property
    def boards(self) -> dict[str, list[int]]:
        return self.setup["boards"]

    @property
    def ready(self) -> bool:
        held = {s for ss in self.boards.values() for s in ss}
        return held == set(range(self.session.referee.n_players))

    def holder(self, seat: int) -> str | None:
        return next((b for b, ss in self.boards.items() if seat in ss), None)

    def key_of(self, board: str) -> bytes:
        if board not in self._keys:
            self._keys[board] = P.board_key(self.secret, board)
        return self._keys[board]

    def _who(self, seat: int) -> str:
        r = self.session.referee
        names = self.session.names
        name = names[seat] if seat < len(names) else f"player {seat + 1}"
        return f"{name} ({COLOUR_NAMES[r.colours[seat % r.n_teams]]})"

    # --- publishing ----------------------------------------------------------------------
    def _publish(self, kind: str, obj: dict, n: int | str | None = None) -> None:
        t = P.topic(self.game, self.board, kind, n)
        self.link.publish(t, P.encode(obj, t, self.key))

    def announce(self) -> None:
        """Publish what this board has to say at the start: the setup (the creator) or its
        request to join (the others), and its hands and state."""
        if self.creator:
            self._publish("setup", self.setup)
            self._deal()
            self.publish_state()
        else:
            self._publish("join", {"type": "join", "seats": sorted(self.seats)})

    def publish_state(self, last: str = "") -> None:
        """The public summary on the game's state topic (retained): what the club view reads."""
        s = self.session
        r = s.referee
        state = {"type": "state", "n": self.n, "edition": r.edition.name,
                 "title": r.edition.title, "names": list(s.names), "colours": list(r.colours),
                 "boards": {b: sorted(x) for b, x in self.boards.items()},
                 "to_move": r.current, "sequences": list(r.board.counts), "to_win": r.to_win,
                 "over": r.over or s.ended, "winner": r.winner, "last": last,
                 "time": round(self.clock(), 3)}
        t = P.state_topic(self.game)
        self.link.publish(t, P.encode(state, t, None))

    def _deal(self) -> None:
        """The dealer sends each board the hands of its seats (and only those)."""
        if self.dealer is None:
            return
        self._take_own_hands()
        for b, ss in self.boards.items():
            if b == self.board:
                continue
            hands = {str(s): list(self.dealer.hands[s]) for s in ss}
            self._publish("hand", {"type": "hand", "n": self.n, "hands": hands}, b)

    def _take_own_hands(self) -> None:
        self.hands = {s: list(self.dealer.hands[s]) for s in self.seats}
        self.hands_n = self.n

    # --- counting moves ------------------------------------------------------------------
    def _count(self, move: Move, seat: int) -> None:
        """Move ``self.n + 1`` is applied here: count it, and deal when dealing."""
        self.n += 1
        self.seat_last[seat] = self.n
        if self.dealer is not None and self.n > self.dealt:
            self.dealt = self.n
            try:
                self.dealer.push(move)
            except EngineError as exc:   # the other board played a card it was not dealt
                self._refuse(f"move {self.n}: the dealer's deck disagrees: {exc}")

    # --- the session's hooks (main loop thread) ------------------------------------------
    def _policy(self, v) -> tuple[str | None, str | None]:
        """A chip placed or removed here while nothing is proposed: whose, with which card."""
        r = self.session.referee
        where = r.layout.space_name(v.spaces[0])
        if not self.ready:
            return "waiting for the other board to join: take the chip back", None
        seat = v.player
        if seat not in self.seats:
            return (f"it is {self._who(seat)}'s turn at board {self.holder(seat)}: take the "
                    f"chip back from {where} and wait for their move"), None
        n = self.n + 1
        action = "place" if v.kind == "placement" else "remove"
        sent = self.mine.get(n)
        if sent is not None:             # sent before a restart or a takeback: it stands
            if sent["action"] == action and sent["space"] == v.spaces[0]:
                self._pending_card = sent["card"]
                return None, sent["card"]
            return (f"move {n} was already sent to the other board: "
                    f"{sent['action']} {r.layout.space_name(sent['space'])}"), None
        hand = self.hands.get(seat)
        if hand is None or self.hands_n < self.seat_last.get(seat, 0):
            return f"{self._who(seat)}'s cards have not arrived yet: take the chip back", None
        ed = r.edition
        if action == "place":
            sym = r.layout.symbols[v.spaces[0]]
            card = sym if sym in hand else next((c for c in hand if c in ed.wild_cards), None)
        else:
            card = next((c for c in hand if c in ed.remove_cards), None)
        if card is None:
            return (f"{self._who(seat)} holds no card to {action} at {where} "
                    f"(hand: {' '.join(hand)}): take the chip back"), None
        self._pending_card = card
        return None, card

    def _on_event(self, event: Event, view: dict) -> None:  # noqa: ARG002
        v = event.verdict
        if event.kind == "undo" and self.n > 0:
            # a chip lifted again (a takeback) after its move was counted: the move stays
            # sent (and dealt); putting the chip back where it was is what this board accepts
            self.n -= 1
            return
        if event.kind != "verdict" or v is None or v.kind not in ("placement", "removal"):
            if event.kind == "game_over":
                self.publish_state("game over")
            return
        r = self.session.referee
        _, move = r.moves[-1]
        card = event.data.get("computer_card")
        if card is not None:             # the other board's move, placed here
            self._count(Move(move.action, card, move.space), v.player)
        else:                            # a move by a seat held here
            card = self._pending_card
            self._pending_card = None
            n = self.n + 1
            msg = self.mine.get(n) or {"type": "move", "n": n, "seat": v.player,
                                       "action": move.action, "card": card,
                                       "space": move.space}
            self.mine[n] = msg
            self._publish("move", msg, n)
            self._count(Move(move.action, card, move.space), v.player)
        self._deal()
        if self.creator:
            self.publish_state(v.message)

    # --- the network's messages ----------------------------------------------------------
    def _on_connect(self) -> None:       # paho's thread: only a flag
        self._reconnected = True

    def _refuse(self, why: str) -> None:
        log.warning("refused: %s", why)
        self.refusals.append(why)
        del self.refusals[:-100]
        self.session._log_line("info", f"remote: refused: {why}")

    def receive(self, t: str, payload: bytes) -> None:
        """One message from the broker: checked, then taken or refused with a reason."""
        try:
            game, board, kind, rest = P.parse_topic(t)
            if game != self.game or board is None:
                raise P.Refused(f"{t}: not this game")
            msg = P.decode(payload, t, self.key_of(board))
            getattr(self, f"_got_{kind}")(board, msg, rest)
        except P.Refused as exc:
            self._refuse(str(exc))

    def _got_setup(self, board: str, msg: dict, rest) -> None:  # noqa: ARG002
        if self.creator or board == self.board:
            return
        if board != self.setup.get("creator", board):
            raise P.Refused(f"setup from {board}, not the creating board")
        self.setup = {**msg, "creator": board}

    def _got_join(self, board: str, msg: dict, rest) -> None:  # noqa: ARG002
        if not self.creator or board == self.board:
            return
        seats = msg["seats"]
        if self.boards.get(board) == seats:
            self._publish("setup", self.setup)   # said again: say the setup again
            self._deal()
            return
        n = self.session.referee.n_players
        held = {s for b, ss in self.boards.items() if b != board for s in ss}
        if not seats or any(s >= n or s in held for s in seats) or board in self.boards:
            raise P.Refused(f"board {board} asks for seats {[s + 1 for s in seats]}, "
                            f"not free")
        self.setup["boards"][board] = sorted(seats)
        self.session._log_line("info", f"remote: board {board} joined, seats "
                                       f"{', '.join(str(s + 1) for s in seats)}")
        self.session._emit(Event("info", None, f"board {board} joined"))
        self._publish("setup", self.setup)
        self._deal()
        self.publish_state()

    def _got_hand(self, board: str, msg: dict, rest) -> None:
        if self.creator or rest != self.board:
            return
        if board != self.setup.get("creator"):
            raise P.Refused(f"hands from {board}, not the dealing board")
        if msg["n"] < self.hands_n:
            return
        hands = {int(s): cards for s, cards in msg["hands"].items()}
        if set(hands) != self.seats:
            raise P.Refused(f"hands for seats {sorted(hands)}, this board holds {sorted(self.seats)}")
        self.hands, self.hands_n = hands, msg["n"]

    def _got_move(self, board: str, msg: dict, rest) -> None:
        n = msg["n"]
        if rest != str(n):
            raise P.Refused(f"move {n} on the topic of move {rest}")
        if msg["seat"] not in self.boards.get(board, ()):
            raise P.Refused(f"move {n} for seat {msg['seat'] + 1} from board {board}, which "
                            f"does not hold it")
        if board == self.board:
            self.mine.setdefault(n, msg)  # this board's own, sent before a restart
            return
        # kept by number (the first copy; later copies change nothing), applied once when
        # move n - 1 has been: a duplicate, or the retained copy after a reconnection, of a
        # move applied already is never applied again
        self.pending.setdefault(n, (board, msg))

    # --- the loop's step -----------------------------------------------------------------
    def step(self, now: float = 0.0) -> None:  # noqa: ARG002
        for t, payload in self.link.drain():
            self.receive(t, payload)
        if self.pages is not None:
            r = self.session.referee
            for seat in self.seats:
                self.pages.update(seat, self.hands.get(seat, []),
                                  r.current == seat and not self.session.ended)
        if self._reconnected:
            self._reconnected = False
            self.announce()
            for n, msg in sorted(self.mine.items()):
                self._publish("move", msg, n)
        s = self.session
        if s.ended or not self.ready:
            return
        self._apply_next()
        self._local_turn()

    def _apply_next(self) -> None:
        """Apply the other boards' moves in order: a chip to place is proposed; a dead-card
        trade or a pass is applied at once."""
        s = self.session
        r = s.referee
        while s.proposal is None and s.warning is None and not s.ended:
            item = self.pending.get(self.n + 1)
            if item is None:
                return
            board, msg = item
            seat, action, card, space = msg["seat"], msg["action"], msg["card"], msg["space"]
            if seat != r.current:
                self.pending.pop(self.n + 1)
                self._refuse(f"move {self.n + 1} from {board} is for seat {seat + 1}, but "
                             f"seat {r.current + 1} is to move")
                return
            why = self._illegal(action, card, space)
            if why:
                self.pending.pop(self.n + 1)
                self._refuse(f"move {self.n + 1} from {board}: {why}")
                return
            move = Move(action, card, space)
            if action in ("place", "remove"):
                self.shown_at[self.n + 1] = self.clock()
                s.propose(move, "", by=f"board {board}")
                return
            if action == "dead":
                s.dead_card(card)
            else:
                s.pass_turn()
            self._count(move, seat)
            self._deal()
            if self.creator:
                self.publish_state()

    def _illegal(self, action: str, card, space) -> str | None:
        r = self.session.referee
        ed = r.edition
        if action in ("place", "remove"):
            if not 0 <= space < r.layout.size:
                return "no such space"
            cell = r.board.cells[space]
            if action == "place" and (space in r.layout.free or cell != 0 or
                                      (card != r.layout.symbols[space] and card not in ed.wild_cards)):
                return f"{card} cannot be placed at {r.layout.space_name(space)}"
            if action == "remove" and (card not in ed.remove_cards or cell <= 0):
                return f"{card} cannot remove at {r.layout.space_name(space)}"
        if action == "dead" and card not in r.layout.spaces_of:
            return f"{card} is not a card that can be dead"
        return None

    def _local_turn(self) -> None:
        """A seat held here is to move: a dead card in its virtual hand is traded, and a
        player with no card to play passes (both told on every board)."""
        s = self.session
        r = s.referee
        seat = r.current
        if seat not in self.seats or s.proposal is not None or s.warning is not None \
                or self.n + 1 in self.mine or self.n + 1 in self.pending:
            return
        hand = self.hands.get(seat)
        if hand is None or self.hands_n < self.n:
            return
        dead = r.dead_cards()
        turn = len(r.moves)
        if self.dead_turn != turn:
            card = next((c for c in hand if c in dead), None)
            if card is not None:
                self.dead_turn = turn
                self._local(Move("dead", card), seat)
                return
        from engine.search import seat_view
        if not seat_view(r, seat, hand).has_play():
            self._local(Move("pass"), seat)
            return
        if self.told_turn != turn:
            # the player's virtual cards (after any dead-card trade), told at this board only
            self.told_turn = turn
            text = f"{self._who(seat)} to move here; cards: {' '.join(hand)}"
            s._log_line("info", text)
            s._emit(Event("info", None, text, data={"seat": seat, "cards": list(hand)}))

    def _local(self, move: Move, seat: int) -> None:
        n = self.n + 1
        msg = {"type": "move", "n": n, "seat": seat, "action": move.action, "card": move.card,
               "space": None}
        self.mine[n] = msg
        self._publish("move", msg, n)
        if move.action == "dead":
            self.session.dead_card(move.card)
        else:
            self.session.pass_turn()
        self._count(move, seat)
        self._deal()
        if self.creator:
            self.publish_state()
