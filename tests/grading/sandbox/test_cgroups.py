"""Per-run cgroup detection and set-up, on fake v1 and v2 hierarchies laid out in tmp_path
(this host may only have one of them), plus the host's real answer."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from grading.sandbox import SandboxLimits, cgroups

LIMITS = SandboxLimits(memory_bytes=64 * 1024 * 1024, max_processes=8)


def fake_host(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mounts: list[str],
              own: list[str]) -> None:
    info = "".join(f"{30 + i} 20 0:{40 + i} {line}\n" for i, line in enumerate(mounts))
    (tmp_path / "mountinfo").write_text(info)
    (tmp_path / "cgroup").write_text("".join(f"{line}\n" for line in own))
    monkeypatch.setattr(cgroups, "MOUNTINFO", tmp_path / "mountinfo")
    monkeypatch.setattr(cgroups, "PROC_CGROUP", tmp_path / "cgroup")


def test_v2_with_delegated_controllers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    worker = tmp_path / "cg2" / "worker"
    worker.mkdir(parents=True)
    (worker / "cgroup.controllers").write_text("cpu io memory pids\n")
    (worker / "cgroup.subtree_control").write_text("memory pids\n")
    fake_host(monkeypatch, tmp_path,
              [f"/ {tmp_path}/cg2 rw,nosuid - cgroup2 cgroup2 rw,nsdelegate"], ["0::/worker"])
    cgroup = cgroups.create_run_cgroup("run-1", LIMITS)
    assert isinstance(cgroup, cgroups.RunCgroup)
    assert cgroup.status == "v2: memory+pids"
    assert cgroup.procs_files == [worker / "run-1" / "cgroup.procs"]
    assert (worker / "run-1" / "memory.max").read_text() == str(64 * 1024 * 1024)
    assert (worker / "run-1" / "pids.max").read_text() == str(8 + cgroups.HARNESS_TASKS)
    events = worker / "run-1" / "memory.events"
    events.write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
    assert not cgroup.memory_limit_reached()
    # Reaching the limit only made the kernel reclaim (the page cache of files read): the
    # run did not run short, so a failure of its own is not blamed on memory.
    events.write_text("low 0\nhigh 0\nmax 4\noom 0\noom_kill 0\n")
    assert not cgroup.memory_limit_reached()
    # An allocation refused at the limit counts, even when nothing was OOM-killed.
    events.write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 0\n")
    (worker / "run-1" / "memory.peak").write_text("1234\n")
    (worker / "run-1" / "cpu.stat").write_text("usage_usec 250000\nuser_usec 200000\n")
    assert cgroup.memory_limit_reached() and cgroup.peak_memory() == 1234
    events.write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    assert cgroup.memory_limit_reached()
    # A kill by the host's OOM killer, the run's own limit not reached, is not the run's.
    events.write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\n")
    assert not cgroup.memory_limit_reached()
    assert cgroup.cpu_seconds() == 0.25


def test_v2_without_controllers_falls_back_to_v1(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    (tmp_path / "unified").mkdir()
    (tmp_path / "unified" / "cgroup.controllers").write_text("\n")
    (tmp_path / "unified" / "cgroup.subtree_control").write_text("\n")
    for controller in ("memory", "pids"):
        (tmp_path / controller / "worker").mkdir(parents=True)
    fake_host(monkeypatch, tmp_path, [
        f"/ {tmp_path}/unified rw - cgroup2 cgroup2 rw",
        f"/ {tmp_path}/memory rw - cgroup cgroup rw,memory",
        f"/ {tmp_path}/pids rw - cgroup cgroup rw,pids",
    ], ["4:memory:/worker", "8:pids:/worker", "0::/"])
    cgroup = cgroups.create_run_cgroup("run-2", LIMITS)
    assert isinstance(cgroup, cgroups.RunCgroup)
    assert cgroup.status == "v1: memory+pids"
    run = tmp_path / "memory" / "worker" / "run-2"
    assert (run / "memory.limit_in_bytes").read_text() == str(64 * 1024 * 1024)
    assert not (run / "memory.memsw.limit_in_bytes").exists()
    assert (tmp_path / "pids" / "worker" / "run-2" / "pids.max").read_text() == "11"
    # A kernel before 4.13 reports no OOM kills: a charge that failed at the limit counts.
    (run / "memory.failcnt").write_text("0\n")
    assert not cgroup.memory_limit_reached()
    (run / "memory.failcnt").write_text("3\n")
    assert cgroup.memory_limit_reached()
    # Later kernels do: charges that failed and were met by reclaiming do not count.
    (run / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 0\n")
    assert not cgroup.memory_limit_reached()
    (run / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    assert cgroup.memory_limit_reached()
    # A kill with the limit never reached was the host's OOM killer's.
    (run / "memory.failcnt").write_text("0\n")
    assert not cgroup.memory_limit_reached()
    assert cgroup.cpu_seconds() is None


def test_no_usable_cgroup_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "unified").mkdir()
    (tmp_path / "unified" / "cgroup.controllers").write_text("cpu\n")
    (tmp_path / "unified" / "cgroup.subtree_control").write_text("\n")
    fake_host(monkeypatch, tmp_path, [f"/ {tmp_path}/unified rw - cgroup2 cgroup2 rw"],
              ["0::/"])
    reason = cgroups.create_run_cgroup("run-3", LIMITS)
    assert isinstance(reason, str)
    assert reason.startswith("unavailable: ")
    assert "lacks controllers ['memory', 'pids']" in reason
    assert "no cgroup v1 memory hierarchy" in reason


def test_this_host(tmp_path: Path) -> None:
    result = cgroups.create_run_cgroup(f"cutoff-test-{tmp_path.name}", LIMITS)
    if isinstance(result, str):
        assert result.startswith("unavailable: ")
        return
    try:
        assert result.status.startswith(("v1: ", "v2: "))
        assert all(directory.is_dir() for directory in result.dirs.values())
    finally:
        result.remove()
    assert not any(directory.exists() for directory in result.dirs.values())


def test_the_sweep_removes_only_old_run_cgroups(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    for controller in ("memory", "pids"):
        (tmp_path / controller / "worker").mkdir(parents=True)
    fake_host(monkeypatch, tmp_path, [
        f"/ {tmp_path}/memory rw - cgroup cgroup rw,memory",
        f"/ {tmp_path}/pids rw - cgroup cgroup rw,pids",
    ], ["4:memory:/worker", "8:pids:/worker"])
    hour_ago = time.time() - cgroups.STALE_CGROUP_SECONDS - 60
    for controller in ("memory", "pids"):
        worker = tmp_path / controller / "worker"
        for name in ("cutoff-killed", "cutoff-running", "someone-elses"):
            (worker / name).mkdir()
        for name in ("cutoff-killed", "someone-elses"):
            os.utime(worker / name, (hour_ago, hour_ago))
    removed = cgroups.sweep_stale_cgroups()
    assert sorted(removed) == [
        tmp_path / controller / "worker" / "cutoff-killed" for controller in ("memory", "pids")]
    for controller in ("memory", "pids"):
        left = {p.name for p in (tmp_path / controller / "worker").iterdir()}
        assert left == {"cutoff-running", "someone-elses"}


def test_the_sweep_on_this_host_removes_a_real_leftover(tmp_path: Path) -> None:
    leftover = cgroups.create_run_cgroup(f"cutoff-leftover-{tmp_path.name}", LIMITS)
    if isinstance(leftover, str):
        assert cgroups.sweep_stale_cgroups() == []
        return
    try:
        hour_ago = time.time() - cgroups.STALE_CGROUP_SECONDS - 60
        for directory in leftover.dirs.values():
            os.utime(directory, (hour_ago, hour_ago))
        removed = cgroups.sweep_stale_cgroups()
        assert set(leftover.dirs.values()) <= set(removed)
        assert not any(directory.exists() for directory in leftover.dirs.values())
    finally:
        leftover.remove()
