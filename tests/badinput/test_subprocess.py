"""A few bad inputs the way a user meets them: a real ``seqboard`` process, its exit status
and its output, with a memory limit (a command that reads /dev/zero must not eat the Pi)."""

from __future__ import annotations

import resource
import subprocess
import sys

from .cases import nested, png_header, real_png

MEMORY = 1_500_000_000      # bytes of address space: far above what a refusal needs


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seqboard", *argv], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limit, stdin=subprocess.DEVNULL)


def _one_clean_line(p: subprocess.CompletedProcess, *names: str) -> None:
    assert p.returncode not in (0, None), p
    assert "Traceback" not in p.stderr, p.stderr[-1500:]
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    for n in names:
        assert n in lines[0], lines[0]


def test_config_with_names_nested_500_deep(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[game]\nnames = " + nested(500) + "\n")
    _one_clean_line(run("config", "check", str(cfg)), str(cfg), "game.names")


def test_emulator_on_port_99999():
    _one_clean_line(run("matrix", "emulate", "--tcp", "99999"), "--tcp")


def test_demo_at_speed_1e_minus_300():
    _one_clean_line(run("demo", "--speed", "1e-300", "--no-dashboard"), "--speed")


def test_a_40000_pixel_square_png_is_refused_from_its_header(tmp_path):
    img = tmp_path / "big.png"
    img.write_bytes(png_header(40000, 40000))
    _one_clean_line(run("read", str(img)), str(img), "40000 x 40000")


def test_a_cut_off_png_is_one_line_without_opencv_noise(tmp_path):
    img = tmp_path / "cut.png"
    img.write_bytes(real_png(200, 200)[:300])
    _one_clean_line(run("read", str(img)), str(img), "damaged")


def test_a_one_pixel_image_to_calibrate(tmp_path):
    img = tmp_path / "dot.png"
    img.write_bytes(real_png(1, 1))
    out = tmp_path / "cal.json"
    _one_clean_line(run("calibrate", "--image", str(img), "--out", str(out)), str(img))
    assert not out.exists()


def test_layout_dev_zero_is_refused_not_read(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[game]\nlayout = "/dev/zero"\n')
    p = run("config", "check", str(cfg), timeout=20)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "game.layout" in p.stderr and "/dev/zero" in p.stderr


def test_stacks_deck_dev_zero_is_refused_not_read(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[gpio]\nenabled = false\n")
    _one_clean_line(run("stacks", "--config", str(cfg), "--deck", "/dev/zero", "--no-dashboard"),
                    "/dev/zero")


def test_replay_dev_zero_is_refused_not_read():
    _one_clean_line(run("replay", "/dev/zero", timeout=60), "/dev/zero")
