"""``seqboard render``: a picture (or a short video, a folder of frames) of a board in chosen
conditions, drawn by the synthetic camera: to test a setup, or to attach to a bug report."""

from __future__ import annotations

import argparse
import sys

EPILOG = """examples:
  seqboard render board.png                              an empty board, a look drawn from seed 0
  seqboard render board.png --random 0.4 --seed 7        random chips on 40 % of the spaces
  seqboard render board.png --chips d4=R,e5=B,f6=W --hand e6
  seqboard render board.png --position game.txt --look art=vintage,table=dark,light=dim_mixed
  seqboard render board.jpg --look camera=phone --tilt 35 --rotation 90
  seqboard render frames/ --video 30 --random 0.3 --hand c4
                                                         30 frames: a hand reaches for c4 and leaves
  seqboard render board.png --split heldout --seed 3     a look of the held-out families

A position is the grid `seqboard read` prints (. empty, B G R chips, W a flipped chip), from a
file (--position FILE, - for standard input) or as spaces (--chips). A look names a family in
any of the dimensions art, board, chips, table, hand, light, camera (see docs/vision.md), the
rest drawn from --seed; the command prints the whole look, so the same picture can be made
again. With --truth it also writes what is really on the board (OUT.truth.txt, or truth.txt in
the folder of a video): the chips, and ? where a hand covers a space.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("render", help="draw a picture or a video of a board in chosen conditions",
                       description="Draw a board as a camera would see it: a position, a look "
                                   "(card art, board, chips, table, hand, light, camera), a hand.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", help="the picture (.png, .jpg) or, with --video, a folder of frames")
    p.add_argument("--edition", default="classic", choices=["classic", "travel", "jewish"],
                   help="the board's edition (default classic)")
    pos = p.add_mutually_exclusive_group()
    pos.add_argument("--position", metavar="FILE", help="the chips as a grid of . B G R W (- for stdin)")
    pos.add_argument("--chips", metavar="SPACE=C,...", help="chips on named spaces, e.g. d4=R,e5=B")
    pos.add_argument("--random", metavar="FILL", type=float,
                     help="random chips on this share of the spaces (0..1)")
    p.add_argument("--look", metavar="DIM=FAMILY,...", default="",
                   help="families to use, e.g. art=vintage,table=dark (the rest drawn at random)")
    p.add_argument("--split", choices=["tuned", "heldout", "any"], default="any",
                   help="which families the rest of the look is drawn from (default any)")
    p.add_argument("--seed", type=int, default=0, help="seed of everything drawn at random")
    p.add_argument("--hand", metavar="SPACE", help="a hand reaching for this space")
    p.add_argument("--tilt", type=float, help="camera tilt in degrees (0: straight above)")
    p.add_argument("--rotation", type=float, help="the board's rotation in the picture, degrees")
    p.add_argument("--size", default="1280x720", metavar="WxH", help="picture size (default 1280x720)")
    p.add_argument("--video", type=int, metavar="N", help="write N frames into the folder OUT")
    p.add_argument("--truth", action="store_true", help="also write what is really on the board")
    p.set_defaults(func=run)


def _position(args, layout):
    from engine.errors import EngineError
    from engine.observation import Observation, SpaceState

    from ..errors import UserError
    if args.position:
        try:
            text = sys.stdin.read() if args.position == "-" else open(args.position, encoding="utf-8").read()
        except OSError as exc:
            raise UserError(f"{args.position}: cannot read: {exc.strerror}") from None
        try:
            obs = Observation.parse(text)
        except EngineError as exc:
            raise UserError(f"{args.position}: {exc}") from None
        if (obs.rows, obs.cols) != (layout.rows, layout.cols):
            raise UserError(f"{args.position}: a {obs.rows} x {obs.cols} grid; the {args.edition} "
                            f"board is {layout.rows} x {layout.cols}")
        return obs
    obs = Observation.empty(layout.rows, layout.cols)
    if args.chips:
        changes = {}
        for part in filter(None, (p.strip() for p in args.chips.split(","))):
            space, _, colour = part.partition("=")
            try:
                idx = layout.parse_space(space)
            except ValueError as exc:
                raise UserError(f"--chips: {exc}") from None
            if colour.upper() not in ("B", "G", "R", "W"):
                raise UserError(f"--chips: {part!r}: the colour must be B, G, R or W")
            changes[idx] = SpaceState(colour.upper())
        obs = obs.replace(changes)
    if args.random is not None:
        if not 0 <= args.random <= 1:
            raise UserError(f"--random: {args.random} is not a share between 0 and 1")
        import numpy as np

        from vision.synth import random_board
        obs = random_board(layout, np.random.default_rng([args.seed, 5]), fill=args.random)
    return obs


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    import numpy as np

    from engine.game import builtin_layout
    from vision.looks import DIMENSIONS, draw_look, look_conditions, parse_look
    from vision.synth import render

    from ..errors import UserError
    layout = builtin_layout(args.edition)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
        if not (64 <= w <= 8192 and 64 <= h <= 8192):
            raise ValueError
    except ValueError:
        raise UserError(f"--size: {args.size!r}: expected WIDTHxHEIGHT, e.g. 1280x720") from None
    try:
        chosen = parse_look(args.look, args.seed)
    except ValueError as exc:
        raise UserError(f"--look: {exc}") from None
    drawn = draw_look(np.random.default_rng([args.seed, 19]), args.split)
    named = {part.split("=", 1)[0].strip() for part in args.look.split(",") if "=" in part}
    look = replace(drawn, seed=args.seed, **{d: getattr(chosen, d) for d in DIMENSIONS if d in named})
    hand = None
    if args.hand:
        try:
            hand = layout.parse_space(args.hand)
        except ValueError as exc:
            raise UserError(f"--hand: {exc}") from None
    board = _position(args, layout)
    cond = look_conditions(look, w, h)
    if args.tilt is not None:
        if not 0 <= args.tilt <= 60:
            raise UserError(f"--tilt: {args.tilt} degrees is outside 0..60")
        cond = replace(cond, tilt_deg=args.tilt)
    if args.rotation is not None:
        cond = replace(cond, rotation_deg=args.rotation)
    out = Path(args.out).expanduser()
    print(f"look: {look.describe()}", flush=True)
    if not args.video:
        if out.suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp"):
            raise UserError(f"{out}: give a .png or .jpg name (or --video N and a folder)")
        r = render(layout, board, replace(cond, hand_at=hand), seed=args.seed, look=look)
        _write(out, r.image)
        if args.truth:
            _write_text(out.with_name(out.stem + ".truth.txt"), str(r.truth) + "\n")
        print(f"wrote {out}")
        return 0
    if args.video < 1 or args.video > 10000:
        raise UserError(f"--video: {args.video}: give between 1 and 10000 frames")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{out}: cannot make the folder: {exc.strerror}") from None
    rng = np.random.default_rng([args.seed, 25])
    target = hand if hand is not None else int(rng.integers(layout.size))
    truth = []
    for k in range(args.video):
        # the hand is over the board in the middle third of the frames; the light flickers
        over = args.video >= 3 and args.video // 3 <= k < args.video - args.video // 3
        c = replace(cond, hand_at=target if over else None,
                    brightness=cond.brightness * float(rng.uniform(0.96, 1.04)))
        r = render(layout, board, c, seed=args.seed * 100003 + k, look=look)
        name = out / f"frame-{k + 1:04d}.png"
        _write(name, r.image)
        truth.append(f"# {name.name}\n{r.truth}\n")
        print(f"\rframe {k + 1}/{args.video}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if args.truth:
        _write_text(out / "truth.txt", "".join(truth))
    print(f"wrote {args.video} frames into {out}")
    return 0


def _write(path, image) -> None:
    import cv2

    from ..errors import UserError
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ok = cv2.imwrite(str(path), image)
    except (OSError, cv2.error) as exc:
        raise UserError(f"{path}: cannot write: {exc}") from None
    if not ok:
        raise UserError(f"{path}: cannot write the picture")


def _write_text(path, text: str) -> None:
    from ..errors import UserError
    try:
        path.write_text(text, "utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot write: {exc.strerror}") from None
