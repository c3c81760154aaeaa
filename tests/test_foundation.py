"""The skeleton: layout, settings, health, accounts command, error envelope, e2e worker."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from tests.conftest import REPO, wait_until


def test_layout_is_the_owners() -> None:
    for path in ["manage.py", "config/settings/base.py", "config/settings/local.py",
                 "config/settings/production.py", "config/settings/test.py", "config/urls.py",
                 "config/celery_app.py", "config/wsgi.py", "config/asgi.py", "exercises",
                 "grading", "engine", "tests", "docker-compose.yml", "bench", "README.md",
                 ".ci/run", "pyproject.toml", "requirements.lock"]:
        assert (REPO / path).exists(), path


def test_production_settings_refuse_to_start_without_secrets() -> None:
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings.production"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=REPO, env=env, capture_output=True, text=True,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_settings_start_with_secrets() -> None:
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings.production",
           "SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://u@127.0.0.1/db",
           "REDIS_URL": "redis://127.0.0.1:6379/0"}
    code = "import django; django.setup(); from django.conf import settings; " \
           "assert settings.SESSION_COOKIE_SECURE and not settings.DEBUG"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.django_db
def test_create_account_prints_a_working_token(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("create_account", "--username", "ana", "--role", "instructor",
                 "--course", "ia-2026")
    token = capsys.readouterr().out.strip()
    assert Token.objects.get(key=token).user.username == "ana"
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post("/api/v1/courses/", {"slug": "ia-2027", "title": "IA"}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_create_account_is_idempotent(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("create_account", "--username", "bo", "--role", "student")
    first = capsys.readouterr().out.strip()
    call_command("create_account", "--username", "bo", "--role", "student")
    assert capsys.readouterr().out.strip() == first


def test_errors_use_the_envelope(anonymous, db) -> None:  # type: ignore[no-untyped-def]
    response = anonymous.post("/api/v1/courses/", {}, format="json")
    assert response.status_code == 401
    assert set(response.json()["error"]) == {"code", "message", "details"}
    response = anonymous.get("/api/v1/no-such-thing/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_any_method_on_an_unknown_api_path_is_a_json_404(student, method: str) -> None:  # type: ignore[no-untyped-def]
    # As a real client sends it: the test client skips CSRF checks unless told otherwise,
    # and a POST to a mistyped path (an empty id: /assignments//items/1/...) came back as
    # Django's HTML "403 CSRF verification failed".
    from rest_framework.test import APIClient

    token, _ = Token.objects.get_or_create(user=student[0])
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = getattr(client, method)("/api/v1/assignments//items/1/submissions/", {},
                                       format="json")
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not_found"


def test_a_refused_csrf_check_is_json_under_api_and_html_elsewhere() -> None:
    from django.test import RequestFactory

    from config.views import csrf_failure

    response = csrf_failure(RequestFactory().post("/api/v1/courses/"), "no token")
    assert response.status_code == 403
    assert json.loads(response.content)["error"]["code"] == "csrf_failed"
    page = csrf_failure(RequestFactory().post("/login/"), "no token")
    assert page.status_code == 403 and page["Content-Type"].startswith("text/html")


def test_course_validation_names_the_field(instructor) -> None:  # type: ignore[no-untyped-def]
    _, client = instructor
    response = client.post("/api/v1/courses/", {"slug": "bad slug!", "title": ""}, format="json")
    assert response.status_code == 400
    body = response.json()["error"]
    assert "slug" in body["details"] and "title" in body["details"]
    assert body["message"].startswith("slug:")


def test_students_cannot_create_courses(student) -> None:  # type: ignore[no-untyped-def]
    _, client = student
    response = client.post("/api/v1/courses/", {"slug": "x", "title": "x"}, format="json")
    assert response.status_code == 403


def test_enrolling_in_another_instructors_course_is_404(  # type: ignore[no-untyped-def]
    instructor, other_course
) -> None:
    _, client = instructor
    response = client.post(f"/api/v1/courses/{other_course.id}/enrollments/",
                           {"usernames": ["z"], "create_missing": True}, format="json")
    assert response.status_code == 404


def test_enrol_creates_missing_only_when_asked(instructor, course) -> None:  # type: ignore[no-untyped-def]
    _, client = instructor
    url = f"/api/v1/courses/{course.id}/enrollments/"
    response = client.post(url, {"usernames": ["new1"]}, format="json")
    assert response.status_code == 200
    assert response.json()["enrolled"] == []
    assert [entry["username"] for entry in response.json()["not_enrolled"]] == ["new1"]
    response = client.post(url, {"usernames": ["new1"], "create_missing": True}, format="json")
    assert response.status_code == 200
    assert response.json() == {"enrolled": [{"username": "new1", "role": "student"}],
                               "not_enrolled": []}


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_healthz_is_200_with_a_real_worker(instructor, celery_worker_process) -> None:  # type: ignore[no-untyped-def]
    _, client = instructor
    # Each transactional test empties the tables; the worker writes its heartbeat again
    # within HEARTBEAT_EVERY_SECONDS.
    assert wait_until(lambda: client.get("/healthz").status_code == 200), (
        client.get("/healthz").json())
    assert client.get("/healthz").json()["checks"]["workers"].startswith("ok")


def test_gunicorn_settings_load_warm_up_and_freeze_the_startup_heap_in_each_worker() -> None:
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings.production",
           "SECRET_KEY": "x" * 50, "DATABASE_URL": "sqlite:////tmp/unused.sqlite3",
           "REDIS_URL": "redis://127.0.0.1:6379/0"}
    checked = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--check-config", "-c", "config/gunicorn.py",
         "config.wsgi:application"], cwd=REPO, env=env, capture_output=True, text=True,
    )
    assert checked.returncode == 0, checked.stderr
    probe = (
        "import gc, runpy, django; django.setup(); "
        "hooks = runpy.run_path('config/gunicorn.py'); "
        "assert hooks['worker_class'] == 'gthread'; "
        "import sys; assert 'config.urls' not in sys.modules; "
        "hooks['post_worker_init'](None); "
        "from django.utils.translation import trans_real; "
        "views = {'config.urls', 'grading.apis', 'exercises.apis', 'lms.views'}; "
        "assert views <= set(sys.modules), views - set(sys.modules); "
        "languages = {'en', 'pt', 'pt-br', 'ca'}; "
        "assert languages <= set(trans_real._translations), trans_real._translations; "
        "print(gc.get_freeze_count())"
    )
    frozen = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env,
                            capture_output=True, text=True)
    assert frozen.returncode == 0, frozen.stderr
    # Django, DRF and the project's modules: tens of thousands of objects, never garbage.
    assert int(frozen.stdout) > 10_000


@pytest.mark.django_db(transaction=True)
def test_connect_every_thread_starts_each_thread_of_the_pool_with_its_own_connection() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from config.warmup import connect_every_thread

    with ThreadPoolExecutor(max_workers=4) as pool:
        connect_every_thread(pool, 4)
        barrier = threading.Barrier(4)

        def report() -> tuple[int, bool]:
            barrier.wait(timeout=30)  # one job per thread, as the warm-up ran them
            opened = connection.connection is not None
            connection.close()
            return threading.get_ident(), opened

        found = [job.result() for job in [pool.submit(report) for _ in range(4)]]
        seen = {ident for ident, _ in found}
        assert len(seen) == 4
        assert all(opened for _, opened in found)


def production_cache(settings: Any, location: str) -> None:
    """Use production's Redis cache at ``location``, under a prefix of this test's own."""
    settings.CACHES = {"default": {"BACKEND": "config.redis_cache.KeptClientRedisCache",
                                   "LOCATION": location,
                                   "KEY_PREFIX": f"warm-up-test-{uuid.uuid4().hex}"}}


def idle_redis_connections(client: Any) -> int:
    """Return how many connections ``client``'s pool holds open and unused."""
    return len(client.connection_pool._available_connections)


@pytest.mark.django_db(transaction=True)
def test_connect_every_thread_opens_each_thread_s_cache_connection_and_the_broker_s(
        settings: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.core.cache import caches

    from config.celery_app import app
    from config.warmup import connect_every_thread

    production_cache(settings, settings.CELERY_BROKER_URL)
    with ThreadPoolExecutor(max_workers=4) as pool:
        connect_every_thread(pool, 4)
        barrier = threading.Barrier(4)

        def report() -> int:
            barrier.wait(timeout=30)  # one job per thread, as the warm-up ran them
            return idle_redis_connections(caches["default"]._cache.get_client(write=True))

        assert [job.result() for job in [pool.submit(report) for _ in range(4)]] == [1] * 4
    with app.producer_or_acquire() as producer, producer.channel.conn_or_acquire() as client:
        assert idle_redis_connections(client) >= 1


@pytest.mark.django_db(transaction=True)
def test_connect_every_thread_serves_without_redis(settings: Any, caplog: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from config.warmup import connect_every_thread
    from tests.hardening.conftest import free_port

    production_cache(settings, f"redis://127.0.0.1:{free_port()}/0")
    with ThreadPoolExecutor(max_workers=2) as pool:
        connect_every_thread(pool, 2)
        assert pool.submit(lambda: connection.connection is not None).result()
    assert "Redis did not answer the warm-up" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_a_warmed_up_web_process_listens_for_finished_submissions(stop_listener: None) -> None:
    from django.db import connection

    from config.warmup import warm_up_web_process
    from grading.finished import listener

    if connection.vendor != "postgresql":
        pytest.skip("the listener is PostgreSQL's LISTEN; elsewhere a waiter polls")
    listener.stop()
    warm_up_web_process()
    assert listener.listening.wait(20)
