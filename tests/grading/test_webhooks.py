"""Webhooks: registration API, signed deliveries to a local server, retries, delivery log."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from exercises.models import VariantItem
from grading.models import WebhookDelivery
from grading.webhooks import signature_header, verify_signature
from tests.grading.conftest import correct_answer


@dataclass
class Receiver:
    """A local HTTP endpoint that answers with scripted statuses and records what it got."""

    url: str
    statuses: list[int]
    received: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """Serve on 127.0.0.1 (a free port); answer 200 once the scripted statuses run out."""
    state = Receiver(url="", statuses=[])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append({"headers": dict(self.headers), "body": body})
            code = state.statuses.pop(0) if state.statuses else 200
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            """Keep test output quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_port}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def eager_retrying() -> Iterator[None]:
    """Run tasks inline; a task's retry then runs inline too, at once (no countdown)."""
    from config.celery_app import app

    # Propagating would raise Celery's Retry out of .delay() instead of running the retry.
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = False


def assert_signed(request: dict[str, Any], secret: str) -> dict[str, Any]:
    """Check a received request's signature as a receiver would; return its event."""
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert verify_signature(secret, headers["x-cutoff-signature"], request["body"])
    assert not verify_signature("whsec_wrong", headers["x-cutoff-signature"], request["body"])
    assert not verify_signature(secret, headers["x-cutoff-signature"], request["body"] + b" ")
    event = json.loads(request["body"])
    assert headers["x-cutoff-event"] == event["type"]
    assert headers["x-cutoff-delivery"] == event["id"]
    return event


def test_signatures_are_hmac_sha256_over_timestamp_and_body() -> None:
    header = signature_header("whsec_k", b'{"a":1}', timestamp=1700000000)
    expected = hmac.new(b"whsec_k", b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
    assert header == f"t=1700000000,v1={expected}"
    assert not verify_signature("whsec_k", header, b'{"a":1}')  # too old: replay refused


def test_graded_submissions_are_posted_signed_and_retried_after_a_500(
    alphabeta_set, student, instructor, receiver, eager_retrying,
    django_capture_on_commit_callbacks,
) -> None:
    _, variant = alphabeta_set
    created = instructor[1].post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
    assert created.status_code == 201, created.content
    secret = created.json()["secret"]
    receiver.statuses = [500]
    answer = correct_answer(VariantItem.objects.get(variant=variant))
    with django_capture_on_commit_callbacks(execute=True):
        response = student[1].post(
            f"/api/v1/assignments/{variant.pk}/items/1/submissions/", {"answer": answer},
            format="json",
        )
    assert response.status_code == 202
    assert len(receiver.received) == 2
    first, second = (assert_signed(r, secret) for r in receiver.received)
    assert first["id"] == second["id"]
    assert second["type"] == "submission.graded"
    submission = second["data"]["submission"]
    assert submission["id"] == response.json()["id"]
    assert submission["score"] == 6 and submission["student"]["username"] == "sara"
    assert all("expected" not in part for part in submission["results"])

    log = instructor[1].get(f"/api/v1/webhooks/{created.json()['id']}/deliveries/").json()
    assert len(log) == 1
    assert log[0]["status"] == "succeeded" and log[0]["attempt_count"] == 2
    assert [a["status_code"] for a in log[0]["attempts"]] == [500, 200]
    assert log[0]["attempts"][0]["error"] == "HTTP 500"


def test_a_delivery_gives_up_after_its_last_attempt(
    alphabeta_set, student, instructor, receiver, eager_retrying,
    django_capture_on_commit_callbacks,
) -> None:
    from grading import webhooks

    _, variant = alphabeta_set
    instructor[1].post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
    receiver.statuses = [503] * webhooks.MAX_ATTEMPTS
    with django_capture_on_commit_callbacks(execute=True):
        student[1].post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                        {"answer": {"value": 3}}, format="json")
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed"
    assert delivery.attempt_count == webhooks.MAX_ATTEMPTS == len(receiver.received)


def test_unreachable_urls_are_logged_as_failed_attempts(alphabeta_set, student, instructor,
                                                        db) -> None:
    from grading import webhooks
    from grading.models import Webhook

    webhook = Webhook.objects.create(owner=instructor[0], url="http://127.0.0.1:9/closed")
    delivery = WebhookDelivery.objects.create(webhook=webhook, event_type="submission.graded",
                                              payload={"id": "x"})
    webhooks.attempt_delivery(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempt_count == 1
    assert "ConnectionError" in delivery.attempts[0]["error"]
    assert delivery.next_attempt_at is not None


def test_only_instructors_register_webhooks(student, anonymous, db) -> None:
    assert student[1].post("/api/v1/webhooks/", {"url": "http://127.0.0.1/x"},
                           format="json").status_code == 403
    assert anonymous.get("/api/v1/webhooks/").status_code == 401


def test_webhook_urls_and_courses_are_validated(instructor, other_course, db) -> None:
    client = instructor[1]
    bad = client.post("/api/v1/webhooks/", {"url": "ftp://example.org/x"}, format="json")
    assert bad.status_code == 400 and "url" in bad.json()["error"]["message"]
    foreign = client.post("/api/v1/webhooks/", {"url": "https://lms.example.org/x",
                                                 "course": other_course.pk}, format="json")
    assert foreign.status_code == 400 and foreign.json()["error"]["message"].startswith("course")


def test_webhooks_are_listed_and_deleted_by_their_owner_only(instructor, other_instructor,
                                                             db) -> None:
    created = instructor[1].post("/api/v1/webhooks/", {"url": "https://lms.example.org/x"},
                                 format="json").json()
    listed = instructor[1].get("/api/v1/webhooks/").json()
    assert [w["id"] for w in listed] == [created["id"]] and "secret" not in listed[0]
    assert other_instructor[1].get("/api/v1/webhooks/").json() == []
    url = f"/api/v1/webhooks/{created['id']}/"
    assert other_instructor[1].get(f"{url}deliveries/").status_code == 404
    assert other_instructor[1].delete(url).status_code == 404
    assert instructor[1].delete(url).status_code == 204
    assert instructor[1].get("/api/v1/webhooks/").json() == []


def test_webhooks_only_hear_their_own_courses(alphabeta_set, student, other_instructor,
                                              receiver, celery_eager,
                                              django_capture_on_commit_callbacks) -> None:
    _, variant = alphabeta_set
    other_instructor[1].post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        student[1].post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                        {"answer": {"value": 3}}, format="json")
    assert receiver.received == []


def test_lms_clients_register_webhooks_with_the_webhooks_scope(instructor, db) -> None:
    from rest_framework.test import APIClient

    def client_with(scopes: list[str]) -> APIClient:
        created = instructor[1].post("/api/v1/api-clients/create/",
                                     {"name": "Moodle", "scopes": scopes}, format="json")
        assert created.status_code == 201, created.content
        lms = APIClient()
        lms.credentials(HTTP_AUTHORIZATION=f"Bearer {created.json()['token']}")
        return lms

    allowed = client_with(["webhooks:write"])
    response = allowed.post("/api/v1/webhooks/", {"url": "https://lms.example.org/x"},
                            format="json")
    assert response.status_code == 201, response.content
    assert allowed.get("/api/v1/webhooks/").json()[0]["id"] == response.json()["id"]
    refused = client_with(["grades:read"]).post(
        "/api/v1/webhooks/", {"url": "https://lms.example.org/y"}, format="json")
    assert refused.status_code == 403
    assert "webhooks:write" in refused.json()["error"]["message"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/x", "http://10.0.0.5/x",
                                 "http://169.254.169.254/latest/meta-data",
                                 "http://no-such-host.invalid/x"])
def test_private_addresses_are_refused_by_default(instructor, settings, url) -> None:
    settings.CUTOFF_ALLOW_PRIVATE_URLS = False
    response = instructor[1].post("/api/v1/webhooks/", {"url": url}, format="json")
    assert response.status_code == 400
    assert "public internet address" in response.json()["error"]["message"]


def test_the_sweep_resends_deliveries_whose_task_was_lost(instructor, receiver,
                                                          eager_retrying) -> None:
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    from grading.models import Webhook

    webhook = Webhook.objects.create(owner=instructor[0], url=receiver.url)
    event_id = uuid.uuid4()
    lost = WebhookDelivery.objects.create(
        webhook=webhook, event_type="submission.graded", event_id=event_id,
        payload={"id": str(event_id), "type": "submission.graded"},
        next_attempt_at=timezone.now() - timedelta(minutes=6))
    recent = WebhookDelivery.objects.create(
        webhook=webhook, event_type="submission.graded", payload={"id": "e2"},
        next_attempt_at=timezone.now())
    out = io.StringIO()
    call_command("requeue_stale_submissions", stdout=out)
    assert out.getvalue().strip() == (
        f"requeued submissions [], code regrade runs [], webhook deliveries [{lost.pk}]"
    )
    lost.refresh_from_db()
    recent.refresh_from_db()
    assert lost.status == "succeeded" and recent.status == "pending"
    assert assert_signed(receiver.received[0], webhook.secret)["id"] == str(event_id)


def test_the_grading_gate_lets_through_every_webhook_that_could_hear_a_course(
        course, other_course, instructor, other_instructor) -> None:
    from grading.models import Webhook
    from grading.selectors import may_have_webhooks

    assert not may_have_webhooks(course.pk)
    inactive = Webhook.objects.create(owner=instructor[0], url="http://127.0.0.1:9/a",
                                      course=course, is_active=False)
    elsewhere = Webhook.objects.create(owner=other_instructor[0], url="http://127.0.0.1:9/b",
                                       course=other_course)
    assert not may_have_webhooks(course.pk)
    assert may_have_webhooks(other_course.pk)
    # Every course its owner teaches: the gate lets it through; the full query decides.
    Webhook.objects.create(owner=other_instructor[0], url="http://127.0.0.1:9/c")
    assert may_have_webhooks(course.pk)
    Webhook.objects.filter(course__isnull=True).delete()
    elsewhere.delete()
    inactive.is_active = True
    inactive.save()
    assert may_have_webhooks(course.pk)
    assert not may_have_webhooks(other_course.pk)
