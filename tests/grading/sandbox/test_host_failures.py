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


def kill_the_students_interpreter(_event: CallEvent) -> None:
    """SIGKILL the student's interpreter (bubblewrap's child) from the host, as an operator's
    ``kill -9`` would."""
    def stat_of(pid: str) -> tuple[str, str]:
        text = (Path("/proc") / pid / "stat").read_text()
        comm = text[text.index("(") + 1:text.rindex(")")]
        return comm, text[text.rindex(")") + 2:].split()[1]

    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or entry.stat().st_uid != TEST_UID:
                continue
            comm, parent = stat_of(entry.name)
            if comm != "bwrap" and stat_of(parent)[0] == "bwrap":
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            continue


def test_the_students_interpreter_killed_from_the_host_is_the_hosts_failure(
        run: Runner) -> None:
    # Before, a SIGKILL below the CPU limit without the host's OOM killer was the student's
    # crash: the student could have lowered its own RLIMIT_CPU.
    record = run("import time\ndef solve(game, state):\n    game.actions(state)\n"
                 "    time.sleep(30)\n", recorder=kill_the_students_interpreter)

    assert (record.verdict, record.ending) == ("sandbox_error", "killed_by_host")
    assert dict(record.ending_params) == {"signal": "SIGKILL"}


def test_a_run_exiting_with_a_signal_status_is_its_own_crash(run: Runner) -> None:
    # bubblewrap reports a death by SIGKILL as status 137: exiting with 137 of its own must
    # not pass for the host killing the run (retried, no attempt used).
    record = run("import os\ndef solve(game, state):\n    game.actions(state)\n"
                 "    os._exit(137)\n")

    assert (record.verdict, record.ending) == ("runtime_error", "crashed")
    assert dict(record.ending_params) == {"signal": "SIGSYS"}


def test_a_run_cannot_change_its_own_limits_but_reads_them(run: Runner) -> None:
    record = run("""
import resource
import threading

def solve(game, state):
    found = []
    for name, change in (
            ("setrlimit", lambda: resource.setrlimit(resource.RLIMIT_CPU, (0, 0))),
            ("prlimit", lambda: resource.prlimit(0, resource.RLIMIT_CPU, (0, 0)))):
        try:
            change()
            found.append(name + ": changed")
        except OSError as error:
            found.append(f"{name}: {type(error).__name__}")
        except ValueError as error:  # how the resource module reports EPERM
            found.append(f"{name}: {error}")
    found.append(resource.getrlimit(resource.RLIMIT_CPU)[0] > 0)
    found.append(resource.prlimit(0, resource.RLIMIT_NOFILE)[0] > 0)
    thread = threading.Thread(target=found.append, args=("thread ran",))
    thread.start()
    thread.join()
    return found
""")

    assert record.verdict == "ok", record.message
    refused = "not allowed to raise maximum limit"
    assert record.return_value == [f"setrlimit: {refused}", "prlimit: PermissionError",
                                   True, True, "thread ran"]
