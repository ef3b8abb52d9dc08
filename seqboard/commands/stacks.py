"""``seqboard stacks``: SEQUENCE STACKS at the table, the terminal as the referee's display."""

from __future__ import annotations

import argparse
import random
import sys

from ..inputs import number

EPILOG = """examples:
  seqboard stacks --players 3                 referee three people playing with real cards
  seqboard stacks --players 2 --computer 2    play against the Pi (the engine deals the cards)
  seqboard stacks --players 4 --deal          a virtual deck for everyone, no cards needed
  seqboard stacks --players 2 --camera        hands-free: the camera above the table reads
                                              the cards laid, on spots learnt once with:
  seqboard stacks --players 2 --piles table.piles.json --place 1:170,400,150 --place 2:390,400,150 --out-of-play 550,150,150 --pile 1:350,680,150 --pile 2:750,680,150
                                              (X,Y,CARD_PX: a spot's centre and a card's
                                              long side there, in camera pixels)
  seqboard stacks --players 2 --piles table.piles.json --image empty.jpg --place-card 1:p1.jpg --out-of-play-card out.jpg --pile-card 1:d1.jpg --pile-card 2:d2.jpg
                                              the same from pictures of the camera's view:
                                              the table empty, then a card on each spot

With real cards the Pi cannot see the hands: each player types what they lay (R3 2, R1 new,
x B4 ...), the engine accepts or refuses it with the reason. Type ? for what is legal now
and the codes; BL <player> plays Block at any moment. Computer seats need the engine to
deal (--deal is then implied): the hand of the person to move is shown at the prompt.
With --camera the cards laid on the centre piles, the out-of-play pile and each player's
discard pile are read from the camera (camera.device); what it cannot read or tell (an
unreadable card, whom Steal a Chip targets, who played Block) is asked for and typed.
See docs/stacks.md ("From the camera").
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stacks", help="referee (and play) the SEQUENCE STACKS card game",
                       description="SEQUENCE STACKS at the table: players type what they lay, "
                                   "the engine accepts or refuses it with the reason.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=2, help="2 to 6 (default 2)")
    p.add_argument("--computer", type=number(1, 6, int), action="append", metavar="SEAT",
                   help="a seat (1-based) the Pi plays; repeatable")
    p.add_argument("--level", default="hard", choices=("random", "greedy", "easy", "medium", "hard"),
                   help="the Pi's level (default hard)")
    p.add_argument("--deal", action="store_true",
                   help="the engine deals a virtual deck (implied by --computer)")
    p.add_argument("--first", type=number(1, 6, int), default=1,
                   help="the seat that starts (default 1)")
    p.add_argument("--seed", type=number(0, 2**63 - 1, int),
                   help="seed of the virtual deck (default random)")
    p.add_argument("--deck", metavar="FILE", help="the deck's make-up (default the published split)")
    p.add_argument("--direction", choices=("clockwise", "counterclockwise"), default="clockwise")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--records", metavar="DIR", help="where the game record goes (default records.dir)")
    p.add_argument("--camera", action="store_true",
                   help="referee from the camera (camera.device) with the spots of --piles")
    p.add_argument("--piles", metavar="FILE",
                   help="the table's spots (default: beside camera.calibration, NAME.piles.json)")
    p.add_argument("--place", action="append", metavar="N:X,Y,CARD_PX",
                   help="centre pile place N (1-4) at X,Y, a card CARD_PX long there; "
                        "saved in --piles; repeatable")
    p.add_argument("--out-of-play", metavar="X,Y,CARD_PX", help="the out-of-play pile's spot")
    p.add_argument("--pile", action="append", metavar="SEAT:X,Y,CARD_PX",
                   help="a player's discard pile; repeatable")
    p.add_argument("--image", metavar="FILE",
                   help="the table without cards, for the *-card options (the camera's view)")
    p.add_argument("--place-card", action="append", metavar="N:FILE",
                   help="centre pile place N learnt from a picture with a card laid there")
    p.add_argument("--out-of-play-card", metavar="FILE",
                   help="the out-of-play pile learnt from a picture with a card there")
    p.add_argument("--pile-card", action="append", metavar="SEAT:FILE",
                   help="a player's discard pile learnt from a picture with a card there")
    p.add_argument("--mock-gpio", action="store_true", help="use gpiozero's mock pins")
    p.add_argument("--no-dashboard", action="store_true", help="do not serve the web dashboard")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.errors import EngineError
    from engine.stacks import StacksGame, StacksOptions, load_deck

    from ..app import load_settings, real_pin_factory, records_dir
    from ..errors import UserError
    from ..recorder import RecordWriter, new_record_path
    from ..modes.stacks import StacksTable, completer, run_table

    if not 2 <= args.players <= 6:
        raise UserError(f"--players: SEQUENCE STACKS is for 2 to 6 players, not {args.players}")
    seats = ["person"] * args.players
    for s in args.computer or []:
        if not 1 <= s <= args.players:
            raise UserError(f"--computer: seat {s} is not one of 1..{args.players}")
        seats[s - 1] = args.level
    if not 1 <= args.first <= args.players:
        raise UserError(f"--first: seat {args.first} is not one of 1..{args.players}")
    deal = args.deal or any(k != "person" for k in seats)
    cfg = load_settings(args.config)
    learning = bool(args.place or args.out_of_play is not None or args.pile or args.place_card
                    or args.out_of_play_card is not None or args.pile_card)
    if learning or args.camera:
        from ..modes.stacks_camera import learn_spots, open_camera
        spots_path = learn_spots(args, cfg) if learning else None
        if learning and not args.camera:
            return 0
        if deal:
            raise UserError("--camera: the camera reads real cards: not with --deal or "
                            "--computer")
        camera = open_camera(args, cfg, spots_path)
    try:
        deck = load_deck(args.deck)
    except EngineError as exc:
        raise UserError(str(exc)) from None
    factory = None
    if cfg["gpio.enabled"]:
        if args.mock_gpio:
            from gpiozero.pins.mock import MockFactory, MockPWMPin
            factory = MockFactory(pin_class=MockPWMPin)
        else:
            factory = real_pin_factory()
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    game = StacksGame(args.players, rng=random.Random(seed), deck=deck, known=deal,
                      options=StacksOptions(direction=args.direction), first=args.first - 1)
    path = new_record_path(records_dir(cfg, args.records), "stacks")
    writer = RecordWriter(path)
    listeners = []
    gpio = None
    if factory is not None:
        from ..indicators.gpio import StacksGpio
        gpio = StacksGpio(cfg.section("gpio"), pin_factory=factory)
        listeners.append(gpio)
    dash = None
    if cfg["dashboard.enabled"] and not args.no_dashboard:
        from ..dashboard import Dashboard
        dash = Dashboard(cfg.section("dashboard"), path.parent, None, pin=cfg["dashboard.pin"] or None,
                         host=cfg["dashboard.host"], port=cfg["dashboard.port"])
        dash.stacks_seats = seats
        try:
            print(f"dashboard: {dash.start()} (the piles and chips, live)", flush=True)
            listeners.append(dash.stacks)
        except OSError as exc:
            print(f"dashboard not started: port {cfg['dashboard.port']}: {exc.strerror}",
                  file=sys.stderr)
            dash = None
    print(f"seqboard stacks: {args.players} players, "
          f"{'the engine deals' if deal else 'real cards'}; record {path}; ? for help",
          flush=True)
    table = StacksTable(game, seats, sys.stdout, write=writer.write,
                        seed=seed, listeners=listeners)
    if sys.stdin.isatty():
        try:
            import readline
            readline.set_completer(completer(table))
            readline.parse_and_bind("tab: complete")
        except ImportError:  # pragma: no cover - not on every platform
            pass
    if dash is not None:
        dash.stacks("start", game, "")
    try:
        if args.camera:
            from ..modes.stacks_camera import CameraStacks, run_camera
            frames, watcher = camera
            run_camera(CameraStacks(table, watcher), frames)
        else:
            run_table(table, input)
    finally:
        writer.close()
        if dash is not None:
            dash.stop()
        if gpio is not None:
            gpio.close()
    return 0
