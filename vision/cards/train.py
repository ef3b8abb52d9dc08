"""Build the reader's prototypes from the TUNED card families only, reproducibly:

    python -m vision.cards.train          # writes vision/cards/prototypes.npz
    python -m vision.cards.train net      # the learned index reader, vision/cards/cardnet.onnx
    python -m vision.cards.train mid      # the middle reader, vision/cards/midnet.onnx
    python -m vision.cards.train cover    # the index reader fine-tuned for fingers over it
    python -m vision.cards.train tune     # their thresholds, on tuned piles

Every card of every tuned family, in several seeded styles, is drawn, straightened (with
small shifts, turns and blur, as a camera would give it) and its index corners cut into a
rank glyph and a suit sign (:func:`vision.cards.reader.corner_parts`).
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from . import reader
from .styles import CODES, TUNED, card_image, card_style

STYLES_PER_FAMILY = 6


def _views(card: np.ndarray, rng: np.random.Generator):
    h, w = card.shape[:2]
    for k in range(2):
        jit = rng.uniform(-0.02, 0.02, (4, 2)) * [w, h]
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]]) + np.float32(jit)
        m = cv2.getPerspectiveTransform(src, np.float32([[0, 0], [reader.W, 0],
                                                         [reader.W, reader.H], [0, reader.H]]))
        v = cv2.warpPerspective(card, m, (reader.W, reader.H), flags=cv2.INTER_AREA,
                                borderValue=(128, 128, 128))
        if k:
            v = cv2.GaussianBlur(v, (0, 0), rng.uniform(0.4, 0.9))
        yield v


def build_prototypes(seed: int = 24) -> dict:
    rng = np.random.default_rng(seed)
    rf, rl, sf, sl = [], [], [], []
    for fam in TUNED:
        for s in range(STYLES_PER_FAMILY if fam != "shipped" else 2):
            st = card_style(fam, 1000 * s + 7)
            for code in CODES:
                card = card_image(code, st, 240)
                paper = np.float32(st.paper)
                a = card[..., 3:4].astype(np.float32) / 255
                bgr = (card[..., :3] * a + paper * (1 - a)).astype(np.uint8)
                for v in _views(bgr, rng):
                    for view in (v, np.ascontiguousarray(v[::-1, ::-1])):
                        parts = reader.corner_parts(view)
                        if parts is None:
                            continue
                        rmask, smask, _, aspect = parts
                        rf.append(reader.rank_feature(rmask, aspect))
                        rl.append(code[0])
                        sf.append(reader.suit_feature(smask))
                        sl.append(code[1])
    return {"rank_f": np.float32(rf), "rank_l": np.array(rl), "suit_f": np.float32(sf),
            "suit_l": np.array(sl)}


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "mid":                 # the learned middle reader (train_mid.py)
        from . import train_mid
        return train_mid.main(argv[1:])
    if argv and argv[0] == "cover":               # fine-tuned for fingers over the index
        from . import train_cover
        return train_cover.main(argv[1:])
    if argv and argv[0] in ("net", "tune"):       # the learned index reader (train_net.py)
        from . import train_net
        return train_net.main(argv[1:] if argv[0] == "net" else argv)
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=reader.PROTO_FILE)
    args = p.parse_args(argv)
    P = build_prototypes()
    np.savez_compressed(args.out, **P)
    print(f"{args.out}: {len(P['rank_l'])} rank and {len(P['suit_l'])} suit prototypes "
          f"from the tuned families {', '.join(TUNED)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
