"""The Celery application: configured from Django settings (the CELERY_ namespace)."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_prerun, worker_init, worker_process_init, worker_ready
from django.db import close_old_connections

from config.broker import use_this_transport_for_redis_urls
from config.gc_tuning import freeze_startup_heap

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
use_this_transport_for_redis_urls()  # before any connection: see config.broker

app = Celery("cutoff")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Code exercises keep their tasks in a sub-package of the grading app.
app.autodiscover_tasks(["grading.code"])

# Worker heartbeats (read by /healthz and the stale-work sweep) and the consumer step that
# resends what a broker outage lost.
from config.heartbeat import BrokerConnectionWatch  # noqa: E402

app.steps["consumer"].add(BrokerConnectionWatch)


@task_prerun.connect
def drop_unusable_connections(task: Any = None, **kwargs: Any) -> None:
    """Close database connections that failed or outlived CONN_MAX_AGE, as a request does.

    Workers keep their connections between tasks (CELERY_DB_REUSE_MAX); with
    CONN_HEALTH_CHECKS, the first query of the next task then checks a kept connection, so
    one broken by a database restart is replaced instead of failing that task.
    """
    if task is not None and getattr(task.request, "is_eager", False):
        return  # an eager task runs inside its caller's request and transaction
    close_old_connections()


@worker_process_init.connect
@worker_ready.connect
def freeze_worker_heap(**kwargs: Any) -> None:
    """Keep the loaded application out of garbage collections (see config.gc_tuning).

    ``worker_process_init`` runs in each prefork child, where tasks run; ``worker_ready``
    in the main process, where the thread and solo pools run them.
    """
    freeze_startup_heap()


@worker_init.connect
def warm_pool_processes_after_the_django_fixup(sender: Any = None, **kwargs: Any) -> None:
    """Have each prefork pool process of a worker that grades typed answers (it consumes
    the default queue) run grading's statements before its first task
    (:func:`warm_pool_process`); a sandbox-only worker never runs them.

    Connected only now, after Celery's Django fixup connected its own ``worker_process_init``
    handler (it closes the connections a child inherited, and would close the warm one too):
    signal handlers run in the order they were connected.
    """
    if sender is not None and not grades_typed_answers(sender.app.amqp.queues.consume_from):
        return
    worker_process_init.connect(warm_pool_process, weak=False,
                                dispatch_uid="cutoff-warm-pool-process")


def grades_typed_answers(consumed: Any) -> bool:
    """Return whether a worker consuming the queues ``consumed`` (a mapping of names; empty
    or None: every queue) gets typed answers' grading tasks."""
    return not consumed or app.conf.task_default_queue in consumed


def warm_pool_process(**kwargs: Any) -> None:
    """Open this pool process's database connection and run grading's statements on it
    until they are prepared (config.warmup), so an exam's first grades do not pay for it."""
    from config.warmup import warm_statements
    from grading.services import grading_statements

    warm_statements(grading_statements())
