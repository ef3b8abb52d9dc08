"""python -m tools.spaces_dev: development sets of tuned looks for the space classifier,
stored once and replayed through model files and the calibrated rule."""

from __future__ import annotations

import json

import numpy as np

from tools.spaces_dev import main
from vision.spacenet import MODEL_PATH, VETO_PATH


def test_a_stored_set_replays_through_the_shipped_model_and_the_rule(tmp_path, capsys):
    out = tmp_path / "dev.npz"
    assert main(["make", str(out), "--seed", "9", "--scenes", "1", "--frames", "3"]) == 0
    with np.load(out) as d:
        assert d["x"].shape == (3, 100, 3, 16, 16) and d["truth"].shape == (3, 100)
        assert "tuned" not in d["looks"][0] and "art=" in d["looks"][0]
    capsys.readouterr()
    assert main(["compare", str(out), "--model", str(MODEL_PATH), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["how"] for r in rows] == ["argmax", "rule"]
    rule = rows[1]
    # a tuned look with a hand in one frame of three: nearly every space read, none
    # under the hand read as a chip
    assert rule["right"] > 0.95 and rule["under_hands"] == 0, rule
    # the veto model on top: it can only make readings unknown, never add a wrong one;
    # a bar above 1 takes every chip and white back
    assert main(["compare", str(out), "--model", str(MODEL_PATH), "--veto", str(VETO_PATH),
                 "--veto-bar", "0.3,1.01", "--veto-below", "1.01", "--json"]) == 0
    rows = {r["how"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(rows) == {"argmax", "rule", "veto-argmax", "rule+veto@0.3", "rule+veto@1.01"}
    assert rows["rule+veto@0.3"]["wrong"] <= rows["rule"]["wrong"]
    assert rows["rule+veto@1.01"]["wrong"] <= rows["rule+veto@0.3"]["wrong"]
    assert rows["rule+veto@0.3"]["asked_a_frame"] > 5
    assert rows["rule+veto@1.01"]["right"] < 0.9 < rows["rule+veto@0.3"]["right"]


def test_a_shifted_set_and_the_board_own_chips_pass_replay(tmp_path, capsys):
    # session eight's third split: the same scenes through changes the renderer never
    # draws; and the prototypes pass replayed after the rule
    plain, shifted = tmp_path / "plain.npz", tmp_path / "shifted.npz"
    for out, extra in ((plain, []), (shifted, ["--shift"])):
        assert main(["make", str(out), "--seed", "9", "--scenes", "1", "--frames", "3",
                     *extra]) == 0
    with np.load(plain) as a, np.load(shifted) as b:
        assert (a["truth"] == b["truth"]).all()            # the same boards ...
        assert np.abs(a["x"].astype(int) - b["x"]).mean() > 2   # ... seen otherwise
    capsys.readouterr()
    assert main(["compare", str(shifted), "--model", str(MODEL_PATH), "--json",
                 "--prototypes", "3,0.5,0;3,0.5,10"]) == 0
    rows = {r["how"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(rows) == {"argmax", "rule", "rule+protos@3,0.5,0", "rule+protos@3,0.5,10"}
    assert rows["rule+protos@3,0.5,0"]["under_hands"] == 0
    assert main(["compare", str(shifted), "--model", str(MODEL_PATH), "--prototypes",
                 "3,0.5"]) == 2
    assert "--prototypes" in capsys.readouterr().err


def test_a_set_through_other_changes_holds_the_same_boards_seen_otherwise(tmp_path, capsys):
    # session nine's fourth split: the same scenes through changes of other kinds (white
    # balance drifting across the picture, an off-centre vignette, chromatic aberration,
    # banding, shake, over-sharpening, coarse quantisation), none the training makes
    plain, other = tmp_path / "plain.npz", tmp_path / "other.npz"
    for out, extra in ((plain, []), (other, ["--other"])):
        assert main(["make", str(out), "--seed", "9", "--scenes", "1", "--frames", "3",
                     *extra]) == 0
    with np.load(plain) as a, np.load(other) as b:
        assert (a["truth"] == b["truth"]).all()
        assert np.abs(a["x"].astype(int) - b["x"]).mean() > 2
    assert "+ other" in capsys.readouterr().err       # what each scene went through
    assert main(["compare", str(other), "--model", str(MODEL_PATH), "--json"]) == 0
    rows = {r["how"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["rule"]["under_hands"] == 0


def test_a_file_that_is_not_a_set_or_a_bad_rule_is_one_line(tmp_path, capsys):
    bad = tmp_path / "notaset.npz"
    np.savez(bad, a=np.zeros(3))
    assert main(["compare", str(bad), "--model", str(MODEL_PATH)]) == 2
    err = capsys.readouterr().err.strip()
    assert "notaset.npz" in err and "\n" not in err
    assert main(["compare", str(tmp_path / "missing.npz"), "--model", str(MODEL_PATH)]) == 2
    err = capsys.readouterr().err.strip()
    assert "missing.npz" in err and "\n" not in err
    assert main(["compare", str(bad), "--model", str(MODEL_PATH), "--rule", "0.9,x"]) == 2
    assert "--rule" in capsys.readouterr().err
    assert main(["compare", str(bad), "--model", str(MODEL_PATH), "--veto-bar", "a"]) == 2
    assert "--veto-bar" in capsys.readouterr().err


def test_why_counts_each_space_lost_on_a_bare_board_by_the_pass_that_lost_it(tmp_path,
                                                                            capsys):
    # session ten: every space left unknown or read wrong on the frames without a hand,
    # with the pass that left it unknown; the frames it names are those compare counts as
    # not entirely right (after the board's-own-chips pass, as the reader)
    from vision.classify import WHY
    out, dump = tmp_path / "shifted.npz", tmp_path / "why.jsonl"
    assert main(["make", str(out), "--seed", "21", "--scenes", "1", "--frames", "6",
                 "--photometric", "0.5", "--shift"]) == 0
    capsys.readouterr()
    assert main(["why", str(out), "--dump", str(dump)]) == 0
    text = capsys.readouterr().out
    assert "4 frames without a hand" in text
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert rows, "a shifted scene loses some spaces"
    for r in rows:
        if r["read"] == "?":
            assert r["cause"] in WHY + ("prototypes' doubt",), r
        else:
            assert r["cause"] == "" and r["read"] != r["truth"], r
    assert main(["compare", str(out), "--model", str(MODEL_PATH), "--json",
                 "--prototypes", "3,0.5,10"]) == 0
    compared = {r["how"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    lost = len({r["frame"] for r in rows})
    assert compared["rule+protos@3,0.5,10"]["boards"] == round(1 - lost / 4, 3)
    assert f"{lost} not entirely right" in text
    assert main(["why", str(out), "--prototypes", "3,x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--prototypes" in err and "\n" not in err
    assert main(["why", str(out), "--dump", str(tmp_path / "no" / "why.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--dump" in err and "\n" not in err
