"""python -m tools.tuning: tunes the evaluation's weights and writes a weights file the
search players load."""

import json

import pytest

from engine import search
from tools import tuning
from tools.fitting import OUT


def test_one_iteration_moves_the_weights_that_can_change_a_choice(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert tuning.main(["--iterations", "1", "--games", "2", "--jobs", "1", "--seed", "500",
                        "--out", str(out)]) == 0
    before = json.loads(OUT.read_text("utf-8"))
    after = json.loads(out.read_text("utf-8"))
    assert after["tuned"] == {"iterations": 1, "games_per_side": 2, "first_seed": 500}
    assert set(after["weights"]) == set(before["weights"])
    moved = {n for n in before["weights"] if after["weights"][n] != before["weights"][n]}
    printed = capsys.readouterr()
    assert "wrote" in printed.out
    line = next(x for x in printed.err.splitlines() if x.startswith("iteration 1/1"))
    up, down = (float(w.split()[0]) for w in line.split("won ")[1].split(", "))
    # the weights move only when the two sides won differently, and then every weight
    # whose feature varies between moves; the other side's jacks never do, and stay
    assert bool(moved) == (up != down)
    assert "other_wilds" not in moved
    assert len(search.weights_from(out.read_text("utf-8"))) == len(before["weights"]) + 1


def test_a_broken_start_file_is_named_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        tuning.main(["--start", str(bad), "--out", str(tmp_path / "w.json")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert str(bad) in err and "not a weights file" in err
    assert not (tmp_path / "w.json").exists()
