"""The Jewish Edition's cards read by the camera and judged (issue 24): the pictures matched
against the board's own, ADD and REMOVE against the cards kept at set-up."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.observation import Observation, SpaceState
from engine.referee import Referee
from seqboard.cli import main
from seqboard.session import Session
from vision.cards.jewish import JewishReferences, pile_reader, read_jewish_pile, references_path
from vision.cards.jewish_scene import JewishTable, jewish_layout
from vision.cards.piles import PileSpot, PileWatcher
from vision.cards.scene import _place
from vision.cards.styles import card_image, random_style
from vision.looks import SKIN, Look, look_conditions, table_image
from vision.synth import render

W = H = 448
LOOK = Look(art="plain", board="mat", table="wood", light="daylight", camera="overhead", seed=7)


@pytest.fixture(scope="module")
def printing():
    """One printing in a tuned look: its board filmed empty, the references kept from it."""
    return JewishTable(np.random.default_rng(3), "tuned", look=LOOK)


def img(canvas):
    return np.clip(canvas, 0, 255).astype(np.uint8)


def pile(printing, new, below="CAMEL", seed=0, card=None):
    """A wooden table with ``below`` on the pile, before and after ``new`` is laid half over it."""
    rng = np.random.default_rng(seed)
    canvas = table_image(Look(table="wood", seed=seed), W, H, rng).astype(np.float32)
    _place(canvas, printing.card(below), (200, 224), 10, 170, 0.5)
    before = img(canvas)
    _place(canvas, card if card is not None else printing.card(new), (255, 230), -8, 170, 0.5)
    return before, img(canvas)


def hand_over(frame):
    """A hand and arm reaching in from the right, the palm over the new card's picture."""
    out = frame.copy()
    cv2.line(out, (W + 40, 200), (255, 230), tuple(int(v) for v in SKIN[1]), 80)
    cv2.circle(out, (255, 230), 48, tuple(int(v) for v in SKIN[1]), -1)
    return out


def watch(printing, frames, seat=1):
    w = PileWatcher([PileSpot(seat, W / 2, H / 2, 170)], reader=pile_reader(printing.refs))
    seen = []
    for f in frames:
        seen += w.update(f)
    return seen


def word_cards_laid():
    """A printing's empty board in ``LOOK`` as the calibration sees it, then the ADD card laid
    beside it, then the REMOVE card beside that (the cards left where they lie): the frames of
    a set-up that keeps the word cards. Returns (printing, layout, empty, add, both)."""
    printing = JewishTable(np.random.default_rng(3), "tuned", look=LOOK)
    lay = jewish_layout()
    empty = render(lay, Observation.empty(lay.rows, lay.cols), look_conditions(LOOK), seed=5,
                   look=LOOK).image
    canvas = empty.astype(np.float32)
    _place(canvas, printing.card("ADD"), (60, 60), 10, 110, 0.5)
    add = img(canvas)
    _place(canvas, printing.card("REMOVE"), (empty.shape[1] - 60, 60), -8, 110, 0.5)
    return printing, lay, empty, add, img(canvas)


def jewish_session():
    ref = Referee("jewish", 2)
    ref.judge_cards = True
    return ref, Session(ref, mode="referee")


def put(ref, space):
    return ref.expected().replace({space: SpaceState(ref.colours[ref.team])})


def test_a_picture_card_is_read_and_its_chip_judged_against_its_two_spaces(printing):
    before, after = pile(printing, "MENORAH")
    assert watch(printing, [before] * 3 + [after] * 4, seat=0) == [(0, "MENORAH")]
    ref, s = jewish_session()
    lay = ref.layout
    mine = lay.spaces_of["MENORAH"]
    s.lay_card("MENORAH", 0, via="camera")
    wrong = lay.spaces_of["SHOFAR"][0]
    v = s.observe(put(ref, wrong))
    names = " or ".join(lay.space_name(i) for i in sorted(mine))
    assert v.rule == "wrong_card"
    assert v.message.startswith(f"illegal: MENORAH laid: the chip on {lay.space_name(wrong)} "
                                f"is the SHOFAR; MENORAH is on {names}")
    assert not ref.moves
    s.observe(ref.expected())                            # lifted: put right
    s.observe(put(ref, mine[1]))
    assert ref.moves[-1][1].card == "MENORAH" and ref.moves[-1][1].space == mine[1]


def test_add_and_remove_are_read_and_judged(printing):
    assert printing.refs.words == {"ADD", "REMOVE"}
    before, after = pile(printing, "ADD", seed=1)
    assert watch(printing, [before] * 3 + [after] * 4) == [(1, "ADD")]
    before, after = pile(printing, "REMOVE", below="ADD", seed=2)
    assert watch(printing, [before] * 3 + [after] * 4) == [(1, "REMOVE")]
    ref, s = jewish_session()
    lay = ref.layout
    s.lay_card("ADD", 0, via="camera")
    anywhere = lay.spaces_of["LION"][0]
    s.observe(put(ref, anywhere))
    assert ref.moves[-1][1].card == "ADD"
    s.lay_card("REMOVE", 1, via="camera")
    v = s.observe(ref.expected().replace({anywhere: SpaceState.EMPTY}))
    assert ref.moves[-1][1].card == "REMOVE", v.message


def test_a_picture_card_under_a_hand_stays_unknown_and_the_chip_waits(printing):
    before, after = pile(printing, "MENORAH", seed=3)
    w = PileWatcher([PileSpot(0, W / 2, H / 2, 170)], reader=pile_reader(printing.refs))
    ref, s = jewish_session()
    seen = []
    for f in [before] * 3 + [hand_over(after)] * 4:
        for seat, code in w.update(f):
            seen.append((seat, code))
            s.lay_card(code, seat, via="camera")
    assert seen == [(0, None)]
    assert "cannot be read" in s.log[-1]["text"]
    mine = ref.layout.spaces_of["MENORAH"][0]
    v = s.observe(put(ref, mine))
    assert v.kind == "waiting" and not ref.moves         # no card read: the chip waits
    for f in [after] * 4:                                # the hand gone: read, and judged
        for seat, code in w.update(f):
            seen.append((seat, code))
            s.lay_card(code, seat, via="camera")
    assert seen == [(0, None), (0, "MENORAH")]
    assert ref.moves[-1][1].card == "MENORAH"


def test_a_card_of_the_standard_deck_in_a_jewish_game_is_not_laid(printing):
    st = random_style(np.random.default_rng(4), "tuned")
    for k, code in enumerate(("5H", "KS", "AD")):
        before, after = pile(printing, None, seed=10 + k, card=card_image(code, st, 240))
        reading = read_jewish_pile(after, before, 170, printing.refs)
        assert reading.code is None, (code, reading.best, reading.score, reading.margin)
    ref, s = jewish_session()
    w = PileWatcher([PileSpot(0, W / 2, H / 2, 170)], reader=pile_reader(printing.refs))
    for f in [before] * 3 + [after] * 4:
        for seat, code in w.update(f):
            s.lay_card(code, seat, via="camera")
    assert ref.card_laid is None and s.unread_card == 0


def test_calibrate_keeps_the_boards_pictures_and_the_word_cards_and_read_prints_the_cards(
        printing, tmp_path, capsys):
    lay = jewish_layout()
    empty = render(lay, Observation.empty(lay.rows, lay.cols), look_conditions(LOOK), seed=5,
                   look=LOOK).image
    cv2.imwrite(str(tmp_path / "board.png"), empty)
    config = tmp_path / "seqboard.toml"
    config.write_text('[game]\nedition = "jewish"\nplayers = 2\n', "utf-8")
    out = tmp_path / "cal.json"
    rc = main(["calibrate", "--config", str(config), "--image", str(tmp_path / "board.png"),
               "--out", str(out)])
    o = capsys.readouterr()
    assert rc == 0, o.err
    assert "no ADD or REMOVE card kept" in o.err
    refs = JewishReferences.load(references_path(out))
    assert sorted(set(refs.codes)) == sorted(set(lay.symbols)) and len(refs.codes) == 100
    # one ADD and one REMOVE laid on the table at set-up, and seat 1's pile spot
    table, add = pile(printing, "ADD", seed=6)
    _, rm = pile(printing, "REMOVE", seed=6)
    for name, frame in (("table", table), ("add", add), ("rm", rm)):
        cv2.imwrite(str(tmp_path / f"{name}.png"), frame)
    rc = main(["calibrate", "--config", str(config), "--image", str(tmp_path / "table.png"),
               "--out", str(out), "--word-card", f"add:{tmp_path / 'add.png'}",
               "--word-card", f"REMOVE:{tmp_path / 'rm.png'}",
               "--pile-card", f"1:{tmp_path / 'add.png'}", "--piles-only"])
    o = capsys.readouterr()
    assert rc == 0, o.err
    assert "kept the ADD card" in o.out and "kept the REMOVE card" in o.out
    refs = JewishReferences.load(references_path(out))
    assert refs.words == {"ADD", "REMOVE"} and len(refs.codes) == 102
    # the camera's pile watcher of a Jewish game reads with them
    from seqboard.sources import _pile_watcher
    ref, s = jewish_session()
    w = _pile_watcher(out, s)
    before, after = pile(printing, "HONEY", seed=8)
    seen = []
    for f in [before] * 3 + [after] * 4:
        seen += w.update(f)
    assert seen == [(0, "HONEY")]
    # `seqboard read --cards --edition jewish` prints the cards in a picture
    cv2.imwrite(str(tmp_path / "pile.png"), after)
    rc = main(["read", str(tmp_path / "pile.png"), "--cards", "--edition", "jewish",
               "--calibration", str(out)])
    o = capsys.readouterr()
    assert rc == 0 and o.out.split()[0] == "HONEY", o.out
    rc = main(["read", str(tmp_path / "pile.png"), "--cards", "--edition", "jewish"])
    err = capsys.readouterr().err
    assert rc == 2 and "--calibration" in err and err.count("\n") == 1


def test_word_card_mistakes_are_one_line(tmp_path, capsys):
    table = img(table_image(Look(table="wood", seed=1), W, H, np.random.default_rng(1)))
    cv2.imwrite(str(tmp_path / "t.png"), table)
    for bad, word in ((["--word-card", "jack:x.png"], "add:FILE"),
                      (["--word-card", f"add:{tmp_path / 't.png'}"], "no card found"),
                      (["--word-card", "add:nope.png"], "nope.png")):
        rc = main(["calibrate", "--image", str(tmp_path / "t.png"), "--out",
                   str(tmp_path / "c.json"), "--piles-only"] + bad)
        err = capsys.readouterr().err
        assert rc == 2 and word in err and err.count("\n") == 1 and "Traceback" not in err
