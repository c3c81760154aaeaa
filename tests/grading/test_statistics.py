"""Item statistics (issue 17): hand-computed point-biserial cases, the API on a small class,
and its query count."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from exercises.models import ProblemSet, Variant, VariantItem
from grading.models import Submission
from grading.statistics import point_biserial
from tests.conftest import make_account
from tests.grading.conftest import ALPHABETA_PROBLEM, MINIMAX_PROBLEM, give_variant

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("right", "rest", "expected"),
    [
        # M1 = 3, M0 = 1, s = sqrt(2), p = 1/2: r = 2 / sqrt(2) * 1/2 = 1 / sqrt(2).
        ([True, True, False, False], [4, 2, 2, 0], 1 / math.sqrt(2)),
        # M1 = 3, M0 = 1.5, s = sqrt(2), p = 1/3: r = 1.5 / sqrt(2) * sqrt(2) / 3 = 0.5.
        ([True, False, False], [3, 3, 0], 0.5),
        # The best students got it wrong: a negative discrimination.
        ([False, False, True, True], [4, 2, 2, 0], -1 / math.sqrt(2)),
    ],
)
def test_point_biserial_hand_computed(right: list[bool], rest: list[float],
                                      expected: float) -> None:
    result = point_biserial(right, rest)
    assert result.reason is None and result.value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("right", "rest", "reason"),
    [
        ([True], [3], "too_few_students"),
        ([True, True, True], [1, 2, 3], "item_zero_variance"),
        ([False, False], [1, 2], "item_zero_variance"),
        ([True, False, True], [2, 2, 2], "rest_zero_variance"),
    ],
)
def test_point_biserial_is_null_with_a_reason_when_undefined(
    right: list[bool], rest: list[float], reason: str
) -> None:
    result = point_biserial(right, rest)
    assert result.value is None and result.reason == reason


def part(name: str, verdict: str, points: float, max_points: float,
         misconception: str | None = None) -> dict[str, Any]:
    return {"part": name, "verdict": verdict, "points": points, "max_points": max_points,
            "misconception": misconception, "messages": []}


def graded(variant_item: Any, attempt: int, score: str, results: list[dict[str, Any]],
           answer: dict[str, Any] | None = None) -> None:
    Submission.objects.create(
        variant_item=variant_item, student=variant_item.variant.student,
        attempt_number=attempt, answer=answer or {}, status=Submission.Status.GRADED,
        score=Decimal(score), max_score=Decimal(variant_item.item.points), results=results,
    )


@pytest.fixture
def classroom(course: Any, instructor: Any) -> ProblemSet:
    """Four students on an alpha-beta item (6 points) and a multiple-choice minimax item (2).

    Counted (best) scores, item 1 / item 2: s0 6/2, s1 6/0, s2 3/0 (after 0), s3 0/0; s1 got
    item 1 right only at the second attempt. A fifth student never submitted.
    """
    from tests.grading.conftest import make_problem_set

    problem_set = make_problem_set(course, instructor[0], [
        ("alphabeta", {}, "6"), ("minimax", {"answer_format": "multiple_choice"}, "2"),
    ])
    items = []
    for number in range(5):
        student, _ = make_account(f"s{number}", "student", course)
        variant = give_variant(problem_set, student, [ALPHABETA_PROBLEM, MINIMAX_PROBLEM])
        items.append(list(variant.items.select_related("item", "variant")))
    right = [part("value", "correct", 1, 1), part("pruned_leaves", "correct", 5, 5)]
    early = part("pruned_leaves", "wrong", 0, 5, "cut_too_early")
    graded(items[0][0], 1, "6", right)
    graded(items[1][0], 1, "1", [part("value", "correct", 1, 1), early])
    graded(items[1][0], 2, "6", right)
    graded(items[2][0], 1, "0", [part("value", "wrong", 0, 1), early])
    graded(items[2][0], 2, "3", [part("value", "correct", 1, 1),
                                 part("pruned_leaves", "partial", 2, 5, "cut_too_early")])
    graded(items[3][0], 1, "0", [part("value", "wrong", 0, 1),
                                 part("pruned_leaves", "wrong", 0, 5)])
    graded(items[0][1], 1, "2", [part("choice", "correct", 2, 2)], {"choice": "b"})
    for student in (1, 2, 3):
        graded(items[student][1], 1, "0",
               [part("choice", "wrong", 0, 2, "min_max_swapped")], {"choice": "a"})
    return problem_set


def test_statistics_of_a_small_class(classroom: ProblemSet, instructor: Any,
                                     django_assert_max_num_queries: Any) -> None:
    with django_assert_max_num_queries(8):
        response = instructor[1].get(f"/api/v1/problem-sets/{classroom.pk}/statistics/")
    assert response.status_code == 200, response.content
    first, second = response.json()["items"]
    assert (first["students"], first["attempts"], first["right_at_first_attempt"]) == (4, 6, 1)
    assert first["mean"] == pytest.approx((6 + 6 + 3 + 0) / 4)
    assert first["misconceptions"] == {"cut_too_early": 3}
    assert first["options"] == {} and first["multiple_choice"] is False
    # Rest of the set = item 2's scores [2, 0, 0, 0]; full marks on item 1: [1, 1, 0, 0].
    # M1 = 1, M0 = 0, s = sqrt(3)/2, p = 1/2: r = 1 / (sqrt(3)/2) * 1/2 = 1/sqrt(3).
    assert first["discrimination"]["value"] == pytest.approx(1 / math.sqrt(3), abs=1e-6)
    pruned = next(p for p in first["parts"] if p["name"] == "pruned_leaves")
    assert pruned["right_at_first_attempt"] == 1 and pruned["misconceptions"] == {
        "cut_too_early": 3}
    assert pruned["mean"] == pytest.approx((5 + 5 + 2 + 0) / 4)
    assert second["options"] == {"a": 3, "b": 1} and second["multiple_choice"] is True
    assert second["misconceptions"] == {"min_max_swapped": 3}
    # Rest = item 1's scores [6, 6, 3, 0]; full marks on item 2: [1, 0, 0, 0].
    # mean 3.75, s^2 = 6.1875, M1 = 6, M0 = 3, p = 1/4: r = 3 / sqrt(6.1875) * sqrt(3/16).
    expected = 3 / math.sqrt(6.1875) * math.sqrt(3 / 16)
    assert second["discrimination"]["value"] == pytest.approx(expected, abs=1e-6)
    assert [p["name"] for p in second["parts"]] == ["choice"]


def test_one_item_sets_have_no_rest_to_correlate_with(course: Any, instructor: Any) -> None:
    from tests.grading.conftest import make_problem_set

    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")])
    [item] = instructor[1].get(f"/api/v1/problem-sets/{problem_set.pk}/statistics/"
                               ).json()["items"]
    assert item["students"] == 0 and item["mean"] is None
    assert item["discrimination"] == {"value": None, "reason": "no_rest_of_set"}


def test_a_code_items_misconceptions_are_counted_from_its_tests(course: Any,
                                                                instructor: Any) -> None:
    from tests.grading.conftest import make_problem_set

    problem_set = make_problem_set(course, instructor[0], [("code_minimax", {}, "3")])
    for number, codes in enumerate([["no_pruning"], ["no_pruning", "min_max_swapped"], []]):
        student, _ = make_account(f"c{number}", "student", course)
        variant = Variant.objects.create(problem_set=problem_set, student=student, seed="v")
        variant_item = VariantItem.objects.create(
            variant=variant, item=problem_set.items.get(), position=1, seed="test",
            problem={"format": "code/1"})
        # Two tests naming the same misconception count it once for the attempt.
        tests = [{"test": f"tree {n}", "verdict": "wrong", "score": 0.0, "max_score": 1.0,
                  "messages": [], "misconceptions": codes} for n in range(2)]
        graded(variant_item, 1, "0", tests)
    [item] = instructor[1].get(f"/api/v1/problem-sets/{problem_set.pk}/statistics/"
                               ).json()["items"]
    assert item["misconceptions"] == {"min_max_swapped": 1, "no_pruning": 2}


def test_statistics_queries_do_not_grow_with_the_class(
    classroom: ProblemSet, instructor: Any, course: Any, django_assert_num_queries: Any,
) -> None:
    path = f"/api/v1/problem-sets/{classroom.pk}/statistics/"
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as before:
        instructor[1].get(path)
    for number in range(5, 9):
        student, _ = make_account(f"s{number}", "student", course)
        variant = give_variant(classroom, student, [ALPHABETA_PROBLEM, MINIMAX_PROBLEM])
        graded(variant.items.select_related("item", "variant").first(), 1, "6", [])
    with django_assert_num_queries(len(before.captured_queries)):
        instructor[1].get(path)
