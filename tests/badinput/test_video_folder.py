"""Review attack: a folder of frames given as ``camera.device`` read every file with
``cv2.imread``: a pipe named like a frame hung the run, a 1 x 1 frame ended it with an
OpenCV traceback, a picture bomb would be decoded whole. Each bad frame is now skipped,
named in the end-of-file summary, and its time passes like any frame's."""

from __future__ import annotations

import os
import struct
import zlib

import cv2
import numpy as np

from vision.sources import FolderSource


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)))


def test_bad_frames_in_a_folder_are_skipped_and_named(tmp_path):
    good = np.full((120, 160, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "0001.png"), good)
    os.mkfifo(tmp_path / "0002.png")                               # would block imread
    cv2.imwrite(str(tmp_path / "0003.png"), np.zeros((1, 1, 3), np.uint8))   # too small
    (tmp_path / "0004.png").write_bytes(_png_header(40000, 40000))  # a picture bomb
    (tmp_path / "0005.jpg").write_text("not a picture")
    (tmp_path / "0006.png").symlink_to(tmp_path / "0006.png")      # a link to itself
    cv2.imwrite(str(tmp_path / "0007.png"), good)
    src = FolderSource(tmp_path, fps=10.0, speed=0)
    first = src.read()
    assert first is not None and src.frame_no == 0
    second = src.read()
    assert second is not None
    assert src.frame_no == 6 and abs(src.t - 0.6) < 1e-9        # the skipped frames' time passed
    assert src.read() is None and src.finished
    why = dict(src.skipped)
    assert list(why) == ["0002.png", "0003.png", "0004.png", "0005.jpg", "0006.png"]
    assert "not a regular file" in why["0002.png"]
    assert "too small" in why["0003.png"]
    assert "40000 x 40000" in why["0004.png"]
    assert "cannot read" in why["0006.png"]


def test_a_folder_with_no_readable_frame_is_an_error_naming_the_first(tmp_path):
    import json

    from .cases import run_cli, valid_calibration
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "0001.png").write_text("not a picture")
    (tmp_path / "cal.json").write_text(json.dumps(valid_calibration()))
    (tmp_path / "c.toml").write_text(
        f'[camera]\ndevice = "{frames}"\nfps = 5\ncalibration = "{tmp_path / "cal.json"}"\n'
        '[dashboard]\nenabled = false\n[gpio]\nenabled = false\n')
    res = run_cli(["referee", "--config", str(tmp_path / "c.toml"), "--records",
                   str(tmp_path / "rec"), "--new", "--speed", "0"])
    assert res.code == 2, res.err
    assert "Traceback" not in res.err
    last = res.err.strip().splitlines()[-1]
    assert "no frame of" in last and "0001.png" in last
