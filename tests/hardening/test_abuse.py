"""Abuse: per-user throttles, body size limits, CSRF on pages, production settings and headers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from accounts.models import User
from grading.models import Submission
from tests.conftest import REPO
from tests.hardening.conftest import free_port
from tests.hardening.world import CODE_POSITION, TYPED_POSITION, World, build_world

TWO_MEGABYTES = 2 * 1024 * 1024
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "from-the-environment-" + "k" * 40,
    "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none",
    "REDIS_URL": "redis://127.0.0.1:1/0",
    "ALLOWED_HOSTS": "testserver",
}


@pytest.fixture
def world(db: None) -> World:
    """Return the classroom, with empty throttle counters."""
    cache.clear()
    return build_world()


def as_persona(world: World, persona: str) -> APIClient:
    """Return an API client authenticated as ``persona``."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=world.authorization[persona])
    return client


def answer_url(variant_id: int, position: int = TYPED_POSITION) -> str:
    """Return the submissions URL of an item."""
    return f"/api/v1/assignments/{variant_id}/items/{position}/submissions/"


def code_url(variant_id: int) -> str:
    """Return the code submissions URL of the code item."""
    return f"/api/v1/assignments/{variant_id}/items/{CODE_POSITION}/code-submissions/"


def test_submissions_are_throttled_per_user(world: World, monkeypatch: Any) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"submissions": "2/min"})
    owner = as_persona(world, "owner")
    statuses = [owner.post(answer_url(world.ids["variant_id"]), {"answer": {"value": 0}},
                           format="json") for _ in range(3)]
    assert [r.status_code for r in statuses] == [202, 202, 429]
    refused = statuses[-1]
    assert refused.json()["error"]["code"] and int(refused["Retry-After"]) > 0
    typed = Submission.objects.filter(student__username="sara", kind=Submission.Kind.ANSWER)
    assert typed.count() == 3  # the world's one and the two let through
    classmate = as_persona(world, "classmate").post(
        answer_url(world.ids["classmate_variant_id"]), {"answer": {"value": 0}}, format="json"
    )
    assert classmate.status_code == 202


@pytest.mark.parametrize("backend", ["locmem", "production's Redis cache"])
def test_the_sliding_window_is_drf_s_on_either_cache(
        world: World, monkeypatch: Any, settings: Any, backend: str) -> None:
    # Production counts in Redis with one script (config.throttling); the same requests at
    # the same moments get the same answers and Retry-After as DRF's history in the cache.
    if backend != "locmem":
        # A prefix of this test's own: clearing would empty the test broker's Redis database.
        settings.CACHES = {"default": {"BACKEND": "config.redis_cache.KeptClientRedisCache",
                                       "LOCATION": settings.CELERY_BROKER_URL,
                                       "KEY_PREFIX": f"throttle-test-{uuid.uuid4().hex}"}}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"submissions": "2/min"})
    clock = [1_000_000.0]
    monkeypatch.setattr(ScopedRateThrottle, "timer", lambda self: clock[0])
    owner = as_persona(world, "owner")
    answers = []
    for moment in (0, 1, 2, 30, 60.5, 61, 61.5):
        clock[0] = 1_000_000.0 + moment
        response = owner.post(answer_url(world.ids["variant_id"]), {"answer": {"value": 0}},
                              format="json")
        answers.append((response.status_code, response.get("Retry-After")))
    # At 60.5 s the first request has left the window, at 61 s the second; refused ones
    # were never counted.
    assert answers == [(202, None), (202, None), (429, "58"), (429, "30"), (202, None),
                       (202, None), (429, "59")]


def test_code_runs_are_throttled_per_user(world: World, monkeypatch: Any) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"code_runs": "1/min"})
    source = {"source": "def minimax_decision(game, state):\n    return None\n"}
    owner = as_persona(world, "owner")
    first = owner.post(code_url(world.ids["variant_id"]), source, format="json")
    second = owner.post(code_url(world.ids["variant_id"]), source, format="json")
    assert (first.status_code, second.status_code) == (202, 429)
    assert "error" in second.json()
    classmate = as_persona(world, "classmate").post(
        code_url(world.ids["classmate_variant_id"]), source, format="json"
    )
    assert classmate.status_code == 202


def test_a_throttle_cache_that_is_down_lets_submissions_through(
    world: World, settings: Any
) -> None:
    settings.CACHES = {"default": {"BACKEND": "config.redis_cache.KeptClientRedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}}
    response = as_persona(world, "owner").post(
        answer_url(world.ids["variant_id"]), {"answer": {"value": 0}}, format="json"
    )
    assert response.status_code == 202, response.content[:300]


@pytest.mark.parametrize("persona,path,body", [
    ("owner", "submission", {"answer": {"pruned_leaves": ["N"] * (TWO_MEGABYTES // 5)}}),
    ("owner", "code", {"source": "#" * TWO_MEGABYTES}),
    ("instructor", "/api/v1/courses/", {"slug": "big", "title": "t" * TWO_MEGABYTES}),
])
def test_a_two_megabyte_body_is_refused_with_413_json(
    world: World, persona: str, path: str, body: dict[str, Any]
) -> None:
    url = {"submission": answer_url(world.ids["variant_id"]),
           "code": code_url(world.ids["variant_id"])}.get(path, path)
    payload = json.dumps(body)
    assert len(payload) >= TWO_MEGABYTES * 0.8
    response = as_persona(world, persona).post(url, payload, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"


def test_a_two_megabyte_form_on_a_page_is_refused_not_crashed(world: World) -> None:
    browser = Client()
    browser.force_login(User.objects.get(username="sara"))
    response = browser.post(f"/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}/",
                            {"value": "0" * TWO_MEGABYTES})
    assert response.status_code == 400


@pytest.mark.parametrize("page", ["item", "logout"])
def test_pages_refuse_a_post_without_its_csrf_token(world: World, page: str) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(username="sara"))
    url = {"item": f"/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}/",
           "logout": "/logout/"}[page]
    count = Submission.objects.count()
    response = browser.post(url, {"value": "3"})
    assert response.status_code == 403
    assert Submission.objects.count() == count


def production(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``code`` after loading production settings with exactly ``env`` (plus PATH)."""
    prelude = "import django, json; django.setup(); from django.conf import settings\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code], cwd=REPO, capture_output=True, text=True,
        env={"PATH": os.environ.get("PATH", ""), **env}, timeout=60,
    )


@pytest.mark.parametrize("missing", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL"])
def test_production_refuses_to_start_without_each_secret(missing: str) -> None:
    for unset in ({k: v for k, v in PRODUCTION_ENV.items() if k != missing},
                  {**PRODUCTION_ENV, missing: ""}):
        done = production("print('started')", unset)
        assert done.returncode != 0 and "started" not in done.stdout
        assert f"environment variable {missing} must be set" in done.stderr


def test_production_settings_take_secrets_from_env_and_lock_cookies_and_headers() -> None:
    done = production(
        "print(json.dumps({name: getattr(settings, name) for name in ["
        "'SECRET_KEY', 'DEBUG', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', "
        "'SESSION_COOKIE_HTTPONLY', 'SECURE_SSL_REDIRECT', 'SECURE_HSTS_SECONDS', "
        "'SECURE_CONTENT_TYPE_NOSNIFF', 'X_FRAME_OPTIONS']}))",
        PRODUCTION_ENV,
    )
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    assert values["SECRET_KEY"] == PRODUCTION_ENV["SECRET_KEY"]
    assert values["DEBUG"] is False
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SESSION_COOKIE_HTTPONLY"] and values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_HSTS_SECONDS"] >= 31536000
    assert values["SECURE_CONTENT_TYPE_NOSNIFF"] and values["X_FRAME_OPTIONS"] == "DENY"


def test_production_responses_carry_security_headers_and_plain_http_is_redirected() -> None:
    done = production(
        "from django.test import Client\n"
        "secure = Client().get('/api/v1/kinds/', secure=True)\n"
        "plain = Client().get('/api/v1/kinds/')\n"
        "print(json.dumps({'secure': [secure.status_code, dict(secure.headers)],"
        " 'plain': [plain.status_code, dict(plain.headers)]}))",
        PRODUCTION_ENV,
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    status, headers = answers["secure"]
    assert status == 401
    assert "max-age=31536000" in headers["Strict-Transport-Security"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "same-origin"
    status, headers = answers["plain"]
    assert status == 301 and headers["Location"].startswith("https://")
