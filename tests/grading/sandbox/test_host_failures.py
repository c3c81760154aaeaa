"""What the host does to a run is not blamed on the student: a kill from outside the sandbox is
the host's failure (reaching the memory limit only to have the page cache reclaimed is not
running out of memory either: tests/grading/sandbox/test_cgroups.py)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from grading.sandbox import CallEvent

from .conftest import TEST_UID, Runner


def kill_the_sandboxed_interpreter(_event: CallEvent) -> None:
    """SIGKILL the run's interpreter from the host, as the host's OOM killer would."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == TEST_UID \
                    and b"bootstrap.pyc" in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue


def test_a_run_killed_from_outside_is_the_hosts_failure(run: Runner) -> None:
    record = run("import time\ndef solve(game, state):\n    game.actions(state)\n"
                 "    time.sleep(30)\n", recorder=kill_the_sandboxed_interpreter)

    assert (record.verdict, record.ending) == ("sandbox_error", "killed_by_host")
    assert dict(record.ending_params) == {"signal": "SIGKILL"}
