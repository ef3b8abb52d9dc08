"""The dashboard in a real headless Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect, sync_playwright

from .conftest import chromium_path

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1100, "height": 900})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def board_on_page(page) -> list[str]:
    return page.eval_on_selector_all("#board g.cell", "gs => gs.map(g => g.dataset.chip)")


def board_of(session) -> list[str]:
    v = session.view()
    return ["" if c in (None, "free") else v["colours"][c] for c in v["cells"]]


def test_a_game_shown_move_by_move_matches_the_engines_board(live, page):
    page.goto(live.url)
    expect(page.locator("#status")).to_have_text("live")
    for n in range(1, 25):
        live.observe(live.next_observation())
        expect(page.locator("#board")).to_have_attribute("data-move", str(n))
        assert board_on_page(page) == board_of(live.session), f"move {n}"
        if n == 16:
            page.screenshot(path=str(DOCS / "dashboard.png"), full_page=False)
    # the move log lists every move, newest first, in words
    first = page.locator("#log li .text").first.inner_text()
    assert first == live.session.log[-1]["text"]


def test_an_illegal_change_shows_its_warning_until_put_right(live, page):
    page.goto(live.url)
    live.observe(live.next_observation())
    good = live.ref.expected()
    empty = [i for i, s in enumerate(good.states) if s.value == "." and i not in live.ref.layout.free]
    bad = good.replace({empty[0]: good.states[0].__class__("G"), empty[1]: good.states[0].__class__("G")})
    live.observe(bad)                                     # two green chips at once
    warning = page.locator("#warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text(live.session.warning.message)
    assert page.locator("rect.warn").count() == 2
    live.observe(good)                                    # put right
    expect(warning).to_be_hidden()
    assert page.locator("rect.warn").count() == 0


def test_undo_from_the_page_and_a_wrong_pin_refused(live, page):
    page.goto(live.url)
    for _ in range(3):
        live.observe(live.next_observation())
    expect(page.locator("#board")).to_have_attribute("data-move", "3")
    undo = page.locator('#controls button[data-action="undo"]')
    expect(undo).to_be_disabled()
    page.fill("#pin", "1111")
    page.click("#login button")
    expect(page.locator("#login-msg")).to_have_text("wrong PIN")
    expect(undo).to_be_disabled()
    page.fill("#pin", live.pin)
    page.click("#login button")
    expect(page.locator("#login-msg")).to_have_text("unlocked")
    undo.click()
    expect(page.locator("#board")).to_have_attribute("data-move", "2")
    assert len(live.ref.moves) == 2
    assert board_on_page(page) == board_of(live.session)


def test_the_page_reconnects_by_itself_after_the_app_restarts(live, page):
    page.goto(live.url)
    expect(page.locator("#status")).to_have_text("live")
    live.dash.stop()
    expect(page.locator("#status")).to_have_text("reconnecting\u2026")
    live.observe(live.next_observation())                 # a move while the page is cut off
    live.restart_dashboard()
    expect(page.locator("#status")).to_have_text("live", timeout=15000)
    expect(page.locator("#board")).to_have_attribute("data-move", "1")


def test_records_listed_downloaded_and_replayed_step_by_step(live, page, tmp_path):
    from engine.record import dumps, record_simulated_game
    _, entries = record_simulated_game("classic", 2, seed=3)
    (live.records / "game-a.jsonl").write_text("\n".join(dumps(e) for e in entries) + "\n")
    page.goto(live.url)
    link = page.locator("#records a", has_text="game-a.jsonl")
    expect(link).to_be_visible()
    with page.expect_download() as dl:
        link.click()
    assert Path(dl.value.path()).read_text().startswith('{"type":"setup"')
    page.locator("#records li", has_text="game-a.jsonl").locator("button").click()
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#replay-text")).to_contain_text("1/")
    page.click("#replay-next")
    page.click("#replay-next")
    expect(page.locator("#replay-text")).to_contain_text("3/")
    assert page.locator("#replay-board g.cell").count() == 100


def test_readable_on_a_phone(browser, live):
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, is_mobile=True)
    pg = ctx.new_page()
    pg.goto(live.url)
    live.observe(live.next_observation())
    expect(pg.locator("#board")).to_have_attribute("data-move", "1")
    box = pg.locator("#board").bounding_box()
    assert box["width"] <= 390 and box["width"] > 300           # the board fills the phone's width
    # colour-blind players: every chip carries its letter
    letters = pg.eval_on_selector_all("#board .chip text", "ts => ts.map(t => t.textContent)")
    assert letters and set(letters) <= {"B", "G", "R"}
    ctx.close()


def test_stacks_piles_discard_tops_chips_and_turn_live(browser, tmp_path):
    import io

    from engine.stacks import StacksGame
    from engine.stacks.game import Pile
    from seqboard.dashboard import Dashboard
    from seqboard.modes.stacks import StacksTable

    dash = Dashboard(None, tmp_path, None, pin="1357", host="127.0.0.1", port=0)
    url = dash.start()
    g = StacksGame(3, known=False)
    g.piles = [Pile("B", ["B1", "B2", "B3", "B4"])]
    t = StacksTable(g, ["person"] * 3, io.StringIO(), listeners=[dash.stacks])
    dash.stacks("start", g, "")
    pg = browser.new_page()
    try:
        pg.goto(url)
        expect(pg.locator("#stacks-box")).to_be_visible()
        expect(pg.locator("#board-box")).to_be_hidden()
        t.handle("R1 new")
        expect(pg.locator('.pile[data-pile="2"] .cards')).to_have_text("1")
        t.handle("B5")
        expect(pg.locator("#stacks-turn")).to_contain_text("Block?")
        t.handle("")                                   # no Block: player 1 takes the chip
        expect(pg.locator("#stacks-players tbody tr").first.locator("td").nth(1)).to_have_text(
            "1 blue (B), 0 red (R)")
        t.handle("x R4")
        expect(pg.locator("#stacks-turn")).to_contain_text("player 2 to play")
        expect(pg.locator("#stacks-players tbody tr").first.locator("td").nth(2)).to_have_text("R4")
        expect(pg.locator("#stacks-log li").first).to_contain_text("player 1 discards red 4")
    finally:
        pg.close()
        dash.stop()


def calibration_page(browser, tmp_path, layout, out, table: dict):
    """`seqboard calibrate --serve` of ``layout`` saving to ``out``, its camera showing
    ``table["now"]`` (a test changes it to lay a card), PIN 8642; a browser page for it.
    Returns the dashboard (stop it), its address and the page."""
    from seqboard.commands.calibrate import Still
    from seqboard.dashboard import Dashboard
    from seqboard.sources.calibrator import Calibrator
    cal = Calibrator(layout, out, lambda: ([table["now"]], {}))
    dash = Dashboard(None, tmp_path, None, pin="8642", host="127.0.0.1", port=0, calibrator=cal,
                     source=Still(table["now"]))
    return dash, dash.start(), browser.new_page()


def test_calibration_driven_from_the_page(browser, tmp_path):

    from engine.game import builtin_layout
    from engine.observation import Observation
    from vision.synth import Conditions, render

    layout = builtin_layout("classic")
    img = render(layout, Observation.empty(10, 10), Conditions(tilt_deg=12), seed=1, jitter=0).image
    out = tmp_path / "cal.json"
    from vision.cards.scene import _place
    from vision.cards.styles import card_image, random_style
    canvas = img.astype(np.float32)     # a card laid on player 1's pile, right of the board
    _place(canvas, card_image("5H", random_style(np.random.default_rng(1), "tuned"), 240),
           (1120, 300), 8, 170, 0.5)
    table = {"now": img, "card": np.clip(canvas, 0, 255).astype(np.uint8)}
    dash, url, pg = calibration_page(browser, tmp_path, layout, out, table)
    try:
        pg.goto(url)
        expect(pg.locator("#calibrate-box")).to_be_visible()
        # the live picture to aim the camera by, before anything is captured
        expect(pg.locator("#camera-box")).to_be_visible()
        pg.wait_for_function("document.getElementById('camera').naturalWidth === 1280")
        expect(pg.locator("#cal-capture")).to_be_disabled()
        pg.fill("#pin", "8642")
        pg.click("#login button")
        pg.click("#cal-capture")
        expect(pg.locator("#cal-msg")).to_contain_text("Board found (outline)", timeout=60000)
        expect(pg.locator("#cal-picture")).to_be_visible()
        pg.wait_for_function("document.getElementById('cal-picture').naturalWidth > 0")
        assert pg.evaluate("document.getElementById('cal-picture').naturalWidth") == 1280
        assert not out.exists()                        # nothing written before Save
        # player 1's discard pile: a card laid there, clicked on in the picture
        expect(pg.locator("#cal-piles")).to_be_visible()
        expect(pg.locator("#cal-words")).to_be_hidden()     # no ADD/REMOVE on this board
        table["now"] = table["card"]
        box = pg.locator("#cal-picture").bounding_box()
        scale = box["width"] / 1280
        pg.locator("#cal-picture").click(position={"x": 1115 * scale, "y": 305 * scale})
        expect(pg.locator("#cal-pile-msg")).to_contain_text("Seat 1's pile found", timeout=30000)
        expect(pg.locator("#cal-pile-seat")).to_have_value("2")
        pg.click("#cal-save")
        expect(pg.locator("#cal-msg")).to_contain_text("Saved " + str(out), timeout=30000)
        assert out.exists() and out.with_suffix(".png").exists()
        piles = json.loads(out.with_name("cal.piles.json").read_text())["piles"]
        assert [p["seat"] for p in piles] == [1] and abs(piles[0]["x"] - 1120) < 15
    finally:
        pg.close()
        dash.stop()


def test_the_jewish_add_and_remove_cards_kept_from_the_calibration_page(browser, tmp_path):
    """A Jewish Edition board: after the capture the page offers the ADD and REMOVE cards;
    a press before the card is laid says so, a press with it laid keeps it (issue 24)."""
    from tests.vision.test_jewish_cards import word_cards_laid
    from vision.cards.jewish import JewishReferences

    printing, lay, empty, add, both = word_cards_laid()
    out = tmp_path / "cal.json"
    table = {"now": empty}
    dash, url, pg = calibration_page(browser, tmp_path, lay, out, table)
    try:
        pg.goto(url)
        pg.fill("#pin", "8642")
        pg.click("#login button")
        expect(pg.locator("#cal-capture")).to_be_enabled()
        pg.click("#cal-capture")
        expect(pg.locator("#cal-msg")).to_contain_text("Board found", timeout=60000)
        expect(pg.locator("#cal-words")).to_be_visible()
        pg.click("#cal-word-add")                          # not laid yet
        expect(pg.locator("#cal-word-msg")).to_contain_text("Card not kept: no card found",
                                                            timeout=30000)
        table["now"] = add
        pg.click("#cal-word-add")
        expect(pg.locator("#cal-word-msg")).to_have_text("The ADD card kept", timeout=30000)
        table["now"] = both
        pg.click("#cal-word-remove")
        expect(pg.locator("#cal-word-msg")).to_have_text("The REMOVE card kept", timeout=30000)
        pg.click("#cal-save")
        expect(pg.locator("#cal-msg")).to_contain_text("Saved " + str(out), timeout=30000)
        refs = JewishReferences.load(out.with_name("cal.jewish.npz"))
        assert refs.words == {"ADD", "REMOVE"}
    finally:
        pg.close()
        dash.stop()


def test_hints_show_on_the_asking_page_only(browser, live):
    asker = browser.new_context().new_page()
    viewer = browser.new_context().new_page()           # another phone, without the PIN
    for pg in (asker, viewer):
        pg.goto(live.url)
        expect(pg.locator("#status")).to_have_text("live")
    for _ in range(4):
        live.observe(live.next_observation())
    asker.fill("#pin", live.pin)
    asker.click("#login button")
    expect(asker.locator("#login-msg")).to_have_text("unlocked")
    asker.fill("#hint-cards", "5H 10D JS 2C QS")
    asker.click("#hint-form button")
    expect(asker.locator("#hints li")).to_have_count(3, timeout=30000)
    assert "%" in asker.locator("#hints li").first.inner_text()
    expect(viewer.locator("#board")).to_have_attribute("data-move", "4")
    assert viewer.locator("#hints li").count() == 0
    assert "hint 1" not in viewer.locator("#log").inner_text()
    # the next move clears them on the asking page too
    live.observe(live.next_observation())
    expect(asker.locator("#hints li")).to_have_count(0)
    asker.context.close()
    viewer.context.close()


def test_the_five_of_a_longer_line_is_named_on_the_page(browser, tmp_path):
    """A sequence made on a line of six: the page offers both fives to its team (with the
    PIN), and the one clicked becomes the sequence for every viewer."""
    import threading
    import time

    from engine.game import builtin_layout
    from engine.observation import SpaceState
    from engine.referee import Referee
    from seqboard.dashboard import Dashboard
    from seqboard.loop import Commands
    from seqboard.session import Session

    lay = builtin_layout("classic")
    s = Session(Referee("classic", 2), mode="referee")
    commands, stop = Commands(), threading.Event()
    dash = Dashboard(None, tmp_path, commands, pin="2468", host="127.0.0.1", port=0)
    dash.attach(s)
    url = dash.start()

    def loop():
        while not stop.is_set():
            commands.run_pending()
            time.sleep(0.02)
    runner = threading.Thread(target=loop, daemon=True)
    runner.start()
    pg = browser.new_page()
    try:
        pg.goto(url)
        expect(pg.locator("#status")).to_have_text("live")
        expect(pg.locator("#five-box")).to_be_hidden()
        for b, g in zip(["b2", "c2", "d2", "f2", "g2"], ["b4", "d4", "b6", "d6", "b8"]):
            for space, colour in ((b, "B"), (g, "G")):
                commands.call(lambda space=space, colour=colour: s.observe(
                    s.referee.expected().replace({lay.parse_space(space): SpaceState(colour)})))
        made = []
        commands.call(lambda: made.append(s.observe(s.referee.expected().replace(
            {lay.parse_space("e2"): SpaceState("B")}))))
        expect(pg.locator("#five-box")).to_be_visible()
        buttons = pg.locator("#five-choices button")
        expect(buttons).to_have_count(2)
        expect(buttons.first).to_be_disabled()              # acting needs the PIN
        default = made[0].made[0].names()
        other = "c2-g2" if default[0] == "b2" else "b2-f2"
        pg.fill("#pin", "2468")
        pg.click("#login button")
        expect(pg.locator("#login-msg")).to_have_text("unlocked")
        pg.locator("#five-choices button", has_text=other).click()
        expect(pg.locator("#five-msg")).to_contain_text("chooses the five named")
        expect(pg.locator("#five-choices button[aria-pressed=true]")).to_contain_text(other)
        expect(pg.locator("#log li .text").first).to_contain_text(f"chooses the five named: {other}")
        assert [q.names()[0] + "-" + q.names()[-1] for q in s.referee.board.sequences] == [other]
    finally:
        pg.close()
        stop.set()
        dash.stop()


def test_the_setup_view_shows_the_steps_the_camera_and_the_qr_code(browser, tmp_path):
    import numpy as np

    from seqboard.commands.calibrate import Still
    from seqboard.dashboard import Dashboard
    dash = Dashboard(None, tmp_path, None, pin="2468", host="127.0.0.1", port=0, setup=True)
    url = dash.start()
    pg = browser.new_page(viewport={"width": 390, "height": 844})       # a phone
    try:
        pg.goto(url)
        expect(pg.locator("#setup-box")).to_be_visible()
        expect(pg.locator("#board-box")).to_be_hidden()
        steps = ["game", "page", "board", "done"]
        got = []
        dash.setup_answer = lambda text: got.append(text) or True
        dash.setup_state({"steps": steps, "current": "game", "done": [], "question": {
            "text": "where is the board read (camera / matrix) [camera]", "default": "camera",
            "options": ["camera", "matrix"], "problem": None}})
        expect(pg.locator("#setup-steps li[aria-current=step]")).to_have_text("game")
        expect(pg.locator("#setup-question")).to_contain_text("where is the board read")
        expect(pg.locator("#setup-options button").first).to_be_disabled()   # the PIN first
        pg.fill("#pin", "2468")
        pg.click("#login button")
        expect(pg.locator("#login-msg")).to_have_text("unlocked")
        pg.click("#setup-options button[data-answer=matrix]")
        for _ in range(100):
            if got:
                break
            pg.wait_for_timeout(50)
        assert got == ["matrix"]
        dash.setup_state({"steps": steps, "current": "game", "done": [], "question": {
            "text": "players at the table [2]", "default": "2", "options": [],
            "problem": "Sequence is for 2, 3, 4 players"}})
        expect(pg.locator("#setup-problem")).to_have_text("Sequence is for 2, 3, 4 players")
        pg.fill("#setup-answer", "3")
        pg.click("#setup-form button[type=submit]")
        for _ in range(100):
            if len(got) == 2:
                break
            pg.wait_for_timeout(50)
        assert got == ["matrix", "3"]
        dash.source = Still(np.full((120, 160, 3), 90, np.uint8))       # the camera appears
        dash.setup_state({"steps": steps, "current": "board", "done": ["game", "page"],
                          "camera": True, "capturing": [3, 15]})
        expect(pg.locator("#camera-box")).to_be_visible()
        pg.wait_for_function("document.getElementById('camera').naturalWidth === 160")
        assert pg.evaluate("document.getElementById('setup-progress').value") == 3
        dash.qr_url = url
        dash.setup_state({"steps": steps, "current": "done", "done": steps, "url": url, "qr": True})
        expect(pg.locator("#setup-url")).to_contain_text(url)
        pg.wait_for_function("document.getElementById('setup-qr').naturalWidth > 0")
        box = pg.locator("#setup-qr").bounding_box()
        assert box["width"] >= 200 and box["x"] >= 0 and box["x"] + box["width"] <= 390
        shot = pg.locator("#setup-qr").screenshot()
        import cv2
        img = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_GRAYSCALE)
        # a phone can read it (OpenCV's detector misses about one code in fifty at one scale)
        img = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
        read = {d.detectAndDecode(cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_NEAREST))[0]
                for f in (1, 0.75, 1.5) for d in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())}
        assert url in read
    finally:
        pg.close()
        dash.stop()


def test_the_waiting_notice_shows_its_spaces_and_its_button_takes_the_board(live, page):
    """Blue's chip on e5 read only in doubt for 20 s: the page (in German, ?lang=de) shows
    the referee's notice above the board, in its language, marks e5 on the board, and
    its button does what t does (the action take_board): e5 is taken as blue's move (one
    legal move while blue is to move), the notice goes. The page's voice says it; the far view shows it without the
    button."""
    from engine.observation import Observation, SpaceState
    page.goto(live.url + "?lang=de")
    expect(page.locator("#board")).to_have_attribute("data-move", "0")
    page.check("#voice-on")
    ref = live.ref
    e5 = ref.layout.parse_space("e5")
    base = ref.expected()
    states, conf = list(base.states), list(base.confidence)
    states[e5], conf[e5] = SpaceState.BLUE, 0.3
    doubtful = Observation(base.rows, base.cols, tuple(states), tuple(conf))
    stall = page.locator("#stall")
    for t in range(2, 24, 2):
        with live.lock:
            live.session.observe(doubtful, {"t": float(t), "frame": t * 10})
        if t < 22:
            expect(stall).to_be_hidden()
    expect(stall).to_be_visible()
    expect(page.locator("#stall strong")).to_have_text("Der Schiedsrichter wartet")
    expect(page.locator("#stall-text")).to_have_text(
        "wartet seit 20 s auf e5: die Kamera liest e5 nicht sicher. Die Lampe verschieben oder "
        "was es verdeckt, oder t drücken (Brett übernehmen, wie es ist) und prüfen, wer am Zug "
        "ist")
    assert stall.get_attribute("data-spaces") == "e5"
    assert page.evaluate("window.seqboardSaid") == [           # and the page's voice says it
        "wartet seit 20 s auf e5: die Kamera liest e5 nicht sicher. Die Lampe verschieben oder "
        "was es verdeckt, oder t drücken Brett übernehmen, wie es ist und prüfen, wer am Zug "
        "ist"]
    assert page.eval_on_selector_all("#board rect.wait", "rs => rs.map(r => r.dataset.space)") \
        == [str(e5)]
    far = page.context.new_page()                        # the far view shows it, no button
    far.goto(live.url + "?view=table&lang=de")
    expect(far.locator("#stall-text")).to_contain_text("wartet seit 20 s auf e5")
    expect(far.locator("#stall button")).to_be_hidden()
    far.close()
    button = stall.locator('button[data-action="take_board"]')
    expect(button).to_have_text("Brett übernehmen, wie es ist")
    expect(button).to_be_disabled()                       # the PIN first, as every control
    page.fill("#pin", live.pin)
    page.click("#login button")
    expect(button).to_be_enabled()
    button.click()
    expect(stall).to_be_hidden()
    assert ref.board.cells[e5] == 1 and ref.current == 1 and len(ref.moves) == 1
    assert page.locator("#board rect.wait").count() == 0
    expect(page.locator("#board")).to_have_attribute("data-move", "1")
    assert board_on_page(page) == board_of(live.session)
