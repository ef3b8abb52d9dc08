"""Search players for the board editions: what a seat at the table knows, a fitted
evaluation, play-outs in dealt worlds, levels, a reason for every move, and hints.

The player never looks at another player's hand or at the order of the deck. It scores
every move of its hand by the position it leaves (:func:`evaluate`: the log-odds of
winning, from features of each team's windows, the cards it holds for them and the
chances the others hold theirs, given the unseen cards and what their moves showed they
lack). At the hard level the best few are then played on to the end in worlds dealt
from the unseen cards (every card of the deck neither in its hand nor on a discard pile,
dealt at random into the other hands at their real sizes and into the deck), the same
worlds for each; another move replaces the evaluation's choice only when it wins clearly
more often, deal by deal. ``docs/players.md`` gives the design and the measurements that
led to it (a full information-set tree was weaker).

The engine stays pure: the player owns a seeded generator, and a wall-clock budget is
used only when the caller passes a ``clock`` (``time.monotonic`` in the app). Without a
clock the iteration budget of the level alone decides, and the same seed gives the same
move.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from .board import EMPTY, FREE
from .game import Game
from .layout import Layout
from .moves import Move


#: Levels: an iteration budget (moves ranked, worlds played out) and a time cap.
@dataclass(frozen=True)
class Level:
    name: str
    #: moves ranked by the evaluation (one ply, every move of the hand considered)
    candidates: int
    #: dealt worlds in which the best few are played out to the end (0: none)
    deals: int
    #: seconds the play-outs may take at most, when the caller passes a clock (the one-ply
    #: ranking always completes: a few milliseconds)
    seconds: float
    #: how often a move is picked at random among the best ``slip_among`` (a kinder opponent)
    slip: float = 0.0
    slip_among: int = 3
    #: how many of the best are played out
    playout_candidates: int = 3
    #: how much more often (a share of the deals) a played-out move must win to be chosen
    margin: float = 0.1


LEVELS = {
    "easy": Level("easy", 6, 0, 0.0, slip=0.5, slip_among=6),
    "medium": Level("medium", 12, 0, 0.0),
    "hard": Level("hard", 12, 24, 1.0),
}

# --- geometry ---------------------------------------------------------------------------
class Geometry:
    """Every window of ``k`` spaces in a line, and the windows through each space."""

    def __init__(self, layout: Layout, k: int) -> None:
        self.k = k
        self.windows: list[tuple[int, ...]] = []
        #: each window as a bit mask (bit i: space i)
        self.masks: list[int] = []
        self.window_dir: list[int] = []
        self.window_line: list[int] = []
        self.by_cell: list[list[int]] = [[] for _ in range(layout.size)]
        self.lines: list[tuple[int, ...]] = []
        self.line_windows: list[list[int]] = []
        for d, line in layout.directed_lines(k):
            li = len(self.lines)
            self.lines.append(line)
            ids = []
            for start in range(len(line) - k + 1):
                w = line[start:start + k]
                wi = len(self.windows)
                self.windows.append(w)
                self.masks.append(sum(1 << c for c in w))
                self.window_dir.append(d)
                self.window_line.append(li)
                ids.append(wi)
                for c in w:
                    self.by_cell[c].append(wi)
            self.line_windows.append(ids)


def geometry(game: Game) -> Geometry:
    """The game's windows, built once per layout and sequence length."""
    cache = game.layout.__dict__.setdefault("_search_geometry", {})
    k = game.board.k
    geo = cache.get(k)
    if geo is None:
        geo = cache[k] = Geometry(game.layout, k)
    return geo


# --- a fast rules-of-thumb policy (the greedy player's weights, precomputed windows) -----
BUILD = (1.0, 4.0, 20.0, 120.0, 1000.0, 1000.0)
BLOCK = (0.5, 3.0, 15.0, 400.0, 2000.0, 2000.0)
WILD_COST = 60.0
REMOVE_COST = 80.0
WIN = 1e6
#: A play-out that has not ended after this many moves counts as a draw (chips removed
#: and put back could, in principle, go on for ever).
PLAYOUT_PLIES = 600


def place_score(game: Game, geo: Geometry, s: int, team: int) -> float:
    cells = game.board.cells
    own = team + 1
    score = 0.0
    windows = geo.windows
    for wi in geo.by_cell[s]:
        o = f = other = 0
        otherv = 0
        mixed = False
        for c in windows[wi]:
            v = cells[c]
            if v == EMPTY:
                continue
            if v == FREE:
                f += 1
            elif v == own:
                o += 1
            else:
                if otherv and v != otherv:
                    mixed = True
                otherv = v
                other += 1
        if not other:
            score += BUILD[o + f]
        elif not o and not mixed:
            score += BLOCK[other + f]
    gained = game.board.gain(s, team)
    if gained:
        score += 10000.0 * gained
        if game.board.counts[team] + gained >= game.to_win:
            score += WIN
    return score


def remove_score(game: Game, geo: Geometry, s: int) -> float:
    cells = game.board.cells
    victim = cells[s]
    score = 0.0
    for wi in geo.by_cell[s]:
        n = f = 0
        for c in geo.windows[wi]:
            v = cells[c]
            if v == FREE:
                f += 1
            elif v == victim:
                n += 1
            elif v != EMPTY:
                n = -99
                break
        if n > 0:
            score += BLOCK[min(n + f, 5)]
    return score


def _scored(game: Game, geo: Geometry):
    """Every placement and removal of the player to move as (score, action, card, space),
    in hand order; a wild jack's targets are scored once."""
    team = game.team
    seen: set[str] = set()
    wild_scores = None
    for card in game.hands[game.current]:
        if card in seen:
            continue
        seen.add(card)
        if card in game._wild:
            if wild_scores is None:
                wild_scores = [(place_score(game, geo, s, team) - WILD_COST, s)
                               for s in game.targets(card, team)]
            for sc, s in wild_scores:
                yield sc, "place", card, s
        elif card in game._remove:
            for s in game.targets(card, team):
                yield remove_score(game, geo, s) - REMOVE_COST, "remove", card, s
        else:
            for s in game.targets(card, team):
                yield place_score(game, geo, s, team), "place", card, s


def ranked_moves(game: Game, geo: Geometry) -> list[tuple[float, Move]]:
    """Every placement and removal of the player to move, scored by the rules of thumb
    (the greedy player's), best first; ties keep hand order."""
    out = [(sc, Move(a, card, s)) for sc, a, card, s in _scored(game, geo)]
    out.sort(key=lambda x: -x[0])
    return out


def policy_move(game: Game, geo: Geometry) -> Move:
    """The play-out policy: a dead card first, else the first best-scored move."""
    if not game.dead_traded:
        for card in game.hands[game.current]:
            if game.is_dead(card):
                return Move("dead", card)
    best = None
    best_s = -1e18
    for sc, a, card, s in _scored(game, geo):
        if sc > best_s:
            best, best_s = (a, card, s), sc
    return Move(*best) if best else Move("pass")


# --- the evaluation -------------------------------------------------------------------
class Holding:
    """What a team may play: the chance it holds each board card, and its jacks."""

    __slots__ = ("p", "removes", "wilds")

    def __init__(self, p: dict[str, float], wilds: float, removes: float) -> None:
        self.p = p
        self.wilds = wilds
        self.removes = removes

    @classmethod
    def known(cls, game: Game, team: int) -> Holding:
        """Every hand of ``team`` seen (a dealt world)."""
        return cls.known_hand(game, [card for pl in range(team, game.n_players, game.n_teams)
                                     for card in game.hands[pl]])

    @classmethod
    def belief(cls, game: Game, team: int, seat: int, unseen: Counter,
               lacks: dict[int, dict[str, int]] | None = None) -> Holding:
        """For the hands ``seat`` cannot see: chances from the unseen cards (its own hand
        is known exactly). ``lacks[player]`` names cards (and ``*wild``, ``*remove``) that
        player showed it did not hold, each with the number of cards it has drawn since
        (see :func:`shown_lacks`): such a card is only as likely as those draws make it,
        and the cards it may have held all along share the rest of its hand."""
        own = cls.known_hand(game, game.hands[seat]) if seat % game.n_teams == team else None
        total = sum(unseen.values())
        miss: dict[str, float] = {}
        wilds = removes = 0.0
        if total:
            for pl in range(team, game.n_players, game.n_teams):
                h = len(game.hands[pl])
                if pl == seat or not h:
                    continue
                q_of = copy_chances(game, pl, unseen, lacks)
                for card, u in unseen.items():
                    if u <= 0:
                        continue
                    q = q_of[card]
                    if card in game._wild:
                        wilds += u * q
                    elif card in game._remove:
                        removes += u * q
                    else:
                        miss[card] = miss.get(card, 1.0) * (1.0 - q) ** u
        p = {card: 1.0 - m for card, m in miss.items()}
        if own is not None:
            p.update(own.p)
            wilds += own.wilds
            removes += own.removes
        return cls(p, wilds, removes)

    @classmethod
    def known_hand(cls, game: Game, hand: list[str]) -> Holding:
        """The cards of ``hand``, held for sure."""
        p: dict[str, float] = {}
        wilds = removes = 0
        for card in hand:
            if card in game._wild:
                wilds += 1
            elif card in game._remove:
                removes += 1
            else:
                p[card] = 1.0
        return cls(p, wilds, removes)


def copy_chances(game: Game, pl: int, unseen: Counter,
                 lacks: dict[int, dict[str, int]] | None) -> dict[str, float]:
    """The chance player ``pl`` holds one given unseen copy of each card: a card it showed
    it lacked only as much as its draws since allow, the cards it may have held all along
    sharing the rest of its hand (see :func:`shown_lacks`)."""
    h = len(game.hands[pl])
    total = sum(unseen.values())
    lack = lacks.get(pl, {}) if lacks else {}
    out: dict[str, float] = {}
    kept = 0
    rest = float(h)
    for card, u in unseen.items():
        if u <= 0:
            continue
        key = "*wild" if card in game._wild else "*remove" if card in game._remove else card
        d = lack.get(key)
        if d is None:
            kept += u
        else:
            out[card] = min(d, h) / total
            rest -= u * out[card]
    share = min(1.0, max(rest, 0.0) / kept) if kept else 0.0
    for card, u in unseen.items():
        if u > 0 and card not in out:
            out[card] = share
    return out


def _sequence_masks(game: Game, team: int) -> list[int]:
    """The bit masks of ``team``'s sequences."""
    free = game.board.free_mask
    return [sum(1 << c for c in q.spaces) & ~free for q in game.board.sequences if q.team == team]


#: Names of the features of one team's position (see :func:`team_features`).
FEATURES = ("sequences", "wilds", "removes",
            "open_4", "open_3", "open_2", "open_1",      # open windows by chips in them
            "fill_4", "fill_3", "fill_2", "fill_1",      # the same, by the share it can fill
            "spent_4", "spent_3", "spent_2", "spent_1",  # windows needing a card all spent
            "gaps", "sure", "threat", "last_sure", "one_to_go")


def team_features(game: Game, geo: Geometry, t: int, hold: Holding, to_move: bool,
                  mover: Holding | None = None, gone: frozenset = frozenset()) -> list[float]:
    """How far team ``t`` is on the way to its sequences, as the numbers of FEATURES.

    Windows are counted by the chips of ``t`` in them (free corners count; a window with
    another team's chip is closed); the fills say how many of the empty spaces ``t`` holds
    cards for (``hold``: its chances). A four's gap is where a sequence would complete:
    ``sure`` is the best chance the team to move completes one now; ``threat`` the chance
    a four survives the other team's turn (it stops one at most, with the card or a jack).
    """
    cells = game.board.cells
    symbols = game._symbols
    k = geo.k
    v = t + 1
    p = hold.p
    wilds = hold.wilds
    f = [0.0] * len(FEATURES)
    f[0] = game.board.counts[t]
    f[1] = hold.wilds
    f[2] = hold.removes
    # windows that share more spaces with one of the team's sequences than the rules let
    # a new sequence share can never be one
    spent = _sequence_masks(game, t) if game.board.counts[t] else None
    lim = game.board.max_shared
    wmasks = geo.masks
    fours: dict[int, float] = {}
    for wi, w in enumerate(geo.windows):
        n = 0
        fill = 0.0
        lost = 0
        gap = -1
        for c in w:
            x = cells[c]
            if x == v or x == FREE:
                n += 1
            elif x == EMPTY:
                sym = symbols[c]
                q = p.get(sym, 0.0)
                fill += q
                gap = c
                if not q and sym in gone:
                    lost += 1
            else:
                n = -1
                break
        if n <= 0 or n >= k:
            continue
        if spent:
            wm = wmasks[wi]
            if any((wm & m).bit_count() > lim for m in spent):
                continue
        missing = k - n                       # 1: a four (with k = 5)
        if missing > 4:
            continue
        frac = (fill + wilds) / missing
        frac = min(frac, 1.0)
        if lost:
            f[10 + missing] += 1.0
            continue
        f[2 + missing] += 1.0
        f[6 + missing] += frac
        if missing == 1 and frac > fours.get(gap, -1.0):
            fours[gap] = frac
    if fours:
        f[15] = len(fours)
        if to_move:
            f[16] = max(fours.values())
        elif mover is not None:
            jack = min(1.0, mover.wilds + mover.removes)
            chances = sorted((fr * (1.0 - min(1.0, mover.p.get(symbols[c], 0.0) + jack))
                              for c, fr in fours.items()), reverse=True)
            got = chances[0]
            if len(fours) >= 2:
                got = max(got, sorted(fours.values(), reverse=True)[1] * (1.0 - jack))
            f[17] = got
        if game.board.counts[t] + 1 >= game.to_win:
            f[18] = f[16] + f[17]
    f[19] = 1.0 if game.board.counts[t] + 1 >= game.to_win else 0.0
    return f


def position_features(game: Game, geo: Geometry, team: int, holds: list[Holding],
                      gone: frozenset = frozenset()) -> list[float]:
    """The features of ``team`` followed by the other teams' (their mean)."""
    to_move = game.team
    mine = team_features(game, geo, team, holds[team], team == to_move, holds[to_move], gone)
    others = [team_features(game, geo, t, holds[t], t == to_move, holds[to_move], gone)
              for t in range(game.n_teams) if t != team]
    theirs = [sum(col) / len(others) for col in zip(*others)]
    return mine + theirs


#: The names of the evaluation's weights, in the order of position_features.
WEIGHT_NAMES = tuple(f"own_{n}" for n in FEATURES) + tuple(f"other_{n}" for n in FEATURES)


def weights_from(text: str) -> list[float]:
    """The evaluation's weights from the text of a weights file (search-weights.json)."""
    data = json.loads(text)
    return [float(data["weights"].get(n, 0.0)) for n in WEIGHT_NAMES] + \
        [float(data.get("bias", 0.0))]


def _load_weights() -> list[float]:
    return weights_from(resources.files("engine.data").joinpath("search-weights.json")
                        .read_text("utf-8"))


WEIGHTS: list[float] = []


def win_chance(logit: float) -> float:
    if logit >= 30.0:
        return 1.0
    if logit <= -30.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-logit))


def evaluate(game: Game, geo: Geometry, team: int, holdings: list[Holding] | None = None,
             gone: frozenset = frozenset()) -> float:
    """How good the position is for ``team``, as the log-odds of winning (fitted on games
    of the greedy player, ``python -m tools.fitting``, then tuned for play,
    ``python -m tools.tuning``): every hand known (a dealt world), or the ``holdings``
    given per team."""
    if game.over:
        if game.winner is None:
            return 0.0
        return WIN if game.winner == team else -WIN
    holds = holdings or [Holding.known(game, t) for t in range(game.n_teams)]
    return logit(position_features(game, geo, team, holds, gone))


def logit(features: list[float]) -> float:
    """The evaluation of a position from its features (:func:`position_features`)."""
    if not WEIGHTS:
        WEIGHTS.extend(_load_weights())
    w = WEIGHTS
    return sum(a * b for a, b in zip(features, w)) + w[-1]


def features_after(game: Game, geo: Geometry, moves: list[Move],
                   lacks: dict[int, dict[str, int]]) -> list[tuple[Game, list[float]]]:
    """Each move of the player to move played on a copy (no card drawn), with the features
    of the position it leaves for the mover's team as the mover sees it: its own hand
    exactly, the other hands by their chances (the unseen cards, and ``lacks``, what the
    record shows they lacked: :func:`shown_lacks`). A copy may be over (a won game):
    :func:`evaluate` scores it, not the features."""
    me, team = game.current, game.team
    unseen = Counter(unseen_cards(game, me))
    gone = spent_cards(game)
    holds = [Holding.belief(game, t, me, unseen, lacks) for t in range(game.n_teams)]
    out: list[tuple[Game, list[float]]] = []
    for m in moves:
        g = game.clone()
        g.push(m, draw=False)
        holds[team] = Holding.belief(g, team, me, unseen, lacks)
        out.append((g, position_features(g, geo, team, holds, gone)))
    return out


# --- what a seat knows ------------------------------------------------------------------
def unseen_cards(game: Game, seat: int) -> list[str]:
    """Cards ``seat`` cannot see: the edition's deck less its own hand and every discard,
    in a fixed order that depends only on what it can see."""
    pool = Counter(game.edition.deck())
    pool.subtract(game.hands[seat])
    for pile in game.discards:
        pool.subtract(pile)
    return [c for c in sorted(pool) for _ in range(max(0, pool[c]))]


def spent_cards(game: Game) -> frozenset:
    """Board cards every copy of which lies on the discard piles (public)."""
    left = Counter(game.edition.deck())
    for pile in game.discards:
        left.subtract(pile)
    return frozenset(c for c, n in left.items() if n <= 0 and c in game._spaces_of)


#: How many of each other player's past moves the search reads for what it lacked.
LACKS_DEPTH = 6


def shown_lacks(game: Game, seat: int) -> dict[int, dict[str, int]]:
    """What each other player showed it lacked, from the public record: per player, the
    cards (and ``*wild``, ``*remove``) it did not hold at one of its last LACKS_DEPTH moves,
    each with how many cards it has drawn since (1: it lacked it at its last move). It
    lacked a card when it left a four of its own unfinished (no card for the gap, no
    wild), left a four of the other team unblocked (no card for the gap, no jack at all),
    or when the card would have made a clearly better move than the one it made.
    Read with two teams only (a removed chip's colour is then known)."""
    if game.n_teams != 2 or not game.history:
        return {}
    geo = geometry(game)
    g = game.clone()
    cells = g.board.cells
    out: dict[int, dict[str, int]] = {}
    moves: dict[int, int] = {}
    for p, m in reversed(game.history):
        # walk the board back: a placement undone also undoes the sequences it made
        if m.action == "place":
            g.board.remove(m.space)
        elif m.action == "remove":
            g.board.poke(m.space, 2 - p % 2)     # the other team's chip
        if p == seat or m.action in ("dead", "pass"):
            continue
        k = moves.get(p, 0) + 1
        if k > LACKS_DEPTH:
            if all(moves.get(q, 0) >= LACKS_DEPTH for q in range(game.n_players) if q != seat):
                break
            continue
        moves[p] = k
        team = p % 2
        if m.action == "place" and g.board.gain(m.space, team) > 0:
            continue                        # it completed one: it may have held more
        lack: set[str] = set()
        mine = open_fours(g, geo, team)
        if mine and m.space not in mine:
            lack.add("*wild")
            lack.update(g._symbols[gap] for gap in mine)
        theirs = open_fours(g, geo, 1 - team)
        if theirs:
            chips = {c for w in theirs.values() for c in w if cells[c] == 2 - team}
            if m.space not in theirs and not (m.action == "remove" and m.space in chips):
                lack.update(("*wild", "*remove"))
                lack.update(g._symbols[gap] for gap in theirs)
        lack |= _better_cards(g, geo, p, m)
        if lack:
            since = out.setdefault(p, {})
            for card in lack:
                since.setdefault(card, k)
    return out


#: How much better (by the rules of thumb) a card's move must have been than the move a
#: player made for the search to believe the player did not hold that card.
BETTER_BY = 30.0


def _better_cards(g: Game, geo: Geometry, p: int, m: Move) -> set[str]:
    """Cards with which player ``p`` would clearly have made a better move than ``m`` (on
    the board ``g`` before it): a player who plays well did not hold them."""
    team = p % g.n_teams
    if m.action == "place":
        played = place_score(g, geo, m.space, team) - (WILD_COST if m.card in g._wild else 0.0)
    else:
        played = remove_score(g, geo, m.space) - REMOVE_COST
    bar = played + BETTER_BY
    cells = g.board.cells
    best: dict[int, float] = {}
    out: set[str] = set()
    for card, spaces in g._spaces_of.items():
        for sp in spaces:
            if cells[sp] == EMPTY:
                if sp not in best:
                    best[sp] = place_score(g, geo, sp, team)
                if best[sp] > bar:
                    out.add(card)
                    break
    if best and max(best.values()) - WILD_COST > bar:
        out.add("*wild")
    own = team + 1
    if any(remove_score(g, geo, sp) - REMOVE_COST > bar for sp, c in enumerate(cells)
           if c > 0 and c != own and not g.board.is_locked(sp)):
        out.add("*remove")
    return out


def seat_view(referee, seat: int, hand: list[str], played: list[str] = (),
              deck: list[str] | None = None) -> Game:
    """A game as ``seat`` at a refereed table sees it: the board, its own ``hand``, the
    cards it has ``played`` and the cards the others have shown (a chip placed shows its
    space's card, a removal a one-eyed jack). The other hands are of unknown cards
    (``?``): the search deals them from what is unseen. ``deck`` is only where the Pi's
    virtual hands are drawn from (the search never looks at it)."""
    r = referee
    g = Game(r.edition, r.n_players, r.n_teams, r.options, random.Random(0), layout=r.layout,
             first_player=r.current)
    g.board = r.board.copy()
    g.current = seat
    size = r.edition.hand_size(r.n_players)
    g.discards = [[] for _ in range(r.n_players)]
    g.discards[seat] = list(played)
    remover = min(r.edition.remove_cards) if r.edition.remove_cards else "?"
    for p in range(r.n_players):
        if p == seat:
            g.hands[p] = list(hand)
            continue
        g.hands[p] = ["?"] * size
        for q, m in r.moves:
            if q == p and m.action in ("place", "remove"):
                g.discards[p].append(m.card or (r.layout.symbols[m.space]
                                                if m.action == "place" else remover))
    g.deck = list(deck) if deck is not None else []
    g.turn = len(r.moves)
    g.history = list(r.moves)
    return g


def determinize(game: Game, seat: int, rng: random.Random,
                lacks: dict[int, dict[str, int]] | None = None) -> Game:
    """A world consistent with what ``seat`` knows: the unseen cards dealt at random, each
    other hand drawn by the chances of :func:`copy_chances` (what its player showed it
    lacked, ``lacks``), the rest left to the deck in a random order."""
    g = game.clone(random.Random(rng.random()))
    pool = unseen_cards(game, seat)
    unseen = Counter(pool)
    for p in range(game.n_players):
        if p == seat:
            continue
        q_of = copy_chances(game, p, unseen, lacks)
        # weighted, without replacement (Efraimidis-Spirakis keys; equal chances: uniform)
        keys = [rng.random() ** (1.0 / q) if q > 0 else -1.0 for q in map(q_of.get, pool)]
        idx = sorted(range(len(pool)), key=keys.__getitem__, reverse=True)[:len(game.hands[p])]
        g.hands[p] = [pool[i] for i in idx]
        for i in sorted(idx, reverse=True):
            pool.pop(i)
    rng.shuffle(pool)
    g.deck = pool
    return g


# --- reasons ----------------------------------------------------------------------------
def _line_words(game: Game, geo: Geometry, wi: int) -> str:
    w = geo.windows[wi]
    d = geo.window_dir[wi]
    cols = game.layout.cols
    if d == 0:
        return f"on row {w[0] // cols + 1}"
    if d == 1:
        return f"in column {chr(ord('a') + w[0] % cols)}"
    a, b = game.layout.space_name(w[0]), game.layout.space_name(w[-1])
    return f"on the diagonal {a}-{b}"


def _best_window(game: Game, geo: Geometry, s: int, value: int, others_ok: bool = False):
    """The fullest window through ``s`` held only by ``value`` (and free corners)."""
    cells = game.board.cells
    best, best_n, corner = None, -1, False
    for wi in geo.by_cell[s]:
        n = 0
        has_free = False
        for c in geo.windows[wi]:
            x = cells[c]
            if x == value:
                n += 1
            elif x == FREE:
                n += 1
                has_free = True
            elif x != EMPTY and not others_ok:
                n = -1
                break
        if n > best_n:
            best, best_n, corner = wi, n, has_free
    return best, best_n, corner


def explain(game: Game, move: Move) -> str:
    """One line of why, from the position before ``move`` is played."""
    geo = geometry(game)
    colours = game.edition.colours
    names = {"B": "blue", "G": "green", "R": "red"}
    team = game.team
    if move.action == "dead":
        return f"trades the dead {move.card}"
    if move.action == "pass":
        return "no card can be played"
    where = game.layout.space_name(move.space)
    if move.action == "remove":
        victim = game.board.cells[move.space] - 1
        wi, n, _ = _best_window(game, geo, move.space, victim + 1)
        who = names.get(colours[victim], f"team {victim + 1}")
        if n >= 4:
            return f"removes {who}'s chip on {where} to break their four {_line_words(game, geo, wi)}"
        if n >= 3:
            return f"removes {who}'s chip on {where}, breaking their three {_line_words(game, geo, wi)}"
        return f"removes {who}'s chip on {where}"
    s = move.space
    own = team + 1
    gained = game.board.gain(s, team)
    wild = " with a wild jack" if move.card in game._wild else ""
    if gained:
        wi, n, corner = _best_window(game, geo, s, own, others_ok=True)
        through = " through the corner" if corner else ""
        win = game.board.counts[team] + gained >= game.to_win
        what = "the winning sequence" if win else "a sequence"
        return f"completes {what}{through} {_line_words(game, geo, wi)}{wild}"
    # blocking: the fullest window of a single other team through s
    block_words = None
    block_n = 0
    for t in range(game.n_teams):
        if t == team:
            continue
        wi, n, _ = _best_window(game, geo, s, t + 1)
        if n > block_n:
            block_n = n
            who = names.get(colours[t], f"team {t + 1}")
            count = {4: "four", 3: "three"}.get(n, "")
            block_words = f"blocks {who}'s {count} {_line_words(game, geo, wi)}" if count else None
    wi, n, corner = _best_window(game, geo, s, own)
    build = None
    if n >= 1:
        after = n + 1
        if after >= 4:
            build = f"makes four {_line_words(game, geo, wi)}"
        elif after == 3:
            build = f"makes three {_line_words(game, geo, wi)}"
        else:
            build = f"builds {_line_words(game, geo, wi)}"
    if block_words and (block_n >= 4 or not build or block_n >= n + 1):
        text = block_words
        if build and block_n < 4:
            text += f" and {build}"
        return f"{text} ({where}){wild}"
    if build:
        return f"{build} ({where}){wild}"
    return f"takes {where}{wild}"


# --- the player -------------------------------------------------------------------------
@dataclass
class Hint:
    move: Move
    score: float
    reason: str

    def text(self, cols: int = 10) -> str:
        return f"{self.move.text(cols)}: {self.reason}"


class SearchPlayer:
    """A computer player that searches dealt worlds (see the module's docstring).

    ``level`` is ``easy``, ``medium`` or ``hard``; ``seed`` makes it repeatable;
    ``budget`` caps the seconds per move (the level's default when None) and is used only
    with a ``clock`` (a function returning seconds, such as ``time.monotonic``).
    """

    def __init__(self, level: str = "hard", seed: int | random.Random = 0,
                 budget: float | None = None, clock: Callable[[], float] | None = None,
                 deals: int | None = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")
        self.level = LEVELS[level]
        self.name = level
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.budget = self.level.seconds if budget is None else budget
        self.clock = clock
        self.deals = self.level.deals if deals is None else deals
        self.last_reason = ""
        self.last_deals = 0

    # the analysis shared by choose() and hints
    def analyse(self, game: Game, candidates: int | None = None) -> list[Hint]:
        """Every candidate move of the player to move, best first, with its average score."""
        if game.over:
            return []
        me = game.current
        team = game.team
        hand = game.hands[me]
        if not game.dead_traded:
            for card in hand:
                if game.is_dead(card):
                    return [Hint(Move("dead", card), WIN, explain(game, Move("dead", card)))]
        geo = geometry(game)
        ranked = ranked_moves(game, geo)
        if not ranked:
            return [Hint(Move("pass"), 0.0, explain(game, Move("pass")))]
        if ranked[0][0] >= WIN:
            m = ranked[0][1]
            return [Hint(m, WIN, explain(game, m))]
        # one ply: every move scored by the evaluation, other hands by their chances
        lacks = shown_lacks(game, me)
        pool = forced_moves(game, ranked) or \
            _pick_candidates(game, ranked, max(24, candidates or self.level.candidates))
        first = [(evaluate(g, geo, team) if g.over else logit(x), m)
                 for (g, x), m in zip(features_after(game, geo, pool, lacks), pool)]
        first.sort(key=lambda x: -x[0])
        k = candidates or self.level.candidates
        out = [Hint(m, win_chance(sc), "") for sc, m in first[:k]]
        self.last_deals = 0
        if self.deals > 0 and len(out) > 1:
            out = self._playouts(game, geo, out, lacks)
        for h in out:
            h.reason = explain(game, h.move)
        return out

    def _playouts(self, game: Game, geo: Geometry, hints: list[Hint],
                  lacks: dict[int, dict[str, int]]) -> list[Hint]:
        """Play the best few on to the end in dealt worlds (shared by all of them); the
        evaluation's choice stands unless another wins clearly more often."""
        me = game.current
        team = game.team
        cands = hints[:self.level.playout_candidates]
        results: list[list[float]] = [[] for _ in cands]
        start = self.clock() if self.clock else 0.0
        for _ in range(self.deals):
            world = determinize(game, me, self.rng, lacks)
            seed = self.rng.random()
            for i, h in enumerate(cands):
                g = world.clone(random.Random(seed))
                g.push(h.move)
                for _ in range(PLAYOUT_PLIES):
                    if g.over:
                        break
                    g.push(policy_move(g, geo))
                results[i].append(0.5 if g.winner is None else float(g.winner == team))
            if self.clock and self.clock() - start >= self.budget:
                break
        self.last_deals = len(results[0])
        best, best_gain = 0, 0.0
        for i in range(1, len(cands)):
            gain = clear_gain(results[i], results[0], self.level.margin)
            if gain > best_gain:
                best, best_gain = i, gain
        if best:
            cands.insert(0, cands.pop(best))
            hints = cands + hints[len(cands):]
        return hints

    def choose(self, game: Game) -> Move:
        hints = self.analyse(game)
        pick = hints[0]
        if self.level.slip and len(hints) > 1 and self.rng.random() < self.level.slip:
            pick = self.rng.choice(hints[:self.level.slip_among])
        self.last_reason = pick.reason
        return pick.move


def clear_gain(results: list[float], base: list[float], margin: float) -> float:
    """How much more often an alternative won than the base choice, paired deal by deal;
    0 unless the gain is at least ``margin`` and well beyond the luck of the deals (2.5
    standard errors)."""
    n = len(base)
    if n < 2:
        return 0.0
    diffs = [a - b for a, b in zip(results, base)]
    gain = sum(diffs) / n
    spread = math.sqrt(sum((d - gain) ** 2 for d in diffs) / (n - 1) / n)
    return gain if gain >= margin and gain > 2.5 * spread else 0.0


def open_fours(game: Game, geo: Geometry, team: int) -> dict[int, tuple[int, ...]]:
    """Empty spaces that would complete a sequence for ``team``, with a window of its
    four chips (free corners count) around each."""
    cells = game.board.cells
    v = team + 1
    out: dict[int, tuple[int, ...]] = {}
    for w in geo.windows:
        n = 0
        gap = -1
        for c in w:
            x = cells[c]
            if x == v or x == FREE:
                n += 1
            elif x == EMPTY and gap == -1:
                gap = c
            else:
                n = -9
                break
        if n == len(w) - 1 and gap not in out and game.board.gain(gap, team) > 0:
            out[gap] = w
    return out


def forced_moves(game: Game, ranked: list[tuple[float, Move]]) -> list[Move]:
    """A sequence that can be completed is completed (with a plain card when one will do).
    Blocking is left to the evaluation: a four its team has shown it cannot finish is no
    rush, and measured against the greedy player forcing every block lost games."""
    team = game.team
    done = [m for _, m in ranked if m.action == "place" and game.board.gain(m.space, team) > 0]
    plain = [m for m in done if m.card not in game._wild]
    return plain or done


def _pick_candidates(game: Game, ranked: list[tuple[float, Move]], k: int) -> list[Move]:
    """The ``k`` best-scored moves, with no more than a third of them on any one jack
    (a wild card has a target everywhere and would crowd out the plain cards)."""
    cap = max(2, k // 3)
    per_card: dict[str, int] = {}
    out: list[Move] = []
    for _, m in ranked:
        kind = game.edition.card_kind(m.card)
        if kind != "normal":
            if per_card.get(kind, 0) >= cap:
                continue
            per_card[kind] = per_card.get(kind, 0) + 1
        out.append(m)
        if len(out) >= k:
            break
    return out


def hints(game: Game, n: int = 3, level: str = "medium", seed: int = 0,
          budget: float | None = None, clock: Callable[[], float] | None = None) -> list[Hint]:
    """The best ``n`` moves for the player to move, ranked, each with its reason."""
    return SearchPlayer(level, seed, budget, clock).analyse(game)[:n]
