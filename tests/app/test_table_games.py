"""Whole games through the app's one path (source -> referee -> indicators -> record) on a
simulated table read by a perfect sensor; the camera and the matrix have their own tests."""

from __future__ import annotations

import json

from gpiozero.pins.mock import MockFactory, MockPWMPin

from engine.observation import SpaceState
from engine.record import parse_record, replay
from seqboard.app import Pacer, load_settings, open_session, run
from seqboard.modes.computer import ComputerSeats
from seqboard.indicators.gpio import GpioIndicators
from seqboard.loop import Commands
from seqboard.sources.table import DirectSource, Director, Mistake, Table

from .helpers import pin_history, write_config


def _demo_session(tmp_path, seed=5, **cfg):
    path = write_config(tmp_path, **cfg)
    conf = load_settings(str(path))
    session = open_session(conf, "demo", tmp_path / "records", False, seed=seed, full_game=True,
                           computers={0: "greedy", 1: "greedy"})
    return conf, session


def test_demo_game_lights_the_right_indicators_at_the_right_moves(tmp_path):
    conf, session = _demo_session(tmp_path)
    factory = MockFactory(pin_class=MockPWMPin)
    g = conf.section("gpio")
    gpio = GpioIndicators(g, 2, ("B", "G"), pin_factory=factory)
    seen = []

    def snapshot(event, view):
        seen.append((event.kind, event.verdict.rule if event.verdict else None,
                     factory.pin(g["turn_leds"][0]).state, factory.pin(g["turn_leds"][1]).state,
                     factory.pin(g["dead_card_led"]).state, view["move_number"] + (1000 if view["over"] else 0)))

    session.subscribe(gpio)
    session.subscribe(snapshot)
    table = Table(10, 10)
    director = Director(session, table, seed=5, mistakes=(Mistake(4, "colour"), Mistake(11, "space")))
    run(session, DirectSource(table), commands=Commands(), pacer=Pacer(real=False, speed=40),
        step=director.step, tick=0.1, until=lambda: session.ended, closers=[])
    kinds = [s[0] for s in seen]
    # The wrong-colour chip at turn 4 and the chip on the wrong space at turn 11 both warn.
    rules = [s[1] for s in seen if s[0] == "warning"]
    assert rules[:2] == ["out_of_turn", "not_proposed"]
    # After each verdict the turn LED of the team to move is lit and the other is off.
    for kind, _, blue, green, _, n in seen:
        if kind == "verdict" and n < 1000:
            assert (blue, green) == ((1.0, 0.0) if n % 2 == 0 else (0.0, 1.0))
    # The illegal-move LED came on after the first warning.
    warn_at = factory.pin(g["illegal_led"]).states
    assert any(s.state for s in warn_at[1:]), "illegal LED never lit"
    # A dead card was traded in this game, and the dead-card LED was lit by then.
    dead = [s for s in seen if s[0] == "dead_card"]
    assert dead and dead[0][4] == 1.0
    # The game was won; the buzzer sounded the game-over pattern last.
    winner = session.referee.winner
    assert kinds[-1] == "game_over" and winner is not None
    assert gpio.patterns[-1] == "game_over"
    assert any(state for _, state in pin_history(factory, g["buzzer"]))
    # The record replays to the same result, every step checked.
    text = session.recorder.path.read_text("utf-8")
    result = replay(parse_record(text, "demo"))
    assert result.ok and result.winner == winner and result.over
    entries = [json.loads(x) for x in text.splitlines()]
    assert any(e.get("event") == "reject" for e in entries)
    gpio.close()


def test_play_mode_pi_move_counts_only_once_placed_where_it_chose(tmp_path):
    path = write_config(tmp_path, game={"computer_seats": [2]})
    conf = load_settings(str(path))
    session = open_session(conf, "play", tmp_path / "records", False, seed=3, full_game=False,
                           computers={1: "greedy"})
    pi = ComputerSeats(session, {1: "greedy"}, seed=3)
    table = Table(10, 10)
    source = DirectSource(table, settle=0.2)
    now = [0.0]

    def settle():
        for _ in range(5):
            now[0] += 0.1
            pi.step(now[0])
            obs = source.poll(now[0])
            if obs is not None:
                session.observe(obs)

    # A person (blue, seat 1) puts a chip on any legal space.
    table.set(session.referee.layout.parse_space("b2"), SpaceState.BLUE)
    settle()
    assert session.referee.current == 1 and session.proposal is not None
    move, _ = session.proposal
    hand_before = list(pi.hands[1])
    assert move.card in hand_before
    # The person puts the Pi's chip on another space: refused, the move does not count.
    wrong = next(i for i, c in enumerate(session.referee.board.cells)
                 if c == 0 and i != move.space and i not in session.referee.layout.free)
    table.set(wrong, SpaceState.GREEN)
    settle()
    assert session.warning is not None and session.warning.rule == "not_proposed"
    assert session.referee.current == 1 and len(session.referee.moves) == 1
    # Moved to the space the Pi chose: it counts, the warning clears, the Pi draws.
    table.set(wrong, SpaceState.EMPTY)
    table.set(move.space, SpaceState.GREEN)
    settle()
    assert session.warning is None and session.referee.current == 0
    assert session.referee.board.cells[move.space] == 2
    assert move.card not in pi.hands[1] or hand_before.count(move.card) > 1
    assert len(pi.hands[1]) == len(hand_before)
    result = replay(parse_record(session.recorder.path.read_text("utf-8"), "play"))
    assert result.ok
