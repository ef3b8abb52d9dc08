"""Files and numbers from the user, checked before they cost anything.

* :func:`read_capped` reads a regular file of at most ``cap`` bytes (it reads ``cap + 1``
  at most, so ``/dev/zero`` or a 10 GB file costs nothing) and refuses devices and pipes;
* :func:`image_header` reads an image's width and height from its first bytes (PNG, JPEG,
  BMP), and :func:`load_image` decodes a picture only once its size is known to be sane;
* :func:`number` is an argparse type for a finite number within a range.

Every refusal is a :class:`~seqboard.errors.UserError` naming the file or argument.
"""

from __future__ import annotations

import argparse
import math
import os
import stat
import struct
from pathlib import Path

from .errors import UserError

MAX_IMAGE_BYTES = 64 * 1024 * 1024      # a 12 MP PNG is ~36 MB at worst
MAX_IMAGE_PIXELS = 40_000_000           # the Pi HQ camera gives 12.3 MP; 40 MP is generous
MAX_IMAGE_SIDE = 12_000
MIN_IMAGE_SIDE = 64                     # a board in fewer pixels than this cannot be read


def read_capped(path: str | Path, cap: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``cap`` bytes, or UserError naming it."""
    p = Path(path).expanduser()
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise UserError(f"{p}: no such {what}") from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read the {what}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"{p}: not a regular file (a {what} must be a file, not a device, "
                        f"pipe or folder)")
    if st.st_size > cap:
        raise UserError(f"{p}: {st.st_size} bytes; a {what} is at most {cap} bytes")
    try:
        with open(p, "rb") as f:
            data = f.read(cap + 1)
    except OSError as exc:
        raise UserError(f"{p}: cannot read the {what}: {exc.strerror}") from None
    if len(data) > cap:
        raise UserError(f"{p}: more than {cap} bytes; a {what} is at most {cap} bytes")
    return data


def image_header(head: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) from an image's first bytes, or None if not PNG/JPEG/BMP."""
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        if len(head) < 24 or head[12:16] != b"IHDR":
            raise ValueError("a PNG without its IHDR header")
        w, h = struct.unpack(">II", head[16:24])
        return "PNG", w, h
    if head[:2] == b"BM":
        if len(head) < 26:
            raise ValueError("a BMP cut short")
        w, h = struct.unpack("<ii", head[18:26])
        return "BMP", abs(w), abs(h)
    if head[:2] == b"\xff\xd8":
        i, n = 2, len(head)
        while i + 4 <= n:
            if head[i] != 0xFF:
                raise ValueError(f"a damaged JPEG (byte {i})")
            marker = head[i + 1]
            if marker == 0xFF:
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            (length,) = struct.unpack(">H", head[i + 2:i + 4])
            if length < 2:
                raise ValueError(f"a damaged JPEG (segment length {length} at byte {i})")
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD,
                          0xCE, 0xCF):
                if i + 9 > n:
                    break
                h, w = struct.unpack(">HH", head[i + 5:i + 9])
                return "JPEG", w, h
            i += 2 + length
        raise ValueError("a JPEG whose size could not be found")
    return None


def _quiet_opencv(cv2) -> None:
    """OpenCV writes its own warnings about a damaged file straight to the terminal; the
    one line of ours says it already."""
    try:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except AttributeError:
        try:
            cv2.setLogLevel(2)
        except AttributeError:
            pass


def load_image(path: str | Path, what: str = "image"):
    """A BGR image decoded only after its header says it is a sane size; UserError else."""
    import cv2
    import numpy as np
    p = Path(path).expanduser()
    if not p.exists():
        raise UserError(f"{p}: cannot read it as an image: no such file")
    data = read_capped(p, MAX_IMAGE_BYTES, what)
    try:
        head = image_header(data)
    except (ValueError, struct.error) as exc:
        raise UserError(f"{p}: cannot read it as an image: {exc}") from None
    if head is None:
        raise UserError(f"{p}: not a PNG, JPEG or BMP image")
    fmt, w, h = head
    if w > MAX_IMAGE_SIDE or h > MAX_IMAGE_SIDE or w * h > MAX_IMAGE_PIXELS:
        raise UserError(f"{p}: a {w} x {h} {fmt}; at most {MAX_IMAGE_SIDE} pixels a side and "
                        f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels are read")
    if w < MIN_IMAGE_SIDE or h < MIN_IMAGE_SIDE:
        raise UserError(f"{p}: a {w} x {h} {fmt}; too small to show a board (at least "
                        f"{MIN_IMAGE_SIDE} x {MIN_IMAGE_SIDE} pixels)")
    _quiet_opencv(cv2)
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise UserError(f"{p}: cannot read it as an image (the {fmt} data is damaged)")
    if img.shape[1] != w or img.shape[0] != h:
        raise UserError(f"{p}: the {fmt} header says {w} x {h}, the picture is "
                        f"{img.shape[1]} x {img.shape[0]}")
    return img


def number(lo: float, hi: float, kind=float, lo_open: bool = False):
    """An argparse type: a finite ``kind`` (int or float) from ``lo`` to ``hi``."""
    def parse(text: str):
        try:
            v = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(
                f"expected {'a whole number' if kind is int else 'a number'}, got {text!r}") from None
        if isinstance(v, float) and not math.isfinite(v) or v < lo or v > hi or lo_open and v == lo:
            lower = f"above {lo:g}" if lo_open else f"from {lo:g}"
            raise argparse.ArgumentTypeError(f"expected a number {lower} to {hi:g}, got {text!r}")
        return v
    parse.__name__ = "number"
    return parse
