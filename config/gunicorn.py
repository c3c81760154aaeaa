"""Gunicorn's settings for Cutoff's web processes: docker-compose, the image and the benches.

    gunicorn -c config/gunicorn.py config.wsgi:application

Flags on the command line or in GUNICORN_CMD_ARGS override these (``--workers 4`` on a
machine with more cores, ``--bind`` elsewhere).
"""

bind = "0.0.0.0:8000"
# Two processes for two cores. Each serves up to 16 requests at once: a request spends much
# of its time waiting for PostgreSQL, and a status long-poll (GET /api/v1/submissions/{id}/
# ?wait=) holds its thread, idle, until the grade is recorded. gthread rather than gevent
# keeps Django and psycopg on plain threads; 16 covers the waits of a full 2-core machine
# (about 100 answers/s graded in under 150 ms: ~15 waiting at once). Each thread keeps
# its own database connection (CONN_MAX_AGE): 2 x 16, plus a listener per process
# (docs/scaling.md sizes PostgreSQL's max_connections for this).
workers = 2
worker_class = "gthread"
threads = 16
timeout = 30
# Longer than a student's pause between a submission and its next poll, so a kept-alive
# connection is not closed by the server just as the client sends on it.
keepalive = 30


def post_worker_init(worker: object) -> None:
    """Load what the first requests would, start every thread with its connections
    (config.warmup), then keep the loaded application out of garbage collections
    (config.gc_tuning)."""
    from config.gc_tuning import freeze_startup_heap
    from config.warmup import connect_every_thread, warm_up_web_process

    warm_up_web_process()
    pool = getattr(worker, "tpool", None)  # gthread's thread pool (none in other workers)
    if pool is not None:
        connect_every_thread(pool, worker.cfg.threads)  # type: ignore[attr-defined]
    freeze_startup_heap()
