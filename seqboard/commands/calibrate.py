"""``seqboard calibrate``: set the camera up: find the board, learn the empty board, save."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..inputs import number

EPILOG = """examples:
  seqboard calibrate                            from the configured camera, empty board in view
  seqboard calibrate --image empty.jpg --out cal.json
  seqboard calibrate --image empty.jpg --corners 102,80,1180,95,1170,690,95,670
  seqboard calibrate --markers                  the board has ArUco markers 0-3 at its corners
  seqboard calibrate --serve                    from a phone: capture, check and save on the page
  seqboard calibrate --image table.jpg --pile-card 1:card1.jpg --pile 2:1210,400,180 --piles-only
                                                each seat's discard pile: a card laid on it
                                                (table.jpg without it), or SEAT:X,Y,CARD_PX
  seqboard calibrate --image table.jpg --word-card add:a.jpg --word-card remove:r.jpg --piles-only
                                                Jewish Edition: one ADD and one REMOVE card
                                                laid in view (table.jpg without it), kept to
                                                read those cards by (docs/cards.md)

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
    p.add_argument("--frames", type=number(1, 100, int), default=5,
                   help="camera frames to average, 1 to 100 (default 5)")
    p.add_argument("--pile", metavar="SEAT:X,Y,CARD_PX", action="append", default=[],
                   help="a seat's discard pile spot by hand: its centre in the picture and a "
                        "card's long side there, in pixels (repeat for each seat)")
    p.add_argument("--pile-card", metavar="SEAT:FILE", action="append", default=[],
                   help="a seat's discard pile spot from FILE, the --image view with one card "
                        "laid on the spot (repeat for each seat)")
    p.add_argument("--word-card", metavar="WORD:FILE", action="append", default=[],
                   help="Jewish Edition: FILE is the --image view with an ADD (add:FILE) or a "
                        "REMOVE (remove:FILE) card laid in it, kept to read those cards by")
    p.add_argument("--piles-only", action="store_true",
                   help="learn only the pile spots and word cards (the board's calibration "
                        "stays as it is)")
    p.add_argument("--serve", action="store_true",
                   help="drive the steps from the dashboard's page instead (capture, check, save)")
    p.set_defaults(func=run)


def _corners(text: str):
    import numpy as np

    from ..errors import UserError
    from vision.quad import corners_problem
    try:
        v = [float(x) for x in text.split(",")]
    except ValueError:
        v = []
    if len(v) != 8:
        raise UserError(f"--corners: expected 8 numbers x,y for tl, tr, br, bl, got {text[:80]!r}")
    pts = [v[0:2], v[2:4], v[4:6], v[6:8]]
    problem = corners_problem(pts)
    if problem is not None:
        raise UserError(f"--corners: {problem}")
    (ax, ay), (bx, by), (cx, cy) = pts[0], pts[1], pts[2]
    if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) < 0:
        # round the other way: a mirror image of the board, which no camera sees; every
        # space would be read as its mirror (a1 as a10)
        raise UserError("--corners: the corners go round the board anticlockwise; give them "
                        "clockwise as seen in the picture: top-left, top-right, bottom-right, "
                        "bottom-left")
    return np.float32(v).reshape(4, 2)


def _check_out(out: Path, key: str) -> None:
    """The calibration is written beside itself and moved over ``out`` (and its picture to
    ``out`` with .png): both must be plain files (or not exist yet), never a device or a
    folder, which the move would replace."""
    from ..errors import UserError
    if not str(out).isprintable():
        raise UserError(f"{key}: the file name {str(out)[:80]!r} holds control characters")
    for p in (out, out.with_suffix(out.suffix + ".tmp"), out.with_suffix(".png")):
        if p.exists() and not p.is_file():
            raise UserError(f"{key}: {p} exists and is not a plain file; choose another file")
    if out.parent.exists() and not out.parent.is_dir():
        raise UserError(f"{key}: {out.parent} is not a folder")


def run(args: argparse.Namespace) -> int:
    from vision.sources import FrameSourceError, open_frames

    from ..app import load_settings
    from ..sources.calibrator import Calibrator
    from ..errors import UserError
    from ..settings import game_params
    from ..modes.setup import Preview

    cfg = load_settings(args.config)
    layout = game_params(cfg)["layout"]
    if layout is None:
        from engine.game import builtin_layout
        layout = builtin_layout(cfg["game.edition"])
    out = Path(args.out).expanduser() if args.out else cfg.expand("camera.calibration")
    _check_out(out, "--out" if args.out else "camera.calibration")
    corners = _corners(args.corners) if args.corners else None
    if args.word_card:
        _word_cards(args, out)
    if args.pile or args.pile_card or (args.piles_only and not args.word_card):
        _piles(args, out)
    if args.piles_only:
        return 0
    if args.image:
        from ..inputs import load_image
        frame = load_image(args.image, "image of the empty board")
        if corners is not None:
            h, w = frame.shape[:2]
            outside = [i + 1 for i, (x, y) in enumerate(corners)
                       if not (-0.5 <= x <= w - 0.5 and -0.5 <= y <= h - 0.5)]
            if outside:
                raise UserError(f"--corners: corner {outside[0]} lies outside the {w} x {h} "
                                f"picture {args.image}")

        def frames():
            cal.report(1, 1)
            try:                                      # read again: it may have changed
                return [load_image(args.image, "image of the empty board")], {}
            except UserError:
                return [frame], {}
        preview = Still(frame)
    else:
        try:
            src = open_frames(cfg["camera.device"], cfg["camera.width"], cfg["camera.height"],
                              cfg["camera.fps"])
        except FrameSourceError as exc:
            raise UserError(f"camera.device: {exc}") from None
        preview = Preview(src)          # the page's live picture, between captures

        def frames():
            got = []
            total = max(1, args.frames) + 10
            for k in range(total):
                f = preview.read()
                if f is None:
                    break
                if k >= 10:          # let auto exposure settle first
                    got.append(f)
                print(f"\rcapturing frame {k + 1}/{total}", end="", file=sys.stderr)
                cal.report(k + 1, total)
            print(file=sys.stderr)
            settings = src.current_settings() if hasattr(src, "current_settings") else {}
            return got, settings
    cal = Calibrator(layout, out, frames, markers=args.markers, corners=corners)
    try:
        if args.serve:
            return _serve(cal, cfg, args, preview)
        from vision.calibration import reporting

        from ..progress import SlowSteps
        steps = SlowSteps("calibrate: looking for the board")
        try:
            with reporting(steps):
                result = cal.capture()
        finally:
            steps.close()
        if not result["ok"]:
            if result["problem"] == "no frame from the camera":
                raise UserError(f"camera.device: no frame from {cfg['camera.device']}")
            if result.get("refused"):
                picture = cal.save_check_picture()
                raise UserError(f"calibrate: {result['problem']}; nothing saved"
                                + (f"; see the check picture {picture}" if picture else ""))
            raise UserError(f"calibrate: {result['problem']} (or give the corners with --corners)")
        saved = cal.save()
        if not saved["ok"]:
            raise UserError(saved["problem"])
    finally:
        if not args.image:
            src.close()
    print(f"saved {out} ({saved['method']}); check the picture {saved['picture']}")
    if saved.get("jewish"):
        from vision.cards.jewish import WORDS, JewishReferences
        kept = JewishReferences.load(saved["jewish"]).words
        print(f"saved {saved['jewish']} (the board's pictures, to read the cards laid by)")
        missing = [w for w in WORDS if w not in kept]
        if missing:
            print(f"warning: no {' or '.join(missing)} card kept: the camera reads "
                  f"{'it' if len(missing) == 1 else 'them'} as unknown (typed or tapped) until "
                  f"one is laid in view: --word-card {missing[0].lower()}:FILE",
                  file=sys.stderr)
    for w in result["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    return 0


def _piles(args, out: Path) -> None:
    """Learn each seat's discard pile spot (docs/cards.md), warn when the camera cannot read
    a card there, and save them beside the calibration (FILE.piles.json)."""
    from vision.cards.piles import (PileError, parse_spot, piles_path, save_spots,
                                    spot_from_card, spot_problems)

    from ..errors import UserError
    from ..inputs import load_image
    if not (args.pile or args.pile_card):
        raise UserError("--piles-only: give the spots with --pile SEAT:X,Y,CARD_PX or "
                        "--pile-card SEAT:FILE")
    spots = {}
    shape = None
    if args.pile_card:
        if not args.image:
            raise UserError("--pile-card: needs --image, the same view without the card")
        before = load_image(args.image, "image without the card")
        shape = before.shape
        for text in args.pile_card:
            seat, _, file = text.partition(":")
            if not seat.isdigit() or int(seat) < 1 or not file:
                raise UserError(f"--pile-card: {text[:60]!r}: expected SEAT:FILE, e.g. 1:card1.jpg")
            after = load_image(file, f"image of seat {seat}'s card")
            try:
                sp = spot_from_card(before, after, int(seat) - 1)
            except PileError as exc:
                raise UserError(f"--pile-card: {file}: {exc}") from None
            spots[sp.seat] = sp
    for text in args.pile:
        try:
            sp = parse_spot(text)
        except PileError as exc:
            raise UserError(f"--pile: {exc}") from None
        spots[sp.seat] = sp
    if shape is None:
        if args.image:
            shape = load_image(args.image, "image of the table").shape
        else:
            from ..app import load_settings
            cfg = load_settings(args.config)
            shape = (cfg["camera.height"], cfg["camera.width"])
    path = piles_path(out)
    if path.exists() and not path.is_file():
        raise UserError(f"--out: {path} exists and is not a plain file")
    save_spots(path, list(spots.values()), int(shape[1]), int(shape[0]))
    for sp in sorted(spots.values(), key=lambda s: s.seat):
        print(f"seat {sp.seat + 1}'s pile at ({sp.x:.0f}, {sp.y:.0f}), a card "
              f"{sp.card_px:.0f} pixels long")
        for w in spot_problems(sp, shape):
            print(f"warning: {w}", file=sys.stderr)
    print(f"saved {path}")


def _word_cards(args, out: Path) -> None:
    """Keep one ADD and one REMOVE card of the Jewish Edition, each laid in the --image view,
    beside the calibration (FILE.jewish.npz, with the board's pictures): the camera reads
    those cards by them (docs/cards.md)."""
    from vision.cards.jewish import JewishReferences, references_path
    from vision.cards.piles import PileError, laid_card
    from vision.cards.reader import straighten

    from ..errors import UserError
    from ..inputs import load_image
    if not args.image:
        raise UserError("--word-card: needs --image, the same view without the card")
    before = load_image(args.image, "image without the card")
    path = references_path(out)
    if path.exists() and not path.is_file():
        raise UserError(f"--out: {path} exists and is not a plain file")
    refs = JewishReferences([], [])
    if path.exists():
        try:
            refs = JewishReferences.load(path)
        except ValueError as exc:
            raise UserError(f"--word-card: {exc}; calibrate the board again to make it anew") \
                from None
    for text in args.word_card:
        word, _, file = text.partition(":")
        code = word.strip().upper()
        if code not in ("ADD", "REMOVE") or not file:
            raise UserError(f"--word-card: {text[:60]!r}: expected add:FILE or remove:FILE")
        after = load_image(file, f"image of the {code} card")
        try:
            quad = laid_card(before, after)
        except PileError as exc:
            raise UserError(f"--word-card: {file}: {exc} ({args.image} and this one: the same "
                            "view with the card laid in it)") from None
        try:
            refs = refs.with_word(code, straighten(after, quad))
        except ValueError as exc:
            raise UserError(f"--word-card: {file}: {exc}") from None
        print(f"kept the {code} card from {file}")
    try:
        refs.save(path)
    except OSError as exc:
        raise UserError(f"--out: {path}: cannot write: {exc.strerror}") from None
    print(f"saved {path}")
    if not any(c not in ("ADD", "REMOVE") for c in refs.codes):
        print("warning: no board pictures kept yet: calibrate with the empty Jewish board "
              "in view (seqboard calibrate --image EMPTY) to read the picture cards",
              file=sys.stderr)


class Still:
    """The page's picture when calibrating from an image file: that image."""

    def __init__(self, frame) -> None:
        self.frame = frame

    def annotated(self):
        return self.frame


def _serve(cal, cfg, args, preview) -> int:
    """The calibration steps driven from the dashboard until Ctrl-C."""
    import time

    from ..app import records_dir
    from ..dashboard import Dashboard
    from ..errors import UserError
    dash = Dashboard(cfg.section("dashboard"), records_dir(cfg, None), None,
                     pin=cfg["dashboard.pin"] or None, host=cfg["dashboard.host"],
                     port=cfg["dashboard.port"], calibrator=cal, source=preview)
    try:
        url = dash.start()
    except OSError as exc:
        raise UserError(f"dashboard.port: {cfg['dashboard.port']}: {exc.strerror}") from None
    print(f"calibrate from the page: {url} (PIN {dash.pin}); Ctrl-C to stop", flush=True)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        dash.stop()
    return 0
