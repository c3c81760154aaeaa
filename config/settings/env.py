"""Read typed settings from the environment; every variable Cutoff reads is named here."""

from __future__ import annotations

import os
from typing import overload

from django.core.exceptions import ImproperlyConfigured

ENV_VARS: dict[str, str] = {
    "DJANGO_SETTINGS_MODULE": "config.settings.local | .production | .test",
    "SECRET_KEY": "Django secret key (required in production)",
    "DATABASE_URL": "database URL; SQLite under var/ when unset (required in production)",
    "REDIS_URL": "Redis URL used as the Celery broker and cache",
    "CELERY_BROKER_URL": "overrides the broker URL (e.g. filesystem:// for zero-setup runs)",
    "ALLOWED_HOSTS": "comma-separated host names served (production)",
    "CSRF_TRUSTED_ORIGINS": "comma-separated origins trusted for CSRF (production)",
    "CUTOFF_VAR_DIR": "folder for the SQLite database, broker files and artefacts (default var/)",
    "CUTOFF_SANDBOX_DIR": "folder of the sandbox uid pool's lock files",
    "CUTOFF_SANDBOX_UID": (
        "first of the unprivileged uids student code runs as, one per concurrent run "
        "(default 60000); no account on the host may use the range"
    ),
    "CUTOFF_SANDBOX_UID_COUNT": (
        "how many consecutive uids the sandbox may use: at least the runs a host does at once "
        "(default 32)"
    ),
    "CUTOFF_SANDBOX_CPU_SECONDS": "CPU seconds one sandboxed run may use (default 5)",
    "CUTOFF_SANDBOX_WALL_SECONDS": "wall-clock seconds one sandboxed run may take (default 10)",
    "CUTOFF_SANDBOX_MEMORY_MB": "memory one sandboxed run may use, in MiB (default 256)",
    "CUTOFF_CODE_BUDGET_SECONDS": (
        "seconds all sandbox runs of one code submission may take together, re-runs included, "
        "counted as the wall-clock limit counts them (default 30; at most three eighths of the "
        "task's soft time limit, as a busy host may stretch them to twice that)"
    ),
    "CUTOFF_CODE_RUNS_PER_STUDENT": "code runs of one student in flight at once (default 1)",
    "CUTOFF_CODE_RUNS_PER_ITEM": "code runs of one item in flight at once (default 8)",
    "CUTOFF_CODE_DEFER_SECONDS": (
        "seconds before a code run over those limits is tried again (default 2)"
    ),
    "CUTOFF_CODE_BUSY_RETRIES": (
        "times a code submission is run again when the host was too busy to time it fairly "
        "or killed its run from outside (default 3)"
    ),
    "CUTOFF_CODE_BUSY_RETRY_SECONDS": (
        "seconds before such a submission is run again (default 20)"
    ),
    "CUTOFF_CODE_CHECKS_PER_10S": "checks of a student's code per 10 seconds (default 1)",
    "CUTOFF_CODE_CHECKS_PER_HOUR": "checks of a student's code per hour (default 20)",
    "CUTOFF_CODE_CHECKS_PER_STUDENT": "checks of one student in flight at once (default 1)",
    "CUTOFF_CODE_CHECK_OUTPUT_BYTES": "bytes of a check's stdout and stderr kept (default 8192)",
    "LOG_LEVEL": "root log level (default INFO)",
    "CUTOFF_ALLOW_PRIVATE_URLS": (
        "true lets webhooks and LMS service calls reach loopback, private and link-local "
        "addresses (default false; true in local development)"
    ),
    "CUTOFF_TEST_SANDBOX_UID_BLOCK": (
        "tests only: the block of sandbox uids a test run holds, inherited by its worker"
    ),
    "CUTOFF_TEST_RUN_ID": (
        "tests only: isolates a run's test database and broker keys (default pid)"
    ),
    "THROTTLE_SUBMISSIONS": "answer submissions allowed per user (default 30/min)",
    "THROTTLE_CODE_RUNS": "code submissions allowed per user (default 6/min)",
    "DATABASE_PREPARE_THRESHOLD": (
        "runs of a statement on a PostgreSQL connection before it is prepared (default 5; "
        "0: never, for a pgbouncer in transaction mode older than 1.21)"
    ),
    "LONG_POLL_MAX_WAITING": (
        "requests per web process that may wait for a grade at once (`?wait=`; default 14, "
        "below the process's 16 threads)"
    ),
    "CELERY_TASK_SOFT_TIME_LIMIT": "seconds before a task is asked to stop (default 120)",
    "CELERY_TASK_TIME_LIMIT": "seconds before a task is killed (default 150)",
    "LTI_LAUNCH_LIFETIME": "seconds an LTI launch's state and claims stay usable (default 3600)",
    "LTI_PLATFORM_KEYS_LIFETIME": "seconds LMS platform keys (JWKS) are cached (default 3600)",
    "LTI_PASSBACK_MAX_RETRIES": "retries of a failed LMS grade passback (default 8)",
    "LTI_PASSBACK_RESEND_HOURS": (
        "hours the half-hourly sweep sends failed LMS grade passbacks again (default 24)"
    ),
    "LTI_TOOL_KEY_GRACE_HOURS": (
        "hours Cutoff's JWKS keeps a signing key a rotation replaced (default 72)"
    ),
    "LTI_TEACHING_ASSISTANT_ROLE": (
        "course role of LMS teaching assistants: grader, instructor, student or none "
        "(default grader)"
    ),
}


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    """Return the environment variable ``name`` (declared in ENV_VARS) or ``default``."""
    if name not in ENV_VARS:
        raise ImproperlyConfigured(f"{name} is read but not declared in config/settings/env.py")
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def env_required(name: str) -> str:
    """Return the environment variable ``name`` or refuse to start, saying which one is missing."""
    value = env_str(name)
    if value is None:
        raise ImproperlyConfigured(f"environment variable {name} must be set: {ENV_VARS[name]}")
    return value


def env_list(name: str, default: str = "") -> list[str]:
    """Return a comma-separated environment variable as a list of non-empty items."""
    raw = env_str(name, default) or ""
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_bool(name: str, default: bool) -> bool:
    """Return a true/false environment variable, naming it when it is neither."""
    raw = env_str(name)
    if raw is None:
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"environment variable {name} must be true or false")


def env_int(name: str, default: int) -> int:
    """Return an integer environment variable, naming it when it is not a whole number."""
    raw = env_str(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"environment variable {name} must be a whole number") from None
