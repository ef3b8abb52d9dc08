"""A grey sleeve and a cast shadow never make a chip: rendered scenes in several looks (held
-out families among them), read by the reader, settled by the stabiliser and screened by the
game (engine/evidence.py), never give the referee a chip that is not on the board."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.evidence import screen
from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from engine.referee import Referee
from vision.calibration import calibrate
from vision.looks import cast_shadow, look_conditions, parse_look
from vision.reader import BoardReader
from vision.stabilise import Stabiliser
from vision.synth import render

LAYOUT = builtin_layout("classic")

#: (look, seed): grey sleeves are a held-out hand family; the art families bigindex and
#: vintage, the dark and patterned tables, dim_mixed and spot light are held out too
SLEEVES = [("art=shipped,hand=greysleeve,light=daylight", 1),
           ("art=plain,hand=greysleeve,light=lamp,board=glossy", 2),
           ("art=vintage,hand=greysleeve,table=dark,light=dim_mixed", 3),
           ("art=bigindex,hand=greysleeve,table=patterned,camera=angled", 4),
           ("art=ornate,hand=greysleeve,chips=translucent,light=spot", 5)]
SHADOWS = [("art=shipped,light=daylight", 11), ("art=plain,light=lamp,board=worn", 12),
           ("art=vintage,table=dark,light=dim_mixed", 13), ("art=bigindex,chips=pastel", 14),
           ("art=ornate,board=folding,light=spot,camera=angled", 15)]


def _game(rng) -> Referee:
    """A game with a few chips of each team on the board (placed as they lie, no rules)."""
    ref = Referee("classic", 2)
    spaces = [i for i in rng.permutation(LAYOUT.size) if i not in LAYOUT.free][:14]
    for k, i in enumerate(spaces):
        ref.board.place(int(i), k % 2)
    return ref


def _phantoms(ref: Referee, obs: Observation) -> list[str]:
    """Chips the referee would be given that are not on the board (or a colour changed)."""
    sc = screen(ref, obs).observation
    exp = ref.expected()
    return [f"{LAYOUT.space_name(i)} {st.value}" for i, st in enumerate(sc.states)
            if st.is_chip and st is not exp.states[i] and
            not (st is SpaceState.WHITE and exp.states[i].is_chip)]


def _scene(look_text: str, seed: int):
    look = parse_look(look_text, seed=seed)
    cond = look_conditions(look, 800, 600)
    rng = np.random.default_rng(seed)
    ref = _game(rng)
    empty = render(LAYOUT, Observation.empty(10, 10), cond, seed=seed, jitter=0, look=look)
    reader = BoardReader(calibrate([empty.image], LAYOUT), LAYOUT)
    return look, cond, rng, ref, reader


@pytest.mark.parametrize("look_text,seed", SLEEVES)
def test_a_grey_sleeve_never_makes_a_chip(look_text, seed):
    look, cond, rng, ref, reader = _scene(look_text, seed)
    board = ref.expected()
    for k in range(4):
        # a grey sleeve over the board, still for a while (blurred or not, the look decides)
        c = replace(cond, hand_at=int(rng.integers(0, LAYOUT.size)))
        stab = Stabiliser(settle=0.3)
        frame = render(LAYOUT, board, c, seed=seed * 100 + k, look=look)
        assert any(frame.occluded)
        for n in range(8):
            reading = reader.read(frame.image)
            # a frame with the sleeve in view is never reported; if the reader missed it,
            # no reading it gives makes a chip
            obs = stab.update(reading, n * 0.1)
            if obs is not None:
                assert _phantoms(ref, obs) == [], (look.describe(), k)
            if not reading.hand:
                assert _phantoms(ref, reading.observation) == [], (look.describe(), k)


@pytest.mark.parametrize("look_text,seed", SHADOWS)
def test_a_cast_shadow_never_makes_a_chip(look_text, seed):
    """A person's shadow or an arm's (soft or hard), no hand in view, for seconds."""
    look, cond, rng, ref, reader = _scene(look_text, seed)
    board = ref.expected()
    plain = render(LAYOUT, board, cond, seed=seed * 100, look=look).image
    for k in range(4):
        shaded = cast_shadow(plain, float(rng.uniform(0.25, 0.55)), int(rng.integers(1 << 30)))
        stab = Stabiliser(settle=0.3)
        seen = []
        for n in range(10):
            reading = reader.read(shaded)
            obs = stab.update(reading, n * 0.1)
            if obs is not None:
                seen.append(obs)
                assert _phantoms(ref, obs) == [], (look.describe(), k)
        assert seen or reader.read(shaded).hand       # settled, or taken for a cover: waits


def test_a_white_chip_off_a_sequence_seen_by_the_camera_is_not_a_verdict(tmp_path):
    """A chip lying white side up on a space of no sequence, filmed: the session waits on
    it (no warning, nothing recorded as a violation), and the game goes on beside it."""
    from seqboard.recorder import RecordWriter
    from seqboard.session import Session
    look = parse_look("art=vintage,table=dark", seed=21)
    cond = look_conditions(look, 800, 600)
    ref = Referee("classic", 2)
    path = tmp_path / "game.jsonl"
    session = Session(ref, recorder=RecordWriter(path))
    empty = render(LAYOUT, Observation.empty(10, 10), cond, seed=1, jitter=0, look=look)
    reader = BoardReader(calibrate([empty.image], LAYOUT), LAYOUT)
    stab = Stabiliser(settle=0.3)
    white, placed = LAYOUT.parse_space("d4"), LAYOUT.parse_space("g7")
    t = 0.0
    verdicts = []
    for chips, hand in (({white: SpaceState.WHITE}, None),
                        ({white: SpaceState.WHITE}, placed),      # blue's hand comes
                        ({white: SpaceState.WHITE, placed: SpaceState.BLUE}, None)):
        board = Observation.empty(10, 10).replace(chips)
        image = render(LAYOUT, board, replace(cond, hand_at=hand), seed=2, look=look).image
        for _ in range(8 if hand is None else 3):
            obs = stab.update(reader.read(image), t)
            t += 0.1
            if obs is not None:
                verdicts.append(session.observe(obs))
    assert [v.kind for v in verdicts] == ["no_change", "placement"]
    assert session.warning is None and [ref.layout.space_name(m.space) for _, m in ref.moves] == ["g7"]
    assert "violation" not in path.read_text()
