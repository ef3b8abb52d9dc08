"""Retrain the learned index reader (vision/cards/cardnet.onnx) from seeded pile scenes of the
TUNED card families only, widened (docs/cards.md):

    nice -n 10 python -m vision.cards.train net --seed 1      # data, training, export (minutes)

Each scene is a discard pile (:func:`vision.cards.scene.render_pile`, tuned scene families)
with a new card in a **training style**: a tuned family (shipped, classic, modern) whose
index is drawn more widely than the family itself draws it (:func:`training_style`: Hershey
faces of the tuned families or a DejaVu TrueType face, stroke weight, size, place, slant and
width of the index, pip shape, inks, paper tint, borders). The card is straightened from its
true corners moved a little at random (the finder's error), and its two index corners are
cut (:func:`vision.cards.cardnet.corner_inputs`); a corner a hand covers is labelled
``none``, and so is a crop of the card's middle. Needs the ``train`` extra (torch, Pillow,
onnx) and the DejaVu fonts (Debian ``fonts-dejavu-core``).
"""

from __future__ import annotations

import dataclasses
import glob
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from . import cardnet, reader
from .scene import render_pile
from .styles import CODES, TUNED, card_style

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu",)
HERSHEY_TUNED = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                 cv2.FONT_HERSHEY_TRIPLEX)       # the tuned families' faces, never a held-out one


def ttf_fonts() -> list[str]:
    out = []
    for d in FONT_DIRS:
        out += sorted(f for f in glob.glob(f"{d}/*.ttf") if "Math" not in f)
    return out


def training_style(rng: np.random.Generator, fonts: list[str]):
    """A tuned family's style with its index, pips, inks and paper drawn more widely."""
    fam = str(rng.choice(TUNED, p=[0.2, 0.4, 0.4]))
    st = card_style(fam, int(rng.integers(1 << 30)))
    if fam == "shipped":
        return st

    def col(base, s):
        return tuple(int(np.clip(v + rng.normal(0, s), 0, 255)) for v in base)

    tint = rng.uniform(0, 1)
    paper = tuple(int(v) for v in np.clip(np.float32([248, 248, 248]) - tint * rng.uniform(0, 50, 3),
                                          150, 255))
    kw = dict(
        font=int(HERSHEY_TUNED[int(rng.integers(len(HERSHEY_TUNED)))]),
        ttf=str(fonts[int(rng.integers(len(fonts)))]) if fonts and rng.random() < 0.5 else "",
        weight=float(rng.uniform(0.7, 2.1)),
        index_h=float(rng.uniform(0.085, 0.16)),
        index_x=float(rng.uniform(0.03, 0.10)),
        index_y=float(rng.uniform(0.025, 0.09)),
        pip_scale=float(rng.uniform(0.75, 1.25)),
        lobe=float(rng.uniform(0.15, 0.38)),
        shear=float(rng.uniform(-0.1, 0.3)) if rng.random() < 0.5 else 0.0,
        stretch=float(rng.uniform(0.75, 1.3)),
        paper=paper,
        red=col((40, 40, 190), 35),
        black=tuple(int(v) for v in rng.uniform(0, 90, 3)),
        border=int(rng.integers(0, 3)),
        border_colour=tuple(int(v) for v in rng.uniform(30, 200, 3)),
        misregister=(int(rng.integers(-1, 2)), int(rng.integers(-1, 2)))
        if rng.random() < 0.3 else (0, 0),
        aspect=float(rng.uniform(1.36, 1.46)),
    )
    return dataclasses.replace(st, **kw)


def _jitter(quad: np.ndarray, L: float, rng) -> np.ndarray:
    big = rng.random() < 0.15
    c = quad.mean(axis=0)
    a = np.deg2rad(rng.normal(0, 4 if big else 1.5))
    R = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    s = 1 + rng.normal(0, 0.03 if big else 0.015)
    q = (quad - c) @ R.T * s + c + rng.normal(0, 0.06 if big else 0.02, 2) * L
    return np.float32(q + rng.normal(0, 0.008, (4, 2)) * L)


def softened(img: np.ndarray, rng) -> np.ndarray:
    """The picture made softer (30 % of the time) and smaller then enlarged back (30 %): a
    camera's blur and a card seen at fewer pixels. The draws, in this order, are part of the
    seeded training data."""
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.3))
    if rng.random() < 0.3:
        f = rng.uniform(0.6, 0.9)
        small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)
    return img


def _index_box(st) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the index, as parts of the card's width and height."""
    return (max(0.0, st.index_x - 0.02), max(0.0, st.index_y - 0.02), st.index_x + 0.22,
            st.index_y + st.index_h * (2.0 + 0.8 * st.pip_scale) + 0.02)


def _to_u8(x: np.ndarray) -> np.ndarray:
    return np.clip(x * 170, 0, 255).astype(np.uint8)


def scene_samples(rng: np.random.Generator, fonts: list[str], jitters: int = 3):
    """Index-corner crops (uint8, paper-normalised x 170) and labels from one scene."""
    st = training_style(rng, fonts)
    s = render_pile(rng, "tuned", style=st, hand_over=True if rng.random() < 0.25 else None)
    code = CODES.index(s.code)
    L = s.card_px
    xs, ys = [], []
    hm = s.hand_mask if s.hand_mask is not None else np.zeros(s.after.shape[:2], np.float32)
    bx0, by0, bx1, by1 = _index_box(st)
    for j in range(jitters):
        q = _jitter(s.quad, L, rng)
        img = softened(s.after, rng)
        card = reader.straighten(img, q)
        m = reader.straighten(hm, q)              # the hand, straightened the same way
        norm = cardnet.paper_normalised(card)
        for turn in range(2):
            n = norm if turn == 0 else np.ascontiguousarray(norm[::-1, ::-1])
            mm = m if turn == 0 else m[::-1, ::-1]
            h, w = mm.shape
            cover = float(mm[int(by0 * h):int(by1 * h) + 1, int(bx0 * w):int(bx1 * w) + 1].mean())
            if 0.01 < cover < 0.08:               # a finger at the index's edge: not taught
                continue
            xs.append(_to_u8(cardnet.corner_crop(n)))
            ys.append(code if cover <= 0.01 else cardnet.NONE)
        if j == 0 and rng.random() < 0.5:         # the middle of the card: no index
            h, w = norm.shape[:2]
            y0 = int(rng.uniform(0.25, 0.55) * h)
            x0 = int(rng.uniform(0.2, 0.4) * w)
            mid = norm[y0:y0 + int(cardnet.CROP[1] * h), x0:x0 + int(cardnet.CROP[0] * w)]
            xs.append(_to_u8(cv2.resize(mid, cardnet.SIZE, interpolation=cv2.INTER_AREA)))
            ys.append(cardnet.NONE)
    return xs, ys


def render_chunk(args, samples=None, salt: tuple[int, ...] = ()):
    """(inputs, labels, scene numbers) of scenes ``start`` to ``start + count`` (``args`` is
    (seed, start, count)), each drawn by ``samples(rng, fonts)`` (this module's
    :func:`scene_samples` by default) with its own generator (seed, ``salt``, scene)."""
    samples = samples or scene_samples
    seed, start, count = args
    fonts = ttf_fonts()
    cv2.setNumThreads(1)
    X, Y, S = [], [], []
    for i in range(start, start + count):
        rng = np.random.default_rng([seed, *salt, i])
        xs, ys = samples(rng, fonts)
        X += xs
        Y += ys
        S += [i] * len(ys)
    return X, Y, S


_chunk = render_chunk


def make_data(seed: int, scenes: int, jobs: int, cache: Path, progress, chunk=None,
              prefix: str = "cards", per: int = 100, unit: str = "corners") -> dict:
    """The training data of ``scenes`` scenes (``chunk((seed, start, count))`` renders some:
    this module's :func:`_chunk` by default), on ``jobs`` processes, kept in ``cache`` and
    read from there when they are already made. The middle reader's data are made by this too."""
    chunk = chunk or _chunk
    path = cache / f"{prefix}-seed{seed}-n{scenes}.npz"
    if path.exists():
        z = np.load(path)
        progress(f"data: {path} ({len(z['y'])} {unit})")
        return {k: z[k] for k in z.files}
    if not ttf_fonts():
        raise SystemExit("error: no DejaVu fonts in " + ", ".join(FONT_DIRS)
                         + " (apt-get install fonts-dejavu-core)")
    tasks = [(seed, s, min(per, scenes - s)) for s in range(0, scenes, per)]
    X, Y, S = [], [], []
    t0 = time.time()

    def take(k, r):
        X.extend(r[0])
        Y.extend(r[1])
        S.extend(r[2])
        progress(f"data: {min(scenes, (k + 1) * per)}/{scenes} scenes, {time.time() - t0:.0f} s")

    if jobs > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(jobs) as pool:
            for k, r in enumerate(pool.imap(chunk, tasks)):
                take(k, r)
    else:
        for k, t in enumerate(tasks):
            take(k, chunk(t))
    data = {"x": np.stack(X).transpose(0, 3, 1, 2), "y": np.int64(Y), "scene": np.int64(S)}
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, **data)
    return data


def build_model():
    import torch.nn as nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *block(3, 12), nn.MaxPool2d(2),              # 32 x 20
        *block(12, 24), nn.MaxPool2d(2),             # 16 x 10
        *block(24, 32), *block(32, 32), nn.MaxPool2d(2),   # 8 x 5
        *block(32, 48),
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(48 * 8 * 5, 96), nn.ReLU(),
        nn.Linear(96, cardnet.NONE + 1))


def augment(xb, gen: np.random.Generator):
    """Light off by a little in strength, contrast and colour (the paper normalisation is
    not perfect), noise, a shift of a pixel or two."""
    import torch
    m = len(xb)
    gain = gen.uniform(0.85, 1.15, (m, 1, 1, 1)) * gen.uniform(0.93, 1.07, (m, 3, 1, 1))
    xb = (xb + 1.5) * torch.from_numpy(gain.astype(np.float32)) - 1.5
    xb = xb + torch.from_numpy(gen.normal(0, 1, xb.shape).astype(np.float32)) * \
        torch.from_numpy(gen.uniform(0, 0.08, (m, 1, 1, 1)).astype(np.float32))
    dy, dx = (int(v) for v in gen.integers(-2, 3, 2))
    return torch.roll(xb, (dy, dx), dims=(2, 3))


def to_input(x_u8):
    import torch
    return (torch.from_numpy(x_u8).float() / 170 - 0.6) / 0.4


BATCH = 128


def one_pass(model, x, y, order, opt, sched, gen, to_input, progress) -> float:
    """One pass over the inputs ``x[order]`` (labels ``y``, a tensor) in batches of
    :data:`BATCH`, each augmented (:func:`augment`, drawing from ``gen``), one optimiser and
    rate step a batch; ``progress(done, n, mean loss)`` every 50 batches. The mean loss."""
    import torch.nn.functional as F
    total, seen = 0.0, 0
    for b in range(0, len(order), BATCH):
        idx = np.sort(order[b:b + BATCH])
        xb = augment(to_input(x[idx]), gen)
        loss = F.cross_entropy(model(xb), y[idx], label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        total += float(loss.detach()) * len(idx)
        seen += len(idx)
        if b // BATCH % 50 == 0:
            progress(b, len(order), total / seen)
    return total / seen


def train(data: dict, seed: int, epochs: int, progress, build=None, to_input=to_input,
          unit: str = "corners"):
    """Train ``build()`` (this module's :func:`build_model` by default) on ``data`` (its
    inputs made by ``to_input``), a tenth of the scenes kept for validation; ``unit``
    names an input in the progress lines. The card middle reader (train_mid.py) is trained
    by this too."""
    import torch
    build = build or build_model
    torch.manual_seed(seed)
    gen = np.random.default_rng(seed)
    x, y, sc = data["x"], torch.from_numpy(data["y"]), data["scene"]
    va = (sc % 10) == 0                     # a tenth of the scenes for validation
    tr_idx, va_idx = np.nonzero(~va)[0], np.nonzero(va)[0]
    model = build()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * ((len(tr_idx) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    xv = to_input(x[va_idx])
    for ep in range(epochs):
        model.train()
        t0 = time.time()
        loss = one_pass(model, x, y, gen.permutation(tr_idx), opt, sched, gen, to_input,
                        lambda b, n, mean: progress(
                            f"epoch {ep + 1}/{epochs}: {b}/{n} {unit}, loss {mean:.4f}, "
                            f"{time.time() - t0:.0f} s"))
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(xv[i:i + 512]).argmax(1) for i in range(0, len(xv), 512)])
        acc = float((pred == y[va_idx]).float().mean())
        progress(f"epoch {ep + 1}/{epochs}: loss {loss:.4f}, tuned validation "
                 f"{acc:.4f} ({len(va_idx)} {unit}), {time.time() - t0:.0f} s")
    model.eval()
    return model


def export(model, out: Path, size: tuple[int, int] = cardnet.SIZE, name: str = "corners") -> None:
    """``model`` to ONNX at ``out``: inputs ``name`` of ``size`` (width, height), any count."""
    from ..training import export_onnx
    export_onnx(model, out, (3, size[1], size[0]), name)


def pile_decision(items, both, one, other_none) -> str | None:
    """What :func:`vision.cards.reader.read_pile` names from the candidates' (probabilities,
    pips): the card when the candidates that name one all name the same."""
    names = {reader.net_decision(p, pips, both, one, other_none)[0] for p, pips in items} - {None}
    return names.pop() if len(names) == 1 else None


def tune(views: int, seed: int, model: Path, progress) -> int:
    """Read ``views`` piles of the TUNED split (tuned card styles as the benchmark draws them,
    tuned scene families; seeds apart from the benchmark's) and print the right and wrong
    readings for a grid of thresholds: the thresholds in reader.py are chosen from this."""
    net = cardnet.CardNet(model)
    cache = Path("build") / f"cards-tune-seed{seed}-n{views}.npz"
    if cache.exists():
        z = np.load(cache, allow_pickle=False)
        cards, owner, pips, codes = z["cards"], z["owner"], z["pips"], list(z["codes"])
    else:
        rng = np.random.default_rng([seed, 24, 1])
        cards, owner, pips, codes = [], [], [], []
        t0 = time.time()
        for i in range(views):
            s = render_pile(rng, "tuned")
            codes.append(s.code)
            quads = reader._new_card_quads(s.after, s.before, s.card_px) + [s.quad]
            for k, q in enumerate(quads):       # the last: the true outline
                card = reader.straighten(s.after, q)
                cards.append(card)
                owner.append((i, k == len(quads) - 1))
                n = reader.count_pips(card)
                pips.append(-1 if n is None else n)
            if (i + 1) % 50 == 0:
                progress(f"tune: {i + 1}/{views} tuned piles found, {time.time() - t0:.0f} s")
        cards, owner, pips = np.stack(cards), np.int32(owner), np.int32(pips)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache, cards=cards, owner=owner, pips=pips, codes=np.array(codes))
    rows = [(c, [], []) for c in codes]
    for card, (i, true), n in zip(cards, owner, pips):
        p = net.probabilities(cardnet.corner_inputs(card))
        rows[i][2 if true else 1].append((p, None if n < 0 else int(n)))
    print(f"{'both':>6} {'one':>6} {'none':>6} | {'right':>6} {'wrong':>5} | true outline: "
          f"{'right':>6} {'wrong':>5}")
    for both in (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9):
        for one in (0.0, 0.5, 0.8, 0.9, 0.95, 0.97, 2.0):
            for on in (0.5, 0.9):
                r = w = rt = wt = 0
                for code, items, true in rows:
                    got = pile_decision(items, both, one, on)
                    r += got == code
                    w += got is not None and got != code
                    got = pile_decision(true, both, one, on)
                    rt += got == code
                    wt += got is not None and got != code
                nopip = [(code, [(p, None) for p, _ in items]) for code, items, _ in rows]
                rn = sum(pile_decision(it, both, one, on) == code for code, it in nopip)
                wn = sum(pile_decision(it, both, one, on) not in (None, code) for code, it in nopip)
                print(f"{both:6.3f} {one:6.3f} {on:6.2f} | {r / views:6.4f} {w:5d} | "
                      f"{rt / views:6.4f} {wt:5d} | no pips {rn / views:6.4f} {wn:5d}")
    wrong = [(code, [reader.net_decision(p, pips)[0] for p, pips in items])
             for code, items, _ in rows]
    for code, got in wrong:
        if any(g is not None and g != code for g in got):
            print(f"wrong with the shipped thresholds: {code} read {got}")
    return 0


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "tune":
        return tune_main(argv[1:], "python -m vision.cards.train tune",
                         "Print right and wrong readings of tuned piles for a grid of the "
                         "learned reader's thresholds.", cardnet.MODEL_PATH, tune)

    return card_main(
        argv, "python -m vision.cards.train net",
        "Retrain the learned card index reader from seeded pile scenes of the tuned card "
        "families (widened) and export it to ONNX (vision/cards/cardnet.onnx). Needs the "
        "'train' extra and the DejaVu fonts.",
        ["python -m vision.cards.train net --seed 1",
         "nice -n 10 python -m vision.cards.train net --scenes 600 --out /tmp/c.onnx"],
        6000, 5, cardnet.MODEL_PATH, make_data, train, export,
        lambda y: f"{len(y)} corners, {int((y == cardnet.NONE).sum())} without an index")


def tune_main(argv, prog: str, description: str, model: Path, tune) -> int:
    """A card reader's ``tune`` command: --views, --seed, --model, then ``tune``."""
    from .. import training
    ap = training.parser(prog, description, [f"{prog} --views 600"])
    ap.add_argument("--views", type=int, default=600, help="tuned piles (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", type=Path, default=model)
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    return tune(a.views, a.seed, a.model, training.progress)


def card_main(argv, prog: str, description: str, examples: list[str], scenes: int, epochs: int,
              out: Path, make_data, train, export, counted) -> int:
    """The card readers' training command: options, data, training, export (``counted``:
    the line that says what the data hold, from its labels)."""
    from .. import training
    ap = training.parser(prog, description, examples)
    training.add_common(ap, scenes, epochs, Path("build/cards-data"), out,
                        scenes_help="rendered pile scenes")
    args = ap.parse_args(argv)
    if args.scenes < 10 or args.epochs < 1:
        ap.error("--scenes must be 10 or more and --epochs 1 or more")
    if not training.need_torch(args.threads):
        return 2
    data = make_data(args.seed, args.scenes, args.jobs, args.cache, training.progress)
    training.progress(counted(data["y"]))
    model = train(data, args.seed, args.epochs, training.progress)
    export(model, args.out)
    training.saved(model, args.out)
    return 0

if __name__ == "__main__":
    sys.exit(main())
