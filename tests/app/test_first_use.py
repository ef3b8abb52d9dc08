"""Issue 22: what a new user meets first: clean errors, the service for every mode, docs
that match the program."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engine.players import KINDS
from seqboard.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_read_of_a_missing_picture_is_one_clean_line(tmp_path):
    # a subprocess: OpenCV writes its warnings to the C library's stderr, past capsys
    done = subprocess.run([sys.executable, "-m", "seqboard", "read", str(tmp_path / "missing.png")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"seqboard: error: {tmp_path / 'missing.png'}: cannot read "
                                        "it as an image: no such file"]


def test_service_runs_stacks_on_the_console(capsys):
    assert main(["service", "print", "--mode", "stacks", "--mode-args", "--players 3",
                 "--user", "pi"]) == 0
    lines = capsys.readouterr().out.splitlines()
    exec_line = next(x for x in lines if x.startswith("ExecStart="))
    assert exec_line.endswith("seqboard stacks --players 3")
    for want in ("StandardInput=tty", "TTYPath=/dev/tty1", "Conflicts=getty@tty1.service",
                 "Restart=on-failure"):
        assert want in lines
    # the other modes keep the journal, not the console
    assert main(["service", "print", "--mode", "referee", "--user", "pi"]) == 0
    assert "StandardInput=tty" not in capsys.readouterr().out


def test_service_mode_args_are_checked(capsys):
    assert main(["service", "print", "--mode", "stacks", "--mode-args", '--players "3']) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--mode-args" in err[0]


def test_readme_names_every_level_that_exists():
    text = (ROOT / "README.md").read_text("utf-8")
    section = text[text.index("## Levels"):]
    section = section[:section.find("\n## ", 5)]
    named = set(re.findall(r"`(\w+)`", section))
    assert set(KINDS) <= named, f"README's levels lack {set(KINDS) - named}"


def test_raspberry_pi_page_is_true_on_bookworm():
    text = (ROOT / "docs" / "raspberry-pi.md").read_text("utf-8")
    assert "example.invalid" not in text and "example.com" not in text
    assert "default pi user is in all three groups" not in text
    assert "no default user" in text
    assert "3.11" in text and "3.13" in text and "numpy<2" in text


def test_the_pi_extra_pins_numpy_only_on_bookworms_python():
    import tomllib
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]["pi"]
    pins = [d for d in extra if d.startswith(("numpy", "opencv"))]
    assert pins and all("python_version < '3.12'" in d for d in pins)
