"""The worker's signal handlers: which workers warm their pool processes for grading."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from celery.signals import worker_process_init

from config.celery_app import (
    app,
    grades_typed_answers,
    warm_pool_processes_after_the_django_fixup,
)

WARM_UP_UID = "cutoff-warm-pool-process"


def worker_consuming(consumed: Any) -> SimpleNamespace:
    """Return what the handler reads of a Celery worker: its app's consumed queues."""
    return SimpleNamespace(app=SimpleNamespace(
        amqp=SimpleNamespace(queues=SimpleNamespace(consume_from=consumed))))


def warms(consumed: Any) -> bool:
    """Return whether a worker consuming ``consumed`` connects the pool warm-up."""
    worker_process_init.disconnect(dispatch_uid=WARM_UP_UID)
    try:
        warm_pool_processes_after_the_django_fixup(sender=worker_consuming(consumed))
        return any(key[0] == WARM_UP_UID for key, _ in worker_process_init.receivers)
    finally:
        worker_process_init.disconnect(dispatch_uid=WARM_UP_UID)


@pytest.mark.parametrize(("consumed", "expected"), [
    (None, True),  # no -Q: every queue
    ({}, True),
    ({"default": object()}, True),
    ({"default": object(), "sandbox": object()}, True),  # scripts/run's single worker
    ({"sandbox": object()}, False),  # docker-compose's sandbox-worker
])
def test_only_a_worker_grading_typed_answers_warms_its_pool(consumed: Any,
                                                            expected: bool) -> None:
    assert app.conf.task_default_queue == "default"
    assert grades_typed_answers(consumed) is expected
    assert warms(consumed) is expected
