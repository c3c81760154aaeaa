"""Worker heartbeats in the database: each worker process says it is alive, whether it is
connected to the broker, and which submissions it holds.

A worker's main process writes its :class:`grading.models.WorkerHeartbeat` row every
``HEARTBEAT_EVERY_SECONDS`` from a thread, and when it loses the broker or gets it back. When
it receives a grading task the same thread is woken to write ``GATHER_SECONDS`` later,
listing the task's submission and those of the tasks received meanwhile. Why not in the
signal handler itself: that runs in Celery's event loop, which then waited on a database
round trip for every task it received, so tasks behind it waited too (bench/README.md,
"Grading load"); a burst of tasks is also listed in one write. A worker lost in those fifty
milliseconds loses nothing: once its heartbeat is stale the sweep resends the queued ones
sent before it stopped and the running ones started before then, listed or not.
``/healthz`` reads these rows instead of pinging workers; the stale-work sweep sends again the
submissions of a worker whose heartbeat stopped
(``grading.services.requeue_stranded_submissions``).
"""

from __future__ import annotations

import logging
import os
import threading
from datetime import datetime, timedelta
from typing import Any

from celery import bootsteps
from celery.signals import task_received, worker_ready, worker_shutdown
from celery.worker import state as worker_state
from django.db import close_old_connections
from django.db.utils import Error as DatabaseError
from django.utils import timezone

from config.plain_sql import update_rows

logger = logging.getLogger(__name__)

HEARTBEAT_EVERY_SECONDS = 5.0
GATHER_SECONDS = 0.05
"""How long a woken heartbeat waits for more tasks before writing: under an exam's load (100
tasks a second) one write lists about five tasks instead of one each. A worker killed in that
window leaves its newest tasks unlisted; requeue_stranded_submissions still sends again every
queued one that was sent, and every running one started, before the worker stopped."""
ALIVE_WITHIN = timedelta(seconds=20)
"""A worker whose heartbeat is older than this is gone (four beats missed)."""
SUBMISSION_TASKS = frozenset(
    {"grading.tasks.grade_submission_task", "grading.code.tasks.run_code_submission"}
)
"""The tasks whose first argument is the id of the submission they grade."""


class Heartbeat:
    """This worker process's heartbeat: its name, broker state and the row it writes."""

    def __init__(self) -> None:
        self.name = ""
        self.broker_connected = False
        self.broker_lost_at: datetime | None = None
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.lock = threading.Lock()
        self.received: set[int] = set()
        """Submissions whose tasks arrived since the last write (Celery lists a task as
        reserved only after the ``task_received`` signal)."""

    def held_submissions(self, received: set[int] | frozenset[int] = frozenset()) -> list[int]:
        """Return the ids of the submissions whose tasks this worker holds right now, with
        ``received`` (submissions whose tasks just arrived)."""
        held = set(received)
        for request in list(worker_state.requests.values()):
            if request.name in SUBMISSION_TASKS and request.args:
                held.add(int(request.args[0]))
        return sorted(held)

    def list_soon(self, submission_id: int) -> None:
        """Have the heartbeat thread write the row now, listing ``submission_id``."""
        self.received.add(submission_id)
        self.wake.set()

    def write(self) -> None:
        """Write this worker's row now; a database error is logged, not raised."""
        from grading.models import WorkerHeartbeat

        if not self.name:
            return
        with self.lock:
            # Taken before reading: one added meanwhile is in this write or the next.
            received, self.received = self.received, set()
            try:
                close_old_connections()
                row = {"beat_at": timezone.now(), "holding": self.held_submissions(received),
                       "broker_connected": self.broker_connected}
                # Written on every grading task received: one plain UPDATE (update_or_create
                # is a transaction, a locking SELECT and an UPDATE); the row is created once.
                if not update_rows(WorkerHeartbeat, where={"name": self.name}, values=row):
                    WorkerHeartbeat.objects.update_or_create(name=self.name, defaults=row)
            except DatabaseError:
                logger.warning("could not write the heartbeat of %s", self.name, exc_info=True)

    def run(self) -> None:
        """Write the row every HEARTBEAT_EVERY_SECONDS, and GATHER_SECONDS after being woken,
        until stopped."""
        while not self.stop.is_set():
            if self.wake.wait(HEARTBEAT_EVERY_SECONDS):
                # Gather the tasks of a burst into one write instead of one write each.
                self.stop.wait(GATHER_SECONDS)
            self.wake.clear()
            if not self.stop.is_set():
                self.write()

    def remove(self) -> None:
        """Stop beating and delete this worker's row (a clean shutdown)."""
        from grading.models import WorkerHeartbeat

        self.stop.set()
        self.wake.set()
        if self.name:
            try:
                WorkerHeartbeat.objects.filter(name=self.name).delete()
            except DatabaseError:
                logger.warning("could not remove the heartbeat of %s", self.name, exc_info=True)


heartbeat = Heartbeat()


@worker_ready.connect
def start_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """Name this worker (node name and pid: a restarted worker is another one) and start."""
    heartbeat.name = f"{getattr(sender, 'hostname', 'worker')} pid {os.getpid()}"
    heartbeat.write()
    threading.Thread(target=heartbeat.run, name="cutoff-heartbeat", daemon=True).start()


@task_received.connect
def list_received_submission(request: Any = None, **kwargs: Any) -> None:
    """Have the heartbeat list a grading task's submission as soon as the task arrives."""
    if request is not None and request.name in SUBMISSION_TASKS and request.args:
        heartbeat.list_soon(int(request.args[0]))


@worker_shutdown.connect
def stop_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """Stop the heartbeat and remove this worker's row."""
    heartbeat.remove()


class BrokerConnectionWatch(bootsteps.StartStopStep):
    """A consumer step: record broker losses and, once reconnected, resend what they lost.

    Celery stops the consumer's steps when the broker connection is lost and starts them
    again once it is back. Messages the worker held then (prefetched, waiting for an ETA)
    cannot be acknowledged or restored any more, and a broker restarted without its data
    lost the queued ones: the stale-work sweep sends again every submission still queued
    from before the loss (grading is idempotent, so one still in the queue is graded once).
    """

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, parent: Any) -> None:
        """Mark the broker connected; after a loss, run the sweep for what it lost."""
        heartbeat.broker_connected = True
        heartbeat.write()
        lost_at, heartbeat.broker_lost_at = heartbeat.broker_lost_at, None
        if lost_at is not None:
            logger.info("broker connection back (lost at %s): requeueing what it lost",
                        lost_at.isoformat())
            parent.app.send_task("grading.tasks.requeue_stale_submissions",
                                 kwargs={"broker_lost_at": lost_at.isoformat()})

    def stop(self, parent: Any) -> None:
        """Mark the broker lost (the consumer restarts or shuts down)."""
        if heartbeat.broker_connected:
            heartbeat.broker_connected = False
            heartbeat.broker_lost_at = timezone.now()
            heartbeat.write()

    def shutdown(self, parent: Any) -> None:
        """Do nothing more at shutdown: the worker_shutdown handler removes the row."""


def live_workers(now: datetime | None = None) -> list[Any]:
    """Return the heartbeats written within ALIVE_WITHIN."""
    from grading.models import WorkerHeartbeat

    now = now or timezone.now()
    return list(WorkerHeartbeat.objects.filter(beat_at__gte=now - ALIVE_WITHIN))
