"""Celery tasks: grade passbacks and roster syncs, retried with backoff when the LMS is away."""

from __future__ import annotations

import logging

import requests
from celery import shared_task
from django.conf import settings
from pylti1p3.exception import LtiException, LtiServiceException

from lms import services
from lms.models import LtiContext

logger = logging.getLogger(__name__)


def _backoff_seconds(retries: int) -> int:
    """Return the wait before retry number ``retries + 1``: 10 s doubling, at most an hour."""
    return int(min(10 * 2**retries, 3600))


# The tasks keep the names they had in the `lti` package (the app label is `lti` too), so
# messages already queued and beat's schedule still find them.
@shared_task(
    bind=True,
    max_retries=settings.LTI_PASSBACK_MAX_RETRIES,
    name="lti.tasks.send_score_passback_task",
)
def send_score_passback_task(self, passback_id: int) -> None:  # type: ignore[no-untyped-def]
    """Send one logged passback; retry with exponential backoff while the LMS is away."""
    final_attempt = self.request.retries >= self.max_retries
    try:
        services.send_score_passback(passback_id=passback_id, final_attempt=final_attempt)
    except services.PassbackRetryableError as error:
        raise self.retry(exc=error, countdown=_backoff_seconds(self.request.retries)) from error


@shared_task(bind=True, max_retries=5, name="lti.tasks.sync_roster_task")
def sync_roster_task(self, context_id: int) -> None:  # type: ignore[no-untyped-def]
    """Enrol the LMS course's members; retry when the LMS is unreachable or failing."""
    context = (
        LtiContext.objects.select_related("platform__tool_key", "course")
        .filter(pk=context_id)
        .first()
    )
    if context is None:
        return
    try:
        result = services.sync_roster(context=context)
    except (requests.RequestException, LtiServiceException) as error:
        status = getattr(getattr(error, "response", None), "status_code", 500)
        if status >= 500 or status == 429:
            raise self.retry(exc=error, countdown=_backoff_seconds(self.request.retries)) from error
        logger.error("roster sync of context %s refused: %s", context_id, error)
        return
    except LtiException as error:
        logger.error("roster sync of context %s impossible: %s", context_id, error)
        return
    logger.info(
        "roster of context %s synced: %s enrolled, %s skipped, %s unenrolled",
        context_id,
        result.enrolled,
        result.skipped,
        result.unenrolled,
    )


@shared_task(name="lti.tasks.resend_failed_passbacks_task")
def resend_failed_passbacks_task() -> int:
    """Queue again the passbacks that failed for good recently (the periodic sweep)."""
    return services.resend_failed_passbacks()
