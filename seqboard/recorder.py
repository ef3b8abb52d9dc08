"""Game records on disk: written line by line, flushed and synced, found again after a crash."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.record import dumps

from .errors import UserError


class RecordWriter:
    """Appends record entries to a file; each line is on disk before ``write`` returns.

    Pulling the power loses at most the line being written; a cut-off last line is cut away
    when the record is opened again to resume.
    """

    def __init__(self, path: Path, *, resume: bool = False) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if resume:
                _truncate_partial_line(self.path)
            self._f = open(self.path, "a", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{self.path}: cannot write the game record: {exc.strerror}") from None

    def write(self, entry: dict) -> None:
        self.write_group([entry])

    def write_group(self, entries: list[dict]) -> None:
        """Write entries that belong together (observation, verdict, move) with one sync."""
        self._f.write("".join(dumps(e) + "\n" for e in entries))
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()


def _truncate_partial_line(path: Path) -> None:
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(keep)


def new_record_path(directory: Path, mode: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"{stamp}-{mode}.jsonl"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{stamp}-{mode}-{n}.jsonl"
    return path


def unfinished_record(directory: Path, mode: str | None = None,
                      besides: Path | None = None) -> Path | None:
    """The newest record in ``directory`` that has no end line (a game to resume), other
    than ``besides`` (the game being played)."""
    if not directory.is_dir():
        return None
    import stat

    def mtime(p: Path) -> float:
        try:
            return p.stat().st_mtime
        except OSError:
            return 0.0
    for path in sorted(directory.glob("*.jsonl"), key=mtime, reverse=True):
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                continue            # a device or a pipe named like a record is no record
            with open(path, "rb") as f:
                head = f.read(65536)
                f.seek(max(0, st.st_size - 8192))
                tail = f.read(8192)
        except OSError:
            continue
        first = next((ln for ln in head.decode("utf-8", "replace").split("\n") if ln.strip()), "")
        lines = [ln for ln in tail.decode("utf-8", "replace").split("\n") if ln.strip()]
        if not first or not lines:
            continue
        if mode is not None and f'"mode":"{mode}"' not in first:
            continue
        if any(ln.startswith('{"type":"end"') for ln in lines[-3:]):
            continue
        if besides is not None and path.resolve() == Path(besides).resolve():
            continue
        return path
    return None


def unresumable_records(directory: Path, mode: str | None = None) -> list[tuple[Path, str]]:
    """Records of unfinished games of ``mode`` that cannot be resumed, each with why: a
    record is one JSON entry per line, and a file whose first line is not one (a record
    pretty-printed by an editor or a tool) is not one the writer can append to."""
    import json
    import re
    import stat
    out: list[tuple[Path, str]] = []
    if not directory.is_dir():
        return out
    want = re.compile(r'"mode"\s*:\s*"%s"' % re.escape(mode)) if mode else None
    for path in sorted(directory.glob("*.jsonl")):
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                continue
            with open(path, "rb") as f:
                head = f.read(65536)
                f.seek(max(0, st.st_size - 4096))
                tail = f.read(4096)
        except OSError:
            continue
        text = head.decode("utf-8", "replace")
        first = next((ln for ln in text.split("\n") if ln.strip()), "")
        try:
            json.loads(first)
            continue                    # one entry per line: resumable or judged elsewhere
        except (ValueError, RecursionError):
            pass
        if not re.search(r'"type"\s*:\s*"setup"', text) or want and not want.search(text):
            continue
        if re.search(rb'"type"\s*:\s*"end"', tail):
            continue                    # a finished game: nothing to resume
        out.append((path, "it is not one JSON entry per line (pretty-printed?), so the game "
                          "cannot be resumed from it; `seqboard replay` checks it"))
    return out


def trim_incomplete_tail(path: Path) -> int:
    """Cut a cut-off last line and an observation group left without its end; return lines cut.

    An observation is followed by its verdict, and a legal move's verdict by its move line;
    a power cut between them leaves a group that replay cannot trust, so it is removed and
    the board is read again.
    """
    import json
    _truncate_partial_line(path)
    lines = path.read_text("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cut = 0
    while lines:
        try:
            last = json.loads(lines[-1])
        except ValueError:
            break
        t = last.get("type")
        if t == "observation" or (t == "verdict" and last.get("kind") in ("placement", "removal")):
            lines.pop()
            cut += 1
            continue
        if t == "verdict" and len(lines) >= 2 and '"type":"observation"' in lines[-2]:
            break
        break
    if cut:
        path.write_text("".join(ln + "\n" for ln in lines), "utf-8")
    return cut
