"""Register webhooks and deliver signed events to them, with retries and a delivery log.

An event is JSON ``{"id", "type", "created_at", "data": {"submission": {...}}}`` POSTed with::

    X-Cutoff-Event: submission.graded   (or submission.regraded, submission.overridden)
    X-Cutoff-Delivery: <event id, the same on every retry>
    X-Cutoff-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>

A receiver recomputes the HMAC over the timestamp, a dot and the raw body with the secret it
got at registration, compares in constant time and rejects old timestamps (replays). Any
non-2xx answer, timeout or connection error is retried with exponential backoff by Celery.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import time
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import requests
from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from accounts.models import Course, User
from accounts.selectors import is_course_instructor
from config.api import ApiError
from config.outbound import check_url_host, guarded_session, refusal_in
from config.publishing import published
from grading.feedback_policy import served_results, served_tests
from grading.grader import all_or_nothing_sets
from grading.models import Submission, Webhook, WebhookDelivery

SIGNATURE_HEADER = "X-Cutoff-Signature"
CONNECT_TIMEOUT_SECONDS = 3.0
READ_TIMEOUT_SECONDS = 5.0
ATTEMPT_SECONDS = 10
"""Wall-clock bound of one attempt (the delivery task's soft time limit): the read timeout
bounds each wait for a byte, so a receiver trickling its answer would hold the worker."""
MAX_ATTEMPTS = 8
BACKOFF_BASE_SECONDS = 10
"""Retry n waits BASE·2ⁿ⁻¹ seconds: 10 s, 20 s, … about 21 minutes over eight attempts."""
MAX_WEBHOOKS_PER_OWNER = 20
OVERDUE_AFTER = timedelta(minutes=5)
"""A pending delivery this late past its next attempt has lost its task."""


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """Return the hex HMAC-SHA256 of ``"<timestamp>." + body`` under ``secret``."""
    message = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, timestamp: int | None = None) -> str:
    """Return the ``X-Cutoff-Signature`` value for ``body``: ``t=<unix>,v1=<hex>``."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return f"t={timestamp},v1={sign(secret, timestamp, body)}"


def verify_signature(secret: str, header: str, body: bytes, *, tolerance: int = 300) -> bool:
    """Return whether ``header`` signs ``body`` with ``secret`` within ``tolerance`` seconds."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - timestamp) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), fields.get("v1", ""))


def backoff_seconds(attempt: int) -> int:
    """Return how long to wait before retry number ``attempt`` (1-based)."""
    return BACKOFF_BASE_SECONDS * 2 ** (attempt - 1)


# --- registration -------------------------------------------------------------------------


def create_webhook(*, owner: User, url: str, course: Course | None = None) -> Webhook:
    """Register ``url`` for events about the courses ``owner`` teaches (or just ``course``).

    Unless ``CUTOFF_ALLOW_PRIVATE_URLS`` is set (development, tests), every address the URL's
    host resolves to must be public, so a webhook cannot reach services inside Cutoff's
    network; each delivery checks again (:mod:`config.outbound`).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiError("url: must be an http or https URL", details={"url": [url]})
    refusal = check_url_host(parts.hostname)
    if refusal is not None:
        raise ApiError(f"url: {refusal}", details={"url": [refusal]})
    if course is not None and not is_course_instructor(owner, course):
        raise ApiError("course: no such course among the courses you teach",
                       details={"course": ["not one of your courses"]})
    if Webhook.objects.filter(owner=owner).count() >= MAX_WEBHOOKS_PER_OWNER:
        raise ApiError(f"at most {MAX_WEBHOOKS_PER_OWNER} webhooks per account; delete one first",
                       code="limit_reached", status_code=409)
    return Webhook.objects.create(owner=owner, url=url, course=course)


def delete_webhook(webhook: Webhook) -> None:
    """Remove a webhook and its delivery log."""
    webhook.delete()


# --- events -------------------------------------------------------------------------------


def submission_event_data(submission: Submission) -> dict[str, Any]:
    """Return what an event says about a submission: feedback as data, as its student is
    served it now (under the set's feedback policy), keys always left out."""
    from grading.selectors import feedback_view

    variant_item = submission.variant_item
    variant = variant_item.variant
    policy = feedback_view(submission, None, timezone.now()).policy
    served = (
        served_tests(submission.results, policy) if submission.kind == Submission.Kind.CODE
        else served_results(submission.results, policy,
                            all_or_nothing=all_or_nothing_sets(variant_item.item))
    )
    return {
        "id": submission.pk,
        "status": submission.status,
        "student": {"id": submission.student_id, "username": submission.student.username},
        "course": variant.problem_set.course.slug,
        "problem_set": variant.problem_set_id,
        "assignment": variant.pk,
        "item": variant_item.position,
        "attempt_number": submission.attempt_number,
        "score": _number(submission.score),
        "raw_score": _number(submission.raw_score),
        "max_score": _number(submission.max_score),
        "is_late": submission.is_late,
        "late_penalty": float(submission.late_penalty),
        "graded_at": submission.graded_at.isoformat() if submission.graded_at else None,
        "feedback_policy": policy,
        "results": [
            {key: value for key, value in result.items() if key != "expected"}
            for result in served
        ],
    }


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def queue_webhook_events(submission: Submission, event_type: str) -> list[WebhookDelivery]:
    """Create one delivery per interested webhook and send them once the transaction commits."""
    from grading.selectors import may_have_webhooks, webhooks_for_submission

    if not may_have_webhooks(submission.variant_item.variant.problem_set.course_id):
        return []
    webhooks = list(webhooks_for_submission(submission))
    if not webhooks:
        return []
    data = submission_event_data(submission)
    now = timezone.now()
    deliveries = []
    for webhook in webhooks:
        delivery = WebhookDelivery(webhook=webhook, event_type=event_type, submission=submission,
                                   payload={}, next_attempt_at=now)
        delivery.payload = {
            "id": str(delivery.event_id), "type": event_type, "created_at": now.isoformat(),
            "data": {"submission": data},
        }
        deliveries.append(delivery)
    WebhookDelivery.objects.bulk_create(deliveries)
    for delivery in deliveries:
        transaction.on_commit(functools.partial(send_delivery, delivery.pk))
    return deliveries


def send_delivery(delivery_id: int) -> bool:
    """Enqueue a delivery's task; return False (it stays pending) when the broker is down."""
    from grading.tasks import deliver_webhook_task

    return published(deliver_webhook_task, delivery_id,
                     what=f"webhook delivery {delivery_id} (it stays pending)")


def requeue_overdue_deliveries(now: datetime | None = None) -> list[int]:
    """Enqueue again the pending deliveries whose next attempt is long overdue.

    Their task was lost (the broker was down when it should have been sent, or a retry
    could not be scheduled). A delivery sent twice is harmless: receivers recognise it by
    its ``X-Cutoff-Delivery`` id.
    """
    now = now or timezone.now()
    overdue = WebhookDelivery.objects.filter(
        status=WebhookDelivery.Status.PENDING, next_attempt_at__lt=now - OVERDUE_AFTER
    ).values_list("pk", flat=True)
    return [pk for pk in overdue if send_delivery(pk)]


def attempt_delivery(delivery_id: int) -> WebhookDelivery | None:
    """POST a delivery's event once and log the attempt; return the delivery.

    The delivery ends ``succeeded`` on a 2xx answer; otherwise it stays ``pending`` with its
    next attempt scheduled, or ends ``failed`` after :data:`MAX_ATTEMPTS`.
    """
    delivery = (
        WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    )
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return delivery
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Cutoff-Webhooks/1",
        "X-Cutoff-Event": delivery.event_type,
        "X-Cutoff-Delivery": str(delivery.event_id),
        SIGNATURE_HEADER: signature_header(delivery.webhook.secret, body),
    }
    started = time.monotonic()
    status_code, error = None, ""
    try:
        with guarded_session() as session:
            response = session.post(
                delivery.webhook.url, data=body, headers=headers, allow_redirects=False,
                timeout=(CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS),
            )
        status_code = response.status_code
        if not 200 <= status_code < 300:
            error = f"HTTP {status_code}"
    except requests.RequestException as exc:
        refused = refusal_in(exc)
        error = (f"refused: {refused}"[:300] if refused is not None
                 else f"{exc.__class__.__name__}: {str(exc)[:300]}")
    except SoftTimeLimitExceeded:
        error = f"timed out: no complete answer within {ATTEMPT_SECONDS} s"
    now = timezone.now()
    delivery.attempt_count += 1
    delivery.attempts = [*delivery.attempts, {
        "at": now.isoformat(), "status_code": status_code, "error": error,
        "duration_ms": round((time.monotonic() - started) * 1000),
    }]
    if not error:
        delivery.status = WebhookDelivery.Status.SUCCEEDED
        delivery.delivered_at, delivery.next_attempt_at = now, None
    elif delivery.attempt_count >= MAX_ATTEMPTS:
        delivery.status, delivery.next_attempt_at = WebhookDelivery.Status.FAILED, None
    else:
        delivery.next_attempt_at = now + timedelta(
            seconds=backoff_seconds(delivery.attempt_count)
        )
    delivery.save(update_fields=["attempt_count", "attempts", "status", "delivered_at",
                                 "next_attempt_at"])
    return delivery
