"""What the benches that start their own services share: a database of their own on the
server ``DATABASE_URL`` names, a free port on loopback, and a reading of the machine's speed."""

from __future__ import annotations

import os
import socket
import statistics
import time
import uuid
from urllib.parse import urlsplit, urlunsplit


def bench_database_url(name: str) -> str:
    """Return the URL of database ``name`` on the server ``DATABASE_URL`` names."""
    base = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cutoff"))
    return urlunsplit((base.scheme, base.netloc, f"/{name}", "", ""))


def production_environment(database_url: str, broker: str, host: str) -> dict[str, str]:
    """Return the environment for production settings on ``database_url`` and ``broker``,
    served at ``host`` (behind a TLS proxy: the clients send ``X-Forwarded-Proto``)."""
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": uuid.uuid4().hex * 2, "DATABASE_URL": database_url,
            "REDIS_URL": broker, "CELERY_BROKER_URL": broker,
            "ALLOWED_HOSTS": host, "LOG_LEVEL": "WARNING"}


def ensure_database(url: str) -> None:
    """Create the database ``url`` names if its server does not have it yet."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(admin, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')


def free_port() -> int:
    """Return a TCP port that nothing listens on at 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


REFERENCE_LOOP_ITERATIONS = 2_000_000


def reference_loop_ms(readings: int = 5) -> float:
    """Return the CPU milliseconds a fixed pure-Python loop takes on this machine now (the
    median of ``readings``).

    Why: on a shared VM the same code ran 1.5-1.8 times slower from one quarter of an hour
    to the next (a neighbour's load, not shown as steal time); a bench prints this before
    and after its load, so its figures can be read against the machine's speed then.
    """
    taken = []
    for _ in range(readings):
        started = time.process_time()
        total = 0
        for number in range(REFERENCE_LOOP_ITERATIONS):
            total += number
        assert total  # the loop's result is used
        taken.append((time.process_time() - started) * 1000)
    return statistics.median(taken)
