"""A discard pile as the camera above the table sees it: the frame before a card is laid and
the frame after, with the truth.

The pile (one to four cards at any angle, the same deck) lies on a table (the families of
:func:`vision.looks.table_image`); the new card falls partly on the one below it at any
angle; sometimes a hand is still near (skin or a sleeve, now and then over a corner of the
new card); light (colour temperature, uneven light, dim), camera (scale, blur, noise, JPEG).
Scene families are named and some are held out, as the card styles are (docs/cards.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.looks import SKIN, Look, table_image
from vision.synth import kelvin_gains

from .styles import CODES, CardStyle, card_image, random_style

#: dimension -> family -> held out?
SCENE_FAMILIES = {
    "table": {"wood": False, "cloth": False, "dark": True, "patterned": True},
    "light": {"daylight": False, "lamp": False, "dim_mixed": True},
    "hand": {"none": False, "bare": False, "sleeve": False, "greysleeve": True},
}


@dataclass
class PileScene:
    before: np.ndarray
    after: np.ndarray
    code: str                   # the new card
    quad: np.ndarray            # its four corners in the picture (4 x 2)
    style: CardStyle
    families: dict
    hand_over_card: bool        # a hand covers part of the new card
    card_px: float              # the card's long side in pixels
    hand_in_view: bool = False  # a hand near the pile in the frame after
    hand_mask: np.ndarray | None = None   # 0..1, where the hand covers the frame after


def _pick(rng, fams: dict, held: bool) -> str:
    pool = [f for f, h in fams.items() if h] if held and rng.random() < 0.5 else \
        [f for f, h in fams.items() if not h]
    return str(pool[int(rng.integers(len(pool)))])


def _place(canvas: np.ndarray, card: np.ndarray, centre, angle: float, long_px: float,
           shadow: float) -> np.ndarray:
    """Lay the BGRA ``card`` on ``canvas`` (float32 BGR, in place); returns its corners."""
    h, w = card.shape[:2]
    s = long_px / h
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, s)
    m[:, 2] += np.float32(centre) - np.float32([w / 2, h / 2])
    H, W = canvas.shape[:2]
    rgb = cv2.warpAffine(card[..., :3], m, (W, H),
                         flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    a = cv2.warpAffine(card[..., 3], m, (W, H)).astype(np.float32)[..., None] / 255
    # a thin soft shadow round the card: its edge shows even over the paper below (guessed)
    sh = cv2.GaussianBlur(a[..., 0], (0, 0), 1.2 + 0.8 * shadow)[..., None]
    sh = np.roll(sh, (1, 1), axis=(0, 1))
    canvas *= 1 - (0.25 + 0.25 * shadow) * sh * (1 - a)
    canvas[:] = canvas * (1 - a) + rgb.astype(np.float32) * a
    pts = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.transform(pts[None], m)[0]


def _hand(rng, fam: str, W: int, H: int, quad: np.ndarray, over: bool):
    """A hand-and-arm mask (0..1) reaching in from an edge towards the card, and its colour."""
    mask = np.zeros((H, W), np.float32)
    centre = quad.mean(axis=0)
    edge = int(rng.integers(4))
    start = [(rng.uniform(0, W), -40), (W + 40, rng.uniform(0, H)), (rng.uniform(0, W), H + 40),
             (-40, rng.uniform(0, H))][edge]
    d = centre - np.float32(start)
    d /= np.linalg.norm(d) + 1e-6
    long_px = float(np.linalg.norm(quad[0] - quad[3]))
    if over:       # fingertips over the card, short of its middle
        tip = centre - d * long_px * rng.uniform(0.15, 0.45)
    else:          # near, clear of the card
        tip = centre - d * long_px * rng.uniform(0.95, 1.4)
    width = long_px * rng.uniform(0.35, 0.55)
    cv2.line(mask, tuple(int(v) for v in start), tuple(int(v) for v in tip), 1.0, int(width))
    cv2.circle(mask, tuple(int(v) for v in tip), int(width * 0.55), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5)
    skin = np.float32(SKIN[int(rng.integers(len(SKIN)))])
    if fam == "sleeve":
        sleeve = np.float32(rng.uniform(20, 230, 3))
    elif fam == "greysleeve":
        sleeve = np.float32([rng.uniform(90, 200)] * 3)
    else:
        sleeve = skin
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    t = ((xx - start[0]) * d[0] + (yy - start[1]) * d[1]) / (np.linalg.norm(tip - start) + 1e-6)
    col = np.where((t < 0.7)[..., None], sleeve, skin)
    return mask, col


def hand_by_pile(rng: np.random.Generator, family: str, after: np.ndarray, quad,
                 hand_over: bool | None = None):
    """A hand of ``family`` drawn by the new card in 70 % of scenes ("none": never), over it
    in 40 % of those (or as ``hand_over`` says). Returns the picture, whether the hand is
    over the card, whether any of it is in view, and its mask (None without a hand)."""
    over, in_view, hmask = False, False, None
    if family != "none" and rng.random() < 0.7:
        over = bool(rng.random() < 0.4) if hand_over is None else hand_over
        h, w = after.shape[:2]
        m, col = _hand(rng, family, w, h, quad, over)
        in_view = bool(m.max() > 0.5)
        hmask = m
        after = after * (1 - m[..., None]) + col * m[..., None]
    return after, over, in_view, hmask


def camera(rng: np.random.Generator, light: str, frames: list[np.ndarray]) -> list[np.ndarray]:
    """The same light and camera over each frame (colour temperature, uneven light, a second
    light for ``dim_mixed``, blur, noise, JPEG): the piles' and the STACKS tables' pictures."""
    H, W = frames[0].shape[:2]
    size = max(H, W)
    kelvin = rng.uniform(4500, 6500) if light == "daylight" else rng.uniform(2700, 3500) \
        if light == "lamp" else rng.uniform(2700, 6500)
    bright = rng.uniform(0.85, 1.05) if light != "dim_mixed" else rng.uniform(0.35, 0.6)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    uneven = rng.uniform(0, 0.35 if light == "daylight" else 0.55)
    field = 1 - uneven * (0.5 + 0.5 * np.cos(a) * (xx / W - 0.5) + 0.5 * np.sin(a) * (yy / H - 0.5))
    gains = kelvin_gains(kelvin) * bright
    if light == "dim_mixed":
        g2 = kelvin_gains(rng.uniform(2700, 6500)) * bright
        t = np.clip((xx * np.cos(a) + yy * np.sin(a)) / size, 0, 1)[..., None]
        lightmap = gains * (1 - t) + g2 * t
    else:
        lightmap = gains[None, None, :] * np.ones((H, W, 1), np.float32)
    blur = float(rng.uniform(0, 1.2))
    noise = float(rng.uniform(1, 3) if light != "dim_mixed" else rng.uniform(3, 6))
    q = int(rng.integers(55, 96))
    out = []
    for img in frames:
        img = img.astype(np.float32) * lightmap * field[..., None]
        if blur > 0.3:
            img = cv2.GaussianBlur(img, (0, 0), blur)
        img = img + rng.normal(0, noise, img.shape).astype(np.float32)
        img = np.clip(img, 0, 255).astype(np.uint8)
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        out.append(cv2.imdecode(enc, cv2.IMREAD_COLOR))
    return out


def table_with_pile(rng: np.random.Generator, size: int, table: str, codes, draw):
    """A square table picture of the ``table`` family with a pile of one to four cards (of
    ``codes``, drawn by ``draw(code)``) near its middle, at any angle: (the picture as
    float32, the pile's centre, a card's long side in pixels, the cards' shadow)."""
    long_px = float(rng.uniform(0.32, 0.45) * size)      # the card's long side, in pixels
    look = Look(table=table, seed=int(rng.integers(1 << 30)))
    canvas = table_image(look, size, size, rng).astype(np.float32)
    centre = np.float32([size / 2, size / 2]) + rng.uniform(-0.08, 0.08, 2) * size
    shadow = float(rng.uniform(0, 1))
    for _ in range(int(rng.integers(1, 5))):            # the pile below
        old = codes[int(rng.integers(len(codes)))]
        _place(canvas, draw(old), centre + rng.uniform(-0.25, 0.25, 2) * long_px,
               float(rng.uniform(0, 360)), long_px, shadow)
    return canvas, centre, long_px, shadow


def render_pile(rng: np.random.Generator, split: str = "tuned", size: int = 448,
                code: str | None = None, style: CardStyle | None = None,
                hand: str | None = None, hand_over: bool | None = None,
                dim: float = 1.0) -> PileScene:
    """Draw one pile scene. ``split``: ``tuned`` (no held-out family), ``heldout`` (a
    held-out card style; each scene dimension held out half the time) or ``any``.
    ``dim``: the light of the family drawn, dimmed by this factor before the camera's noise
    (the wider tuned development piles of session ten, docs/cards.md; 1: as drawn)."""
    held = split == "heldout"
    st = style or random_style(rng, "heldout" if held else ("any" if split == "any" else "tuned"))
    fams = {d: _pick(rng, f, held) for d, f in SCENE_FAMILIES.items()}
    if hand is not None:
        fams["hand"] = hand
    if split == "any":
        fams = {d: str(list(f)[int(rng.integers(len(f)))]) for d, f in SCENE_FAMILIES.items()}
    code = code or CODES[int(rng.integers(len(CODES)))]
    canvas, centre, long_px, shadow = table_with_pile(
        rng, size, fams["table"], CODES, lambda c: card_image(c, st, 240))
    before = canvas.copy()
    quad = _place(canvas, card_image(code, st, 240),
                  centre + rng.uniform(-0.35, 0.35, 2) * long_px, float(rng.uniform(0, 360)),
                  long_px, shadow)
    after, over, in_view, hmask = hand_by_pile(rng, fams["hand"], canvas, quad, hand_over)
    # light: colour temperature, uneven light, brightness; the same for both frames
    out = camera(rng, fams["light"], [before * dim, after * dim] if dim != 1.0 else [before, after])
    return PileScene(out[0], out[1], code, quad, st, {**fams, "card": st.family}, over, long_px, in_view,
                     hmask)
