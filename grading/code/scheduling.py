"""Share the sandbox queue fairly: no student (or item) monopolises the sandbox workers.

Three rules, because one hostile submission can hold a worker slot for its whole time budget:

- **Queue order.** A code task is published with a priority from how many other code
  submissions its student has unfinished: the first goes ahead (priority 0), the second
  after every student's first, and so on; regrades go last. The Redis transport keeps one
  list per priority step (kombu's default steps 0, 3, 6, 9; lower is served first), so when a
  slot frees, another student's first submission is taken before anyone's second.
- **Runs in flight.** A task claims its run under a row lock on the student (then on the
  item): with ``CUTOFF_CODE_RUNS_PER_STUDENT`` of the student's code runs already running (or
  ``CUTOFF_CODE_RUNS_PER_ITEM`` of the item's), it does not run but sends itself again
  ``CUTOFF_CODE_DEFER_SECONDS`` later and frees its slot at once (prefetch 1, ``acks_late``:
  a worker holds no more tasks than it has slots, so a task waiting in a slot would block
  everyone behind it).
- **A budget per submission.** All runs of one submission, the batched run and the test-by-
  test re-runs after it failed, share ``CUTOFF_CODE_BUDGET_SECONDS`` (see
  :mod:`grading.code.runs`); tests left without time are reported as not run.
"""

from __future__ import annotations

import enum
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from exercises.models import Item
from grading.models import Submission

logger = logging.getLogger(__name__)

PRIORITY_STEPS = (0, 3, 6, 9)
"""The Redis transport's priority steps (kombu's default); a task's priority is one of them."""
REGRADE_PRIORITY = PRIORITY_STEPS[-1]
"""Regrades run again what was graded already: students waiting for a first grade go first."""
UNFINISHED = (Submission.Status.QUEUED, Submission.Status.RUNNING)


class Claim(enum.Enum):
    """What a task found when it tried to start its submission's run."""

    CLAIMED = "claimed"
    """The submission is this task's to run (now ``running``)."""
    FINISHED = "finished"
    """The submission is graded or failed already (a redelivered task): nothing to do."""
    DEFERRED = "deferred"
    """Too many runs of its student or item are in flight: the task was sent again later."""


def priority_of(submission: Submission) -> int:
    """Return the queue priority of a code submission's task: its student's other unfinished
    code submissions, as a priority step (0 for none)."""
    others = Submission.objects.filter(
        student_id=submission.student_id, kind=Submission.Kind.CODE, status__in=UNFINISHED,
    ).exclude(pk=submission.pk).count()
    return PRIORITY_STEPS[min(others, len(PRIORITY_STEPS) - 1)]


def send_code_task(submission_id: int, *, regrade_id: int | None = None,
                   countdown: float | None = None) -> None:
    """Publish the run of a code submission (or of its regrade) with its fair priority.

    Raise whatever the broker raises when it does not accept the task.
    """
    from grading.code.tasks import run_code_submission

    if regrade_id is not None:
        priority = REGRADE_PRIORITY
    else:
        submission = Submission.objects.filter(pk=submission_id).first()
        priority = priority_of(submission) if submission is not None else PRIORITY_STEPS[0]
    run_code_submission.apply_async(
        args=[submission_id], kwargs={"regrade_id": regrade_id} if regrade_id else {},
        priority=priority, countdown=countdown)


def in_flight_window(now: datetime) -> datetime:
    """Return since when a running submission counts as in flight: a task cannot run longer
    than Celery's hard time limit, so older ones belong to a dead worker (the sweep's)."""
    return now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)


def claim_run(submission_id: int, now: datetime | None = None) -> Claim:
    """Mark a queued (or redelivered running) code submission ``running`` if its student and
    its item have room for one more run in flight; otherwise send its task again later."""
    now = now or timezone.now()
    with transaction.atomic():
        submission = Submission.objects.filter(
            pk=submission_id, kind=Submission.Kind.CODE, status__in=UNFINISHED,
        ).select_related("variant_item").first()
        if submission is None:
            return Claim.FINISHED
        item_id = submission.variant_item.item_id
        # Locks in this order (student, then item) serialise the claims that count each other.
        _lock(User, submission.student_id)
        _lock(Item, item_id)
        running = Submission.objects.filter(
            kind=Submission.Kind.CODE, status=Submission.Status.RUNNING,
            started_at__gte=in_flight_window(now),
        ).exclude(pk=submission_id)
        full = (running.filter(student_id=submission.student_id).count()
                >= settings.CUTOFF_CODE_RUNS_PER_STUDENT
                or running.filter(variant_item__item_id=item_id).count()
                >= settings.CUTOFF_CODE_RUNS_PER_ITEM)
        if not full and Submission.objects.filter(pk=submission_id, status__in=UNFINISHED) \
                .update(status=Submission.Status.RUNNING, started_at=now,
                        grading_runs=F("grading_runs") + 1):
            return Claim.CLAIMED
    if not full:
        return Claim.FINISHED
    defer(submission_id, settings.CUTOFF_CODE_DEFER_SECONDS)
    return Claim.DEFERRED


def _lock(model: type[User] | type[Item], pk: int) -> None:
    """Lock row ``pk`` of ``model`` until the end of the transaction (SELECT … FOR UPDATE)."""
    list(model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True))


def defer(submission_id: int, seconds: float) -> None:
    """Send a queued submission's task again ``seconds`` from now; when the broker refuses,
    the outbox sweep sends it later (its ``enqueued_at`` is left as it was)."""
    try:
        send_code_task(submission_id, countdown=seconds)
    except Exception:  # kombu raises transport-specific errors; every one means "not sent"
        logger.warning("broker unavailable; deferred code submission %s stays queued",
                       submission_id, exc_info=True)
        return
    Submission.objects.filter(pk=submission_id, status=Submission.Status.QUEUED).update(
        enqueued_at=timezone.now())
