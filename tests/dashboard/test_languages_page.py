"""Issue 22: the page in the viewer's language: the browser's (Accept-Language,
``navigator.languages``), unless ``ui.language`` chooses one for the table, or ``?lang=``
for this page. Checked in a real Chromium and at the protocol level."""

from __future__ import annotations


import pytest
from playwright.sync_api import expect, sync_playwright
from starlette.testclient import TestClient

from engine.observation import SpaceState
from engine.referee import Referee
from seqboard import i18n
from seqboard.dashboard import Dashboard
from seqboard.loop import Commands
from seqboard.session import Session

from .conftest import chromium_path
from .test_table_page import play_until


@pytest.fixture
def client(tmp_path):
    session = Session(Referee("classic", 2), mode="referee")
    dash = Dashboard(None, tmp_path, Commands(), pin="2468")
    dash.attach(session)
    with TestClient(dash.app) as c:
        yield c, session


def test_the_catalogs_are_served_to_the_page(client):
    c, _ = client
    cs = c.get("/i18n/cs.json").json()
    assert cs["language"] == "cs" and cs["messages"]["Sequences"] == "Sekvence"
    assert cs["messages"]["{team} places on {space} ({card})"] == \
        "{team} kladou na {space} ({card})"
    assert c.get("/i18n/de-AT.json").json()["language"] == "de"
    r = c.get("/i18n/sv.json")
    assert r.status_code == 404 and "cs" in r.json()["error"]


def test_each_sentence_comes_with_its_template_and_parameters(client):
    c, session = client
    r = session.referee
    obs = r.expected().replace({r.layout.parse_space("e5"): SpaceState.BLUE})
    session.observe(obs)
    words = c.get("/api/words").json()["words"]
    text = session.log[-1]["text"]
    assert words[text] == {"m": "{team} places on {space} ({card})",
                           "p": {"team": {"m": "blue", "p": {}}, "space": "e5", "card": "5H"}}
    state = c.get("/api/state").json()
    assert state["language"] is None            # ui.language "auto": the browser decides
    assert text in state["words"]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True,
                              args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        yield b
        b.close()


def _page(browser, live, locale, query=""):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale=locale)
    pg = ctx.new_page()
    pg.goto(live.url + query)
    return pg


def test_the_page_follows_the_browsers_language(browser, live):
    pg = _page(browser, live, "de-DE")
    expect(pg.locator("body")).to_have_attribute("data-language", "de")
    expect(pg.locator("#status")).to_have_class("status on")
    assert pg.evaluate("document.documentElement.lang") == "de"
    expect(pg.locator("h2", has_text="Sequenzen")).to_be_visible()
    expect(pg.locator("button[data-action=undo]")).to_have_text("Letzten Zug zurücknehmen")
    expect(pg.locator("#turn .who")).to_have_text("Blau ist am Zug")
    play_until(live, lambda: len(live.ref.moves) >= 3)
    expect(pg.locator("#turn .who")).to_have_text("Grün ist am Zug")
    log = pg.locator("#log li .text")
    expect(log.first).to_contain_text(" setzt auf ")
    assert not any(" places on " in t for t in log.all_text_contents())
    # an illegal change: the warning in German, with what to put right
    r = live.ref
    with live.lock:
        free = next(i for i, c in enumerate(r.board.cells) if c == 0 and i not in r.layout.free)
    live.observe(r.expected().replace({free: SpaceState.BLUE}))     # green is to play
    name = r.layout.space_name(free)
    expect(pg.locator("#warning")).to_have_text(
        f"\u26a0 unzulässig: ein Chip eines Teams, das nicht am Zug ist (Grün ist am Zug) auf "
        f"{name}; zum Richten: den Chip von {name} nehmen")
    pg.context.close()


def test_the_page_speaks_the_language_and_names_cards_in_it(browser, live):
    pg = _page(browser, live, "fr-FR")
    expect(pg.locator("#status")).to_have_class("status on")
    pg.check("#voice-on")
    play_until(live, lambda: len(live.ref.moves) >= 1)
    pg.wait_for_function("window.seqboardSaid.length > 0")
    said = pg.evaluate("window.seqboardSaid")[-1]
    assert said.startswith("bleu pose sur ") and " de " in said, said     # "... (cinq de cœur)"
    assert "places" not in said and not any(c in said for c in "()")
    pg.context.close()


def test_a_verdict_that_comes_while_the_language_loads_is_said_in_that_language(browser, live):
    # the page's catalogue of sentences comes a moment after the page: a verdict meanwhile
    # waits for it, rather than being said in English to a French table
    held = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="fr-FR")
    pg = ctx.new_page()
    pg.route("**/i18n/fr.json", lambda route: held.append(route))
    pg.goto(live.url)
    expect(pg.locator("#status")).to_have_class("status on")
    pg.check("#voice-on")
    play_until(live, lambda: len(live.ref.moves) >= 1)
    pg.wait_for_function("document.querySelectorAll('#log li').length > 0")
    assert held and pg.evaluate("window.seqboardSaid") == []
    held[0].continue_()
    expect(pg.locator("body")).to_have_attribute("data-language", "fr")
    pg.wait_for_function("window.seqboardSaid.length > 0")
    said = pg.evaluate("window.seqboardSaid")
    assert said[0].startswith("bleu pose sur "), said
    assert not any("places" in t for t in said)
    ctx.close()


def test_ui_language_chooses_for_every_viewer_and_lang_for_one_page(browser, live):
    i18n.set_language("pl")                     # ui.language = "pl"
    try:
        play_until(live, lambda: len(live.ref.moves) >= 1)
        pg = _page(browser, live, "de-DE")
        expect(pg.locator("body")).to_have_attribute("data-language", "pl")
        expect(pg.locator("h2", has_text="Sekwencje")).to_be_visible()
        expect(pg.locator("#log li .text").first).to_contain_text("niebiescy kładą na")
        pg.context.close()
        one = _page(browser, live, "de-DE", "?lang=it")
        expect(one.locator("body")).to_have_attribute("data-language", "it")
        expect(one.locator("h2", has_text="Sequenze")).to_be_visible()
        expect(one.locator("#log li .text").first).to_contain_text("blu piazza su")
        one.context.close()
    finally:
        i18n.set_language(None)


def test_the_stacks_page_in_dutch(browser, tmp_path):
    import io
    import random

    from engine.stacks import StacksGame
    from seqboard.modes.stacks import StacksTable

    i18n.set_language("nl")                     # ui.language = "nl"
    dash = Dashboard(None, tmp_path, None, pin="1357", host="127.0.0.1", port=0)
    dash.stacks_seats = ["person", "greedy"]
    url = dash.start()
    g = StacksGame(2, rng=random.Random(1), known=True)
    table = StacksTable(g, dash.stacks_seats, io.StringIO(), listeners=[dash.stacks])
    table.handle("x " + sorted(g.hands[0])[0])      # player 1 discards: a line in the log
    table.run_computers()
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        pg.goto(url)
        expect(pg.locator("body")).to_have_attribute("data-language", "nl")
        expect(pg.locator("#stacks-players th").first).to_have_text("speler")
        expect(pg.locator("#stacks-players tbody tr").nth(1).locator(".pi-seat")) \
            .to_have_text("de Pi (greedy)")
        expect(pg.locator("#stacks-turn")).to_contain_text("is aan de beurt (met de klok mee)")
        expect(pg.locator("#stacks-log li").last).to_contain_text("speler 1 legt ")
    finally:
        pg.close()
        dash.stop()
        i18n.set_language(None)
