"""``seqboard read IMAGE``: read one picture of the board and print it."""

from __future__ import annotations

import argparse
import json

EPILOG = """examples:
  seqboard read photo.jpg                        find the board on its own and print it
  seqboard read photo.jpg --calibration cal.json use the calibrated corners and references
  seqboard read photo.jpg --json                 the same with a confidence per space
  seqboard read table.jpg --cards                the playing cards lying in view, with places
  seqboard read table.jpg --cards --edition jewish --calibration cal.json
                                                 the Jewish Edition's cards, read against the
                                                 board's pictures kept beside cal.json

The board prints as a grid: . empty, B blue, G green, R red, W a flipped (white) chip,
? unknown (covered by a hand, or glare).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("read", help="read one image of the board",
                       description="Read one image of the board and print every space.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image", help="the picture (PNG, JPEG, ...)")
    p.add_argument("--calibration", metavar="FILE", help="a calibration file from `seqboard calibrate`")
    p.add_argument("--edition", default="classic", choices=["classic", "travel", "jewish"],
                   help="the board's edition (default classic)")
    p.add_argument("--markers", action="store_true", help="find the board by ArUco markers 0-3")
    p.add_argument("--json", action="store_true", help="print JSON with confidences")
    p.add_argument("--cards", action="store_true",
                   help="print the playing cards lying in view (not the board), see docs/cards.md; "
                        "with --edition jewish, the Jewish Edition's cards (needs --calibration)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.game import builtin_layout
    from vision.calibration import CalibrationError, load_calibration
    from vision.reader import BoardReader

    from ..errors import UserError

    if args.cards:
        from ..inputs import load_image
        from ._read_cards import print_cards
        refs = None
        if args.edition == "jewish":
            refs = _jewish_references(args)
        return print_cards(load_image(args.image), args.image, args.json, refs)
    layout = builtin_layout(args.edition)
    cal = None
    if args.calibration:
        try:
            cal = load_calibration(args.calibration)
        except CalibrationError as exc:
            raise UserError(str(exc)) from None
        if (cal.rows, cal.cols) != (layout.rows, layout.cols):
            raise UserError(f"{args.calibration}: made for a {cal.rows} x {cal.cols} board, "
                            f"{args.edition} is {layout.rows} x {layout.cols}")
    from ..inputs import load_image
    frame = load_image(args.image)
    from vision.calibration import reporting

    from ..progress import SlowSteps
    steps = SlowSteps(f"seqboard read: {args.image}: looking for the board")
    try:
        with reporting(steps):        # heard only when no calibration tells the grid
            reading = BoardReader(cal, layout, markers=args.markers).read(frame)
    finally:
        steps.close()
    if not reading.found:
        raise UserError(f"{args.image}: {reading.problem}")
    obs = reading.observation
    if args.json:
        print(json.dumps({"image": args.image, "rows": obs.rows, "cols": obs.cols,
                          "board": str(obs).split("\n"),
                          "confidence": [round(c, 3) for c in reading.confidence],
                          "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in reading.corners]}))
    else:
        print(str(obs))
    return 0


def _jewish_references(args):
    """The Jewish Edition's card references kept beside the calibration file."""
    from vision.cards.jewish import JewishReferences, references_path

    from ..errors import UserError
    if not args.calibration:
        raise UserError("--cards --edition jewish: give --calibration FILE; the Jewish cards are "
                        "read against the board's pictures `seqboard calibrate` keeps beside it")
    path = references_path(args.calibration)
    if not path.exists():
        raise UserError(f"--calibration: no Jewish Edition pictures at {path}: calibrate with "
                        f"the empty Jewish board in view first")
    try:
        return JewishReferences.load(path)
    except ValueError as exc:
        raise UserError(f"--calibration: {exc}") from None
