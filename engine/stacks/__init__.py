"""SEQUENCE STACKS, the card game: rules, players, records (docs/stacks.md)."""

from .cards import parse_card, load_deck
from .game import Action, StacksGame, StacksOptions
from .players import GreedyStacksPlayer, RandomStacksPlayer, make_stacks_player, play_stacks_game

__all__ = ["Action", "GreedyStacksPlayer", "RandomStacksPlayer", "StacksGame", "StacksOptions",
           "load_deck", "make_stacks_player", "parse_card", "play_stacks_game"]
