"""Run a student's entry point on many hidden tests: one sandbox run for all, one each on failure.

Starting a sandbox costs tens of milliseconds, so every test of a submission runs in ONE
sandbox process: the tests' games are combined into a :class:`SuiteGame` whose states are
``(test index, state)`` pairs, so each call the grader records names its test, and a small
driver appended to the student's source calls the entry point once per test. The driver runs
in the student's process and could be tampered with, but it only ever hands back the
student's own return values; everything graded comes from the grader's call log.

When that run does not end normally (an exception, a limit, an illegal operation), each test
runs again alone with the student's function as the entry point, so every test gets its own
verdict, its own limits and a traceback showing only the student's frames.

All runs of one submission share a :class:`Budget`, so a submission looping in every test
still ends well before the Celery task's time limit: a run is stopped when the budget's time
runs out, and tests left without time are judged ``time_limit`` without running.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.errors import GameError
from engine.game import Game
from grading.code.cases import SearchCase
from grading.code.feedback import message
from grading.sandbox import (
    CallEvent,
    RunRecord,
    SandboxConfig,
    SandboxLimits,
    StateArg,
    run_in_sandbox,
)
from grading.sandbox.record import RUN_ENDINGS
from grading.sandbox.runner import WALL_STRETCH

SUITE_ENTRY = "__cutoff_run_tests__"
DRIVER = '''

def {suite}(game, arity, *args):
    return [{entry}(game, *args[i:i + arity]) for i in range(0, len(args), arity)]
'''
"""Appended to the student's source for the batched run. It comes after the student's last
line, so line numbers in the student's tracebacks are unchanged. The tests' arguments come
flat (the sandbox hands states out only as top-level arguments), ``arity`` per test."""


MIN_RUN_SECONDS = 0.5
"""A run is not started with less time than this left in the budget."""


HOST_FAILURES = ("host_busy", "killed_by_host")
"""Endings of runs the host failed, not the sandbox's set-up: worth running again later."""


class SandboxFailed(Exception):
    """The sandbox itself failed (not the student's code): the submission cannot be graded.

    ``ending`` is the run's; the host's own failures (:data:`HOST_FAILURES`: too busy to time
    the run fairly, or killing it from outside) may well not happen again later.
    """

    def __init__(self, detail: str, ending: str) -> None:
        super().__init__(detail)
        self.ending = ending


class Budget:
    """The time all of one submission's sandbox runs may take together.

    ``seconds`` counts the runs' own time, as the wall-clock limit does (the time the host
    took from them is not the student's); in real time the runs may take ``WALL_STRETCH``
    times as long, after which the host was too busy to run them fairly.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.real_deadline = self.started + seconds * WALL_STRETCH
        self.used = 0.0
        """Own seconds of the runs so far."""
        self.waited = 0.0
        """Seconds the runs so far waited for a CPU held by other work: the host's load."""

    @classmethod
    def of(cls, seconds: float) -> Budget:
        """Return a budget of ``seconds`` from now."""
        return cls(seconds)

    def allowance(self) -> tuple[float, float] | None:
        """Return the own seconds and the real seconds left for the next run, or None when
        too little own time is left to start one.

        Once the real time is used up, the runs' own calls (the grader answering them) count
        as theirs again: too little left is then the student's when the time the runs did not
        wait for a CPU reached the budget, and otherwise the host's, raised as
        :class:`SandboxFailed` (``host_busy``).
        """
        own_left = self.seconds - self.used
        if own_left < MIN_RUN_SECONDS:
            return None
        now = time.monotonic()
        real_left = self.real_deadline - now
        if real_left < MIN_RUN_SECONDS:
            if now - self.started - self.waited >= self.seconds - MIN_RUN_SECONDS:
                return None
            raise SandboxFailed(f"the host took the real time of the submission's runs "
                                f"({self.waited:.1f} s waiting for a CPU)", "host_busy")
        return own_left, real_left

    def spend(self, record: RunRecord) -> None:
        """Count a finished run's own time."""
        self.used += max(0.0, record.wall_seconds - record.host_seconds)
        self.waited += record.waited_seconds

    @property
    def exhausted_message(self) -> dict[str, Any]:
        """Return why a test did not run."""
        return message("not_run", seconds=f"{self.seconds:g}")


@dataclass(frozen=True)
class Outcome:
    """How a sandbox run ended: its verdict, a message (as data), the student's traceback and
    the run's answer."""

    verdict: str
    message: dict[str, Any]
    traceback: str | None = None
    return_value: Any = None

    @classmethod
    def of(cls, record: RunRecord) -> Outcome:
        """Return the outcome of a finished run."""
        return cls(record.verdict, message(f"run_{record.ending}", **dict(record.ending_params)),
                   record.traceback, record.return_value)


class SuiteGame:
    """Play several tests' games at once: a state is ``(test index, that test's state)``."""

    def __init__(self, cases: Sequence[SearchCase]) -> None:
        self.cases = list(cases)

    def _split(self, state: tuple[int, Hashable]) -> tuple[Game[Any, Any], Hashable]:
        index, inner = state
        return self.cases[index].game, inner

    def to_move(self, state: tuple[int, Hashable]) -> str:
        """Return the test's game's player to move."""
        game, inner = self._split(state)
        return game.to_move(inner)

    def actions(self, state: tuple[int, Hashable]) -> Sequence[Hashable]:
        """Return the test's game's actions."""
        game, inner = self._split(state)
        return game.actions(inner)

    def result(self, state: tuple[int, Hashable], action: Hashable) -> tuple[int, Hashable]:
        """Return the test's game's result, tagged with the same test."""
        game, inner = self._split(state)
        return state[0], game.result(inner, action)

    def is_terminal(self, state: tuple[int, Hashable]) -> bool:
        """Return the test's game's terminal test."""
        game, inner = self._split(state)
        return game.is_terminal(inner)

    def utility(self, state: tuple[int, Hashable], player: str) -> Any:
        """Return the test's game's utility."""
        game, inner = self._split(state)
        return game.utility(inner, player)

    def chance_outcomes(self, state: tuple[int, Hashable]) -> Sequence[tuple[Hashable, Fraction]]:
        """Return the test's game's chance outcomes."""
        game, inner = self._split(state)
        return game.chance_outcomes(inner)

    def evaluate(self, state: tuple[int, Hashable], player: str) -> Any:
        """Return the test's heuristic value of the state; refuse where the test has none."""
        case = self.cases[state[0]]
        if case.evaluator is None:
            raise GameError("this test has no evaluation function: search to the end")
        return case.evaluator(state[1], player)


@dataclass(frozen=True)
class CaseRun:
    """What the student's code did on one test: how its run ended, its answer, its calls.

    ``calls`` are that test's calls with the test tag removed from every state; ``outcome``
    is the run's (shared by every test of a batched run), ``return_value`` this test's.
    """

    case: SearchCase
    outcome: Outcome
    return_value: Any
    calls: tuple[CallEvent, ...]

    @property
    def verdict(self) -> str:
        """Return the sandbox verdict of the run this test's answer came from."""
        return self.outcome.verdict

    def was_offered(self, action: Hashable) -> bool:
        """Return whether ``action`` came from an ``actions`` answer for the test's root."""
        return any(event.kind == "actions" and event.error is None
                   and event.state == self.case.root and action in event.value
                   for event in self.calls)


def state_args(case: SearchCase, index: int) -> list[object]:
    """Return the entry point's arguments after ``game`` for test ``index``."""
    return [StateArg((index, case.root)), *case.args]


def run_cases(source: str, entry_point: str, cases: Sequence[SearchCase], *,
              limits: SandboxLimits, budget: Budget, config: SandboxConfig | None = None
              ) -> list[CaseRun]:
    """Run ``entry_point`` on every case; return one :class:`CaseRun` per case, in order.

    Every case must pass the entry point as many arguments. Raise :class:`SandboxFailed`
    when the sandbox, not the student, failed.
    """
    suite = SuiteGame(cases)
    arity = 1 + len(cases[0].args) if cases else 1
    batch_args = [arity, *(arg for index, case in enumerate(cases)
                           for arg in state_args(case, index))]
    driver = DRIVER.format(suite=SUITE_ENTRY, entry=entry_point)
    record = run_within(budget, source + driver, SUITE_ENTRY, batch_args, suite, limits,
                        evaluator=suite.evaluate, config=config)
    answers = record.return_value if record is not None else None
    if record is not None and record.ok and isinstance(answers, list) \
            and len(answers) == len(cases):
        return [CaseRun(case, Outcome.of(record), answer, _calls_of(record, index))
                for index, (case, answer) in enumerate(zip(cases, answers, strict=True))]
    runs = []
    for index, case in enumerate(cases):
        single = run_within(budget, source, entry_point, state_args(case, index), suite, limits,
                            evaluator=suite.evaluate, config=config)
        if single is None:
            runs.append(CaseRun(case, Outcome("time_limit", budget.exhausted_message), None, ()))
        else:
            runs.append(CaseRun(case, Outcome.of(single), single.return_value,
                                _calls_of(single, index)))
    return runs


def run_within(budget: Budget, source: str, entry_point: str, args: Sequence[object],
               game: Any, limits: SandboxLimits, *, evaluator: Any = None,
               config: SandboxConfig | None = None) -> RunRecord | None:
    """Run in the sandbox within what is left of ``budget``; None when nothing is left.

    Raise :class:`SandboxFailed` when the sandbox itself failed.
    """
    allowance = budget.allowance()
    if allowance is None:
        return None
    own_left, real_left = allowance
    record = run_in_sandbox(source, entry_point, args, game, limits, evaluator=evaluator,
                            config=config, budget_left=own_left, stop_after=real_left)
    budget.spend(record)
    if record.verdict == "sandbox_error":
        raise SandboxFailed(record.message, record.ending)
    if record.ending == "time_budget":
        # The student is told the budget all the submission's runs share, not what was left.
        params = (("seconds", f"{budget.seconds:g}"),)
        record = dataclasses.replace(record, ending_params=params,
                                     message=RUN_ENDINGS["time_budget"].format(**dict(params)))
    return record


def _calls_of(record: RunRecord, index: int) -> tuple[CallEvent, ...]:
    """Return the calls of test ``index``, with states untagged."""
    calls = []
    for event in record.calls:
        if not isinstance(event.state, tuple) or event.state[0] != index:
            continue
        value = event.value
        if event.kind == "result" and event.error is None:
            value = value[1]
        calls.append(CallEvent(
            index=event.index, kind=event.kind, state=event.state[1], handle=event.handle,
            action=event.action, player=event.player, value=value,
            child_handle=event.child_handle, error=event.error,
        ))
    return tuple(calls)


def run_case_alone(source: str, entry_point: str, case: SearchCase, *, limits: SandboxLimits,
                   budget: Budget, config: SandboxConfig | None = None
                   ) -> tuple[CaseRun, RunRecord | None]:
    """Run ``entry_point`` on one case in its own sandbox run; return the case's run and the
    sandbox's record (None when the budget left no time), whose output a check shows.

    Raise :class:`SandboxFailed` when the sandbox, not the student, failed.
    """
    suite = SuiteGame([case])
    record = run_within(budget, source, entry_point, state_args(case, 0), suite, limits,
                        evaluator=suite.evaluate, config=config)
    if record is None:
        return CaseRun(case, Outcome("time_limit", budget.exhausted_message), None, ()), None
    return CaseRun(case, Outcome.of(record), record.return_value, _calls_of(record, 0)), record
