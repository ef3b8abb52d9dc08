"""Issue 22: an undo in ``play`` while the Pi's move is pending must not lock the game.

The issue's sequence, as a scripted game at a simulated table with the Pi in seat 2:
blue e5, Pi g5, blue c3, Pi c7, blue d4; the Pi proposes JS removing e5; the undo key
(``u``), then d4 is lifted. Before the fix every blue placement was refused "not the
computer's move" and the Pi's own removal was refused "a team removed its own chip".
"""

from __future__ import annotations

from engine.observation import SpaceState
from engine.record import parse_record, replay
from seqboard.app import load_settings, open_session
from seqboard.modes.computer import ComputerSeats
from seqboard.loop import Commands, key_action
from seqboard.sources.table import DirectSource, Table

from .helpers import write_config


class _Game:
    def __init__(self, tmp_path):
        conf = load_settings(str(write_config(tmp_path, game={"computer_seats": [2]})))
        self.session = open_session(conf, "play", tmp_path / "records", False, seed=3,
                                    full_game=False, computers={1: "medium"})
        self.pi = ComputerSeats(self.session, {1: "medium"}, seed=3)
        self.table = Table(10, 10)
        self.source = DirectSource(self.table, settle=0.2)
        self.commands = Commands()
        self.now = 0.0
        self.lay = self.session.referee.layout

    def settle(self):
        # the loop's order: commands typed, the Pi's step, then the board
        for _ in range(5):
            self.now += 0.1
            self.commands.run_pending()
            self.pi.step(self.now)
            obs = self.source.poll(self.now)
            if obs is not None:
                self.session.observe(obs)

    def put(self, name, state):
        self.table.set(self.lay.parse_space(name), state)
        self.settle()

    def key(self, line):
        name = key_action(line)
        self.commands.call(lambda: getattr(self.session, name)())
        self.settle()

    def proposal(self):
        p = self.session.proposal
        return None if p is None else (p[0].action, p[0].card, self.lay.space_name(p[0].space))


def _to_the_proposal(g):
    s = g.session
    # the Pi's virtual hand is set while it is not its turn, so it holds the cards
    g.pi.hands[1] = ["AH"]
    g.put("e5", SpaceState.BLUE)
    assert g.proposal() == ("place", "AH", "g5")
    g.put("g5", SpaceState.GREEN)
    g.pi.hands[1] = ["9C"]
    g.put("c3", SpaceState.BLUE)
    assert g.proposal() == ("place", "9C", "c7")
    g.put("c7", SpaceState.GREEN)
    g.pi.hands[1] = ["JS"]
    g.put("d4", SpaceState.BLUE)
    assert g.proposal() == ("remove", "JS", "e5")
    assert len(s.referee.moves) == 5 and s.warning is None


def test_undo_withdraws_the_pis_proposal_and_play_goes_on(tmp_path):
    g = _Game(tmp_path)
    _to_the_proposal(g)
    s = g.session
    g.key("u")                                     # undo blue d4: blue to play again
    assert len(s.referee.moves) == 4 and s.referee.current == 0
    assert s.proposal is None, "the Pi's move for the old position is still pending"
    g.put("d4", SpaceState.EMPTY)                  # the board put back
    assert s.warning is None
    # blue plays elsewhere: accepted, not "not the computer's move"
    g.put("h8", SpaceState.BLUE)
    assert s.warning is None, s.warning and s.warning.message
    assert len(s.referee.moves) == 5 and s.referee.current == 1
    # the Pi chooses again for the position now in force, and its move counts once placed
    assert g.proposal() is not None and g.proposal()[0] == "remove"
    action, card, where = g.proposal()
    assert where in ("e5", "c3", "h8")
    g.put(where, SpaceState.EMPTY)
    assert s.warning is None, s.warning and s.warning.message
    assert len(s.referee.moves) == 6 and s.referee.current == 0
    assert "JS" not in g.pi.hands[1]
    assert replay(parse_record(s.recorder.path.read_text("utf-8"), "play")).ok


def test_undoing_the_pis_own_move_gives_its_card_back(tmp_path):
    g = _Game(tmp_path)
    _to_the_proposal(g)
    s = g.session
    g.key("u")                                     # blue d4 undone
    g.put("d4", SpaceState.EMPTY)
    g.key("u")                                     # the Pi's c7 undone: its 9C comes back
    assert s.proposal is None or s.proposal[0].card == "9C"
    g.put("c7", SpaceState.EMPTY)
    assert s.warning is None
    assert len(s.referee.moves) == 3 and s.referee.current == 1
    assert "9C" in g.pi.hands[1] and "JS" not in g.pi.hands[1]
    assert g.proposal() == ("place", "9C", "c7")
