"""`seqboard setup`: the first-run guide driven by typed answers, on real fakes (a folder of
synthetic camera frames, the emulated matrix on a pty, gpiozero's MockFactory)."""

from __future__ import annotations

import io
import json
import threading
import time
import tomllib
import urllib.request

import cv2
import numpy as np
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from seqboard.cli import main
from seqboard.modes.setup import Guide


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home of its own: the calibration and records land in it, not in the user's."""
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def pins():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


class Transcript(io.StringIO):
    """What the guide says; ``on(text, fn)`` runs ``fn`` in the guide's own thread the moment
    it says ``text`` (a person at the table doing what they are told, with no thread racing
    the guide)."""

    def __init__(self) -> None:
        super().__init__()
        self.hooks: list[tuple[str, object]] = []

    def on(self, text: str, fn) -> None:
        self.hooks.append((text, fn))

    def write(self, s: str) -> int:
        n = super().write(s)
        for text, fn in self.hooks:
            if text in s:
                fn()
        return n


class Answers(io.StringIO):
    """Typed answers, one a line; at each question it notes the question and which GPIO
    outputs were on while it was asked, and lets ``at(text, fn)`` look at things then.

    An answer may be ``(words, answer)``: given only when the question asked contains
    ``words``. Any other question, or one more than there are answers, stops the script
    there (an empty line) and sets :attr:`stuck` (what was asked), so that
    :func:`run_guide` fails at once with the transcript instead of waiting for the page."""

    def __init__(self, lines: list, out: io.StringIO, factory=None) -> None:
        self.expected = [x if isinstance(x, tuple) else (None, x) for x in lines]
        super().__init__("".join(a + "\n" for _, a in self.expected))
        self.out, self.factory = out, factory
        self.asked: list[tuple[str, set[int]]] = []
        self.hooks: list[tuple[str, object]] = []
        self.stuck: str | None = None
        self.done = threading.Event()

    def at(self, text: str, fn) -> None:
        self.hooks.append((text, fn))

    def readline(self, *a):
        question = self.out.getvalue().rsplit("\n", 1)[-1]
        lit = set()
        if self.factory is not None:
            lit = {int(n.name[4:]) for n, p in list(self.factory.pins.items())
                   if p.function == "output" and p.state}
        k = len(self.asked)
        self.asked.append((question, lit))
        if k >= len(self.expected):
            self.stuck = f"asked {question!r} after the last answer"
        elif self.expected[k][0] is not None and self.expected[k][0] not in question:
            self.stuck = f"asked {question!r} where {self.expected[k][0]!r} was expected"
        if self.stuck:
            self.done.set()
            self.seek(0, io.SEEK_END)
            return ""
        for text, fn in self.hooks:
            if text in question:
                fn()
        return super().readline(*a)


def lit_when(answers: Answers, text: str) -> set[int]:
    hits = [lit for q, lit in answers.asked if text in q]
    assert hits, f"never asked {text!r}"
    return hits[0]


def press(factory, pin: int):
    """A button pressed (and held) on the mock pin factory: its pin driven low."""
    return lambda: factory.pin(pin).drive_low()


def run_guide(guide, out: io.StringIO, answers: Answers | None = None,
              limit: float = 600) -> int:
    """``guide.run()``, failing with the transcript when the scripted answers met a question
    they did not expect, or when it does not end within ``limit`` seconds (answers that ran
    out leave it waiting for the page: a hang, not a failure)."""
    result = {}

    def run():
        try:
            result["code"] = guide.run()
        finally:
            if answers is not None:
                answers.done.set()
    t = threading.Thread(target=run, daemon=True)
    t.start()
    if answers is not None:
        answers.done.wait(limit)
        assert answers.stuck is None, f"{answers.stuck}; the transcript:\n" + out.getvalue()
    t.join(limit)
    assert not t.is_alive(), "the guide is still waiting; its transcript:\n" + out.getvalue()
    assert "code" in result, "the guide failed; its transcript:\n" + out.getvalue()
    return result["code"]


def decode_printed_qr(text: str) -> str:
    """The QR code printed with half blocks read back as a picture by OpenCV."""
    runs, run = [], []
    for ln in text.split("\n"):                 # the longest run of lines drawn in blocks
        if ln and set(ln) <= set("█▀▄ ") and "█" in ln:
            run.append(ln)
        else:
            runs.append(run)
            run = []
    rows = max(runs + [run], key=len)
    width = max(map(len, rows))
    top = {"█": 255, "▀": 255, "▄": 0, " ": 0}
    bottom = {"█": 255, "▀": 0, "▄": 255, " ": 0}
    grid = []
    for ln in rows:
        ln = ln.ljust(width)
        grid.append([top[c] for c in ln])
        grid.append([bottom[c] for c in ln])
    if not any(grid[-1]):                   # an odd number of rows: the last half is blank
        grid[-1] = [255] * len(grid[-1])
    # OpenCV's detector misses about one code in fifty at any one scale: try a few
    for scale in (8, 6, 10, 5, 12):
        img = np.kron(np.array(grid, np.uint8), np.ones((scale, scale), np.uint8))
        img = cv2.copyMakeBorder(img, 4 * scale, 4 * scale, 4 * scale, 4 * scale,
                                 cv2.BORDER_CONSTANT, value=255)
        for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
            data, _, _ = detector.detectAndDecode(img)
            if data:
                return data
    return ""


def test_setup_with_a_camera_calibrates_walks_the_gpio_and_ends_with_a_qr_code(home, pins):
    from engine.game import builtin_layout
    from engine.observation import Observation
    from vision.synth import Conditions, render

    frames = home / "frames"
    frames.mkdir()
    img = render(builtin_layout("classic"), Observation.empty(10, 10), Conditions(tilt_deg=12),
                 seed=1, jitter=0).image
    cv2.imwrite(str(frames / "empty.png"), img)
    port = 8099               # the page's port during games: written, not bound here
    config = home / "board.toml"
    out = Transcript()
    # each answer with the words of its question: a question more or fewer stops the test
    # there, with the transcript, instead of shifting the answers after it
    answers = Answers([
        ("edition", "classic"), ("players at the table", "3"), ("chip colour", "B G R"),
        ("names", "Ann, Bob, Cy"), ("seats the Pi plays", "2"), ("strength", "medium"),
        ("port during games", str(port)),                            # the page
        ("where is the board read", "camera"), ("the camera:", str(frames)),
        ("Enter to calibrate", ""),                                  # calibrate
        # judge with cards: no card laid yet on player 1's pile, then each pile skipped
        ("read the cards laid", "y"), ("player 1's discard pile", ""),
        ("player 1's discard pile", "s"), ("player 2's discard pile", "s"),
        ("player 3's discard pile", "s"),
        ("GPIO pins", "y"),                                          # GPIO wired
        ("turn LED of blue", "y"), ("turn LED of green", "y"), ("turn LED of red", "y"),
        ("sequence LED (GPIO19)", "n"), ("on which GPIO is the sequence LED", "24"),
        ("sequence LED (GPIO24)", "y"),                              # it is on 24
        ("dead-card LED", "y"), ("illegal-move LED", "y"), ("buzzer", "y"),
        ("the PIN", "2468"),
        ("at every boot", "n"),                                      # no service
        ("board elsewhere", "n"),                                    # no remote game
        ("Enter to close", ""),                                      # close the page
    ], out, pins)
    page = {}

    def look_at_the_page():
        base = f"http://127.0.0.1:{guide.dash.port}"      # the setup page: any free port
        page["state"] = json.loads(urllib.request.urlopen(base + "/api/state", timeout=10).read())
        r = urllib.request.urlopen(base + "/qr.svg", timeout=10)
        page["qr"] = (r.headers["Content-Type"], r.read())
        page["camera"] = urllib.request.urlopen(base + "/camera.jpg", timeout=10).read()
    answers.at("Enter to close it", look_at_the_page)
    # a person at the table presses each button when told to: in the guide's own thread,
    # once the button is set up (a thread polling the pins raced its setting up, and a
    # press lost there cost the guide a question: seen once as a hang in CI)
    out.on("press the confirm button (GPIO16) now", press(pins, 16))
    out.on("press the undo button (GPIO12) now", press(pins, 12))
    guide = Guide(config, inp=answers, out=out, page=True, page_port=0, mock_gpio=True)
    code = run_guide(guide, out, answers)
    said = out.getvalue()
    assert code == 0, said
    cfg = tomllib.loads(config.read_text())
    assert cfg["game"]["edition"] == "classic" and cfg["game"]["players"] == 3
    assert cfg["game"]["names"] == ["Ann", "Bob", "Cy"]
    assert cfg["game"]["computer_seats"] == [2] and cfg["game"]["computer_level"] == "medium"
    assert cfg["sensing"]["source"] == "camera" and cfg["camera"]["device"] == str(frames)
    assert cfg["dashboard"]["pin"] == "2468" and cfg["dashboard"]["port"] == port
    assert cfg["gpio"]["enabled"] is True and cfg["gpio"]["sequence_led"] == 24
    assert cfg["gpio"]["confirm_button"] == 16 and cfg["gpio"]["undo_button"] == 12
    assert main(["config", "check", str(config)]) == 0
    # calibrated from the camera's picture, into the home's default place
    cal = home / ".local/share/seqboard/calibration.json"
    assert cal.exists() and "calibrated (" in said
    # judging with the cards laid: no card on player 1's pile yet (said so), then skipped
    assert cfg["game"]["judge_cards"] is True
    assert "no card found laid between the two pictures" in said
    assert "player 3's pile skipped" in said
    # each LED was lit while the guide asked about it
    assert 5 in lit_when(answers, "turn LED of blue") and 6 in lit_when(answers, "turn LED of green")
    assert 13 in lit_when(answers, "turn LED of red")
    assert 19 in lit_when(answers, "the sequence LED (GPIO19)")
    assert 24 in lit_when(answers, "the sequence LED (GPIO24)")
    assert 21 in lit_when(answers, "illegal-move LED")
    assert "the confirm button works" in said and "the undo button works" in said
    # the QR code printed decodes to the page's address, which the page shows too
    url = decode_printed_qr(said)
    assert url.startswith("http://") and url.endswith(f":{port}/"), said[said.find("== done"):]
    assert "state" in page, answers.asked[-4:]
    assert page["state"]["mode"] == "setup" and page["state"]["setup"]["url"] == url
    assert page["state"]["setup"]["qr"] is True and "configuration" in page["state"]["setup"]["done"]
    assert page["qr"][0] == "image/svg+xml" and b"<svg" in page["qr"][1]
    shot = cv2.imdecode(np.frombuffer(page["camera"], np.uint8), cv2.IMREAD_COLOR)
    assert shot.shape == img.shape                     # the live picture is the camera's



def jewish_setup(home, word_answers: list) -> tuple:
    """``seqboard setup`` of a Jewish Edition game read by the camera (a folder of frames):
    the empty board, then an ADD card laid on the table beside it, then a REMOVE card beside
    that; ``word_answers`` answer the word-card questions. Returns the transcript, the
    calibration file and the printing (its cards)."""
    from tests.vision.test_jewish_cards import word_cards_laid

    printing, lay, empty, add, both = word_cards_laid()
    frames = home / "frames"
    frames.mkdir()
    # one frame read when the camera is opened, then 5 by each step: calibration, Enter
    # before the ADD card is laid, the ADD card laid, the REMOVE card laid beside it
    for k, frame in enumerate([empty] * 11 + [add] * 5 + [both] * 5):
        cv2.imwrite(str(frames / f"{k:02d}.png"), frame)
    config = home / "board.toml"
    out = Transcript()
    answers = Answers([
        ("edition", "jewish"), ("players at the table", "2"), ("chip colour", ""),
        ("names", "-"), ("seats the Pi plays", "-"), ("port during games", "8080"),
        ("where is the board read", "camera"), ("the camera:", str(frames)),
        ("Enter to calibrate", ""), ("read the cards laid", "y"),
        ("player 1's discard pile", "s"), ("player 2's discard pile", "s"),
        *word_answers,
        ("GPIO pins", "n"), ("the PIN", "2468"), ("at every boot", "n"),
        ("board elsewhere", "n"),
    ], out)
    guide = Guide(config, inp=answers, out=out, page=False)
    assert run_guide(guide, out, answers) == 0
    said = out.getvalue()
    assert tomllib.loads(config.read_text())["game"]["edition"] == "jewish"
    cal = home / ".local/share/seqboard/calibration.json"
    assert cal.exists() and "calibrated (" in said, said
    return said, cal, printing


def test_setup_of_a_jewish_game_keeps_the_add_and_remove_cards_laid_in_view(home):
    from tests.vision.test_jewish_cards import pile
    from vision.cards.jewish import JewishReferences, read_jewish_pile, references_path
    said, cal, printing = jewish_setup(home, [
        ("Lay one ADD card in view", ""),           # Enter before it is laid: said, asked again
        ("Lay one ADD card in view", ""), ("Lay one REMOVE card in view", "")])
    assert "no card found laid since the last picture: lay the ADD card in view" in said
    assert "kept the ADD card" in said and "kept the REMOVE card" in said
    refs = JewishReferences.load(references_path(cal))
    assert refs.words == {"ADD", "REMOVE"} and len(refs.codes) == 102
    # in the game, an ADD or a REMOVE laid on a pile is read by the cards kept
    for word in ("ADD", "REMOVE"):
        before, after = pile(printing, word, seed=8)
        assert read_jewish_pile(after, before, None, refs).code == word


def test_setup_of_a_jewish_game_may_skip_the_word_cards(home):
    from vision.cards.jewish import JewishReferences, references_path
    said, cal, _ = jewish_setup(home, [("Lay one ADD card in view", "s"),
                                       ("Lay one REMOVE card in view", "s")])
    assert "no ADD card kept" in said and "no REMOVE card kept" in said
    assert "typed or tapped" in said and "--word-card remove:FILE" in said
    refs = JewishReferences.load(references_path(cal))     # the board's pictures all the same
    assert refs.words == set() and len(refs.codes) == 100

def test_setup_never_replaces_a_configuration_without_asking(home):
    from firmware_bridge.emulator import Emulator
    config = home / "board.toml"
    config.write_text('# mine\n[game]\nplayers = 2\n', "utf-8")
    before = config.read_bytes()
    # kept as it is at the first question
    out = io.StringIO()
    assert Guide(config, inp=Answers(["n"], out), out=out, page=False).run() == 0
    assert config.read_bytes() == before and "left" in out.getvalue()
    # gone through with the matrix, and refused at the end: nothing written
    emu = Emulator(10, 10, sensor="occupancy")
    emu.place(0)
    # a TCP port of its own: a pty's number is reused, and a link another test left
    # reconnecting to an old /dev/pts/N would read this board's answers
    port = emu.start_tcp(0)
    try:
        lines = ["y", "classic", "2", "", "-", "-", "8080", "matrix", port, "n", "", "n"]
        out = io.StringIO()
        assert Guide(config, inp=Answers(lines, out), out=out, page=False,
                     link_wait=30).run() == 0
        said = out.getvalue()
        board = said[said.find("== board"):said.find("== lights")]
        assert "the matrix answers on" in board and "1 of them hold a chip" in board, board
        assert config.read_bytes() == before and "nothing written" in said
        assert not list(home.glob("board.toml.*"))
        # said yes: replaced, the old one kept beside it, the comment kept
        out = io.StringIO()
        again = lines[:-1] + ["y", "n", "create", "broker.local", "north", "n"]
        assert Guide(config, inp=Answers(again, out), out=out, page=False,
                     link_wait=30).run() == 0
    finally:
        emu.stop()
    # the remote game chosen: written to [remote], and the command that starts it said
    assert f"seqboard play --remote create --config {config}" in out.getvalue()
    cfg = tomllib.loads(config.read_text())
    assert cfg["sensing"]["source"] == "matrix" and cfg["matrix"]["port"] == port
    assert len(cfg["dashboard"]["pin"]) == 6                 # a random PIN, written: it stays
    assert cfg["remote"]["host"] == "broker.local" and cfg["remote"]["board"] == "north"
    assert config.read_text().startswith("# mine")
    assert (home / "board.toml.bak").read_bytes() == before


def test_setup_stops_cleanly_when_the_answers_run_out(home, monkeypatch, capsys):
    config = home / "board.toml"
    monkeypatch.setattr("sys.stdin", io.StringIO("classic\n5\n"))
    assert main(["setup", "--config", str(config), "--no-page"]) == 2
    out, err = capsys.readouterr()
    assert "is for 2, 3, 4, 6, 8, 9, 10, 12 players" in out       # 5 asked again
    assert err.count("\n") == 1 and "nothing written" in err and "Traceback" not in err
    assert not config.exists()


class Silent:
    """A terminal nobody types at (the Pi without a keyboard): its reads wait."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    def readline(self, *a):
        self.closed.wait(120)
        return ""


def test_setup_answered_from_the_page_alone(home):
    """A Pi with no keyboard: every answer sent from a phone's page, with the PIN; a wrong
    answer is shown there and asked again; the file written is the same as typed."""
    from firmware_bridge.emulator import Emulator
    emu = Emulator(7, 7, sensor="occupancy")              # the travel board
    matrix = emu.start_tcp(0)                              # a port of its own (see above)
    port = 8099               # the page's port during games: written, not bound here
    config = home / "board.toml"
    config.write_text('[dashboard]\npin = "1357"\n', "utf-8")    # the file's PIN guards the page
    answers = [("go through the setup again", "y"), ("edition", "travel"),
               ("players at the table", "5"), ("players at the table", "2"),
               ("chip colour", ""), ("names", "Eva, Jan"), ("seats the Pi plays", "-"),
               ("port during games", str(port)), ("where is the board read", "matrix"),
               ("serial port", matrix), ("GPIO pins", "n"), ("the PIN", ""),
               ("replace", "y"), ("at every boot", "n"), ("board elsewhere", "no"),
               ("Enter to close", "")]
    out, terminal = io.StringIO(), Silent()
    guide = Guide(config, inp=terminal, out=out, page=True, page_port=0, link_wait=30)
    result = {}
    run = threading.Thread(target=lambda: result.update(code=guide.run()), daemon=True)

    def post(path, body, cookie=None):
        req = urllib.request.Request(f"http://127.0.0.1:{guide.dash.port}{path}",
                                     json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "X-Seqboard": "1",
                                      **({"Cookie": cookie} if cookie else {})})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read()), r.headers.get("Set-Cookie")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read()), None

    def state():
        with urllib.request.urlopen(f"http://127.0.0.1:{guide.dash.port}/api/state",
                                    timeout=10) as r:
            return json.loads(r.read())
    try:
        run.start()
        end = time.monotonic() + 60
        while guide.dash is None and time.monotonic() < end:       # the page starts first
            time.sleep(0.05)
        assert guide.dash is not None, out.getvalue()
        status, body, _ = post("/api/setup/answer", {"answer": "travel"})
        assert status == 401                                   # answering needs the PIN
        status, body, cookie = post("/api/login", {"pin": "1357"})
        assert status == 200, body
        cookie = cookie.split(";")[0]
        problems = []
        for want, answer in answers:
            end = time.monotonic() + 60
            while time.monotonic() < end:
                q = state().get("setup", {}).get("question")
                if q and want in q["text"]:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError(f"never asked {want!r}: {out.getvalue()[-600:]}")
            if q.get("problem"):
                problems.append(q["problem"])
            if want == "where is the board read":
                assert q["options"] == ["camera", "matrix"]
            status, body, _ = post("/api/setup/answer", {"answer": answer}, cookie)
            assert status == 200, body
            # the next question (or the same one again) replaces this one
            while time.monotonic() < end and want != "Enter to close":    # then it closes
                q2 = state().get("setup", {}).get("question")
                if q2 != q:
                    break
                time.sleep(0.05)
        run.join(60)
    finally:
        terminal.closed.set()
        emu.stop()
    said = out.getvalue()
    assert result.get("code") == 0, said
    assert problems == ["Sequence Travel is for 2, 3, 4 players"] or \
        problems and "players" in problems[0]
    cfg = tomllib.loads(config.read_text())
    assert cfg["game"]["edition"] == "travel" and cfg["game"]["players"] == 2
    assert cfg["game"]["names"] == ["Eva", "Jan"] and cfg["sensing"]["source"] == "matrix"
    assert cfg["dashboard"]["pin"] == "1357" and cfg["dashboard"]["port"] == port
    assert "the matrix answers on" in said and "Eva, Jan" in said     # the page's answers echoed
