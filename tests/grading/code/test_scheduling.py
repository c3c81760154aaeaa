"""Fair use of the sandbox queue: priorities by a student's unfinished submissions, and runs
in flight per student and per item, over the real database (the broker is replaced by a
recorder: deferring sends a task, and that is what is checked)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import User
from exercises.models import Variant
from grading.code import scheduling
from grading.code.scheduling import PRIORITY_STEPS, REGRADE_PRIORITY, Claim, claim_run
from grading.models import Submission
from tests.conftest import make_account
from tests.grading.code.conftest import code_assignment

pytestmark = pytest.mark.django_db


def code_submission(variant: Variant, status: str = Submission.Status.QUEUED,
                    started_ago: timedelta | None = None) -> Submission:
    variant_item = variant.items.get()
    return Submission.objects.create(
        variant_item=variant_item, student=variant.student, kind=Submission.Kind.CODE,
        source="x = 1\n", status=status,
        attempt_number=variant_item.submissions.count() + 1,
        started_at=timezone.now() - started_ago if started_ago is not None else None)


def test_a_students_later_submissions_queue_behind_everyones_first(
        sent: list[dict[str, Any]], alphabeta_code: Variant) -> None:
    submissions = [code_submission(alphabeta_code) for _ in range(5)]
    for submission in submissions:
        scheduling.send_code_task(submission.pk)
    # Each sees the student's other four unfinished: the oldest goes first only by age.
    assert {options["priority"] for options in sent} == {PRIORITY_STEPS[-1]}
    for done in submissions[1:]:
        done.status = Submission.Status.GRADED
        done.save()
    assert scheduling.priority_of(submissions[0]) == PRIORITY_STEPS[0]
    assert scheduling.priority_of(code_submission(alphabeta_code)) == PRIORITY_STEPS[1]
    scheduling.send_code_task(submissions[0].pk, regrade_id=7)
    assert sent[-1]["priority"] == REGRADE_PRIORITY
    assert sent[-1]["kwargs"] == {"regrade_id": 7}


def test_a_student_with_a_run_in_flight_waits_without_holding_a_slot(
        sent: list[dict[str, Any]], alphabeta_code: Variant) -> None:
    code_submission(alphabeta_code, Submission.Status.RUNNING, timedelta(seconds=5))
    waiting = code_submission(alphabeta_code)

    assert claim_run(waiting.pk) is Claim.DEFERRED
    waiting.refresh_from_db()
    assert waiting.status == Submission.Status.QUEUED and waiting.enqueued_at is not None
    (options,) = sent
    assert options["args"] == [waiting.pk] and options["countdown"] > 0


def test_a_run_left_by_a_dead_worker_does_not_count_as_in_flight(
        sent: list[dict[str, Any]], alphabeta_code: Variant, settings: Any) -> None:
    stale = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    code_submission(alphabeta_code, Submission.Status.RUNNING, stale)
    waiting = code_submission(alphabeta_code)

    assert claim_run(waiting.pk) is Claim.CLAIMED
    waiting.refresh_from_db()
    assert waiting.status == Submission.Status.RUNNING and waiting.started_at is not None
    assert sent == []


def test_a_redelivered_run_is_not_its_own_obstacle_and_a_graded_one_is_left(
        sent: list[dict[str, Any]], alphabeta_code: Variant) -> None:
    redelivered = code_submission(alphabeta_code, Submission.Status.RUNNING,
                                  timedelta(seconds=5))
    assert claim_run(redelivered.pk) is Claim.CLAIMED
    graded = code_submission(alphabeta_code, Submission.Status.GRADED)
    assert claim_run(graded.pk) is Claim.FINISHED
    assert sent == []


@override_settings(CUTOFF_CODE_RUNS_PER_STUDENT=5, CUTOFF_CODE_RUNS_PER_ITEM=2)
def test_an_item_has_a_limit_of_runs_in_flight_across_students(
        sent: list[dict[str, Any]], course: Any, instructor: Any) -> None:
    students = [make_account(f"student{n}", "student", course)[0] for n in range(3)]
    variant = code_assignment(course, instructor[0], students[0], "code_alphabeta")
    problem_set, item = variant.problem_set, variant.items.get().item
    others = [_variant_of(problem_set, item, student) for student in students[1:]]
    code_submission(variant, Submission.Status.RUNNING, timedelta(seconds=1))
    code_submission(others[0], Submission.Status.RUNNING, timedelta(seconds=1))

    assert claim_run(code_submission(others[1]).pk) is Claim.DEFERRED
    # The student's own limit is generous here: a second run of theirs is the item's limit.
    assert claim_run(code_submission(variant).pk) is Claim.DEFERRED
    assert len(sent) == 2


def _variant_of(problem_set: Any, item: Any, student: User) -> Variant:
    """Return ``student``'s variant of the set, with the same item (same seed is enough)."""
    from exercises.models import VariantItem

    model = Variant.objects.create(problem_set=problem_set, student=student,
                                   seed=f"seed-{student.pk}")
    template = VariantItem.objects.filter(item=item).first()
    assert template is not None
    VariantItem.objects.create(
        variant=model, item=item, position=1, seed=template.seed, problem=template.problem,
        prompt=template.prompt, answer_key=template.answer_key, trace=template.trace,
        engine_version=template.engine_version)
    return model
