"""What keeps a stranger on the network from wearing the dashboard (and the game) down.

uvicorn has settings for part of it (keep-alive timeout, header size, WebSocket ping and
message size); what it lacks is here:

* :class:`ConnectionGuard` with :func:`protocols`: every HTTP request must arrive whole
  (headers and body) within ``request_timeout`` seconds (up to half again, jittered) of the connection opening or of the
  previous answer, or the connection gets a 408 and is closed; HTTP connections and
  WebSockets are capped in number, in all and per client address. A new connection over a
  cap takes the place of the oldest one still waiting for its request (a slow or idle one),
  so a flood cannot keep the owner's next page load out; a new WebSocket over the cap takes
  the place of the oldest WebSocket of the client holding the most.
* :class:`HighFdSocket`: accepted connections are moved to file descriptors >= 1024, so a
  flood never takes the low numbers that ``select()`` users (pyserial's board link) need.
* :func:`raise_open_files`: the soft RLIMIT_NOFILE raised within the hard one.
* :class:`PinGuard`: wrong PINs limited per client address, with a growing lockout.
* :func:`loads_limited`: JSON with a depth limit checked before parsing (no RecursionError).
* :class:`QuietLog`: repeated log lines (accept errors, bad requests) once a minute, and
  never a traceback, for records from the dashboard's thread.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import random
import re
import socket
import time
from collections import OrderedDict
from typing import Any

LOW_FDS = 1024                 # FD_SETSIZE: select() cannot watch a descriptor at or above it
RESERVE_FDS = 128              # kept free for the rest of the process besides the low ones


def client_key(host: str | None) -> str:
    """The client a limit counts against: the IPv4 address, or the IPv6 /64 (one machine
    can hold a whole /64 of addresses)."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if ip.is_loopback:
            return str(ip)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


#: Name endings that only a local network resolves (mDNS, home routers): a public DNS name,
#: which anyone can point at the Pi's address, is not among them.
LOCAL_SUFFIXES = (".local", ".lan", ".home", ".home.arpa", ".internal", ".localdomain",
                  ".localhost", ".intranet", ".private", ".corp", ".fritz.box")


def local_host(host_header: str | None, own_names: tuple[str, ...] = ()) -> bool:
    """Whether a request's ``Host`` names the Pi as only the local network can: an IP
    address, ``localhost``, a one-word name (``raspberrypi``), a name under a local-only
    ending (``seqboard.local``) or one of ``own_names`` (the machine's own names). A public
    name (``evil.example``) is refused: a page there could re-point its name at the Pi
    (DNS rebinding) and would then pass the same-origin check as the page itself."""
    if host_header is None:
        return True                       # HTTP/1.0 with no Host: not a browser
    h = host_header.strip().lower()
    if h.startswith("["):                 # [v6]:port
        h = h[1:h.find("]")] if "]" in h else h[1:]
    elif h.count(":") == 1:
        h = h.split(":", 1)[0]
    h = h.rstrip(".")
    try:
        ipaddress.ip_address(h)
        return True
    except ValueError:
        pass
    if not h:
        return False
    if h == "localhost" or "." not in h or h.endswith(LOCAL_SUFFIXES):
        return True
    return h in own_names


# --- open files ------------------------------------------------------------------------------
def raise_open_files(want: int = 8192) -> tuple[int, int]:
    """Raise the soft open-files limit to ``want`` (within the hard limit); (soft, hard)."""
    try:
        import resource
    except ImportError:                       # not on a POSIX system
        return (want, want)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    inf = resource.RLIM_INFINITY
    target = want if hard == inf else min(want, hard)
    if soft != inf and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return (soft, hard)


def _dup_high(fd: int) -> int | None:
    import fcntl
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, LOW_FDS)
    except OSError:
        return None


class HighFdSocket(socket.socket):
    """A listening socket whose accepted connections live at descriptors >= 1024.

    A connection that cannot get a high descriptor is closed at once (counted in
    ``no_fd``): the low ones stay for the board link, the records and the camera."""

    high = True
    no_fd = 0

    def accept(self):
        conn, addr = super().accept()
        if not self.high or conn.fileno() >= LOW_FDS:
            return conn, addr
        fd = _dup_high(conn.fileno())
        if fd is None:
            conn.close()
            type(self).no_fd += 1
            # asyncio treats this like an empty accept queue and waits for the next one
            raise ConnectionAbortedError("no descriptor above 1024 for this connection")
        new = socket.socket(conn.family, conn.type, conn.proto, fileno=fd)
        conn.close()                          # the low descriptor is free again
        return new, addr


# --- connection caps and timeouts ------------------------------------------------------------
def _raw_response(status: int, reason: str, text: str) -> bytes:
    body = json.dumps({"error": text}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


REFUSED = _raw_response(503, "Service Unavailable", "too many connections: try again")
TIMED_OUT = _raw_response(408, "Request Timeout", "the request did not arrive in time")
HEAD_TOO_BIG = _raw_response(431, "Request Header Fields Too Large", "request headers over 8 KiB")
MAX_HEAD = 8192


class ConnectionGuard:
    """Counts, caps and times out the server's connections (used from its event loop only)."""

    def __init__(self, *, http_cap: int = 4096, ws_cap: int = 256, http_per_client: int = 64,
                 ws_per_client: int = 16, request_timeout: float = 10.0,
                 proxies: tuple[str, ...] = ("127.0.0.1", "::1")) -> None:
        self.http_cap, self.ws_cap = http_cap, ws_cap
        self.http_per_client, self.ws_per_client = http_per_client, ws_per_client
        self.request_timeout = request_timeout
        # a reverse proxy on the Pi itself (TLS) carries every browser: no per-client caps
        # for it (the caps in all still hold); uvicorn trusts its X-Forwarded-For
        self.proxies = frozenset(proxies)
        self.http: dict[Any, str] = {}                       # protocol -> client key
        self.pending: OrderedDict[Any, None] = OrderedDict()  # waiting for a whole request
        self.pending_by: dict[str, OrderedDict] = {}
        self.http_by: dict[str, int] = {}
        self.ws: dict[Any, str] = {}
        self.ws_by: dict[str, OrderedDict] = {}
        self.refused = self.evicted = self.timed_out = 0

    # HTTP ------------------------------------------------------------------------------------
    def admit_http(self, proto, key: str) -> bool:
        if key not in self.proxies and self.http_by.get(key, 0) >= self.http_per_client:
            mine = self.pending_by.get(key)
            if not mine:
                self.refused += 1
                return False
            self.evict(next(iter(mine)))
        if len(self.http) >= self.http_cap:
            if not self.pending:
                self.refused += 1
                return False
            self.evict(next(iter(self.pending)))
        self.http[proto] = key
        self.http_by[key] = self.http_by.get(key, 0) + 1
        return True

    def waiting(self, proto) -> None:
        """``proto`` waits for a (next) request: it may be evicted, oldest first."""
        key = self.http.get(proto)
        if key is None:
            return
        self.pending[proto] = None
        self.pending.move_to_end(proto)
        self.pending_by.setdefault(key, OrderedDict())[proto] = None
        self.pending_by[key].move_to_end(proto)

    def busy(self, proto) -> None:
        """``proto`` has its whole request and is being answered."""
        self.pending.pop(proto, None)
        key = self.http.get(proto)
        if key is not None:
            mine = self.pending_by.get(key)
            if mine is not None:
                mine.pop(proto, None)
                if not mine:
                    del self.pending_by[key]

    def release_http(self, proto) -> None:
        self.busy(proto)
        key = self.http.pop(proto, None)
        if key is not None:
            n = self.http_by.get(key, 1) - 1
            if n > 0:
                self.http_by[key] = n
            else:
                self.http_by.pop(key, None)

    def evict(self, proto) -> None:
        self.evicted += 1
        self.release_http(proto)
        try:
            proto.transport.abort()
        except Exception:                          # already gone
            pass

    # WebSockets ------------------------------------------------------------------------------
    def admit_ws(self, proto, key: str) -> None:
        mine = self.ws_by.get(key)
        if mine and len(mine) >= self.ws_per_client and key not in self.proxies:
            self.drop_ws(next(iter(mine)))
        if len(self.ws) >= self.ws_cap and self.ws_by:
            heaviest = max(self.ws_by.values(), key=len)
            self.drop_ws(next(iter(heaviest)))
        self.ws[proto] = key
        self.ws_by.setdefault(key, OrderedDict())[proto] = None

    def release_ws(self, proto) -> None:
        key = self.ws.pop(proto, None)
        if key is None:
            return
        mine = self.ws_by.get(key)
        if mine is not None:
            mine.pop(proto, None)
            if not mine:
                del self.ws_by[key]

    def drop_ws(self, proto) -> None:
        self.evicted += 1
        self.release_ws(proto)
        try:
            proto.transport.abort()
        except Exception:
            pass

    def figures(self) -> dict:
        return {"http": len(self.http), "pending": len(self.pending), "websockets": len(self.ws),
                "refused": self.refused, "evicted": self.evicted, "timed_out": self.timed_out}


def protocols(guard: ConnectionGuard):
    """uvicorn protocol classes (HTTP/1.1 on h11, WebSocket on websockets' sans-I/O) that
    report to ``guard``: pass them as ``uvicorn.Config(http=..., ws=...)``."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    waiting_states = (h11.IDLE, h11.SEND_BODY)

    class GuardedH11(H11Protocol):
        _deadline = None
        _admitted = False

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._key = client_key(self.client[0] if self.client else None)
            if not guard.admit_http(self, self._key):
                transport.write(REFUSED)
                transport.close()
                return
            self._admitted = True
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._head = 0
            # jittered, so a flood opened at once does not expire in one burst
            delay = guard.request_timeout * (1.0 + 0.5 * random.random())
            self._deadline = self.loop.call_later(delay, self._expire)
            guard.waiting(self)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            if self.conn.their_state not in waiting_states:
                guard.busy(self)
                return
            guard.timed_out += 1
            guard.release_http(self)
            cycle = self.cycle
            if cycle is None or cycle.response_complete or not cycle.response_started:
                self.transport.write(TIMED_OUT)
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True          # the app's read ends; its answer is dropped
                cycle.message_event.set()
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if not self._admitted:
                return
            if self.conn.their_state is h11.IDLE:
                # h11 only limits a head that arrives in pieces; this one, however it comes
                end = data.find(b"\r\n\r\n")
                seen = getattr(self, "_head", 0)
                self._head = seen + len(data)
                if seen + (len(data) if end < 0 else end) > MAX_HEAD:
                    self._disarm()
                    guard.release_http(self)
                    self.transport.write(HEAD_TOO_BIG)
                    self.transport.close()
                    return
            super().data_received(data)
            if self.transport.get_protocol() is self and \
                    self.conn.their_state not in waiting_states:
                self._disarm()
                guard.busy(self)

        def handle_websocket_upgrade(self, event) -> None:
            self._disarm()
            guard.release_http(self)
            super().handle_websocket_upgrade(event)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.transport.get_protocol() is self \
                    and self._admitted:
                self._arm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            guard.release_http(self)
            super().connection_lost(exc)

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            guard.admit_ws(self, client_key(self.client[0] if self.client else None))

        def handle_connect(self, event) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:
                # the dashboard writes states it frames once straight to this connection
                scope["seqboard.websocket"] = self

        def connection_lost(self, exc) -> None:
            guard.release_ws(self)
            super().connection_lost(exc)

    return GuardedH11, GuardedWebSocket


# --- PIN attempts ----------------------------------------------------------------------------
class PinGuard:
    """Wrong PINs counted per client: ``tries`` wrong ones lock that client (and no other)
    for ``lock`` seconds, doubled at each further lockout up to ``max_lock``; a right PIN
    or an hour without a wrong one forgets the client."""

    def __init__(self, tries: int = 5, lock: float = 30.0, max_lock: float = 900.0,
                 clock=time.monotonic, size: int = 10000) -> None:
        self.tries, self.lock, self.max_lock = tries, lock, max_lock
        self.clock = clock
        self.size = size
        self._c: OrderedDict[str, list] = OrderedDict()   # key -> [wrong, lockouts, until, last]

    def wait(self, key: str) -> float:
        """Seconds ``key`` must wait before trying a PIN (0: it may try now)."""
        e = self._c.get(key)
        if e is None:
            return 0.0
        now = self.clock()
        if now - e[3] > 3600 and now >= e[2]:
            del self._c[key]
            return 0.0
        return max(0.0, e[2] - now)

    def failed(self, key: str) -> float:
        """Count a wrong PIN; the lockout it starts (0 when none)."""
        now = self.clock()
        e = self._c.pop(key, None) or [0, 0, 0.0, now]
        e[0] += 1
        e[3] = now
        locked = 0.0
        if e[0] >= self.tries:
            locked = min(self.max_lock, self.lock * (2 ** e[1]))
            e[0], e[1], e[2] = 0, e[1] + 1, now + locked
        self._c[key] = e
        while len(self._c) > self.size:          # forget the least recent unlocked clients
            for k, v in self._c.items():
                if v[2] <= now:
                    del self._c[k]
                    break
            else:
                self._c.popitem(last=False)
        return locked

    def succeeded(self, key: str) -> None:
        self._c.pop(key, None)


# --- JSON ------------------------------------------------------------------------------------
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


class JSONLimitError(ValueError):
    pass


def loads_limited(text: str | bytes, max_depth: int = 16) -> Any:
    """``json.loads`` that first refuses nesting deeper than ``max_depth`` (JSONLimitError),
    so no input can reach the parser's recursion limit. ValueError for what is not JSON."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("not UTF-8") from None
    depth = 0
    for ch in _STRINGS.sub("", text):
        if ch == "[" or ch == "{":
            depth += 1
            if depth > max_depth:
                raise JSONLimitError(f"JSON nested deeper than {max_depth} levels")
        elif ch == "]" or ch == "}":
            depth -= 1
    try:
        return json.loads(text)
    except RecursionError:                   # unreachable after the count; kept as a backstop
        raise JSONLimitError(f"JSON nested deeper than {max_depth} levels") from None


# --- logs ------------------------------------------------------------------------------------
class QuietLog(logging.Filter):
    """For records from one thread: a traceback becomes one line, and a message repeated
    within ``every`` seconds is held back and counted (said with the next one let through)."""

    def __init__(self, thread: str, every: float = 60.0, clock=time.monotonic) -> None:
        super().__init__()
        self.thread, self.every, self.clock = thread, every, clock
        self._seen: dict[str, list] = {}          # template -> [last said, held back]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.threadName != self.thread:
            return True
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            record.msg = f"{record.getMessage().strip()}: {type(exc).__name__}: {exc}"[:500]
            record.args = None
            record.exc_info = None
            record.exc_text = None
        key = record.getMessage()[:80]
        now = self.clock()
        seen = self._seen.get(key)
        if seen is not None and now - seen[0] < self.every:
            seen[1] += 1
            return False
        held = seen[1] if seen else 0
        self._seen[key] = [now, 0]
        if len(self._seen) > 1000:
            self._seen.clear()
        if held:
            record.msg = f"{record.getMessage()} (and {held} more like it in the last minute)"
            record.args = None
        return True
