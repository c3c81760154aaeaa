"""A typed submission's API output (grading.apis.submission_output, written out by hand for
speed) is exactly what its documented serializer, SubmissionOutputSerializer, makes of it:
same keys in the same order, same values and types, same JSON; over every status, feedback
policy, viewer, late penalties, overrides and regrade requests."""

from __future__ import annotations

import itertools
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from config.jsonsafe import StorableJSONRenderer
from exercises.models import ProblemSet
from grading import services
from grading.apis import SubmissionOutputSerializer, submission_output
from grading.models import RegradeRequest, Submission
from tests.grading.conftest import correct_answer

pytestmark = pytest.mark.django_db


def by_serializer(submission: Submission, shown: dict[str, Any], just_created: bool
                  ) -> dict[str, Any]:
    """Return what the serializer makes of ``submission`` with the context ``shown`` used."""
    return SubmissionOutputSerializer(submission, context={
        "answers_visible": shown["answers_visible"], "feedback_policy": shown["feedback_policy"],
        "results": shown["results"], "just_created": just_created,
    }).data


def stored_submissions(variant: Any, student: Any) -> list[Submission]:
    """Return submissions in every state: queued, graded right and wrong, late with a
    penalty, overridden, with a regrade request, failed."""
    variant_item = variant.items.get(position=1)
    right = correct_answer(variant_item)
    wrong = {**right, "value": right["value"] + 1}
    made = []
    for answer in (right, wrong, right, wrong, right):
        submission, _ = services.submit_answer(student=student, variant_id=variant.pk,
                                               position=1, answer=answer)
        made.append(submission)
    for submission in made[1:]:
        services.grade_submission(submission.pk)
    Submission.objects.filter(pk=made[2].pk).update(is_late=True, late_penalty=Decimal("0.125"))
    Submission.objects.filter(pk=made[3].pk).update(overridden=True, score=Decimal("1.5"))
    RegradeRequest.objects.create(submission=made[3], student=student, message="C2?")
    Submission.objects.filter(pk=made[4].pk).update(status=Submission.Status.ERROR,
                                                    error_code="grading_failed")
    return made


@pytest.mark.parametrize("policy", ProblemSet.FeedbackPolicy.values)
def test_the_output_is_the_serializer_s(alphabeta_set, student, instructor, policy) -> None:
    problem_set, variant = alphabeta_set
    problem_set.feedback_policy = policy
    problem_set.save()
    made = stored_submissions(variant, student[0])
    renderer = StorableJSONRenderer()
    for due_passed, (number, viewer) in itertools.product(
            (False, True), itertools.product(range(len(made)), (student[0], instructor[0]))):
        if due_passed:
            ProblemSet.objects.filter(pk=problem_set.pk).update(
                due_at=timezone.now() - timedelta(days=1))
        submission = Submission.objects.select_related(
            "variant_item__item", "variant_item__variant__problem_set").get(pk=made[number].pk)
        for just_created in (False, True):
            shown = submission_output(submission, viewer, just_created=just_created)
            expected = by_serializer(submission, shown, just_created)
            assert list(shown) == list(expected)
            assert shown == expected
            assert ({key: type(value) for key, value in shown.items()}
                    == {key: type(value) for key, value in expected.items()})
            assert renderer.render(shown) == renderer.render(expected)
    assert any(submission_output(s, student[0])["regrade_requests"] for s in
               Submission.objects.filter(pk=made[3].pk).select_related(
                   "variant_item__item", "variant_item__variant__problem_set"))
