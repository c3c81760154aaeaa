"""Queue grade passbacks to the LMS when grading records a score that may change a total.

Grading sends :data:`grading.signals.score_recorded` for every grade and regrade, inside the
recording transaction; the passbacks are queued for after it commits and read the current
score when they are sent, so hearing of the same score twice is harmless.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from grading.signals import score_recorded
from lms.services import queue_score_passbacks


@receiver(score_recorded, dispatch_uid="lti-passback-on-score-recorded")
def queue_passbacks_for_score_change(
    sender: Any, problem_set_id: int, student_id: int, **kwargs: Any
) -> None:
    """Queue grade passbacks for the student's problem set."""
    queue_score_passbacks(problem_set_id=problem_set_id, student_id=student_id)
