"""Gunicorn's settings for Cutoff's web processes: docker-compose, the image and the benches.

    gunicorn -c config/gunicorn.py config.wsgi:application

Flags on the command line or in GUNICORN_CMD_ARGS override these (``--workers 4`` on a
machine with more cores, ``--bind`` elsewhere).
"""

bind = "0.0.0.0:8000"
# Two processes for two cores; each serves four requests at once, because a request spends
# much of its time waiting for PostgreSQL or Redis rather than on the CPU.
workers = 2
worker_class = "gthread"
threads = 4
timeout = 30
# Longer than a student's pause between a submission and its next poll, so a kept-alive
# connection is not closed by the server just as the client sends on it.
keepalive = 30


def post_worker_init(worker: object) -> None:
    """Keep the loaded application out of garbage collections (see config.gc_tuning)."""
    from config.gc_tuning import freeze_startup_heap

    freeze_startup_heap()
