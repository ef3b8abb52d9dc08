"""``seqboard setup``: the first-run guide (questions here, the page following)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..inputs import number

EPILOG = """examples:
  seqboard setup                        set this board up: ~/.config/seqboard/seqboard.toml
  seqboard setup --config table.toml    another file (it is never replaced without asking)
  seqboard setup --mock-gpio            walk the LEDs and buttons on gpiozero's mock pins
  seqboard setup --port 8090            serve the page on another port while it runs

The questions are asked here and on the page (with the PIN it prints): answer either.
It asks for the edition, the players and teams, where the board is read (camera or
matrix) and checks it: the camera's live picture is on the page while you aim it, then it
is calibrated (with the discard piles' places if the cards laid are read, and in a Jewish
Edition game one ADD and one REMOVE card laid in view); the matrix's link and sensors are
read. It walks the LEDs (is it lit?) and the buttons (press it), sets a PIN that stays,
writes the file and checks it, offers the service and a remote game, and ends with the
page's address as a QR code for the phones.
Enter keeps the default in brackets; run it again to change an answer. See docs/setup.md.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("setup", help="first-run guide: answer a few questions, get a working board",
                       description="A first-run guide, in the terminal and on the page: "
                                   "edition, players, camera or matrix, LEDs and buttons, PIN, "
                                   "the configuration file, the service, and the page's QR code.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE",
                   help="the configuration file to write (default ~/.config/seqboard/seqboard.toml)")
    p.add_argument("--mock-gpio", action="store_true",
                   help="gpiozero's mock pins instead of the Pi's (to try it anywhere)")
    p.add_argument("--no-page", action="store_true", help="do not serve the page while it runs")
    p.add_argument("--port", type=number(1, 65535, int), metavar="N",
                   help="the page's port while the guide runs (default dashboard.port of the "
                        "file, else 8080)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hw_config.config import DEFAULT_PATH

    from ..modes.setup import Guide
    path = Path(args.config or DEFAULT_PATH).expanduser()
    return Guide(path, page=not args.no_page, page_port=args.port,
                 mock_gpio=args.mock_gpio).run()
