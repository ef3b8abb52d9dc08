"""The terminal: a live board with colours, the move log and the warnings.

On a terminal the screen is redrawn after every event; piped into a file or a test it
prints one line per event instead, so logs stay readable.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..i18n import _, tr
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
    names = [_(n) for n in view["colour_names"]]
    made = view.get("sequences_made", [])
    seqs = ", ".join(f"{names[t]} {n}" + (" (" + " ".join(q["text"] for q in made if q["team"] == t)
                                          + ")" if n else "")
                     for t, n in enumerate(view["sequences"]))
    if view["over"]:
        head = _("{team} wins").format(team=names[view["winner"]]) \
            if view["winner"] is not None else _("game over")
    else:
        head = _("move {n}: {team} to play").format(n=view["move_number"] + 1,
                                                    team=names[view["to_move"]["team"]])
    dead = ", ".join(view["dead_cards"]) or _("none")
    return _("{head} | sequences: {seqs} (need {need}) | dead cards: {dead}").format(
        head=head, seqs=seqs, need=view["to_win"], dead=dead)


def warning_text(view: dict) -> str:
    """The warning, ending once in what to do about it."""
    text = view["warning"]["text"]
    if "put the board right" in text:
        return tr(text)
    return _("{warning} (put the board right)").format(warning=tr(text))


def hint_lines(view: dict) -> list[str]:
    """The hints for the player to move, best first: move, reason, chance of winning."""
    out = []
    for i, h in enumerate(view.get("hints") or [], 1):
        chance = _(", {pct} % to win").format(pct=f"{100 * h['chance']:.0f}") \
            if h.get("chance") is not None else ""
        out.append(_("hint {i}: {play}: {reason}{chance}").format(
            i=i, play=tr(h["move"]), reason=tr(h["reason"]), chance=chance))
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
                out.append(f"{WARN if self.colour else ''}{_('WARNING')}: {warning_text(view)}"
                           f"{RESET if self.colour else ''}")
            if view.get("source_problem"):
                problem = tr(view["source_problem"])
                out.append(f"{WARN if self.colour else ''}{_('SENSING')}: {problem}"
                           f"{RESET if self.colour else ''}")
            if view["proposal"]:
                out.append(_("computer's move: {proposal}").format(
                    proposal=tr(view["proposal"].get("text", ""))))
            out += hint_lines(view)
            out.append("")
            out += [f"{e['n']:4d}  {tr(e['text'])}" for e in view["log"][-8:]]
            self.stream.write("\n".join(out) + "\n")
        else:
            if event.kind == "info" and event.text == "connected":
                return
            prefix = {"warning": _("WARNING") + " ", "cleared": _("ok:") + " ", "game_over": "*** ",
                      "source": _("SENSING") + " "}.get(event.kind, "")
            if event.kind == "source" and not view.get("source_problem"):
                prefix = _("ok:") + " "
            self.stream.write(f"[{view['move_number']:3d}] {prefix}{tr(event.text)}\n")
            if event.kind == "hint":
                self.stream.write("".join(f"      {line}\n" for line in hint_lines(view)))
            if event.kind == "game_over":
                self.stream.write(render_board(view, self.colour) + "\n" + status_line(view) + "\n"
                                  + "".join(f"{n}\n" for n in NOTES.values()))
        self.stream.flush()
