"""The errors of educable's library that a front end turns into one line (bridge.engine re-exports
them).  A module of its own with no imports, so that any module can raise them without importing
the Prolog engine."""


class Error(Exception):
    """What a command would refuse in one line (an unknown game, an illegal move, a bad option...):
    the Python library's refusal, ``educable.Error`` (defined here, so that an environment the library
    returned can raise it too)."""

    __module__ = "educable"


class PrologError(Exception):
    """A Prolog goal raised an error that is not about the user's input."""


class BadInput(ValueError):
    """The user's input (a position, move, name or number) is not acceptable."""


class UnknownGame(BadInput):
    """No loaded game file defines the game named; ``game`` is that name (a front end may add where
    to look for its file)."""

    def __init__(self, message: str, game: str) -> None:
        super().__init__(message)
        self.game = game


class ResourceLimit(Exception):
    """Prolog ran out of the stack or table space educable gives it."""


class RuleFileError(Exception):
    """A rule file did not load cleanly; the message names file and line."""
