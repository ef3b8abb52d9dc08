"""Issue 22: the page for the table, measured in a real Chromium (Debian's, via Playwright).

Every check is on the page's geometry and computed styles at the sizes people use: a
desktop window (1280x800), a phone (390x844) and a tablet or TV in the far view
(``?view=table``). Screenshots are kept in ``artifacts/screenshots/`` for CI to keep.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from engine.observation import SpaceState

from .conftest import chromium_path

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
RGB = {"B": "rgb(31, 95, 191)", "G": "rgb(42, 138, 58)"}
SIZES = {"desktop": ({"width": 1280, "height": 800}, ""),
         "phone": ({"width": 390, "height": 844}, ""),
         "table": ({"width": 1280, "height": 800}, "?view=table"),
         "tablet": ({"width": 800, "height": 1280}, "?view=table")}


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True,
                              args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        yield b
        b.close()


def open_page(browser, live, size="desktop"):
    viewport, query = SIZES[size]
    ctx = browser.new_context(viewport=viewport, is_mobile=size == "phone")
    pg = ctx.new_page()
    pg.goto(live.url + query)
    expect(pg.locator("#status")).to_have_text("live")
    return pg


def shot(pg, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{name}.png"))


def play_until(live, done, limit=300):
    for _ in range(limit):
        if done():
            return
        live.observe(live.next_observation())
    raise AssertionError("the game never got there")


def inside(box, vp, slack=0.5):
    return (box["x"] >= -slack and box["y"] >= -slack and box["x"] + box["width"] <= vp["width"] + slack
            and box["y"] + box["height"] <= vp["height"] + slack)


def style(pg, selector, prop):
    return pg.eval_on_selector(selector, f"e => getComputedStyle(e).{prop}")


@pytest.mark.parametrize("size", list(SIZES))
def test_whole_board_coordinates_and_a_turn_banner_in_the_teams_colour(browser, live, size):
    for _ in range(6):
        live.observe(live.next_observation())
    pg = open_page(browser, live, size)
    vp = SIZES[size][0]
    expect(pg.locator("#board")).to_have_attribute("data-move", "6")
    # every space of the board is in the window, without scrolling
    boxes = pg.eval_on_selector_all("#board g.cell", "gs => gs.map(g => g.getBoundingClientRect().toJSON())")
    assert len(boxes) == 100
    for i, b in enumerate(boxes):
        assert inside(b, vp), f"space {i} at {b} is outside the {size} window"
    cell = boxes[0]["width"]
    assert cell >= (30 if size == "phone" else 50), f"spaces of {cell:.0f} px"
    # a-j above and below, 1-10 left and right, outside the spaces, in the window
    first, last = boxes[0], boxes[99]
    for side, test in (("top", lambda b: b["y"] + b["height"] <= first["y"] + 1),
                       ("bottom", lambda b: b["y"] >= last["y"] + last["height"] - 1),
                       ("left", lambda b: b["x"] + b["width"] <= first["x"] + 1),
                       ("right", lambda b: b["x"] >= last["x"] + last["width"] - 1)):
        labels = pg.eval_on_selector_all(
            f'#board text.coord[data-side="{side}"]',
            "ts => ts.map(t => [t.textContent, t.getBoundingClientRect().toJSON()])")
        expected = list("abcdefghij") if side in ("top", "bottom") else [str(n) for n in range(1, 11)]
        assert [t for t, _ in labels] == expected
        for text, b in labels:
            assert test(b) and inside(b, vp), f"{side} label {text} at {b}"
            assert b["height"] >= (7 if size == "phone" else 12)
    # whose turn: a banner in the team's colour, large, at the top of the window
    team = live.session.view()["colours"][live.session.referee.team]
    banner = pg.locator("#turn")
    expect(banner).to_contain_text({"B": "blue", "G": "green"}[team] + " to play")
    assert style(pg, "#turn", "backgroundColor") == RGB[team]
    assert style(pg, "#turn", "color") == "rgb(255, 255, 255)"
    font = float(style(pg, "#turn .who", "fontSize").rstrip("px"))
    assert font >= {"desktop": 28, "phone": 20, "table": 44, "tablet": 44}[size], font
    b = banner.bounding_box()
    assert inside(b, vp) and b["y"] < 200
    assert b["width"] >= 0.6 * min(vp["width"], boxes[9]["x"] + cell - boxes[0]["x"])
    shot(pg, f"board-{size}")
    live.observe(live.next_observation())                # the banner follows the turn
    other = live.session.view()["colours"][live.session.referee.team]
    expect(pg.locator("#board")).to_have_attribute("data-move", "7")
    assert other != team and style(pg, "#turn", "backgroundColor") == RGB[other]
    pg.context.close()


def test_sequences_outlined_chips_keep_their_colour_sounds_and_game_over_banner(browser, live):
    pg = open_page(browser, live, "desktop")
    s = live.session
    play_until(live, lambda: any(s.view()["sequences"]))
    v = s.view()
    team = next(t for t, n in enumerate(v["sequences"]) if n)
    letter = v["colours"][team]
    spaces = v["sequence_spaces"][team]
    # the players flip the sequence's chips to their white side, as the rules say
    exp = live.ref.expected()
    live.observe(exp.replace({i: SpaceState.WHITE for i in spaces if i not in live.ref.layout.free}))
    expect(pg.locator(f'#board rect.seq[data-seq="{team}"]')).to_have_count(len(spaces))
    for i in spaces:
        stroke = pg.eval_on_selector(f'#board rect.seq[data-space="{i}"]', "e => getComputedStyle(e).stroke")
        assert stroke == RGB[letter]
        if v["cells"][i] != "free":
            fill = pg.eval_on_selector(f'#board g.cell[data-space="{i}"] .chip circle',
                                       "e => getComputedStyle(e).fill")
            assert fill == RGB[letter], f"the chip on {i} lost its team's colour"
    sounds = pg.evaluate("window.seqboardSounds.map(s => s.kind)")
    assert "sequence" in sounds
    assert pg.evaluate("window.seqboardSounds.every(s => s.audio === 'running')")
    shot(pg, "sequence-desktop")
    # an illegal change beeps; switched off, it does not
    good = live.ref.expected()
    empty = [i for i, st in enumerate(good.states) if st is SpaceState.EMPTY and i not in live.ref.layout.free]
    live.observe(good.replace({empty[0]: SpaceState.GREEN, empty[1]: SpaceState.GREEN}))
    expect(pg.locator("#warning")).to_be_visible()
    pg.wait_for_function("window.seqboardSounds.some(s => s.kind === 'illegal')")
    live.observe(good)
    expect(pg.locator("#warning")).to_be_hidden()
    pg.uncheck("#sound-on")
    before = pg.evaluate("window.seqboardSounds.length")
    live.observe(good.replace({empty[0]: SpaceState.GREEN, empty[1]: SpaceState.GREEN}))
    expect(pg.locator("#warning")).to_be_visible()
    assert pg.evaluate("window.seqboardSounds.length") == before
    live.observe(good)
    # to the end: a game-over banner in the winner's colour
    play_until(live, lambda: s.referee.over)
    expect(pg.locator("#turn")).to_contain_text("Game over")
    w = live.ref.colours[live.ref.winner]
    assert style(pg, "#turn", "backgroundColor") == RGB[w]
    assert float(style(pg, "#turn .who", "fontSize").rstrip("px")) >= 34
    expect(pg.locator("#turn")).to_contain_text({"B": "blue", "G": "green"}[w] + " wins")
    boxes = pg.eval_on_selector_all("#board g.cell", "gs => gs.map(g => g.getBoundingClientRect().toJSON())")
    assert all(inside(b, {"width": 1280, "height": 800}) for b in boxes), "board below the fold"
    shot(pg, "game-over-desktop")
    pg.context.close()


def test_dead_cards_as_card_faces_and_marked_on_their_spaces(browser, live):
    s = live.session
    play_until(live, lambda: len(s.view()["dead_cards"]) >= 1)
    for size in ("desktop", "phone"):
        pg = open_page(browser, live, size)
        v = s.view()
        dead = v["dead_cards"]
        faces = pg.locator("#dead img.card-face")
        expect(faces).to_have_count(len(dead))
        pg.wait_for_function("[...document.querySelectorAll('#dead img')].every(i => i.complete && i.naturalWidth > 0)")
        assert faces.evaluate_all("fs => fs.map(f => f.dataset.card)") == dead
        assert faces.first.bounding_box()["height"] >= 40
        marked = pg.eval_on_selector_all("#board g.cell[data-dead]", "gs => gs.map(g => +g.dataset.space)")
        want = [i for i, sym in enumerate(v["symbols"]) if sym in dead]
        assert sorted(marked) == want and len(want) == 2 * len(dead)
        shot(pg, f"dead-cards-{size}")
        pg.context.close()


def test_hints_marked_on_the_askers_board_only(browser, live):
    asker = open_page(browser, live, "desktop")
    viewer = open_page(browser, live, "phone")
    for _ in range(4):
        live.observe(live.next_observation())
    asker.fill("#pin", live.pin)
    asker.click("#login button")
    expect(asker.locator("#login-msg")).to_have_text("unlocked")
    asker.check("#voice-on")                              # this phone speaks its hints
    asker.fill("#hint-cards", "5H 10D JS 2C QS")
    asker.click("#hint-form button")
    expect(asker.locator("#hints li")).to_have_count(3, timeout=30000)
    asker.wait_for_function("window.seqboardSaid.some(t => t.startsWith('hint: '))")
    marks = asker.eval_on_selector_all("#board g.hint", "gs => gs.map(g => [+g.dataset.hint, +g.dataset.space])")
    hints = live.session.hints
    assert marks == [[k + 1, h["space"]] for k, h in enumerate(hints) if h["space"] is not None]
    assert marks
    k, space = marks[0]
    mark = asker.locator(f'#board g.hint[data-hint="{k}"]').bounding_box()
    cell = asker.locator(f'#board g.cell[data-space="{space}"]').bounding_box()
    assert abs(mark["x"] + mark["width"] / 2 - (cell["x"] + cell["width"] / 2)) < cell["width"] / 3
    shot(asker, "hints-desktop")
    expect(viewer.locator("#board")).to_have_attribute("data-move", "4")
    assert viewer.locator("#board g.hint").count() == 0
    live.observe(live.next_observation())                # the next move clears them
    expect(asker.locator("#board g.hint")).to_have_count(0)
    asker.context.close()
    viewer.context.close()


def test_move_numbers_of_100_and_more_are_not_clipped(browser, live):
    for k in range(120):                                  # the sensing blinks: logged lines
        live.session.source_status("the camera is covered" if k % 2 == 0 else None)
    live.observe(live.next_observation())
    for size in ("desktop", "phone"):
        pg = open_page(browser, live, size)
        first = pg.locator("#log li .n").first
        expect(first).to_have_text(str(live.session.log[-1]["n"]))
        assert int(first.inner_text()) >= 120
        n = first.bounding_box()
        log = pg.locator("#log").bounding_box()
        assert n["x"] >= log["x"] and n["x"] + n["width"] <= log["x"] + log["width"]
        assert first.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        pg.context.close()


def test_the_page_asks_for_camera_pictures_only_when_there_is_a_camera(browser, live):
    asked = []
    pg = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    pg.on("request", lambda r: asked.append(r.url))
    pg.goto(live.url)                                     # no camera (the matrix, the referee)
    expect(pg.locator("#status")).to_have_text("live")
    live.observe(live.next_observation())
    expect(pg.locator("#board")).to_have_attribute("data-move", "1")
    pg.wait_for_timeout(1500)
    assert not [u for u in asked if "/camera.jpg" in u]
    assert pg.locator("#camera-box").is_hidden()
    pg.context.close()

    import numpy as np

    class Camera:                                         # a camera source at the edge
        def annotated(self):
            return np.full((120, 160, 3), 90, np.uint8)

    live.dash.source = Camera()
    pg = browser.new_context().new_page()
    pg.goto(live.url)
    live.observe(live.next_observation())
    expect(pg.locator("#camera-box")).to_be_visible(timeout=10000)
    pg.context.close()


def test_the_page_speaks_verdicts_when_the_voice_is_on(browser, live):
    live.dash.voice = True                                # ui.voice = true
    pg = open_page(browser, live, "desktop")
    live.observe(live.next_observation())
    expect(pg.locator("#board")).to_have_attribute("data-move", "1")
    expect(pg.locator("#voice-on")).to_be_checked()
    pg.wait_for_function("window.seqboardSaid.length > 0")
    said = pg.evaluate("window.seqboardSaid")
    from seqboard.indicators.voice import speakable
    assert said[-1] == speakable(live.session.log[-1]["text"])     # as the Pi would say it
    pg.uncheck("#voice-on")                               # a viewer can silence it
    n = len(said)
    live.observe(live.next_observation())
    expect(pg.locator("#board")).to_have_attribute("data-move", "2")
    assert pg.evaluate("window.seqboardSaid.length") == n
    pg.context.close()


def test_the_pis_proposal_box_has_no_bare_colon_without_a_reason(browser, live):
    from engine.moves import Move
    pg = open_page(browser, live, "desktop")
    live.observe(live.next_observation())
    space = next(i for i, c in enumerate(live.ref.board.cells) if c == 0 and i not in live.ref.layout.free)
    with live.lock:
        live.session.propose(Move("place", "AH", space), "")
    box = pg.locator("#proposal")
    expect(box).to_be_visible()
    assert not box.inner_text().rstrip().endswith(":"), box.inner_text()
    with live.lock:
        live.session.propose(Move("place", "AH", space), "blocks green's four")
    expect(box).to_contain_text("AH: blocks green's four")
    pg.context.close()


def test_stacks_page_marks_the_pis_seat_and_has_no_pin_box(browser, tmp_path):
    import io
    import random

    from engine.stacks import StacksGame
    from seqboard.dashboard import Dashboard
    from seqboard.modes.stacks import StacksTable

    dash = Dashboard(None, tmp_path, None, pin="1357", host="127.0.0.1", port=0)
    dash.stacks_seats = ["person", "greedy"]              # as `seqboard stacks --computer 2`
    url = dash.start()
    g = StacksGame(2, rng=random.Random(1), known=True)
    StacksTable(g, dash.stacks_seats, io.StringIO(), listeners=[dash.stacks])
    dash.stacks("start", g, "")
    pg = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        pg.goto(url)
        expect(pg.locator("#stacks-box")).to_be_visible()
        rows = pg.locator("#stacks-players tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(1)).to_have_attribute("data-pi", "greedy")
        expect(rows.nth(1).locator(".pi-seat")).to_have_text("the Pi (greedy)")
        assert rows.nth(0).locator(".pi-seat").count() == 0
        expect(pg.locator("#login")).to_be_hidden()       # nothing behind a PIN here
        shot(pg, "stacks-phone")
    finally:
        pg.close()
        dash.stop()
