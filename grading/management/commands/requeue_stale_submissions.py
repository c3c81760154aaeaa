"""``manage.py requeue_stale_submissions``: the outbox sweep for submissions never enqueued."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from grading.services import requeue_stale_code_regrades, requeue_stale_submissions
from grading.webhooks import requeue_overdue_deliveries


class Command(BaseCommand):
    """Send again the tasks the broker never got or lost: gradings, code regrade runs and
    webhook deliveries.

    Run it from cron every minute (or schedule the ``grading.tasks.requeue_stale_submissions``
    task with Celery beat): after a broker outage it is what grades the submissions stored
    meanwhile and delivers their events.
    """

    help = (
        "Enqueue again the grading of submissions stuck in queued/running, the code runs of "
        "regrades waiting too long for them, and the webhook deliveries whose next attempt "
        "is overdue."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        """Requeue and print which submissions, code regrade runs and deliveries were sent."""
        submissions = requeue_stale_submissions()
        code_regrades = requeue_stale_code_regrades()
        deliveries = requeue_overdue_deliveries()
        self.stdout.write(
            f"requeued submissions {sorted(submissions)}, code regrade runs "
            f"{sorted(code_regrades)}, webhook deliveries {sorted(deliveries)}"
        )
