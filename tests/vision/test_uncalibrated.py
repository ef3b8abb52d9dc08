"""`seqboard read PHOTO` without a calibration, on boards printed otherwise than ours: the
first photo of a board is read even when it lies on a dark table, is so full of chips that
few pairs of twin spaces are left bare, or its pairs under chips point to the wrong turn;
and the chips' own places never confirm a grid moved or resized. A first photo in dim
light is read on the grid its chips sit in, not a fifth of a space off, and a photo taken
so close that a corner of the grid is out of the picture is read on the part in view, the
rest unknown.

The scenes are tuned looks (never a held-out family) in conditions of the development sets
of tools/uncal_dev.py, each one that was refused or misread before (docs/vision.md,
sessions 4 and 5)."""

from dataclasses import replace

import numpy as np
import pytest

from engine.game import builtin_layout
from engine.observation import Observation, SpaceState
from tools.uncal_dev import darken_table, faded, folded
from vision.locate import BoardNotFound, find_outline
from vision.looks import look_conditions, parse_look
from vision.pairs import (TURN_PRINT, bare_pairs, chips_centred, corners_on_chips,
                          lattice_confirms, outside_frame, print_sure, settle_on_chips, shifted,
                          surely_alike, twin_pairs)
from vision.classify import alike_chip_coloured, classify_by_twins, features
from vision.locate import straighten
from vision.reader import BoardReader
from vision.synth import Conditions, random_board, render

LAYOUT = builtin_layout("classic")

FULL = """\
. . G R G G G W W .
G . B . R B B G . G
R . B . B W . . R .
G B R W B G G B . B
. G . R R B G B . B
W R B W W R . B . .
. . W . . . G B . B
. R G B . B . B . G
. W . . B B G B G .
. W . G R R G B . ."""

SPARSE = """\
. R . . . . . B G .
. . . B W . . B . .
B B . B . . . G . R
. W . . . R B . G .
. W . G . G B . . R
. R . W . . R . . G
B . . . B R B . . .
. G . . B G . G . .
. G R . . G G . . R
. W W . B . . . B ."""

TURNED = """\
. . . . . . R . R .
. . G R . . G . W .
. . . B B B W B B R
. B G R B . . . G B
R G R R . . G . . W
R . G . W B R W . W
. . G . R . . G B .
. G R B . G . . G R
. . G . B G R . . .
. . R . . . B . . ."""

COVERED = """\
. R R . G . W G . .
. R B B B W G . G .
. G R . W . . . G W
. R . . R R R B B G
G R W R G B G W G B
R R R B R G W R . R
B B . R . . W W R G
R . B W W B B . . W
. R G B G B G G . R
. . R G . G W G W ."""

PLAIN_COVERED = """\
. G B . W . . R . .
R B B G B G R B R R
R B R R B . B B R R
B . R W B B B B G R
R . . G R B R G . G
W W B R G B . . R G
G W . W G R . B G B
G R B . B G G B G .
. R G R G B G . G B
. . B . G R B G R ."""

CROWDED_PLAIN = """\
. . G B B G G G . .
R W G R B G . R W B
W R W G G B R R W R
. W R W G W W G G B
G W . B G W G B B G
G B G G G R B R G B
R B R . R B G R W G
. B . . G B G B . G
B G B R G . G W R R
. . W R . B . G . ."""

CROWDED_GLOSSY = """\
. G G G G R R G W .
G R W G W B R W G W
G R G W . B . B G R
. B R B G G R B R R
. . G B G . R R R B
. . R R R B . G B .
B R B R . G R . . B
W W R . R . . B G .
. R . . . B B G G G
. G R B B . . B G ."""

TRANSLUCENT_TWINS = """\
. R B R G . G G R .
. R B R B . B G B G
R G B . W . . . B B
B B . B . B . B . B
. B W . . B G B G .
W G . . . B . . R R
. . . . R R R B R G
. B R . G B B G . R
G R W R G . B W G R
. W . . . . B B G ."""


def _scene(look: str, board: str, brightness: float, seed: int, **cond):
    lk = parse_look(look)
    c = look_conditions(lk)
    c = replace(c, brightness=brightness, **cond)
    return render(LAYOUT, Observation.parse(board), c, seed=seed, look=lk)


def _space(r) -> float:
    return float(np.linalg.norm(r.grid_corners[1] - r.grid_corners[0])) / LAYOUT.cols


def _wrong_and_unknown(reading, r, unsure=None):
    """The spaces a reading gives a state they do not have (index, state), and the spaces
    it reads unknown (but those ``unsure`` marks: the renderer's own doubtful spaces)."""
    states = reading.observation.states
    wrong = [(i, a) for i, (a, t) in enumerate(zip(states, r.truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    unknown = [i for i, a in enumerate(states) if a is SpaceState.UNKNOWN
               and (unsure is None or not unsure[i])]
    return wrong, unknown


def _read_first_frame(image, r, most_wrong: int):
    reading = BoardReader(None, LAYOUT).read(image)
    assert reading.found, reading.problem
    # the grid found is the board's, the right way round
    assert np.abs(reading.corners - r.grid_corners).max() < 0.25 * _space(r)
    wrong = [i for i, (a, t) in enumerate(zip(reading.observation.states, r.truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    assert len(wrong) <= most_wrong, wrong


@pytest.fixture(scope="module")
def full_board():
    # a game late on: 62 of 100 spaces hold chips, few pairs of twins are left bare
    return _scene("art=ornate,board=mat,chips=opaque,table=cloth,hand=bare,light=lamp,"
                  "camera=angled,seed=641999417", FULL, 0.88597, 1027502942)


def test_a_board_full_of_chips_is_read_on_its_first_photo(full_board):
    _read_first_frame(full_board.image, full_board, most_wrong=1)


def test_a_board_on_a_dark_table_in_dim_light_is_read_and_not_called_too_dark():
    r = _scene("art=shipped,board=mat,chips=opaque,table=wood,hand=bare,light=daylight,"
               "camera=angled,seed=414676815", SPARSE, 0.5045, 280246208)
    image = darken_table(r.image, r.corners, 0.23)
    _read_first_frame(image, r, most_wrong=1)
    # the board's paper is lit: whatever the outline finder says, it is not "too dark"
    try:
        find_outline(image)
    except BoardNotFound as exc:
        assert "too dark" not in str(exc)


def test_a_board_whose_chips_hide_the_turn_from_most_pairs_is_read_the_right_way_round():
    r = _scene("art=plain,board=mat,chips=opaque,table=cloth,hand=sleeve,light=daylight,"
               "camera=angled,seed=521531261", TURNED, 1.0568, 761767497,
               # the camera close and tilted (tools/uncal_dev.py's "edge" set)
               tilt_deg=22.236, rotation_deg=146.949, scale=0.91767,
               offset=(0.016206, 0.049537), distortion=-0.075182)
    _read_first_frame(r.image, r, most_wrong=1)


def test_chips_centred_under_a_grid_never_confirm_it_moved_or_resized(full_board):
    r = full_board
    grid = np.float32(r.grid_corners)
    for turn in range(4):
        found = lattice_confirms(r.image, np.roll(grid, -turn, axis=0), LAYOUT)
        assert found is not None and np.abs(found - grid).max() < 1.0
    for dx, dy, scale in ((0.5, 0, 1), (0, -0.5, 1), (0.3, 0.3, 1), (0, 0, 1.1), (0, 0, 0.9),
                          (0, 0, 1.2), (0, 0, 0.8)):
        assert lattice_confirms(r.image, shifted(grid, LAYOUT, dx, dy, scale), LAYOUT) is None


def test_a_grid_with_one_corner_a_third_of_a_space_off_is_not_confirmed_by_the_chips(full_board):
    # another candidate than the outline's, on a board too full of chips for the pairs:
    # the chips centred over most of the board (lattice_confirms) are not enough; each
    # corner must sit where its own quarter's chips say (corners_on_chips, session 7)
    import cv2
    r = full_board
    grid = np.float32(r.grid_corners)
    assert corners_on_chips(r.image, grid, LAYOUT)
    unit = np.float32([[0, 0], [10, 0], [10, 10], [0, 10]])
    h = cv2.getPerspectiveTransform(unit, grid)
    for corner in range(4):
        for dx, dy in ((0.35, 0), (0, -0.35), (-0.3, 0.3)):
            u = unit.copy()
            u[corner] += (dx, dy)
            off = cv2.perspectiveTransform(u[None], h)[0]
            assert not corners_on_chips(r.image, off, LAYOUT), (corner, dx, dy)


def test_a_close_up_photo_with_the_board_past_the_frame_edge_is_read():
    # the board's edge runs out of the picture on two sides, its grid of spaces does not
    # (this already worked before session 4: kept so that it keeps working)
    board = random_board(LAYOUT, np.random.default_rng(5), fill=0.4)
    r = render(LAYOUT, board, Conditions(scale=1.03, tilt_deg=15, rotation_deg=10), seed=4,
               look=parse_look("art=ornate,table=wood,chips=translucent", seed=3))
    h, w = r.image.shape[:2]
    assert (r.corners < 0).any() or (r.corners[:, 0] >= w).any() or (r.corners[:, 1] >= h).any()
    assert (r.grid_corners >= 0).all() and (r.grid_corners[:, 0] < w).all() and \
        (r.grid_corners[:, 1] < h).all()
    reading = BoardReader(None, LAYOUT).read(r.image)
    assert reading.found, reading.problem
    wrong = [i for i, (a, t) in enumerate(zip(reading.observation.states, r.truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    assert wrong == []


DIM = """\
. . . . . . W . . .
. . . . . R G . . .
. . . . . . G . . .
. G B . . B . . . .
R . . . B . . . . .
R G . . . G . . W .
. . . G . B B B . G
. R R . R . B . . .
. . . . . . . W . .
. . . . . . . . . ."""


@pytest.fixture(scope="module")
def dim_board():
    # translucent chips on a glossy board under a dim lamp, on a darkened table: the grid
    # the pairs confirm is found a fifth of a space off (tools/uncal_dev.py "dark" set)
    lk = parse_look("art=shipped,board=glossy,chips=translucent,table=wood,hand=sleeve,"
                    "light=lamp,camera=angled,seed=581074133")
    c = Conditions(width=1280, height=720, tilt_deg=22.848, rotation_deg=155.03, scale=0.77053,
                   offset=(0.0093628, -0.018466), distortion=-0.03539, kelvin=3073.6,
                   brightness=0.31317, uneven=0.49280, shadow=0.44806, glare=0, noise=1.7412,
                   light_seed=889728250)
    r = render(LAYOUT, Observation.parse(DIM), c, seed=69504284, look=lk)
    return r, darken_table(r.image, r.corners, 0.188)


def test_a_first_photo_in_dim_light_is_read_on_its_chips_places_not_a_fifth_of_a_space_off(
        dim_board):
    r, image = dim_board
    reading = BoardReader(None, LAYOUT).read(image)
    assert reading.found, reading.problem
    # the grid moved onto the chips' places: within a tenth of a space of the true one
    assert np.abs(reading.corners - r.grid_corners).max() < 0.1 * _space(r)
    states = reading.observation.states
    wrong = [i for i, (a, t) in enumerate(zip(states, r.truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    unknown = [i for i, a in enumerate(states) if a is SpaceState.UNKNOWN]
    # a fifth of a space off, 23 spaces were unknown
    assert len(wrong) <= 1 and len(unknown) <= 5, (wrong, unknown)


def test_the_chips_places_leave_a_right_grid_where_it_is_and_never_move_it_a_space(dim_board):
    r, image = dim_board
    grid = np.float32(r.grid_corners)
    assert np.abs(settle_on_chips(image, grid, LAYOUT) - grid).max() < 0.1 * _space(r)
    # a grid a whole space off is not pulled further by the chips (they are centred
    # under it too): it is left as it was, for the pairs to refuse
    off = shifted(grid, LAYOUT, 1, 0)
    assert np.abs(settle_on_chips(image, off, LAYOUT) - off).max() < 0.35 * _space(r)


CLOSE = """\
. R R R B . . G W .
. R B . B B . . . .
G B . G . W G W B B
B B R . . W . . W W
G G . G R G . . B .
B . . . W . . . G .
W . G . R . B B . .
W . . . . . G G G R
R . B B . . . R G .
. . R G . . . . . ."""


def test_a_photo_taken_close_is_read_on_the_part_in_view_and_the_rest_is_unknown():
    # a phone held close and tilted: a corner of the grid of spaces out of the picture
    # (it was refused as "cut off"; tools/uncal_dev.py "close" set)
    lk = parse_look("art=plain,board=glossy,chips=opaque,table=wood,hand=sleeve,"
                    "light=daylight,camera=overhead,seed=582582265")
    c = Conditions(width=1280, height=720, tilt_deg=34.03, rotation_deg=-132.96, scale=1.1086,
                   offset=(0.0354, -0.1), distortion=0.00082, kelvin=4977.4, brightness=0.9211,
                   uneven=0.2173, noise=1.9, jpeg=80, light_seed=15458382)
    r = render(LAYOUT, Observation.parse(CLOSE), c, seed=352054451, look=lk)
    out = outside_frame(r.grid_corners, r.image.shape, LAYOUT)
    assert out.sum() >= 3
    reading = BoardReader(None, LAYOUT).read(r.image)
    assert reading.found, reading.problem
    assert np.abs(reading.corners - r.grid_corners).max() < 0.15 * _space(r)
    states = reading.observation.states
    # the spaces out of the picture are unknown, never guessed; the rest read right
    assert all(states[i] is SpaceState.UNKNOWN for i in np.flatnonzero(out))
    wrong = [i for i, (a, t) in enumerate(zip(states, r.truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    unknown = [i for i, a in enumerate(states) if a is SpaceState.UNKNOWN and not out[i]]
    assert wrong == [] and len(unknown) <= 1, (wrong, unknown)


DIM_EMPTY = """\
. . . . . . . . . .
. . B . . . . W G .
R . . . B R B . . B
. . . . . . . . B .
. . . . B . . . . R
. . . . . . G . G B
. . G . W . . W . .
. . . . . . . G . .
. . B . . . . . . G
. W . . . . . . . ."""


def test_a_dim_photo_prints_no_white_chip_on_an_empty_space():
    # a lamp at a third of its light over a glossy board on a dark table (the dark
    # development set, seed 21): read without calibration, three empty spaces were printed
    # as chips, sure (session 5's rule: the model's white against the twins' empty from
    # 70 %); now each is unknown or right, and no space is printed wrong (session 6)
    r = _scene("art=shipped,board=glossy,chips=opaque,table=cloth,hand=bare,light=lamp,"
               "camera=overhead,seed=728442720", DIM_EMPTY, 0.33683699971230996, 174137823)
    image = darken_table(r.image, r.corners, 0.2258687690498352)
    reading = BoardReader(None, LAYOUT).read(image)
    assert reading.found, reading.problem
    wrong, unknown = _wrong_and_unknown(reading, r)
    assert wrong == [] and len(unknown) <= 4, (wrong, unknown)


LAMP_GRADIENT = """\
. . . G . . B . . .
. . . . . . . . G .
. . . . R W . R . R
. B . . . . . . R .
B B B . . W . B . G
. . . . . . . R . .
. . B . G . . . R G
R . . G . . . . . .
. . G R G B . . . .
. W G . . G . . G ."""


def test_seqboard_read_a_photo_of_a_board_on_a_dark_table_under_a_lamps_gradient(
        tmp_path, capsys):
    # the wild development set (seed 71, scene 15): a glossy board on a darkened table,
    # light at half strength falling off steeply across it, a glare spot, two colour
    # temperatures, JPEG and a lens bend. The board's dark edge does not stand out (no
    # outline), one threshold over the frame cuts the board where the light falls off, so
    # every photo of the scene was refused ("no board found"); the board brighter than the
    # table round it (vision.locate.other_candidates), its edge and size settled on the bare
    # pairs (vision.pairs.settle_bare with sizes), is read (session 7)
    from tools.uncal_dev import mixed_light
    lk = parse_look("art=ornate,board=glossy,chips=opaque,table=wood,hand=bare,light=daylight,"
                    "camera=overhead,seed=221461579")
    c = Conditions(width=1280, height=720, tilt_deg=20.4932, rotation_deg=-55.2765,
                   scale=0.84641, offset=(0.010196, -0.017738), distortion=-0.078932,
                   kelvin=5199.23, brightness=0.478486, uneven=0.697185, glare=1,
                   noise=5.28071, blur=0.56476, jpeg=50, light_seed=464029417)
    r = render(LAYOUT, Observation.parse(LAMP_GRADIENT), c, seed=279465132, look=lk)
    image = mixed_light(darken_table(r.image, r.corners, 0.297497), 4562.13, 5339.41, 3.61118)
    # read on the board's grid the right way round: a grid a space off or turned would
    # put most chips on the wrong spaces
    _seqboard_read_photo(tmp_path, capsys, image, r, most_wrong=2, most_unknown=10)


def _seqboard_read_photo(tmp_path, capsys, image, r, most_wrong: int, most_unknown: int):
    """`seqboard read PHOTO --json` on ``image`` (the render ``r`` dressed) succeeds, at
    most ``most_wrong`` spaces read wrong and ``most_unknown`` unknown."""
    import json

    import cv2

    from seqboard.cli import main
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), image)
    capsys.readouterr()
    assert main(["read", str(photo), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    states = Observation.parse("\n".join(d["board"])).states
    wrong = [i for i, (a, t) in enumerate(zip(states, r.truth.states))
             if a != t and a is not SpaceState.UNKNOWN]
    unknown = [i for i, a in enumerate(states) if a is SpaceState.UNKNOWN]
    assert len(wrong) <= most_wrong and len(unknown) <= most_unknown, (wrong, unknown)


DARK_TURN = """\
. G . W . . . G . .
. B G B . . . . . .
. . B B B . G B . G
. B G . . . . R . .
. B . . . . . G . G
. B . B G . . . . R
B G G . R . R . W .
. . . . G B R . R .
. W . R . G R . R .
. . R B R R G G W ."""


def test_a_first_photo_found_a_tenth_of_a_space_off_is_settled_the_right_way_round():
    # the dark development set (seed 72, scene 0): translucent chips on a darkened table
    # in light at a third; no outline, the board's bright region a tenth of a space off
    # and not confirmed as found. The bare pairs that settle it were measured under its
    # first turn only, so a wrong turn won and the photo was refused ("no board found");
    # each turn is now judged by the pairs bare under it (session 7)
    r = _scene("art=ornate,board=mat,chips=translucent,table=wood,hand=bare,light=daylight,"
               "camera=overhead,seed=779525885", DARK_TURN, 0.32945884929992636, 551059337)
    image = darken_table(r.image, r.corners, 0.34708067383498264)
    _read_first_frame(image, r, most_wrong=1)


POOR_CAMERA = """\
. . . . . . . B . .
. G . . . . . . . .
. . . . . . . . . .
. R . . . . . . . .
. . B R . . G . . .
. R . . . . . . . .
. R . R . R . . . .
W . . . G . . R . .
. G . . . G . . . .
. . . . . . . . . ."""


def test_a_poor_cameras_photo_prints_no_white_chip_on_a_bare_space_whose_twin_holds_a_chip():
    # the lens development set (seed 82, scene 18): a plain printing on a glossy board seen
    # by a poor camera (JPEG 37, defocus, noise, tilted 25 degrees, a lens bend). An empty
    # space whose middle is plain paper differs from its twin, which holds a chip: the
    # twins' reading took it for a white chip and the model, 60-70 % sure, agreed; it was
    # printed as a white chip (session 7's rule). A white reading now needs the model 70 %
    # sure, a coloured chip 30 % (session 8): no space is printed wrong.
    lk = parse_look("art=plain,board=glossy,chips=opaque,table=cloth,hand=sleeve,"
                    "light=daylight,camera=overhead,seed=77003719")
    c = replace(look_conditions(lk), tilt_deg=25.5, rotation_deg=-62.2, scale=0.744,
                offset=(-0.027, 0.024), distortion=-0.0577, kelvin=5552, brightness=0.909,
                uneven=0.071, noise=4.94, blur=1.41, jpeg=37, light_seed=279140332)
    r = render(LAYOUT, Observation.parse(POOR_CAMERA), c, seed=110467641, look=lk)
    reading = BoardReader(None, LAYOUT).read(r.image)
    assert reading.found, reading.problem
    assert np.abs(reading.corners - r.grid_corners).max() < 0.25 * _space(r)
    wrong, unknown = _wrong_and_unknown(reading, r)
    assert wrong == [] and len(unknown) <= 6, (wrong, unknown)


CROWDED_TRANSLUCENT = """\
. B B R . G R R B .
. G R . R B . . W .
. . R B . . . B . R
B G W R R B B R G B
B . B R . . . B W W
. . R G R B . . . .
B B B R . . . . . .
. . W . B . W . . .
R B . . . R . . . B
. G G B . R G G B ."""


def test_a_crowded_board_is_never_read_on_a_grid_settled_off_its_chips():
    # the wild development set (seed 81, scene 14): 52 translucent chips on a glossy board
    # under a lamp's steep gradient and a glare spot, seen tilted 27 degrees through a lens
    # bend. Four pairs are bare under the true grid; the bare pairs settled a candidate
    # (0.08 of a space off as found) to a grid shrunk 0.43 of a space at a corner, under
    # which 14 pairs looked bare and the check passed: the whole scene was read on it
    # (session 7). The chips centred under that grid are 10 of the candidate's 44: refused
    # (session 8). A wrong grid is worse than a frame left unread.
    lk = parse_look("art=ornate,board=glossy,chips=translucent,table=cloth,hand=sleeve,"
                    "light=lamp,camera=angled,seed=747959193")
    c = replace(look_conditions(lk), tilt_deg=26.66, rotation_deg=-33.3, scale=0.7374,
                offset=(-0.0357, 0.0251), distortion=-0.0361, kelvin=3209, brightness=0.9077,
                uneven=0.6253, shadow=0.2785, glare=1, noise=3.58, blur=0.727, jpeg=67,
                light_seed=735352113)
    r = render(LAYOUT, Observation.parse(CROWDED_TRANSLUCENT), c, seed=312728359, look=lk)
    reading = BoardReader(None, LAYOUT).read(r.image)
    if reading.found:
        assert np.abs(reading.corners - r.grid_corners).max() < 0.25 * _space(r)
    else:
        assert "board" in reading.problem or "grid" in reading.problem, reading.problem


GLARE_BOARD = """\
. B W R G . . G W .
. . R . . G . B . .
. . B B G R . . R .
G R W . . R R G . G
R B . . G . G . W G
B . B . B . . R . W
. . B R W R G G . B
B . B . B B . B . R
R B . . R . . G . G
. . . . . . . . . ."""


def test_a_glare_spot_is_not_taken_for_a_hand_round_it_without_calibration():
    # the wild development set (seed 81, scene 8): a lamp's glare spot on a mat board with
    # translucent chips. Round the spot the paper is whitened, its colour changed, and the
    # twins' reading took that for a cover: three by three spaces round it read unknown
    # (7 of them with the truth sure). The paper there is brighter than the board's light,
    # which no hand or shadow makes: not a cover (session 8), only the spot itself unknown
    lk = parse_look("art=shipped,board=mat,chips=translucent,table=wood,hand=sleeve,"
                    "light=lamp,camera=overhead,seed=70783509")
    c = replace(look_conditions(lk), tilt_deg=10.3, rotation_deg=15.61, scale=0.8344,
                offset=(-0.0192, 0.0135), kelvin=3014, brightness=0.79, uneven=0.4038,
                shadow=0.4562, glare=1, noise=2.53, light_seed=191090996)
    r = render(LAYOUT, Observation.parse(GLARE_BOARD), c, seed=472025581, look=lk)
    reading = BoardReader(None, LAYOUT).read(r.image)
    assert reading.found, reading.problem
    assert np.abs(reading.corners - r.grid_corners).max() < 0.25 * _space(r)
    wrong, unknown = _wrong_and_unknown(reading, r, r.unsure)
    assert wrong == [] and len(unknown) <= 3, (wrong, unknown)


@pytest.fixture(scope="module")
def covered_board():
    # 71 of 100 spaces under translucent chips, one pair of twins left bare: the pairs
    # cannot tell which way round the board lies (tools/uncal_dev.py's "full" set, seed 91,
    # scene 3; refused before session 9)
    return _scene("art=plain,board=worn,chips=translucent,table=wood,hand=bare,light=lamp,"
                  "camera=overhead,seed=50387873", COVERED, 0.96847, 214576540)


def test_a_board_three_quarters_covered_is_read_the_right_way_round(covered_board):
    r = covered_board
    assert len(bare_pairs(r.image, np.float32(r.grid_corners), LAYOUT)) <= 2
    _read_first_frame(r.image, r, most_wrong=1)


def test_the_print_round_the_chips_tells_the_turn_and_a_turned_grid_is_never_taken(
        covered_board):
    # a chip hides its space's middle, not the card's corners: under the right turn many
    # pairs of twins look alike there; under a turned grid they are unrelated spaces
    r = covered_board
    grid = np.float32(r.grid_corners)
    sure = [print_sure(r.image, np.roll(grid, -t, axis=0), LAYOUT) for t in range(4)]
    assert sure[0] >= TURN_PRINT and sure[0] >= 3 * max(sure[1:]), sure
    for turn in range(4):
        found = lattice_confirms(r.image, np.roll(grid, -turn, axis=0), LAYOUT)
        assert found is not None and np.abs(found - grid).max() < 1.0, turn


def test_a_plain_board_whose_print_tells_its_turn_only_once_settled_is_never_read_turned():
    # 77 of 100 spaces covered on a plain printing: no pair of twins bare, and round the
    # chips the corners' small index is no more alike under the right turn than under a
    # wrong one as drawn (tools/uncal_dev.py's "full" set, seed 72, scene 11). Each turn
    # settled on its own pairs' print (session 19), the right one tells (10 pairs surely
    # alike, the others 3 at most): whatever turn the chips' lattice starts from, the grid
    # it gives is the right way round; and the board is never read turned
    r = _scene("art=plain,board=worn,chips=opaque,table=cloth,hand=sleeve,light=daylight,"
               "camera=angled,seed=951046815", PLAIN_COVERED, 1.00774, 147949069)
    grid = np.float32(r.grid_corners)
    for turn in (1, 2):
        found = lattice_confirms(r.image, np.roll(grid, -turn, axis=0), LAYOUT)
        assert found is not None and np.abs(found - grid).max() < 0.25 * _space(r), turn
    reading = BoardReader(None, LAYOUT).read(r.image)
    assert not reading.found or np.abs(reading.corners - grid).max() < 0.25 * _space(r)


def test_a_grid_settled_inside_a_crowded_board_off_its_chips_is_refused_never_read():
    # 81 of 100 spaces covered on a plain printing, no pair of twins bare: a quadrilateral
    # inside the board (not its outline), settled on the few pairs that looked bare under
    # it, passed the pairs' check 8.5 spaces off the board's grid, and its scene was read on
    # it, nearly every space unknown or wrong (tools/uncal_dev.py's "full" set, seed 101,
    # scene 9; session 10). Chips lie in the middle of their spaces: that grid centres none
    # of the chips it sees, the board's own grid nearly all of them
    r = _scene("art=plain,board=worn,chips=opaque,table=wood,hand=sleeve,light=lamp,"
               "camera=angled,seed=766305508", CROWDED_PLAIN, 0.9091948834960862, 89709275)
    centred, seen = chips_centred(r.image, np.float32(r.grid_corners), LAYOUT)
    assert centred >= 0.9 * seen, (centred, seen)
    _off_its_chips_refused(r, [[754, 101], [824, 313], [593, 264], [593, 174]])


def _off_its_chips_refused(r, quad):
    """``quad`` (a wrong grid) centres less than a quarter of the 8 or more chips it sees,
    and the scene is refused, or read on its own grid."""
    centred, seen = chips_centred(r.image, np.float32(quad), LAYOUT)
    assert seen >= 8 and centred < 0.25 * seen, (centred, seen)
    reading = BoardReader(None, LAYOUT).read(r.image)
    if reading.found:
        assert np.abs(reading.corners - r.grid_corners).max() < 0.25 * _space(r)
    else:
        assert "the grid does not lie on the board's spaces" in reading.problem


def test_a_grid_reaching_onto_the_table_is_refused_by_the_chips_it_does_not_centre():
    # 73 chips on a glossy board, one pair of twins bare: a candidate reaching from the
    # board onto the table, settled and passed by the pairs' check (rank 0.82), was read
    # 9.8 spaces off for its whole scene (tools/uncal_dev.py's "full" set, seed 105, scene
    # 10; session 10). Whatever step confirmed it, a grid on a board in play that centres
    # less than a quarter of the chips it sees is refused: this one centres 1 of 14
    r = _scene("art=ornate,board=glossy,chips=opaque,table=wood,hand=bare,light=daylight,"
               "camera=overhead,seed=141414027", CROWDED_GLOSSY, 0.8380652948338996, 818396682)
    _off_its_chips_refused(r, [[492, 61], [741, 179], [411, 555], [89, 497]])


def test_translucent_chips_of_one_colour_on_both_twins_are_read_and_bare_twins_stay_empty():
    # 64 translucent chips; a pair of twins both under a green one looks as alike as two
    # bare copies of the card, the twins' reading called both empty and the model, shown
    # each beside the other as its empty twin, let it stand: space 51 read empty
    # (tools/uncal_dev.py's "full" set, seed 101, scene 11; session 10). Read again alone it
    # is a green chip; the bare pairs whose middles show a chip's colour too stay empty
    r = _scene("art=ornate,board=worn,chips=translucent,table=cloth,hand=bare,light=daylight,"
               "camera=overhead,seed=694865751", TRANSLUCENT_TWINS, 1.04363161442057, 115845956)
    reader = BoardReader(None, LAYOUT)
    reading = reader.read(r.image)
    assert reading.found, reading.problem
    states = reading.observation.states
    assert states[51] is SpaceState.GREEN
    wrong, unknown = _wrong_and_unknown(reading, r, r.unsure)
    assert wrong == [] and len(unknown) <= 2, (wrong, unknown)
    board = straighten(r.image, reading.corners, LAYOUT)
    twins = classify_by_twins(board, LAYOUT.rows, LAYOUT.cols, reader._pairs, LAYOUT.free)[0]
    alike = alike_chip_coloured(features(board, LAYOUT.rows, LAYOUT.cols).centre, reader._pairs,
                                twins)
    bare = [i for i in np.flatnonzero(alike) if r.truth.states[i] is SpaceState.EMPTY]
    assert len(bare) >= 6 and all(states[i] is SpaceState.EMPTY for i in bare), bare


GLARE_DIM = """\
. . . . . B . . B .
W G . W . R . . . G
. . G . . B . . . R
. . . G . R . . . .
. . . B . . . . W .
G . R . G R . . W B
. G R R . G . B G .
. G . . . . R R . W
R . B . G . R . B .
. . G . . B . . . ."""


def test_seqboard_read_a_photo_whose_grid_is_found_a_fifth_of_a_space_off_reads_it(
        tmp_path, capsys):
    # the wild development set (seed 121, scene 10, frame 0; session 11): a darkened table,
    # light at half strength with a gradient and two glare spots, tilted 30 degrees. No
    # outline; the board's bright region was confirmed by the pairs 0.19 of a space off,
    # where none of the 28 chips it sees lies within a tenth of a space of its middle, so
    # the guard against grids off their chips refused it, and the corner search that
    # followed raised a KeyError: `seqboard read` died with a traceback. Moved onto its
    # chips' places (at most half a space, confirmed by the pairs again) it centres 31 of
    # 32: the photo is read on the board's grid
    from tools.uncal_dev import mixed_light
    lk = parse_look("art=shipped,board=mat,chips=opaque,table=cloth,hand=sleeve,light=daylight,"
                    "camera=angled,seed=242990014")
    c = Conditions(width=1280, height=720, tilt_deg=29.747237560002425,
                   rotation_deg=64.06182277935366, scale=0.8096789721261785,
                   offset=(0.013807459408605734, 0.01011626142403256),
                   distortion=-0.0032277014600648954, kelvin=5850.082111735691,
                   brightness=0.5437842827540194, uneven=0.5978877217153938, glare=2,
                   noise=4.231310623683479, light_seed=245786355)
    r = render(LAYOUT, Observation.parse(GLARE_DIM), c, seed=849541610, look=lk)
    image = mixed_light(darken_table(r.image, r.corners, 0.215385984607696),
                        5143.966869397613, 5208.378919301061, 8.472712136406091e-05)
    # on the board's grid: a grid a space off or turned would put most chips wrong
    _seqboard_read_photo(tmp_path, capsys, image, r, most_wrong=2, most_unknown=10)


DARK_CROWDED = """\
. G B G . . R B B .
G . . . . R G . . .
. B . B . R G R . R
. . B R . . G W . B
. R B G R . . B G R
B . G . . R B . R G
G . R G R R . G B R
. B . B G G R G . G
R B R G R W R G B .
. R R R . W G B . ."""


def test_a_dark_board_with_many_chips_is_never_read_turned_by_its_few_bare_pairs():
    # the dark development set (seed 124, scene 10; session 11): 58 chips, light at a third,
    # the table darkened to a sixth. No outline; the board's bright region (0.07 of a space
    # off) is not confirmed as found, and the grid settled on the pairs left bare took a
    # quarter turn: under it 13 pairs looked bare and alike (rank 0.79), and the whole
    # scene was read turned, every chip on another space. The print round the chips says
    # which turn is the board's (5 pairs surely alike under the turned grid, 22 under the
    # board's): a grid settled on the bare pairs needs it too, and the photo is read on
    # the board's own grid
    r = _scene("art=ornate,board=worn,chips=opaque,table=cloth,hand=sleeve,light=daylight,"
               "camera=overhead,seed=621122118", DARK_CROWDED, 0.3622368001308304, 268424772,
               tilt_deg=14.93751910477861, rotation_deg=-13.046998358019977,
               scale=0.8527153150073818, offset=(0.03620212364887628, 0.02600898887724993),
               kelvin=6459.1628249696805, uneven=0.1483279314591398,
               noise=2.2785786422700864, light_seed=989271750)
    image = darken_table(r.image, r.corners, 0.17779406521196228)
    _read_first_frame(image, r, most_wrong=3)


# a worn board's edge crossed by thin bright scratches (tools/uncal_dev.py "full" set,
# seed 71, scene 2): the field's hole ran out through them, "no board found" (session 14)
WORN_SCRATCHED = """\
. W W B . G . . . .
B R . . . W G . B .
G . B B . . . G . G
. B W . B B . . G B
B R . W W R R G G W
R B . G G B . G W G
B . . . . . G . B B
. R B . B . B . R G
G . W R R W B . R .
. . G G . R . R . ."""

# a glossy board under a lamp whose brown edge, at one corner, is no darker than the
# cloth beside it (the same set, seed 72, scene 1): the ring open there, "cut off"
EDGE_LIKE_TABLE = """\
. R B R R . . W G .
. B G G G . W . G B
. G B . R G . R B W
B R W R B . . B B B
. G G . . . . G . .
. R B G . G . G . G
B . G R G B . B B .
B B G B B R G W R R
G B B G W B G . . B
. G R . B . B R W ."""


@pytest.mark.parametrize("look,board,brightness,seed", [
    ("art=ornate,board=worn,chips=opaque,table=wood,hand=bare,light=lamp,camera=overhead,"
     "seed=944410709", WORN_SCRATCHED, 0.9222914647365654, 653990240),
    ("art=ornate,board=glossy,chips=opaque,table=cloth,hand=sleeve,light=lamp,camera=overhead,"
     "seed=864164429", EDGE_LIKE_TABLE, 0.8798018091555116, 370759085),
], ids=["scratched-edge", "edge-like-the-table"])
def test_a_board_whose_edge_ring_is_broken_is_found_and_read_on_its_first_photo(
        look, board, brightness, seed):
    r = _scene(look, board, brightness, seed)
    corners = find_outline(r.image).corners
    off = min(float(np.linalg.norm(np.roll(corners, -t, axis=0) - r.grid_corners, axis=1).max())
              for t in range(4))
    assert off < 0.1 * _space(r)
    _read_first_frame(r.image, r, most_wrong=1)


# a glossy board on a black cloth under a lamp that falls off across it (tools/uncal_dev.py
# "dark" set, seed 81, scene 18; the picture's brightest tenth at grey 66): on the dim side
# the dark red edge differs from the cloth by a few grey levels, the ring is open there at
# every threshold in grey levels, "no board found" (session 16: looked at again brightened)
DIM_SIDE = """\
. . . . . G . . . .
. . R G . . . . . .
G . G B . . R . B .
. . . . B . G . . .
. R G . R G . . B W
. . . G . . . R . R
. . . . . . . . . G
. . . . G . B R . .
. . G . G . . . . .
. . . . . . . . . ."""


def test_a_dim_board_whose_edge_fades_into_a_black_cloth_is_found_and_read_on_its_first_photo():
    r = _scene("art=shipped,board=glossy,chips=opaque,table=cloth,hand=sleeve,light=lamp,"
               "camera=angled,seed=508886609", DIM_SIDE, 0.2839612180967763, 890385003,
               tilt_deg=21.664500720145384, rotation_deg=79.15096788035822,
               scale=0.8287403465367947, offset=(-0.011158474547104912, 0.008565337931359412),
               distortion=-0.003624745575115204, kelvin=3296.1452055862533,
               uneven=0.24983093326481376, shadow=0.45106787511006363, glare=0,
               noise=1.7962330919958356, blur=0.0, jpeg=0, light_seed=185140651)
    image = darken_table(r.image, r.corners, 0.3082040469242847)
    assert np.percentile(image, 90) < 80          # a dim picture, as in the development set
    corners = find_outline(image).corners
    off = min(float(np.linalg.norm(np.roll(corners, -t, axis=0) - r.grid_corners, axis=1).max())
              for t in range(4))
    assert off < 0.1 * _space(r)
    _read_first_frame(image, r, most_wrong=1)


# a board 78 % covered on the shipped art (tools/uncal_dev.py "full" set, seed 97, scene
# 2): under a quarter turn five pairs of twins are bare, and three of them are spaces that
# look alike by chance at 40 pixels a space (an 8 of clubs and an 8 of spades, two court
# pictures): the bare pairs' rule took that turn, and every chip was read on another space
# (session 17)
LOOKALIKE_BARE = """\
. . R G R G G G B .
R W B R G R . R R .
R W R G R G . R G G
G G . . B G . G B B
G R G R G R . R B W
B G R R R . R . . .
. R G R . R G R R B
R B R W . G R R R G
W W R R B . G R B R
. R . B W B G G . ."""


def test_a_crowded_board_whose_few_bare_pairs_look_alike_under_a_turn_is_never_read_turned():
    r = _scene("art=shipped,board=mat,chips=opaque,table=cloth,hand=sleeve,light=daylight,"
               "camera=angled,seed=823152259", LOOKALIKE_BARE, 0.9068182338198676, 35502818,
               tilt_deg=22.25127725911846, rotation_deg=-123.41732783634289,
               scale=0.8102151364620186, offset=(0.014833816905881828, 0.019840527221779945),
               distortion=-0.02516333830139808, kelvin=6301.673553118454,
               uneven=0.1855003779666751, shadow=0.0, glare=0, noise=1.3947837940360368,
               blur=0.0, jpeg=0, light_seed=333286049)
    grid = np.float32(r.grid_corners)
    turned = np.roll(grid, -3, axis=0)
    # the trap: under the quarter turn, three bare pairs surely alike, more than under
    # any other turn
    sure = [surely_alike(r.image, np.roll(grid, -t, axis=0), LAYOUT)[2] for t in range(4)]
    assert sure[3] >= 3 and sure[3] >= 3 * max(sure[:3]), sure
    for start in (grid, turned):
        found = lattice_confirms(r.image, start, LAYOUT)
        assert found is None or np.abs(found - grid).max() < 0.25 * _space(r)
    reading = BoardReader(None, LAYOUT).read(r.image)
    if reading.found:
        assert np.abs(reading.corners - grid).max() < 0.25 * _space(r)
    else:
        assert "the grid does not lie on the board's spaces" in reading.problem


FOLDED = """\
. G . . R . . B . .
. . B G . R . . W .
R . . . B . G . . G
. B . R . . . R B .
G . . . G B . . . R
. R G . . . R . G .
B . . W . G . B . .
. . R . B . . . R G
. G . . . R B . . .
. . B . . . . G . ."""


def test_a_folding_board_with_its_crease_and_a_half_bent_up_is_read_on_its_first_photo():
    # a board folded in four (two creases, each a shadow beside a highlight), its halves
    # lit apart and one half bent up at the hinge, squeezed 2.9 % towards the fold (a corner
    # moved 0.15 of a space): no single grid fits both halves exactly (tools/uncal_dev.py
    # "fold" set, session 17; the reader held on it as it was)
    r = _scene("art=plain,board=mat,chips=opaque,table=wood,hand=bare,light=daylight,"
               "camera=overhead,seed=41", FOLDED, 0.95, 20261207)
    image, grid = folded(r.image, r.corners, r.grid_corners, 17)
    moved = np.linalg.norm(grid - r.grid_corners, axis=1).max()
    assert 0.1 * _space(r) < moved < 0.4 * _space(r)
    _read_first_frame(image, replace(r, grid_corners=grid), most_wrong=1)


# an old board (tools/uncal_dev.py "faded" set, seed 117, scene 11): a worn board, its
# print faded 57 % towards the paper and the paper yellowed, the chips as they were. Many
# cards' middles are now smooth, pale paper, which the pairs' check took for white chips:
# 2 pairs of twins seemed bare, too few to judge by, and the grid was refused (session 17)
FADED = """\
. B . R . R B . . .
B B G . B R G B R G
G B R G B R R . . .
. R . B G W B . G B
R . . . . B . . . G
R . W W B B . . G W
. . . R . . B . . R
B G R W . B G B G .
. . . . B W G . . G
. . . . B B . . R ."""


def test_an_old_board_whose_faded_cards_look_like_white_chips_is_found_and_read():
    look = ("art=ornate,board=worn,chips=opaque,table=wood,hand=sleeve,light=daylight,"
            "camera=overhead,seed=73911083")
    cond = dict(tilt_deg=4.22918984094441, rotation_deg=-85.9145285117925,
                scale=0.822702573170296, offset=(-0.024215828990616403, 0.017689408374432287),
                distortion=0.0, kelvin=6426.952447105947, uneven=0.21748000390764294,
                shadow=0.0, glare=0, noise=2.44548721145589, blur=0.0, jpeg=0,
                light_seed=615358641)
    r = _scene(look, FADED, 0.9381100098012395, 671488985, **cond)
    empty = _scene(look, "\n".join([". " * 9 + "."] * 10), 0.9381100098012395, 671488985,
                   **cond)
    image = faded(r.image, empty.image, r.corners, 0.571200889029752, 0.10559133014058283)
    grid = np.float32(r.grid_corners)
    truly = [(i, j) for i, j in twin_pairs(LAYOUT)
             if r.truth.states[i] is SpaceState.EMPTY and r.truth.states[j] is SpaceState.EMPTY]
    # the pairs truly bare are seen bare (2 of them before the change)
    seen = set(bare_pairs(image, grid, LAYOUT))
    assert len(truly) >= 8 and len(seen & set(truly)) >= len(truly) - 2
    _read_first_frame(image, r, most_wrong=2)


# a faded board under dim, mixed light, the picture blurred and JPEG'd (tools/uncal_dev.py
# "wild2" set, seed 123, scene 8): a candidate settled on the bare pairs, its size too,
# onto a grid 1.7 spaces inside the board's own, with 6 pairs surely alike round the chips
# (the bar then) and its pairs at rank 0.82: every frame of the scene was read on it, 45 to
# 77 spaces wrong (session 17: a settled grid now needs 8)
BLURRED_FADED = """\
. . G . G G . . . .
. W . . . . . . B B
W G R B . . W . B W
. . . . B . B B . G
B R . W B . . . G .
. G G R . R B . . B
B B G . G . . . R .
B R G R . G B . . W
. R . G B . . R B R
. R . . . W . . G ."""


def test_a_blurred_faded_board_is_never_read_on_a_grid_settled_inside_it():
    from tools.uncal_dev import mixed_light
    look = ("art=shipped,board=glossy,chips=translucent,table=cloth,hand=bare,light=lamp,"
            "camera=overhead,seed=12680012")
    cond = dict(tilt_deg=31.603192376662154, rotation_deg=53.02921973289048,
                scale=0.7997497088977591, offset=(-0.021281248141876177, -0.0202699487983298),
                distortion=0.050856684270603886, kelvin=3242.476279519803,
                uneven=0.44656306469415297, shadow=0.3939477206258807, glare=0,
                noise=4.559542238861517, blur=0.9945140040722503, jpeg=46,
                light_seed=237477569)
    r = _scene(look, BLURRED_FADED, 0.4585800522446643, 316836584, **cond)
    empty = _scene(look, "\n".join([". " * 9 + "."] * 10), 0.4585800522446643, 316836584,
                   **cond)
    image = faded(r.image, empty.image, r.corners, 0.3967067886794127, 0.06110190548377378)
    image = mixed_light(image, 5064.248399802614, 4095.436383182402, 0.5838053599377669)
    reading = BoardReader(None, LAYOUT).read(image)
    # read on the board's own grid, or not read: never on a grid inside it
    if reading.found:
        assert np.abs(reading.corners - r.grid_corners).max() < 0.25 * _space(r)
        wrong = [i for i, (a, t) in enumerate(zip(reading.observation.states, r.truth.states))
                 if a != t and a is not SpaceState.UNKNOWN]
        assert len(wrong) <= 2, wrong


# a mat board in dim, mixed light, one glare spot, the picture blurred and JPEG'd
# (tools/uncal_dev.py "wild2" set, seed 137, scene 23): the grid was confirmed 0.07 of a
# space off, then "polished" to 0.40 off, where the pairs near a dim corner looked more
# alike but 15 chips of 23 were centred instead of 19: every frame was read 14 to 20 spaces
# wrong (session 18: a polish may not leave fewer chips centred)
POLISHED_OFF = """\
. . . . . . . . G .
. . . . . G . . . .
B . . . G . . . . .
. . . . . . . R . G
. . . . . . . . . G
. R . . . . W . . B
B G G . . . . . R .
. . . . R W . . . .
R . . . . . W . . .
. . . G B G . . . ."""


def test_a_grid_found_right_is_not_polished_off_the_chips_by_a_dim_corner():
    from tools.uncal_dev import mixed_light
    look = ("art=ornate,board=mat,chips=opaque,table=cloth,hand=sleeve,light=lamp,"
            "camera=angled,seed=720794193")
    cond = dict(tilt_deg=21.728033013227513, rotation_deg=61.880340001404534,
                scale=0.7901782970022265, offset=(-0.03433466556687875, -0.010497839397598144),
                distortion=-0.06916543489381838, kelvin=3062.0195294983137,
                uneven=0.6088953913238935, shadow=0.3287087928842046, glare=1,
                noise=5.661339327814025, blur=1.371386553979418, jpeg=49,
                light_seed=351176137)
    r = _scene(look, POLISHED_OFF, 0.5293196168383396, 834067018, **cond)
    image = mixed_light(r.image, 4647.882163846673, 5064.766670341054, 0.8088756069847064)
    _read_first_frame(image, r, most_wrong=2)


CROWDED_LAMP = """\
. B . R B R . W R .
. G W R B . W . W G
G W B B G R R R B R
R . B G . R B . W B
B R G . . B R W R .
R B W B . B . B G .
W R W W R B R R G W
R W . B R G G . R .
R R R B . W B G R .
. G R . R . B B B ."""


def test_a_crowded_board_whose_outline_is_a_twentieth_of_a_space_off_tells_its_turn_once_settled():
    # 75 of 100 spaces covered, no pair of twins bare (tools/uncal_dev.py's "full" set,
    # seed 153, scene 8): the chips confirm the outline's grid, but round them the print
    # is a few pixels of each space's corners, blurred away by a grid 0.05 of a space off
    # (1 pair surely alike under the right turn). Each turn settled on its own pairs'
    # print, the right one has 8 and the others at most 1: read the right way round
    # (refused before session 19)
    r = _scene("art=shipped,board=worn,chips=opaque,table=cloth,hand=bare,light=lamp,"
               "camera=overhead,seed=764047781", CROWDED_LAMP, 0.9490566479114949,
               1029392866, tilt_deg=4.518014440827845, rotation_deg=-134.6035313747061,
               scale=0.8056936800740855, offset=(0.034084313866451256, 0.003613387728442191),
               kelvin=2957.490337641582, uneven=0.2567311486178086,
               shadow=0.39934150492222403, noise=2.1525339866632076, light_seed=275062208)
    assert not bare_pairs(r.image, np.float32(r.grid_corners), LAYOUT)
    _read_first_frame(r.image, r, most_wrong=1)
