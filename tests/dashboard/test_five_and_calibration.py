"""Naming "the five" from the page, and the calibration page's live picture and progress."""

from __future__ import annotations

import json
import threading
import time

import cv2
import numpy as np
from starlette.testclient import TestClient

from engine.game import builtin_layout
from engine.observation import SpaceState
from engine.referee import Referee
from seqboard.dashboard import Dashboard
from seqboard.loop import Commands
from seqboard.recorder import RecordWriter
from seqboard.session import Session

H = {"X-Seqboard": "1"}
LAYOUT = builtin_layout("classic")
GREEN = ["b4", "d4", "b6", "d6", "b8", "d8"]


def run_commands(commands: Commands, stop: threading.Event) -> threading.Thread:
    """The main loop's side: the actions the page asks for are run here."""
    def loop():
        while not stop.is_set():
            commands.run_pending()
            time.sleep(0.01)
    t = threading.Thread(target=loop, daemon=True)
    t.start()
    return t


def test_a_player_names_the_five_of_a_longer_line_from_the_page(tmp_path):
    path = tmp_path / "g.jsonl"
    writer = RecordWriter(path)
    s = Session(Referee("classic", 2), recorder=writer)
    commands, stop = Commands(), threading.Event()
    dash = Dashboard(None, tmp_path, commands, pin="2468")
    dash.attach(s)

    def see(space, colour):
        r = s.referee
        return s.observe(r.expected().replace({LAYOUT.parse_space(space): SpaceState(colour)}))
    with TestClient(dash.app) as client:
        assert client.get("/api/state").json()["view"]["five_choices"] == []
        for b, g in zip(["b2", "c2", "d2", "f2", "g2"], GREEN):
            see(b, "B")
            see(g, "G")
        default = see("e2", "B").made[0].names()          # e2 makes b2-g2, a line of six
        other = "c2-g2" if default[0] == "b2" else "b2-f2"
        choices = client.get("/api/state").json()["view"]["five_choices"]
        assert sorted(c["text"] for c in choices) == ["b2-f2", "c2-g2"]
        assert [c["chosen"] for c in choices if c["text"] == other] == [False]
        # acting needs the PIN
        r = client.post("/api/action", json={"action": "five", "five": other}, headers=H)
        assert r.status_code == 401
        assert client.post("/api/login", json={"pin": "2468"}, headers=H).status_code == 200
        runner = run_commands(commands, stop)
        try:
            r = client.post("/api/action", json={"action": "five", "five": "a2-e2"}, headers=H)
            assert r.status_code == 400
            assert "not five the last placement could make" in r.json()["error"]
            r = client.post("/api/action", json={"action": "five", "five": 5}, headers=H)
            assert r.status_code == 400 and "five" in r.json()["error"]
            r = client.post("/api/action", json={"action": "five", "five": other}, headers=H)
            assert r.status_code == 200, r.text
            assert "chooses the five named" in r.json()["text"]
        finally:
            stop.set()
            runner.join(5)
        view = client.get("/api/state").json()["view"]
        assert [q["text"] for q in view["sequences_made"]] == [other]
        assert [c["chosen"] for c in view["five_choices"] if c["text"] == other] == [True]
        # every viewer is told (the WebSocket's state on connection holds the new five)
        with client.websocket_connect("/ws") as ws:
            first = json.loads(ws.receive_text())
            assert [q["text"] for q in first["view"]["sequences_made"]] == [other]
    writer.close()
    assert '"event":"five"' in path.read_text().splitlines()[-1]


def test_the_calibration_page_shows_the_live_camera_and_the_capture_progress(tmp_path):
    from engine.observation import Observation
    from seqboard.sources.calibrator import Calibrator
    from seqboard.modes.setup import Preview
    from vision.sources import FolderSource
    from vision.synth import Conditions, render

    img = render(LAYOUT, Observation.empty(10, 10), Conditions(tilt_deg=12), seed=1, jitter=0).image
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(4):
        cv2.imwrite(str(folder / f"{k}.png"), img)
    preview = Preview(FolderSource(folder, fps=100))

    def frames():
        got = []
        for k in range(3):
            got.append(preview.read())
            cal.report(k + 1, 3)
        return got, {}
    cal = Calibrator(LAYOUT, tmp_path / "cal.json", frames)
    dash = Dashboard(None, tmp_path, None, pin="8642", calibrator=cal, source=preview)
    with TestClient(dash.app) as client:
        preview.read()                                     # the camera has given a picture
        r = client.get("/camera.jpg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
        live = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
        assert live.shape == img.shape
        with client.websocket_connect("/ws") as ws:
            assert json.loads(ws.receive_text())["calibration"]["step"] == "ready"
            assert client.post("/api/login", json={"pin": "8642"}, headers=H).status_code == 200
            r = client.post("/api/calibrate/capture", json={}, headers=H)
            assert r.status_code == 200 and r.json()["ok"], r.text
            seen = []
            while True:
                c = json.loads(ws.receive_text())["calibration"]
                seen.append((c["step"], c.get("frame"), c.get("of")))
                if c["step"] == "capture":
                    break
        assert seen == [("capturing", 1, 3), ("capturing", 2, 3), ("capturing", 3, 3),
                        ("capture", None, None)]
        assert client.get("/camera.jpg").status_code == 200     # still live after it


def test_calibrate_serve_gives_the_page_a_live_picture(tmp_path):
    """`seqboard calibrate --serve` hands the dashboard the camera (or the image) to show."""
    from seqboard.commands.calibrate import Still
    frame = np.zeros((20, 30, 3), np.uint8)
    dash = Dashboard(None, tmp_path, None, pin="8642", calibrator=object(), source=Still(frame))
    assert dash.has_camera()
    with TestClient(dash.app) as client:
        r = client.get("/camera.jpg")
        assert r.status_code == 200
        assert cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR).shape == (20, 30, 3)


def test_each_seats_discard_pile_is_learnt_on_the_calibration_page_by_clicking_its_card(tmp_path):
    """Judging with the cards laid (issue 24): after the empty board, a card is laid on each
    player's pile; a click on it in the page's picture learns the spot, saved beside the
    calibration; a click where no card lies says so."""
    from engine.observation import Observation
    from seqboard.sources.calibrator import Calibrator
    from vision.cards.piles import load_spots, piles_path
    from vision.cards.scene import _place
    from vision.cards.styles import card_image, random_style
    from vision.synth import Conditions, render

    empty = render(LAYOUT, Observation.empty(10, 10), Conditions(tilt_deg=8), seed=3,
                   jitter=0).image
    style = random_style(np.random.default_rng(1), "tuned")
    canvas = empty.astype(np.float32)
    _place(canvas, card_image("5H", style, 240), (1090, 250), 12, 170, 0.5)
    one = np.clip(canvas, 0, 255).astype(np.uint8)
    _place(canvas, card_image("9C", style, 240), (150, 520), -20, 170, 0.5)
    two = np.clip(canvas, 0, 255).astype(np.uint8)
    table = {"now": empty}
    cal = Calibrator(LAYOUT, tmp_path / "cal.json", lambda: ([table["now"]], {}))
    dash = Dashboard(None, tmp_path, None, pin="8642", calibrator=cal)
    with TestClient(dash.app) as client:
        assert client.post("/api/login", json={"pin": "8642"}, headers=H).status_code == 200
        r = client.post("/api/calibrate/pile", json={"seat": "1", "x": "1090", "y": "250"},
                        headers=H)
        assert r.status_code == 422 and "capture the empty board first" in r.json()["problem"]
        got = client.post("/api/calibrate/capture", json={}, headers=H).json()
        assert got["ok"] and got["word_cards"] is False       # a board of playing cards
        table["now"] = one
        r = client.post("/api/calibrate/pile", json={"seat": "1", "x": "1085", "y": "260"},
                        headers=H)
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["seat"] == 1 and abs(got["x"] - 1090) < 15 and abs(got["y"] - 250) < 15
        assert 150 < got["card_px"] < 190 and got["warnings"] == []
        table["now"] = two
        r = client.post("/api/calibrate/pile", json={"seat": "2", "x": "640", "y": "60"},
                        headers=H)                          # on the board: no card there
        assert r.status_code == 422 and "no card found" in r.json()["problem"]
        r = client.post("/api/calibrate/pile", json={"seat": "2", "x": "160", "y": "515"},
                        headers=H)
        assert r.status_code == 200 and abs(r.json()["x"] - 150) < 15
        for bad in ({"seat": "0"}, {"seat": "x"}, {"seat": "1", "x": "5"},
                    {"seat": "1", "x": "nan", "y": "1"}, {"seat": "1", "z": "1"}):
            r = client.post("/api/calibrate/pile", json=bad, headers=H)
            assert r.status_code == 400, bad
        saved = client.post("/api/calibrate/save", json={}, headers=H).json()
    assert saved["ok"] and saved["piles"] == str(piles_path(tmp_path / "cal.json"))
    spots, size = load_spots(saved["piles"])
    assert size == (empty.shape[1], empty.shape[0])
    assert [(s.seat, round(s.x, -1)) for s in spots] == [(0, 1090.0), (1, 150.0)]


def test_the_jewish_add_and_remove_cards_are_kept_on_the_calibration_page(tmp_path):
    """A Jewish Edition board (issue 24): once the empty board is captured the page offers
    the ADD and REMOVE cards; each laid in view beside the board is kept with its button,
    saved with the calibration; a press with no card laid says so."""
    from seqboard.sources.calibrator import Calibrator
    from tests.vision.test_jewish_cards import word_cards_laid
    from vision.cards.jewish import JewishReferences, references_path

    printing, lay, empty, add, both = word_cards_laid()
    table = {"now": empty}
    cal = Calibrator(lay, tmp_path / "cal.json", lambda: ([table["now"]], {}))
    dash = Dashboard(None, tmp_path, None, pin="8642", calibrator=cal)
    with TestClient(dash.app) as client:
        assert client.post("/api/login", json={"pin": "8642"}, headers=H).status_code == 200
        r = client.post("/api/calibrate/word", json={"word": "ADD"}, headers=H)
        assert r.status_code == 422 and "capture the empty board first" in r.json()["problem"]
        got = client.post("/api/calibrate/capture", json={}, headers=H).json()
        assert got["ok"] and got["word_cards"] is True        # the page shows the step
        r = client.post("/api/calibrate/word", json={"word": "ADD"}, headers=H)
        assert r.status_code == 422 and "no card found" in r.json()["problem"]
        table["now"] = add
        r = client.post("/api/calibrate/word", json={"word": "add"}, headers=H)
        assert r.status_code == 200 and r.json() == {"ok": True, "word": "ADD"}, r.text
        table["now"] = both
        r = client.post("/api/calibrate/word", json={"word": "REMOVE"}, headers=H)
        assert r.status_code == 200, r.text
        for bad in ({"word": "JACK"}, {}, {"word": "ADD", "seat": "1"}, {"word": 1}):
            r = client.post("/api/calibrate/word", json=bad, headers=H)
            assert r.status_code == 400, bad
        saved = client.post("/api/calibrate/save", json={}, headers=H).json()
    assert saved["ok"] and saved["jewish"] == str(references_path(tmp_path / "cal.json"))
    refs = JewishReferences.load(saved["jewish"])
    assert refs.words == {"ADD", "REMOVE"} and len(refs.codes) == 102
