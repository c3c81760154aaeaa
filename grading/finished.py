"""Wake the requests that wait for a submission to finish (the status long-poll).

A worker that records a grade (or an error) sends a PostgreSQL ``NOTIFY`` on the database's
``cutoff_submission_finished`` channel with the submission's id, in the same transaction as
the grade, so the notice is delivered exactly when the grade becomes visible and never for
a grade rolled back. Each web process keeps one listening connection, in a thread started
the first time a request waits; it wakes the waiting requests of that submission. A channel
belongs to its database, so deployments or test runs sharing a PostgreSQL server do not hear
each other.

A notice can be missed (the listening connection dropped, a worker's NOTIFY failed): waiters
then re-read the submission every ``FALLBACK_POLL_SECONDS`` while the listener is not
listening, and the wait never outlasts its bound, so a missed notice costs latency, never a
wrong answer. On a database other than PostgreSQL (SQLite in development) waits poll.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, connections
from django.db.models import Model

from config.plain_sql import update_rows, update_statement

logger = logging.getLogger(__name__)
T = TypeVar("T")

CHANNEL = "cutoff_submission_finished"
FALLBACK_POLL_SECONDS = 0.5
"""How often a waiter re-reads the submission while no notice can reach it."""
IDLE_SECONDS = 30.0
"""How long the listener waits for a notice before checking its connection again."""
RECONNECT_SECONDS = 1.0
DRAIN_SECONDS = 5.0
"""How long stopping the listener waits for the waiting requests to answer."""
DROPPED_CONNECTION_PARAMS = ("cursor_factory", "context", "prepare_threshold",
                             "server_side_binding", "isolation_level", "assume_role", "pool")
"""Django's connection parameters that psycopg.connect does not take (Django pops them)."""


def record_announcing_finished(model: type[Model], where: Mapping[str, Any],
                               values: Mapping[str, Any], submission_id: int) -> int:
    """Run the UPDATE of :func:`config.plain_sql.update_rows` that finishes ``submission_id``
    and return how many rows it changed; on PostgreSQL the same statement sends the notice of
    :func:`announce_finished` when it changed a row (one round trip instead of two; inside a
    transaction the notice goes out when it commits).

    Unlike :func:`announce_finished` alone, a notice PostgreSQL refuses fails the UPDATE too.
    """
    if connection.vendor != "postgresql":
        return update_rows(model, where, values)
    sql, params = update_statement(model, where, values)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH changed AS ({sql} RETURNING 1) SELECT pg_notify(%s, %s) FROM changed",
                       [*params, CHANNEL, str(submission_id)])
        return int(cursor.rowcount)


def announce_finished(submission_id: int) -> None:
    """Notify the waiting requests that ``submission_id`` is graded or failed.

    Inside a transaction the notice is sent when it commits. Never raises: a lost notice
    only delays the waiters until their fallback re-read.
    """
    if connection.vendor != "postgresql":
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, str(submission_id)])
    except Exception:  # the grade is stored; the notice is an optimisation
        logger.warning("could not announce that submission %s finished", submission_id,
                       exc_info=True)


class FinishedListener:
    """This process's listening connection and the events of the requests waiting on it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.drained = threading.Condition(self.lock)
        """Notified whenever a waiter leaves (see :meth:`stop`)."""
        self.waiters: dict[int, set[threading.Event]] = {}
        self.listening = threading.Event()
        self.thread: threading.Thread | None = None
        self.pid = 0
        self.backend_pid: int | None = None
        self.stopping = threading.Event()

    def start(self) -> None:
        """Start the listening thread unless this process already runs it (forks do not)."""
        with self.lock:
            if self.thread is not None and self.pid == os.getpid() and self.thread.is_alive():
                return
            self.pid = os.getpid()
            self.listening.clear()
            self.stopping.clear()
            self.thread = threading.Thread(target=self.run, name="cutoff-finished-listener",
                                           daemon=True)
            self.thread.start()

    def run(self) -> None:
        """Listen for notices forever, reconnecting after a lost connection."""
        import psycopg

        params: dict[str, Any] = connections["default"].get_connection_params()
        for name in DROPPED_CONNECTION_PARAMS:
            params.pop(name, None)
        while not self.stopping.is_set():
            try:
                with psycopg.connect(**params, autocommit=True) as listening:
                    self.backend_pid = listening.info.backend_pid
                    listening.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    # Whatever finished before the LISTEN took effect: every waiter re-reads.
                    self.wake_all()
                    while True:
                        for notice in listening.notifies(timeout=IDLE_SECONDS):
                            self.wake(notice.payload)
                        listening.execute("SELECT 1")
            except Exception:
                if not self.stopping.is_set():
                    logger.warning("the submission listener lost its connection; "
                                   "reconnecting", exc_info=True)
            self.listening.clear()
            self.backend_pid = None
            self.wake_all()  # they fall back to re-reading until the listener is back
            self.stopping.wait(RECONNECT_SECONDS)

    def stop(self) -> None:
        """Stop listening: end the listening connection (from its server side) and the thread.

        Waiting requests answer at once with what they read last; this returns once they
        have (or after ``DRAIN_SECONDS``), so their connections are closed too. Requests that
        wait after it wait as before it. For a process that outlives its use of the
        database, e.g. a test run that drops its database afterwards.
        """
        self.stopping.set()
        thread = self.thread
        # The thread may be connecting still: end whichever connection it holds until it exits.
        while thread is not None and thread.is_alive():
            backend = self.backend_pid
            if backend is not None:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_terminate_backend(%s)", [backend])
            thread.join(timeout=RECONNECT_SECONDS)
        self.thread = None
        self.wake_all()
        with self.drained:
            self.drained.wait_for(lambda: not self.waiters, timeout=DRAIN_SECONDS)
        # Later waits wait again: on PostgreSQL they start a new listener (which clears this
        # too), elsewhere they poll, and a stop left set would end each at its first read.
        self.stopping.clear()

    def wake(self, payload: str) -> None:
        """Set the events of the requests waiting for submission ``payload``."""
        try:
            submission_id = int(payload)
        except ValueError:
            return
        with self.lock:
            for event in self.waiters.get(submission_id, ()):
                event.set()

    def wake_all(self) -> None:
        """Set every waiting request's event, so each re-reads its submission."""
        with self.lock:
            for events in self.waiters.values():
                for event in events:
                    event.set()

    @contextmanager
    def registered(self, submission_id: int) -> Iterator[threading.Event]:
        """Register an event set when ``submission_id`` finishes, for the ``with`` body."""
        event = threading.Event()
        with self.lock:
            self.waiters.setdefault(submission_id, set()).add(event)
        try:
            yield event
        finally:
            with self.lock:
                events = self.waiters.get(submission_id)
                if events is not None:
                    events.discard(event)
                    if not events:
                        del self.waiters[submission_id]
                self.drained.notify_all()


listener = FinishedListener()


class WaitSlots:
    """How many requests of this process may wait at once (``LONG_POLL_MAX_WAITING``).

    A waiting request holds a web thread. Were every thread waiting (the workers stalled,
    or a burst larger than the threads), new submissions could not even be stored until a
    wait ended; past the cap a request is answered at once with what it read, and the API
    tells the client when to ask again (``Retry-After``).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.semaphore: threading.BoundedSemaphore | None = None
        """Made at first use, from the setting (tests reset it to None to change it)."""

    def take(self) -> bool:
        """Take a slot if one is free; return whether one was taken."""
        with self.lock:
            if self.semaphore is None:
                self.semaphore = threading.BoundedSemaphore(int(settings.LONG_POLL_MAX_WAITING))
            semaphore = self.semaphore
        return semaphore.acquire(blocking=False)

    def give_back(self) -> None:
        """Free a slot taken by :meth:`take`."""
        assert self.semaphore is not None
        self.semaphore.release()


wait_slots = WaitSlots()


def wait_until_finished(submission_id: int, seconds: float, read: Callable[[], T],
                           finished: Callable[[T], bool]) -> T:
    """Return ``read()`` once ``finished`` says so of it, or after ``seconds`` at most.

    ``read`` loads the submission (it is called at least once); the waiter is registered
    before the first read, so a notice sent in between is not missed. When this process
    already has ``LONG_POLL_MAX_WAITING`` requests waiting, it reads once and returns.
    """
    if not wait_slots.take():
        return read()
    try:
        return _wait(submission_id, seconds, read, finished)
    finally:
        wait_slots.give_back()


def _wait(submission_id: int, seconds: float, read: Callable[[], T],
          finished: Callable[[T], bool]) -> T:
    """Wait as :func:`wait_until_finished` says, holding one of this process's slots."""
    deadline = time.monotonic() + seconds
    postgres = connection.vendor == "postgresql"
    if postgres:
        listener.start()
    with listener.registered(submission_id) as event:
        while True:
            current = read()
            remaining = deadline - time.monotonic()
            if finished(current) or remaining <= 0 or listener.stopping.is_set():
                return current
            if postgres and listener.listening.is_set():
                event.wait(remaining)
            else:
                event.wait(min(remaining, FALLBACK_POLL_SECONDS))
            event.clear()
