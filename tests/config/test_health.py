"""``/healthz`` answers from the workers' heartbeats: no broker connection, no worker ping."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from config.heartbeat import ALIVE_WITHIN
from grading.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def unreachable_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any broker connection or worker ping from this process fail loudly."""
    from config.celery_app import app

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("/healthz must not talk to the broker or ping workers")

    monkeypatch.setattr(app.control, "ping", refuse)
    monkeypatch.setattr(app, "connection_for_write", refuse)
    monkeypatch.setattr(app, "connection_for_read", refuse)


def beat(name: str, age: timedelta = timedelta(0), connected: bool = True) -> None:
    WorkerHeartbeat.objects.create(name=name, beat_at=timezone.now() - age,
                                   broker_connected=connected)


def test_a_fresh_heartbeat_is_enough_and_no_broker_is_asked(
    instructor: Any, unreachable_broker: None, django_assert_max_num_queries: Any
) -> None:
    _, client = instructor
    beat("default@host pid 7")
    with django_assert_max_num_queries(3):  # the token, its user, the heartbeats
        response = client.get("/healthz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"] == {
        "database": "ok", "broker": "ok (reached by 1 of 1 workers)", "workers": "ok (1)"}


def test_stale_heartbeats_and_a_lost_broker_are_named(
    instructor: Any, unreachable_broker: None
) -> None:
    _, client = instructor
    beat("killed@host pid 8", age=ALIVE_WITHIN + timedelta(seconds=1))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["down"] == ["broker", "workers"]

    beat("cut-off@host pid 9", connected=False)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["down"] == ["broker"]
    assert response.json()["checks"]["broker"].startswith("unreachable")


def test_anonymous_callers_and_students_get_the_status_alone(
    anonymous: Any, student: Any, unreachable_broker: None
) -> None:
    response = anonymous.get("/healthz")
    assert response.status_code == 503 and response.json() == {"status": "degraded"}
    beat("default@host pid 7")
    assert anonymous.get("/healthz").json() == {"status": "ok"}
    _, student_client = student
    assert student_client.get("/healthz").json() == {"status": "ok"}
