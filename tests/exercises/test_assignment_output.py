"""A student's assignment as the API shows it (exercises.apis.assignment_output, written out
by hand for speed) is exactly what its documented serializer, AssignmentDetailApi's
OutputSerializer, makes of it: same keys in the same order, same values, same JSON; for every
exercise kind, feedback policy and language, timed or not, opened or not, with an extension
or not, keys hidden or shown."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone, translation

from exercises.apis import AssignmentDetailApi, assignment_fields, assignment_output
from exercises.kinds import all_kinds
from exercises.models import Extension, ProblemSet, Variant
from exercises.selectors import quiz_closes_at, variant_of
from exercises.services import generate_variants, open_variant
from tests.grading.conftest import make_problem_set

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "pt", "pt-br", "ca")


@pytest.fixture
def every_kind_variant(course: Any, instructor: Any, student: Any) -> Variant:
    """Return the student's generated variant of a set with one item of every kind."""
    problem_set = make_problem_set(
        course, instructor[0], [(kind.name, {}, "2") for kind in all_kinds()], max_attempts=3,
    )
    ProblemSet.objects.filter(pk=problem_set.pk).update(status=ProblemSet.Status.GENERATING)
    assert generate_variants(problem_set.pk, [student[0].pk]) == 1
    return Variant.objects.get(problem_set=problem_set, student=student[0])


def by_serializer(variant: Variant, visible: bool) -> dict[str, Any]:
    """Return what the documented serializer makes of ``variant``."""
    view = {**assignment_fields(variant), "closes_at": quiz_closes_at(variant),
            "answers_visible": visible, "items": list(variant.items.all())}
    return AssignmentDetailApi.OutputSerializer(view, context={"answers_visible": visible}).data


def assert_same_output(student: Any, variant_id: int) -> None:
    """Assert the written-out output equals the serializer's, in every language, keys hidden
    and shown."""
    for language in LANGUAGES:
        for visible in (False, True):
            variant = variant_of(student, variant_id)
            assert variant is not None
            with translation.override(language):
                written = assignment_output(variant, visible)
                documented = by_serializer(variant_of(student, variant_id), visible)
            assert json.dumps(written) == json.dumps(documented), (language, visible)
            assert [type(value) for value in written.values()] == \
                [type(value) for value in documented.values()]


@pytest.mark.parametrize("policy", ProblemSet.FeedbackPolicy.values)
def test_the_output_is_the_serializer_s(every_kind_variant: Variant, student: Any,
                                        policy: str) -> None:
    ProblemSet.objects.filter(pk=every_kind_variant.problem_set_id).update(
        feedback_policy=policy, due_at=timezone.now() + timedelta(days=2))
    assert_same_output(student[0], every_kind_variant.pk)


def test_a_timed_opened_and_extended_assignment_is_the_serializer_s(
    every_kind_variant: Variant, student: Any, instructor: Any
) -> None:
    ProblemSet.objects.filter(pk=every_kind_variant.problem_set_id).update(
        time_limit_minutes=30, due_at=timezone.now() + timedelta(hours=3))
    opened = open_variant(every_kind_variant, timezone.now())
    assert opened.opened_at is not None
    assert_same_output(student[0], every_kind_variant.pk)
    Extension.objects.create(
        problem_set_id=every_kind_variant.problem_set_id, student=student[0],
        due_at=timezone.now() + timedelta(days=5), extra_attempts=2, time_limit_minutes=45,
        granted_by=instructor[0],
    )
    assert_same_output(student[0], every_kind_variant.pk)
    shown = assignment_output(variant_of(student[0], every_kind_variant.pk), False)
    assert shown["max_attempts"] == 5
    assert shown["time_limit_minutes"] == 45
    assert shown["closes_at"] is not None


def test_the_api_answers_the_written_output(every_kind_variant: Variant, student: Any) -> None:
    body = student[1].get(f"/api/v1/assignments/{every_kind_variant.pk}/?lang=pt").json()
    with translation.override("pt"):
        expected = by_serializer(variant_of(student[0], every_kind_variant.pk), False)
    assert body == json.loads(json.dumps(expected))
    assert [item["kind"] for item in body["items"]] == [kind.name for kind in all_kinds()]
    assert all(item["answer_key"] is None and item["explanation"] is None
               for item in body["items"])
