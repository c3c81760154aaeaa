"""Celery tasks of grading: thin wrappers; the work and its idempotency live in services."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task

from grading import services, webhooks
from grading.models import WebhookDelivery


@shared_task(name="grading.tasks.grade_submission_task")
def grade_submission_task(submission_id: int) -> None:
    """Grade a typed-answer submission (a second delivery of the same task is a no-op)."""
    services.grade_submission(submission_id)


@shared_task(name="grading.tasks.run_regrade_task")
def run_regrade_task(regrade_id: int) -> None:
    """Recompute the keys of a problem set and regrade its submissions."""
    services.run_regrade(regrade_id)


@shared_task(name="grading.tasks.requeue_stale_submissions")
def requeue_stale_submissions(broker_lost_at: str | None = None) -> int:
    """Send again the grading, regrade and delivery tasks the broker never got or lost.

    Meant for Celery beat (every ``STALE_WORK_SWEEP_SECONDS``) and for a worker that got
    the broker back after losing it at ``broker_lost_at`` (ISO 8601); returns how many
    tasks were sent.
    """
    lost_at = datetime.fromisoformat(broker_lost_at) if broker_lost_at else None
    return (len(services.requeue_stale_submissions(broker_lost_at=lost_at))
            + len(services.requeue_stale_code_regrades())
            + len(webhooks.requeue_overdue_deliveries()))


@shared_task(bind=True, name="grading.tasks.deliver_webhook_task",
             max_retries=webhooks.MAX_ATTEMPTS - 1, soft_time_limit=webhooks.ATTEMPT_SECONDS,
             time_limit=webhooks.ATTEMPT_SECONDS + 5)
def deliver_webhook_task(self, delivery_id: int) -> None:  # type: ignore[no-untyped-def]
    """POST one webhook event; on failure retry later with exponential backoff."""
    delivery = webhooks.attempt_delivery(delivery_id)
    if delivery is not None and delivery.status == WebhookDelivery.Status.PENDING:
        raise self.retry(countdown=webhooks.backoff_seconds(delivery.attempt_count))
