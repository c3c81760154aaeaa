"""The wall-clock limit counts a run's own time: the time the host takes from it is not the
student's, and a host too busy to time a run fairly fails the run as its own error."""

from __future__ import annotations

import time
from collections.abc import Sequence

from grading.sandbox import RunRecord
from tests.grading.sandbox.conftest import FAST, Runner, TreeGame, one_cpu_shared_with

ONE_SECOND = FAST.override(wall_seconds=1.0)
CALLING = "def solve(game, state):\n    for _ in range({calls}):\n        game.actions(state)\n" \
          "    return 1\n"
SPINNING = """import time
def solve(game, state):
    began = time.process_time()
    while time.process_time() - began < 1.5:
        pass
    return 1
"""
"""Needs 1.5 s of CPU: more than the 1 s wall limit, but well within the CPU limit."""


class SlowGrader(TreeGame):
    """A game whose grader spends ``seconds`` of CPU time answering each ``actions`` call."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def actions(self, state: str) -> Sequence[str]:
        began = time.thread_time()
        while time.thread_time() - began < self.seconds:
            pass
        return super().actions(state)


def ending(record: RunRecord) -> tuple[str, str]:
    return record.verdict, record.ending


def test_the_time_the_grader_takes_to_answer_is_not_the_students(run: Runner) -> None:
    record = run(CALLING.format(calls=24), game=SlowGrader(0.05), limits=ONE_SECOND)

    assert ending(record) == ("ok", "returned")
    assert record.wall_seconds > ONE_SECOND.wall_seconds
    assert record.host_seconds >= 24 * 0.05


def test_calls_that_keep_the_grader_busy_past_twice_the_limit_are_the_runs_time(
        run: Runner) -> None:
    # The grader's time answering is excused up to twice the limit; past it, the run's own
    # calls are why it ran long (a loop of calls is the student's, on any host).
    record = run(CALLING.format(calls=100), game=SlowGrader(0.05), limits=ONE_SECOND)

    assert ending(record) == ("time_limit", "wall_limit")
    # Stopped at twice the limit, not after the 5 s the grader would have taken.
    assert 2 * ONE_SECOND.wall_seconds <= record.wall_seconds < 4


def test_a_run_starved_of_cpu_by_other_work_is_the_hosts_failure_not_a_time_limit(
        run: Runner) -> None:
    with one_cpu_shared_with(competitors=3):
        record = run(SPINNING, limits=ONE_SECOND)

    assert ending(record) == ("sandbox_error", "host_busy"), (
        record.wall_seconds, record.cpu_seconds, record.host_seconds)
    assert record.host_seconds > 0.5


def test_a_run_competing_with_its_own_children_is_timed_as_it_ran(run: Runner) -> None:
    forking = """import os
def solve(game, state):
    for _ in range(3):
        if os.fork() == 0:
            while True:
                pass
    while True:
        pass
"""
    with one_cpu_shared_with(competitors=0):
        record = run(forking, limits=ONE_SECOND)

    assert ending(record) == ("time_limit", "wall_limit")


def test_children_that_keep_the_grader_waiting_do_not_make_the_host_busy(run: Runner) -> None:
    calling_forker = """import os
def solve(game, state):
    for _ in range(2):
        if os.fork() == 0:
            while True:
                pass
    while True:
        game.actions(state)
"""
    with one_cpu_shared_with(competitors=0):
        record = run(calling_forker, limits=ONE_SECOND)

    assert ending(record) == ("time_limit", "wall_limit")


def test_sleeping_is_the_students_own_time(run: Runner) -> None:
    record = run("import time\ndef solve(game, state):\n    time.sleep(30)\n", limits=ONE_SECOND)

    assert ending(record) == ("time_limit", "wall_limit")
    assert record.wall_seconds < 2


def test_a_budget_shorter_than_the_limit_stops_the_run_as_the_budgets(run: Runner) -> None:
    record = run("import time\ndef solve(game, state):\n    time.sleep(30)\n", limits=FAST,
                 budget_left=1.0)

    assert ending(record) == ("time_limit", "time_budget")
    assert record.wall_seconds < FAST.wall_seconds
