"""`seqboard stacks`: SEQUENCE STACKS typed in at the table, checked, shown, recorded."""

from __future__ import annotations

import io
import random

from gpiozero.pins.mock import MockFactory, MockPWMPin

from engine.record import dumps, parse_record
from engine.stacks import GreedyStacksPlayer, StacksGame
from engine.stacks.game import Pile
from engine.stacks.record import replay
from hw_config.config import load_config
from seqboard.cli import main
from seqboard.indicators.gpio import StacksGpio
from seqboard.modes.stacks import StacksTable

from .helpers import write_config


def _table(game, seats=None, listeners=None, seed=1):
    out = io.StringIO()
    entries = []
    t = StacksTable(game, seats or ["person"] * game.n, out, write=entries.append, seed=seed,
                    listeners=listeners)
    return t, out, entries


def test_real_cards_plays_are_accepted_or_refused_with_the_reason():
    g = StacksGame(3, known=False)
    t, out, entries = _table(g)
    for line in ("R2 new", "R1 new", "R2", "B3 new", "x B4"):
        t.handle(line)
    text = out.getvalue()
    assert "REFUSED: a new red pile starts with a 1 or a red wild" in text
    assert "player 1 starts red pile 1 with red 1" in text
    assert "player 1 lays red 2 on pile 1" in text          # the only pile a 2 fits
    assert "REFUSED: a new blue pile starts with a 1 or a blue wild" in text
    assert "player 1 discards blue 4" in text and g.current == 1
    assert "piles: 1:red 1-2" in text and "to play: player 2" in text
    t.handle("top B4")                                      # player 2 has no discard pile
    assert "REFUSED: the top of player 2's discard pile is nothing" in out.getvalue()
    t.handle("?")
    assert "legal now: R3 1 or RW 1" in out.getvalue()
    rejects = [e for e in entries if e["type"] == "event" and e["event"] == "reject"]
    assert len(rejects) == 3


def test_block_typed_after_a_five_cancels_the_chip():
    g = StacksGame(3, known=False)
    g.piles = [Pile("R", ["R1", "R2", "R3", "R4"])]
    t, out, entries = _table(g)
    t.handle("R5")
    assert t.waiting_block and "Block?" in out.getvalue()
    t.handle("BL 3")
    assert "player 3 plays Block" in out.getvalue() and g.chips[0]["R"] == 0
    # no block: Enter gives the chip
    g2 = StacksGame(2, known=False)
    g2.piles = [Pile("B", ["B1", "B2", "B3", "BW"])]
    t2, out2, _ = _table(g2)
    t2.handle("B5")
    t2.handle("")
    assert g2.chips[0]["B"] == 1 and "player 1 takes a blue chip" in out2.getvalue()
    t2.handle("BL 2")
    assert "REFUSED: Block cancels a SEQUENCE as its 5 is laid" in out2.getvalue()


def test_a_whole_game_typed_against_the_pi_ends_and_replays_exactly():
    g = StacksGame(2, rng=random.Random(9))       # the deck's seed goes in the record
    t, out, entries = _table(g, ["person", "greedy"], seed=9)
    me = GreedyStacksPlayer(random.Random(4))
    t.run_computers()
    for _ in range(3000):
        if g.over:
            break
        if t.waiting_block:
            t.handle("BL 1" if me.block(g, 0) else "")
            continue
        assert g.current == 0
        t.handle(t.describe(me.choose(g)))                  # typed as a person would
    assert g.over and g.winner is not None
    text = out.getvalue()
    assert "REFUSED" not in text and "GAME OVER" in text and "Pi: " in text
    records = "\n".join(dumps(e) for e in entries) + "\n"
    steps = replay(parse_record(records, "r").entries)
    assert all(s["ok"] for s in steps)
    assert steps[-1]["text"] == f"result: {g.result}"


def test_the_pi_seat_is_not_typed_for():
    g = StacksGame(2, rng=random.Random(2), first=1)
    t, out, _ = _table(g, ["person", "person"])
    t.seats[1] = "greedy"
    t.players[1] = GreedyStacksPlayer(random.Random(1))
    t.handle("x R1")
    assert "REFUSED: it is player 2 (Pi)'s turn: the Pi plays it" in out.getvalue()


def test_chip_leds_show_the_chips_of_the_player_to_move_and_refusals_blink(tmp_path):
    factory = MockFactory(pin_class=MockPWMPin)
    g_cfg = load_config(write_config(tmp_path)).section("gpio")
    gpio = StacksGpio(g_cfg, pin_factory=factory)
    g = StacksGame(2, known=False)
    g.chips[0] = {"R": 2, "B": 0}
    g.piles = [Pile("B", ["B1", "B2", "B3", "B4"])]
    t, out, _ = _table(g, listeners=[gpio])
    t.handle("R3 new")                                      # refused
    assert gpio.patterns[-1] == "warning"
    t.handle("B5")
    t.handle("")                                            # no Block: the blue chip
    red, blue = g_cfg["turn_leds"][:2]
    assert factory.pin(red).state == 1                      # two reds: what the win needs
    assert gpio.patterns[-1] == "sequence" and g.chips[0]["B"] == 1
    gpio.close()


def test_stacks_command_checks_its_arguments(tmp_path, capsys):
    assert main(["stacks", "--players", "7", "--records", str(tmp_path)]) == 2
    assert "2 to 6 players" in capsys.readouterr().err
    assert main(["stacks", "--players", "2", "--computer", "3", "--records", str(tmp_path)]) == 2
    assert "seat 3 is not one of 1..2" in capsys.readouterr().err


def test_stacks_command_plays_from_typed_lines(tmp_path, capsys, monkeypatch):
    cfg = write_config(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("R1 new\nx R3\nquit\n"))
    assert main(["stacks", "--players", "2", "--config", str(cfg), "--records", str(tmp_path / "rec"),
                 "--mock-gpio", "--no-dashboard"]) == 0
    out = capsys.readouterr().out
    assert "player 1 starts red pile 1 with red 1" in out and "player 1 discards red 3" in out
    rec = next((tmp_path / "rec").glob("*-stacks.jsonl"))
    steps = replay(parse_record(rec.read_text(), str(rec)).entries)
    assert [s["ok"] for s in steps] == [True, True, True]
    assert main(["replay", str(rec)]) == 0
    assert "ok  player 1 starts red pile 1 with red 1" in capsys.readouterr().out
