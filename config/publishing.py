"""Publish a Celery task from a request or an on-commit hook without letting a broker outage
fail the work that wanted it.

Why: ``transaction.on_commit`` runs its callbacks unguarded, so a publish that raised there
answered a request 500 after its data was committed (and skipped the callbacks after it).
Each caller says what happens to what was not sent (an outbox row a sweep sends again, a
state the user sees); this module only logs and reports it.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


def published(task: Any, *args: Any, what: str) -> bool:
    """Send ``task`` with ``args``; return False, logged as ``what`` not sent, when the
    broker refuses it."""
    try:
        task.delay(*args)
    except Exception:  # kombu raises transport-specific errors; every one means "not sent"
        logger.warning("broker unavailable; %s not sent", what, exc_info=True)
        return False
    return True
