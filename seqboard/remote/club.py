"""The club view: every table publishing to a broker, live, read-only.

Each remote game's dealing board keeps a retained summary on ``seqboard/v1/game/<id>/state``
(who plays, the sequences, whose turn, the result). The club view subscribes to all of them
and never publishes: a watcher needs only read access on the broker (docs/remote.md).
"""

from __future__ import annotations

import time

from engine.referee import COLOUR_NAMES

from . import protocol as P

ALL_STATES = f"{P.PREFIX}/+/state"


class Club:
    def __init__(self, link, clock=time.time) -> None:
        self.link = link
        self.clock = clock
        self.tables: dict[str, dict] = {}
        self.seen: dict[str, float] = {}      # game -> when its last state arrived here
        self.dropped: list[str] = []
        link.subscribe(ALL_STATES)

    def poll(self) -> int:
        """Take what arrived; the number of tables that changed."""
        changed = 0
        for t, payload in self.link.drain(10_000):
            try:
                game, _, kind, _ = P.parse_topic(t)
                if kind != "state":
                    raise P.Refused(f"{t}: not a state topic")
                msg = P.decode(payload, t, None)
            except P.Refused as exc:
                self.dropped.append(str(exc))
                del self.dropped[:-100]
                continue
            self.tables[game] = msg
            self.seen[game] = self.clock()
            changed += 1
        return changed

    def rows(self) -> list[dict]:
        out = []
        for game, s in sorted(self.tables.items()):
            colours = s.get("colours") or []
            names = s.get("names") or []
            teams = [COLOUR_NAMES.get(c, c) for c in colours]
            if s.get("over"):
                w = s.get("winner")
                result = f"{teams[w]} won" if isinstance(w, int) and 0 <= w < len(teams) \
                    else "over"
            else:
                p = s.get("to_move", 0)
                who = names[p] if isinstance(p, int) and p < len(names) else f"player {p + 1}"
                result = f"{who} to move"
            out.append({"game": game, "edition": s.get("title") or s.get("edition"),
                        "boards": ", ".join(sorted(s.get("boards") or {})),
                        "score": " - ".join(f"{t} {n}" for t, n in zip(teams, s["sequences"])),
                        "moves": s["n"], "status": result, "last": s.get("last", "")})
        return out

    def render(self) -> str:
        rows = self.rows()
        if not rows:
            return "no table is publishing to this broker yet"
        head = f"{'game':<6} {'edition':<16} {'boards':<22} {'sequences':<22} {'moves':>5}  status"
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(f"{r['game']:<6} {str(r['edition'])[:16]:<16} {r['boards'][:22]:<22} "
                         f"{r['score'][:22]:<22} {r['moves']:>5}  {r['status']}")
        playing = sum(1 for r in rows if not r["status"].endswith(("won", "over")))
        lines.append(f"{len(rows)} table(s), {playing} playing")
        return "\n".join(lines)
