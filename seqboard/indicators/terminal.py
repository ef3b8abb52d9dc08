"""The terminal: a live board with colours, the move log and the warnings.

On a terminal the screen is redrawn after every event; piped into a file or a test it
prints one line per event instead, so logs stay readable.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..session import Event

ANSI = {"B": "\033[1;37;44m", "G": "\033[1;30;42m", "R": "\033[1;37;41m"}
RESET = "\033[0m"
WARN = "\033[1;31m"
DIM = "\033[2m"


#: lines about this run kept in sight under the live board and reprinted by the ``a`` key
#: (the dashboard's address and PIN); never part of the view, which the page shows to all
NOTES: dict[str, str] = {}


def render_board(view: dict, colour: bool = True) -> str:
    """The board as text: the chip's letter on a chip (lower case in a sequence), the card
    code on an empty space, ``**`` on a free one, ``!!`` where a warning points."""
    rows, cols = view["rows"], view["cols"]
    seq = set(s for team in view["sequence_spaces"] for s in team)
    warn = set(view["warning"]["spaces"]) if view["warning"] else set()
    prop = view["proposal"]["space"] if view["proposal"] else None
    width = max(2, max(len(s) for s in view["symbols"]))
    width = min(width, 4)
    lines = ["    " + " ".join(chr(ord("a") + c).center(width) for c in range(cols))]
    for r in range(rows):
        cells = []
        for c in range(cols):
            i = r * cols + c
            v = view["cells"][i]
            if v == "free":
                text = "**".center(width)
                style = DIM
            elif v is None:
                text = view["symbols"][i][:width].center(width)
                style = DIM
            else:
                letter = view["colours"][v]
                text = (letter.lower() if i in seq else letter).center(width)
                style = ANSI[letter]
            if i in warn:
                text, style = "!!".center(width), WARN
            elif i == prop:
                text, style = ">>".center(width), WARN
            cells.append(f"{style}{text}{RESET}" if colour else text)
        lines.append(f"{r + 1:>3} " + " ".join(cells))
    return "\n".join(lines)


def status_line(view: dict) -> str:
    names = view["colour_names"]
    made = view.get("sequences_made", [])
    seqs = ", ".join(f"{names[t]} {n}" + (" (" + " ".join(q["text"] for q in made if q["team"] == t)
                                          + ")" if n else "")
                     for t, n in enumerate(view["sequences"]))
    if view["over"]:
        head = f"{names[view['winner']]} wins" if view["winner"] is not None else "game over"
    else:
        head = f"move {view['move_number'] + 1}: {names[view['to_move']['team']]} to play"
    dead = ", ".join(view["dead_cards"]) or "none"
    return f"{head} | sequences: {seqs} (need {view['to_win']}) | dead cards: {dead}"


def warning_text(view: dict) -> str:
    """The warning, ending once in what to do about it."""
    text = view["warning"]["text"]
    return text if "put the board right" in text else f"{text} (put the board right)"


def hint_lines(view: dict) -> list[str]:
    """The hints for the player to move, best first: move, reason, chance of winning."""
    out = []
    for i, h in enumerate(view.get("hints") or [], 1):
        chance = f", {100 * h['chance']:.0f} % to win" if h.get("chance") is not None else ""
        out.append(f"hint {i}: {h['move']}: {h['reason']}{chance}")
    return out


class TerminalIndicator:
    def __init__(self, stream: TextIO | None = None, live: bool | None = None,
                 colour: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        tty = self.stream.isatty() if hasattr(self.stream, "isatty") else False
        self.live = tty if live is None else live
        self.colour = tty if colour is None else colour

    def __call__(self, event: Event, view: dict) -> None:
        if self.live:
            out = ["\033[2J\033[H" + view["title"], render_board(view, self.colour), "",
                   status_line(view)] + list(NOTES.values())
            if view["warning"]:
                out.append(f"{WARN if self.colour else ''}WARNING: {warning_text(view)}"
                           f"{RESET if self.colour else ''}")
            if view.get("source_problem"):
                out.append(f"{WARN if self.colour else ''}SENSING: {view['source_problem']}"
                           f"{RESET if self.colour else ''}")
            if view["proposal"]:
                out.append(f"computer's move: {view['proposal'].get('text', '')}")
            out += hint_lines(view)
            out.append("")
            out += [f"{e['n']:4d}  {e['text']}" for e in view["log"][-8:]]
            self.stream.write("\n".join(out) + "\n")
        else:
            if event.kind == "info" and event.text == "connected":
                return
            prefix = {"warning": "WARNING ", "cleared": "ok: ", "game_over": "*** ",
                      "source": "SENSING "}.get(event.kind, "")
            if event.kind == "source" and not view.get("source_problem"):
                prefix = "ok: "
            self.stream.write(f"[{view['move_number']:3d}] {prefix}{event.text}\n")
            if event.kind == "hint":
                self.stream.write("".join(f"      {line}\n" for line in hint_lines(view)))
            if event.kind == "game_over":
                self.stream.write(render_board(view, self.colour) + "\n" + status_line(view) + "\n"
                                  + "".join(f"{n}\n" for n in NOTES.values()))
        self.stream.flush()
