"""Celery tasks of code grading (queue ``sandbox``): thin wrappers around the services."""

from __future__ import annotations

from celery import shared_task

from grading.code import services


@shared_task(name="grading.code.tasks.run_code_submission")
def run_code_submission(submission_id: int, regrade_id: int | None = None) -> None:
    """Run and grade a code submission (a second delivery of the same task is a no-op).

    With ``regrade_id`` the graded submission is run again for that regrade
    (:func:`grading.code.services.regrade_code_submission`).
    """
    if regrade_id is not None:
        services.regrade_code_submission(submission_id, regrade_id)
    else:
        services.grade_code_submission(submission_id)


@shared_task(name="grading.code.tasks.run_code_check")
def run_code_check(check_id: int) -> None:
    """Run a check on its item's public tests (a second delivery of a finished one is a no-op)."""
    services.run_code_check(check_id)
