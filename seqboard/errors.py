"""Errors that reach the user as one clear line and a non-zero exit, never a traceback."""


class UserError(Exception):
    """A mistake of the user's (bad file, missing device, wrong argument): shown as one line."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code
