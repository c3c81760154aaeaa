"""What the host does to a run is not blamed on the student, and what the student does to its
own run is not blamed on the host (reaching the memory limit only to have the page cache
reclaimed, or the host's OOM killer, is not running out of memory either:
tests/grading/sandbox/test_cgroups.py)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from grading.sandbox import CallEvent

from .conftest import TEST_UID, Runner


def kill_bubblewrap(_event: CallEvent) -> None:
    """SIGKILL the run's bubblewrap from the host, outside the student's reach."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == TEST_UID \
                    and (entry / "comm").read_text().strip() == "bwrap":
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            continue


def test_a_run_killed_from_outside_the_sandbox_is_the_hosts_failure(run: Runner) -> None:
    record = run("import time\ndef solve(game, state):\n    game.actions(state)\n"
                 "    time.sleep(30)\n", recorder=kill_bubblewrap)

    assert (record.verdict, record.ending) == ("sandbox_error", "killed_by_host")
    assert dict(record.ending_params) == {"signal": "SIGKILL"}


def test_a_run_that_lowers_its_own_cpu_limit_is_killed_by_its_own_doing(run: Runner) -> None:
    # The kernel's SIGKILL comes long before the run's CPU limit, with no OOM anywhere.
    record = run("import resource\ndef solve(game, state):\n"
                 "    resource.setrlimit(resource.RLIMIT_CPU, (0, 0))\n"
                 "    while True:\n        pass\n")

    assert (record.verdict, record.ending) == ("runtime_error", "crashed")
    assert dict(record.ending_params) == {"signal": "SIGKILL"}
