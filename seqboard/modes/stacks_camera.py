"""SEQUENCE STACKS refereed from the camera: what changes on the table's spots becomes the
actions the typed mode takes (:class:`~seqboard.modes.stacks.StacksTable`).

:class:`CameraStacks` takes the changes :class:`vision.cards.stacks_table.StacksWatcher`
reports once the table is still, all of them together, and turns them into actions for the
player to move (docs/stacks.md, "From the camera"):

* a card laid on a centre pile place: laid on that pile (a new pile when the place was
  empty); when the top of the player's own discard pile was taken at the same time (or
  just before), it is the discard top that was played (``top``);
* a card laid on the discard pile of the player to move: the discard that ends the turn;
  a change there that may be its top taken or a card discarded like the one under it (the
  two can look alike) waits for what follows: the top laid on a centre pile (taken), or
  the next player's move (a discard);
* a special card laid on the out-of-play pile: Skip and Reverse at once; Steal a Card when
  another player's discard top was taken at the same time (from that pile); otherwise
  (Steal a Card from a hand, Steal a Chip, Block) the camera cannot tell the target: it asks
  for the line to be typed, as the typed mode's prompt does;
* a completed pile taken away from its place: the Block window is over, the chip is given.

Everything goes through :meth:`StacksTable.act`, so a play the engine refuses is said with
its reason, written in the record, and the card's change is held until the spot changes
again (the card taken back). A card that cannot be read waits: the terminal asks for it,
and the typed line (the typed mode stays) carries on.
"""

from __future__ import annotations

from engine.stacks import Action
from engine.stacks.cards import SPECIALS, card_name, colour

from .stacks import StacksTable

PLACE_WORD = "pile place {k}"


class CameraStacks:
    def __init__(self, table: StacksTable, watcher) -> None:
        self.table = table
        self.watcher = watcher
        self.place_pile: dict[int, object] = {}      # centre place -> the engine's Pile
        self.taken: dict[int, tuple] = {}            # seat -> the key of its taken discard top
        self.waiting: list[tuple] = []               # keys waiting for a typed line
        self.waiting_place: int | None = None        # a place whose card must be typed
        #: each discard pile's pictures as the camera saw it: [empty, after its 1st card,
        #: after its 2nd, ...] (None: not seen, e.g. typed with the camera looking away)
        self.pics: dict[int, list] = {}
        #: a discard pile's change that may be its top taken or a card discarded like the
        #: one under it: decided by the change that follows (docs/stacks.md)
        self.doubt = None
        #: changes put off until a typed line answers what was asked before them
        self.deferred: list = []
        self.unread_out = False                  # an unread card on the out-of-play pile
        self._accepted: set = set()

    # --- helpers --------------------------------------------------------------------------
    @property
    def game(self):
        return self.table.game

    def say(self, text: str) -> None:
        self.table.say(text)

    def _pile_index(self, place: int):
        """The engine's index of the pile on ``place``: -1 for a new pile, None when the
        place still holds a completed SEQUENCE."""
        pile = self.place_pile.get(place)
        if pile is None:
            return -1
        for i, p in enumerate(self.game.piles):
            if p is pile:
                return i
        return None

    def _unplaced(self, place: int, card: str) -> int:
        """A card on a place the camera knows no pile on: the one pile typed in (not tied to
        a place) that it fits, tied to this place from now on; -1 (a new pile) otherwise."""
        g = self.game
        tied = list(self.place_pile.values())
        free = [i for i, p in enumerate(g.piles) if all(p is not q for q in tied)]
        fits = [i for i in g.pile_targets(card) if i in free]
        return fits[0] if len(fits) == 1 else -1

    def _accept(self, key) -> None:
        self.watcher.accept(key)
        self._accepted.add(key)
        if key in self.waiting:                  # read after all (the hand gone from it)
            self.waiting.remove(key)
            if key == ("place", self.waiting_place):
                self.waiting_place = None

    def _pics(self, seat: int) -> list:
        """The pictures of ``seat``'s discard pile, one more than its cards (the empty spot
        first); pictures not seen (a typed line) are None."""
        n = len(self.game.discards[seat]) + 1
        pics = self.pics.get(seat)
        if pics is None:
            first = getattr(self.watcher, "_first", {}).get(("discard", seat))
            pics = self.pics[seat] = [first]
        del pics[n:]
        while len(pics) < n:
            pics.append(None)
        return pics

    def _note(self) -> None:
        """After the game took changes: the discard piles' pictures follow their cards, the
        last one being what the camera shows now for the piles it accepted."""
        for seat in range(self.game.n):
            pics = self._pics(seat)
            key = ("discard", seat)
            if key in self._accepted:
                picture = getattr(self.watcher, "picture", lambda k: None)(key)
                pics[-1] = None if picture is None else picture.copy()
        self._accepted.clear()

    def _close_block_window(self) -> None:
        t = self.table
        if self.game.pending is not None:
            t.waiting_block = False
            t._resolve()

    def _act(self, a: Action, keys: list) -> bool:
        g = self.game
        if a.kind != "block" and g.pending is not None:
            self._close_block_window()
            if g.over:
                return False
        ok = self.table.act(a)
        for k in keys:
            (self._accept if ok else self.watcher.hold)(k)
        return ok

    def _ask(self, key, text: str) -> None:
        self.watcher.hold(key)
        if key not in self.waiting:
            self.waiting.append(key)
        self.say(text)

    # --- the frames -----------------------------------------------------------------------
    def frame(self, img) -> None:
        """One camera frame: the changes, once the table is still, become actions."""
        changes = self.watcher.update(img)
        for key in self.watcher.restored:       # a card taken back: nothing waits there
            if key[0] == "discard" and self.taken.get(key[1]) == key:
                del self.taken[key[1]]
            if self.doubt is not None and self.doubt.key == key:
                self.doubt = None               # the discard pile as it was: nothing happened
            if key in self.waiting:
                self.waiting.remove(key)
        self.watcher.restored = []
        problem = getattr(self.watcher, "problem", None)
        if problem and not getattr(self, "_problem_said", False):
            self._problem_said = True
            self.say(problem)
        if changes:
            self.changes(changes)

    def changes(self, changes: list) -> None:
        g = self.game
        if g.over:
            return
        for c in changes:
            c.kind = self._kind(c)
        doubts = [c for c in changes if c.kind == "doubt"]
        if doubts and self.doubt is None and len(changes) > 1:
            # the pile in doubt and other changes in one still moment: those tell
            self.doubt = doubts[0]
            self.watcher.hold(doubts[0].key)
            changes = [c for c in changes if c is not doubts[0]]
        changes = self._follow(changes)
        if changes:
            self._take(changes)
        self._note()
        if self.deferred and not self.waiting and not self.unread_out and self.doubt is None:
            later, self.deferred = self.deferred, []     # what waited is not waiting any more
            self.changes(later)

    def _take(self, changes: list) -> None:
        g = self.game
        by = {"place": [], "out": [], "discard": []}
        for c in changes:
            by[c.key[0]].append(c)
        # tops taken from discard piles: remembered until a card is laid with them
        for c in [c for c in by["discard"] if c.kind == "taken"]:
            self.taken[c.key[1]] = c.key
        for c in [c for c in by["place"] if c.kind == "laid"]:
            self._laid_on_place(c)
        for c in by["out"]:
            if c.kind == "laid":
                self._laid_out(c)
            else:
                self._accept(c.key)
        for c in [c for c in by["place"] if c.kind == "taken"]:
            self._taken_from_place(c)
        for c in [c for c in by["place"] if c.kind == "again"]:
            self._accept(c.key)
        for c in [c for c in by["discard"] if c.kind in ("laid", "doubt")]:
            if c.kind == "doubt":
                self._doubt(c)
            else:
                self._discarded(c)
        self.table.run_computers()
        for seat, key in list(self.taken.items()):
            if key in [c.key for c in by["discard"] if c.kind == "taken"] and seat == g.current \
                    and not g.over:
                self.say(f"the top of {g.name(seat)}'s discard pile was taken: lay it on a "
                         f"pile, or put it back")

    #: a discard pile whose picture differs from the one it showed before its top was laid
    #: by less than this (% of its square) shows that picture again: its top was taken
    #: (or the same card discarded again exactly where the one below lies: what follows
    #: tells)
    SAME_PICTURE = 1.0
    #: ... by more than this: a new card lies on it (laid, even when alike the one below)
    NEW_PICTURE = 8.0

    @staticmethod
    def _seen_again(c, cards: list) -> bool:
        """(session eleven) The pile's top read again where it lay, the same card before and
        after (a hand that rested on it gone: the corner indices read a card under a hand),
        not a card laid on it: nothing to do. (Session twelve) Only when the card after is
        named by its middle glyph (the hand gone from it): named by a corner index alone, it
        may be a card below whose index shows beside a new card alike it (a wild laid on a
        wild of its colour, the new one's middle not read): a card laid."""
        from vision.cards.stacks_table import same_place

        laid, taken = c.laid, c.taken
        return bool(cards) and laid.code is not None and laid.code == taken.code == cards[-1] \
            and getattr(laid, "way", "middle") == "middle" \
            and same_place((laid.quad, getattr(laid, "width", 1)),
                           (taken.quad, getattr(taken, "width", 1)))

    def _kind(self, c) -> str:
        """Laid, taken, or (a discard pile of the player to move) "doubt": its top taken or a
        card discarded like the one under it, to be told by what follows. The picture and the
        card read tell first: a top taken shows the pile as it was before that top was laid
        (the camera keeps that picture), a card read that is not the one under the top was
        laid."""
        g = self.game
        kind, where = c.key
        laid = c.laid.code
        c.likely = None
        if kind == "out":
            return "laid"
        empty = getattr(self.watcher, "looks_empty", lambda key: False)(c.key)
        if kind == "place":
            if self.place_pile.get(where) is None:
                return "laid"                    # nothing known there: a card laid
            if self._pile_index(where) is None:
                return "taken"                   # a completed SEQUENCE: only taken away
            if not empty and self._seen_again(c, self.place_pile[where].cards):
                return "again"
            return "taken" if empty else "laid"  # a pile being built grows, unless gone
        cards = g.discards[where]
        if not cards:
            return "laid"
        if empty:
            return "taken"                       # its last card taken
        pics = self._pics(where)
        likeness = getattr(self.watcher, "likeness", lambda k, p: None)
        d = likeness(c.key, pics[-2])            # the pile before its top was laid
        below = cards[-2] if len(cards) > 1 else None
        if laid is not None and laid != below:
            return "laid"
        if d is not None and d >= self.NEW_PICTURE:
            return "laid"                        # a card alike the one below, elsewhere
        if where != g.current:                   # (Steal a Card takes another's top)
            return "taken" if d is not None and d < self.SAME_PICTURE else c.kind
        c.likely = "taken" if d is not None and d < self.SAME_PICTURE else None
        return "doubt"

    def _doubt(self, c) -> None:
        """A discard pile's change that may be either: nothing is decided yet."""
        self.watcher.hold(c.key)
        self.doubt = c
        name = self.game.name(c.key[1])
        if c.likely == "taken":
            self.say(f"the top of {name}'s discard pile was taken: lay it on a pile, or put "
                     f"it back (a card discarded there like the one under it: the next move "
                     f"tells)")
        else:
            self.say(f"{name}'s discard pile changed: its top taken or a card discarded? the "
                     f"next move tells")

    def _follow(self, changes: list) -> list:
        """A discard pile in doubt decided by the changes that follow: its top laid on a
        centre pile by the same player (it was taken), the same card laid back (put back),
        or anything else (the next player's move: it was a discard). The changes left to take
        in; [] when they wait for a typed line."""
        d = self.doubt
        if d is None:
            return changes
        g = self.game
        seat = d.key[1]
        top = g.top(seat)
        self.doubt = None
        again = [c for c in changes if c.key == d.key]
        if again:
            c = again[0]
            if c.laid.code is not None and c.laid.code == top:   # the top laid back
                self._accept(c.key)
                return [x for x in changes if x is not c]
            return changes                       # the pile changed again: what it shows decides
        lays = [c for c in changes if c.key[0] == "place" and c.kind == "laid"]
        if g.current == seat and top is not None and lays:
            codes = [c.laid.code for c in lays]
            if top in codes or (d.likely == "taken" and all(x is None for x in codes)):
                d.kind = "taken"                 # the top is on a pile now: it was taken
                return [d] + changes
            if all(code is None for code in codes):
                self.watcher.hold(d.key)
                self.waiting.append(d.key)
                self.deferred += changes
                self.say(f"{g.name(seat)}'s discard pile changed and the card laid on "
                         f"{PLACE_WORD.format(k=lays[0].key[1] + 1)} cannot be read: type what "
                         f"{g.name(seat)} did: top {top} <pile> (the top played), or x <card> "
                         f"(a discard)")
                return []
        d.kind = "laid"                          # anything else follows a discard
        if d.likely == "taken" and d.laid.code is None and len(g.discards[seat]) > 1:
            # the pile looks as it did with the card under the top on top: that card again
            d.laid.code = g.discards[seat][-2]
        if not self._discarded(d):
            self.deferred += changes              # the discard typed first, then the rest
            return []
        for c in changes:                        # told again: the next player is to move
            c.kind = self._kind(c)
        return changes

    def _laid_on_place(self, c) -> None:
        g = self.game
        k = c.key[1]
        p = g.current
        card = c.reading.code
        keys = [c.key]
        source = "hand"
        if p in self.taken and g.top(p) is not None and card in (None, g.top(p)):
            source = "discard"
            card = g.top(p)                      # the engine knows the top: no reading needed
            keys.append(self.taken.pop(p))
        where = PLACE_WORD.format(k=k + 1)
        if card is None:
            self.waiting_place = k
            idx = self._pile_index(k)
            pile = "new" if idx in (-1, None) else str(idx + 1)
            why = f" ({c.reading.reason})" if c.reading.reason else ""
            self._ask(c.key, f"the card laid on {where} cannot be read{why}: type it, "
                             f"e.g. R1 {pile}")
            return
        if colour(card) is None:
            self.watcher.hold(c.key)
            self.table._refuse(f"{card_name(card)} was laid on {where}: a special card is "
                               f"played on the out-of-play pile")
            return
        idx = self._pile_index(k)
        if idx == -1:
            idx = self._unplaced(k, card)
        if idx is None:
            self.watcher.hold(c.key)
            self.table._refuse(f"{where} still holds a completed SEQUENCE: take it away "
                               f"before building there")
            return
        before = list(g.piles)
        target = g.piles[idx] if idx >= 0 else None
        if self._act(Action("play", card, source, idx), keys):
            if idx == -1:
                new = [p for p in g.piles if all(p is not q for q in before)]
                if new:
                    self.place_pile[k] = new[0]
            elif k not in self.place_pile:
                self.place_pile[k] = target

    def _laid_out(self, c) -> None:
        g = self.game
        card = c.reading.code
        if card is None:
            # (a Block, maybe: the SEQUENCE's window stays open until it is typed)
            self.unread_out = g.pending is not None
            self._ask(c.key, "the card put on the out-of-play pile cannot be read: type the "
                             "special card played (SK, RV, SC <player> pile|hand, "
                             "CH <player> R|B, BL <player>)")
            return
        if card not in SPECIALS:                 # a completed pile set aside
            self._accept(c.key)
            return
        self.unread_out = False
        if card in ("SK", "RV"):
            self._act(Action("special", card), [c.key])
            return
        if card == "SC":
            others = [s for s in self.taken if s != g.current]
            if len(others) == 1:
                s = others[0]
                self._act(Action("special", "SC", target=s, choice="discard"),
                          [c.key, self.taken.pop(s)])
                return
            self._ask(c.key, "Steal a Card on the out-of-play pile: from whom? type SC <player> "
                             "hand (or SC <player> pile)")
            return
        if card == "CH":
            self._ask(c.key, "Steal a Chip on the out-of-play pile: type CH <player> R|B "
                             "(whose chip, which colour)")
            return
        # Block: out of turn, by whoever holds it
        if g.pending is not None and g.n == 2:
            self._act(Action("block", "BL", player=1 - g.pending.player), [c.key])
            return
        self._ask(c.key, "Block on the out-of-play pile: who played it? type BL <player>")

    def _taken_from_place(self, c) -> None:
        g = self.game
        k = c.key[1]
        pile = self.place_pile.get(k)
        if pile is None:
            self._accept(c.key)
            return
        idx = self._pile_index(k)
        if idx is not None and idx >= 0:
            self.watcher.hold(c.key)
            self.table._refuse(f"pile {idx + 1} was taken away from {PLACE_WORD.format(k=k + 1)}, "
                               f"but it is not complete: put it back")
            return
        # a completed SEQUENCE set aside: the Block window is over, unless the card played
        # on the out-of-play pile meanwhile is not read yet (a Block?): then after the line
        if g.pending is not None and g.pending.pile is pile:
            if self.unread_out:
                self.watcher.hold(c.key)
                self.deferred.append(c)
                return
            self._close_block_window()
        del self.place_pile[k]
        self._accept(c.key)

    def _discarded(self, c) -> bool:
        """A card laid on a discard pile; False when it waits for a typed line."""
        g = self.game
        seat = c.key[1]
        card = c.reading.code
        if seat in self.taken and card is not None and card == g.top(seat):
            # the top taken from it and laid back (not played): nothing happened
            self._accept(self.taken.pop(seat))
            self._accept(c.key)
            return True
        if card is None:
            self._ask(c.key, f"the card {g.name(seat)} laid on their discard pile cannot be "
                             f"read: type it, e.g. x B4")
            return False
        self._act(Action("discard", card, player=seat), [c.key])
        return True

    # --- typed lines ----------------------------------------------------------------------
    def line(self, text: str) -> bool:
        """A typed line (the typed mode stays); a card the camera waited for is then taken
        as what was typed, and the changes put off behind it are taken in. False when the
        user quits."""
        g = self.game
        before_piles = list(g.piles)
        n = self.table.n
        h = len(g.history)
        go_on = self.table.handle(text)
        if self.table.n > n and (self.waiting or self.deferred):
            self.unread_out = False
            done = [a for _, a in g.history[h:]]
            deferred, self.deferred = self.deferred, []
            if done and done[0].kind == "play" and done[0].source == "discard":
                # the discard top was played: the unreadable card on the place was it
                for c in deferred:
                    if c.key[0] == "place" and c.kind == "laid" and \
                            c.laid.code in (None, done[0].card):
                        deferred.remove(c)
                        self.waiting.append(c.key)
                        self.waiting_place = c.key[1]
                        break
            if self.waiting_place is not None:
                new = [p for p in g.piles if all(p is not q for q in before_piles)]
                if new:
                    self.place_pile[self.waiting_place] = new[0]
                elif g.pending is not None and all(g.pending.pile is not q for q in before_piles):
                    self.place_pile[self.waiting_place] = g.pending.pile
                elif done and done[0].kind == "play" and 0 <= done[0].pile < len(g.piles) \
                        and self.waiting_place not in self.place_pile:
                    self.place_pile[self.waiting_place] = g.piles[done[0].pile]
            for k in list(self.waiting):
                self._accept(k)
            self.waiting.clear()
            self.waiting_place = None
            self._note()
            if deferred:
                self.changes(deferred)
        else:
            self._note()
        return go_on

# --- the command: learning the spots, opening the camera, the loop ----------------------------

def _spots_path(args, cfg):
    from pathlib import Path

    from vision.cards.piles import piles_path
    return Path(args.piles) if args.piles else piles_path(cfg.expand("camera.calibration"))


def learn_spots(args, cfg):
    """``--place``, ``--out-of-play`` and ``--pile`` written into the piles file (what it
    held kept); the problems of each spot (out of view, too small) said. Returns its path."""
    import sys

    from vision.cards.piles import PileError, PileSpot, load_spots, parse_spot, spot_problems
    from vision.cards.stacks_table import MAX_PLACES, StacksSpots, load_stacks_spots, \
        parse_xy, save_stacks_spots

    from ..errors import UserError
    path = _spots_path(args, cfg)
    spots = StacksSpots([], None, [], (int(cfg["camera.width"]), int(cfg["camera.height"])))
    try:
        if path.exists():
            spots.discards, spots.size = load_spots(path)
            try:
                old = load_stacks_spots(path)
                spots.places, spots.out_of_play = old.places, old.out_of_play
            except PileError:
                pass                      # no centre places yet: they are being learnt
        places = {s.seat: s for s in spots.places}
        for text in args.place or []:
            n, _, rest = text.partition(":")
            if not n.isdigit() or not 1 <= int(n) <= MAX_PLACES:
                raise PileError(f"--place {text[:40]!r}: expected N:X,Y,CARD_PX with N from 1 "
                                f"to {MAX_PLACES}, e.g. 1:400,300,150")
            places[int(n) - 1] = PileSpot(int(n) - 1, *parse_xy(rest, "--place"))
        spots.places = [places[k] for k in sorted(places)]
        if args.out_of_play is not None:
            spots.out_of_play = PileSpot(0, *parse_xy(args.out_of_play, "--out-of-play"))
        seats = {s.seat: s for s in spots.discards}
        for text in args.pile or []:
            try:
                sp = parse_spot(text)
                parse_xy(f"{sp.x},{sp.y},{sp.card_px}", "--pile")
            except PileError as exc:
                raise PileError(f"--pile {text[:40]!r}: {str(exc).split(': ', 1)[-1]}") from None
            seats[sp.seat] = sp
        cards = [("place", t) for t in args.place_card or []] + \
            [("out", f"1:{args.out_of_play_card}")] * (args.out_of_play_card is not None) + \
            [("discard", t) for t in args.pile_card or []]
        if cards:
            from vision.cards.piles import spot_from_card

            from ..inputs import load_image
            opt = {"place": "--place-card", "out": "--out-of-play-card", "discard": "--pile-card"}
            if not args.image:
                raise UserError(f"{opt[cards[0][0]]}: needs --image, the same view without "
                                f"the cards")
            empty = load_image(args.image, "image of the table without cards")
            spots.size = (int(empty.shape[1]), int(empty.shape[0]))
            for kind, text in cards:
                n, _, file = text.partition(":")
                if not n.isdigit() or not 1 <= int(n) <= (MAX_PLACES if kind == "place" else 6) \
                        or not file:
                    raise UserError(f"{opt[kind]}: {text[:60]!r}: expected "
                                    f"{'N' if kind == 'place' else 'SEAT'}:FILE, e.g. 1:card1.jpg")
                after = load_image(file, "image with a card laid")
                try:
                    sp = spot_from_card(empty, after, int(n) - 1)
                except PileError as exc:
                    raise UserError(f"{opt[kind]}: {file}: {exc}") from None
                if kind == "place":
                    places[sp.seat] = sp
                elif kind == "out":
                    spots.out_of_play = PileSpot(0, sp.x, sp.y, sp.card_px)
                else:
                    seats[sp.seat] = sp
            spots.places = [places[k] for k in sorted(places)]
        spots.discards = [seats[k] for k in sorted(seats)]
        save_stacks_spots(path, spots)
    except PileError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"--piles {path}: cannot write: {exc.strerror}") from None
    w, h = spots.size
    for key, sp in spots.keyed():
        for problem in spot_problems(sp, (h, w)):
            name = {"place": f"pile place {key[1] + 1}", "out": "the out-of-play pile",
                    "discard": f"seat {key[1] + 1}'s pile"}[key[0]]
            print(f"warning: {problem.replace(f'seat {sp.seat + 1}' + chr(39) + 's pile', name)}",
                  file=sys.stderr)
    print(f"spots saved in {path}: {len(spots.places)} centre pile places, "
          f"{'an' if spots.out_of_play else 'no'} out-of-play pile, "
          f"{len(spots.discards)} discard piles", flush=True)
    return path


def open_camera(args, cfg, path=None):
    """(the frames, the watcher) for ``seqboard stacks --camera``; UserError (one line) for
    a missing or bad piles file or camera."""
    from vision.cards.piles import PileError
    from vision.cards.stacks_table import StacksWatcher, load_stacks_spots
    from vision.sources import FrameSourceError, open_frames

    from ..errors import UserError
    path = path or _spots_path(args, cfg)
    if not path.exists():
        raise UserError(f"--piles: no spots file at {path}: learn the table's spots first "
                        f"(seqboard stacks --place, --out-of-play, --pile; docs/stacks.md)")
    try:
        spots = load_stacks_spots(path, players=args.players)
    except PileError as exc:
        raise UserError(str(exc)) from None
    device = cfg["camera.device"]
    try:
        frames = open_frames(device, width=cfg["camera.width"], height=cfg["camera.height"],
                             fps=cfg["camera.fps"], speed=0)
    except FrameSourceError as exc:
        raise UserError(f"camera.device: {exc}") from None
    from vision.cards.stacks_reader import prototypes
    prototypes()                          # drawn now, not when the first card is laid
    watcher = StacksWatcher(spots, still=getattr(frames, "still", None))
    watcher.size = spots.size
    watcher.path = path
    return frames, watcher


def run_camera(cam: CameraStacks, frames, stall: float = 10.0) -> None:
    """Frames from the camera and lines from the terminal, until the game ends, ``quit``
    is typed or a recorded source (a folder, a video) ends."""
    import queue
    import sys
    import threading
    import time

    from ..errors import UserError
    lines: queue.Queue = queue.Queue()

    def read_lines():
        try:
            for line in sys.stdin:
                lines.put(line)
        except (OSError, ValueError):     # no terminal (a service): the camera alone
            return

    threading.Thread(target=read_lines, daemon=True).start()
    t = cam.table
    t.say(t.table())
    t.say("the camera watches the table; type a line at any time (? for help)")
    checked = False
    last = time.monotonic()
    try:
        while not cam.game.over:
            frame = frames.read()
            if frame is None:
                if getattr(frames, "finished", False):
                    t.say("the camera's frames ended")
                    return
                if time.monotonic() - last > stall:
                    raise UserError(f"camera.device: no frame for {stall:.0f} s; the record "
                                    f"is kept")
                time.sleep(0.05)
            else:
                last = time.monotonic()
                if not checked:
                    checked = True
                    size = getattr(cam.watcher, "size", None)
                    if size and (frame.shape[1], frame.shape[0]) != tuple(size):
                        raise UserError(f"{getattr(cam.watcher, 'path', 'the piles file')}: the "
                                        f"spots were learnt in {size[0]} x {size[1]} pictures, "
                                        f"the camera gives {frame.shape[1]} x {frame.shape[0]}")
                cam.frame(frame)
            while not lines.empty():
                if not cam.line(lines.get()):
                    return
    finally:
        frames.close()
