"""Fixtures for the sandbox tests: a real bubblewrap sandbox and tiny self-contained games.

The games here are deliberately local (not ``engine.tree``) so these tests only depend on the
sandbox. With CI=true, a host without bubblewrap or setpriv fails the tests instead of
skipping them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from grading.sandbox import (
    RunRecord,
    SandboxConfig,
    SandboxLimits,
    SandboxUnavailable,
    StateArg,
    check_host,
    run_in_sandbox,
)
from tests.conftest import require, wait_until

REPO = Path(__file__).resolve().parents[3]
TEST_BASE = Path(f"/tmp/cutoff-sandbox-tests-{os.getpid()}")
TEST_UID: int = settings.CUTOFF_TEST_SANDBOX_UID
"""The tests' sandbox uid: in this test run's own block (config/settings/test.py), so other
sandboxes on a shared host (a worker, another test run) neither count against RLIMIT_NPROC
nor look like leftovers here."""
TEST_UID_POOL = 4
"""How many uids from TEST_UID the tests of the uid pool use (the others use TEST_UID only)."""
FAST = SandboxLimits(cpu_seconds=2, wall_seconds=4.0)
"""Tight limits so the resource attacks end quickly."""


@pytest.fixture(scope="session")
def sandbox_host() -> Iterator[SandboxConfig]:
    """Return the sandbox config after checking bubblewrap and setpriv work on this host."""
    # One uid, so tests can name it; the pool of uids has tests of its own (test_runner.py).
    config = SandboxConfig(base_dir=TEST_BASE, uid=TEST_UID, gid=TEST_UID, uid_count=1)
    try:
        check_host(config)
    except SandboxUnavailable as exc:
        require(False, str(exc))
    require(os.geteuid() == 0, "the sandbox tests switch uid with setpriv and must run as root")
    probe = subprocess.run(
        ["setpriv", f"--reuid={TEST_UID}", f"--regid={TEST_UID}", "--clear-groups", "bwrap",
         "--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
         "--symlink", "usr/lib64", "/lib64", "/usr/bin/true"],
        capture_output=True, text=True, env={})
    require(probe.returncode == 0,
            f"bubblewrap cannot create namespaces unprivileged here: {probe.stderr.strip()}")
    yield config
    shutil.rmtree(TEST_BASE, ignore_errors=True)


@contextlib.contextmanager
def one_cpu_shared_with(competitors: int) -> Iterator[None]:
    """Confine this process (so the runs it starts) to one CPU that ``competitors`` spinning
    processes also use."""
    saved = os.sched_getaffinity(0)
    cpu = min(saved)
    os.sched_setaffinity(0, {cpu})
    # Each in a session of its own, as the sandbox is: with autogroup scheduling, a CPU is
    # shared between sessions first.
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                 start_new_session=True) for _ in range(competitors)]
    try:
        # Spinning already (a loaded host starts them slowly), so the run competes from the
        # start.
        assert wait_until(lambda: all(_cpu_seconds(spinner.pid) > 0.1 for spinner in spinners),
                          60)
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
        os.sched_setaffinity(0, saved)


def _cpu_seconds(pid: int) -> float:
    """Return the CPU time a process has had so far (its main thread's)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


class TreeGame:
    """A two-ply explicit tree: MAX at A, MIN at B and C, leaves D..G with fixed payoffs."""

    players = ("MAX", "MIN")
    children = {"A": {"l": "B", "r": "C"}, "B": {"l": "D", "r": "E"}, "C": {"l": "F", "r": "G"}}
    payoffs = {"D": 3, "E": 5, "F": 2, "G": 9}

    def to_move(self, state: str) -> str:
        return "MAX" if state == "A" else "MIN"

    def actions(self, state: str) -> Sequence[str]:
        return list(self.children.get(state, {}))

    def result(self, state: str, action: str) -> str:
        return self.children[state][action]

    def is_terminal(self, state: str) -> bool:
        return state in self.payoffs

    def utility(self, state: str, player: str) -> int:
        if state not in self.payoffs:
            raise ValueError(f"{state} is not terminal")
        return self.payoffs[state] if player == "MAX" else -self.payoffs[state]

    def chance_outcomes(self, state: str) -> Sequence[tuple[str, Fraction]]:
        raise ValueError(f"{state} is not a chance node")


class ChanceGame(TreeGame):
    """MAX chooses l or r; each leads to a coin flip with payoffs as exact fractions."""

    children = {"A": {"l": "B", "r": "C"}, "B": {"h": "D", "t": "E"}, "C": {"h": "F", "t": "G"}}
    payoffs = {"D": 4, "E": 0, "F": 1, "G": 2}
    odds = {"B": Fraction(1, 4), "C": Fraction(1, 2)}

    def to_move(self, state: str) -> str:
        return "MAX" if state == "A" else "chance"

    def actions(self, state: str) -> Sequence[str]:
        return list(self.children["A"]) if state == "A" else []

    def chance_outcomes(self, state: str) -> Sequence[tuple[str, Fraction]]:
        if state not in self.odds:
            raise ValueError(f"{state} is not a chance node")
        return [("h", self.odds[state]), ("t", 1 - self.odds[state])]


class DeepGame(TreeGame):
    """A complete binary tree of depth 4 over bit strings, for cutoff and pruning tests."""

    depth = 4

    def to_move(self, state: str) -> str:
        return "MAX" if len(state) % 2 == 0 else "MIN"

    def actions(self, state: str) -> Sequence[str]:
        return [] if len(state) >= self.depth else ["0", "1"]

    def result(self, state: str, action: str) -> str:
        if len(state) >= self.depth:
            raise ValueError("no moves at a leaf")
        return state + action

    def is_terminal(self, state: str) -> bool:
        return len(state) >= self.depth

    def utility(self, state: str, player: str) -> int:
        value = (int(state, 2) * 7) % 11 - 5
        return value if player == "MAX" else -value


class Recording:
    """Wrap a game to log which states a locally-run reference algorithm generated."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.generated: list[Hashable] = []
        self.evaluated: list[Hashable] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def result(self, state: Any, action: Any) -> Any:
        child = self.game.result(state, action)
        self.generated.append(child)
        return child

    def utility(self, state: Any, player: str) -> Any:
        self.evaluated.append(state)
        return self.game.utility(state, player)


Runner = Callable[..., RunRecord]


@pytest.fixture
def run(sandbox_host: SandboxConfig) -> Iterator[Runner]:
    """Return ``run(source, entry="solve", args=None, game=None, limits=FAST, **kw)``, and
    check afterwards that no sandbox process is left behind."""

    def runner(source: str, entry: str = "solve", args: Sequence[object] | None = None,
               game: Any = None, limits: SandboxLimits = FAST, **kwargs: Any) -> RunRecord:
        return run_in_sandbox(source, entry, [StateArg("A")] if args is None else args,
                              game if game is not None else TreeGame(), limits,
                              config=kwargs.pop("config", sandbox_host), **kwargs)

    yield runner
    assert sandbox_processes() == [], "sandbox processes survived the run"


def sandbox_processes(grace: float = 2.0) -> list[str]:
    """Return the command lines of processes owned by the tests' sandbox uids alive after
    ``grace`` seconds (a killed pid namespace is torn down asynchronously).

    Zombies are not counted: they run nothing, and reaping them is the host's pid 1's job,
    which a loaded machine may do after the grace.
    """
    deadline = time.monotonic() + grace
    while (found := _uid_processes(range(TEST_UID, TEST_UID + TEST_UID_POOL))) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)
    return found


def _uid_processes(uids: range) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid in uids and not _is_zombie(entry):
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


def _is_zombie(proc: Path) -> bool:
    status = (proc / "status").read_text()
    return any(line.split()[1:2] == ["Z"] for line in status.splitlines()
               if line.startswith("State:"))


@pytest.fixture
def canary(monkeypatch: pytest.MonkeyPatch) -> str:
    """Put a secret in the grader's environment that must never reach the sandbox."""
    secret = "canary-" + os.urandom(8).hex()
    monkeypatch.setenv("CUTOFF_CANARY_SECRET", secret)
    monkeypatch.setenv("DATABASE_URL", f"postgres://cutoff:{secret}@127.0.0.1/cutoff")
    return secret


def leaked(record: RunRecord, secret: str) -> bool:
    """Return whether ``secret`` shows anywhere the student or the grader could read it."""
    texts = [record.stdout, record.stderr, record.traceback or "", record.message,
             repr(record.return_value)]
    return any(secret in text for text in texts)
