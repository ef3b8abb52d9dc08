"""The app's view of the configuration: hw_config's file plus the rules engine's checks."""

from __future__ import annotations

from typing import Any

from engine.editions import Options, get_edition
from hw_config.config import Config, ConfigError, check_config, load_config

from .errors import UserError


def game_checks(d: dict[str, dict[str, Any]]) -> list[str]:
    """Problems only the rules know of: player counts, teams, colours, turn LEDs."""
    out: list[str] = []
    g = d["game"]
    ed = get_edition(g["edition"])
    n = g["players"]
    if n not in ed.player_counts:
        return [f"game.players: expected one of {', '.join(map(str, ed.player_counts))} "
                f"for {g['edition']}, got {n}"]
    teams = g["teams"] or ed.teams_for(n)
    if teams not in ed.valid_teams(n):
        out.append(f"game.teams: {n} players cannot form {teams} teams "
                   f"(expected {' or '.join(map(str, ed.valid_teams(n)))})")
    elif len(g["colours"]) < teams:
        out.append(f"game.colours: expected {teams} colours, got {len(g['colours'])}")
    gpio = d["gpio"]
    if gpio["enabled"] and gpio["turn_leds"] and len(gpio["turn_leds"]) < teams:
        out.append(f"gpio.turn_leds: expected at least {teams} pins (one per team), "
                   f"got {len(gpio['turn_leds'])}")
    layout = None
    from engine.errors import LayoutError
    try:
        layout = ed.load_layout(g["layout"] or None)
    except LayoutError as exc:
        out.append(f"game.layout: {exc}")
    table = d["leds"]["table"]
    if layout is not None and table and len(table) != layout.size:
        out.append(f"leds.table: expected one LED index for each of the {layout.size} spaces "
                   f"of the {layout.rows} x {layout.cols} board, got {len(table)}")
    return out


def load(path: str | None) -> Config:
    """Load and fully check the configuration, or fail with one line naming every mistake."""
    try:
        return load_config(path, extra_checks=game_checks)
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def check(path: str) -> list[str]:
    return check_config(path, extra_checks=game_checks)


def game_params(cfg: Config) -> dict[str, Any]:
    """Edition, players, teams, options, colours and layout for the engine."""
    g = cfg.section("game")
    o = cfg.section("game.options")
    ed = get_edition(g["edition"])
    teams = g["teams"] or ed.teams_for(g["players"])
    options = Options(advanced=o["advanced"], table_talk_penalty=o["table_talk_penalty"],
                      max_shared_spaces=o["max_shared_spaces"],
                      sequences_to_win=o["sequences_to_win"] or None,
                      check_card_supply=o["check_card_supply"])
    layout = ed.load_layout(g["layout"]) if g["layout"] else None
    return {"edition": ed, "n_players": g["players"], "n_teams": teams, "options": options,
            "colours": tuple(g["colours"][:teams]), "layout": layout,
            "first_player": g["first_player"] - 1}
