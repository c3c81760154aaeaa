"""Resource limits of one sandboxed run, and where the sandbox finds its tools and space."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class SandboxLimits:
    """Bound what one run of student code may consume.

    ``max_game_calls`` is not an OS limit: it bounds the call log the grader keeps in its own
    memory, so a student looping over ``game.actions`` cannot exhaust the worker.
    """

    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_bytes: int = 256 * MIB
    max_processes: int = 16
    max_output_bytes: int = 64 * 1024
    max_file_bytes: int = 1 * MIB
    max_open_files: int = 64
    max_game_calls: int = 1_000_000

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"SandboxLimits.{field.name} must be a positive number, "
                                 f"got {value!r}")
            if field.name != "wall_seconds" and not isinstance(value, int):
                raise ValueError(f"SandboxLimits.{field.name} must be an integer, got {value!r}")

    def override(self, overrides: Mapping[str, Any] | None = None, /,
                 **changes: Any) -> SandboxLimits:
        """Return a copy with some limits replaced, e.g. a per-exercise CPU budget.

        Unknown names raise ``ValueError`` rather than being ignored, so a typo in a setting
        cannot silently leave the default in force.
        """
        merged = {**(overrides or {}), **changes}
        known = {field.name for field in dataclasses.fields(self)}
        unknown = sorted(set(merged) - known)
        if unknown:
            raise ValueError(f"unknown sandbox limits {unknown}; known: {sorted(known)}")
        return dataclasses.replace(self, **merged)


DEFAULT_LIMITS = SandboxLimits()


@dataclass(frozen=True)
class SandboxConfig:
    """Say where the sandbox's tools live, which unprivileged ids it runs as, and where the
    uid pool's lock files go (``base_dir``).

    Each run (when the worker is root) takes one uid of ``uid`` … ``uid + uid_count - 1`` for
    itself: RLIMIT_NPROC counts all processes of a uid on the host, so runs sharing a uid
    would share one process budget, and one student's fork bomb would keep other students'
    runs from starting. ``uid_count`` should cover the runs one host does at once.
    ``cgroup_parent`` names a delegated cgroup v2 directory (``memory`` and ``pids`` enabled in
    its ``cgroup.subtree_control``) under which per-run cgroups are created; ``None`` uses the
    worker's own cgroup, which on v1 hierarchies is enough when it is writable.
    """

    base_dir: Path = Path("/tmp/cutoff-sandbox")
    uid: int = 60000
    gid: int = 60000
    uid_count: int = 32
    python: str = "/usr/bin/python3"
    bwrap: str = "bwrap"
    setpriv: str = "setpriv"
    prlimit: str = "prlimit"
    use_cgroup: bool = True
    cgroup_parent: Path | None = None
