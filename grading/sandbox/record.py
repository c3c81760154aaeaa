"""What one sandboxed run produced: its verdict, its return value and every game call it made."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from .limits import SandboxLimits

Verdict = Literal["ok", "runtime_error", "time_limit", "memory_limit", "output_limit",
                  "illegal_operation", "sandbox_error"]
VERDICTS: tuple[Verdict, ...] = ("ok", "runtime_error", "time_limit", "memory_limit",
                                 "output_limit", "illegal_operation", "sandbox_error")

RUN_ENDINGS: dict[str, str] = {
    "returned": "returned normally",
    "not_started": "the sandbox did not start: {detail}",
    "out_of_memory": "ran out of memory (limit {limit_bytes} bytes)",
    "raised": "raised {exception}",
    "memory_killed": "killed for exceeding the memory limit of {limit_bytes} bytes",
    "cpu_limit": "CPU limit of {seconds} s exceeded",
    "wall_limit": "wall-clock limit of {seconds} s exceeded",
    "time_budget": "stopped when the {seconds} s left of the time its submission's runs share "
                   "ran out",
    "host_busy": "not timed fairly: the host took {host_seconds} s of its {elapsed} s",
    "killed_by_host": "killed from outside the sandbox ({signal}), not by a limit of the run",
    "crashed": "crashed with {signal}",
    "crashed_deep_recursion": "crashed with {signal} (for example recursion too deep)",
    "no_result": "exited with status {status} without returning a result",
    "output_limit": "{stream} exceeded the {limit_bytes}-byte limit",
    "too_many_calls": "made more than {limit} game calls",
    "protocol_violation": "{detail}",
    "game_failure": "{detail}",
}
"""How a run can end, by code, in English (a record's ``message``). Graders show the ending
to students in their language from ``ending`` and ``ending_params``, not from the English."""

CALL_KINDS = ("players", "to_move", "actions", "result", "is_terminal", "utility",
              "chance_outcomes", "evaluate")


@dataclass(frozen=True)
class CallEvent:
    """Record one game call the student's code made; ``index`` is its place in the run.

    ``state`` is the grader's real state (``handle`` is the id the student saw); ``value`` is
    what the game answered (for ``result``, the new state, whose id is ``child_handle``);
    ``error`` is the game's refusal message when the call was illegal.
    """

    index: int
    kind: str
    state: Hashable | None = None
    handle: int | None = None
    action: Hashable | None = None
    player: str | None = None
    value: Any = None
    child_handle: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class RunRecord:
    """Describe one run of student code in the sandbox.

    ``traceback`` shows only the student's frames; ``stdout``/``stderr`` are capped at the
    limits' ``max_output_bytes`` (``*_truncated`` says whether more was written);
    ``exit_status`` is the sandbox's exit code, negative for a signal; ``cgroup`` says which
    per-run cgroup bounded the run or why none could (``"unavailable: <reason>"``).
    """

    verdict: Verdict
    message: str
    return_value: Any
    calls: tuple[CallEvent, ...]
    traceback: str | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    wall_seconds: float
    cpu_seconds: float
    peak_memory_bytes: int | None
    cgroup: str
    exit_status: int | None
    limits: SandboxLimits
    ending: str = "returned"
    """Why the run ended: a key of :data:`RUN_ENDINGS`, with ``ending_params``."""
    ending_params: tuple[tuple[str, str | int | float], ...] = ()
    host_seconds: float = 0.0
    """Of ``wall_seconds``, the time the host took (the grader's CPU time answering calls, and
    ``waited_seconds``), which the wall-clock limit does not count; the waits are measured
    when the run returned or raised, or reached its limit."""
    waited_seconds: float = 0.0
    """Of ``host_seconds``, the time the run and the grader waited for a CPU held by other
    work: the host's load."""

    @property
    def ok(self) -> bool:
        """Return whether the student's function returned normally."""
        return self.verdict == "ok"

    def calls_of(self, *kinds: str) -> Iterator[CallEvent]:
        """Yield the calls of the given kinds, in order."""
        return (event for event in self.calls if event.kind in kinds)

    def generated_states(self) -> list[Hashable]:
        """Return the states the student generated with ``result()``, in order."""
        return [event.value for event in self.calls_of("result") if event.error is None]

    def evaluated_states(self) -> list[Hashable]:
        """Return the states whose ``utility`` or ``evaluate`` the student asked for, in order."""
        return [event.state for event in self.calls_of("utility", "evaluate")
                if event.error is None]

    def offered_actions(self, state: Hashable) -> set[Hashable]:
        """Return the actions the grader listed to the student for ``state``."""
        offered: set[Hashable] = set()
        for event in self.calls_of("actions", "chance_outcomes"):
            if event.state == state and event.error is None:
                offered.update(a[0] if event.kind == "chance_outcomes" else a
                               for a in event.value)
        return offered

    def was_offered(self, action: Hashable, state: Hashable) -> bool:
        """Return whether ``action`` came from an ``actions(state)`` answer the student asked
        for: a move returned without it was not found by searching."""
        return action in self.offered_actions(state)
