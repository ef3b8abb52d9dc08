"""docs/remote.md's mosquitto.conf and ACL, run as written (paths and port changed): TLS,
passwords, and a board that cannot publish in another board's name."""

from __future__ import annotations

import getpass
import re
import subprocess
import time
from pathlib import Path

import pytest

from seqboard.errors import UserError
from seqboard.remote import protocol as P
from seqboard.remote.client import Link

from .broker import Broker

DOC = Path(__file__).resolve().parents[2] / "docs" / "remote.md"


def _blocks() -> tuple[str, str]:
    text = DOC.read_text("utf-8")
    blocks = re.findall(r"```conf\n(.*?)```", text, re.S)
    return blocks[0], blocks[1]


def _certs(d: Path) -> None:
    def ssl(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-keyout", "ca.key",
        "-out", "ca.crt", "-subj", "/CN=seqboard test CA")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=localhost")
    (d / "san.txt").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "30", "-out", "server.crt", "-extfile", "san.txt")


@pytest.fixture
def secure(tmp_path):
    d = tmp_path / "mosq"
    (d / "certs").mkdir(parents=True)
    (d / "data").mkdir()
    _certs(d / "certs")
    passwd = d / "passwd"
    for user in ("north", "south", "club"):
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if user == "north" else []),
                        str(passwd), user, f"pw-{user}"], check=True, capture_output=True)
    conf, acl = _blocks()
    (d / "acl").write_text(acl)
    conf = conf.replace("/etc/mosquitto/certs/", f"{d}/certs/") \
        .replace("/etc/mosquitto/passwd", str(passwd)).replace("/etc/mosquitto/acl", str(d / "acl")) \
        .replace("/var/lib/mosquitto/", f"{d}/data/").replace("listener 8883", "listener PORT 127.0.0.1")
    b = Broker(d, conf=conf + f"user {getpass.getuser()}\nlog_dest file {d}/mosquitto.log\n")
    b.start()
    yield b, d
    b.cleanup()


def _link(b, d, user, pw=None, tls=True):
    lk = Link("localhost", b.port, client_id=f"t-{user}", username=user,
              password=pw or f"pw-{user}", tls=tls, ca_file=str(d / "certs" / "ca.crt"))
    lk.start(timeout=5)
    return lk


def _collect(lk, seconds=1.0):
    end, out = time.monotonic() + seconds, []
    while time.monotonic() < end:
        out += lk.drain()
        time.sleep(0.02)
    return out


def test_tls_passwords_and_acl_as_documented(secure):
    b, d = secure
    north, south, club = _link(b, d, "north"), _link(b, d, "south"), _link(b, d, "club")
    game = "ABCDE"
    for lk in (north, south):
        lk.subscribe(f"{P.game_topic(game)}/board/+/move/+")
        lk.subscribe(f"{P.game_topic(game)}/board/+/undo/+")
    club.subscribe(f"{P.PREFIX}/+/state")
    # south writes a move under its own name: north gets it
    south.publish(P.topic(game, "south", "move", 1), b'{"type":"move"}')
    # and asks for an undo: north reads it (the undo topics are in the ACL)
    south.publish(P.topic(game, "south", "undo", 1), b'{"type":"undo"}')
    # south writes under north's name: the broker drops it
    south.publish(P.topic(game, "north", "move", 2), b'{"forged":1}')
    # north writes the state: the club reads it; the club cannot read moves
    north.publish(P.state_topic(game), b'{"type":"state"}')
    got = _collect(north)
    topics = [t for t, _ in got]
    assert P.topic(game, "south", "move", 1) in topics
    assert P.topic(game, "south", "undo", 1) in topics
    assert P.topic(game, "north", "move", 2) not in topics
    assert [t for t, _ in _collect(club, 0.5)] == [P.state_topic(game)]
    for lk in (north, south, club):
        lk.close()


def test_a_wrong_password_or_no_tls_is_refused_in_one_line(secure):
    b, d = secure
    with pytest.raises(UserError, match="did not accept us"):
        _link(b, d, "north", pw="wrong")
    with pytest.raises(UserError, match="broker"):
        _link(b, d, "north", tls=False)
