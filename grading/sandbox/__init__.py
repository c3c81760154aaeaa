"""Run untrusted student search code in bubblewrap while the grader answers its game calls.

Pure Python with no Django import, so it is unit-testable and callable from a Celery task::

    record = run_in_sandbox(source, "alphabeta_decision", [StateArg(root), 3], game, limits)
    if record.ok and record.was_offered(record.return_value, root): ...
"""

from .errors import ProtocolViolation, SandboxError, SandboxUnavailable
from .harness import StateArg
from .limits import DEFAULT_LIMITS, SandboxConfig, SandboxLimits
from .record import VERDICTS, CallEvent, RunRecord, Verdict
from .runner import check_host, run_in_sandbox

__all__ = [
    "DEFAULT_LIMITS",
    "VERDICTS",
    "CallEvent",
    "ProtocolViolation",
    "RunRecord",
    "SandboxConfig",
    "SandboxError",
    "SandboxLimits",
    "SandboxUnavailable",
    "StateArg",
    "Verdict",
    "check_host",
    "run_in_sandbox",
]
