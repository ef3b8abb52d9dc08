"""The field network (vision/fieldnet.py): where the board's field of spaces is, for a board
whose outline the outline finder loses. Each scene is a tuned look in the conditions of
tools/uncal_dev.py's ``wild2`` set (seed 123) that no candidate came within two spaces of
before session 18, so that it was never read: an old faded board under a person's shadow in
dim mixed light, and a worn board in dim light with two glare spots."""

from dataclasses import replace

import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from tools.uncal_dev import _err, darken_table, faded, folded, mixed_light, person_shadow
from vision.fieldnet import field_quads
from vision.locate import BoardNotFound, find_outline
from vision.looks import look_conditions, parse_look
from vision.reader import BoardReader
from vision.spacenet import ModelError
from vision.synth import render

LAYOUT = builtin_layout("classic")
EMPTY = "\n".join([". " * 9 + "."] * 10)

FADED_SHADOWED = """\
. R G . . . W G . .
. W B G . . . . B B
. B . . G . . . . W
B B . . W . . . . .
. . . . . . . W B R
. G . R . . . . R B
. . G B . R . . . R
B . . . . . . . . .
. G G . R . . W . R
. . G G G . R . W ."""

GLARE_DIM = """\
. . . . . B . . . .
. . . . G R . . . B
. B G . . . . . . .
. . . . . R . . . B
. W . B . . . W . R
. R R . G . . . G .
. . . . . R . . . .
. . . . G . . . . .
. . . . . . . G . .
. . . . . . . . G ."""


def _render(look: str, board: str, seed: int, **cond):
    lk = parse_look(look)
    c = replace(look_conditions(lk), **cond)
    return render(LAYOUT, Observation.parse(board), c, seed=seed, look=lk)


def _space(grid) -> float:
    return float(np.linalg.norm(grid[1] - grid[0])) / LAYOUT.cols


@pytest.fixture(scope="module")
def faded_shadowed():
    """wild2 seed 123 scene 0 frame 0: a glossy board faded 40 % and yellowed, folded, on a
    cloth darkened to a third, a person's shadow across it, dim light of two colours."""
    look = ("art=shipped,board=glossy,chips=opaque,table=cloth,hand=sleeve,light=lamp,"
            "camera=angled,seed=1796616")
    cond = dict(tilt_deg=25.748476926247154, rotation_deg=21.950079727088138,
                scale=0.7201667639790943, offset=(-0.021057524849670148, 0.023639214320156574),
                distortion=0.031457649795415266, kelvin=2923.2211816695376,
                brightness=0.38480857959201725, uneven=0.5481404295214769,
                shadow=0.4164411639425258, glare=0, noise=5.442549955780046,
                light_seed=379903881, hand_at=None)
    r = _render(look, FADED_SHADOWED, 194844908, **cond)
    empty = _render(look, EMPTY, 194844908, **cond)
    img = faded(r.image, empty.image, r.corners, 0.3963207667531746, 0.18460956269027406)
    img = darken_table(img, r.corners, 0.3331658657457463)
    img = mixed_light(img, 4227.616207254866, 5018.636408149001, 3.97618470966278)
    img = person_shadow(img, r.grid_corners, 740741433)
    img, grid = folded(img, r.corners, r.grid_corners, 358560532)
    return img, np.float32(grid), r.truth


@pytest.fixture(scope="module")
def glare_dim():
    """wild2 seed 123 scene 2 frame 0: a worn board in light a third as bright, two glare
    spots (one on the board's edge), mixed light."""
    look = ("art=plain,board=worn,chips=opaque,table=wood,hand=bare,light=lamp,"
            "camera=overhead,seed=783137441")
    cond = dict(tilt_deg=12.848032979578209, rotation_deg=147.7258254160139,
                scale=0.8158628510937278, offset=(-0.03318252687479057, 0.024320365760530115),
                distortion=0.0, kelvin=3130.232185770313, brightness=0.343385608223339,
                uneven=0.3065384405394625, shadow=0.2893592417243799, glare=2,
                noise=4.896084175496185, light_seed=999664722, hand_at=None)
    r = _render(look, GLARE_DIM, 726250934, **cond)
    img = mixed_light(r.image, 4550.0299167774865, 3462.2834573337436, 2.619317037051186)
    return img, np.float32(r.grid_corners), r.truth


def _outline_lost(img, grid) -> bool:
    try:
        quad = find_outline(img).corners
    except BoardNotFound:
        return True
    return _err(quad, grid, _space(grid)) > 1.0


@pytest.mark.parametrize("scene", ["faded_shadowed", "glare_dim"])
def test_the_field_network_sees_the_field_where_the_outline_finder_loses_it(scene, request):
    img, grid, _ = request.getfixturevalue(scene)
    assert _outline_lost(img, grid)
    quads = field_quads(img)
    # within a space at every corner: the corner search (a space round) takes it on
    assert quads and min(_err(q, grid, _space(grid)) for q in quads) < 1.0


# the faded board in the shadow's dim, warm light is found on its grid, but read with 3
# green chips taken for blue and 4 faded cards for white chips: the reading's own limit in
# that light (docs/vision.md, session 18), not the finder's
@pytest.mark.parametrize("scene,most_wrong", [("faded_shadowed", 8), ("glare_dim", 2)])
def test_a_board_whose_outline_is_lost_is_read_without_calibration(scene, most_wrong, request):
    img, grid, truth = request.getfixturevalue(scene)
    reading = BoardReader(None, LAYOUT).read(img)
    assert reading.found, reading.problem
    assert np.abs(reading.corners - grid).max() < 0.25 * _space(grid)
    wrong = [i for i, (a, t) in enumerate(zip(reading.observation.states, truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    assert len(wrong) <= most_wrong, wrong


def test_a_picture_taller_than_wide_is_seen_turned_and_answered_in_its_own_frame(glare_dim):
    img, grid, _ = glare_dim
    tall = np.ascontiguousarray(np.rot90(img))           # the photo taken upright
    # np.rot90 turns a quarter counter-clockwise: a point (x, y) goes to (y, W - 1 - x)
    turned = np.float32([[y, img.shape[1] - 1 - x] for x, y in grid])
    quads = field_quads(tall)
    assert tall.shape[0] > tall.shape[1]
    assert quads and min(_err(q, turned, _space(turned)) for q in quads) < 1.0


def test_a_broken_field_model_file_is_named_in_one_line(tmp_path, glare_dim):
    bad = tmp_path / "field.onnx"
    bad.write_bytes(b"\x08\x07not a model")
    with pytest.raises(ModelError) as exc:
        field_quads(glare_dim[0], model=bad)
    assert str(bad) in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(ModelError, match="missing"):
        field_quads(glare_dim[0], model=tmp_path / "none.onnx")
