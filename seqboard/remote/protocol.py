"""The remote-play protocol: topics, join codes, signed messages and their validation.

Every message is one JSON object of at most :data:`MAX_MESSAGE` bytes on a topic under
``seqboard/v1/game/<game>/``. A board publishes only under ``board/<its name>/`` (the broker's
ACL makes that so for its user; docs/remote.md), and signs every message with an HMAC-SHA256
key derived from the game secret in the join code and its own name, so that nobody without
the join code can write a move even on a broker with no ACL. :func:`decode` turns a payload
into a checked message or raises :class:`Refused` with the reason (a log line, never a
traceback). Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets

PREFIX = "seqboard/v1/game"
MAX_MESSAGE = 4096                 # bytes in one payload; larger ones are dropped unread
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"   # Crockford's base 32: no I, L, O, U
GAME_CHARS, SECRET_CHARS = 5, 11   # 25 bits of game id, 55 bits of secret
NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
ACTIONS = ("place", "remove", "dead", "pass")
KINDS = ("setup", "join", "move", "hand", "state", "undo")
UNDO_OPS = ("ask", "agree", "refuse", "done", "withdraw")


class Refused(ValueError):
    """A message that is not taken: the text says why (logged, never raised to the user)."""


# --- join codes ----------------------------------------------------------------------------
def new_code() -> str:
    """A fresh join code: ``XXXX-XXXX-XXXX-XXXX`` (the game id, then the secret)."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(GAME_CHARS + SECRET_CHARS))
    return "-".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def parse_code(code: str) -> tuple[str, str]:
    """``(game id, secret)`` of a join code typed by a person (case, spaces and dashes
    forgiven; O read as 0, I and L as 1); ValueError names what is wrong."""
    raw = "".join(c for c in code.upper() if c not in " -")
    raw = raw.replace("O", "0").replace("I", "1").replace("L", "1")
    if len(raw) != GAME_CHARS + SECRET_CHARS:
        raise ValueError(f"a join code has {GAME_CHARS + SECRET_CHARS} letters and digits "
                         f"(XXXX-XXXX-XXXX-XXXX), this one {len(raw)}")
    bad = [c for c in raw if c not in ALPHABET]
    if bad:
        raise ValueError(f"{bad[0]!r} cannot be in a join code")
    return raw[:GAME_CHARS], raw[GAME_CHARS:]


def board_key(secret: str, board: str) -> bytes:
    """The key a board signs with: derived from the game secret and the board's name."""
    return hmac.new(secret.encode(), b"board:" + board.encode(), hashlib.sha256).digest()


# --- topics --------------------------------------------------------------------------------
def game_topic(game: str) -> str:
    return f"{PREFIX}/{game}"


def topic(game: str, board: str, kind: str, n: int | str | None = None) -> str:
    """``seqboard/v1/game/<game>/board/<board>/<kind>[/<n>]``."""
    t = f"{PREFIX}/{game}/board/{board}/{kind}"
    return t if n is None else f"{t}/{n}"


def state_topic(game: str) -> str:
    """The game's public summary (retained): what the club view reads."""
    return f"{PREFIX}/{game}/state"


def parse_topic(t: str) -> tuple[str, str | None, str, str | None]:
    """``(game, board, kind, rest)`` of a topic of ours; Refused otherwise."""
    parts = t.split("/")
    if len(parts) < 5 or "/".join(parts[:3]) != PREFIX:
        raise Refused(f"not a seqboard topic: {t[:120]!r}")
    game = parts[3]
    if parts[4] == "state" and len(parts) == 5:
        return game, None, "state", None
    if len(parts) not in (7, 8) or parts[4] != "board" or not NAME.match(parts[5]) \
            or parts[6] not in KINDS:
        raise Refused(f"not a seqboard topic: {t[:120]!r}")
    return game, parts[5], parts[6], parts[7] if len(parts) == 8 else None


# --- messages ------------------------------------------------------------------------------
def _canonical(obj: dict) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def encode(obj: dict, t: str, key: bytes | None) -> bytes:
    """The payload of ``obj`` on topic ``t``, signed with ``key`` (None: unsigned, the club
    view's state)."""
    body = dict(obj)
    body.pop("sig", None)
    if key is not None:
        body["sig"] = hmac.new(key, t.encode() + b"\n" + _canonical(body),
                               hashlib.sha256).hexdigest()[:32]
    data = _canonical(body)
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"message of {len(data)} bytes is over {MAX_MESSAGE}")
    return data


def decode(payload: bytes, t: str, key: bytes | None) -> dict:
    """A checked message, or :class:`Refused` naming the fault. ``key``: the publishing
    board's key (the signature is then required); None: no signature is checked."""
    if len(payload) > MAX_MESSAGE:
        raise Refused(f"{t}: {len(payload)} bytes, over the {MAX_MESSAGE}-byte limit")
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(f"{t}: not JSON ({str(exc)[:80]})") from None
    except RecursionError:
        raise Refused(f"{t}: JSON nested too deep") from None
    if not isinstance(obj, dict):
        raise Refused(f"{t}: not a JSON object")
    if key is not None:
        sig = obj.pop("sig", None)
        want = hmac.new(key, t.encode() + b"\n" + _canonical(obj), hashlib.sha256).hexdigest()[:32]
        if not isinstance(sig, str) or not hmac.compare_digest(sig, want):
            raise Refused(f"{t}: bad or missing signature (not from the board the topic names)")
    kind = obj.get("type")
    check = _CHECKS.get(kind)
    if check is None:
        raise Refused(f"{t}: unknown message type {str(kind)[:20]!r}")
    why = check(obj)
    if why:
        raise Refused(f"{t}: {kind}: {why}")
    return obj


def _int(v, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _card(v) -> bool:
    return v is None or (isinstance(v, str) and 0 < len(v) <= 24 and v.isprintable())


def _check_move(o: dict) -> str | None:
    if not _int(o.get("n"), 1, 100_000):
        return "n must be a move number from 1"
    if not _int(o.get("u", 0), 0, 100_000):
        return "u must be the count of undos agreed before it"
    if not _int(o.get("seat"), 0, 11):
        return "seat must be 0..11"
    if o.get("action") not in ACTIONS:
        return f"action must be one of {', '.join(ACTIONS)}"
    if not _card(o.get("card")):
        return "card must be a short card name"
    sp = o.get("space")
    if o["action"] in ("place", "remove"):
        if not _int(sp, 0, 399) or o.get("card") is None:
            return "a placement or removal needs a card and a space"
    elif sp is not None:
        return "only a placement or removal has a space"
    return None


def _check_seats(v, n_players: int = 12) -> bool:
    return isinstance(v, list) and len(v) <= 12 and all(_int(s, 0, n_players - 1) for s in v) \
        and len(set(v)) == len(v)


def _check_setup(o: dict) -> str | None:
    if o.get("edition") not in ("classic", "travel", "jewish"):
        return "unknown edition"
    if not _int(o.get("players"), 2, 12) or not _int(o.get("teams"), 2, 3):
        return "players must be 2..12 and teams 2..3"
    boards = o.get("boards")
    if not isinstance(boards, dict) or not 1 <= len(boards) <= 12 \
            or not all(isinstance(b, str) and NAME.match(b) for b in boards):
        return "boards must name up to 12 boards"
    if not all(_check_seats(s, o["players"]) for s in boards.values()):
        return "each board's seats must be distinct seat numbers"
    held = [s for ss in boards.values() for s in ss]
    if len(held) != len(set(held)):
        return "a seat is held by two boards"
    if not isinstance(o.get("colours"), list) or not _int(o.get("first_player"), 0, 11):
        return "colours and first_player are needed"
    names = o.get("names", [])
    if not isinstance(names, list) or len(names) > 12 or \
            not all(isinstance(x, str) and len(x) <= 40 for x in names):
        return "names must be up to 12 short strings"
    if not isinstance(o.get("options", {}), dict):
        return "options must be an object"
    return None


def _check_join(o: dict) -> str | None:
    return None if _check_seats(o.get("seats")) else "seats must be distinct seat numbers"


def _check_hand(o: dict) -> str | None:
    if not _int(o.get("n"), 0, 100_000) or not _int(o.get("u", 0), 0, 100_000):
        return "n must be a move count"
    hands = o.get("hands")
    if not isinstance(hands, dict) or len(hands) > 12:
        return "hands must be an object of seats"
    for seat, cards in hands.items():
        if not (seat.isdigit() and int(seat) < 12) or not isinstance(cards, list) \
                or len(cards) > 8 or not all(_card(c) and c for c in cards):
            return "each hand is a seat and up to 8 cards"
    return None


def _check_state(o: dict) -> str | None:
    if not _int(o.get("n"), 0, 100_000):
        return "n must be a move count"
    seq = o.get("sequences")
    if not isinstance(seq, list) or not 2 <= len(seq) <= 3 or not all(_int(x, 0, 99) for x in seq):
        return "sequences must be 2 or 3 counts"
    return None


def _check_undo(o: dict) -> str | None:
    """An undo request (``ask``: take moves ``back_to + 1 .. n`` back), an answer to it
    (``agree``, ``refuse``) or the asker's decision (``done``, ``withdraw``); ``k`` numbers
    the game's undos from 1."""
    if not _int(o.get("k"), 1, 100_000):
        return "k must be an undo number from 1"
    if o.get("op") not in UNDO_OPS:
        return f"op must be one of {', '.join(UNDO_OPS)}"
    if not _int(o.get("n"), 1, 100_000) or not _int(o.get("back_to"), 0, o["n"] - 1):
        return "n must be a move number and back_to a smaller move count"
    rid = o.get("id", "")
    if not isinstance(rid, str) or len(rid) > 16 or (rid and not rid.isalnum()):
        return "id must be a short request name"
    why = o.get("why", "")
    if not isinstance(why, str) or len(why) > 200:
        return "why must be a short text"
    return None


_CHECKS = {"undo": _check_undo, "move": _check_move, "setup": _check_setup, "join": _check_join,
           "hand": _check_hand, "state": _check_state}
