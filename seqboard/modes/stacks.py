"""SEQUENCE STACKS at the table: the terminal is the referee's display.

Players type what they lay, in short card codes; the engine accepts or refuses each play
with the reason, and keeps the piles, the discard tops and the chips in view. Block can be
typed at any moment. Computer players fill empty seats (with cards the engine deals).

:class:`StacksTable` holds the logic (one line in, what to print out), so it is tested with
typed lines; :func:`run_table` reads the terminal.
"""

from __future__ import annotations

import random
import time
from typing import Callable, TextIO

from engine.errors import EngineError, IllegalMoveError
from engine.stacks import Action, StacksGame, make_stacks_player, parse_card
from engine.stacks.cards import COLOUR_NAMES, COLOURS, SPECIALS, colour, is_wild, number
from engine.stacks.record import action_entry, end_entry, setup_entry

from ..i18n import _, tr

HELP = """what to type (codes: R1-R5 B1-B5, RW BW wilds, SK skip, RV reverse, SC steal a card,
CH steal a chip, BL block; a number is a pile or a player, 1-based):
  R3 2          lay the red 3 on pile 2 (the pile may be left out when only one fits)
  R1 new        start a new red pile (RW / BW start one too)
  top R4 1      lay the top card of your own discard pile
  SK  /  RV     skip the next player / reverse the direction
  SC 3 pile     steal the top of player 3's discard pile  (SC 3 hand: a card from the hand)
  CH 2 B        steal a blue chip from player 2
  BL 3          player 3 plays Block on the SEQUENCE just completed (at any moment)
  x B4          discard the blue 4 and end your turn (then draw up to five)
  ?             what may be played now          show   the table again          quit
"""

WORDS = ("new", "top", "pile", "hand", "x", "discard", "end", "show", "help", "quit")


class StacksTable:
    def __init__(self, game: StacksGame, seats: list[str], out: TextIO, *,
                 write: Callable[[dict], None] | None = None, seed: int | None = None,
                 listeners: list[Callable[[str, StacksGame, str], None]] | None = None) -> None:
        self.game = game
        self.seats = seats                      # "person", "random" or "greedy" per seat
        self.out = out
        self.write = write or (lambda entry: None)
        self.listeners = listeners or []
        self.players = {p: make_stacks_player(kind, random.Random((seed or 0) * 31 + p),
                                              clock=time.monotonic)
                        for p, kind in enumerate(seats) if kind != "person"}
        self.n = 0
        self.waiting_block = False
        self.write(setup_entry(game, seed, seats=seats))

    # --- output --------------------------------------------------------------------------
    def say(self, text: str) -> None:
        print(tr(text), file=self.out, flush=True)      # in the table's language

    def _emit(self, kind: str, text: str) -> None:
        for fn in self.listeners:
            fn(kind, self.game, text)

    def who(self, p: int) -> str:
        return self.game.name(p) + (" (Pi)" if self.seats[p] != "person" else "")

    def table(self) -> str:
        g = self.game
        lines = []
        piles = [f"{i + 1}:{_(COLOUR_NAMES[p.colour])} {'-'.join(c[1] for c in p.cards)}"
                 for i, p in enumerate(g.piles)]
        lines.append(_("piles: {piles}").format(piles="  ".join(piles) if piles else _("none")))
        tops = [f"{tr(self.who(p))} {g.top(p) or '-'}" for p in range(g.n)]
        lines.append(_("discard tops: {tops}").format(tops=", ".join(tops)))
        chips = [f"{tr(self.who(p))} {c['B']}B {c['R']}R" for p, c in enumerate(g.chips)]
        lines.append(_("chips: {chips}   deck {deck}, out of play {out}").format(
            chips=", ".join(chips), deck=len(g.deck), out=len(g.out)))
        if not g.over:
            lines.append(_("to play: {who}").format(who=tr(self.who(g.current))))
        return "\n".join(lines)

    def prompt(self) -> str:
        g = self.game
        p = g.current
        if self.waiting_block:
            return _("Block? (BL <player>, or Enter for none)> ")
        hand = ""
        if g.known and self.seats[p] == "person":
            hand = " [" + " ".join(sorted(g.hands[p])) + "]"
        return f"{g.name(p)}{hand}> "

    # --- what may be played ---------------------------------------------------------------
    def suggestions(self) -> list[str]:
        g = self.game
        p = g.current
        out = []
        if g.known:
            for a in g.legal_actions():
                out.append(self.describe(a))
            return out
        # hands unknown: what the piles and the discard top accept
        for i, pile in enumerate(g.piles):
            if pile.height < 5:
                out.append(f"{pile.colour}{pile.height + 1} {i + 1} or {pile.colour}W {i + 1}")
        for c in COLOURS:
            if len(g.piles_of(c)) < g.options.max_piles_per_colour:
                out.append(f"{c}1 new or {c}W new")
        top = g.top(p)
        if top is not None:
            for a in g.actions_for(top, "discard"):
                out.append(self.describe(a))
        out.append("SK, RV, SC <player> pile|hand, CH <player> R|B if you hold them")
        out.append("x <card> to end the turn")
        return out

    def describe(self, a: Action) -> str:
        pre = "top " if a.source == "discard" else ""
        if a.kind == "play":
            return f"{pre}{a.card} {'new' if a.pile == -1 else a.pile + 1}"
        if a.kind == "special":
            if a.card == "SC":
                return f"{pre}SC {a.target + 1} {'pile' if a.choice == 'discard' else 'hand'}"
            if a.card == "CH":
                return f"{pre}CH {a.target + 1} {a.choice}"
            return pre + a.card
        if a.kind == "discard":
            return f"x {a.card}" if a.card else "end"
        return a.kind

    # --- reading a line ------------------------------------------------------------------
    def parse(self, line: str) -> Action | str | None:
        """An action, or a message to print (help, a question back), or None for nothing."""
        g = self.game
        words = line.strip().split()
        if not words:
            return None
        low = [w.lower() for w in words]
        head = low[0]
        if head in ("?", "help", "h"):
            return "legal now: " + "; ".join(self.suggestions()) + "\n" + HELP
        if head == "show":
            return self.table()
        if head in ("bl", "block"):
            blockers = g.blockers()
            if len(low) > 1:
                return Action("block", "BL", player=self._player(low[1]))
            if len(blockers) == 1:
                return Action("block", "BL", player=blockers[0])
            return "who plays Block? type BL <player>"
        if head in ("x", "discard"):
            if len(words) < 2:
                return "discard which card? e.g. x B4"
            return Action("discard", parse_card(words[1]))
        if head == "end":
            return Action("discard", "")
        src = "hand"
        if head in ("top", "t"):
            src = "discard"
            words, low = words[1:], low[1:]
            if not words:
                return "which card from the top of your discard pile? e.g. top R3 1"
        card = parse_card(words[0])
        rest = low[1:]
        if card == "BL":
            return Action("block", "BL", player=self._player(rest[0]) if rest else -1)
        if colour(card):
            if rest:
                pile = -1 if rest[0] in ("new", "n") else self._pile(rest[0])
                return Action("play", card, src, pile)
            targets = g.pile_targets(card)
            if len(targets) == 1:
                return Action("play", card, src, targets[0])
            if not targets:
                return Action("play", card, src, -1 if (is_wild(card) or number(card) == 1) else
                              self._first_of_colour(card))
            names = " or ".join("new" if t == -1 else str(t + 1) for t in targets)
            return f"{card} fits pile {names}: type {card} and the pile"
        if card == "SC":
            if len(rest) < 2 or rest[1] not in ("pile", "hand", "top", "discard"):
                return "steal from whom, and from where? e.g. SC 3 pile or SC 3 hand"
            return Action("special", "SC", src, target=self._player(rest[0]),
                          choice="hand" if rest[1] == "hand" else "discard")
        if card == "CH":
            if len(rest) < 2 or rest[1].upper() not in COLOURS:
                return "steal which chip from whom? e.g. CH 2 B"
            return Action("special", "CH", src, target=self._player(rest[0]), choice=rest[1].upper())
        return Action("special", card, src)

    def _player(self, word: str) -> int:
        try:
            p = int(word) - 1
        except ValueError:
            raise EngineError(f"{word!r} is not a player number (1 to {self.game.n})") from None
        if not 0 <= p < self.game.n:
            raise EngineError(f"there is no player {word} (1 to {self.game.n})")
        return p

    def _pile(self, word: str) -> int:
        try:
            return int(word) - 1
        except ValueError:
            raise EngineError(f"{word!r} is not a pile number (or new)") from None

    def _first_of_colour(self, card: str) -> int:
        same = self.game.piles_of(colour(card))
        return same[0] if same else -1

    # --- doing it ------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """One typed line; False when the user quits."""
        if line.strip().lower() in ("quit", "q", "exit"):
            return False
        g = self.game
        if self.waiting_block and not line.strip():
            self.waiting_block = False
            self._resolve()
            self.run_computers()
            return True
        try:
            what = self.parse(line)
        except EngineError as exc:
            self._refuse(str(exc))
            return True
        if what is None:
            return True
        if isinstance(what, str):
            self.say(what)
            return True
        if what.kind != "block" and g.pending is not None:
            self.waiting_block = False
            self._resolve()
            if g.over:
                return True
        if what.kind != "block" and self.seats[g.current] != "person":
            self._refuse(f"it is {self.who(g.current)}'s turn: the Pi plays it")
            return True
        if what.kind == "block" and what.player == -1:
            self.say("who plays Block? type BL <player>")
            return True
        self.act(what)
        self.run_computers()
        return True

    def _refuse(self, why: str) -> None:
        self.say(f"REFUSED: {why}")
        self.write({"type": "event", "event": "reject", "text": why})
        self._emit("refused", why)

    def _resolve(self) -> None:
        g = self.game
        if g.pending is None:
            return
        p = g.pending.player
        text = g.resolve()
        self.n += 1
        self.write(action_entry(self.n, p, Action("resolve"), text))
        self.say(text)
        self._emit("chip", text)
        self._after()

    def act(self, a: Action, why: str = "") -> bool:
        """Apply an action; ``why`` is the computer player's reason, shown with it."""
        g = self.game
        p = a.player if a.kind == "block" else g.current
        before = g.current
        try:
            text = g.apply(a)
        except IllegalMoveError as exc:
            self._refuse(str(exc))
            return False
        self.n += 1
        self.write(action_entry(self.n, p, a, text))
        self.say(("Pi: " if self.seats[p] != "person" else "") + text + (f"  ({why})" if why else ""))
        self._emit("block" if a.kind == "block" else "action", text)
        if g.pending is not None:
            self._block_window()
        self._after()
        if not g.over and g.current != before:
            self.say(self.table())
        return True

    def _block_window(self) -> None:
        g = self.game
        pend = g.pending
        for q in g.blockers():
            if self.seats[q] != "person" and self.players[q].block(g, q):
                self.act(Action("block", "BL", player=q), getattr(self.players[q], "last_reason", ""))
                return
        people = [q for q in g.blockers() if self.seats[q] == "person"]
        if people:
            self.waiting_block = True
            self._emit("sequence", f"{COLOUR_NAMES[pend.pile.colour]} SEQUENCE complete")
            who = ", ".join(str(q + 1) for q in people) if g.known else "any player holding one"
            self.say(f"Block? {who} may play Block now (BL <player>); Enter for none")
        else:
            self._resolve()

    def _after(self) -> None:
        g = self.game
        if g.over and not getattr(self, "_end_written", False):
            self._end_written = True        # one end line, however often this is called
            self.write(end_entry(g))
            self.say(f"GAME OVER: {g.result}")
            self._emit("over", g.result)

    def run_computers(self, limit: int = 500) -> None:
        """Let the computer seats play until a person must act."""
        g = self.game
        for _turn in range(limit):
            if g.over or self.waiting_block:
                return
            if g.pending is not None:
                self._resolve()
                continue
            p = g.current
            if self.seats[p] == "person":
                return
            player = self.players[p]
            action = player.choose(g)
            self.act(action, getattr(player, "last_reason", ""))


def completer(table: StacksTable):
    """readline completion: card codes and words."""
    codes = [c.lower() for c in ("R1", "R2", "R3", "R4", "R5", "RW", "B1", "B2", "B3", "B4", "B5",
                                 "BW", *SPECIALS)]
    vocab = sorted(set(codes + list(WORDS)))

    def complete(text: str, state: int):
        opts = [w for w in vocab if w.startswith(text.lower())]
        return opts[state] if state < len(opts) else None
    return complete


def run_table(table: StacksTable, read: Callable[[str], str]) -> None:
    """Read lines until the game ends or the user quits (EOF quits too)."""
    table.say(table.table())
    table.run_computers()
    while not table.game.over:
        try:
            line = read(table.prompt())
        except EOFError:
            table.say("")
            break
        if not table.handle(line):
            break

