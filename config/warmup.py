"""Load at a serving process's start what its first requests would otherwise load.

Django imports the URL configuration, and with it every view module, DRF's serializers and
the OpenAPI schema's declarations, on a process's first request, and each language's message
catalogue on its first request in that language. In a gunicorn worker that was about 0.45 s
of CPU (py-spy, ``bench/grading_load.py``), paid by the first students to reach a freshly
started process while every other process was busy too: the start of an exam, or the minute
after a deployment. Loaded before the process serves, it also lands in the start-up heap
that ``config.gc_tuning`` takes out of garbage collections.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor

from django.conf import settings
from django.db import connection
from django.urls import get_resolver, reverse
from django.utils import translation

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


def connect_every_thread(pool: Executor, threads: int) -> None:
    """Start all ``threads`` threads of ``pool`` (a gunicorn gthread worker's) and open each
    one's database connection, before the process serves.

    A thread is otherwise started by the first request that finds every other thread busy,
    and its connection opened by that request: at the start of an exam some thirty of them
    at once (PostgreSQL forks a backend for each), while the cores are busiest
    (bench/README.md). Every job waits until all have started, so each runs on a thread of
    its own; the connections are kept (``CONN_MAX_AGE``), and later requests on those
    threads reuse them.
    """
    all_started = threading.Barrier(threads, timeout=THREADS_START_WITHIN_SECONDS)

    def connect() -> None:
        all_started.wait()
        connection.ensure_connection()

    for job in [pool.submit(connect) for _ in range(threads)]:
        job.result()
