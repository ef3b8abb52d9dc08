"""A long search's steps on the terminal, once it has gone on long enough to be noticed."""

from __future__ import annotations

import sys
import time


class SlowSteps:
    """``steps(text)`` for each step of a job: nothing while the job is quick (under
    ``after`` seconds); then each step on ``stream``, prefixed, on one line rewritten in
    place. Only on a terminal: a log or a pipe gets the result and the one-line error alone.
    ``close()`` ends the line."""

    def __init__(self, prefix: str, stream=None, after: float = 2.0, clock=time.monotonic):
        self.prefix = prefix
        self.stream = stream if stream is not None else sys.stderr
        self.after = after
        self.clock = clock
        self.t0 = clock()
        self.shown = 0
        self._width = 0
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False

    def __call__(self, text: str) -> None:
        if not self.tty or self.clock() - self.t0 < self.after:
            return
        line = f"{self.prefix}: {text} ..."
        self.stream.write("\r" + line.ljust(self._width))
        self._width = len(line)
        self.stream.flush()
        self.shown += 1

    def close(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()
