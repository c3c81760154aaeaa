"""Load at a serving process's start what its first requests would otherwise load.

Django imports the URL configuration, and with it every view module, DRF's serializers and
the OpenAPI schema's declarations, on a process's first request, and each language's message
catalogue on its first request in that language. In a gunicorn worker that was about 0.45 s
of CPU (py-spy, ``bench/grading_load.py``), paid by the first students to reach a freshly
started process while every other process was busy too: the start of an exam, or the minute
after a deployment. Loaded before the process serves, it also lands in the start-up heap
that ``config.gc_tuning`` takes out of garbage collections.

The same holds for connections: each thread's database connection and Redis connection
(the throttle's), the broker connections the threads publish grading tasks on, and the
process's listening connection for finished submissions (the long-poll). Opened by the first
requests, they were about 3 % of the web's CPU in the first five seconds of an exam
(``bench/README.md``), and a long-poll that found no listener yet polled every half second.

And for what each new connection's PostgreSQL backend learns on its first statements: the
tables' and indexes' catalogue entries, and the answer path's statements, which psycopg
prepares on a connection only after ``DATABASE_PREPARE_THRESHOLD`` runs (planned anew each
run before). Some thirty web connections and every worker process's met them all during an
exam's first answers: run here first, with keys no row has (:func:`warm_statements`),
PostgreSQL spent 0.2-0.9 ms less per answer in 11 of 12 alternating runs of
``bench/grading_load.py --students 200``, and p99 fell in 10. A connection replaced after
``CONN_MAX_AGE`` starts cold again, so this serves the first minute after a (re)start.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.db import connection
from django.urls import get_resolver, reverse
from django.utils import translation

from config.broker import Channel as RedisBrokerChannel
from config.redis_cache import KeptClientRedisCache

logger = logging.getLogger(__name__)

NO_SUCH_ROW = -1
"""A primary key no row has: the warm-up's statements find and change nothing."""
THREADS_START_WITHIN_SECONDS = 30.0
"""How long :func:`connect_every_thread` waits for the pool to have started every thread."""


def warm_up_web_process() -> None:
    """Import every URL pattern's view and load every configured language's catalogue."""
    # Resolving imports ROOT_URLCONF and everything it includes; reversing fills the
    # resolver's lookup tables, as the first request that builds a URL would.
    get_resolver().resolve("/healthz")
    reverse("healthz")
    for code, _name in settings.LANGUAGES:
        # Activating a language loads (and keeps) its catalogue.
        with translation.override(code):
            pass
    if connection.vendor == "postgresql":
        from grading.finished import listener

        listener.start()


def connect_every_thread(pool: Executor, threads: int) -> None:
    """Start all ``threads`` threads of ``pool`` (a gunicorn gthread worker's) and open each
    one's database and cache connections and a broker connection, before the process serves.

    A thread is otherwise started by the first request that finds every other thread busy,
    and its connections opened by that request: at the start of an exam some thirty of them
    at once (PostgreSQL forks a backend for each), while the cores are busiest
    (bench/README.md). Every job waits until all have started, so each runs on a thread of
    its own; the connections are kept (``CONN_MAX_AGE``, the cache's and the broker's
    pools), and later requests on those threads reuse them. Redis being down does not stop
    the process: requests are served without it (config.throttling, the outbox sweep).
    """
    all_started = threading.Barrier(threads, timeout=THREADS_START_WITHIN_SECONDS)

    def connect() -> None:
        all_started.wait()
        connection.ensure_connection()
        warm_statements(answer_path_statements())
        try:
            open_cache_connection()
            open_broker_connection()
        except Exception:  # redis-py's and kombu's errors alike: serve, and connect later
            logger.warning("Redis did not answer the warm-up; requests connect when they "
                           "need it", exc_info=True)

    for job in [pool.submit(connect) for _ in range(threads)]:
        job.result()


def open_cache_connection() -> None:
    """Open this thread's connection to the default cache's Redis, if it is one.

    Django keeps one cache backend per thread, each with its own connection pool.
    """
    backend = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, KeptClientRedisCache):
        backend.connect()


def open_broker_connection() -> None:
    """Open the connection of one of the process's task producers (Celery's producer pool).

    Called from every thread at once, it fills the pool up to its limit
    (Celery's ``broker_pool_limit``, 10 unless set); with any broker but Redis it does nothing.
    """
    from config.celery_app import app

    with app.producer_or_acquire() as producer:
        channel = producer.channel
        if isinstance(channel, RedisBrokerChannel):
            with channel.conn_or_acquire() as client:
                client.ping()


def answer_path_statements() -> list[Callable[[], object]]:
    """Return the reads of an exam's hot requests as calls that find no row: the token, an
    assignment's open (two statements), an answer's item, lock and attempts, the re-read of
    its grade, and a status read."""
    from accounts.authentication import token_for_key
    from accounts.models import User
    from config.plain_sql import lock_row, read_fields
    from exercises.models import VariantItem
    from exercises.selectors import variant_items, variant_of
    from grading.models import Submission
    from grading.selectors import (
        GRADE_FIELDS,
        attempt_counts,
        student_variant_item,
        submission_for,
    )

    nobody = User(pk=NO_SUCH_ROW)
    return [
        lambda: token_for_key(""),
        lambda: variant_of(nobody, NO_SUCH_ROW),
        lambda: variant_items(NO_SUCH_ROW),
        lambda: student_variant_item(nobody, NO_SUCH_ROW, NO_SUCH_ROW),
        lambda: lock_row(VariantItem, NO_SUCH_ROW),
        lambda: attempt_counts(NO_SUCH_ROW),
        lambda: read_fields(Submission, NO_SUCH_ROW, GRADE_FIELDS),
        lambda: submission_for(nobody, NO_SUCH_ROW),
    ]


def warm_statements(statements: Sequence[Callable[[], object]]) -> None:
    """Run ``statements`` on this thread's database connection until psycopg has prepared
    each (once, where it prepares none), so its backend has also loaded what they touch.

    A failure is logged, never raised: the process serves without the warm-up.
    """
    threshold = connection.settings_dict.get("OPTIONS", {}).get("prepare_threshold")
    runs = threshold + 1 if threshold else 1
    try:
        for _ in range(runs):
            for statement in statements:
                statement()
        logger.debug("warmed %s statements up (%s runs each)", len(statements), runs)
    except Exception:  # any database error: the first requests are slower, nothing else
        logger.warning("the database warm-up failed; requests run the statements cold",
                       exc_info=True)
