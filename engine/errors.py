"""The engine's exception tree: every message says what is wrong and how to fix it."""


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class ProblemError(EngineError):
    """A problem, tree or parameter is malformed; the message names the node/field and rule."""

    def __init__(self, message: str, *, node: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.field = field


class UnknownKindError(ProblemError):
    """The problem's ``kind`` is not one the engine solves."""


class GameError(EngineError):
    """A game position or move sequence is illegal; the message names the offending input."""
