"""A stress check of the STACKS card reader on shifted TUNED cards (never a held-out style):
``python -m tools.stacks_shifted --out /tmp/shifted.json`` (13,464 reads, about ten
minutes on one core), then ``python -m tools.stacks_shifted --diff before.json after.json``.

Each of the 17 cards of tuned styles the reader's prototypes were not drawn from (their
seeds 1000 to 1009; here seeds 1 to 4 of each tuned family, and the four banded ``bold``
styles of seeds 5 to 12) is drawn, straightened to the reader's ``W`` x ``H``, and moved as a
rectangle off the card sees it: by dx -30..30 (step 6) and dy -12, 0 or 12 pixels, a
tuned table (wood or cloth) showing where the card is not; its middle under a thumb or not;
then through the scenes' camera (a tuned light: daylight or lamp; blur, noise, JPEG).
Each picture is read by :func:`vision.cards.stacks_reader.read_stacks_straight` and the
cards named wrong, and those named in the wrong COLOUR (red, blue or the specials' dark
ink), are counted. Every picture is drawn from its own seed, so two runs (before and after
a change) read the same pictures."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import cv2
import numpy as np

from vision.cards.reader import H, W
from vision.cards.scene import camera
from vision.cards.stacks_art import CODES, STACKS_TUNED, stacks_card_image, stacks_style
from vision.cards import stacks_reader as sr
from vision.cards.stacks_reader import read_stacks_straight
from vision.looks import Look, table_image

DXS = tuple(range(-30, 31, 6))
DYS = (-12, 0, 12)


def styles():
    """(name, style) of the tuned styles read: seeds 1..4 of each tuned family, and the
    first four banded ``bold`` styles past seed 4."""
    out = []
    for fam in STACKS_TUNED:
        out += [(f"{fam}{s}", stacks_style(fam, s)) for s in range(1, 5)]
    banded, s = [], 1
    while len(banded) < 4:
        st = stacks_style("bold", s)
        if st.band and s > 4:
            banded.append((f"bold{s}", st))
        s += 1
    return out + banded


def colour_of(code: str) -> str:
    return code[0] if code[0] in "RB" and code[1] in "12345W" else ""


def picture(card: np.ndarray, key: tuple, dx: int, dy: int, thumb: bool) -> np.ndarray:
    rng = np.random.default_rng([abs(hash_key(key)), dx + 100, dy + 100, int(thumb)])
    table = ("wood", "cloth")[int(rng.integers(2))]
    bg = table_image(Look(table=table, seed=int(rng.integers(1 << 30))), W, H, rng)
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    moved = cv2.warpAffine(card, m, (W, H)).astype(np.float32)
    inside = cv2.warpAffine(np.ones((H, W), np.float32), m, (W, H))[..., None]
    img = moved * inside + bg.astype(np.float32) * (1 - inside)
    if thumb:
        skin = rng.uniform([90, 130, 180], [130, 170, 220])
        cv2.ellipse(img, (W // 2 + dx, H // 2 + dy), (62, 70), 0, 0, 360, tuple(skin), -1)
    light = ("daylight", "lamp")[int(rng.integers(2))]
    return camera(rng, light, [np.clip(img, 0, 255)])[0]


def hash_key(key: tuple) -> int:
    h = 0
    for ch in "/".join(map(str, key)):
        h = (h * 131 + ord(ch)) % (1 << 31)
    return h


def shifted_pictures():
    """Every shifted tuned card picture of the check: (key, picture), key = (style, code,
    dx, dy, thumb)."""
    for name, st in styles():
        for code in CODES:
            img = stacks_card_image(code, st, 240)[..., :3]
            card = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
            for thumb in (False, True):
                for dx in DXS:
                    for dy in DYS:
                        key = (name, code, dx, dy, int(thumb))
                        yield key, picture(card, key, dx, dy, thumb)


def run(out_path: str | None) -> dict:
    reads = {}
    t0 = time.time()
    last = None
    for key, pic in shifted_pictures():
        if last is not None and key[0] != last:
            print(f"  {last}: {len(reads)} reads, {time.time() - t0:.0f} s", file=sys.stderr)
        last = key[0]
        reads["/".join(map(str, key))] = read_stacks_straight(pic).code
    print(f"  {last}: {len(reads)} reads, {time.time() - t0:.0f} s", file=sys.stderr)
    res = summary(reads)
    if out_path:
        with open(out_path, "w") as f:
            json.dump({"summary": res, "reads": reads}, f)
    return res


def summary(reads: dict) -> dict:
    c = Counter()
    for key, got in reads.items():
        name, code, dx, dy, thumb = key.split("/")
        part = "covered" if thumb == "1" else "uncovered"
        c["reads"] += 1
        if got is None:
            c[f"unknown_{part}"] += 1
        elif got == code:
            c[f"right_{part}"] += 1
        else:
            c[f"wrong_{part}"] += 1
            c["wrong"] += 1
            if colour_of(got) != colour_of(code):
                c["wrong_colour"] += 1
    return dict(sorted(c.items()))


def diff(a_path: str, b_path: str) -> None:
    a = json.load(open(a_path))["reads"]
    b = json.load(open(b_path))["reads"]
    print("before:", summary(a))
    print("after: ", summary(b))
    moves = Counter()
    for key in a:
        code = key.split("/")[1]
        x, y = a[key], b.get(key)
        if x != y:
            tag = lambda g: "unknown" if g is None else "right" if g == code else "wrong"
            moves[f"{tag(x)} -> {tag(y)}"] += 1
            if tag(y) == "wrong" or (tag(x) == "right" and tag(y) != "right"):
                print(f"  {key}: {x} -> {y}")
    print(dict(moves))


def compare(flag: str) -> dict:
    """Each picture's two corner indices read (:func:`index_parts`) with the reader's
    ``flag`` off and on: how many read the same glyph mask and the same ink colour to the
    last bit, how many differ, and of those read only with the flag on, the ink colour each
    is given (:func:`_index_colour`) against the card's."""
    c = Counter()
    for key, pic in shifted_pictures():
        code = key[1]
        norm = sr._normalised(pic)
        turned = tuple(np.ascontiguousarray(a[::-1, ::-1]) for a in norm)
        for n in (norm, turned):
            got = []
            for on in (False, True):
                setattr(sr, flag, on)
                got.append(sr.index_parts(pic, n))
            setattr(sr, flag, True)
            off, on = got
            if off is None and on is None:
                c["neither"] += 1
            elif off is not None and on is not None:
                same = (off[0].shape == on[0].shape and (off[0] == on[0]).all()
                        and off[1:] == on[1:])
                c["same" if same else "changed"] += 1
            elif off is not None:
                c["lost"] += 1
            else:
                col = sr._index_colour(on[1], on[2])
                c["new"] += 1
                c["new_colour_" + ("unsure" if col is None else "right"
                                   if col == colour_of(code) else "WRONG")] += 1
    print(f"  {dict(c)}", file=sys.stderr)
    return dict(sorted(c.items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="save every read (JSON) here")
    ap.add_argument("--diff", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="compare two saved runs: the reads that changed")
    ap.add_argument("--compare", metavar="FLAG",
                    help="the corner indices read with the reader's FLAG off and on")
    a = ap.parse_args(argv)
    if a.compare:
        print(json.dumps(compare(a.compare)))
        return 0
    if a.diff:
        diff(*a.diff)
        return 0
    print(json.dumps(run(a.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
