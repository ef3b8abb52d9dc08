"""Calibrating the camera, step by step: capture the empty board, show the result, save.

Shared by ``seqboard calibrate`` (one go on the terminal) and the dashboard's calibration
page (each step a button). ``frames()`` gives the frames of the empty board (the camera, or
an image file); nothing is written until :meth:`Calibrator.save`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable


class Calibrator:
    def __init__(self, layout, out: Path, frames: Callable[[], tuple[list, dict]], *,
                 markers: bool = False, corners=None) -> None:
        self.layout = layout
        self.out = Path(out)
        self.frames = frames              # -> (frames, camera settings to lock)
        self.markers = markers
        self.corners = corners
        self.cal = None
        self.picture = None               # the last frame with the grid and readings drawn
        self.warnings: list[str] = []

    def capture(self) -> dict:
        """Find the board and learn the empty board; what happened, for a person."""
        from vision.calibration import calibrate
        from vision.classify import features
        from vision.draw import draw_reading
        from vision.locate import BoardNotFound, straighten
        from vision.reader import BoardReader
        lay = self.layout
        frames, camera = self.frames()
        if not frames:
            return {"ok": False, "problem": "no frame from the camera"}
        try:
            cal = calibrate(frames, lay, markers=self.markers, corners=self.corners, camera=camera)
        except BoardNotFound as exc:
            self.cal = None
            return {"ok": False, "problem": str(exc)}
        last = frames[-1]
        reading = BoardReader(cal, lay).read(last)
        self.cal, self.picture = cal, draw_reading(last, reading)
        warnings = []
        # chips on the calibration picture itself show against the layout's printed pictures
        printed = BoardReader(None, lay)
        printed.corners = cal.corners
        seen = printed.read(last).observation.states
        chips = [i for i, s in enumerate(seen) if s.is_chip and i not in lay.free]
        if chips:
            names = ", ".join(lay.space_name(i) for i in chips[:8])
            warnings.append(f"chips seen on {names}: calibrate with the board empty")
        f = features(straighten(last, cal.corners, lay), lay.rows, lay.cols)
        if f.paper.mean() < 60:          # the paper's own brightness, as the camera sees it
            warnings.append("the picture is dark: more light makes the reading safer")
        glared = [i for i, g in enumerate(f.glare) if g > 0.25]
        if glared:
            names = ", ".join(lay.space_name(i) for i in glared[:8])
            warnings.append(f"glare blows out {names}{' ...' if len(glared) > 8 else ''}: a chip "
                            f"there reads unknown; move the lamp or tilt the camera, then "
                            f"calibrate again")
        self.warnings = warnings
        return {"ok": True, "method": cal.method, "warnings": warnings, "out": str(self.out)}

    def preview_jpeg(self) -> bytes | None:
        if self.picture is None:
            return None
        import cv2
        ok, buf = cv2.imencode(".jpg", self.picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None

    def save(self) -> dict:
        """Write the calibration file and the picture beside it (FILE.png)."""
        if self.cal is None:
            return {"ok": False, "problem": "capture the empty board first"}
        import cv2
        try:
            self.cal.save(self.out)
            picture = self.out.with_suffix(".png")
            cv2.imwrite(str(picture), self.picture)
        except OSError as exc:
            return {"ok": False, "problem": f"{self.out}: cannot write: {exc.strerror}"}
        return {"ok": True, "path": str(self.out), "picture": str(picture), "method": self.cal.method}
