"""Frame sources behind one interface: ``read() -> BGR image or None``, ``close()``.

* :class:`Picamera2Source`: the Pi camera (picamera2 is imported only here; it exists only
  on a Raspberry Pi). Exposure, gain and white balance are locked to the values saved at
  calibration, so colours stay put through the evening.
* :class:`CaptureSource`: any OpenCV ``VideoCapture`` device (``"0"``) or video file.
* :class:`FolderSource`: the images of a folder, in name order.
* :class:`vision.synth.SyntheticCamera`: the synthetic renderer filming a table.

:func:`open_frames` picks one from the configuration's ``camera.device``.

Files (a video file, a folder of frames) are *recorded* time: each frame carries its own
time, ``frame_no / fps`` (the container's frame rate for a video, ``camera.fps`` for a
folder), in :attr:`t`, and its number in :attr:`frame_no`. They are played at ``speed``
times their own rate (1: as filmed; 0: as fast as the machine goes); the stabiliser counts
the frames' time, never the wall clock, so a file gives the same verdicts on any machine at
any speed. After the last frame ``read()`` returns None and :attr:`finished` is True.
Live sources (a camera) have ``t`` = seconds since they started and ``finished`` False.
"""

from __future__ import annotations

import os
import stat
import struct
import time
from pathlib import Path

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FrameSourceError(Exception):
    """A camera that cannot be opened or stopped; the message says which and why."""


class _Recorded:
    """Time and pacing of a recorded source (a file or a folder): frame ``n`` is at
    ``n / fps`` seconds; it is handed out no sooner than ``t / speed`` after the first."""

    recorded = True

    def _start_clock(self, fps: float, speed: float) -> None:
        self.fps = float(fps)
        self.speed = float(speed)
        self.frame_no = -1
        self.t = 0.0
        self.finished = False
        self._t0: float | None = None

    def _tick(self) -> None:
        self.frame_no += 1
        self.t = self.frame_no / self.fps
        if self.speed > 0:
            if self._t0 is None:
                self._t0 = time.monotonic()
            ahead = self._t0 + self.t / self.speed - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)


class CaptureSource(_Recorded):
    """A camera by index (live), or a video file (recorded: its container's frame rate)."""

    def __init__(self, device: int | str, width: int = 1280, height: int = 720,
                 fps: float = 10.0, speed: float = 1.0) -> None:
        self.name = str(device)
        self.cap = cv2.VideoCapture(device)
        if not self.cap.isOpened():
            raise FrameSourceError(f"cannot open {'camera' if isinstance(device, int) else 'video'} "
                                   f"{device}")
        self.recorded = not isinstance(device, int)
        if isinstance(device, int):
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            self.cap.set(cv2.CAP_PROP_FPS, fps)
            self._start_clock(fps, 0.0)
            self._live0 = time.monotonic()
        else:
            own = self.cap.get(cv2.CAP_PROP_FPS)
            self._start_clock(own if own and 0 < own < 1000 else fps, speed)

    def read(self) -> np.ndarray | None:
        if self.finished:
            return None
        ok, frame = self.cap.read()
        if not ok:
            self.finished = self.recorded
            return None
        if self.recorded:
            self._tick()
        else:
            self.frame_no += 1
            self.t = time.monotonic() - self._live0
        return frame

    def close(self) -> None:
        self.cap.release()


class FolderSource(_Recorded):
    """The images of a folder in name order, one per read, ``fps`` of them a second of
    the game; None after the last (and :attr:`finished`)."""

    def __init__(self, folder: str | Path, fps: float = 10.0, speed: float = 1.0) -> None:
        self.folder = Path(folder)
        self.name = str(self.folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise FrameSourceError(f"no images in {self.folder}")
        self.index = 0
        #: frames that could not be used: (file name, why); their time passes all the same
        self.skipped: list[tuple[str, str]] = []
        self._start_clock(fps, speed)

    def read(self) -> np.ndarray | None:
        while self.index < len(self.files):
            path = self.files[self.index]
            self.index += 1
            img, why = load_frame(path)
            if img is not None:
                self._tick()
                return img
            self.skipped.append((path.name, why))
            self.frame_no += 1            # a frame of the film all the same: time moves on
        self.finished = True
        return None

    def close(self) -> None:
        pass


#: A frame is refused beyond these (before it is decoded), or below the smallest side a
#: board can be read in (the same limits as ``seqboard read``).
MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_FRAME_PIXELS = 40_000_000
MIN_FRAME_SIDE = 64


def load_frame(path: Path) -> tuple[np.ndarray | None, str]:
    """A frame from an image file, or (None, why): a pipe, device or link to nothing, a
    file too big, a picture too large (checked in its header, before decoding) or too
    small, or damaged data. Never blocks on a pipe, never decodes a picture bomb."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return None, "not a regular file (a device, pipe or folder)"
    if st.st_size > MAX_FRAME_BYTES:
        return None, f"{st.st_size} bytes; a frame is at most {MAX_FRAME_BYTES} bytes"
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FRAME_BYTES + 1)
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror}"
    size = _header_size(data)
    if size is not None:
        w, h = size
        if w * h > MAX_FRAME_PIXELS:
            return None, f"a {w} x {h} picture; at most {MAX_FRAME_PIXELS // 1_000_000} megapixels"
    try:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except AttributeError:
        pass
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        return None, "not a picture OpenCV can read (damaged or another format)"
    if min(img.shape[:2]) < MIN_FRAME_SIDE:
        return None, (f"a {img.shape[1]} x {img.shape[0]} picture; too small to show a board "
                      f"(at least {MIN_FRAME_SIDE} pixels a side)")
    return img, ""


def _header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG or BMP from its header; None for other formats (JPEG, WebP,
    TIFF headers are not read here: their decoders check their own sizes)."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:2] == b"BM" and len(data) >= 26:
            w, h = struct.unpack("<ii", data[18:26])
            return abs(w), abs(h)
    except struct.error:
        return None
    return None


class Picamera2Source:
    """The Raspberry Pi camera through picamera2, with exposure, gain and white balance
    locked to ``locked`` (``{"exposure_us", "gain", "colour_gains"}`` from calibration)."""

    def __init__(self, width: int = 1280, height: int = 720, fps: float = 10.0,
                 locked: dict | None = None) -> None:
        try:
            from picamera2 import Picamera2  # only on a Raspberry Pi
        except ImportError:
            raise FrameSourceError("picamera2 is not installed: it exists only on a Raspberry "
                                   "Pi (sudo apt install python3-picamera2, and a venv made "
                                   "with --system-site-packages); elsewhere set camera.device "
                                   "to a V4L2 index like \"0\", a video file or a folder") from None
        try:
            self.cam = Picamera2()
            config = self.cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"},
                controls={"FrameRate": fps})
            self.cam.configure(config)
            # the sensor's full resolution at the stream's shape, for the cards on the
            # discard piles (docs/cards.md); vision.cards.piles checks it shows the same view
            sw, sh = self.cam.sensor_resolution
            size = (sw, sw * height // width // 2 * 2) if sw * height <= sh * width \
                else (sh * width // height // 2 * 2, sh)
            self.still_config = self.cam.create_still_configuration(
                main={"size": size, "format": "RGB888"})
            if locked:
                self.lock(locked)
            self.cam.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise FrameSourceError(f"the Pi camera did not start ({exc}): check the ribbon "
                                   f"cable and `rpicam-hello --list-cameras`") from None

    def lock(self, values: dict) -> None:
        controls = {"AeEnable": False, "AwbEnable": False}
        if "exposure_us" in values:
            controls["ExposureTime"] = int(values["exposure_us"])
        if "gain" in values:
            controls["AnalogueGain"] = float(values["gain"])
        if "colour_gains" in values:
            controls["ColourGains"] = tuple(float(v) for v in values["colour_gains"])
        self.cam.set_controls(controls)

    def current_settings(self) -> dict:
        """What auto exposure and white balance settled on (saved at calibration)."""
        md = self.cam.capture_metadata()
        return {"exposure_us": md.get("ExposureTime"), "gain": md.get("AnalogueGain"),
                "colour_gains": list(md.get("ColourGains", (1.0, 1.0)))}

    def read(self) -> np.ndarray | None:
        # "RGB888" in picamera2 is B, G, R in memory: what OpenCV expects.
        return self.cam.capture_array("main")

    def still(self) -> np.ndarray:
        """A full-resolution picture of the same view (the video stream pauses for it, a
        few hundred milliseconds), for reading a card's index on a discard pile."""
        return self.cam.switch_mode_and_capture_array(self.still_config, "main")

    def close(self) -> None:
        self.cam.stop()
        self.cam.close()


def open_frames(device: str, width: int = 1280, height: int = 720, fps: float = 10.0,
                calibration=None, speed: float = 1.0):
    """The frame source named by ``device``: "picamera2", a V4L2 index, a video file, or
    a folder of images (``fps`` frames a second). Files play at ``speed`` times their own
    rate (0: as fast as possible)."""
    if device == "picamera2":
        return Picamera2Source(width, height, fps, calibration.camera if calibration else None)
    if device.isdigit():
        return CaptureSource(int(device), width, height, fps)
    path = Path(device).expanduser()
    if path.is_dir():
        return FolderSource(path, fps=fps, speed=speed)
    if not path.exists():
        raise FrameSourceError(f"{device}: no such camera, video file or folder")
    return CaptureSource(str(path), fps=fps, speed=speed)
