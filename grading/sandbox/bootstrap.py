"""Run one student entry point inside the sandbox, reaching the game only through the grader.

This file is copied into the run directory and executed by the system ``python3`` as the
unprivileged sandbox user, so it uses the standard library only and holds nothing secret:
the reference game, the answer and the call record all live in the grader process. Anything
here can be tampered with by the student's code; the grader trusts none of it and validates
every frame it receives.

Usage: ``python3 -I -S bootstrap.py READ_FD WRITE_FD``
"""

import json
import os
import struct
import sys

SOLUTION = "/sandbox/solution.py"
HEADER = struct.Struct(">I")
MAX_TRACEBACK_FRAMES = 40
MAX_TEXT = 16 * 1024
CHANCE = "chance"
MAIN_PID = os.getpid()


class GameError(Exception):
    """The game refused a call, e.g. an action that is not legal in the state."""


class State:
    """An opaque handle to a game state the grader issued; equal handles are equal states."""

    __slots__ = ("_handle",)

    def __init__(self, handle):
        self._handle = handle

    def __eq__(self, other):
        return isinstance(other, State) and other._handle == self._handle

    def __hash__(self):
        return hash(("state", self._handle))

    def __repr__(self):
        return f"<State {self._handle}>"


class Action:
    """An opaque handle to an action; ``label`` is the action's printable name."""

    __slots__ = ("_handle", "label")

    def __init__(self, handle, label):
        self._handle = handle
        self.label = label

    def __eq__(self, other):
        return isinstance(other, Action) and other._handle == self._handle

    def __hash__(self):
        return hash(("action", self._handle))

    def __repr__(self):
        return f"<Action {self.label}>"


class Channel:
    """Send a request frame to the grader and wait for its single reply."""

    def __init__(self, read_fd, write_fd):
        self._read_fd = read_fd
        self._write_fd = write_fd
        self.labels = {}

    def send(self, message):
        body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode()
        data = HEADER.pack(len(body)) + body
        while data:
            data = data[os.write(self._write_fd, data):]

    def _read_exactly(self, size):
        chunks = []
        while size:
            chunk = os.read(self._read_fd, size)
            if not chunk:
                raise SystemExit("the grader closed the channel")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def request(self, message):
        self.send(message)
        (length,) = HEADER.unpack(self._read_exactly(HEADER.size))
        return json.loads(self._read_exactly(length))

    def call(self, method, *args):
        reply = self.request({"op": "call", "method": method, "args": [encode(a) for a in args]})
        if "error" in reply:
            raise GameError(reply["error"])
        return self.decode(reply["value"])

    def decode(self, value):
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


def encode(value):
    """Turn a student value into JSON, handles back into references the grader can check."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
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
    if isinstance(value, tuple):
        return {"t": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    raise TypeError(f"cannot return a value of type {type(value).__name__}")


def _state(value):
    if not isinstance(value, State):
        raise TypeError(f"expected a state from the game, got {type(value).__name__}")
    return value


def _player(value):
    if not isinstance(value, str):
        raise TypeError(f"expected a player name (str), got {type(value).__name__}")
    return value


class Game:
    """The game as the student sees it: every method is answered by the grader."""

    CHANCE = CHANCE
    GameError = GameError

    def __init__(self, channel):
        self._channel = channel

    def players(self):
        """Return the names of the players."""
        return self._channel.call("players")

    def to_move(self, state):
        """Return the player to move in ``state``, or ``game.CHANCE`` at a chance node."""
        return self._channel.call("to_move", _state(state))

    def actions(self, state):
        """Return the legal actions in ``state`` in the game's search order."""
        return self._channel.call("actions", _state(state))

    def result(self, state, action):
        """Return the state reached by playing ``action`` in ``state``."""
        if not isinstance(action, Action):
            raise TypeError(f"expected an action from the game, got {type(action).__name__}")
        return self._channel.call("result", _state(state), action)

    def is_terminal(self, state):
        """Return whether the game is over in ``state``."""
        return self._channel.call("is_terminal", _state(state))

    def utility(self, state, player):
        """Return the exact payoff of terminal ``state`` for ``player``."""
        return self._channel.call("utility", _state(state), _player(player))

    def chance_outcomes(self, state):
        """Return ``(action, probability)`` pairs at a chance node."""
        return self._channel.call("chance_outcomes", _state(state))

    def evaluate(self, state, player):
        """Return the heuristic value of ``state`` for ``player`` at a depth cutoff."""
        return self._channel.call("evaluate", _state(state), _player(player))


def student_traceback(exc):
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


def run(channel):
    start = channel.request({"op": "hello"})
    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location("solution", SOLUTION)
        module = importlib.util.module_from_spec(spec)
        sys.modules["solution"] = module
        spec.loader.exec_module(module)
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
        # A process the student forked got here: only the original process reports.
        os._exit(0)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed or replaced stream must not hide the result
            pass
    channel.send(payload)


def main():
    run(Channel(int(sys.argv[1]), int(sys.argv[2])))
    # Skip interpreter shutdown: student atexit hooks, threads and finalizers do not run.
    os._exit(0)


if __name__ == "__main__":
    main()
