"""Train the board network (vision/models/board.onnx): one pass over the whole straightened
board that reads every space with its neighbours in view (issue 19 item 3, session twelve).

    python -m vision.train_boards --seed 1                    # the shipped model (about 45
                                                              # minutes on 2 cores once the
                                                              # data are cached)
    python -m vision.train_boards --seed 1 --scenes 40 --epochs 2 --out /tmp/b.onnx
                                                              # a quick try

The data are those of ``python -m vision.train_spaces`` (the same renders of TUNED looks
only, cached in ``build/spaces-data/``: no held-out family is ever seen): every cached
frame holds the 100 spaces of one board in the layout's order, so the spaces' crops are
put back together into the board the reader straightened (16 pixels a space, the light
divided out by the board's own paper) beside the calibration's empty board (its 8 x 8
patches, each pixel repeated). The network (:func:`board_net`) reads the board in one
piece and gives six probabilities a space (vision.spacenet.CLASSES). What it sees that
the one-space classifier does not: an arm or a sleeve reaching in from the board's edge, a
shadow running over several spaces, the light of the spaces round a space.

Training turns and mirrors whole boards (cards and boards lie any way round), changes the
light of a board as a whole and of each space (as the one-space classifier's training
does, :func:`vision.train_spaces.augment`, and its changes the renderer never draws,
:func:`vision.train_spaces.shift_augment`), and drops the empty board's picture for a
share of the spaces (a board read without calibration has it only where a space's twin is
bare) or of whole boards. Needs the ``train`` extra; reading never does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from .spacenet import BOARD_PATH, CHANNELS, CLASSES, SIDE
from .train_spaces import hue_sat, make_data, shift_augment

ROWS = COLS = 10          # the classic board's spaces (the data are classic boards)
WIDTHS = (24, 32, 32, 48, 64, 96)


def board_net(widths: tuple = WIDTHS, whole: bool = False):
    """The network: 16 pixels a space in, one cell a space out (any number of rows and
    columns). Two strided layers bring a space to 4 x 4 cells, two more (the second dilated)
    widen the view to about two spaces, each space is then pooled to one cell, exactly on
    its square, and two layers at a space a cell look at the neighbours. ``whole``: each
    space also sees a summary of the whole board (:class:`WholeBoard`: this board's chips
    and light), before the last two layers."""
    from torch import nn
    a, b, c, d, e, f = widths

    def cbr(i, o, stride=1, dil=1, k=3):
        return [nn.Conv2d(i, o, k, padding=dil * (k // 2), stride=stride, dilation=dil,
                          bias=False), nn.BatchNorm2d(o), nn.ReLU()]
    middle = [whole_board(d)] if whole else []
    return nn.Sequential(*cbr(CHANNELS, a, 2), *cbr(a, b, 2), *cbr(b, c), *cbr(c, d, dil=2),
                         nn.AvgPool2d(SIDE // 4, SIDE // 4), *middle, *cbr(d, e), *cbr(e, f),
                         nn.Conv2d(f, len(CLASSES), 1))


def whole_board(channels: int):
    """A layer that adds to every space what the whole board holds: the mean over the board
    of each channel, through two 1 x 1 layers, added to each space (a tanh keeps it in
    bounds). Exported to operations both OpenCV 4 and 5 run with any board size (a mean
    over the two axes, convolutions, an addition broadcast over the spaces)."""
    import torch
    from torch import nn

    class WholeBoard(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.fc1 = nn.Conv2d(c, c, 1)
            self.fc2 = nn.Conv2d(c, c, 1)

        def forward(self, x):
            g = torch.relu(self.fc1(x.mean(dim=(2, 3), keepdim=True)))
            return x + torch.tanh(self.fc2(g))
    return WholeBoard(channels)


def boards_of(data: dict, frames_per_board: int = ROWS * COLS):
    """The cached spaces as whole boards: (x (m, 3, 160, 160) uint8, ref (m, 3, 80, 80)
    uint8, y (m, 10, 10) int64, scene (m,))."""
    n = frames_per_board
    m = len(data["y"]) // n
    x = data["x"][:m * n].reshape(m, ROWS, COLS, 3, SIDE, SIDE).transpose(0, 3, 1, 4, 2, 5) \
        .reshape(m, 3, ROWS * SIDE, COLS * SIDE)
    ref = data["ref"][:m * n].reshape(m, ROWS, COLS, 8, 8, 3).transpose(0, 5, 1, 3, 2, 4) \
        .reshape(m, 3, ROWS * 8, COLS * 8)
    y = data["y"][:m * n].reshape(m, ROWS, COLS)
    scene = data["scene"][:m * n:n]
    return np.ascontiguousarray(x), np.ascontiguousarray(ref), y, scene


def tiles_to_board(tiles: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows*cols, C, s, s) per-space inputs -> (1, C, rows*s, cols*s): the board they came
    from (numpy)."""
    n, ch, s, _ = tiles.shape
    return np.ascontiguousarray(tiles.reshape(rows, cols, ch, s, s).transpose(2, 0, 3, 1, 4)
                                .reshape(1, ch, rows * s, cols * s))


def board_to_tiles(board: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The inverse of :func:`tiles_to_board` for one board (C, rows*s, cols*s)."""
    ch, h, w = board.shape
    s = h // rows
    return np.ascontiguousarray(board.reshape(ch, rows, s, cols, s).transpose(1, 3, 0, 2, 4)
                                .reshape(rows * cols, ch, s, s))


def chip_shades(tiles: np.ndarray, labels: np.ndarray, gen: np.random.Generator,
                share: float) -> np.ndarray:
    """One board's chips of each colour given another shade, the same for every chip of
    that colour on the board (a set of chips of other plastic, or the light tinting them):
    with chance ``share`` per colour, its hue turned by up to 25 degrees, its saturation
    scaled by 0.55 to 1.4 and its lightness by 0.85 to 1.15. ``tiles``: (n, 7, 16, 16)
    inputs, -1..1, changed in place and returned; ``labels``: each space's class."""
    for colour in (1, 2, 3):              # blue, green, red (vision.spacenet.CLASSES)
        if gen.random() >= share:
            continue
        idx = np.flatnonzero(labels == colour)
        if not len(idx):
            continue
        img = (tiles[idx, 0:3].transpose(0, 2, 3, 1) + 1.0) * 127.5
        turn = np.full(len(idx), gen.uniform(-25, 25))
        sat = np.full(len(idx), np.exp(gen.uniform(np.log(0.55), np.log(1.4))))
        img = hue_sat(img, turn, sat) * float(gen.uniform(0.85, 1.15))
        tiles[idx, 0:3] = (np.clip(img, 0, 255) / 127.5 - 1.0).transpose(0, 3, 1, 2)
    return tiles


def chip_opacity(tiles: np.ndarray, labels: np.ndarray, gen: np.random.Generator,
                 share: float) -> np.ndarray:
    """One board's chips of each colour made less opaque, the same for every chip of that
    colour: with chance ``share`` per colour (white too), each chip's picture blended with
    its empty space's (the reference channels) at an opacity of 0.55 to 0.9, so the card's
    print shows through. Spaces without a reference are left as they are."""
    for colour in (1, 2, 3, 4):
        if gen.random() >= share:
            continue
        idx = np.flatnonzero((labels == colour) & (tiles[:, 6, 0, 0] > 0))
        if not len(idx):
            continue
        a = float(gen.uniform(0.55, 0.9))
        tiles[idx, 0:3] = a * tiles[idx, 0:3] + (1.0 - a) * tiles[idx, 3:6]
    return tiles


def batch_inputs(x, ref, idx, gen: np.random.Generator, train: bool, shift: float,
                 drop_space: float = 0.25, drop_board: float = 0.15, y=None,
                 shades: float = 0.0, camera_hue: float = 0.0, opacity: float = 0.0
                 ) -> np.ndarray:
    """The network's input for boards ``idx`` (numpy float32, (k, 7, 160, 160)); in
    training, with the light, the picture and the empty board's presence changed.
    ``shades``: the chance that a board's chips of one colour take another shade
    (:func:`chip_shades`; needs the labels ``y``); ``camera_hue``: the chance that the
    whole board, its empty picture with it, is seen through a camera whose colours are
    turned by up to 20 degrees; ``opacity``: the chance that a board's chips of one colour
    let the print show through (:func:`chip_opacity`)."""
    k = len(idx)
    out = np.zeros((k, CHANNELS, ROWS * SIDE, COLS * SIDE), np.float32)
    out[:, 0:3] = x[idx].astype(np.float32) / 127.5 - 1.0
    out[:, 3:6] = ref[idx].astype(np.float32).repeat(2, axis=2).repeat(2, axis=3) / 127.5 - 1.0
    out[:, 6] = 1.0
    if not train:
        return out
    for i in range(k):
        if shift or shades or opacity:
            t = board_to_tiles(out[i], ROWS, COLS)
            if opacity:
                t = chip_opacity(t, y[idx[i]].reshape(-1), gen, opacity)
            if shades:
                t = chip_shades(t, y[idx[i]].reshape(-1), gen, shades)
            if shift:
                t = shift_augment(t, gen, shift)
            out[i] = tiles_to_board(t, ROWS, COLS)[0]
        if camera_hue and gen.random() < camera_hue:
            turn = np.full(2, gen.uniform(-20, 20))
            sat = np.full(2, np.exp(gen.uniform(np.log(0.7), np.log(1.3))))
            pics = (out[i, 0:6].reshape(2, 3, ROWS * SIDE, COLS * SIDE).transpose(0, 2, 3, 1) + 1.0)
            pics = hue_sat(pics * 127.5, turn, sat)
            out[i, 0:6] = (pics / 127.5 - 1.0).transpose(0, 3, 1, 2).reshape(6, ROWS * SIDE,
                                                                             COLS * SIDE)
    # the light of the whole board off by a little in strength and colour, and a gradient
    # of light across it that the normalisation left (a board's own, not per space)
    gain = gen.uniform(0.8, 1.15, (k, 1, 1, 1)) * gen.uniform(0.92, 1.08, (k, 3, 1, 1))
    u = np.linspace(-1, 1, ROWS * SIDE, dtype=np.float32)
    ang = gen.uniform(0, 2 * np.pi, k)
    tilt = np.where(gen.random(k) < 0.4, gen.uniform(0, 0.1, k), 0.0)
    ramp = 1.0 + tilt[:, None, None] * (np.cos(ang)[:, None, None] * u[None, None, :]
                                        + np.sin(ang)[:, None, None] * u[None, :, None])
    out[:, 0:3] = (out[:, 0:3] + 1.0) * (gain * ramp[:, None]).astype(np.float32) - 1.0
    # the empty board's light a little off from the frame's
    rg = gen.uniform(0.95, 1.05, (k, 3, 1, 1)).astype(np.float32)
    out[:, 3:6] = (out[:, 3:6] + 1.0) * rg - 1.0
    # per space, a little more or less light (the normalisation per space is not perfect)
    sg = gen.uniform(0.95, 1.05, (k, 1, ROWS, COLS)).astype(np.float32)
    out[:, 0:3] = (out[:, 0:3] + 1.0) * sg.repeat(SIDE, 2).repeat(SIDE, 3) - 1.0
    out[:, 0:3] += (gen.normal(0, 1, out[:, 0:3].shape) *
                    gen.uniform(0, 0.03, (k, 1, 1, 1))).astype(np.float32)
    # no empty board: for some spaces (a twin holding a chip) or a whole board
    drop = gen.random((k, ROWS, COLS)) < drop_space
    drop |= (gen.random(k) < drop_board)[:, None, None]
    mask = (~drop).astype(np.float32).repeat(SIDE, 1).repeat(SIDE, 2)[:, None]
    out[:, 3:] *= mask
    return out


def turned(xb: np.ndarray, yb: np.ndarray, gen: np.random.Generator):
    """The same batch of boards turned by a random quarter and perhaps mirrored (the labels
    with them)."""
    k = int(gen.integers(4))
    xb = np.rot90(xb, k, axes=(2, 3))
    yb = np.rot90(yb, k, axes=(1, 2))
    if gen.random() < 0.5:
        xb, yb = xb[..., ::-1], yb[..., ::-1]
    return np.ascontiguousarray(xb), np.ascontiguousarray(yb)


def scene_looks(seed: int, scenes: int) -> list:
    """The look each cached scene was drawn in (None: the project's own plain look), drawn
    again from the same seeds as :func:`vision.train_spaces._scene` draws them (no
    rendering)."""
    from .looks import draw_look
    out = []
    for index in range(scenes):
        rng = np.random.default_rng([seed, 1901, index])
        out.append(None if rng.random() < 0.15 else draw_look(rng, "tuned"))
    return out


def without_families(data: dict, seed: int, families: list[str]) -> dict:
    """``data`` less the scenes drawn in any of ``families`` ("art=ornate", ...): to train a
    model that never saw them and measure it on scenes that have them (a held-out split
    nested inside the tuned world, for choosing how to train and read)."""
    looks = scene_looks(seed, int(data["scene"].max()) + 1)
    pairs = [f.split("=", 1) for f in families]
    bad = np.array([lk is not None and any(getattr(lk, d) == v for d, v in pairs)
                    for lk in looks])
    keep = ~bad[data["scene"]]
    return {k: v[keep] for k, v in data.items()}


def train(data: dict, seed: int, epochs: int, progress, widths: tuple = WIDTHS,
          shift: float = 0.5, batch: int = 16, lr: float = 3e-3, whole: bool = False,
          shades: float = 0.0, camera_hue: float = 0.0, opacity: float = 0.0):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(seed)
    x, ref, y, scene = boards_of(data)
    val = scene % 10 == 0
    tr_idx, va_idx = np.flatnonzero(~val), np.flatnonzero(val)
    progress(f"{len(tr_idx)} boards to train on, {len(va_idx)} kept aside")
    model = board_net(widths, whole)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(tr_idx) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    gen = np.random.default_rng(seed)
    counts = np.bincount(y[tr_idx].ravel(), minlength=len(CLASSES)).astype(np.float64)
    weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(CLASSES)) ** 0.5,
                          dtype=torch.float32)
    for ep in range(epochs):
        model.train()
        order = gen.permutation(tr_idx)
        t0, total, seen = time.time(), 0.0, 0
        for b in range(0, len(order), batch):
            idx = np.sort(order[b:b + batch])
            xb = batch_inputs(x, ref, idx, gen, True, shift, y=y, shades=shades,
                              camera_hue=camera_hue, opacity=opacity)
            xb, yb = turned(xb, y[idx], gen)
            logits = model(torch.from_numpy(xb))
            loss = F.cross_entropy(logits, torch.from_numpy(yb), weight=weight,
                                   label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
            if b // batch % 40 == 0:
                progress(f"epoch {ep + 1}/{epochs}: {b}/{len(order)} boards, loss "
                         f"{total / seen:.4f} ({time.time() - t0:.0f} s)")
        acc, acc_n = evaluate(model, x, ref, y, va_idx)
        progress(f"epoch {ep + 1}/{epochs}: loss {total / seen:.4f}, tuned validation {acc:.5f}"
                 f" (without reference {acc_n:.5f}) {time.time() - t0:.0f} s")
    fit_temperature(model, x, ref, y, va_idx, progress)
    model.eval()
    return model


def _logits(model, x, ref, idx, noref: bool = False):
    import torch
    out = []
    with torch.no_grad():
        for b in range(0, len(idx), 32):
            xb = batch_inputs(x, ref, idx[b:b + 32], None, False, 0.0)
            if noref:
                xb[:, 3:] = 0.0
            out.append(model(torch.from_numpy(xb)))
    return torch.cat(out)


def evaluate(model, x, ref, y, idx):
    import torch
    model.eval()
    yy = torch.from_numpy(y[idx])
    acc = float((_logits(model, x, ref, idx).argmax(1) == yy).float().mean())
    acc_n = float((_logits(model, x, ref, idx, True).argmax(1) == yy).float().mean())
    return acc, acc_n


def fit_temperature(model, x, ref, y, idx, progress) -> float:
    """The temperature that makes the probabilities honest on the boards kept aside (with
    and without the empty board), baked into the last layer."""
    import torch
    import torch.nn.functional as F
    model.eval()
    logits = torch.cat([_logits(model, x, ref, idx), _logits(model, x, ref, idx, True)])
    logits = logits.permute(0, 2, 3, 1).reshape(-1, len(CLASSES))
    yy = torch.from_numpy(np.concatenate([y[idx], y[idx]]).reshape(-1))
    best, best_t = None, 1.0
    for t in np.exp(np.linspace(np.log(0.25), np.log(3.0), 61)):
        nll = float(F.cross_entropy(logits / float(t), yy))
        if best is None or nll < best:
            best, best_t = nll, float(t)
    last = model[-1]
    with torch.no_grad():
        last.weight.data /= best_t
        last.bias.data /= best_t
    progress(f"temperature {best_t:.3f} (validation log-loss {best:.4f})")
    return best_t


def export(model, out: Path) -> None:
    import torch
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, CHANNELS, ROWS * SIDE, COLS * SIDE)
    kw = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
    torch.onnx.export(model, dummy, str(out), input_names=["board"], output_names=["logits"],
                      dynamic_axes={"board": {0: "n", 2: "h", 3: "w"},
                                    "logits": {0: "n", 2: "rows", 3: "cols"}},
                      opset_version=11, do_constant_folding=True, **kw)
    # OpenCV must read the file as PyTorch does, on the classic board and the travel board
    import cv2

    from .onnx_net import load_net
    net = load_net(out, "board network", "", RuntimeError)
    for rows in (ROWS, 7):
        x = np.random.default_rng(rows).uniform(-1, 1, (1, CHANNELS, rows * SIDE, rows * SIDE))
        x = x.astype(np.float32)
        net.setInput(x)
        got = net.forward()
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()
        if got.shape != want.shape or float(np.abs(got - want).max()) > 1e-3:
            raise RuntimeError(f"{out}: OpenCV {cv2.__version__} reads the network otherwise "
                               "than PyTorch")


def main(argv=None) -> int:
    from . import training
    ap = training.parser(
        "python -m vision.train_boards",
        "Train the board network (all spaces read in one pass, each with its neighbours in "
        "view) from the space classifier's cached renders of tuned looks, and export it to "
        "ONNX (vision/models/board.onnx). Needs the 'train' extra.",
        ["python -m vision.train_boards --seed 1",
         "nice -n 10 python -m vision.train_boards --seed 1 --scenes 40 --epochs 2 "
         "--out /tmp/b.onnx"])
    training.add_common(ap, 2400, 12, Path("build/spaces-data"), BOARD_PATH)
    ap.add_argument("--frames", type=int, default=7, help="frames with chips per scene (default 7)")
    ap.add_argument("--shift-aug", type=float, default=0.5, metavar="SHARE",
                    help="the share of spaces changed in ways the renderer never draws "
                         "(vision.train_spaces.shift_augment; default 0.5)")
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)), metavar="A,B,C,D,E,F",
                    help=f"the channels of the six layers (default {','.join(map(str, WIDTHS))})")
    ap.add_argument("--whole", action=argparse.BooleanOptionalAction, default=True,
                    help="each space also sees a summary of the whole board (its chips, its "
                         "light): board_net's whole-board layer (default on)")
    ap.add_argument("--shades", type=float, default=0.3, metavar="CHANCE",
                    help="the chance that a board's chips of one colour take another shade "
                         "(chip_shades; default 0.3)")
    ap.add_argument("--camera-hue", type=float, default=0.2, metavar="CHANCE",
                    help="the chance that a board and its empty picture are seen with their "
                         "colours turned by up to 20 degrees (default 0.2)")
    ap.add_argument("--exclude", default="", metavar="DIM=FAMILY,...",
                    help="leave out the scenes drawn in these tuned families (a nested "
                         "held-out split for development, e.g. art=ornate,chips=translucent)")
    ap.add_argument("--opacity", type=float, default=0.3, metavar="CHANCE",
                    help="the chance that a board's chips of one colour let the print show "
                         "through (chip_opacity; default 0.3)")
    ap.add_argument("--init-seed", type=int, default=None, metavar="N",
                    help="the seed of the network's first weights and of the batches' order "
                         "(default: --seed): a second network trained apart on the same data")
    ap.add_argument("--batch", type=int, default=16, help="boards a batch (default 16)")
    ap.add_argument("--lr", type=float, default=3e-3, help="the largest learning rate "
                    "(default 0.003)")
    args = ap.parse_args(argv)
    if not 0.0 <= args.shift_aug <= 1.0:
        print(f"error: --shift-aug {args.shift_aug:g}: a share of the spaces, 0 to 1",
              file=sys.stderr)
        return 2
    for name in ("shades", "camera_hue", "opacity"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            print(f"error: --{name.replace('_', '-')} {getattr(args, name):g}: a chance, 0 to 1",
                  file=sys.stderr)
            return 2
    try:
        widths = tuple(int(v) for v in args.widths.split(","))
        if len(widths) != len(WIDTHS) or min(widths) < 1:
            raise ValueError
    except ValueError:
        print(f"error: --widths {args.widths}: {len(WIDTHS)} whole numbers of channels, "
              "comma-separated (e.g. " + ",".join(map(str, WIDTHS)) + ")", file=sys.stderr)
        return 2
    from .looks import FAMILIES
    fams = [f.strip() for f in args.exclude.split(",") if f.strip()]
    for f in fams:
        d, _, v = f.partition("=")
        if d not in FAMILIES or v not in FAMILIES[d]:
            print(f"error: --exclude {f}: not a look's dimension=family (e.g. art=ornate)",
                  file=sys.stderr)
            return 2
    if not training.need_torch(args.threads):
        return 2
    progress = training.progress
    data = make_data(args.seed, args.scenes, args.frames, args.jobs, args.cache, progress)
    if fams:
        data = without_families(data, args.seed, fams)
        progress(f"left out the scenes of {', '.join(fams)}: {len(data['y']) // 800} "
                 "scenes kept")
    model = train(data, args.seed if args.init_seed is None else args.init_seed, args.epochs, progress, widths, args.shift_aug, args.batch,
                  args.lr, args.whole, args.shades, args.camera_hue, args.opacity)
    export(model, args.out)
    training.saved(model, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
