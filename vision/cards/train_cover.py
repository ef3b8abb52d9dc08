"""Teach the shipped index reader (vision/cards/cardnet.onnx) to read an index that fingers
cover in part (session six, docs/cards.md), by fine-tuning it from its own ONNX weights:

    nice -n 10 python -m vision.cards.train cover --seed 2     # data and fine-tuning

The first training (:mod:`vision.cards.train_net`) labels a corner ``none`` when the hand
covers more than 8 % of its index *box*, and never shows it a corner covered 1 to 8 %: a
finger over the box's paper, the rank and suit sign still whole, was taught as unreadable.
Here a corner is labelled from how much of the index's **ink** the hand covers, the rank and
the suit sign each (:func:`glyph_cover`): the card when neither is covered by more than
``READ_COVER``, ``none`` when either is covered by ``NONE_COVER`` or more; between the two it
is not taught either way. The scenes are the tuned split's (tuned scene families, the
training styles of :func:`vision.cards.train_net.training_style`), with fingers over the new
card in about a third of them (a hand in about half the scenes). Needs the ``train``
extra and the DejaVu fonts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from . import cardnet, reader, train_net
from .scene import render_pile
from .styles import CODES, card_image

READ_COVER = 0.10      # at most this much of the rank's and of the suit sign's ink covered: read
NONE_COVER = 0.35      # this much of either covered: ``none``


def index_ink(st, code: str) -> tuple[np.ndarray, np.ndarray]:
    """Masks (reader.H x reader.W, bool) of the rank's and the suit sign's ink in the top-left
    index of ``code`` drawn in ``st``, on the straightened card."""
    img = card_image(code, st, 240)
    h, w = img.shape[:2]
    a = img[..., 3:4].astype(np.float32) / 255
    bgr = (img[..., :3] * a + np.float32(st.paper) * (1 - a)).astype(np.uint8)
    q = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    card = reader.straighten(bgr, q)
    norm = cardnet.paper_normalised(card)
    ink = norm.min(axis=2) < 0.75
    H, W = ink.shape
    if st.family == "shipped":                        # the public-domain deck's own index
        x0, y0, x1, y1, split = 0.03, 0.01, 0.24, 0.30, 0.12
    else:
        x0, y0, x1, y1 = train_net._index_box(st)
        split = st.index_y + st.index_h + 0.015       # the rank above, the suit sign below
    box = np.zeros_like(ink)
    box[int(y0 * H):int(y1 * H) + 1, int(x0 * W):int(x1 * W) + 1] = True
    rows = np.arange(H)[:, None] / H
    return ink & box & (rows < split), ink & box & (rows >= split)


def glyph_cover(hand: np.ndarray, rank: np.ndarray, suit: np.ndarray) -> tuple[float, float]:
    """How much of the rank's and of the suit sign's ink the (straightened) hand covers."""
    def part(m):
        return float(hand[m].mean()) if m.any() else 1.0
    return part(rank), part(suit)


def covered_samples(rng: np.random.Generator, fonts: list[str], jitters: int = 3):
    """Index-corner crops (uint8, as train_net) and labels from one scene, labelled by how much
    of the index's ink the hand covers."""
    st = train_net.training_style(rng, fonts)
    s = render_pile(rng, "tuned", style=st, hand_over=True if rng.random() < 0.5 else None)
    code = CODES.index(s.code)
    xs, ys = [], []
    hm = s.hand_mask if s.hand_mask is not None else np.zeros(s.after.shape[:2], np.float32)
    rank, suit = index_ink(s.style, s.code)
    true_hand = reader.straighten(hm, s.quad)       # the hand on the card, as drawn
    labels = []
    for turn in range(2):
        m = true_hand if turn == 0 else true_hand[::-1, ::-1]
        cr, cs = glyph_cover(m, rank, suit)
        labels.append(code if max(cr, cs) <= READ_COVER else
                      cardnet.NONE if max(cr, cs) >= NONE_COVER else None)
    L = s.card_px
    for j in range(jitters):
        q = train_net._jitter(s.quad, L, rng)
        img = train_net.softened(s.after, rng)
        norm = cardnet.paper_normalised(reader.straighten(img, q))
        for turn in range(2):
            if labels[turn] is None:                 # partly covered: not taught
                continue
            n = norm if turn == 0 else np.ascontiguousarray(norm[::-1, ::-1])
            xs.append(train_net._to_u8(cardnet.corner_crop(n)))
            ys.append(labels[turn])
        if j == 0 and rng.random() < 0.5:            # the middle of the card: no index
            h, w = norm.shape[:2]
            y0 = int(rng.uniform(0.25, 0.55) * h)
            x0 = int(rng.uniform(0.2, 0.4) * w)
            mid = norm[y0:y0 + int(cardnet.CROP[1] * h), x0:x0 + int(cardnet.CROP[0] * w)]
            xs.append(train_net._to_u8(cv2.resize(mid, cardnet.SIZE, interpolation=cv2.INTER_AREA)))
            ys.append(cardnet.NONE)
    return xs, ys


def middle_ink(st, code: str) -> np.ndarray:
    """Mask (reader.H x reader.W, bool) of the ink of ``code``'s middle (its pips, the ace's
    pip, the court picture; not the index corners nor the border) on the straightened card."""
    img = card_image(code, st, 240)
    h, w = img.shape[:2]
    a = img[..., 3:4].astype(np.float32) / 255
    bgr = (img[..., :3] * a + np.float32(st.paper) * (1 - a)).astype(np.uint8)
    card = reader.straighten(bgr, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    ink = cardnet.paper_normalised(card).min(axis=2) < 0.75
    H, W = ink.shape
    if st.family == "shipped":
        x1, y1 = 0.24, 0.30
    else:
        _, _, x1, y1 = train_net._index_box(st)
    keep = np.zeros_like(ink)
    keep[int(0.06 * H):int(0.94 * H), int(0.06 * W):int(0.94 * W)] = True
    keep[:int(y1 * H) + 1, :int(x1 * W) + 1] = False
    keep &= keep[::-1, ::-1]
    return ink & keep


def _paint(norm: np.ndarray, rng, centre, axes) -> np.ndarray:
    """A hand-like blob (flat colour, soft edge) painted on a paper-normalised card in place;
    returns its mask."""
    h, w = norm.shape[:2]
    m = np.zeros((h, w), np.float32)
    cv2.ellipse(m, (int(centre[0] * w), int(centre[1] * h)), (int(axes[0] * w), int(axes[1] * h)),
                float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    m = cv2.GaussianBlur(m, (0, 0), 1.5)
    col = np.float32(rng.uniform(0.2, 1.2, 3))
    if rng.random() < 0.5:                       # skin-like: red over blue
        col = np.float32(sorted(rng.uniform(0.3, 1.1, 3)))
    norm[:] = norm * (1 - m[..., None]) + col * m[..., None]
    return m


MID_READ_COVER = 0.12   # at most this much of the middle's ink covered: the card
MID_NONE_COVER = 0.35   # this much or more: ``none`` (between: not taught)


def middle_samples(rng: np.random.Generator, fonts: list[str], jitters: int = 3):
    """Whole-card inputs and labels for the middle reader (as train_mid), with a palm painted
    over the card's middle in some views, each labelled by how much of the middle's ink the
    hand and the painted blobs cover: a 9 whose middle pips are hidden is not a 4."""
    from . import midnet, train_mid
    st = train_net.training_style(rng, fonts)
    s = render_pile(rng, "tuned", style=st, hand_over=True if rng.random() < 0.35 else None)
    code = CODES.index(s.code)
    L = s.card_px
    hm = s.hand_mask if s.hand_mask is not None else np.zeros(s.after.shape[:2], np.float32)
    ink = middle_ink(s.style, s.code)
    hand = reader.straighten(hm, s.quad)
    xs, ys = [], []
    for j in range(jitters):
        q = train_net._jitter(s.quad, L, rng)
        off = j == jitters - 1 and rng.random() < 0.25   # a rectangle far off the card
        if off:
            a = rng.uniform(0, 2 * np.pi)
            q = q + np.float32([np.cos(a), np.sin(a)]) * L * rng.uniform(0.35, 0.7)
        img = train_net.softened(s.after, rng)
        card = reader.straighten(img, q)
        norm = midnet.paper_normalised(card)
        occ = hand.copy()
        if rng.random() < 0.75:                  # index corners hidden: read the middle
            which = int(rng.integers(3))
            for c in (0, 1):
                if which == 2 or which == c:
                    cx, cy = rng.uniform(0.03, 0.2), rng.uniform(0.03, 0.2)
                    if c:
                        cx, cy = 1 - cx, 1 - cy
                    occ = np.maximum(occ, _paint(norm, rng, (cx, cy), (rng.uniform(0.15, 0.35),
                                                                      rng.uniform(0.12, 0.26))))
        if rng.random() < 0.25:                  # a palm or fingers over the middle
            occ = np.maximum(occ, _paint(norm, rng, rng.uniform(0.25, 0.75, 2),
                                         rng.uniform(0.06, 0.35, 2)))
        if off:
            label = midnet.NONE
        else:
            cover = float(reader.straighten(hm, q).mean())
            mc = float(occ[ink].mean()) if ink.any() else 1.0
            label = midnet.NONE if cover > train_mid.NONE_COVER or mc >= MID_NONE_COVER else \
                code if mc <= MID_READ_COVER else None
        if label is None:
            continue
        if rng.random() < 0.5:
            norm = np.ascontiguousarray(norm[::-1, ::-1])
        xs.append(train_net._to_u8(midnet.mid_crop(norm)))
        ys.append(label)
    return xs, ys


def _chunk(args):
    return train_net.render_chunk(args, covered_samples, salt=(6,))


def _mid_chunk(args):
    return train_net.render_chunk(args, middle_samples, salt=(66,))


def make_data(seed, scenes, jobs, cache, progress, middle: bool = False):
    if middle:
        return train_net.make_data(seed, scenes, jobs, cache, progress, chunk=_mid_chunk,
                                   prefix="cover-mid", per=50, unit="cards")
    return train_net.make_data(seed, scenes, jobs, cache, progress, chunk=_chunk, prefix="cover")


def load_onnx(model, path: Path) -> None:
    """Put the weights of an exported index reader (its batch norms folded into the
    convolutions) into ``model`` (:func:`vision.cards.train_net.build_model`): each batch norm
    becomes the folded bias (mean 0, variance 1), kept frozen while fine-tuning."""
    import onnx
    import torch
    from onnx import numpy_helper
    g = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [n for n in g.node if n.op_type == "Conv"]
    # the folded network's layers, in order, as torch.nn.Sequential lists them
    gemms = [n for n in g.node if n.op_type == "Gemm"]
    mods = list(model)
    tconv = [m for m in mods if isinstance(m, torch.nn.Conv2d)]
    tbn = [m for m in mods if isinstance(m, torch.nn.BatchNorm2d)]
    tlin = [m for m in mods if isinstance(m, torch.nn.Linear)]
    if len(convs) != len(tconv) or len(gemms) != len(tlin):
        raise SystemExit(f"error: {path}: not the index reader's layers")
    with torch.no_grad():
        for n, c, bn in zip(convs, tconv, tbn):
            c.weight.copy_(torch.from_numpy(init[n.input[1]].copy()))
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(init[n.input[2]].copy()))
        for n, lin in zip(gemms, tlin):
            lin.weight.copy_(torch.from_numpy(init[n.input[1]].copy()))
            lin.bias.copy_(torch.from_numpy(init[n.input[2]].copy()))


def fine_tune(data: dict, seed: int, epochs: int, progress, start: Path, lr: float = 1e-3,
              build=None, to_input=None, none: int = cardnet.NONE):
    """``start``'s network trained ``epochs`` passes more on ``data`` (batch norms frozen, a
    one-cycle rate peaking at ``lr``), a tenth of the scenes kept for validation."""
    import time

    import torch
    torch.manual_seed(seed)
    gen = np.random.default_rng(seed)
    x, y, sc = data["x"], torch.from_numpy(data["y"]), data["scene"]
    va = (sc % 10) == 0
    tr_idx, va_idx = np.nonzero(~va)[0], np.nonzero(va)[0]
    build = build or train_net.build_model
    to_input = to_input or train_net.to_input
    model = build()
    load_onnx(model, start)
    xv = to_input(x[va_idx])

    def validate(tag):
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(xv[i:i + 512]).argmax(1) for i in range(0, len(xv), 512)])
        yv = y[va_idx]
        ok = pred == yv
        read = yv != none
        wrong = int(((pred != yv) & (pred != none)).sum())
        progress(f"{tag}: tuned validation {float(ok.float().mean()):.4f} ({len(va_idx)} inputs; "
                 f"with an index {float(ok[read].float().mean()):.4f}, none "
                 f"{float(ok[~read].float().mean()):.4f}, another card {wrong})")

    validate("the network fine-tuned from")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(tr_idx) + train_net.BATCH - 1) // train_net.BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    for ep in range(epochs):
        model.train()
        for m in model:
            if isinstance(m, torch.nn.BatchNorm2d):
                m.eval()                            # the folded statistics stay as they are
        t0 = time.time()
        train_net.one_pass(model, x, y, gen.permutation(tr_idx), opt, sched, gen, to_input,
                           lambda b, n, mean: progress(
                               f"epoch {ep + 1}/{epochs}: {b}/{n} corners, loss {mean:.4f}, "
                               f"{time.time() - t0:.0f} s"))
        validate(f"epoch {ep + 1}/{epochs}")
    model.eval()
    return model


def _pile(seed: int, i: int, covered: bool):
    return render_pile(np.random.default_rng([seed, 24, 6, i]), "tuned",
                       hand="bare" if covered and i % 2 else "sleeve" if covered else None,
                       hand_over=True if covered else None)


def _find(task):
    seed, i, covered = task
    cv2.setNumThreads(1)
    s = _pile(seed, i, covered)
    quads = reader.pile_quads(s.after, s.before, s.card_px)
    return np.float32(quads).reshape(-1, 4, 2)


def check(views: int, seed: int, covered: bool, models: list[Path], jobs: int, progress,
          mid: Path | None = None) -> int:
    """Read ``views`` TUNED piles (seed ``seed``; with ``covered``, a hand's fingers over every
    new card) with each index reader of ``models`` (with the middle reader
    ``mid``, the shipped one by default; the reader's thresholds and rules as shipped) and
    print right, wrong and unknown, with and
    without fingers over the card. The rectangles are found once (kept in build/)."""
    # ("-ink": the rectangles of session ten's pile reader, with the one on the changed ink)
    cache = Path("build") / (f"cards-cover-check-seed{seed}-n{views}-"
                             f"{'c' if covered else 'a'}-ink.npz")
    tasks = [(seed, i, covered) for i in range(views)]
    if cache.exists():
        z = np.load(cache)
        quads = [z[f"q{i}"] for i in range(views)]
    else:
        import multiprocessing as mp
        quads = []
        with mp.get_context("fork").Pool(jobs) as pool:
            for q in pool.imap(_find, tasks, chunksize=8):
                quads.append(q)
                if len(quads) % 100 == 0:
                    progress(f"check: {len(quads)}/{views} tuned piles found")
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache, **{f"q{i}": q for i, q in enumerate(quads)})
    cv2.setNumThreads(1)
    if mid is not None:
        from . import midnet
        mnet = midnet.MidNet(mid)
        midnet.shipped = lambda: mnet
    for path in models:
        net = cardnet.CardNet(path)
        cardnet.shipped = lambda net=net: net          # this process reads with ``path``
        got = {"right": [0, 0], "wrong": [0, 0], "unknown": [0, 0]}
        bad = []
        for (sd, i, cv), q in zip(tasks, quads):
            s = _pile(sd, i, cv)
            r = reader.read_agreed(s.after, list(q), reader.read_straight, reader.CardReading,
                                   s.before)
            k = "right" if r.code == s.code else "unknown" if r.code is None else "wrong"
            got[k][int(s.hand_over_card)] += 1
            if k == "wrong":
                bad.append(f"{s.code} read {r.code}")
        print(f"{path} (middle {mid or 'shipped'}): "
              + ", ".join(f"{k} {v[0] + v[1]} ({v[1]} with fingers over the card)"
                          for k, v in got.items())
              + (f"; wrong: {', '.join(bad)}" if bad else ""), flush=True)
    return 0


def main(argv=None) -> int:
    from .. import training
    if argv and argv[0] == "check":
        ap = training.parser(
            "python -m vision.cards.train cover check",
            "Read tuned piles with index reader model files in turn and print right, wrong "
            "and unknown readings (fingers over the card or not).",
            ["python -m vision.cards.train cover check --views 1000 --seed 5 "
             "vision/cards/cardnet.onnx /tmp/c.onnx"])
        ap.add_argument("models", type=Path, nargs="+")
        ap.add_argument("--views", type=int, default=1000)
        ap.add_argument("--seed", type=int, default=5)
        ap.add_argument("--covered", action="store_true",
                        help="fingers over every new card (a bare arm or a sleeve)")
        ap.add_argument("--jobs", type=int, default=2)
        ap.add_argument("--mid", type=Path, help="the middle reader's model (default: shipped)")
        a = ap.parse_args(argv[1:])
        return check(a.views, a.seed, a.covered, a.models, a.jobs, training.progress, a.mid)
    prog = "python -m vision.cards.train cover"
    ap = training.parser(
        prog, "Fine-tune the learned card index reader from its ONNX weights on pile scenes "
        "of the tuned families with fingers over the card, each corner labelled by how much "
        "of its rank and suit sign the hand covers (docs/cards.md, session six). Needs the "
        "'train' extra and the DejaVu fonts.",
        [f"nice -n 10 {prog} --seed 2", f"nice -n 10 {prog} --scenes 300 --out /tmp/c.onnx"])
    training.add_common(ap, 3000, 3, Path("build/cards-data"), cardnet.MODEL_PATH,
                        scenes_help="rendered pile scenes")
    ap.add_argument("--start", type=Path, default=cardnet.MODEL_PATH,
                    help=f"the network fine-tuned (default {cardnet.MODEL_PATH})")
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (default 0.001)")
    ap.add_argument("--data-only", action="store_true", help="render the data and stop")
    ap.add_argument("--middle", action="store_true",
                    help="the middle reader instead (vision/cards/midnet.onnx: --start and "
                         "--out default to it), labelled by how much of the middle's ink is "
                         "covered")
    args = ap.parse_args(argv)
    from . import midnet, train_mid
    if args.middle and args.start == cardnet.MODEL_PATH:
        args.start = midnet.MODEL_PATH
    if args.middle and args.out == cardnet.MODEL_PATH:
        args.out = midnet.MODEL_PATH
    if args.scenes < 10 or args.epochs < 1:
        ap.error("--scenes must be 10 or more and --epochs 1 or more")
    if not args.start.exists():
        ap.error(f"{args.start}: no such model file")
    data = make_data(args.seed, args.scenes, args.jobs, args.cache, training.progress, args.middle)
    y = data["y"]
    training.progress(f"{len(y)} {'cards' if args.middle else 'corners'}, "
                      f"{int((y == cardnet.NONE).sum())} labelled none")
    if args.data_only:
        return 0
    if not training.need_torch(args.threads):
        return 2
    start = args.start.read_bytes()                 # --out may be --start
    tmp = args.cache / f"cover-start-{args.out.stem}.onnx"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_bytes(start)
    if args.middle:
        model = fine_tune(data, args.seed, args.epochs, training.progress, tmp, args.lr,
                          train_mid.build_model, train_mid.to_input, midnet.NONE)
        train_mid.export(model, args.out)
    else:
        model = fine_tune(data, args.seed, args.epochs, training.progress, tmp, args.lr)
        train_net.export(model, args.out)
    training.saved(model, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
