"""A player's phone in remote play: tap a card and place its chip, or place a chip and say
on the phone which card it was; through the hand page's real HTTP server and a real
Mosquitto."""

from __future__ import annotations

import random
import urllib.error
import urllib.parse
import urllib.request

import pytest

from engine.game import Game
from engine.observation import SpaceState
from engine.referee import Referee
from seqboard.remote.hands import HandPages
from seqboard.remote.sim import Person

from .helpers import create_board, join_board, moves, replayed, run


def _seed_with_jack_and_card() -> tuple[int, str, str]:
    """A deck seed whose first hand for seat 1 holds a two-eyed jack and an ordinary card."""
    r = Referee("classic", 2, None)
    for seed in range(1, 500):
        g = Game(r.edition, 2, r.n_teams, r.options, random.Random(seed), layout=r.layout,
                 first_player=r.current)
        hand = g.hands[0]
        jack = next((c for c in hand if c in r.edition.wild_cards), None)
        card = next((c for c in hand if c in r.layout.spaces_of), None)
        if jack and card:
            return seed, jack, card
    raise AssertionError("no such seed")


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def _tap(url: str, card: str) -> str:
    data = urllib.parse.urlencode({"card": card}).encode()
    with urllib.request.urlopen(urllib.request.Request(url + "/pick", data=data), timeout=10) as r:
        return r.read().decode()          # the page again, after the 303


def _ready(a, b):
    import time
    end = time.monotonic() + 60
    while not (a.ready and b.ready and a.hands.get(0)):
        assert time.monotonic() < end
        a.step()
        b.step()
        time.sleep(0.01)


@pytest.fixture
def table(tmp_path, broker):
    seed, jack, card = _seed_with_jack_and_card()
    a, code = create_board(tmp_path, broker, deck_seed=seed)
    b = join_board(tmp_path, broker, code)
    pages = HandPages([0], "127.0.0.1", 0, {0: "Ann"}).start()
    a.pages = pages
    _ready(a, b)
    a.step()
    yield a, b, pages.links("127.0.0.1")[0], jack, card
    pages.close()


def _space(a, card):
    r = a.session.referee
    return next(s for s in r.layout.spaces_of[card] if r.board.cells[s] == 0)


def test_tap_a_jack_then_place_the_chip_on_a_space_the_hand_also_matches(table):
    a, b, url, jack, card = table
    pa, pb = Person(a, seed=1), Person(b, seed=2)
    page = _tap(url, jack)
    assert "next chip plays <b>" + jack in page
    pa.tick(0, act=False)
    assert a.picked == {0: jack}
    space = _space(a, card)
    pa.table.set(space, SpaceState.BLUE)       # the space of a card the hand also holds
    for i in range(3):
        pa.tick(1 + i, act=False)
    assert a.n == 1 and a.mine[1]["card"] == jack and a.session.warning is None
    assert jack not in a.hands[0] or a.hands[0].count(jack) < 2
    assert card in a.hands[0] and a.picked == {}
    # a card not in the hand cannot be tapped
    with pytest.raises(urllib.error.HTTPError) as err:
        _tap(url, "XX")
    assert err.value.code == 409
    run([pa, pb])
    assert moves(a) == moves(b) and moves(b)[0][3] == jack and replayed(b).ok


def test_place_the_chip_then_say_on_the_phone_which_card(table):
    a, b, url, jack, card = table
    pa = Person(a, seed=1)
    _get(url)                                  # the player has their cards on the phone
    space = _space(a, card)
    pa.table.set(space, SpaceState.BLUE)
    for i in range(3):
        pa.tick(i, act=False)
    w = a.session.warning
    assert w is not None and f"which card for {a.session.referee.layout.space_name(space)}" \
        in w.message and a.n == 0
    page = _get(url)
    assert "which card did you play?" in page and f"{card} or {jack}" in page
    _tap(url, card)                            # the ordinary card, keeping the jack
    for i in range(3):
        pa.tick(10 + i, act=False)
    assert a.n == 1 and a.mine[1]["card"] == card and a.session.warning is None
    assert jack in a.hands[0]


def test_a_tapped_card_that_cannot_make_the_move_is_refused(table):
    a, b, url, jack, card = table
    pa = Person(a, seed=1)
    _tap(url, card)
    r = a.session.referee
    other = next(i for i, sym in enumerate(r.layout.symbols)
                 if i not in r.layout.free and sym != card and r.board.cells[i] == 0)
    pa.table.set(other, SpaceState.BLUE)
    for i in range(3):
        pa.tick(i, act=False)
    w = a.session.warning
    assert w is not None and f"picked {card}, which cannot place" in w.message and a.n == 0
    pa.table.set(other, SpaceState.EMPTY)     # taken back; the right space this time
    for i in range(3):
        pa.tick(10 + i, act=False)
    pa.table.set(_space(a, card), SpaceState.BLUE)
    for i in range(3):
        pa.tick(20 + i, act=False)
    assert a.n == 1 and a.mine[1]["card"] == card
