"""Create one memory+pids cgroup per run, on cgroup v2 or v1, when the host lets us.

RLIMIT_AS and RLIMIT_NPROC bound each process; only a cgroup bounds the run as a whole
(memory of all its processes plus what it writes to its tmpfs ``/tmp``, and its task count).
Containers often give a worker no writable cgroup, so unavailability is reported in the run
record instead of failing the run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from .limits import SandboxLimits

MOUNTINFO = Path("/proc/self/mountinfo")
PROC_CGROUP = Path("/proc/self/cgroup")
CONTROLLERS = ("memory", "pids")
ACCOUNTING = ("cpuacct",)
"""v1 controllers used only to measure (the CPU time of every process of the run); on v2 the
``cpu.stat`` file exists in every cgroup."""


@dataclass(frozen=True)
class _Mount:
    version: int
    mountpoint: Path
    root: str
    controllers: frozenset[str]


def _mounts(mountinfo: str) -> list[_Mount]:
    mounts = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        options = frozenset(tail[2].split(","))
        version = 2 if tail[0] == "cgroup2" else 1
        mounts.append(_Mount(version, Path(fields[4]), fields[3],
                             options & {*CONTROLLERS, *ACCOUNTING}))
    return mounts


def _own_paths(proc_cgroup: str) -> dict[str, str]:
    """Map each controller (and ``""`` for the v2 unified hierarchy) to this process's cgroup."""
    paths: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _counters(text: str) -> dict[str, int]:
    """Return the ``name value`` lines of a cgroup file (``memory.events``) as a dict."""
    return {name: int(value) for name, value in
            (line.split() for line in text.splitlines() if len(line.split()) == 2)}


def _host_dir(mount: _Mount, cgroup_path: str) -> Path:
    # Inside a container the mount may expose only a subtree: strip the mount's own root.
    relative = cgroup_path
    if mount.root != "/" and relative.startswith(mount.root):
        relative = relative[len(mount.root):]
    return mount.mountpoint / relative.lstrip("/")


class RunCgroup:
    """Own one run's cgroup directories: set limits, read usage, kill and remove them."""

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs

    @property
    def status(self) -> str:
        """Return the description stored in the run record, e.g. ``"v1: memory+pids"``."""
        return f"v{self.version}: " + "+".join(c for c in CONTROLLERS if c in self.dirs)

    @property
    def procs_files(self) -> list[Path]:
        """Return the ``cgroup.procs`` files a process must join (once per v1 hierarchy)."""
        return sorted({directory / "cgroup.procs" for directory in self.dirs.values()})

    def apply(self, limits: SandboxLimits) -> None:
        """Write the memory and task limits; swap is capped too so a bomb cannot hide there."""
        memory, pids = self.dirs.get("memory"), self.dirs.get("pids")
        if self.version == 2:
            if memory is not None:
                _write(memory / "memory.max", limits.memory_bytes)
                _write(memory / "memory.swap.max", 0, optional=True)
        elif memory is not None:
            _write(memory / "memory.limit_in_bytes", limits.memory_bytes)
            _write(memory / "memory.memsw.limit_in_bytes", limits.memory_bytes, optional=True)
        if pids is not None:
            _write(pids / "pids.max", limits.max_processes + HARNESS_TASKS)

    def peak_memory(self) -> int | None:
        """Return the run's peak memory use in bytes when the kernel reports it."""
        memory = self.dirs.get("memory")
        if memory is None:
            return None
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        with contextlib.suppress(OSError, ValueError):
            return int((memory / name).read_text())
        return None

    def cpu_seconds(self) -> float | None:
        """Return the CPU time used by all the run's processes, when the kernel reports it."""
        if self.version == 2:
            with contextlib.suppress(OSError, ValueError, KeyError):
                text = (self.dirs["pids"] / "cpu.stat").read_text()
                usage = dict(line.split() for line in text.splitlines())
                return int(usage["usage_usec"]) / 1e6
            return None
        cpuacct = self.dirs.get("cpuacct")
        with contextlib.suppress(OSError, ValueError):
            if cpuacct is not None:
                return int((cpuacct / "cpuacct.usage").read_text()) / 1e9
        return None

    def memory_limit_reached(self) -> bool:
        """Return whether the run's memory limit refused an allocation or fired the OOM killer,
        in any of its processes.

        Reaching the limit is not enough: the kernel then reclaims (the page cache of files
        the run read, for one) and the run goes on, so v2's ``max`` event and v1's
        ``failcnt`` count runs that never ran short. Nor is a kill: the cgroup's ``oom_kill``
        counts the host's OOM killer's kills too. v2's ``oom`` counts the allocations the
        cgroup's own limit was about to refuse; v1 has no such counter, so a kill counts when
        the limit was also reached (``memory.oom_control``'s ``oom_kill`` and ``failcnt``;
        ``failcnt`` alone on kernels before 4.13, which lack that line).
        """
        memory = self.dirs.get("memory")
        if memory is None:
            return False
        try:
            if self.version == 1:
                reached = int((memory / "memory.failcnt").read_text()) > 0
                control = memory / "memory.oom_control"
                kills = _counters(control.read_text()).get("oom_kill") \
                    if control.exists() else None
                return reached and (kills is None or kills > 0)
            events = _counters((memory / "memory.events").read_text())
        except (OSError, ValueError):
            return False
        return events.get("oom", 0) > 0

    def kill_all(self) -> None:
        """SIGKILL every process left in the cgroup (even ones that escaped the process group)."""
        for directory in self.dirs.values():
            if self.version == 2 and (directory / "cgroup.kill").exists():
                with contextlib.suppress(OSError):
                    _write(directory / "cgroup.kill", 1)
                continue
            for pid in _pids(directory):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Kill what is left and remove the directories, waiting briefly for tasks to exit."""
        self.kill_all()
        for directory in self.dirs.values():
            deadline = time.monotonic() + 2.0
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    # EBUSY while killed tasks are still being torn down (or were forked
                    # during the previous sweep).
                    if time.monotonic() > deadline:
                        break
                    self.kill_all()
                    time.sleep(0.005)


RUN_CGROUP_PREFIX = "cutoff-"
"""Every run's cgroup is named ``cutoff-<run id>``; the sweep removes only such names."""
STALE_CGROUP_SECONDS = 3600.0
"""Age beyond any run's wall limit: only a killed worker's leftovers get this old."""


def sweep_stale_cgroups(parent: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove run cgroups a killed worker left where this worker creates its own; return them.

    A worker killed mid-run never reaches :meth:`RunCgroup.remove`, so its run's directories
    would stay in every hierarchy for good (on v1 still charged with the run's page cache).
    A task still inside one is killed first. ``parent`` is ``SandboxConfig.cgroup_parent``.
    """
    now = time.time() if now is None else now
    try:
        mounts = _mounts(MOUNTINFO.read_text())
        own = _own_paths(PROC_CGROUP.read_text())
    except OSError:
        return []
    bases: dict[Path, int] = {}
    for mount in mounts:
        if mount.version == 2:
            base = parent if parent is not None else (
                _host_dir(mount, own[""]) if "" in own else None)
            if base is not None:
                bases[base] = 2
        for controller in mount.controllers if mount.version == 1 else ():
            if controller in own:
                bases[_host_dir(mount, own[controller])] = 1
    removed = []
    for base, version in bases.items():
        for directory in base.glob(f"{RUN_CGROUP_PREFIX}*"):
            with contextlib.suppress(OSError):  # gone already, or another worker's sweep
                age = now - directory.stat().st_mtime
                if not directory.is_dir() or age <= STALE_CGROUP_SECONDS:
                    continue
                RunCgroup(version, {"stale": directory}).remove()
                if not directory.exists():
                    removed.append(directory)
    return removed


HARNESS_TASKS = 3
"""Tasks the harness itself needs in the cgroup: bwrap's monitor, its init and the interpreter."""


def _pids(directory: Path) -> list[int]:
    try:
        return [int(pid) for pid in (directory / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _write(path: Path, value: int, *, optional: bool = False) -> None:
    if optional and not path.exists():
        return
    path.write_text(str(value))


def create_run_cgroup(name: str, limits: SandboxLimits,
                      parent: Path | None = None) -> RunCgroup | str:
    """Create and configure cgroup ``name`` for one run, or return why that is impossible.

    cgroup v2 is preferred; it needs ``memory`` and ``pids`` enabled in the parent's
    ``cgroup.subtree_control`` (a delegated parent). Otherwise the v1 ``memory`` and ``pids``
    hierarchies are used when their directories are writable.
    """
    try:
        mounts = _mounts(MOUNTINFO.read_text())
        own = _own_paths(PROC_CGROUP.read_text())
    except OSError as exc:
        return f"unavailable: cannot read /proc/self cgroup information ({exc.strerror})"
    reasons = []
    for mount in mounts:
        if mount.version == 2:
            result = _create_v2(mount, own.get(""), name, parent)
            if isinstance(result, RunCgroup):
                return _configured(result, limits)
            reasons.append(result)
    dirs: dict[str, Path] = {}
    for controller in (*CONTROLLERS, *ACCOUNTING):
        v1 = next((m for m in mounts if m.version == 1 and controller in m.controllers), None)
        if v1 is None or controller not in own:
            reasons.append(f"no cgroup v1 {controller} hierarchy")
            continue
        directory = _host_dir(v1, own[controller]) / name
        try:
            directory.mkdir()
        except OSError as exc:
            reasons.append(f"cannot create {directory} ({exc.strerror})")
            continue
        dirs[controller] = directory
    if set(dirs) & set(CONTROLLERS):
        return _configured(RunCgroup(1, dirs), limits)
    for directory in dirs.values():
        directory.rmdir()
    return "unavailable: " + "; ".join(reasons or ["no cgroup filesystem mounted"])


def _configured(cgroup: RunCgroup, limits: SandboxLimits) -> RunCgroup | str:
    try:
        cgroup.apply(limits)
    except OSError as exc:
        cgroup.remove()
        return f"unavailable: cannot set limits in {cgroup.status} ({exc.strerror})"
    return cgroup


def _create_v2(mount: _Mount, own: str | None, name: str, parent: Path | None) -> RunCgroup | str:
    base = parent if parent is not None else (_host_dir(mount, own) if own is not None else None)
    if base is None:
        return "cgroup v2 mounted but this process has no v2 cgroup"
    try:
        available = set((base / "cgroup.controllers").read_text().split())
        enabled = set((base / "cgroup.subtree_control").read_text().split())
    except OSError as exc:
        return f"cgroup v2 at {base} unreadable ({exc.strerror})"
    missing = set(CONTROLLERS) - enabled
    if missing - available:
        return (f"cgroup v2 at {base} lacks controllers {sorted(missing - available)} "
                "(not delegated to this worker)")
    if missing:
        # Enabling fails with EBUSY when the worker itself lives in ``base`` (no internal
        # processes rule): then the operator must delegate a parent via SandboxConfig.
        try:
            (base / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in missing))
        except OSError as exc:
            return (f"cgroup v2 at {base} cannot enable {sorted(missing)} ({exc.strerror}); "
                    "set SandboxConfig.cgroup_parent to a delegated cgroup")
    directory = base / name
    try:
        directory.mkdir()
    except OSError as exc:
        return f"cannot create {directory} ({exc.strerror})"
    return RunCgroup(2, {controller: directory for controller in CONTROLLERS})
