"""The engine's exceptions: one root, each refining the builtin it is a kind of."""


class EngineError(Exception):
    """Root of every error the engine raises on purpose."""


class LayoutError(EngineError, ValueError):
    """A board layout file is malformed (the message names the line and the reason)."""


class CardError(EngineError, ValueError):
    """A card code cannot be parsed, or is not in the edition's deck."""


class IllegalMoveError(EngineError, ValueError):
    """A move breaks the rules in the current position."""


class RecordError(EngineError, ValueError):
    """A game record line is malformed or inconsistent with the game so far."""


class ObservationError(EngineError, ValueError):
    """An observation does not fit the board (wrong size, unknown symbol)."""
