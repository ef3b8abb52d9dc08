"""seqboard's rules engine: pure, deterministic, standard library only."""

from .errors import (CardError, EngineError, IllegalMoveError, LayoutError, ObservationError,
                     RecordError)
from .observation import Observation, SpaceState
from .layout import Layout, parse_layout, space_name
from .editions import EDITIONS, Edition, Options, get_edition
from .board import Board, Sequence

__all__ = ["CardError", "EngineError", "IllegalMoveError", "LayoutError", "ObservationError",
           "RecordError", "Observation", "SpaceState", "Layout", "parse_layout", "space_name",
           "EDITIONS", "Edition", "Options", "get_edition", "Board", "Sequence"]
