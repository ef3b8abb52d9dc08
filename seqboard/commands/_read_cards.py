"""``seqboard read PHOTO --cards``: the cards lying in a picture, with their places (the
playing cards, or the Jewish Edition's with ``--edition jewish``)."""

from __future__ import annotations

import json

import numpy as np


def print_cards(frame: np.ndarray, name: str, as_json: bool, jewish=None) -> int:
    """``jewish``: the Jewish Edition's references (vision.cards.jewish.JewishReferences):
    the cards read as that edition's."""
    if jewish is not None:
        from vision.cards.jewish import find_jewish_cards
        found = find_jewish_cards(frame, jewish)
    else:
        from vision.cards.reader import find_cards

        from ..sources import card_reader_warnings
        card_reader_warnings()              # a model file missing: said once, on stderr
        found = find_cards(frame)
    rows = []
    for r in found:
        q = np.float32(r.quad)
        cx, cy = q.mean(axis=0)
        edge = q[1] - q[0] if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]) \
            else q[2] - q[1]
        turn = float(np.degrees(np.arctan2(edge[1], edge[0]))) % 180
        rows.append({"card": r.code or "unknown", "x": round(float(cx)), "y": round(float(cy)),
                     "turn_deg": round(turn), "reason": r.reason,
                     "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in q]})
    if as_json:
        print(json.dumps({"image": name, "cards": rows}))
        return 0
    if not rows:
        print(f"{name}: no card seen")
        return 0
    for row in rows:
        why = f" ({row['reason']})" if row["card"] == "unknown" else ""
        print(f"{row['card']:8s} at x={row['x']} y={row['y']} px, "
              f"turned {row['turn_deg']} deg{why}")
    return 0
