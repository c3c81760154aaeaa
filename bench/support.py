"""What the benches that start their own services share: a database of their own on the
server ``DATABASE_URL`` names, and a free port on loopback."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit, urlunsplit


def bench_database_url(name: str) -> str:
    """Return the URL of database ``name`` on the server ``DATABASE_URL`` names."""
    base = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cutoff"))
    return urlunsplit((base.scheme, base.netloc, f"/{name}", "", ""))


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
