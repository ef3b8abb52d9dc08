"""A STACKS pile as the camera sees it: the frame before a card is laid and the frame after.

The same world as the playing-card piles (:mod:`vision.cards.scene`: its tables, hands,
lights and camera, its held-out scene families), with STACKS cards
(:mod:`vision.cards.stacks_art`). Used by ``benchmarks/stacks_cards.py`` and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.looks import Look, table_image
from vision.synth import kelvin_gains

from .scene import SCENE_FAMILIES, _hand, _pick, _place
from .stacks_art import CODES, StacksStyle, random_stacks_style, stacks_card_image


@dataclass
class StacksScene:
    before: np.ndarray
    after: np.ndarray
    code: str
    quad: np.ndarray
    style: StacksStyle
    families: dict
    hand_over_card: bool
    card_px: float


def camera(rng: np.random.Generator, light: str, frames: list[np.ndarray]) -> list[np.ndarray]:
    """The same light and camera over each frame (colour temperature, uneven light, a second
    light for ``dim_mixed``, blur, noise, JPEG), as :func:`vision.cards.scene.render_pile`."""
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


def render_stacks_pile(rng: np.random.Generator, split: str = "tuned", size: int = 448,
                       code: str | None = None, style: StacksStyle | None = None,
                       hand_over: bool | None = None) -> StacksScene:
    """One STACKS pile scene. ``split``: ``tuned`` or ``heldout`` (a held-out card style;
    each scene dimension held out half the time)."""
    held = split == "heldout"
    st = style or random_stacks_style(rng, "heldout" if held else "tuned")
    fams = {d: _pick(rng, f, held) for d, f in SCENE_FAMILIES.items()}
    code = code or CODES[int(rng.integers(len(CODES)))]
    long_px = float(rng.uniform(0.32, 0.45) * size)
    look = Look(table=fams["table"], seed=int(rng.integers(1 << 30)))
    canvas = table_image(look, size, size, rng).astype(np.float32)
    centre = np.float32([size / 2, size / 2]) + rng.uniform(-0.08, 0.08, 2) * size
    shadow = float(rng.uniform(0, 1))
    for _ in range(int(rng.integers(1, 5))):            # the pile below
        old = CODES[int(rng.integers(len(CODES)))]
        _place(canvas, stacks_card_image(old, st, 240),
               centre + rng.uniform(-0.25, 0.25, 2) * long_px, float(rng.uniform(0, 360)),
               long_px, shadow)
    before = canvas.copy()
    quad = _place(canvas, stacks_card_image(code, st, 240),
                  centre + rng.uniform(-0.35, 0.35, 2) * long_px, float(rng.uniform(0, 360)),
                  long_px, shadow)
    after = canvas
    over = False
    if fams["hand"] != "none" and rng.random() < 0.7:
        over = bool(rng.random() < 0.4) if hand_over is None else hand_over
        m, col = _hand(rng, fams["hand"], size, size, quad, over)
        after = after * (1 - m[..., None]) + col * m[..., None]
    b, a = camera(rng, fams["light"], [before, after])
    return StacksScene(b, a, code, quad, st, {**fams, "card": st.family}, over, long_px)
