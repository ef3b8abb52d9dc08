"""The first-run guide behind ``seqboard setup``: questions in the terminal, the page following.

It asks, in order: the edition, the players and teams (names, the Pi's seats), the page's
port, where the board is read (camera or matrix) and checks it (the camera's live picture on
the page, then calibration; the matrix's link and sensors), walks the LEDs and buttons, sets
a PIN that stays, writes and checks the configuration, offers the service and a remote game,
and ends with the page's address as a QR code, printed and shown on the page.

Nothing is written before the last question about the file; an existing file is its
answers' defaults and is replaced only when the user says so (the old one kept as
``FILE.bak``). Every question reads a line; the end of input stops the guide with nothing
written. Example (what the tests do)::

    Guide(Path("seqboard.toml"), inp=io.StringIO("classic\\n2\\n..."), out=sys.stdout).run()
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable

from ..errors import UserError

STEPS = ["game", "page", "board", "lights and buttons", "PIN", "configuration", "service",
         "remote game", "done"]
BUTTON_WAIT = 20.0          # seconds a button press is waited for
LINK_WAIT = 5.0             # seconds the matrix has to greet, and then to send a reading


class InputEnded(UserError):
    """The answers ran out (Ctrl-D, or a script too short)."""


class Preview:
    """The camera as the page shows it while the guide runs: the latest frame, read afresh
    from a live camera a few times a second, the last one read from a file or folder."""

    def __init__(self, src) -> None:
        import threading
        self.src = src
        self.lock = threading.Lock()
        self.last = None

    def read(self):
        with self.lock:
            frame = self.src.read()
        if frame is not None:
            self.last = frame
        return frame

    def annotated(self):
        if not getattr(self.src, "recorded", False) and self.lock.acquire(blocking=False):
            try:
                frame = self.src.read()
                if frame is not None:
                    self.last = frame
            finally:
                self.lock.release()
        return self.last


def _is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def qr_text(url: str) -> str:
    """The address as a QR code drawn with block characters (two modules a line)."""
    import io

    import segno
    buf = io.StringIO()
    segno.make(url, error="m").terminal(out=buf, compact=True, border=2)
    return buf.getvalue()


class Guide:
    def __init__(self, path: Path, *, inp=None, out=None, page: bool = True,
                 page_port: int | None = None, mock_gpio: bool = False,
                 button_wait: float = BUTTON_WAIT, link_wait: float = LINK_WAIT) -> None:
        self.path = Path(path).expanduser()
        self.inp = inp if inp is not None else sys.stdin
        self.out = out if out is not None else sys.stdout
        self.page = page
        self.page_port = page_port
        self.mock_gpio = mock_gpio
        # answers typed here or sent from the page, whichever comes first: (where, text)
        import queue
        import threading
        self.answers: queue.Queue = queue.Queue()
        self._want = threading.Event()            # the terminal's reader may read a line
        self._reading = False
        self._reader: threading.Thread | None = None
        self._terminal_open = True
        self._question: dict | None = None
        self._current = "game"
        self.button_wait = button_wait
        self.link_wait = link_wait
        self.values: dict[tuple[str, str], Any] = {}     # (section, key) -> the answer
        self.dash = None
        self.preview = None
        self.done: list[str] = []
        self.start_remote: list[str] | None = None

    # --- talking -------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def line(self, prompt: str, options: list[str] | None = None, default: str = "",
             problem: str | None = None) -> str:
        """One answer: typed here, or (while the page runs) sent from the page."""
        print(prompt, end="", file=self.out, flush=True)
        if self.dash is None:
            text = self.inp.readline()
            if text and not _is_tty(self.inp):
                print(text.rstrip("\n"), file=self.out, flush=True)    # answers from a script
        else:
            self._question = {"text": prompt.rstrip(": "), "options": options or [],
                              "default": default, "problem": problem}
            self.show(self._current)
            text = self._next_answer()
            self._question = None
        if not text:
            print(file=self.out)
            written = "configuration" in self.done
            raise InputEnded("setup: the input ended before the last answer; "
                             + (f"{self.path} was written and checked" if written else
                                f"nothing written to {self.path}"))
        return text.strip()

    def _read_terminal(self) -> None:
        while True:
            self._want.wait()
            self._want.clear()
            text = self.inp.readline()
            self._reading = False
            self.answers.put(("terminal", text))
            if not text:
                return

    def _next_answer(self) -> str:
        import threading
        if self._reader is None:
            self._reader = threading.Thread(target=self._read_terminal, daemon=True,
                                            name="setup-terminal")
            self._reader.start()
        if self._terminal_open and not self._reading:
            self._reading = True
            self._want.set()
        while True:
            where, text = self.answers.get()
            if where == "page":
                print(text, file=self.out, flush=True)       # the transcript shows it
                return text + "\n"
            if text:
                if not _is_tty(self.inp):
                    print(text.rstrip("\n"), file=self.out, flush=True)
                return text
            self._terminal_open = False
            print(f"(the terminal's input ended: answer on the page, {self.url})",
                  file=self.out, flush=True)

    def answer_from_page(self, text: str) -> bool:
        """An answer sent from the page; False when no question is waiting."""
        if self._question is None:
            return False
        self.answers.put(("page", text))
        return True

    def ask(self, question: str, default: Any, parse: Callable[[str], Any] = str,
            options: list[str] | None = None) -> Any:
        """A question with its default in brackets; asked again after a wrong answer."""
        shown = default if not isinstance(default, list) else ", ".join(map(str, default))
        problem = None
        while True:
            text = self.line(f"{question} [{shown}]: ", options, str(shown), problem)
            if not text:
                return default
            try:
                return parse(text)
            except ValueError as exc:
                problem = str(exc)
                self.say(f"  {exc}")

    def yes(self, question: str, default: bool) -> bool:
        def parse(t: str) -> bool:
            t = t.lower()
            if t in ("y", "yes"):
                return True
            if t in ("n", "no"):
                return False
            raise ValueError("answer y or n")
        text = self.ask(f"{question} (y/n)", "y" if default else "n", parse, ["y", "n"])
        return text if isinstance(text, bool) else text == "y"

    def choose(self, question: str, options: list[str], default: str) -> str:
        def parse(t: str) -> str:
            t = t.lower()
            hits = [o for o in options if o.startswith(t)]
            if len(hits) == 1:
                return hits[0]
            raise ValueError(f"one of {', '.join(options)}")
        return self.ask(f"{question} ({' / '.join(options)})", default, parse, options)

    def step(self, name: str, **extra) -> None:
        """A new part of the guide: a heading here, the list of steps on the page."""
        self.say()
        self.say(f"== {name} ==")
        self.show(name, **extra)

    def show(self, current: str, **extra) -> None:
        self._current = current
        if extra:
            self._extra = extra
        elif getattr(self, "_extra_step", None) != current:
            self._extra = {}
        self._extra_step = current
        if self.dash is not None:
            self.dash.setup_state({"steps": STEPS, "current": current, "done": list(self.done),
                                   "question": self._question, **self._extra})

    # --- the configuration -------------------------------------------------------------------
    def current(self, section: str, key: str) -> Any:
        if (section, key) in self.values:
            return self.values[(section, key)]
        return self.cfg[section][key]

    def set(self, section: str, key: str, value: Any) -> None:
        self.values[(section, key)] = value

    def read_existing(self) -> None:
        """The existing file's values as the defaults (each default where a value is wrong)."""
        from hw_config.config import SCHEMA, ConfigError, read_raw, validate

        from ..settings import game_checks
        self.cfg = {s: {k: v.default for k, v in keys.items()} for s, keys in SCHEMA.items()}
        self.problems: list[str] = []
        if not self.path.exists():
            return
        try:
            self.cfg, self.problems = validate(read_raw(str(self.path)), game_checks)
        except ConfigError as exc:
            self.problems = exc.problems

    def again(self) -> bool:
        """False when the user keeps the existing file as it is."""
        if not self.path.exists():
            return True
        self.say(f"{self.path} exists: its answers are the defaults below, and it is replaced "
                 f"only if you say so at the end.")
        if not self.yes("go through the setup again?", True):
            self.say(f"left {self.path} as it is")
            return False
        for p in self.problems[:5]:
            self.say(f"  (in the file now: {p})")
        return True

    # --- the steps -----------------------------------------------------------------------------
    def run(self) -> int:
        self.read_existing()
        try:
            self.start_page()
            if not self.again():
                return 0
            self.game()
            self.page_step()
            self.board()
            self.lights()
            self.pin()
            if not self.write():
                return 0
            self.service()
            self.remote()
            self.finish()
        finally:
            if self.dash is not None:
                self.dash.stop()
            if self.preview is not None:
                self.preview.src.close()
        if self.start_remote:
            from ..cli import main
            self.say(f"starting: seqboard {' '.join(self.start_remote)}")
            return main(self.start_remote)
        return 0

    def game(self) -> None:
        from engine.editions import get_edition
        self.step("game")
        self.say("Which game, and who plays.")
        edition = self.choose("edition", ["classic", "travel", "jewish"],
                              self.current("game", "edition"))
        ed = get_edition(edition)
        self.set("game", "edition", edition)
        counts = list(ed.player_counts)

        def players(t: str) -> int:
            if not t.isdigit() or int(t) not in counts:
                raise ValueError(f"{ed.title} is for {', '.join(map(str, counts))} players")
            return int(t)
        n = self.current("game", "players")
        n = self.ask("players at the table", n if n in counts else counts[0], players)
        self.set("game", "players", n)
        teams = ed.valid_teams(n)
        chosen = ed.teams_for(n)
        if len(teams) > 1:
            def team_count(t: str) -> int:
                if not t.isdigit() or int(t) not in teams:
                    raise ValueError(f"{n} players play in {' or '.join(map(str, teams))} teams")
                return int(t)
            chosen = self.ask("teams", chosen, team_count)
        self.set("game", "teams", chosen if len(teams) > 1 else 0)
        self.say(f"  {n} players in {chosen} teams" + (" (each player alone)" if chosen == n else ""))
        colours = self.current("game", "colours")
        colour_words = {"B": "blue", "G": "green", "R": "red"}

        def colour_list(t: str) -> list[str]:
            v = [c.strip()[:1].upper() for c in t.replace(",", " ").split()]
            if len(v) < chosen or len(set(v)) != len(v) or not set(v) <= {"B", "G", "R"}:
                raise ValueError(f"{chosen} different of B (blue), G (green), R (red)")
            return v
        picked = self.ask("chip colour of each team in seat order (B blue, G green, R red)",
                          colours, colour_list)
        self.set("game", "colours", picked)
        self.say("  teams: " + ", ".join(colour_words[c] for c in picked[:chosen]))
        names = self.current("game", "names")

        def name_list(t: str) -> list[str]:
            if t == "-":
                return []
            v = [x.strip() for x in t.split(",")]
            if len(v) != n or not all(0 < len(x) <= 40 and x.isprintable() for x in v):
                raise ValueError(f"{n} names separated by commas (or - for none)")
            return v
        got = self.ask("players' names in seat order, separated by commas (- for none)",
                       names if len(names) == n else "-", name_list)
        self.set("game", "names", [] if got == "-" else got)

        def seats(t: str) -> list[int]:
            if t == "-":
                return []
            try:
                v = [int(x) for x in t.replace(",", " ").split()]
            except ValueError:
                raise ValueError(f"seat numbers from 1 to {n}, or - for none") from None
            if not all(1 <= s <= n for s in v) or len(set(v)) != len(v):
                raise ValueError(f"seat numbers from 1 to {n}, each once, or - for none")
            return v
        pi = [s for s in self.current("game", "computer_seats") if s <= n]
        pi = self.ask("seats the Pi plays in `seqboard play` (e.g. 2; - for none)",
                      pi or "-", seats)
        self.set("game", "computer_seats", [] if pi == "-" else pi)
        if self.values[("game", "computer_seats")]:
            self.set("game", "computer_level", self.choose(
                "the Pi's strength", ["easy", "medium", "hard", "greedy", "random"],
                self.current("game", "computer_level")))
        self.done.append("game")

    def start_page(self) -> None:
        """The setup view on the page, from the start: the same questions, answered there
        or here, with the camera's picture and the QR code at the end."""
        if not self.page:
            return
        from ..dashboard import Dashboard
        # page_port 0: any free port (the tests); None: the configured one
        port = self.page_port if self.page_port is not None else self.current("dashboard", "port")
        pin = self.current("dashboard", "pin") or None
        dash = Dashboard(None, Path(self.current("records", "dir")).expanduser(), None,
                         pin=pin, host=self.current("dashboard", "host"), port=port,
                         setup=True)
        dash.setup_answer = self.answer_from_page
        try:
            url = dash.start()
        except OSError as exc:
            self.say(f"(the page cannot start on port {port}: {exc.strerror}; the guide "
                     f"goes on here only)")
            return
        self.dash = dash
        self.url = url
        self.say(f"Answer here, or on the page: {url} (PIN {dash.pin} to answer there)")

    def page_step(self) -> None:
        self.step("page")
        self.say("The page shows the game to every phone, tablet and computer on the network.")

        def port(t: str) -> int:
            if not t.isdigit() or not 1 <= int(t) <= 65535:
                raise ValueError("a port number from 1 to 65535")
            return int(t)
        self.set("dashboard", "port", self.ask("the page's port during games",
                                               self.current("dashboard", "port"), port))
        self.set("dashboard", "enabled", True)
        self.done.append("page")

    def board(self) -> None:
        self.step("board")
        source = self.choose("where is the board read: a camera above it, or a sensor matrix "
                             "under it", ["camera", "matrix"], self.current("sensing", "source"))
        self.set("sensing", "source", source)
        if source == "camera":
            self.camera()
        else:
            self.matrix()
        self.done.append("board")

    def camera(self) -> None:
        from vision.sources import FrameSourceError, open_frames
        while True:
            device = self.ask('the camera: "picamera2", a V4L2 index such as 0, a video file '
                              'or a folder of images', self.current("camera", "device"))
            self.set("camera", "device", device)
            try:
                src = open_frames(device, self.current("camera", "width"),
                                  self.current("camera", "height"), self.current("camera", "fps"))
            except (FrameSourceError, OSError, RuntimeError, ImportError) as exc:
                self.say(f"  cannot open the camera {device}: {exc}")
                if self.yes("try another camera?", True):
                    continue
                return
            self.preview = Preview(src)
            frame = self.preview.read()
            if frame is None:
                self.say(f"  no picture from {device}")
                src.close()
                self.preview = None
                if self.yes("try another camera?", True):
                    continue
                return
            break
        h, w = frame.shape[:2]
        self.say(f"  the camera gives {w} x {h} pictures")
        if self.dash is not None:
            self.dash.source = self.preview
            self.show("board", camera=True)
            self.say(f"  aim it with the live picture on the page: {self.url}")
        self.calibrate()

    def calibrate(self) -> None:
        from ..sources.calibrator import Calibrator
        out = Path(str(self.current("camera", "calibration"))).expanduser()
        self.set("camera", "calibration", str(self.current("camera", "calibration")))
        layout = self.layout()
        frames_wanted = 5

        def frames():
            got = []
            recorded = getattr(self.preview.src, "recorded", False)
            settle = 0 if recorded else 10        # a live camera: let its exposure settle
            for k in range(frames_wanted + settle):
                f = self.preview.read()
                if f is None:
                    break
                if k >= settle:
                    got.append(f)
                self.show("board", camera=True, capturing=[k + 1, frames_wanted + settle])
                print(f"\r  capturing frame {k + 1}/{frames_wanted + settle}", end="",
                      file=self.out, flush=True)
            print(file=self.out)
            if not got and self.preview.last is not None:
                got = [self.preview.last]
            src = self.preview.src
            return got, (src.current_settings() if hasattr(src, "current_settings") else {})
        cal = Calibrator(layout, out, frames)
        while True:
            answer = self.line("Clear the board and aim the camera at it; Enter to calibrate, "
                               "s to skip: ").lower()
            if answer.startswith("s"):
                self.say("  not calibrated: `seqboard calibrate` does it later")
                return
            result = cal.capture()
            self.show("board", camera=True)
            if result["ok"]:
                self.piles(cal)
                saved = cal.save()
                if saved["ok"]:
                    self.say(f"  calibrated ({saved['method']}): saved {saved['path']}; check "
                             f"the picture {saved['picture']}")
                    for w in result["warnings"]:
                        self.say(f"  warning: {w}")
                    return
                self.say(f"  {saved['problem']}")
            else:
                self.say(f"  cannot calibrate: {result['problem']}")
            if not self.yes("try again?", True):
                self.say("  not calibrated: `seqboard calibrate` does it later (docs/calibration.md)")
                return

    def piles(self, cal) -> None:
        """Judging each chip against the card laid: where each seat's discard pile lies, from
        a card laid there (docs/cards.md). Saved with the calibration."""
        judge = self.yes("will the camera read the cards laid on the discard piles, to judge "
                         "each chip against its card?", bool(self.current("game", "judge_cards")))
        self.set("game", "judge_cards", judge)
        if not judge:
            return
        for seat in range(int(self.current("game", "players"))):
            while True:
                answer = self.line(f"Lay a card on player {seat + 1}'s discard pile, where it "
                                   f"will lie in the game; Enter when it lies there, s to skip: ")
                if answer.lower().startswith("s"):
                    self.say(f"  player {seat + 1}'s pile skipped: `seqboard calibrate --pile` "
                             f"learns it later; cards there are typed (k 5h) or tapped")
                    break
                got = cal.mark_pile(seat)
                self.show("board", camera=True)
                if got["ok"]:
                    self.say(f"  player {seat + 1}'s pile at ({got['x']:.0f}, {got['y']:.0f}), "
                             f"a card {got['card_px']:.0f} pixels long")
                    for w in got["warnings"]:
                        self.say(f"  warning: {w}")
                    break
                self.say(f"  {got['problem']}")
        if self.current("game", "edition") == "jewish":
            self.word_cards(cal)

    def word_cards(self, cal) -> None:
        """The Jewish Edition's ADD and REMOVE cards, each laid in view and kept as
        ``seqboard calibrate --word-card`` keeps it: the camera reads them on the piles by
        these (docs/cards.md). Saved with the calibration."""
        for code in ("ADD", "REMOVE"):
            while True:
                answer = self.line(f"Lay one {code} card in view, beside the board (leave the "
                                   f"cards laid before where they lie); Enter when it lies "
                                   f"there, s to skip: ")
                if answer.lower().startswith("s"):
                    article = "an" if code == "ADD" else "a"
                    self.say(f"  no {code} card kept: the camera reads it as unknown, so "
                             f"{article} {code} card laid is typed or tapped; `seqboard "
                             f"calibrate --word-card {code.lower()}:FILE` keeps one later")
                    break
                got = cal.mark_word(code)
                self.show("board", camera=True)
                if got["ok"]:
                    self.say(f"  kept the {code} card")
                    break
                self.say(f"  {got['problem']}")

    def matrix(self) -> None:
        from firmware_bridge.link import LinkError, MatrixLink
        layout = self.layout()
        while True:
            port = self.ask("the matrix's serial port (or a pyserial URL)",
                            self.current("matrix", "port"))
            self.set("matrix", "port", port)
            link = MatrixLink(port, baud=self.current("matrix", "baud"))
            try:
                link.start(wait=self.link_wait)
                hello = link.hello
                snap = self.fresh_reading(link)
            except (LinkError, OSError) as exc:
                self.say(f"  cannot reach the matrix on {port}: {exc}")
                link.stop()
                if self.yes("try another port?", True):
                    continue
                return
            try:
                if (hello.rows, hello.cols) != (layout.rows, layout.cols):
                    self.say(f"  the board on {port} is {hello.rows} x {hello.cols}; the game "
                             f"needs {layout.rows} x {layout.cols}")
                elif snap is None:
                    self.say(f"  the board on {port} answered but sent no reading")
                else:
                    held = sum(1 for v in snap.spaces if v)
                    self.say(f"  the matrix answers on {port}: {hello.rows} x {hello.cols} "
                             f"spaces, {held} of them hold a chip")
                    return
            finally:
                link.stop()
            if not self.yes("try another port?", True):
                return

    def fresh_reading(self, link):
        """A reading the board sends when asked, after its greeting (not one from before)."""
        first = link.wait_snapshot(self.link_wait)
        seen = first.serial if first is not None else 0
        link.request_snapshot()
        end = time.monotonic() + self.link_wait
        while time.monotonic() < end:
            s = link.latest_snapshot()
            if s is not None and s.serial > seen:
                return s
            time.sleep(0.01)
        return link.latest_snapshot()

    def layout(self):
        from engine.game import builtin_layout
        return builtin_layout(self.current("game", "edition"))

    def lights(self) -> None:
        self.step("lights and buttons")
        wired = self.yes("are LEDs, a buzzer or buttons wired to the Pi's GPIO pins?",
                         bool(self.current("gpio", "enabled")) and self.path.exists())
        self.set("gpio", "enabled", wired)
        if not wired:
            self.done.append("lights and buttons")
            return
        from gpiozero import Device
        if self.mock_gpio:
            from gpiozero.pins.mock import MockFactory
            if not isinstance(Device.pin_factory, MockFactory):
                Device.pin_factory = MockFactory()
        else:
            from ..app import real_pin_factory
            try:
                real_pin_factory()
            except UserError as exc:
                self.say(f"  {str(exc).split(': ', 1)[-1]}")
                self.say("  the pins are written as they are, unchecked (`seqboard setup "
                         "--mock-gpio` tries the guide anywhere)")
                self.done.append("lights and buttons")
                return
        teams = self.values.get(("game", "teams")) or self.team_count()
        turn = list(self.current("gpio", "turn_leds"))[:teams]
        words = {"B": "blue", "G": "green", "R": "red"}
        colours = self.current("game", "colours")
        for t in range(teams):
            pin = turn[t] if t < len(turn) else 0
            pin = self.walk_led(f"the turn LED of {words[colours[t]]}", pin)
            if t < len(turn):
                turn[t] = pin
            elif pin:
                turn.append(pin)
        self.set("gpio", "turn_leds", [p for p in turn if p])
        for key, what in (("sequence_led", "the sequence LED"), ("dead_card_led", "the dead-card LED"),
                          ("illegal_led", "the illegal-move LED"), ("buzzer", "the buzzer")):
            self.set("gpio", key, self.walk_led(what, self.current("gpio", key), buzzer=key == "buzzer"))
        for key, what in (("confirm_button", "the confirm button"), ("undo_button", "the undo button")):
            self.set("gpio", key, self.walk_button(what, self.current("gpio", key)))
        self.done.append("lights and buttons")

    def team_count(self) -> int:
        from engine.editions import get_edition
        return get_edition(self.current("game", "edition")).teams_for(self.current("game", "players"))

    def ask_pin(self, what: str) -> int:
        def parse(t: str) -> int:
            if t == "-" or t == "0":
                return 0
            if not t.isdigit() or not 2 <= int(t) <= 27:
                raise ValueError("a BCM GPIO number from 2 to 27, or - for none")
            return int(t)
        got = self.ask(f"  on which GPIO is {what}? (- for none)", "-", parse)
        return 0 if got == "-" else got

    def walk_led(self, what: str, pin: int, buzzer: bool = False) -> int:
        """Light ``what`` on its pin and ask if it is; another pin when it is not."""
        from gpiozero import GPIOPinInUse, OutputDevice
        while pin:
            try:
                dev = OutputDevice(pin)
            except GPIOPinInUse:
                self.say(f"  GPIO{pin} is already used here")
                pin = self.ask_pin(what)
                continue
            try:
                dev.on()
                if buzzer:
                    time.sleep(0.3)
                    dev.off()
                    ok = self.yes(f"{what} (GPIO{pin}) sounded: did you hear it?", True)
                else:
                    ok = self.yes(f"{what} (GPIO{pin}) is on now: is it lit?", True)
            finally:
                dev.close()
            if ok:
                return pin
            pin = self.ask_pin(what)
        return 0

    def walk_button(self, what: str, pin: int) -> int:
        from gpiozero import Button, GPIOPinInUse
        while pin:
            try:
                button = Button(pin)
            except GPIOPinInUse:
                self.say(f"  GPIO{pin} is already used here")
                pin = self.ask_pin(what)
                continue
            try:
                self.say(f"press {what} (GPIO{pin}) now ...")
                pressed = button.wait_for_press(timeout=self.button_wait)
            finally:
                button.close()
            if pressed:
                self.say(f"  {what} works")
                return pin
            self.say(f"  no press seen on GPIO{pin} in {self.button_wait:g} s")
            pin = self.ask_pin(what)
        return 0

    def pin(self) -> None:
        from hw_config.schema import PIN_MAX, PIN_MIN
        self.step("PIN")
        self.say("Acting from the page (undo, confirm, hints) needs a PIN; it is written to the "
                 "configuration and stays the same at every start.")
        now = self.current("dashboard", "pin")
        fresh = f"{secrets.randbelow(10 ** 6):06d}"

        def parse(t: str) -> str:
            if not PIN_MIN <= len(t) <= PIN_MAX or any(c.isspace() for c in t) or not t.isprintable():
                raise ValueError(f"{PIN_MIN} to {PIN_MAX} characters, no spaces")
            return t
        pin = self.ask("the PIN", now or fresh, parse)
        self.set("dashboard", "pin", pin)
        self.say(f"  the PIN is {pin}")
        self.done.append("PIN")

    def text(self) -> str:
        """The new file's text: the existing file (its comments kept) or the commented
        defaults, with every answer written in."""
        import tempfile

        from hw_config.config import default_text, set_key
        base = self.path.read_text("utf-8") if self.path.exists() else default_text()
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "seqboard.toml"
            p.write_text(base, "utf-8")
            for (section, key), value in self.values.items():
                set_key(str(p), section, key, value)
            return p.read_text("utf-8")

    def write(self) -> bool:
        from hw_config.config import ConfigError

        from ..settings import check
        self.step("configuration")
        text = self.text()
        tmp = self.path.with_name(self.path.name + ".new")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, "utf-8")
            os.chmod(tmp, 0o600)                 # it holds the PIN
        except OSError as exc:
            raise UserError(f"{tmp}: cannot write: {exc.strerror}") from None
        try:
            problems = check(str(tmp))
        except ConfigError as exc:
            problems = exc.problems
        if problems:
            tmp.unlink(missing_ok=True)
            raise UserError(f"setup: the answers make a configuration with mistakes, nothing "
                            f"written: {'; '.join(problems[:3])}")
        if self.path.exists():
            if not self.yes(f"replace {self.path} (the old one is kept as "
                            f"{self.path.name}.bak)?", False):
                tmp.unlink(missing_ok=True)
                self.say(f"left {self.path} as it was; nothing written")
                return False
            shutil.copy2(self.path, self.path.with_name(self.path.name + ".bak"))
        os.replace(tmp, self.path)
        self.say(f"wrote {self.path}; checked: ok (`seqboard config check {self.path}`)")
        self.done.append("configuration")
        return True

    def service(self) -> None:
        from ..commands.service import UNIT_PATH, unit_text
        self.step("service")
        mode = "play" if self.values.get(("game", "computer_seats")) else "referee"
        config = str(self.path.resolve())
        exe = shutil.which("seqboard") or "seqboard"
        command = f"sudo {exe} service install --mode {mode} --config {shlex.quote(config)}"
        if not self.yes(f"start seqboard {mode} at every boot (a systemd service)?", False):
            self.say(f"  later: {command}")
            return
        if os.geteuid() != 0 or not shutil.which("systemctl"):
            self.say(f"  installing it needs root and systemd: run {command}")
            return
        import getpass
        import subprocess
        user = os.environ.get("SUDO_USER") or getpass.getuser()
        try:
            UNIT_PATH.write_text(unit_text(user, mode, config), "utf-8")
            for cmd in (["systemctl", "daemon-reload"], ["systemctl", "enable", "seqboard"]):
                subprocess.run(cmd, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            self.say(f"  the service was not installed: {exc}")
            return
        self.say(f"  installed {UNIT_PATH}: `seqboard {mode}` starts at the next boot "
                 f"(now: sudo systemctl start seqboard)")
        self.done.append("service")

    def remote(self) -> None:
        from hw_config.schema import board_name, host
        self.step("remote game")
        choice = self.choose("play with a board elsewhere over an MQTT broker (docs/remote.md)?",
                             ["no", "create", "join"], "no")
        if choice == "no":
            return

        def check(fn) -> Callable[[str], str]:
            def parse(t: str) -> str:
                problem = fn(t)
                if problem:
                    raise ValueError(f"expected {problem}")
                return t
            return parse
        broker = self.ask("the broker's address", self.current("remote", "host"), check(host))
        board = self.ask("this board's name (letters, digits, - and _)",
                         self.current("remote", "board") or "-",
                         lambda t: "" if t == "-" else check(board_name)(t))
        changes = {("remote", "host"): broker, ("remote", "board"): "" if board == "-" else board}
        code = "create"
        if choice == "join":
            def join_code(t: str) -> str:
                if len(t) < 4 or not t.isprintable() or " " in t:
                    raise ValueError("the code, e.g. K7QF-3MZD-9TXA-2BCD")
                return t
            code = self.ask("the join code the other board printed", "-", join_code)
        from hw_config.config import set_key
        for (s, k), v in changes.items():
            set_key(str(self.path), s, k, v)
        command = ["play", "--remote", code, "--config", str(self.path)]
        self.say(f"  wrote [remote] host = {broker!r}; the game: seqboard {shlex.join(command)}")
        if code != "-" and self.yes("start it now, after the guide?", False):
            self.start_remote = command
        self.done.append("remote game")

    def finish(self) -> None:
        from ..dashboard import _lan_address
        port = self.values[("dashboard", "port")]
        host = self.current("dashboard", "host")
        shown = _lan_address() if host in ("0.0.0.0", "", "::") else host
        url = f"http://{shown}:{port}/"
        self.done.append("done")
        self.step("done", url=url, qr=True)
        self.say(f"The page, for every phone at the table: {url} (PIN "
                 f"{self.values[('dashboard', 'pin')]})")
        self.say(qr_text(url))
        source = self.current("sensing", "source")
        mode = "play" if self.values.get(("game", "computer_seats")) else "referee"
        self.say(f"Start a game: seqboard {mode} --config {shlex.quote(str(self.path))}"
                 + ("" if source == "matrix" else " (the camera is read as calibrated)"))
        if self.dash is not None:
            self.dash.qr_url = url
            self.show("done", url=url, qr=True)
            self.line("the page shows the QR code too; Enter to close it: ")
