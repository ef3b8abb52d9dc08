"""``seqboard calibrate``: set the camera up: find the board, learn the empty board, save."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """examples:
  seqboard calibrate                            from the configured camera, empty board in view
  seqboard calibrate --image empty.jpg --out cal.json
  seqboard calibrate --image empty.jpg --corners 102,80,1180,95,1170,690,95,670
  seqboard calibrate --markers                  the board has ArUco markers 0-3 at its corners

It writes the calibration file (--out, default camera.calibration of the configuration) and
a picture beside it (FILE.png) with the grid found and each space's reading: look at it.
When it cannot see the board it says what to fix. See docs/calibration.md.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="set the camera up and check what it sees",
                       description="Find the board in the camera's picture (or an image of the "
                                   "empty board), learn what every empty space looks like, and "
                                   "save the calibration file.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--image", metavar="FILE", help="an image of the empty board instead of the camera")
    p.add_argument("--out", metavar="FILE", help="where to save (default camera.calibration)")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--markers", action="store_true", help="find the board by ArUco markers 0-3")
    p.add_argument("--corners", metavar="X,Y,...",
                   help="the grid's corners by hand: top-left, top-right, bottom-right, "
                        "bottom-left, as 8 numbers (the fallback when it cannot find the board)")
    p.add_argument("--frames", type=int, default=5, help="camera frames to average (default 5)")
    p.set_defaults(func=run)


def _corners(text: str):
    import numpy as np

    from ..errors import UserError
    try:
        v = [float(x) for x in text.split(",")]
    except ValueError:
        v = []
    if len(v) != 8:
        raise UserError(f"--corners: expected 8 numbers x,y for tl, tr, br, bl, got {text!r}")
    return np.float32(v).reshape(4, 2)


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import calibrate
    from vision.classify import features
    from vision.draw import draw_reading
    from vision.locate import BoardNotFound, straighten
    from vision.reader import BoardReader
    from vision.sources import FrameSourceError, open_frames

    from ..app import load_settings
    from ..errors import UserError
    from ..settings import game_params

    cfg = load_settings(args.config)
    layout = game_params(cfg)["layout"]
    if layout is None:
        from engine.game import builtin_layout
        layout = builtin_layout(cfg["game.edition"])
    out = Path(args.out).expanduser() if args.out else cfg.expand("camera.calibration")
    corners = _corners(args.corners) if args.corners else None
    camera_settings: dict = {}
    if args.image:
        frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
        if frame is None:
            raise UserError(f"{args.image}: cannot read it as an image")
        frames = [frame]
    else:
        try:
            src = open_frames(cfg["camera.device"], cfg["camera.width"], cfg["camera.height"],
                              cfg["camera.fps"])
        except FrameSourceError as exc:
            raise UserError(f"camera.device: {exc}") from None
        frames = []
        try:
            for k in range(max(1, args.frames) + 10):
                f = src.read()
                if f is None:
                    break
                if k >= 10:          # let auto exposure settle first
                    frames.append(f)
                print(f"\rcapturing frame {k + 1}/{args.frames + 10}", end="", file=sys.stderr)
            print(file=sys.stderr)
            if hasattr(src, "current_settings"):
                camera_settings = src.current_settings()
        finally:
            src.close()
        if not frames:
            raise UserError(f"camera.device: no frame from {cfg['camera.device']}")
    try:
        cal = calibrate(frames, layout, markers=args.markers, corners=corners,
                        camera=camera_settings)
    except BoardNotFound as exc:
        raise UserError(f"calibrate: {exc} (or give the corners with --corners)") from None
    reading = BoardReader(cal, layout).read(frames[-1])
    try:
        cal.save(out)
    except OSError as exc:
        raise UserError(f"{out}: cannot write: {exc.strerror}") from None
    picture = out.with_suffix(".png")
    cv2.imwrite(str(picture), draw_reading(frames[-1], reading))
    # chips on the calibration picture itself show against the layout's printed pictures
    printed = BoardReader(None, layout)
    printed.corners = cal.corners
    seen = printed.read(frames[-1]).observation.states
    chips = [i for i, s in enumerate(seen) if s.is_chip and i not in layout.free]
    light = features(cv2.resize(frames[-1], (320, 320)), 10, 10).light.mean()
    print(f"saved {out} ({cal.method}); check the picture {picture}")
    if chips:
        names = ", ".join(layout.space_name(i) for i in chips[:8])
        print(f"warning: chips seen on {names}: calibrate with the board empty", file=sys.stderr)
    if light < 60:
        print("warning: the picture is dark: more light makes the reading safer", file=sys.stderr)
    glared = [i for i, g in enumerate(features(straighten(frames[-1], cal.corners, layout),
                                               layout.rows, layout.cols).glare) if g > 0.25]
    if glared:
        names = ", ".join(layout.space_name(i) for i in glared[:8])
        print(f"warning: glare blows out {names}{' ...' if len(glared) > 8 else ''}: a chip "
              f"there reads unknown; move the lamp or tilt the camera, then calibrate again",
              file=sys.stderr)
    return 0
