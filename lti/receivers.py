"""Queue grade passbacks to the LMS when a student's problem-set score may have changed.

Two ways in: grading sends :data:`lti.signals.problem_set_score_changed`; and saving a graded
Submission (``Model.save``, as a regrade does) is caught by ``post_save``. A grade recorded
with ``QuerySet.update()`` sends no ``post_save``, which is why the signal exists. Sending
the same score twice is harmless: each passback reads the current score when it is sent.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from grading.models import Submission
from lti.services import queue_score_passbacks
from lti.signals import problem_set_score_changed


@receiver(problem_set_score_changed, dispatch_uid="lti-passback-on-score-change")
def queue_passbacks_for_score_change(
    sender: Any, problem_set_id: int, student_id: int, **kwargs: Any
) -> None:
    """Queue grade passbacks for the student's problem set."""
    queue_score_passbacks(problem_set_id=problem_set_id, student_id=student_id)


@receiver(post_save, sender=Submission, dispatch_uid="lti-passback-on-graded-save")
def queue_passbacks_for_graded_submission(
    sender: Any, instance: Submission, raw: bool = False, **kwargs: Any
) -> None:
    """Queue grade passbacks when a graded submission is saved."""
    if raw or instance.status != Submission.Status.GRADED:
        return
    problem_set_id = (
        Submission.objects.filter(pk=instance.pk)
        .values_list("variant_item__variant__problem_set_id", flat=True)
        .first()
    )
    if problem_set_id is not None:
        queue_score_passbacks(problem_set_id=problem_set_id, student_id=instance.student_id)
