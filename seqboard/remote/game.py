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
import secrets
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
                 history: list[dict] = (), clock=time.time, undo_timeout: float = 60.0) -> None:
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
        self.applied: list[tuple[int, Move]] = []          # dead-card trades, passes)
        self.pending: dict[int, tuple[str, dict]] = {}
        self.mine: dict[int, dict] = {}  # moves this board published, by number
        self.hands: dict[int, list[str]] = {}
        self.hands_n = -1
        self.hands_u = 0
        # undos agreed by every board: ``undos`` done so far (moves carry it as ``u``: a move
        # from before an undo is never applied after it); the request being agreed, if any
        self.undos = 0
        self.undo_timeout = undo_timeout
        self.undo_req: dict | None = None
        self.undo_msgs: dict[int, dict[str, dict]] = {}    # undo number -> board -> message
        self.undo_sent: dict[int, dict] = {}               # this board's, said again on reconnect
        self._undoing = False
        self._my_ids: set[str] = set()  # the requests this board made since it started
        self._refused_ids: set[str] = set()   # requests of others refused here
        self.picked: dict[int, str] = {}      # seat -> the card its player tapped to play next
        self.which: dict | None = None        # a chip placed that two cards explain: which?
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
                self._count(Move.from_json(e, r.layout.rows, r.layout.cols), int(e["player"]),
                            deal=False)
            elif e.get("event") == "undo":
                self._pop_last()
            elif e.get("event") == "note" and "remote_undo" in e:
                info = e["remote_undo"]
                self.undos = self.hands_u = int(info["k"])
                if info.get("asker") == board:   # said again, in case it never left
                    self.undo_sent[self.undos] = self._undo_msg("done", info)
        if self.creator:
            self._rebuild_dealer()
            self._take_own_hands()
        for suffix in ("setup", "join", "move/+", f"hand/{board}"):
            link.subscribe(f"{P.game_topic(game)}/board/+/{suffix}")
        link.subscribe(f"{P.game_topic(game)}/board/+/undo/+")
        link.on_connect = self._on_connect
        session.seat_policy = self._policy
        session.undo_hook = self._undo_key
        session.refuse_hook = self._refuse_key
        session.view_extra = self.view_info
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

    def view_info(self) -> dict:
        """The remote game as the page shows it (``view()["remote"]``): no card, no secret."""
        req = self.undo_req
        undo = None
        if req is not None:
            undo = {"by": req["by"], "mine": req["by"] == self.board,
                    "agreed": self.board in req["agreed"], "text": self._moves_text(req)}
        return {"game": self.game, "board": self.board, "seats": sorted(self.seats),
                "boards": {b: sorted(x) for b, x in self.boards.items()},
                "ready": self.ready, "undos": self.undos, "undo": undo}

    # --- publishing ----------------------------------------------------------------------
    def _publish(self, kind: str, obj: dict, n: int | str | None = None) -> None:
        t = P.topic(self.game, self.board, kind, n)
        self.link.publish(t, P.encode(obj, t, self.key))

    def _tell(self, text: str, **data) -> None:
        """A line for the people at this board: the terminal, the page, the log."""
        self.session._log_line("info", f"remote: {text}")
        self.session._emit(Event("info", None, text, data=data))

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
            self._publish("hand", {"type": "hand", "n": self.n, "u": self.undos, "hands": hands},
                          b)

    def _take_own_hands(self) -> None:
        self.hands = {s: list(self.dealer.hands[s]) for s in self.seats}
        self.hands_n, self.hands_u = self.n, self.undos

    def _rebuild_dealer(self) -> None:
        """The dealer's deck dealt again from its seed through the moves in effect (after an
        undo the cards played go back to their hands, the cards drawn back to the deck)."""
        r = self.session.referee
        self.dealer = Game(r.edition, r.n_players, r.n_teams, r.options,
                           random.Random(self.deck_seed), layout=r.layout,
                           first_player=int(self.setup["first_player"]))
        for i, (_, m) in enumerate(self.applied):
            try:
                self.dealer.push(m)
            except EngineError as exc:
                self._refuse(f"move {i + 1}: the dealer's deck disagrees: {exc}")
                break
        self.dealt = self.n

    # --- counting moves ------------------------------------------------------------------
    def _count(self, move: Move, seat: int, deal: bool = True) -> None:
        """Move ``self.n + 1`` is applied here: count it, and deal when dealing."""
        self.applied.append((seat, move))
        self.n = len(self.applied)
        self.seat_last[seat] = self.n
        if deal and self.dealer is not None and self.n > self.dealt:
            self.dealt = self.n
            try:
                self.dealer.push(move)
            except EngineError as exc:   # the other board played a card it was not dealt
                self._refuse(f"move {self.n}: the dealer's deck disagrees: {exc}")

    def _pop_last(self) -> None:
        """The last move in effect is undone here (with any dead-card trade after it), as
        the session's undo and a record's undo line do."""
        while self.applied and self.applied[-1][1].action == "dead":
            self.applied.pop()
        if self.applied:
            self.applied.pop()
        self.n = len(self.applied)
        self._recount_seats()

    def _recount_seats(self) -> None:
        self.seat_last = {}
        for i, (seat, _) in enumerate(self.applied):
            self.seat_last[seat] = i + 1

    # --- the session's hooks (main loop thread) ------------------------------------------
    def _policy(self, v) -> tuple[str | None, str | None]:
        """A chip placed or removed here while nothing is proposed: whose, with which card."""
        r = self.session.referee
        where = r.layout.space_name(v.spaces[0])
        if not self.ready:
            return "waiting for the other board to join: take the chip back", None
        if self.undo_req is not None:
            return (f"an undo is being agreed between the boards: take the chip back from "
                    f"{where} and wait"), None
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
            fits = ([sym] if sym in hand else []) + [c for c in hand if c in ed.wild_cards]
        else:
            fits = [c for c in hand if c in ed.remove_cards]
        fits = list(dict.fromkeys(fits))
        self.which = None
        picked = self.picked.get(seat)
        if picked is not None:
            if picked not in fits:
                return (f"{self._who(seat)} picked {picked}, which cannot {action} at {where}: "
                        f"take the chip back, or pick another card"), None
            card = picked
        elif not fits:
            return (f"{self._who(seat)} holds no card to {action} at {where} "
                    f"(hand: {' '.join(hand)}): take the chip back"), None
        elif len(fits) > 1 and self.pages is not None and self.pages.uses_phone(seat):
            # the player has their cards on the phone: they say which card they meant
            self.which = {"seat": seat, "space": v.spaces[0], "choices": fits}
            return (f"which card for {where}: {' or '.join(fits)}? {self._who(seat)} taps it "
                    f"on their phone (or takes the chip back)"), None
        else:
            card = fits[0]               # the space's own card before a jack
        self._pending_card = card
        return None, card

    def _on_event(self, event: Event, view: dict) -> None:  # noqa: ARG002
        v = event.verdict
        if event.kind == "undo" and self.n > 0 and not self._undoing:
            # a chip lifted again (a takeback) after its move was counted: the move stays
            # sent (and dealt); putting the chip back where it was is what this board accepts
            self._pop_last()
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
            msg = self.mine.get(n) or {"type": "move", "n": n, "u": self.undos,
                                       "seat": v.player, "action": move.action, "card": card,
                                       "space": move.space}
            self.mine[n] = msg
            self._publish("move", msg, n)
            self.picked.pop(v.player, None)
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
        if not payload:                  # a retained message cleared (a move undone)
            return
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
        if (msg.get("u", 0), msg["n"]) < (self.hands_u, self.hands_n) \
                or msg.get("u", 0) < self.undos:
            return
        hands = {int(s): cards for s, cards in msg["hands"].items()}
        if set(hands) != self.seats:
            raise P.Refused(f"hands for seats {sorted(hands)}, this board holds {sorted(self.seats)}")
        self.hands, self.hands_n, self.hands_u = hands, msg["n"], msg.get("u", 0)

    def _got_move(self, board: str, msg: dict, rest) -> None:
        n = msg["n"]
        if rest != str(n):
            raise P.Refused(f"move {n} on the topic of move {rest}")
        if msg["seat"] not in self.boards.get(board, ()):
            raise P.Refused(f"move {n} for seat {msg['seat'] + 1} from board {board}, which "
                            f"does not hold it")
        u = msg.get("u", 0)
        if u < self.undos:
            return                       # a move taken back by an undo since
        if board == self.board:
            if u == self.undos:
                self.mine.setdefault(n, msg)  # this board's own, sent before a restart
            return
        # kept by number (the first copy; later copies change nothing), applied once when
        # move n - 1 has been: a duplicate, or the retained copy after a reconnection, of a
        # move applied already is never applied again. A move made again after an undo
        # (a higher ``u``) replaces the one taken back.
        old = self.pending.get(n)
        if old is None or old[1].get("u", 0) < u:
            self.pending[n] = (board, msg)

    def _got_undo(self, board: str, msg: dict, rest) -> None:
        k = msg["k"]
        if rest != str(k):
            raise P.Refused(f"undo {k} on the topic of undo {rest}")
        if board not in self.boards:
            raise P.Refused(f"undo {k} from board {board}, which holds no seat")
        if k > self.undos:               # kept (the latest word of each board) for _undo_step
            self.undo_msgs.setdefault(k, {})[board] = msg

    # --- undo, agreed by every board -------------------------------------------------------
    # One board asks (its undo key, button or page): "take moves back_to + 1 .. n back".
    # Every other board shows the request; a person there agrees (the undo key) or refuses
    # (r). When all have agreed, the asker says "done" and every board undoes the same moves;
    # a refusal, or no answer within ``undo_timeout`` seconds, and the asker withdraws the
    # request. While a request stands no board takes or applies a move after move n.
    def _undo_msg(self, op: str, req: dict, why: str = "") -> dict:
        msg = {"type": "undo", "k": req["k"], "id": req.get("id", ""), "op": op, "n": req["n"],
               "back_to": req["back_to"]}
        if why:
            msg["why"] = why[:200]
        return msg

    def _say_undo(self, op: str, req: dict, why: str = "") -> None:
        msg = self._undo_msg(op, req, why)
        self.undo_sent = {req["k"]: msg}
        self._publish("undo", msg, req["k"])

    def _back_to(self) -> int | None:
        """Where an undo now goes back to: before the last placement, removal or pass (and
        any dead-card trade after it), as the session's undo does."""
        i = len(self.applied)
        while i and self.applied[i - 1][1].action == "dead":
            i -= 1
        return i - 1 if i else None

    def _moves_text(self, req: dict) -> str:
        first, last = req["back_to"] + 1, req["n"]
        span = f"move {first}" if first == last else f"moves {first} to {last}"
        seat, m = self.applied[first - 1] if first <= len(self.applied) else (None, None)
        if m is not None and m.action in ("place", "remove"):
            r = self.session.referee
            span += (f" ({self._who(seat)} {m.card} {'on' if m.action == 'place' else 'removing'}"
                     f" {r.layout.space_name(m.space)})")
        return span

    def _others(self) -> list[str]:
        return sorted(b for b in self.boards if b != self.board)

    def _undo_key(self) -> bool:
        """The undo key, button or page here: agree to the other board's request, or ask."""
        req = self.undo_req
        if req is not None and req["by"] != self.board:
            return self._answer("agree")
        if req is not None:
            self._tell(f"undo already asked: waiting for board {', '.join(self._others())}")
            return False
        if not self.ready:
            return False
        back_to = self._back_to()
        if back_to is None:
            self._tell("nothing to undo")
            return False
        req = {"k": self.undos + 1, "id": secrets.token_hex(4), "by": self.board, "n": self.n,
               "back_to": back_to, "at": self.clock(), "agreed": set()}
        self._my_ids.add(req["id"])
        self.undo_req = req
        self._say_undo("ask", req)
        self._tell(f"undo of {self._moves_text(req)} asked: waiting for board "
                   f"{', '.join(self._others())} to agree", undo="asked")
        return True

    def _refuse_key(self) -> bool:
        """The refuse key (r) or the page: refuse the other board's request."""
        req = self.undo_req
        if req is None or req["by"] == self.board:
            self._tell("no undo request to refuse")
            return False
        return self._answer("refuse", f"refused at board {self.board}")

    def _answer(self, op: str, why: str = "") -> bool:
        req = self.undo_req
        self._say_undo(op, req, why)
        if op == "agree":
            req["agreed"].add(self.board)
            self._tell(f"undo of {self._moves_text(req)} agreed here: waiting for board "
                       f"{req['by']}", undo="agreed")
        else:
            self.undo_req = None
            self._refused_ids.add(req["id"])
            self._tell(f"undo of {self._moves_text(req)} refused: the game goes on",
                       undo="refused")
        return True

    def _undo_step(self) -> None:
        """Follow the request being agreed, from the messages of every board."""
        k = self.undos + 1
        for old in [x for x in self.undo_msgs if x < k]:
            del self.undo_msgs[old]
        msgs = self.undo_msgs.get(k, {})
        req = self.undo_req
        if req is not None and req["by"] == self.board:
            self._asker_step(req, msgs)
            return
        mine = msgs.get(self.board)
        if mine is not None and mine["op"] == "ask" and mine.get("id") not in self._my_ids:
            # this board's own request from before a restart: it lapsed with the restart
            self._say_undo("withdraw", mine, "the asking board restarted")
            msgs.pop(self.board)
            mine = None
        asks = sorted((b, m) for b, m in msgs.items() if b != self.board
                      and m["op"] in ("ask", "done", "withdraw"))
        if not asks:
            return
        by, m = asks[0]
        if req is not None and req["by"] != by:
            return
        if m["op"] == "withdraw":
            if req is not None:
                self.undo_req = None
                self._tell(f"board {by} withdrew its undo request"
                           + (f" ({m['why']})" if m.get("why") else ""), undo="withdrawn")
            msgs.pop(by)
            return
        if self.n < m["n"] or (m["op"] == "ask" and m.get("id") in self._refused_ids):
            return                       # still arriving here, or answered already
        if m["op"] == "done":
            if self.n == m["n"]:
                self._apply_undo(k, m["n"], m["back_to"], by, m.get("id", ""))
            else:
                self._refuse(f"undo {k} from {by} is of move {m['n']}, this board is at "
                             f"{self.n}")
                msgs.pop(by)
            return
        if req is None:
            req = {"k": k, "id": m.get("id", ""), "by": by, "n": m["n"], "back_to": m["back_to"],
                   "at": self.clock(), "agreed": set()}
            if self.n > m["n"]:
                self.undo_req = req
                self._answer("refuse", f"board {self.board} has played move {self.n} already")
                return
            self.undo_req = req
            if mine is not None and mine["op"] == "agree" and mine.get("id") == req["id"]:
                req["agreed"].add(self.board)      # agreed before a restart here
                return
            self._tell(f"board {by} asks to undo {self._moves_text(req)}: u to agree, "
                       f"r to refuse", undo="request")

    def _asker_step(self, req: dict, msgs: dict) -> None:
        k = req["k"]
        rival = sorted(b for b, m in msgs.items() if b != self.board and m["op"] in ("ask", "done")
                       and b < self.board)
        if rival:
            # both boards asked at once: the first name's request stands, this one agrees
            # to it when it takes back the same moves
            self._say_undo("withdraw", req, f"board {rival[0]} asked at the same time")
            self.undo_req = None
            self._undo_step()
            theirs = self.undo_req
            if theirs is not None and theirs["back_to"] == req["back_to"] \
                    and theirs["n"] == req["n"]:
                self._answer("agree")
            return
        msgs = {b: m for b, m in msgs.items() if b == self.board or m.get("id") == req["id"]
                or m["op"] in ("ask", "done")}
        refused = [(b, m) for b, m in msgs.items() if b != self.board and m["op"] == "refuse"]
        if refused:
            b, m = refused[0]
            self._say_undo("withdraw", req, f"refused at board {b}")
            self.undo_req = None
            self._tell(f"board {b} refused the undo of {self._moves_text(req)}"
                       + (f" ({m['why']})" if m.get("why") else "") + ": the game goes on",
                       undo="refused")
            return
        agreed = {b for b, m in msgs.items() if m["op"] == "agree"
                  and m["n"] == req["n"] and m["back_to"] == req["back_to"]}
        if agreed >= set(self._others()):
            self._apply_undo(k, req["n"], req["back_to"], self.board, req["id"])
            self._say_undo("done", req)
            return
        if self.clock() - req["at"] > self.undo_timeout:
            self._say_undo("withdraw", req, f"no answer in {self.undo_timeout:g} s")
            self.undo_req = None
            self._tell(f"no answer from board {', '.join(sorted(set(self._others()) - agreed))} "
                       f"in {self.undo_timeout:g} s: the undo lapsed, the game goes on",
                       undo="lapsed")

    def _apply_undo(self, k: int, n: int, back_to: int, asker: str, req_id: str) -> None:
        """Every board agreed: moves ``back_to + 1 .. n`` are taken back here."""
        s = self.session
        r = s.referee
        spaces = [m.space for _, m in self.applied[back_to:] if m.space is not None]
        self.undo_req = None
        self.undo_msgs.pop(k, None)
        s._write({"type": "event", "event": "note",
                  "text": f"undo {k} agreed by every board: moves {back_to + 1} to {n} taken back",
                  "remote_undo": {"k": k, "n": n, "back_to": back_to, "asker": asker,
                                  "id": req_id}})
        self._undoing = True
        try:
            if s.proposal is not None:
                s._withdraw_proposal()
            while len(self.applied) > back_to:
                _, m = self.applied.pop()
                if m.action != "dead":
                    s.undo_now()
        finally:
            self._undoing = False
        self.n = len(self.applied)
        self._recount_seats()
        for x in [x for x in self.pending if x > back_to]:
            del self.pending[x]
        for x in [x for x in self.mine if x > back_to]:
            del self.mine[x]             # and its retained copy cleared
            self.link.publish(P.topic(self.game, self.board, "move", x), b"")
        self.undos = k
        self.dead_turn = self.told_turn = -1
        if self.dealer is not None:
            self._rebuild_dealer()
            self._take_own_hands()
            self._deal()
        elif self.hands_u < k:           # (the dealer's new deal may have come first)
            self.hands, self.hands_n, self.hands_u = {}, -1, k
        if self.creator:
            self.publish_state("undo")
        where = ", ".join(r.layout.space_name(x) for x in spaces)
        self._tell(f"undo agreed by every board: moves {back_to + 1} to {n} taken back"
                   + (f"; put {where} back as it was before" if where else ""), undo="done")

    # --- the loop's step -----------------------------------------------------------------
    def step(self, now: float = 0.0) -> None:  # noqa: ARG002
        for t, payload in self.link.drain():
            self.receive(t, payload)
        if self.pages is not None:
            self._hand_pages()
        if self._reconnected:
            self._reconnected = False
            self.announce()
            for n, msg in sorted(self.mine.items()):
                self._publish("move", msg, n)
            for k, msg in sorted(self.undo_sent.items()):
                self._publish("undo", msg, k)
        s = self.session
        if not self.ready:
            return
        self._undo_step()
        if s.ended:
            return
        self._apply_next()
        self._local_turn()

    def _hand_pages(self) -> None:
        """Each player's phone: their cards, their turn, the card they tapped; a tap is taken
        here (a chip waiting for "which card?" is then judged again)."""
        s = self.session
        r = s.referee
        for seat, card in self.pages.take_picks().items():
            if card is None:
                self.picked.pop(seat, None)
            elif card in self.hands.get(seat, ()):
                self.picked[seat] = card
        w = self.which
        if w is not None and w["seat"] in self.picked and s.warning is not None \
                and s.last_observation is not None:
            s.observe(s.last_observation)   # the same chip, now with the card tapped
        for seat in self.seats:
            hand = self.hands.get(seat, [])
            if self.picked.get(seat) not in hand:
                self.picked.pop(seat, None)
            w = self.which if self.which is not None and self.which["seat"] == seat \
                and s.warning is not None else None
            self.pages.update(seat, hand, r.current == seat and not s.ended,
                              picked=self.picked.get(seat),
                              choices=w["choices"] if w else ())

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
            if msg.get("u", 0) < self.undos:
                self.pending.pop(self.n + 1)     # taken back by an undo: its replacement comes
                continue
            if msg.get("u", 0) > self.undos or (self.undo_req is not None
                                                and self.n + 1 > self.undo_req["n"]):
                return                           # after an undo not agreed here yet
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
                or self.n + 1 in self.mine or self.n + 1 in self.pending \
                or self.undo_req is not None:
            return
        hand = self.hands.get(seat)
        if hand is None or (self.hands_u, self.hands_n) < (self.undos, self.n):
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
        msg = {"type": "move", "n": n, "u": self.undos, "seat": seat, "action": move.action,
               "card": move.card, "space": None}
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
