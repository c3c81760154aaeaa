"""Signals other apps send so the LMS hears about score changes.

``problem_set_score_changed`` (kwargs ``problem_set_id``, ``student_id``): send it after
recording a grade or regrade that may change the student's problem-set score, e.g. next to
queueing the ``submission.graded`` webhook events. Grade passbacks are queued for after the
transaction commits and read the score when they are sent.
"""

from django.dispatch import Signal

problem_set_score_changed = Signal()
