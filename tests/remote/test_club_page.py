"""`seqboard club --serve`: the club view as a read-only page, fed by a real Mosquitto,
checked over HTTP and in a real headless Chromium."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from seqboard.remote import protocol as P
from seqboard.remote.sim import Person

from ..app.helpers import write_config
from .helpers import create_board, join_board, run


def _tables(url: str) -> dict:
    with urllib.request.urlopen(url + "tables.json", timeout=10) as r:
        return {t["game"]: t for t in json.loads(r.read())}


def _until(cond, limit=30.0, what=""):
    end = time.monotonic() + limit
    while True:
        got = cond()
        if got:
            return got
        assert time.monotonic() < end, f"not seen in {limit} s: {what}"
        time.sleep(0.1)


@pytest.fixture
def club(tmp_path, broker):
    cfg = write_config(tmp_path, remote={"host": "127.0.0.1", "port": broker.port},
                       gpio={"enabled": False})
    proc = subprocess.Popen([sys.executable, "-m", "seqboard", "club", "--config", str(cfg),
                             "--serve", "0", "--host", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    url = None
    end = time.monotonic() + 30
    while url is None and time.monotonic() < end:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line.startswith("club page: "):
            url = line.split()[2]
    assert url, "seqboard club --serve printed no address"
    yield url
    proc.terminate()
    proc.wait(10)


def test_the_club_page_shows_live_tables_and_results_and_is_read_only(tmp_path, broker, club):
    url = club
    a, code1 = create_board(tmp_path, broker, name="north")
    b = join_board(tmp_path, broker, code1, name="south")
    run([Person(a, seed=1), Person(b, seed=2)])          # a finished game
    c, code2 = create_board(tmp_path, broker, name="east", deck_seed=3)
    d = join_board(tmp_path, broker, code2, name="west")
    people = [Person(c, seed=3), Person(d, seed=4)]
    run(people, until=lambda: c.n >= 2 and d.n >= 2)     # a game being played
    g1, g2 = P.parse_code(code1)[0], P.parse_code(code2)[0]
    rows = _until(lambda: (t := _tables(url)) and g1 in t and g2 in t and
                  t[g2]["moves"] == c.n and t, what="both tables")
    winner = a.session.referee.colour_name(a.session.referee.winner)
    assert rows[g1]["status"] == f"{winner} won" and rows[g1]["over"]
    assert rows[g1]["boards"] == "north, south" and winner in rows[g1]["score"]
    assert not rows[g2]["over"] and rows[g2]["status"].endswith("to move")
    # live: a move later, the page's table says so without anyone asking again
    seen = c.n
    run(people, until=lambda: c.n >= seen + 2)
    _until(lambda: _tables(url)[g2]["moves"] >= seen + 2, what="the next moves")
    # read-only: nothing but GET and HEAD, and no other page
    for method in ("POST", "PUT", "DELETE"):
        req = urllib.request.Request(url + "tables.json", data=b"{}", method=method)
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=10)
        assert err.value.code == 405 and b"read-only" in err.value.read()
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(url + "records", timeout=10)
    assert err.value.code == 404


def test_the_club_page_in_chromium(tmp_path, broker, club):
    from playwright.sync_api import expect, sync_playwright

    from ..dashboard.conftest import chromium_path
    url = club
    a, code = create_board(tmp_path, broker, name="north")
    b = join_board(tmp_path, broker, code, name="south")
    people = [Person(a, seed=1), Person(b, seed=2)]
    game = P.parse_code(code)[0]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), headless=True,
                                    args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(url)
            row = page.locator(f'#tables tr[data-game="{game}"]')
            expect(row).to_have_count(1, timeout=30_000)
            run(people)                                   # played to its end, page open
            winner = a.session.referee.colour_name(a.session.referee.winner)
            expect(row.locator("td.status")).to_have_text(f"{winner} won", timeout=30_000)
            expect(row).to_have_class("over")
            expect(page.locator("#count")).to_have_text("1 table(s), 0 playing")
        finally:
            browser.close()
