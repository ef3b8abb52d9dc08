"""Waiting for something that happens on another thread (a link, a server, a browser)."""

from __future__ import annotations

import time


def wait_until(cond, timeout: float = 5.0, step=None, ignore: tuple = ()) -> bool:
    """True as soon as ``cond()`` is; ``step()`` runs before each try (a test's main loop);
    exceptions of the types in ``ignore`` count as not yet."""
    end = time.monotonic() + timeout
    while True:
        if step:
            step()
        try:
            if cond():
                return True
        except ignore:
            pass
        if time.monotonic() >= end:
            return False
        time.sleep(0.01)
