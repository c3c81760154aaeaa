"""Read the sandbox's settings: where runs go, as whom, and each item's limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from grading.sandbox import SandboxConfig, SandboxLimits
from grading.sandbox.limits import MIB


def sandbox_config() -> SandboxConfig:
    """Return the sandbox configuration from the ``CUTOFF_SANDBOX_*`` settings."""
    uid = settings.CUTOFF_SANDBOX_UID
    return SandboxConfig(base_dir=Path(settings.CUTOFF_SANDBOX_DIR), uid=uid, gid=uid,
                         uid_count=settings.CUTOFF_SANDBOX_UID_COUNT)


def grading_budget_seconds() -> float:
    """Return how long all runs of one submission may take: ``CUTOFF_CODE_BUDGET_SECONDS`` of
    their own time, so one submission holds a sandbox slot about that long, and never more
    than three eighths of the task's soft time limit: on a busy host the runs may take twice
    their own time (:class:`grading.code.runs.Budget`), and a submission that loops in every
    test must still be graded, not killed."""
    return min(float(settings.CUTOFF_CODE_BUDGET_SECONDS),
               settings.CELERY_TASK_SOFT_TIME_LIMIT * 3 / 8)


def limits_for(kind_name: str, params: dict[str, Any]) -> SandboxLimits:
    """Return the limits of one run for an item: the site's, the kind's, then the item's."""
    limits = SandboxLimits().override(settings.CUTOFF_SANDBOX_LIMITS)
    limits = limits.override(settings.CUTOFF_SANDBOX_KIND_LIMITS.get(kind_name, {}))
    return limits.override(params.get("limits") or {})


def stated_limits(kind_name: str, params: dict[str, Any]) -> dict[str, str]:
    """Return an item's limits as its starter file and page state them: ``cpu`` and ``wall``
    seconds and ``memory`` MiB of one run, and the ``budget`` seconds all runs share."""
    limits = limits_for(kind_name, params)
    return {"cpu": f"{limits.cpu_seconds:g}", "wall": f"{limits.wall_seconds:g}",
            "memory": f"{limits.memory_bytes / MIB:g}", "budget": f"{grading_budget_seconds():g}"}
