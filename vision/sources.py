"""Frame sources behind one interface: ``read() -> BGR image or None``, ``close()``.

* :class:`Picamera2Source`: the Pi camera (picamera2 is imported only here; it exists only
  on a Raspberry Pi). Exposure, gain and white balance are locked to the values saved at
  calibration, so colours stay put through the evening.
* :class:`CaptureSource`: any OpenCV ``VideoCapture`` device (``"0"``) or video file.
* :class:`FolderSource`: the images of a folder, in name order.
* :class:`vision.synth.SyntheticCamera`: the synthetic renderer filming a table.

:func:`open_frames` picks one from the configuration's ``camera.device``.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FrameSourceError(Exception):
    """A camera that cannot be opened or stopped; the message says which and why."""


class CaptureSource:
    def __init__(self, device: int | str, width: int = 1280, height: int = 720,
                 fps: float = 10.0) -> None:
        self.name = str(device)
        self.cap = cv2.VideoCapture(device)
        if not self.cap.isOpened():
            raise FrameSourceError(f"cannot open {'camera' if isinstance(device, int) else 'video'} "
                                   f"{device}")
        if isinstance(device, int):
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            self.cap.set(cv2.CAP_PROP_FPS, fps)

    def read(self) -> np.ndarray | None:
        ok, frame = self.cap.read()
        return frame if ok else None

    def close(self) -> None:
        self.cap.release()


class FolderSource:
    """The images of a folder in name order, one per read; None after the last."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise FrameSourceError(f"no images in {self.folder}")
        self.index = 0

    def read(self) -> np.ndarray | None:
        while self.index < len(self.files):
            path = self.files[self.index]
            self.index += 1
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is not None:
                return img
        return None

    def close(self) -> None:
        pass


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

    def close(self) -> None:
        self.cam.stop()
        self.cam.close()


def open_frames(device: str, width: int = 1280, height: int = 720, fps: float = 10.0,
                calibration=None):
    """The frame source named by ``device``: "picamera2", a V4L2 index, a video file, or
    a folder of images."""
    if device == "picamera2":
        return Picamera2Source(width, height, fps, calibration.camera if calibration else None)
    if device.isdigit():
        return CaptureSource(int(device), width, height, fps)
    path = Path(device).expanduser()
    if path.is_dir():
        return FolderSource(path)
    if not path.exists():
        raise FrameSourceError(f"{device}: no such camera, video file or folder")
    return CaptureSource(str(path))
