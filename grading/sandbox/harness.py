"""Serve the student's game calls from the reference game, in the grader process.

States and actions never cross the pipe: the student receives integer handles issued here and
can only hand back handles it was given, so it cannot fabricate a position. Every call is
appended to a log that only this process holds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.errors import EngineError
from engine.game import CHANCE, Evaluator, Game

from .errors import ProtocolViolation
from .record import CallEvent


@dataclass(frozen=True)
class StateArg:
    """Mark an entry point argument as a game state, passed to the student as a handle."""

    state: Hashable


class GameFailure(Exception):
    """The reference game itself failed (not the student): the run is a sandbox error."""


class _Interner:
    """Issue stable integer handles for hashable values, and check handles coming back."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._ids: dict[Hashable, int] = {}
        self._values: list[Hashable] = []

    def handle(self, value: Hashable) -> int:
        handle = self._ids.get(value)
        if handle is None:
            handle = self._ids[value] = len(self._values) + 1
            self._values.append(value)
        return handle

    def value(self, handle: object) -> Hashable:
        if isinstance(handle, bool) or not isinstance(handle, int):
            raise ProtocolViolation(f"{self.kind} handle {handle!r} is not an integer")
        if not 1 <= handle <= len(self._values):
            raise ProtocolViolation(
                f"unknown {self.kind} handle {handle}: {self.kind}s can only come from the game")
        return self._values[handle - 1]


_SIGNATURES: dict[str, tuple[str, ...]] = {
    "players": (),
    "to_move": ("state",),
    "actions": ("state",),
    "result": ("state", "action"),
    "is_terminal": ("state",),
    "utility": ("state", "player"),
    "chance_outcomes": ("state",),
    "evaluate": ("state", "player"),
}


class GameServer:
    """Answer ``call`` frames against ``game`` and record them as :class:`CallEvent`."""

    def __init__(self, game: Game[Any, Any], *, evaluator: Evaluator[Any] | None = None,
                 players: Sequence[str] | None = None,
                 recorder: Callable[[CallEvent], None] | None = None) -> None:
        self.game = game
        self.evaluator = evaluator
        self.players = tuple(players) if players is not None else _players_of(game)
        self.recorder = recorder
        self.calls: list[CallEvent] = []
        self._states = _Interner("state")
        self._actions = _Interner("action")

    def start_args(self, args: Sequence[object]) -> list[Any]:
        """Encode the entry point's arguments, turning :class:`StateArg` into handles."""
        return [{"s": self._states.handle(arg.state)} if isinstance(arg, StateArg)
                else _plain(arg) for arg in args]

    def serve(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer one ``call`` frame; raise ProtocolViolation for anything forged."""
        method, raw_args = message.get("method"), message.get("args")
        if set(message) != {"op", "method", "args"} or not isinstance(method, str) \
                or method not in _SIGNATURES or not isinstance(raw_args, list):
            raise ProtocolViolation(f"malformed call frame: {_excerpt(message)}")
        signature = _SIGNATURES[method]
        if len(raw_args) != len(signature):
            raise ProtocolViolation(
                f"{method}() takes {len(signature)} arguments, frame has {len(raw_args)}")
        state = action = player = None
        handle: int | None = None
        for kind, raw in zip(signature, raw_args, strict=True):
            if kind == "state":
                state = self._states.value(_ref(raw, "s"))
                handle = self._states.handle(state)
            elif kind == "action":
                action = self._actions.value(_ref(raw, "a"))
            elif not isinstance(raw, str):
                raise ProtocolViolation(
                    f"{method}() player must be a string, got {_excerpt(raw)}")
            else:
                player = raw
        event = dict(kind=method, state=state, handle=handle, action=action, player=player)
        try:
            value = self._answer(method, state, action, player)
        except _Refused as refusal:
            self._record(event, error=str(refusal))
            return {"error": str(refusal)}
        try:
            answer = self._encode_answer(method, value)
        except TypeError as exc:  # an unhashable state or action from the reference game
            raise GameFailure(f"the reference game answered {method}() with {exc}") from exc
        child_handle = answer["s"] if method == "result" else None
        self._record(event, value=value, child_handle=child_handle)
        return {"value": answer}

    def decode_return(self, payload: object) -> Any:
        """Turn the student's returned value back into real actions, states and numbers."""
        if isinstance(payload, list):
            return [self.decode_return(item) for item in payload]
        if isinstance(payload, dict):
            if set(payload) == {"a"}:
                return self._actions.value(payload["a"])
            if set(payload) == {"s"}:
                return self._states.value(payload["s"])
            if set(payload) == {"t"} and isinstance(payload["t"], list):
                return tuple(self.decode_return(item) for item in payload["t"])
            if set(payload) == {"f"} and isinstance(payload["f"], list) \
                    and len(payload["f"]) == 2 and all(type(x) is int for x in payload["f"]) \
                    and payload["f"][1] != 0:
                return Fraction(*payload["f"])
            raise ProtocolViolation(f"malformed return value: {_excerpt(payload)}")
        if payload is None or isinstance(payload, bool | int | float | str):
            return payload
        raise ProtocolViolation(f"malformed return value: {_excerpt(payload)}")

    def _record(self, fields: dict[str, Any], **extra: Any) -> None:
        event = CallEvent(index=len(self.calls), **fields, **extra)
        self.calls.append(event)
        if self.recorder is not None:
            self.recorder(event)

    def _answer(self, method: str, state: Any, action: Any, player: str | None) -> Any:
        game = self.game
        try:
            if method == "players":
                if self.players is None:
                    raise _Refused("this game does not list its players")
                return list(self.players)
            if method == "to_move":
                return game.to_move(state)
            if method == "actions":
                return list(game.actions(state))
            if method == "is_terminal":
                return bool(game.is_terminal(state))
            if method == "utility":
                # The contract refuses it: the games score a position still in play as 0.
                if not game.is_terminal(state):
                    raise _Refused("the state is not terminal: only a terminal state has a "
                                   "utility")
                return game.utility(state, str(player))
            if method == "chance_outcomes":
                return [(a, Fraction(p)) for a, p in game.chance_outcomes(state)]
            if method == "evaluate":
                if self.evaluator is None:
                    raise _Refused("this exercise has no evaluation function")
                return self.evaluator(state, str(player))
            # result: the action must be legal here, whichever state it was listed for.
            legal = ([a for a, _ in game.chance_outcomes(state)]
                     if not game.is_terminal(state) and game.to_move(state) == CHANCE
                     else list(game.actions(state)))
            if action not in legal:
                raise _Refused(f"action {action!r} is not legal in this state")
            return game.result(state, action)
        except _Refused:
            raise
        except Exception as exc:
            # The engine's own errors (and ValueError) mean "illegal request", not a bug.
            if isinstance(exc, EngineError | ValueError):
                raise _Refused(str(exc)) from exc
            raise GameFailure(f"the reference game failed in {method}(): {exc!r}") from exc

    def _encode_answer(self, method: str, value: Any) -> Any:
        if method == "result":
            return {"s": self._states.handle(value)}
        if method == "actions":
            return [self._action(action) for action in value]
        if method == "chance_outcomes":
            return [{"t": [self._action(action), _number(p)]} for action, p in value]
        if method in ("utility", "evaluate"):
            return _number(value)
        if method == "to_move" and not isinstance(value, str):
            raise GameFailure(f"the reference game's to_move() answered {value!r}, not a str")
        return value

    def _action(self, action: Hashable) -> dict[str, Any]:
        return {"a": self._actions.handle(action), "label": str(action)}


class _Refused(Exception):
    """The game refused a student's call; the student sees it as ``GameError``."""


def _number(value: object) -> Any:
    if isinstance(value, Fraction):
        return {"f": [value.numerator, value.denominator]}
    if isinstance(value, int | float) and not isinstance(value, bool) \
            and value == value and abs(value) != float("inf"):
        return value
    raise GameFailure(f"the reference game answered {value!r} where a number was expected")


def _players_of(game: object) -> tuple[str, ...] | None:
    players = getattr(game, "players", None)
    if callable(players):
        players = players()
    return tuple(players) if players is not None else None


def _ref(raw: object, tag: str) -> object:
    if not isinstance(raw, dict) or set(raw) != {tag}:
        kind = "state" if tag == "s" else "action"
        raise ProtocolViolation(f"expected a {kind} handle, got {_excerpt(raw)}")
    return raw[tag]


def _plain(value: object) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    raise TypeError(f"entry point arguments must be JSON scalars, lists or StateArg, "
                    f"not {type(value).__name__}")


def _excerpt(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
