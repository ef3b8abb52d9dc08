"""Issue 22: what the terminal and the demo say, said once and matching."""

from __future__ import annotations

import io
import re

from engine.moves import Move
from engine.observation import SpaceState
from seqboard.cli import main
from seqboard.indicators.terminal import TerminalIndicator

from .helpers import write_config
from .test_undo_play import _Game


def test_live_terminal_says_put_right_once_and_shows_the_pis_move_not_the_warning(tmp_path):
    g = _Game(tmp_path)
    g.pi.hands[1] = ["AH"]
    g.put("e5", SpaceState.BLUE)
    assert g.proposal() == ("place", "AH", "g5")
    g.put("h8", SpaceState.GREEN)                 # the Pi's chip on the wrong space
    assert g.session.warning is not None
    out = io.StringIO()
    TerminalIndicator(out, live=True, colour=False)(None, g.session.view())
    text = out.getvalue()
    warn = next(ln for ln in text.splitlines() if ln.startswith("WARNING:"))
    assert warn.count("put the board right") == 1, warn
    pi_line = next(ln for ln in text.splitlines() if ln.startswith("computer's move:"))
    assert pi_line.startswith("computer's move: green (computer) plays AH on g5"), pi_line
    assert "not the computer's move" not in pi_line


def test_a_proposal_without_a_reason_ends_without_a_colon(tmp_path):
    g = _Game(tmp_path)
    s = g.session
    g.pi.hands[1] = ["AH"]
    g.put("e5", SpaceState.BLUE)
    s.proposal = None
    s.propose(Move("place", "AH", s.referee.layout.parse_space("g5")), "")
    assert s.log[-1]["text"] == "green (computer) plays AH on g5"
    assert s.view()["proposal"]["text"] == "green (computer) plays AH on g5"
    s.propose(Move("place", "AH", s.referee.layout.parse_space("g5")), "   ")
    assert not s.log[-1]["text"].rstrip().endswith(":")


def test_demo_names_the_card_it_plays_and_announces_its_deliberate_mistakes(tmp_path, capsys):
    cfg = write_config(tmp_path)
    code = main(["demo", "--fast", "--seed", "1", "--source", "direct", "--records",
                 str(tmp_path / "r"), "--config", str(cfg), "--no-dashboard", "--new"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    body = [re.sub(r"^\[\s*\d+\] ", "", ln) for ln in out if ln.startswith("[")]
    proposals = [(i, m) for i, ln in enumerate(body)
                 if (m := re.match(r"(\w+) \(computer\) plays (\S+) (on|removing) (\w\d+)", ln))]
    assert len(proposals) > 20
    jacks = 0
    for i, m in proposals:
        team, card, how, where = m.groups()
        # the verdict that follows names the same card and space as the proposal did
        verdict = next(ln for ln in body[i + 1:] if ln.startswith(f"{team} plays"))
        assert verdict.startswith(f"{team} plays {card} " + ("on " if how == "on" else "and removes")), \
            (body[i], verdict)
        assert where in verdict
        jacks += card.startswith("J")
    assert jacks, "no jack played: the case of the issue (JC on a 5H space) is not covered"
    # each warning of the demo's own making is announced as deliberate just before it
    warnings = [i for i, ln in enumerate(body) if ln.startswith("WARNING")]
    assert len(warnings) == 2
    for i in warnings:
        assert body[i - 1].startswith("demo: a deliberate mistake"), body[i - 1]
