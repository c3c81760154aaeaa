"""Real processes for the fault and operations tests: a private Redis, gunicorn, Celery workers.

Everything listens on 127.0.0.1 on free ports and is stopped by the fixture that started it;
the machine's shared Redis (6379) and PostgreSQL are never stopped or reconfigured.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings
from django.db import connection

from tests.conftest import REPO, require, wait_until

HTTPS = {"X-Forwarded-Proto": "https"}
"""Production settings redirect plain HTTP; a proxy in front says the client used HTTPS."""


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_open(port: int) -> bool:
    """Return whether something accepts connections on 127.0.0.1:``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


APPLICATION_NAME = "cutoff-hardening"
"""How the processes started here name themselves to PostgreSQL, to wait for their sessions."""


def database_url_of_this_run(host: str = "", port: int | None = None, **query: str) -> str:
    """Return the URL of this run's test database, optionally through another host/port."""
    query = {"application_name": APPLICATION_NAME, **query}
    db = settings.DATABASES["default"]
    require(not db["ENGINE"].endswith("sqlite3"), "the fault tests need PostgreSQL")
    url = (
        f"postgres://{db['USER']}:{db['PASSWORD']}@{host or db['HOST'] or '127.0.0.1'}:"
        f"{port or db['PORT'] or 5432}/{db['NAME']}"
    )
    return url + "?" + "&".join(f"{name}={value}" for name, value in query.items())


def sessions_of_started_processes() -> int:
    """Return how many database sessions the processes started here still hold."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                       [APPLICATION_NAME])
        return int(cursor.fetchone()[0])


def stop(process: subprocess.Popen[Any], timeout: float = 5) -> None:
    """Stop a process started in its own session (and its children): TERM, then KILL."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=timeout)


@dataclass
class PrivateRedis:
    """A redis-server of this test alone, which the test may stop and start again."""

    port: int
    workdir: Path
    process: subprocess.Popen[Any] | None = None

    @property
    def url(self) -> str:
        """Return the broker URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert wait_until(lambda: port_open(self.port), timeout=10), "private redis down"

    def kill(self) -> None:
        """Kill the server at once, as a crash would."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """Return a started private Redis on a free port (killed after the test)."""
    require(shutil.which("redis-server") is not None, "redis-server is not installed")
    redis = PrivateRedis(port=free_port(), workdir=tmp_path)
    redis.start()
    try:
        yield redis
    finally:
        redis.kill()


@dataclass
class Service:
    """A started subprocess with its log file."""

    process: subprocess.Popen[Any]
    log_path: Path
    port: int | None = None
    name: str = ""

    @property
    def base_url(self) -> str:
        """Return the HTTP base URL (web processes)."""
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        """Return what the process has logged so far."""
        return self.log_path.read_text(errors="replace")


@dataclass
class Processes:
    """Start gunicorn and Celery workers for one test and stop them all after it."""

    tmp_path: Path
    started: list[Service] = field(default_factory=list)

    def _spawn(self, name: str, argv: list[str], env: dict[str, str]) -> Service:
        log_path = self.tmp_path / f"{name}.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                argv,
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        service = Service(process=process, log_path=log_path, name=name)
        self.started.append(service)
        return service

    def web(self, env: dict[str, str], workers: int = 1, timeout: int = 30) -> Service:
        """Start gunicorn serving config.wsgi with ``env``; wait until it accepts requests."""
        port = free_port()
        service = self._spawn(
            f"web-{port}",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--timeout",
                str(timeout),
                "--graceful-timeout",
                "2",
            ],
            {**os.environ, **env},
        )
        service.port = port

        def answers() -> bool:
            assert service.process.poll() is None, f"gunicorn exited:\n{service.log()}"
            try:
                requests.get(f"{service.base_url}/api/v1/kinds/", headers=HTTPS, timeout=5)
            except (requests.ConnectionError, requests.Timeout):
                return False  # not listening yet, or still importing on a loaded machine
            return True

        assert wait_until(answers, timeout=60, every=0.2), service.log()
        return service

    def worker(
        self, name: str, env: dict[str, str], queues: str = "default,sandbox", concurrency: int = 1,
        beat: bool = False,
    ) -> Service:
        """Start a Celery worker named ``name``; wait until it is ready to take tasks.

        With ``beat`` it embeds Celery beat (the stale-work sweep), as the compose worker does.
        """
        schedule = str(self.tmp_path / f"{name}-beat")
        embedded_beat = ["--beat", "--schedule", schedule] if beat else []
        service = self._spawn(
            name,
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-Q",
                queues,
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "INFO",
                "--hostname",
                f"{name}@%h",
                "--without-gossip",
                "--without-mingle",
                *embedded_beat,
            ],
            {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", **env},
        )

        def ready() -> bool:
            assert service.process.poll() is None, f"worker exited:\n{service.log()}"
            return " ready." in service.log()

        assert wait_until(ready, timeout=60, every=0.2), service.log()
        return service

    def stop_all(self) -> None:
        """Stop every process started, newest first, and wait for their database sessions.

        The run's test database is dropped at the end, which a lingering session prevents.
        """
        for service in reversed(self.started):
            stop(service.process)
        if self.started:
            wait_until(lambda: sessions_of_started_processes() == 0, timeout=10)


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    """Return a starter of real processes; all are stopped after the test."""
    started = Processes(tmp_path=tmp_path)
    try:
        yield started
    finally:
        started.stop_all()


def children_of(pid: int) -> list[int]:
    """Return the ids of the direct child processes of ``pid``."""
    tasks = Path(f"/proc/{pid}/task")
    found: list[int] = []
    for task in tasks.iterdir():
        children = (task / "children").read_text().split()
        found.extend(int(child) for child in children)
    return found


def poll(predicate: Callable[[], Any], timeout: float, message: str) -> None:
    """Wait for ``predicate`` or fail with ``message``."""
    assert wait_until(predicate, timeout=timeout, every=0.2), message
