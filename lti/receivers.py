"""Send scores to the LMS when grading changes them.

Grading saves a Submission with status ``graded`` after grading or regrading it; that is
when the student's problem-set score may have changed, so the passbacks are queued then
(sent after the grading transaction commits).
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from lti.services import queue_score_passbacks


@receiver(post_save, sender="grading.Submission", dispatch_uid="lti-passback-on-graded")
def queue_passbacks_for_graded_submission(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Queue grade passbacks for the submission's problem set once it is graded."""
    if instance.status != "graded" or kwargs.get("raw"):
        return
    problem_set_id = (
        type(instance)
        .objects.filter(pk=instance.pk)
        .values_list("variant_item__variant__problem_set_id", flat=True)
        .first()
    )
    if problem_set_id is not None:
        queue_score_passbacks(problem_set_id=problem_set_id, student_id=instance.student_id)
