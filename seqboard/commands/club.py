"""``seqboard club``: every table publishing to the broker, live and read-only."""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..inputs import number

EPILOG = """examples:
  seqboard club                          watch every table on the broker in [remote]
  seqboard club --once 3 --json          the tables seen within 3 seconds, as JSON, then exit
  seqboard club --serve 8090             the same as a page for any browser on the LAN
                                         (http://THIS-PI:8090/), read-only

Only reading is needed: give the watcher a broker user with read access to
seqboard/v1/game/+/state (docs/remote.md).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("club", help="a live, read-only view of every table on the broker",
                       description="Show every remote game publishing to the MQTT broker in "
                                   "[remote]: the boards, sequences, whose turn, results.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--once", type=number(0.1, 3600, float), metavar="SECONDS",
                   help="collect for SECONDS, print once and exit")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    p.add_argument("--serve", type=number(0, 65535, int), metavar="PORT",
                   help="also serve the club view as a read-only page on PORT (0: any free "
                        "port); any board or computer can serve it")
    p.add_argument("--host", default="0.0.0.0",
                   help="with --serve: the address to listen on (default all)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..app import load_settings
    from ..remote.client import Link
    from ..remote.club import Club
    from ..remote.protocol import new_code

    cfg = load_settings(args.config)
    link = Link.from_config(cfg.section("remote"), client_id=f"seqboard-club-{new_code()[:4]}")
    link.start()
    club = Club(link)
    page = None
    if args.serve is not None:
        from ..errors import UserError
        from ..remote.club import ClubPage
        from ..remote.cli import lan_address
        try:
            page = ClubPage(args.host, args.serve).start()
        except OSError as exc:
            link.close()
            raise UserError(f"--serve: port {args.serve}: {exc.strerror}") from None
        where = lan_address(cfg["remote.host"]) if args.host in ("0.0.0.0", "") else args.host
        print(f"club page: http://{where}:{page.port}/ (read-only)", flush=True)

    def show() -> None:
        if args.json:
            print(json.dumps(club.rows()), flush=True)
        else:
            print(club.render() + "\n", flush=True)

    try:
        if args.once:
            end = time.monotonic() + args.once
            while time.monotonic() < end:
                if club.poll() and page is not None:
                    page.show(club.rows())
                time.sleep(0.05)
            if page is None or args.json:
                show()
            return 0
        print(f"watching {cfg['remote.host']}:{cfg['remote.port']}; Ctrl-C to stop",
              file=sys.stderr, flush=True)
        last = 0.0
        while True:
            changed = club.poll()
            if changed and page is not None:
                page.show(club.rows())
            if changed and page is None and time.monotonic() - last > 0.5:
                last = time.monotonic()
                show()
            time.sleep(0.05)
    except KeyboardInterrupt:
        return 0
    finally:
        if page is not None:
            page.close()
        link.close()
