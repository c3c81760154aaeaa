"""``manage.py requeue_stale_submissions``: the outbox sweep for submissions never enqueued."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from grading.services import requeue_stale_submissions


class Command(BaseCommand):
    """Send again the grading tasks of submissions the broker never got or lost.

    Run it from cron every minute (or schedule the ``grading.tasks.requeue_stale_submissions``
    task with Celery beat): after a broker outage it is what grades the submissions stored
    meanwhile.
    """

    help = "Enqueue again the grading of submissions stuck in queued/running."

    def handle(self, *args: Any, **options: Any) -> None:
        """Requeue and print how many submissions were sent."""
        sent = requeue_stale_submissions()
        self.stdout.write(f"requeued {len(sent)} submission(s)")
