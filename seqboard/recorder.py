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


class RecordsLock:
    """One run of a mode (``referee``, ``play``, ``demo``) per records folder at a time.

    Two runs sharing a folder spoil each other's games (``--new`` closes the other run's
    unfinished game, the page's "resume" takes it over), so the second one is refused before
    it reads or writes a record. The lock is ``DIR/.seqboard-MODE.lock``, locked with
    ``flock`` (the kernel lets go when the process ends, however it ends) and holding the
    pid, the command and the time it started: a lock left by a dead process is simply taken
    over. Where the file system has no ``flock``, the pid in the file decides: a lock whose
    process no longer runs is taken over.
    """

    def __init__(self, directory: Path, mode: str) -> None:
        self.directory = Path(directory)
        self.mode = mode
        self.path = self.directory / f".seqboard-{mode}.lock"
        self._fd: int | None = None

    def __enter__(self) -> "RecordsLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def _other(self) -> str:
        """Who holds the lock, from its file: "pid 1234, `seqboard referee`, since ..."."""
        try:
            text = self.path.read_text("utf-8", errors="replace")
        except OSError:
            return "another process"
        info = dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln)
        who = f"pid {info.get('pid', '?')}"
        if info.get("command"):
            who += f": `{info['command']}`"
        if info.get("started"):
            who += f", since {info['started']}"
        return who

    def _refuse(self) -> None:
        raise UserError(f"{self.directory}: the records folder is in use by another "
                        f"`seqboard {self.mode}` ({self._other()}); stop that one first, or give "
                        f"this one another folder with --records DIR")

    def acquire(self) -> None:
        import errno
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"{self.path}: cannot create the records folder's lock: "
                            f"{exc.strerror}") from None
        try:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:
            self._by_pid(fd)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                self._refuse()
            self._by_pid(fd)                  # no flock here (some network file systems)
        self._fd = fd
        import shlex
        import sys
        argv = sys.argv[1:]
        command = "seqboard " + (shlex.join(argv) if argv[:1] == [self.mode] else self.mode)
        text = (f"pid={os.getpid()}\ncommand={command[:200]}\n"
                f"started={time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode("utf-8", "replace"), 0)

    def _by_pid(self, fd: int) -> None:
        """No flock: refuse while the pid in the file is a live process other than this."""
        try:
            text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
            pid = int(dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln)["pid"])
        except (OSError, KeyError, ValueError):
            return
        if pid == os.getpid():
            return
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return                            # a stale lock: its process is gone
        except PermissionError:
            pass                              # alive, another user's
        os.close(fd)
        self._refuse()

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)         # no pid left behind to mislead anyone
        except OSError:
            pass
        os.close(self._fd)                    # closing lets go of the flock
        self._fd = None
