"""Signals grading sends for other apps (the LMS passback) to react to, without importing them.

``score_recorded`` (kwargs ``problem_set_id``, ``student_id``): sent inside the transaction that
records a grade or a regrade which may change the student's problem-set score. Receivers that
talk to the outside world must defer that work with ``transaction.on_commit``.
"""

from django.dispatch import Signal

score_recorded = Signal()
