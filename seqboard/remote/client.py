"""The MQTT link to the broker (paho-mqtt 2, MQTT 5), as the rest of seqboard sees it.

paho runs its network thread (with reconnection); messages arriving there are only queued,
and the main loop takes them with :meth:`Link.drain`, so the session is touched from one
thread. Every subscription is made again on each (re)connection, and the retained messages
of those topics arrive again: that is how a board catches up after a broker restart.
"""

from __future__ import annotations

import queue
import ssl
import threading
from typing import Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from ..errors import UserError


class Link:
    """One connection: ``subscribe`` topics (kept over reconnections), ``publish`` (QoS 1,
    retained by default), ``drain`` what arrived."""

    def __init__(self, host: str, port: int, *, client_id: str, username: str = "",
                 password: str = "", tls: bool = False, ca_file: str = "",
                 on_connect: Callable[[], None] | None = None) -> None:
        self.host, self.port = host, port
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=mqtt.MQTTv5)
        if username:
            self.client.username_pw_set(username, password or None)
        if tls:
            try:
                self.client.tls_set(ca_certs=ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
            except (OSError, ssl.SSLError) as exc:
                raise UserError(f"remote.ca_file: cannot use {ca_file!r}: {exc}") from None
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.topics: list[str] = []
        self.connected = threading.Event()
        self.refused: str | None = None
        self.on_connect = on_connect
        self.connections = 0
        self._sent: list = []            # publications not yet acknowledged (see flush)

    @classmethod
    def from_config(cls, section: dict, client_id: str, **kw) -> "Link":
        return cls(section["host"], section["port"], client_id=client_id,
                   username=section["username"], password=section["password"],
                   tls=section["tls"], ca_file=section["ca_file"], **kw)

    # --- paho's thread ---------------------------------------------------------------------
    def _connected(self, client, userdata, flags, reason, properties) -> None:  # noqa: ARG002
        if reason.is_failure:
            self.refused = str(reason)
            return
        self.refused = None
        self.connections += 1
        for t in self.topics:
            client.subscribe(t, qos=1)
        self.connected.set()
        if self.on_connect is not None:
            self.on_connect()

    def _disconnected(self, client, userdata, flags, reason, properties) -> None:  # noqa: ARG002
        self.connected.clear()

    def _message(self, client, userdata, msg) -> None:  # noqa: ARG002
        self.inbox.put((msg.topic, bytes(msg.payload)))

    # --- the main loop's side --------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> None:
        """Connect (waiting up to ``timeout`` s for the first connection); UserError when
        the broker cannot be reached or refuses us."""
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 0
        try:
            self.client.connect(self.host, self.port, keepalive=15, clean_start=True,
                                properties=props)
        except (OSError, ssl.SSLError) as exc:
            raise UserError(f"remote: cannot reach the broker at {self.host}:{self.port} "
                            f"(remote.host / remote.port): {exc}") from None
        self.client.loop_start()
        if not self.connected.wait(timeout):
            self.close()
            why = self.refused or "no answer"
            raise UserError(f"remote: the broker at {self.host}:{self.port} did not accept us: "
                            f"{why} (check remote.username / remote.password)")

    def subscribe(self, t: str) -> None:
        if t not in self.topics:
            self.topics.append(t)
            if self.connected.is_set():
                self.client.subscribe(t, qos=1)

    def publish(self, t: str, payload: bytes, retain: bool = True, qos: int = 1) -> None:
        info = self.client.publish(t, payload, qos=qos, retain=retain)
        # (a publication made while the broker is away is said again on reconnection by the
        # game itself; paho's record of it then raises on is_published: it is dropped here)
        self._sent = [i for i in self._sent if not _done(i)][-1000:] + [info]

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the broker has acknowledged what was published (QoS 1); False when it
        has not within ``timeout`` seconds."""
        import time
        end = time.monotonic() + timeout
        for info in list(self._sent):
            left = end - time.monotonic()
            if left <= 0:
                return False
            try:
                info.wait_for_publish(left)
                if not info.is_published():
                    return False
            except (RuntimeError, ValueError):
                return False
        self._sent = []
        return True

    def drain(self, limit: int = 1000) -> list[tuple[str, bytes]]:
        out = []
        while len(out) < limit:
            try:
                out.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        return out

    def close(self) -> None:
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()


def _done(info) -> bool:
    """Acknowledged by the broker, or failed for good (not connected when published)."""
    try:
        return info.is_published()
    except (RuntimeError, ValueError):
        return True
