"""Calibrating the camera, step by step: capture the empty board, show the result, save.

Shared by ``seqboard calibrate`` (one go on the terminal) and the dashboard's calibration
page (each step a button). ``frames()`` gives the frames of the empty board (the camera, or
an image file); nothing is written until :meth:`Calibrator.save`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable


class Calibrator:
    def __init__(self, layout, out: Path, frames: Callable[[], tuple[list, dict]], *,
                 markers: bool = False, corners=None) -> None:
        self.layout = layout
        self.out = Path(out)
        self.frames = frames              # -> (frames, camera settings to lock)
        self.markers = markers
        self.corners = corners
        self.cal = None
        self.picture = None               # the last frame with the grid and readings drawn
        self.warnings: list[str] = []
        #: told of each frame read while capturing: (frame, of how many); the page's progress
        self.progress: Callable[[int, int], None] | None = None
        self.empty = None                 # the frame of the empty board the grid was found in
        self.spots: dict = {}             # seat -> vision.cards.piles.PileSpot
        self._piles_before = None         # the table before the last card laid on a pile
        self.words = None                 # the ADD and REMOVE cards kept (JewishReferences)

    def report(self, frame: int, total: int) -> None:
        """``frames()`` calls it for each frame it reads."""
        if self.progress is not None:
            self.progress(frame, total)

    def capture(self) -> dict:
        """Find the board and learn the empty board; what happened, for a person."""
        from vision.calibration import GridRefused, calibrate
        from vision.classify import features
        from vision.draw import draw_pairs, draw_reading
        from vision.locate import BoardNotFound, straighten
        from vision.reader import BoardReader
        lay = self.layout
        frames, camera = self.frames()
        if not frames:
            return {"ok": False, "problem": "no frame from the camera"}
        try:
            cal = calibrate(frames, lay, markers=self.markers, corners=self.corners, camera=camera)
        except GridRefused as exc:
            # the grid the board does not confirm, drawn with the pairs that do not match
            self.cal = None
            self.picture = draw_pairs(frames[-1], exc.corners, lay, exc.check)
            return {"ok": False, "problem": str(exc), "refused": True}
        except BoardNotFound as exc:
            self.cal = None
            return {"ok": False, "problem": str(exc)}
        last = frames[-1]
        self.empty = self._piles_before = last
        reading = BoardReader(cal, lay).read(last)
        self.cal, self.picture = cal, draw_reading(last, reading)
        warnings = []
        chips = chips_on_empty_board(last, cal.corners, lay)
        if chips:
            names = ", ".join(lay.space_name(i) for i in chips[:8])
            warnings.append(f"chips seen on {names}: calibrate with the board empty")
        f = features(straighten(last, cal.corners, lay), lay.rows, lay.cols)
        if f.paper.mean() < 60:          # the paper's own brightness, as the camera sees it
            warnings.append("the picture is dark: more light makes the reading safer")
        glared = [i for i, g in enumerate(f.glare) if g > 0.25]
        if glared:
            names = ", ".join(lay.space_name(i) for i in glared[:8])
            warnings.append(f"glare blows out {names}{' ...' if len(glared) > 8 else ''}: a chip "
                            f"there reads unknown; move the lamp or tilt the camera, then "
                            f"calibrate again")
        self.warnings = warnings
        from vision.cards.jewish import picture_layout
        return {"ok": True, "method": cal.method, "warnings": warnings, "out": str(self.out),
                "word_cards": picture_layout(lay)}     # ADD and REMOVE to keep (Jewish)

    def save_check_picture(self) -> Path | None:
        """After a refusal: the check picture beside the calibration file (FILE.refused.png)."""
        if self.picture is None:
            return None
        import cv2
        path = self.out.with_name(self.out.stem + ".refused.png")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(path), self.picture)
        except (OSError, cv2.error):
            return None
        return path

    def preview_jpeg(self) -> bytes | None:
        if self.picture is None:
            return None
        import cv2
        ok, buf = cv2.imencode(".jpg", self.picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None

    def _frame_since_capture(self):
        """The camera's latest frame, to compare with the empty board captured; or what
        stands in the way, for a person (a dict as the marking methods return)."""
        if self.empty is None:
            return {"ok": False, "problem": "capture the empty board first"}
        frames, _ = self.frames()
        if not frames:
            return {"ok": False, "problem": "no frame from the camera"}
        now = frames[-1]
        if now.shape != self.empty.shape:
            return {"ok": False, "problem": "the camera's picture changed size since the "
                                            "board was captured: capture again"}
        return now

    def mark_pile(self, seat: int, x: float | None = None, y: float | None = None) -> dict:
        """Learn seat ``seat``'s (0-based) discard pile spot from a card laid there since
        the empty board was captured: found near (x, y) (a click on the page's picture) or,
        without a place, as the card laid since the last spot was learnt. What happened,
        for a person; the spots are written by :meth:`save`."""
        from vision.cards.piles import PileError, spot_from_card, spot_problems
        now = self._frame_since_capture()
        if isinstance(now, dict):
            return now
        before = self._piles_before
        if x is not None and y is not None:
            # only what changed round the place clicked, against the empty table
            h, w = now.shape[:2]
            if not (0 <= x < w and 0 <= y < h):
                return {"ok": False, "problem": f"({x:.0f}, {y:.0f}) is outside the "
                                                f"{w} x {h} picture"}
            space = self._space_px()
            half = int(3 * space)
            x0, y0 = max(0, int(x) - half), max(0, int(y) - half)
            x1, y1 = min(w, int(x) + half), min(h, int(y) + half)
            before = now.copy()
            before[y0:y1, x0:x1] = self.empty[y0:y1, x0:x1]
        try:
            spot = spot_from_card(before, now, seat)
        except PileError as exc:
            return {"ok": False, "problem": f"{exc}: lay a card on the pile's place, in view"}
        self.spots[seat] = spot
        self._piles_before = now
        warnings = spot_problems(spot, now.shape)
        if self.picture is not None:
            self._draw_spot(spot)
        return {"ok": True, "seat": seat + 1, "x": round(spot.x, 1), "y": round(spot.y, 1),
                "card_px": round(spot.card_px, 1), "warnings": warnings}

    def mark_word(self, code: str) -> dict:
        """Keep the Jewish Edition's word card ``code`` (ADD or REMOVE) from a card laid in
        view since the empty board was captured (or since the last pile or word card was
        learnt), as ``seqboard calibrate --word-card`` keeps it. What happened, for a
        person; the cards are written by :meth:`save` (FILE.jewish.npz)."""
        from vision.cards.jewish import JewishReferences
        from vision.cards.reader import find_new_card, straighten
        now = self._frame_since_capture()
        if isinstance(now, dict):
            return now
        quad = find_new_card(now, self._piles_before, None)
        if quad is None:
            return {"ok": False, "problem": f"no card found laid since the last picture: lay "
                                            f"the {code} card in view, apart from the others"}
        try:
            self.words = (self.words or JewishReferences([], [])).with_word(
                code, straighten(now, quad))
        except ValueError as exc:
            return {"ok": False, "problem": str(exc)}
        self._piles_before = now
        return {"ok": True, "word": code}

    def _space_px(self) -> float:
        import numpy as np
        c = np.asarray(self.cal.corners, np.float32)
        return float(np.linalg.norm(c[1] - c[0])) / self.layout.cols

    def _draw_spot(self, spot) -> None:
        import cv2
        r = int(spot.card_px / 2)
        centre = (int(spot.x), int(spot.y))
        cv2.circle(self.picture, centre, r, (0, 200, 255), 3)
        cv2.putText(self.picture, f"pile {spot.seat + 1}", (centre[0] - r, centre[1] - r - 8),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 200, 255), 2)

    def save(self) -> dict:
        """Write the calibration file and the picture beside it (FILE.png), and the pile
        spots learnt (FILE.piles.json) when there are any."""
        if self.cal is None:
            return {"ok": False, "problem": "capture the empty board first"}
        import cv2
        out = {}
        try:
            self.cal.save(self.out)
            picture = self.out.with_suffix(".png")
            cv2.imwrite(str(picture), self.picture)
            if self.spots:
                from vision.cards.piles import piles_path, save_spots
                h, w = self.empty.shape[:2]
                path = piles_path(self.out)
                save_spots(path, list(self.spots.values()), w, h)
                out["piles"] = str(path)
            jewish = self._save_jewish_references()
            if jewish:
                out["jewish"] = jewish
        except OSError as exc:
            return {"ok": False, "problem": f"{self.out}: cannot write: {exc.strerror}"}
        return {"ok": True, "path": str(self.out), "picture": str(picture),
                "method": self.cal.method, **out}


    def _save_jewish_references(self) -> str | None:
        """On a board of pictures (the Jewish Edition): the 50 pictures as the camera sees
        them on the empty board, kept beside the calibration (FILE.jewish.npz) for reading
        the cards laid on the piles; the ADD and REMOVE cards kept by :meth:`mark_word`
        replace those kept there before, the others stay."""
        from vision.cards.jewish import (JewishReferences, board_references, picture_layout,
                                         references_path)
        if self.empty is None or not picture_layout(self.layout):
            return None
        path = references_path(self.out)
        words = None
        if path.exists():
            try:
                words = JewishReferences.load(path)
            except ValueError:
                words = None                    # a broken file: made again, without words
        if self.words is not None:
            old = [] if words is None else [(c, p) for c, p in zip(words.codes, words.pictures)
                                            if c not in self.words.codes]
            words = JewishReferences([c for c, _ in old] + list(self.words.codes),
                                     [p for _, p in old] + list(self.words.pictures))
        board_references(self.empty, self.cal.corners, self.layout, words).save(path)
        return str(path)


def chips_on_empty_board(frame, corners, layout) -> list[int]:
    """Spaces that seem to hold a chip on what should be the empty board, told without the
    card art: a space unlike its twin (the other space printed with the same card) whose
    middle is a plain disc of strong colour where its twin's is not."""
    import numpy as np

    from vision.classify import features
    from vision.locate import straighten
    from vision.pairs import ALIKE_RANK, measure, twin_pairs
    pairs = twin_pairs(layout)
    if len(pairs) < 8:
        return []
    likeness, rank, _ = measure(frame, corners, layout, pairs)
    board = straighten(frame, corners, layout)
    f = features(board, layout.rows, layout.cols)
    cell = board.shape[0] // layout.rows
    cells = board.reshape(layout.rows, cell, layout.cols, cell, 3).transpose(0, 2, 1, 3, 4) \
        .reshape(layout.size, cell, cell, 3).astype(np.float32)
    mid = cells[:, cell // 3:cell - cell // 3, cell // 3:cell - cell // 3]
    plain = mid.reshape(layout.size, -1, 3).std(axis=1).mean(axis=1) < 14     # no print in it
    c = f.centre
    sat = (c.max(axis=1) - c.min(axis=1)) / np.maximum(c.max(axis=1), 1)
    out = []
    for (i, j), like, rk in zip(pairs, likeness, rank):
        if rk >= ALIKE_RANK or like > 0.6:
            continue
        for a, b in ((i, j), (j, i)):
            if plain[a] and sat[a] > 0.35 and not (plain[b] and sat[b] > 0.35) and \
                    np.abs(c[a] - c[b]).max() > 50:
                out.append(a)
    return sorted(out)
