"""Free loopback ports for servers a test starts in another process.

A port taken with bind(("127.0.0.1", 0)) comes from the kernel's ephemeral range, the
same range every outgoing connection (a client to the broker, a page fetch) is given its
local port from. Between the test closing its probe socket and the server binding the
port, any connection on the machine can take it ("Address already in use", seen in CI).
A port below that range is never handed out by the kernel, so only another test picking
the same one at random could clash, and each pick is checked free before it is returned.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_rng = random.SystemRandom()
_given: set[int] = set()


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A loopback port free now and below the kernel's ephemeral range."""
    high = min(_ephemeral_low(), 65536) - 1
    low = 20000 if high > 21000 else 1024
    for _ in range(200):
        port = _rng.randint(low, high)
        if port in _given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise RuntimeError(f"no free loopback port between {low} and {high}")
