"""Where stable observations come from: the camera (through ``vision``) or the sensor matrix
(through ``firmware_bridge``); and their simulated twins for the demo.

Each source implements :class:`seqboard.loop.Source`: ``poll(now)`` returns a new stable
:class:`~engine.observation.Observation` or None. Opening one checks the hardware and fails
with a :class:`UserError` naming the configuration key at fault.
"""

from __future__ import annotations

import time
from typing import Callable

from engine.observation import Observation, SpaceState

from ..errors import UserError
from ..session import Session


# --- the sensor matrix ----------------------------------------------------------------------
def occupancy_to_observation(occupied: list[bool], session: Session) -> Observation:
    """An occupancy-only board says where chips are, not their colour: a chip the game
    already has keeps its colour, a new chip is the colour of the team to move (the
    engine knows whose turn it is). Two new chips, or a wrong one, are still judged: the
    referee sees two chips, or a chip where there should be none."""
    r = session.referee
    states = []
    mover = SpaceState(r.colours[r.team])
    for i, occ in enumerate(occupied):
        c = r.board.cells[i]
        if not occ:
            states.append(SpaceState.EMPTY)
        elif c > 0:
            states.append(SpaceState(r.colours[c - 1]))
        else:
            states.append(mover)
    return Observation(r.layout.rows, r.layout.cols, tuple(states))


class Settler:
    """Decides on evidence which reading of the sensors is the board's: a reading counts once
    it has been seen in consecutive *distinct* snapshots (two at least, told apart by the
    link's ``serial``) spanning ``settle`` seconds or more, with no other reading in
    between; it is reported once, and again only after another was reported (or after
    :meth:`forget`). A snapshot stays the latest until the next one arrives, so its age
    alone proves nothing: one glitched or late snapshot is never a change.

    ``update(value, serial, at)`` takes each snapshot once (a serial already seen is
    ignored); ``at`` is when it arrived."""

    def __init__(self, settle: float) -> None:
        self.settle = settle
        self._value = None
        self._first_serial: int | None = None
        self._since = 0.0
        self._seen = 0                 # distinct snapshots showing the candidate in a row
        self._last_serial: int | None = None
        self._reported = None

    @property
    def pending(self) -> bool:
        """A reading differs from the last reported and waits for its confirmation."""
        return self._value is not None and self._value != self._reported

    @property
    def candidate_since(self) -> float:
        return self._since

    def update(self, value, serial: int, at: float):
        if serial == self._last_serial:
            return None
        self._last_serial = serial
        if value != self._value:
            self._value, self._since, self._first_serial, self._seen = value, at, serial, 1
            return None
        self._seen += 1
        if value is None or self._seen < 2 or at - self._since < self.settle \
                or value == self._reported:
            return None
        self._reported = value
        return value

    def reset(self) -> None:
        """Forget the candidate (the board went away): the next reading starts afresh."""
        self._value, self._seen, self._first_serial = None, 0, None

    def forget(self) -> None:
        """Report the current reading again even if unchanged (after an undo)."""
        self._reported = None


ERROR_SHOWN_FOR = 10.0     # seconds a board's error report stays on show
VERSION_SHOWN_FOR = 5.0    # seconds a frame of another protocol version keeps the problem up


class MatrixSource:
    """Stable observations from the sensor matrix. Only full snapshots are trusted, and only
    once confirmed (:class:`Settler`): a snapshot that differs from the last reading makes
    the source ask for another after ``settle`` seconds, and the change counts when that one
    (and any between) agrees. A board that comes back with another size or another protocol
    version is shown as a problem and nothing is judged until the right board is back."""

    def __init__(self, link, session: Session, settle: float = 0.3) -> None:
        self.link = link
        self.session = session
        self.settler = Settler(settle)
        self._asked_at = 0.0
        self._asked_serial: int | None = None
        session.subscribe(self._on_event)

    def _on_event(self, event, view) -> None:
        if event.kind in ("undo", "cleared"):
            self.settler.forget()

    def _mismatch(self, snap) -> str | None:
        """Why this board cannot be the game's board now, or None."""
        lay = self.session.referee.layout
        hello = getattr(self.link, "hello", None)
        if hello is not None and (hello.rows, hello.cols) != (lay.rows, lay.cols):
            return (f"the matrix board now reports {hello.rows} x {hello.cols} spaces, the game "
                    f"is on a {lay.rows} x {lay.cols} board; connect the board the game began "
                    f"on, the game waits")
        if snap is not None and len(snap.spaces) != lay.rows * lay.cols:
            return (f"the matrix board sent {len(snap.spaces)} spaces, the game is on a "
                    f"{lay.rows} x {lay.cols} board; the game waits")
        return None

    def _cards(self) -> None:
        """Cards the board's optional NFC card reader read (reader k stands before seat k):
        each laid for the session to judge its chip with (docs/cards.md)."""
        take = getattr(self.link, "take_cards", None)
        if take is None:
            return
        from engine.errors import EngineError
        s = self.session
        for reader, code in take():
            try:
                s.lay_card(s.parse_card(code), reader, via="nfc")
            except EngineError as exc:
                s._log_line("info", f"the card reader {reader + 1} sent {code!r}: {exc}")

    def poll(self, now: float) -> Observation | None:
        self._cards()
        snap = self.link.latest_snapshot()
        problem = self._report_link(snap)
        if snap is None or problem is not None:
            self.settler.reset()
            return None
        key = tuple(snap.spaces)
        serial = getattr(snap, "serial", 0)
        received = getattr(snap, "received", 0.0) or now
        settled = self.settler.update(key, serial, received)
        if settled is None:
            self._ask_for_confirmation(serial, now)
            return None
        # an occupancy board tells where chips are, not their colour: missed moves are
        # caught up with each new chip in the colour of the team that placed it
        self.session.colour_blind = not getattr(snap, "identity", False)
        if getattr(snap, "identity", False):
            r = self.session.referee
            # an identity board sends "occupied" for a chip whose tag it could not read:
            # that space is unknown, and the referee never judges an unknown space
            states = tuple(SpaceState.EMPTY if not v else
                           SpaceState.UNKNOWN if v == "occupied" else SpaceState(v)
                           for v in snap.spaces)
            return Observation(r.layout.rows, r.layout.cols, states)
        return occupancy_to_observation([bool(v) for v in snap.spaces], self.session)

    def _ask_for_confirmation(self, serial: int, now: float) -> None:
        """A new reading waits for a second snapshot: ask for it once ``settle`` has passed
        since the first, rather than wait for the link's once-a-second poll."""
        st = self.settler
        if not st.pending or now - st.candidate_since < st.settle:
            return
        if serial == self._asked_serial and now - self._asked_at < max(0.25, st.settle):
            return           # asked already; the answer is on its way
        request = getattr(self.link, "request_snapshot", None)
        if request is not None:
            self._asked_serial, self._asked_at = serial, now
            request()

    def _report_link(self, snap=None) -> str | None:
        """Tell the session what keeps the board from being judged; return it (or None)."""
        link = self.link
        state = link.state
        problem = None
        other = getattr(link, "other_version", None)
        if other is not None and time.monotonic() - other[0] < VERSION_SHOWN_FOR:
            problem = (f"the matrix board speaks protocol version {other[1]}, seqboard speaks "
                       f"version 1: update the board's firmware; nothing is judged, the game waits")
        errors = getattr(link, "board_errors", None) or []
        if problem is None and errors and errors[-1][1].startswith("protocol version") \
                and snap is None:
            problem = f"the matrix board: {errors[-1][1]}; nothing is judged, the game waits"
        if problem is None and state == "connected":
            problem = self._mismatch(snap)
        if problem is None:
            if state == "connected" and snap is not None:
                problem = None
            elif state == "connected":
                problem = "waiting for the matrix board's full state"
            else:
                problem = (f"the matrix board is not answering ({state}); reconnecting, "
                           f"nothing is judged until it is back")
        shown = problem
        if shown is None and errors and time.monotonic() - errors[-1][0] < ERROR_SHOWN_FOR:
            shown = f"the matrix board reports: {errors[-1][1]}"
        self.session.source_status(shown)
        return problem

    def close(self) -> None:
        self.link.stop()
        emu = getattr(self, "emulator", None)
        if emu is not None:
            emu.stop()


# --- the camera -----------------------------------------------------------------------------
class CameraSource:
    """Frames -> per-frame readings -> stable observations (vision's stabiliser decides when
    the board is still and uncovered). Keeps the latest frame and reading for the dashboard.
    A camera that stops sending frames for ``stall`` seconds ends the run with a clear line
    (the record is already safe on disk)."""

    def __init__(self, frames, reader, stabiliser, stall: float = 5.0, name: str = "camera",
                 session: Session | None = None) -> None:
        self.frames = frames
        self.reader = reader
        self.stabiliser = stabiliser
        self.stall = stall
        self.name = name
        self.session = session          # told of spaces that will not settle
        self.last_frame = None
        self.last_reading = None
        self._last_ok: float | None = None
        #: a recorded source (a video file or a folder): its frames' own time is used
        self.recorded = bool(getattr(frames, "recorded", False))
        self.finished = False
        self.frames_read = 0
        self.last_stamp: dict | None = None
        #: the discard piles watched for new cards (vision.cards.piles.PileWatcher), when
        #: the game judges chips with the cards laid and the piles are calibrated
        self.piles = None
        self._piles_problem_said = False

    def poll(self, now: float) -> Observation | None:
        frame = self.frames.read()
        if frame is None:
            if getattr(self.frames, "finished", False):
                self.finished = True       # the end of the file: the run ends, exit 0
                return None
            if self._last_ok is None:
                self._last_ok = now
            if now - self._last_ok > self.stall:
                raise UserError(f"camera.device: {self.name} stopped sending frames "
                                f"(no frame for {self.stall:.0f} s); the game is saved, "
                                f"start again to resume it")
            return None
        self._last_ok = now
        self.frames_read += 1
        t = float(self.frames.t) if self.recorded else now
        frame_no = getattr(self.frames, "frame_no", self.frames_read - 1)
        self.last_stamp = {"t": round(t, 3), "frame": int(frame_no)}
        if self.piles is not None and self.session is not None \
                and self.session.referee.judge_cards:
            from engine.errors import EngineError
            for seat, code in self.piles.update(frame):
                try:
                    self.session.lay_card(code, seat, via="camera")
                except EngineError as exc:     # a card read that is not of this edition
                    self.session._log_line("info", f"seat {seat + 1}'s pile: {exc}")
            if self.piles.problem and not self._piles_problem_said:
                self._piles_problem_said = True
                self.session._log_line("info", self.piles.problem)
        reading = self.reader.read(frame)
        self.last_frame, self.last_reading = frame, reading
        obs = self.stabiliser.update(reading, t, names=self.reader.layout.space_name)
        if self.session is not None and hasattr(self.stabiliser, "problems"):
            self.session.report_space_problems(self.stabiliser.problems)
        return obs

    def forget(self) -> None:
        self.stabiliser.forget()

    def annotated(self):
        """The latest frame with the grid and each space's reading drawn on it."""
        if self.last_frame is None or self.last_reading is None:
            return None
        from vision.draw import draw_reading
        return draw_reading(self.last_frame, self.last_reading)

    def close(self) -> None:
        self.frames.close()


def live_source_factory(cfg, speed: float = 1.0) -> Callable[[Session], object]:
    """Open the configured sensing now (so a missing device fails before anything is
    written); return a function that builds the source for a session. ``speed``: how fast
    a video file or folder plays, times its own rate (0: as fast as possible)."""
    if cfg["sensing.source"] == "camera":
        return _camera_factory(cfg, speed)
    return _matrix_factory(cfg)


def _camera_factory(cfg, speed: float = 1.0) -> Callable[[Session], object]:
    path = cfg.expand("camera.calibration")
    if not path.exists():
        raise UserError(f"camera.calibration: no calibration file at {path}; run "
                        f"`seqboard calibrate --out {path}` with the empty board in view first")
    from vision.calibration import CalibrationError, load_calibration
    from vision.reader import BoardReader
    from vision.sources import FrameSourceError, open_frames
    from vision.stabilise import Stabiliser
    try:
        calibration = load_calibration(path)
    except CalibrationError as exc:
        raise UserError(f"camera.calibration: {exc}") from None
    device = cfg["camera.device"]
    try:
        frames = open_frames(device, width=cfg["camera.width"], height=cfg["camera.height"],
                             fps=cfg["camera.fps"], calibration=calibration, speed=speed)
    except FrameSourceError as exc:
        raise UserError(f"camera.device: {exc}") from None

    def make(session: Session) -> CameraSource:
        lay = session.referee.layout
        if (lay.rows, lay.cols) != (calibration.rows, calibration.cols):
            raise UserError(f"camera.calibration: made for a {calibration.rows} x "
                            f"{calibration.cols} board, the game is {lay.rows} x {lay.cols}")
        reader = BoardReader(calibration, lay)
        src = CameraSource(frames, reader, Stabiliser(settle=cfg["camera.settle_seconds"]),
                           name=f"camera {device!r}", session=session)
        if session.referee.judge_cards:
            src.piles = _pile_watcher(path, session, getattr(frames, "still", None))
        session.subscribe(lambda ev, view: src.forget() if ev.kind in ("undo", "cleared") else None)
        return src
    return make


def _pile_watcher(calibration_path, session: Session, still=None):
    """The discard piles `seqboard calibrate --pile/--pile-card` learnt, watched for new
    cards; None (the cards are typed or tapped) when there are none. ``still``: the
    camera's full-resolution picture (the Pi camera), for piles too small in the stream."""
    from vision.cards.piles import PileError, PileWatcher, load_spots, piles_path
    path = piles_path(calibration_path)
    if not path.exists():
        session._log_line("info", f"no pile spots at {path}: type the cards laid (k 5h) or "
                                  f"tap them on the page (seqboard calibrate --pile-card)")
        return None
    try:
        spots, _ = load_spots(path)
    except PileError as exc:
        raise UserError(f"camera.calibration: {exc}") from None
    reader = None
    from vision.cards.jewish import picture_layout
    if picture_layout(session.referee.layout):
        reader = _jewish_reader(calibration_path, session)
        if reader is None:
            return None
    else:
        for text in card_reader_warnings():
            session._log_line("info", text)
    return PileWatcher(spots, still=still, reader=reader)


def _jewish_reader(calibration_path, session: Session):
    """The pile reader of a Jewish Edition game: the cards' pictures matched against the
    board's own, kept by `seqboard calibrate` (FILE.jewish.npz); None (the cards are typed
    or tapped) when there are none."""
    from vision.cards.jewish import WORDS, JewishReferences, pile_reader, references_path
    path = references_path(calibration_path)
    if not path.exists():
        session._log_line("info", f"no Jewish Edition pictures at {path}: calibrate again with "
                                  f"the empty board in view to read the cards; until then type "
                                  f"them (k menorah) or tap them on the page")
        return None
    try:
        refs = JewishReferences.load(path)
    except ValueError as exc:
        raise UserError(f"camera.calibration: {exc}") from None
    if not any(c not in WORDS for c in refs.codes):
        session._log_line("info", f"{path} holds no board pictures: calibrate again with the "
                                  f"empty board in view to read the picture cards")
    missing = [w for w in WORDS if w not in refs.words]
    if missing:
        session._log_line("info", f"no {' or '.join(missing)} card kept in {path}: the camera "
                                  f"reads it as unknown (type or tap it); keep one with "
                                  f"seqboard calibrate --word-card")
    return pile_reader(refs)


_CARD_WARNED: set[str] = set()


def card_reader_warnings(out=None) -> list[str]:
    """What is missing of the card readers' model files, each in one line with what reads
    instead; said once a process on ``out`` (the terminal's stderr) and in the log
    (``seqboard.cards``). Both models ship with seqboard: one missing is a broken install.
    Reading goes on without it, less surely (docs/cards.md, "The reader", step 6)."""
    import logging
    import sys

    from vision.cards import cardnet, midnet
    found = []
    try:
        cardnet.shipped()
    except cardnet.ModelError as exc:
        found.append(f"warning: {exc}; the classic reader reads the cards instead, less "
                     f"surely (more cards wait to be typed or tapped)")
    try:
        midnet.shipped()
    except cardnet.ModelError as exc:
        found.append(f"warning: {exc}; the index corners read the cards alone (a card with "
                     f"fingers over a corner waits to be typed or tapped)")
    for text in found:
        if text not in _CARD_WARNED:
            _CARD_WARNED.add(text)
            logging.getLogger("seqboard.cards").warning(text)
            print(text, file=out or sys.stderr, flush=True)
    return found


def _matrix_factory(cfg) -> Callable[[Session], object]:
    from firmware_bridge.link import LinkError, MatrixLink
    from firmware_bridge.wiring import WiringError, wiring_from_config
    port = cfg["matrix.port"]
    link = MatrixLink(port, baud=cfg["matrix.baud"], brightness=cfg["leds.brightness"])
    try:
        link.start(wait=3.0)
    except LinkError as exc:
        raise UserError(f"matrix.port: cannot open {port}: {exc}") from None

    def make(session: Session) -> MatrixSource:
        lay = session.referee.layout
        hello = link.hello
        if (hello.rows, hello.cols) != (lay.rows, lay.cols):
            link.stop()
            raise UserError(f"matrix.port: the board on {port} is {hello.rows} x {hello.cols}, "
                            f"the game needs {lay.rows} x {lay.cols}")
        try:
            link.wiring = wiring_from_config(cfg.section("leds"), lay.rows, lay.cols)
        except WiringError as exc:
            link.stop()
            raise UserError(str(exc)) from None
        return attach_matrix(link, session, cfg["matrix.settle_seconds"])
    return make


def attach_matrix(link, session: Session, settle: float) -> MatrixSource:
    """The matrix as the session's source and as one more indicator (its LEDs)."""
    from ..indicators.matrix import MatrixLeds
    src = MatrixSource(link, session, settle=settle)
    session.subscribe(MatrixLeds(link, session))
    return src


def synthetic_camera(table, layout, seed: int, settle: float = 0.3) -> CameraSource:
    """The demo's camera: the synthetic renderer films the simulated table from a stand,
    calibrated first on the empty board as a user would, then read and stabilised by the
    same code as a real camera."""
    from dataclasses import replace

    from vision.calibration import calibrate
    from vision.reader import BoardReader
    from vision.stabilise import Stabiliser
    from vision.synth import SyntheticCamera, render
    cam = SyntheticCamera(table, layout, seed)
    empty = Observation.empty(layout.rows, layout.cols)
    frames = [render(layout, empty, replace(cam.conditions, hand_at=None), seed=seed + k,
                     jitter=0.0).image for k in range(2)]
    calibration = calibrate(frames, layout)
    return CameraSource(cam, BoardReader(calibration, layout), Stabiliser(settle=settle),
                        name="the synthetic camera")


def emulated_matrix(table, session: Session, settle: float = 0.3) -> MatrixSource:
    """The demo's sensor matrix: the emulator senses the simulated table's chips (by
    occupancy only, as a hall-sensor board) and the app reaches it through the serial
    protocol on a pty, exactly as it would the real board."""
    from firmware_bridge.emulator import Emulator
    from firmware_bridge.link import MatrixLink
    from firmware_bridge.wiring import make_wiring
    lay = session.referee.layout
    emu = Emulator(lay.rows, lay.cols, sensor="occupancy")
    for i, st in enumerate(table.states):
        if st.is_chip:
            emu.place(i)
    table.listeners.append(lambda i, st: emu.set_space(i, "occupied" if st.is_chip else None))
    path = emu.start_pty()
    link = MatrixLink(path, wiring=make_wiring(lay.rows, lay.cols))
    link.start(wait=3.0)
    src = attach_matrix(link, session, settle)
    src.emulator = emu
    return src


__all__ = ["CameraSource", "MatrixSource", "Settler", "live_source_factory",
           "occupancy_to_observation", "synthetic_camera"]
