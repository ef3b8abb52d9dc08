"""Each benchmark runs and prints, with --json, one flat object with the keys the issues
name. (The figures themselves are for the notes, never asserted: the machines are shared.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"

CASES = {
    "engine.py": (["--seconds", "0.3"], ["classic_random_games_per_s", "sequence_check_us",
                                         "classic_legal_moves_games_per_s",
                                         "stacks_random_games_per_s"]),
    "bridge.py": (["--seconds", "0.3", "--snapshots", "3"],
                  [f"{k}_{b}" for k in ("led_frames_per_s", "led_wire_ratio", "snapshot_rtt_ms")
                   for b in (115200, 1000000)]),
    # the filmed games' keys come from video.py's own run (vision.py --quick films one game
    # through the same code: left out here, 14 s of CI)
    "vision.py": (["--quick", "--video-games", "0"],
                  ["space_accuracy", "board_accuracy", "ms_per_frame_720p", "ms_per_frame_1080p",
                   "by_condition", "heldout_space_accuracy", "heldout_wrong_rate",
                   "heldout_wrong_under_hands", "heldout_unknown_rate", "heldout_board_accuracy",
                   "calibration_wrong_grids", "calibration_success_rate",
                   "uncalibrated_space_accuracy", "veto_ms_per_frame"]),
    "video.py": (["--quick"],
                 ["video_phantom_moves", "video_missed_moves", "video_moves_caught_up",
                  "video_games_recovered", "video_games_with_hidden_moves"]),
    "cards.py": (["--quick", "--views", "20", "--games", "1"],
                 ["card_accuracy", "card_wrong_rate", "card_unknown_rate", "card_ms",
                  "clear_card_accuracy", "card_views", "wrong_space_caught_rate",
                  "false_violation_rate", "game_cards_read_rate", "game_records_replayed",
                  "card_unknown_not_found", "card_unknown_rectangles_disagree",
                  "card_unknown_not_read_surely"]),
    "stacks_cards.py": (["--views", "6", "--games", "1", "--max-actions", "4"],
                        ["stacks_card_accuracy", "stacks_card_wrong_rate",
                         "stacks_card_unknown_rate", "stacks_card_ms",
                         "stacks_clear_card_accuracy", "stacks_card_views",
                         "stacks_table_actions", "stacks_table_camera_rate",
                         "stacks_table_wrong_actions", "stacks_table_typed",
                         "stacks_table_games_in_step", "stacks_table_turns_right",
                         "stacks_table_wrong_verdicts"]),
    "jewish_cards.py": (["--views", "6", "--per-look", "6", "--split", "tuned"],
                        ["jewish_card_accuracy", "jewish_card_wrong_rate", "jewish_card_ms",
                         "jewish_card_unknown_rate", "jewish_clear_card_accuracy",
                         "jewish_card_views", "jewish_word_card_accuracy"]),
    "dashboard.py": (["--clients", "3", "--many", "200", "--moves", "4", "--tick", "0.01"],
                     ["dashboard_latency_ms_p95", "dashboard_loop_slowdown",
                      "dashboard_latency_ms_p95_200", "dashboard_loop_slowdown_200"]),
    "faults.py": (["--quick", "--glitches", "6", "--late", "2"],
                  ["glitched_snapshot_phantoms", "bad_inputs_tried", "bad_input_tracebacks",
                   "idle_connections_held", "verdict_latency_ratio_under_flood",
                   "pin_owner_locked_out"]),
    "remote.py": (["--quick"], ["remote_move_latency_ms_p95", "club_tables",
                                "club_move_latency_ms_p95", "broker_cpu_percent",
                                "club_cpu_percent"]),
    "players.py": (["--games", "1", "--jobs", "1"],
                   ["hard_vs_greedy_win_rate", "medium_vs_greedy_win_rate",
                    "hard_ms_per_move_median", "stacks_hard_vs_greedy_win_rate"]),
}


@pytest.mark.parametrize("script", sorted(CASES))
def test_benchmark_prints_its_figures(script):
    args, keys = CASES[script]
    out = subprocess.run([sys.executable, str(BENCH / script), "--json", *args],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    for k in keys:
        assert k in figures, k
    assert all(not isinstance(v, (list, dict)) for k, v in figures.items()
               if k not in ("by_condition", "heldout_by_family"))


def test_vision_calibrated_only_prints_the_held_out_reading_alone():
    # session ten: the calibrated reader's held-out figures without the reading without
    # calibration, the calibration scenes or the timing (the same frames as a full run)
    out = subprocess.run([sys.executable, str(BENCH / "vision.py"), "--json", "--quick",
                          "--calibrated-only"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    for k in ("heldout_space_accuracy", "heldout_wrong_rate", "heldout_wrong_under_hands",
              "heldout_unknown_rate", "heldout_board_accuracy", "heldout_by_family"):
        assert k in figures, k
    assert figures["heldout_frames"] == 6
    assert not [k for k in figures if not k.startswith("heldout_")]
