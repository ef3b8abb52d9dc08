"""The configuration schema: every key, its type, default, and what it accepts.

One TOML file describes one installation. :data:`SCHEMA` is the single source of truth:
loading, validation, defaults, the commented starting file (``seqboard config init``) and
``docs/configuration.md`` all come from it. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

GPIO_PINS = range(2, 28)  # BCM numbers of the 40-pin header's GPIOs
BAUDS = (9600, 57600, 115200, 230400, 460800, 921600, 1000000)


MAX_TEXT = 4096              # characters in any string value (paths included)
PIN_MIN, PIN_MAX = 4, 32      # characters in a dashboard PIN


@dataclass(frozen=True)
class Key:
    type: Any                  # int, float, str, bool, list
    default: Any
    help: str
    check: Callable[[Any], str | None] | None = None   # returns what was expected, or None
    item: Any = None           # type of list items
    max_items: int = 16        # a list holds at most this many items


def one_of(*values: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if v in values else "one of " + ", ".join(repr(x) for x in values)
    return check


def between(lo: float, hi: float) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if lo <= v <= hi else f"a number from {lo} to {hi}"
    return check


def gpio_pin(v: Any) -> str | None:
    return None if v in GPIO_PINS else "a BCM GPIO number from 2 to 27"


def optional_pin(v: Any) -> str | None:
    return None if v == 0 or v in GPIO_PINS else "a BCM GPIO number from 2 to 27, or 0 for none"


def pins(v: Any) -> str | None:
    return None if all(p in GPIO_PINS for p in v) else "a list of BCM GPIO numbers from 2 to 27"


def colours(v: Any) -> str | None:
    ok = all(c in ("B", "G", "R") for c in v) and len(set(v)) == len(v) and 2 <= len(v) <= 3
    return None if ok else 'two or three different of "B", "G", "R"'


def seats(v: Any) -> str | None:
    if not all(1 <= s <= 12 for s in v):
        return "seat numbers from 1 to 12"
    return None if len(set(v)) == len(v) else "each seat once"


def names(v: Any) -> str | None:
    ok = all(0 < len(n) <= 40 and n.isprintable() and n.strip() == n for n in v)
    return None if ok else "names of 1 to 40 printable characters, no spaces around them"


def led_indexes(v: Any) -> str | None:
    return None if all(0 <= i < 1024 for i in v) else "LED indexes from 0 to 1023"


def pin(v: Any) -> str | None:
    if v == "":
        return None
    ok = PIN_MIN <= len(v) <= PIN_MAX and v.isprintable() and not any(c.isspace() for c in v)
    return None if ok else (f"empty (a random PIN), or {PIN_MIN} to {PIN_MAX} characters "
                            f"with no spaces")


def espeak_voice(v: Any) -> str | None:
    ok = 0 < len(v) <= 40 and all(c.isalnum() or c in "-_+/" for c in v)
    return None if ok else "an espeak-ng voice name such as en, en-gb, cs, mb-en1"


#: the languages the catalogs hold (seqboard/i18n/locale; docs/languages.md)
LANGUAGES = ("en", "cs", "it", "es", "pl", "fr", "nl", "de")


def language(v: Any) -> str | None:
    return None if v == "auto" or v in LANGUAGES else f"auto or one of {', '.join(LANGUAGES)}"


def host(v: Any) -> str | None:
    ok = 0 < len(v) <= 253 and all(c.isalnum() or c in ".:-_[]%" for c in v)
    return None if ok else "an IP address or host name"


def broker_user(v: Any) -> str | None:
    ok = len(v) <= 64 and v.isprintable() and not any(c.isspace() or c in "+#/" for c in v)
    return None if ok else "up to 64 printable characters, no spaces, +, # or /"


def broker_secret(v: Any) -> str | None:
    return None if len(v) <= 256 and v.isprintable() else "up to 256 printable characters"


def board_name(v: Any) -> str | None:
    ok = len(v) <= 32 and all(c.isascii() and (c.isalnum() or c in "-_") for c in v)
    return None if ok else "up to 32 letters, digits, - or _"


SCHEMA: dict[str, dict[str, Key]] = {
    "game": {
        "edition": Key(str, "classic", "classic, travel or jewish", one_of("classic", "travel", "jewish")),
        "players": Key(int, 2, "players at the table (classic: 2, 3, 4, 6, 8, 9, 10, 12)", between(2, 12)),
        "teams": Key(int, 0, "teams they form; 0 lets the rules decide (up to 3 alone, more in 2 teams)", between(0, 3)),
        "colours": Key(list, ["B", "G", "R"], "chip colour of each team in seat order: B blue, G green, R red", colours, str, 3),
        "layout": Key(str, "", "a layout file; empty for the edition's own board", None),
        "names": Key(list, [], "player names in seat order (optional), up to 40 characters each", names, str, 12),
        "first_player": Key(int, 1, "the seat (1-based) that moves first", between(1, 12)),
        "computer_seats": Key(list, [], "seats the Pi plays in `seqboard play`, e.g. [2] (each once)", seats, int, 12),
        "judge_cards": Key(bool, False, "judge each chip against the card laid on its player's pile (read by the camera, typed with k, tapped on the page, or an NFC reader): docs/cards.md"),
        "computer_level": Key(str, "hard", "the Pi's strength: easy, medium or hard (search players, docs/players.md), or random, greedy", one_of("easy", "medium", "hard", "random", "greedy")),
    },
    "game.options": {
        "advanced": Key(bool, False, "advanced variant: removing cards may break completed sequences"),
        "table_talk_penalty": Key(bool, True, "table talk costs every member of the team a card"),
        "max_shared_spaces": Key(int, 1, "spaces a new sequence may share with each earlier one of its team", between(0, 3)),
        "sequences_to_win": Key(int, 0, "override the sequences needed to win; 0 keeps the rule", between(0, 6)),
        "check_card_supply": Key(bool, True, "flag placements no card left could explain"),
    },
    "sensing": {
        "source": Key(str, "camera", "where the board is read: camera or matrix", one_of("camera", "matrix")),
    },
    "camera": {
        "device": Key(str, "picamera2", '"picamera2", a V4L2 index like "0", a video file, or a folder of images', None),
        "width": Key(int, 1280, "frame width in pixels", between(320, 4056)),
        "height": Key(int, 720, "frame height in pixels", between(240, 3040)),
        "fps": Key(float, 10.0, "frames per second: the camera's, or a folder of frames' (a video file plays at its own rate)", between(1, 60)),
        "calibration": Key(str, "~/.local/share/seqboard/calibration.json", "the calibration file written by `seqboard calibrate`", None),
        "settle_seconds": Key(float, 0.6, "how long the board must be still, with no hand over it, before a change counts", between(0.1, 10)),
    },
    "matrix": {
        "port": Key(str, "/dev/ttyACM0", "serial port of the matrix, or a pyserial URL", None),
        "baud": Key(int, 115200, "line speed", one_of(*BAUDS)),
        "sensor": Key(str, "occupancy", "what the board senses: occupancy (colour from the turn) or identity", one_of("occupancy", "identity")),
        "settle_seconds": Key(float, 0.3, "how long the sensors must be still before a change counts", between(0.05, 10)),
    },
    "leds": {
        "origin": Key(str, "top-left", "the corner where LED 0 sits", one_of("top-left", "top-right", "bottom-left", "bottom-right")),
        "order": Key(str, "rows", "LEDs run along rows or columns", one_of("rows", "columns")),
        "serpentine": Key(bool, True, "every other row (column) runs back the other way"),
        "table": Key(list, [], "explicit LED index of each space in reading order, one per space (overrides the above)", led_indexes, int, 1024),
        "brightness": Key(float, 0.3, "0 to 1", between(0.0, 1.0)),
    },
    "gpio": {
        "enabled": Key(bool, True, "drive the indicator LEDs, buzzer and buttons"),
        "turn_leds": Key(list, [5, 6, 13], "one LED per team showing whose turn it is", pins, int),
        "sequence_led": Key(int, 19, "lights when a sequence is completed", optional_pin),
        "dead_card_led": Key(int, 26, "lights while a dead card exists", optional_pin),
        "illegal_led": Key(int, 21, "blinks on an illegal move until the board is put right", optional_pin),
        "buzzer": Key(int, 20, "active buzzer: a distinct pattern per event", optional_pin),
        "rgb_led": Key(list, [], "optional RGB LED pins [red, green, blue]", pins, int),
        "chip_leds": Key(list, [], "SEQUENCE STACKS: LEDs [red, blue] for the chips of the player to move; empty: the first two turn LEDs", pins, int),
        "confirm_button": Key(int, 16, "button to confirm a warning", optional_pin),
        "undo_button": Key(int, 12, "button to undo the last move", optional_pin),
        "lost_draw_button": Key(int, 0, "optional button to mark the last player's draw as lost", optional_pin),
    },
    "records": {
        "dir": Key(str, "~/.local/share/seqboard/records", "where game records are written"),
    },
    "dashboard": {
        "enabled": Key(bool, True, "serve the live dashboard on the LAN"),
        "host": Key(str, "0.0.0.0", "address to listen on", host),
        "port": Key(int, 8080, "port to listen on", between(1, 65535)),
        "pin": Key(str, "", f"PIN needed to act from the page, {PIN_MIN} to {PIN_MAX} characters, no spaces; empty: a random one, written here at the first start so that it stays", pin),
    },
    "ui": {
        "language": Key(str, "auto", "language of the terminal, the voice and the page: en, cs, it, es, pl, fr, nl, de; auto: the system's (LANGUAGE, LANG) in the terminal and the voice, the browser's on the page", language),
        "voice": Key(bool, False, "speak verdicts, the Pi's moves and hints: on the Pi through espeak-ng (`sudo apt install espeak-ng`), in the page through the browser's speech"),
        "voice_name": Key(str, "en", "espeak-ng voice (`espeak-ng --voices` lists them; an mbrola voice such as mb-en1 if installed)", espeak_voice),
        "voice_speed": Key(int, 150, "words a minute", between(80, 400)),
    },
    "remote": {
        "host": Key(str, "localhost", "MQTT broker for remote play and the club view (docs/remote.md)", host),
        "port": Key(int, 1883, "broker port (8883 is usual with TLS)", between(1, 65535)),
        "username": Key(str, "", "this board's user name on the broker; empty: none (anonymous)", broker_user),
        "password": Key(str, "", "this board's broker password; empty: none", broker_secret),
        "tls": Key(bool, False, "connect to the broker over TLS"),
        "ca_file": Key(str, "", "CA certificate file that signed the broker's; empty: the system's CAs"),
        "board": Key(str, "", "this board's name in remote games (letters, digits, - and _); empty: the user name, else the host name", board_name),
        "seats": Key(list, [], "seats (1-based) this board holds in a remote game; empty: seat 1 when creating, the free seats when joining", seats, item=int),
        "undo_timeout": Key(int, 60, "seconds the other board has to agree to an undo asked here; then the request lapses", between(5, 3600)),
        "hand_pages_port": Key(int, 8081, "port of the players' own hand pages (a link per player, for their phone); 0: none", between(0, 65535)),
    },
}
