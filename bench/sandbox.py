"""Time a sandboxed run against a bare interpreter start; print the figures bench/README.md records.

Run as root from the repository root (needs bubblewrap; takes a few seconds):

    .venv/bin/python bench/sandbox.py [--runs 40]

The headline is the median wall time of a complete ``run_in_sandbox`` of a trivial student
function (run directory, cgroup, prlimit, setpriv, bwrap, the bootstrap's hello/start/return
frames, cleanup) minus the median of ``/usr/bin/python3 -c pass`` measured in the same
process, interleaved round by round so both see the same machine load. Target: at most
30 ms added. The intermediate stages show where the difference goes, and the CPU time each
stage burns (this process and its children) separates real cost from waiting for a core on
a loaded host.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

if not __package__:
    # Run as a file, this folder comes first on sys.path: put the repository root there.
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from grading.sandbox import SandboxConfig, StateArg, run_in_sandbox  # noqa: E402
from grading.sandbox.runner import PYTHON_FLAGS  # noqa: E402

TARGET_MS = 30.0
SOURCE = "def solve(game, state):\n    return game.actions(state)[0]\n"


class OneMove:
    """The smallest game: one state with one action."""

    def to_move(self, state: str) -> str:
        return "MAX"

    def actions(self, state: str) -> list[str]:
        return ["only"]

    def result(self, state: str, action: str) -> str:
        return "end"

    def is_terminal(self, state: str) -> bool:
        return state == "end"

    def utility(self, state: str, player: str) -> int:
        return 0

    def chance_outcomes(self, state: str) -> list[tuple[str, Fraction]]:
        return []


def cpu_ms() -> float:
    """Return the CPU milliseconds used so far by this process and its reaped children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total * 1000


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Return the wall-clock and CPU milliseconds ``run()`` took."""
    cpu, start = cpu_ms(), time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000, cpu_ms() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    options = parser.parse_args()
    config = SandboxConfig()
    bwrap_only = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bwrap",
                  "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
                  "--new-session", "--as-pid-1", "--ro-bind", "/usr", "/usr",
                  "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                  "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                  config.python, *PYTHON_FLAGS, "-c", "pass"]

    def sandboxed() -> None:
        record = run_in_sandbox(SOURCE, "solve", [StateArg("start")], OneMove(), config=config)
        assert record.verdict == "ok", record.message

    stages: dict[str, Callable[[], object]] = {
        "bare python3 -c pass": lambda: subprocess.run([config.python, "-c", "pass"],
                                                       check=True),
        "python3 -I -S -B -u -X utf8 -c pass": lambda: subprocess.run(
            [config.python, *PYTHON_FLAGS, "-c", "pass"], check=True),
        "setpriv + bwrap + python3 -I -S": lambda: subprocess.run(bwrap_only, check=True,
                                                                   env={}),
        "run_in_sandbox (full run)": sandboxed,
    }
    for stage in stages.values():
        stage()  # warm the page cache and the compiled seccomp filter
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in stages}
    for _ in range(options.runs):
        for name, stage in stages.items():
            samples[name].append(timed(stage))
    medians = {name: statistics.median(wall for wall, _ in values)
               for name, values in samples.items()}
    for name, values in samples.items():
        cpu = statistics.median(cpu for _, cpu in values)
        print(f"{name:40} median {medians[name]:6.1f} ms wall, {cpu:6.1f} ms CPU")
    bare, full = medians["bare python3 -c pass"], medians["run_in_sandbox (full run)"]
    added = full - bare
    verdict = "within" if added <= TARGET_MS else "OVER"
    print(f"added by the sandbox: {added:.1f} ms ({full / bare:.2f}x bare); "
          f"{verdict} the {TARGET_MS:.0f} ms target; {options.runs} runs each")


if __name__ == "__main__":
    main()
