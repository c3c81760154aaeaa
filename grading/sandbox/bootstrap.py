"""Run one student entry point inside the sandbox, reaching the game only through the grader.

This file is compiled into each run directory as ``bootstrap.pyc`` and executed by the system
``python3`` as the unprivileged sandbox user, so it uses the standard library only and holds
nothing secret:
the reference game, the answer and the call record all live in the grader process. Anything
here can be tampered with by the student's code; the grader trusts none of it and validates
every frame it receives.

Usage: ``python3 -I -S bootstrap.pyc READ_FD WRITE_FD NOTE_FD``
"""

from __future__ import annotations

import os
import struct
import sys

# The C helpers behind the json module: importing json itself (it pulls in re and enum) would
# cost several milliseconds of every run's start-up, a third of the sandbox's budget.
from _json import encode_basestring_ascii as _quote
from _json import scanstring as _scan_string

# typing is only for the type checker: importing it at run time costs as much as json.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

SOLUTION = "/sandbox/solution.py"
HEADER = struct.Struct(">I")
MAX_TRACEBACK_FRAMES = 40
MAX_TEXT = 16 * 1024
MAX_FRAME_BYTES = 1024 * 1024
"""The grader's limit on one frame (``protocol.MAX_FRAME_BYTES``); a bigger one is a violation."""
CHANCE = "chance"
MAIN_PID = os.getpid()


class GameError(Exception):
    """The game refused a call, e.g. an action that is not legal in the state."""


class State:
    """Stand for a game state the grader issued, by an opaque handle (equal handles, equal
    states)."""

    __slots__ = ("_handle",)

    def __init__(self, handle: int) -> None:
        self._handle = handle

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other._handle == self._handle

    def __hash__(self) -> int:
        return hash(("state", self._handle))

    def __repr__(self) -> str:
        return f"<State {self._handle}>"


class Action:
    """Stand for an action by an opaque handle; ``label`` is the action's printable name."""

    __slots__ = ("_handle", "label")

    def __init__(self, handle: int, label: str) -> None:
        self._handle = handle
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other._handle == self._handle

    def __hash__(self) -> int:
        return hash(("action", self._handle))

    def __repr__(self) -> str:
        return f"<Action {self.label}>"

    def __str__(self) -> str:
        # The contract's "an action prints as its label": print(), str() and f-strings.
        return self.label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)


class Channel:
    """Send a request frame to the grader and wait for its single reply."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self.labels: dict[int, str] = {}

    def send(self, message: dict[str, Any]) -> None:
        body = dumps(message).encode()
        data = HEADER.pack(len(body)) + body
        while data:
            data = data[os.write(self._write_fd, data):]

    def _read_exactly(self, size: int) -> bytes:
        chunks = []
        while size:
            chunk = os.read(self._read_fd, size)
            if not chunk:
                raise SystemExit("the grader closed the channel")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def receive(self) -> Any:
        (length,) = HEADER.unpack(self._read_exactly(HEADER.size))
        return loads(self._read_exactly(length).decode())

    def request(self, message: dict[str, Any]) -> Any:
        self.send(message)
        return self.receive()

    def call(self, method: str, *args: object) -> Any:
        reply = self.request({"op": "call", "method": method, "args": [encode(a) for a in args]})
        if "error" in reply:
            raise GameError(reply["error"])
        return self.decode(reply["value"])

    def decode(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.decode(item) for item in value]
        if isinstance(value, dict):
            if "s" in value:
                return State(value["s"])
            if "a" in value:
                handle = value["a"]
                if "label" in value:
                    self.labels[handle] = value["label"]
                return Action(handle, self.labels.get(handle, str(handle)))
            if "f" in value:
                from fractions import Fraction

                return Fraction(*value["f"])
            if "t" in value:
                return tuple(self.decode(item) for item in value["t"])
        return value


def dumps(value: object) -> str:
    """Return ``value`` (already passed through :func:`encode`) as compact JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list):
        return "[" + ",".join(map(dumps, value)) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(_quote(key) + ":" + dumps(item) for key, item in value.items()) + "}"
    raise TypeError(f"cannot send a {type(value).__name__}")


def loads(text: str) -> Any:
    """Parse the compact JSON the grader's ``protocol.encode_frame`` writes (no whitespace)."""
    value, _ = _parse(text, 0)
    return value


def _parse(text: str, index: int) -> tuple[Any, int]:
    char = text[index]
    if char == '"':
        return _scan_string(text, index + 1)
    if char == "{":
        result: dict[str, Any] = {}
        if text[index + 1] == "}":
            return result, index + 2
        while True:
            key, index = _scan_string(text, index + 2)
            result[key], index = _parse(text, index + 1)
            if text[index] == "}":
                return result, index + 1
    if char == "[":
        items: list[Any] = []
        if text[index + 1] == "]":
            return items, index + 2
        while True:
            item, index = _parse(text, index + 1)
            items.append(item)
            if text[index] == "]":
                return items, index + 1
    for word, constant in (("null", None), ("true", True), ("false", False)):
        if text.startswith(word, index):
            return constant, index + len(word)
    end = index
    while end < len(text) and text[end] in "+-0123456789.eE":
        end += 1
    token = text[index:end]
    return (float(token) if any(c in token for c in ".eE") else int(token)), end


def encode(value: object) -> Any:
    """Turn a student value into JSON, handles back into references the grader can check.

    Only exact built-in types are accepted: a subclass could lie in its ``__repr__``.
    """
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("cannot return a NaN or infinite float")
        return value
    if isinstance(value, State):
        return {"s": value._handle}
    if isinstance(value, Action):
        return {"a": value._handle}
    fractions = sys.modules.get("fractions")
    if fractions is not None and isinstance(value, fractions.Fraction):
        return {"f": [value.numerator, value.denominator]}
    if type(value) is tuple:
        return {"t": [encode(item) for item in value]}
    if type(value) is list:
        return [encode(item) for item in value]
    raise TypeError(f"cannot return a value of type {type(value).__name__}")


def _state(value: object) -> State:
    if not isinstance(value, State):
        raise TypeError(f"expected a state from the game, got {type(value).__name__}")
    return value


def _player(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a player name (str), got {type(value).__name__}")
    return value


class Game:
    """Present the game to the student: the grader answers every method.

    Answers are typed ``Any`` because they are decoded from the grader's frames at run time.
    """

    CHANCE = CHANCE
    GameError = GameError

    def __init__(self, channel: Channel) -> None:
        self._channel = channel

    def players(self) -> Any:
        """Return the names of the players."""
        return self._channel.call("players")

    def to_move(self, state: State) -> Any:
        """Return the player to move in ``state``, or ``game.CHANCE`` at a chance node."""
        return self._channel.call("to_move", _state(state))

    def actions(self, state: State) -> Any:
        """Return the legal actions in ``state`` in the game's search order."""
        return self._channel.call("actions", _state(state))

    def result(self, state: State, action: Action) -> Any:
        """Return the state reached by playing ``action`` in ``state``."""
        if not isinstance(action, Action):
            raise TypeError(f"expected an action from the game, got {type(action).__name__}")
        return self._channel.call("result", _state(state), action)

    def is_terminal(self, state: State) -> Any:
        """Return whether the game is over in ``state``."""
        return self._channel.call("is_terminal", _state(state))

    def utility(self, state: State, player: str) -> Any:
        """Return the exact payoff of terminal ``state`` for ``player``."""
        return self._channel.call("utility", _state(state), _player(player))

    def chance_outcomes(self, state: State) -> Any:
        """Return ``(action, probability)`` pairs at a chance node."""
        return self._channel.call("chance_outcomes", _state(state))

    def evaluate(self, state: State, player: str) -> Any:
        """Return the heuristic value of ``state`` for ``player`` at a depth cutoff."""
        return self._channel.call("evaluate", _state(state), _player(player))


def student_traceback(exc: BaseException) -> str:
    """Format ``exc`` showing only frames of solution.py, named without any path."""
    import traceback

    if isinstance(exc, SyntaxError) and exc.filename == SOLUTION:
        exc.filename = "solution.py"
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if frame.filename == SOLUTION]
    hidden = max(0, len(frames) - MAX_TRACEBACK_FRAMES)
    lines = ["Traceback (most recent call last):\n"]
    if hidden:
        lines.append(f"  ... {hidden} earlier frames not shown ...\n")
    for frame in frames[hidden:]:
        lines.append(f'  File "solution.py", line {frame.lineno}, in {frame.name}\n')
        if frame.line:
            lines.append(f"    {frame.line}\n")
    lines.extend(traceback.format_exception_only(type(exc), exc))
    text = "".join(lines)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "\n... (truncated)\n"


def run(channel: Channel, note_fd: int) -> None:
    # Tell the grader the sandbox is up; the start frame is already waiting in the pipe.
    channel.send({"op": "hello"})
    start = channel.receive()
    try:
        # compile + exec rather than importlib.util, which costs milliseconds to import.
        module = type(sys)("solution")
        module.__file__ = SOLUTION
        sys.modules["solution"] = module
        with open(SOLUTION, "rb") as handle:
            code = compile(handle.read(), SOLUTION, "exec")
        exec(code, module.__dict__)
        function = getattr(module, start["entry"], None)
        if not callable(function):
            raise AttributeError(f"solution.py defines no function {start['entry']}()")
        value = function(Game(channel), *channel.decode(start["args"]))
        payload = {"op": "return", "value": encode(value)}
    except MemoryError:
        # Formatting a traceback could itself run out of memory: report the bare fact.
        payload = {"op": "error", "type": "MemoryError", "traceback": "MemoryError\n"}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are student errors too
        payload = {"op": "error", "type": type(exc).__name__, "traceback": student_traceback(exc)}
    if os.getpid() != MAIN_PID:
        # A process the student forked got here: only the original process reports. One that
        # ran out of memory says so on the note pipe: without a cgroup the grader has no
        # other way to know, and the main process sees at most that a child is gone.
        if payload.get("type") == "MemoryError":
            try:
                os.write(note_fd, b"M")
            except OSError:
                pass
        os._exit(0)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed or replaced stream must not hide the result
            pass
    if payload["op"] == "return" and len(dumps(payload)) > MAX_FRAME_BYTES - 1024:
        # An honest but huge answer is the student's error, not a forged frame.
        payload = {"op": "error", "type": "ValueError", "traceback": (
            f"ValueError: the return value is larger than {MAX_FRAME_BYTES} bytes\n")}
    channel.send(payload)


def main() -> NoReturn:
    run(Channel(int(sys.argv[1]), int(sys.argv[2])), int(sys.argv[3]))
    # Skip interpreter shutdown: student atexit hooks, threads and finalizers do not run.
    os._exit(0)


if __name__ == "__main__":
    main()
