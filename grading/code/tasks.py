"""Celery tasks of code grading (queue ``sandbox``): thin wrappers around the services."""

from __future__ import annotations

from celery import shared_task

from grading.code import services


@shared_task(name="grading.code.tasks.run_code_submission")
def run_code_submission(submission_id: int) -> None:
    """Run and grade a code submission (a second delivery of the same task is a no-op)."""
    services.grade_code_submission(submission_id)
