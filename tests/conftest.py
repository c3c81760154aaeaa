"""Fixtures shared by every test: personas, API clients, eager Celery, a real worker.

With CI=true, a service a test needs (PostgreSQL, Redis, bubblewrap, Chromium) that is
missing fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

pytest_plugins = ["tests.fake_network"]
"""The ``fake_network`` fixture (a fake resolver and a loopback-only connector)."""

REPO = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"


def require(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false, or fail it under CI=true."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI requires it: {reason}")
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """Start and end every test in the default language.

    A test client's request leaves the language its LocaleMiddleware chose active in this
    thread; a later test rendering text outside a request would read it in that language.
    """
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def broker_refuses(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Return a function making the given Celery tasks' ``delay`` raise as kombu does when
    Redis refuses the connection (``monkeypatch.undo()`` brings the broker back)."""
    from kombu.exceptions import OperationalError

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def down(*tasks: Any) -> None:
        for task in tasks:
            monkeypatch.setattr(task, "delay", refuse)

    return down


@pytest.fixture
def celery_eager() -> Iterator[None]:
    """Run tasks inline in the test process (unit tests only)."""
    from config.celery_app import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    try:
        yield
    finally:
        app.conf.task_always_eager = False
        app.conf.task_eager_propagates = False


def make_account(username: str, role: str, course: Any = None) -> tuple[Any, APIClient]:
    """Create an account and return it with an API client authenticated by its token."""
    from accounts.services import create_account

    user, token = create_account(username=username, role=role, course=course)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return user, client


@pytest.fixture
def course(db: None) -> Any:
    """Return a course taught by the ``instructor`` persona."""
    from accounts.models import Course

    return Course.objects.create(slug="search-101", title="Adversarial search")


@pytest.fixture
def other_course(db: None) -> Any:
    """Return a second course with its own instructor."""
    from accounts.models import Course

    return Course.objects.create(slug="other-101", title="Another course")


@pytest.fixture
def instructor(course: Any) -> tuple[Any, APIClient]:
    """Return (user, client) for the instructor of ``course``."""
    return make_account("ines", "instructor", course)


@pytest.fixture
def other_instructor(other_course: Any) -> tuple[Any, APIClient]:
    """Return (user, client) for the instructor of another course."""
    return make_account("otto", "instructor", other_course)


@pytest.fixture
def student(course: Any) -> tuple[Any, APIClient]:
    """Return (user, client) for a student enrolled in ``course``."""
    return make_account("sara", "student", course)


@pytest.fixture
def other_student(course: Any) -> tuple[Any, APIClient]:
    """Return (user, client) for another student of the same course."""
    return make_account("tomas", "student", course)


@pytest.fixture
def anonymous() -> APIClient:
    """Return an API client with no credentials."""
    return APIClient()


def _redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def stop_listener() -> Iterator[None]:
    """Stop this process's submission listener after the test (any long-poll starts it), so
    the next test starts without it and the test database can be dropped."""
    yield
    from grading.finished import listener

    listener.stop()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """Set up the test database; with ``CUTOFF_TEST_ID_OFFSET=N`` (PostgreSQL), start every
    table's ids at N, to find tests that hold only for the ids the suite's order hands out
    (a variant's seeds derive from its student's id: docs/ci.md)."""
    offset = int(os.environ.get("CUTOFF_TEST_ID_OFFSET") or 0)
    if not offset:
        return
    from django.db import connection

    require(connection.vendor == "postgresql", "CUTOFF_TEST_ID_OFFSET needs PostgreSQL")
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT schemaname, sequencename FROM pg_sequences")
        for schema, sequence in cursor.fetchall():
            cursor.execute(f'ALTER SEQUENCE "{schema}"."{sequence}" RESTART WITH {offset}')


@pytest.fixture(scope="session")
def live_server(django_db_setup: None, live_server: Any, django_db_blocker: Any
                ) -> Iterator[Any]:
    """Serve pytest-django's live server; at the end stop the submission listener its pages'
    long-polls started, before the test database it listens on is dropped (the database is
    set up first so that it is torn down last)."""
    yield live_server
    from grading.finished import listener

    with django_db_blocker.unblock():
        listener.stop()


@pytest.fixture(scope="session")
def celery_worker_process(
    django_db_setup: None, django_db_blocker: Any
) -> Iterator[Callable[[], None]]:
    """Start a real Celery worker process on the real broker, sharing the test database.

    Tests that use it must also use ``transactional_db`` so their writes are committed and
    visible to the worker.
    """
    broker = settings.CELERY_BROKER_URL
    require(_redis_reachable(broker), f"Redis at {broker} is not reachable")
    db = settings.DATABASES["default"]
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    env["CELERY_BROKER_URL"] = broker
    if db["ENGINE"].endswith("sqlite3"):
        env["DATABASE_URL"] = f"sqlite:///{db['NAME']}"
    else:
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        )
    log_path = Path(settings.VAR_DIR) / f"test-worker-{settings.TEST_RUN_ID}.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed after the worker stops
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default,sandbox",
         "--concurrency", "2", "--loglevel", "INFO", "--hostname", f"test-{os.getpid()}@%h"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    from config.celery_app import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the Celery worker exited early; see {log_path}")
        if app.control.ping(timeout=0.5):
            break
    else:
        proc.terminate()
        pytest.fail(f"the Celery worker did not answer a ping within 60 s; see {log_path}")
    try:
        yield lambda: None
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0, every: float = 0.1) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass; return its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return predicate()
