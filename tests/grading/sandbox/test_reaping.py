"""Killed runs leave no zombies, even when the grader's ancestors never reap (as Celery, the
pid 1 of the sandbox-worker container, does not): each orphaned interpreter would count
against the sandbox uid's process limit until no new sandbox could start."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from grading.sandbox import SandboxConfig

from .conftest import REPO, TEST_UID, TEST_UID_POOL

NEVER_REAPS = '''
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans below come here

def reap_and_exit(signum, frame):
    while True:
        try:
            os.wait()
        except ChildProcessError:
            os._exit(0)

signal.signal(signal.SIGTERM, reap_and_exit)
runner = os.fork()
if runner == 0:
    os.execv(sys.executable, [sys.executable, "-c", sys.argv[1], *sys.argv[2:]])
print(runner, flush=True)
while True:
    signal.pause()  # never waits until told to: its children stay zombies
'''
KILLED_RUNS = '''
import json, os, sys
from pathlib import Path
from grading.sandbox import SandboxConfig, SandboxLimits, StateArg, run_in_sandbox
from tests.grading.sandbox.conftest import TreeGame

config = SandboxConfig(base_dir=Path(sys.argv[1]), uid=int(sys.argv[2]), gid=int(sys.argv[2]),
                       uid_count=1)
sources = {
    "wall": "import time\\ndef solve(game, state):\\n    time.sleep(60)\\n",
    "output": "def solve(game, state):\\n    while True:\\n        print('x' * 4096)\\n",
    "protocol": ("import os, sys, time\\ndef solve(game, state):\\n"
                 "    os.write(int(sys.argv[2]), b'\\\\x00\\\\x00\\\\x00\\\\x05hello')\\n"
                 "    time.sleep(60)\\n"),
}
limits = SandboxLimits(cpu_seconds=2, wall_seconds=4.0)

def run(name, source):
    return run_in_sandbox(source, "solve", [StateArg("A")], TreeGame(),
                          limits.override(wall_seconds=1.5) if name == "wall" else limits,
                          config=config).verdict

# A run here first, then the killed runs in a forked child, as a Celery pool process is
# forked from its main process: the child must become a subreaper of its own.
first = run("honest", "def solve(game, state):\\n    return 1\\n")
reader, writer = os.pipe()
if os.fork() == 0:
    os.write(writer, json.dumps([first] + [run(*item) for item in sources.items()]).encode())
    os._exit(0)
os.close(writer)
verdicts = b""
while chunk := os.read(reader, 4096):
    verdicts += chunk
os.wait()
print(verdicts.decode(), flush=True)
'''


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def _sandbox_children(parents: set[int]) -> list[str]:
    """Return ``pid state`` of every process of the tests' sandbox uids whose parent is one of
    ``parents``, zombies included."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        status = _status(int(entry.name))
        if status and int(status["PPid"]) in parents and (
            TEST_UID <= int(status["Uid"].split()[0]) < TEST_UID + TEST_UID_POOL
        ):
            found.append(f"{entry.name} {status['State']}")
    return found


def _read_line(stream: object, timeout: float) -> str:
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
    if not selector.select(timeout):
        raise AssertionError(f"no output within {timeout} s")
    return stream.readline()  # type: ignore[attr-defined, no-any-return]


def test_killed_runs_leave_no_zombies_under_a_parent_that_never_reaps(
        sandbox_host: SandboxConfig) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", NEVER_REAPS, KILLED_RUNS, str(sandbox_host.base_dir),
         str(sandbox_host.uid)],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        runner = int(_read_line(parent.stdout, 60))
        verdicts = json.loads(_read_line(parent.stdout, 180))
        assert verdicts == ["ok", "time_limit", "output_limit", "illegal_operation"]
        # The runner has exited (a zombie its parent never reaps): anything it did not reap
        # of its runs is now the never-reaping parent's.
        deadline = time.monotonic() + 60
        while _status(runner).get("State", "Z").split()[0] != "Z":
            assert time.monotonic() < deadline, "the runner did not exit"
            time.sleep(0.05)
        assert _sandbox_children({parent.pid, runner}) == []
    finally:
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=30)
