"""Submitting answers over the API: storage, validation, idempotency, policies, permissions."""

from __future__ import annotations

import copy
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from exercises.models import VariantItem
from grading.models import Submission
from tests.grading.conftest import MINIMAX_PROBLEM, correct_answer, give_variant, make_problem_set


def submit_url(variant: Any, position: int = 1) -> str:
    return f"/api/v1/assignments/{variant.pk}/items/{position}/submissions/"


@pytest.fixture
def graded_inline(celery_eager: None, django_capture_on_commit_callbacks: Any) -> Any:
    """Run on-commit callbacks (the enqueue) and grade inline."""

    def submit(client: Any, url: str, answer: Any, **headers: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, {"answer": answer}, format="json", **headers)

    return submit


def test_a_right_answer_is_stored_then_graded(alphabeta_set, student, graded_inline) -> None:
    _, variant = alphabeta_set
    _, client = student
    answer = correct_answer(VariantItem.objects.get(variant=variant))
    response = graded_inline(client, submit_url(variant), answer)
    assert response.status_code == 202, response.content
    body = response.json()
    assert response["Location"] == f"/api/v1/submissions/{body['id']}/"
    detail = client.get(f"/api/v1/submissions/{body['id']}/").json()
    assert detail["status"] == "graded"
    assert detail["score"] == detail["max_score"] == 6
    assert detail["attempt_number"] == 1
    assert all(part["verdict"] == "correct" for part in detail["results"])
    assert all("expected" not in part for part in detail["results"])


def test_feedback_is_rendered_in_the_readers_language(alphabeta_set, student,
                                                      graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.feedback_policy = "full"  # the messages quote the reference search
    problem_set.save(update_fields=["feedback_policy"])
    _, client = student
    answer = {**correct_answer(VariantItem.objects.get(variant=variant)), "pruned_leaves": ["C3"]}
    submission_id = graded_inline(client, submit_url(variant), answer).json()["id"]
    detail = client.get(f"/api/v1/submissions/{submission_id}/").json()
    part = next(p for p in detail["results"] if p["part"] == "pruned_leaves")
    assert part["messages"][0]["code"] == "missed_cutoff"
    assert part["messages"][0]["text"].startswith("You evaluated C2, but cutoff 1 happens")
    assert part["label"] == "leaves that are pruned"


@pytest.mark.parametrize(("answer", "part", "rule"), [
    ({"value": "three"}, "value", "must be a number"),
    ({"value": "1 2"}, "value", "must be a number"),  # two numbers, not twelve
    ({"pruned_leaves": "C2"}, "pruned_leaves", "must be a list"),
    ({"pruned_leaves": ["C2", "C2"]}, "pruned_leaves", "at most once"),
    ({"pruned_leaves": ["X9"]}, "pruned_leaves", '"X9" is not a node of this tree'),
    ({"move": 3}, "move", "must be a node name"),
    ({"cutoffs": [{"pruned": []}]}, "cutoffs[0]", "must be an object"),
    ({"windows": {"C": {"alpha": "x"}}}, "windows.C.alpha", "must be a number"),
    ({"colour": "red"}, "colour", "is not a part of this item"),
    ({}, "answer", "at least one of the parts"),
    ([1, 2], "answer", "must be an object"),
])
def test_a_malformed_answer_is_a_400_naming_the_part_and_rule_and_uses_no_attempt(
    alphabeta_set, student, graded_inline, answer, part, rule
) -> None:
    _, variant = alphabeta_set
    _, client = student
    response = graded_inline(client, submit_url(variant), answer)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] in ("invalid_answer", "invalid")
    if error["code"] == "invalid_answer":
        assert error["details"]["part"] == part
        assert rule in error["details"]["rule"]
        assert error["message"].startswith(f"{part}: ")
    assert not Submission.objects.exists()


def test_the_same_idempotency_key_returns_the_same_submission(alphabeta_set, student,
                                                              graded_inline) -> None:
    _, variant = alphabeta_set
    _, client = student
    first = graded_inline(client, submit_url(variant), {"value": 3},
                          HTTP_IDEMPOTENCY_KEY="k-1")
    again = graded_inline(client, submit_url(variant), {"value": 3},
                          HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Submission.objects.count() == 1
    other = graded_inline(client, submit_url(variant), {"value": 4}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_key_reused"


def test_a_retry_gets_its_submission_even_once_the_rules_refuse_new_ones(
        alphabeta_set, student, graded_inline) -> None:
    # The replay is looked up when the rules refuse, or when the key's constraint refuses
    # the insert: a retry of the last attempt, or one arriving after the due date, still
    # gets its submission; another answer under a used key is still a 409.
    problem_set, variant = alphabeta_set
    problem_set.max_attempts = 1
    problem_set.save()
    _, client = student
    first = graded_inline(client, submit_url(variant), {"value": 3}, HTTP_IDEMPOTENCY_KEY="k-1")
    again = graded_inline(client, submit_url(variant), {"value": 3}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert (again.status_code, again.json()["id"]) == (202, first.json()["id"])
    assert again["Idempotent-Replayed"] == "true"
    reused = graded_inline(client, submit_url(variant), {"value": 4}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert reused.json()["error"]["code"] == "idempotency_key_reused"
    refused = graded_inline(client, submit_url(variant), {"value": 4}, HTTP_IDEMPOTENCY_KEY="k-2")
    assert refused.json()["error"]["code"] == "attempts_exhausted"
    problem_set.max_attempts = 0
    problem_set.due_at = timezone.now() - timedelta(minutes=1)
    problem_set.save()
    late = graded_inline(client, submit_url(variant), {"value": 3}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert (late.status_code, late.json()["id"]) == (202, first.json()["id"])
    assert Submission.objects.count() == 1


def test_attempts_are_limited_and_the_last_one_reveals_the_answers(alphabeta_set, student,
                                                                   graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.max_attempts = 2
    problem_set.save()
    _, client = student
    ids = [graded_inline(client, submit_url(variant), {"value": v}).json()["id"] for v in (1, 2)]
    refused = graded_inline(client, submit_url(variant), {"value": 3})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "attempts_exhausted"
    detail = client.get(f"/api/v1/submissions/{ids[-1]}/").json()
    assert detail["attempt_number"] == 2
    assert detail["answers_visible"] is True
    assert next(p for p in detail["results"] if p["part"] == "value")["expected"] == 3


def test_past_the_due_date_submissions_are_refused(alphabeta_set, student,
                                                   graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.due_at = timezone.now() - timedelta(minutes=1)
    problem_set.save()
    response = graded_inline(student[1], submit_url(variant), {"value": 3})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "past_due"


def test_late_submissions_lose_the_penalty_when_accepted(alphabeta_set, student,
                                                         graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.due_at = timezone.now() - timedelta(minutes=1)
    problem_set.late_policy = "penalty"
    problem_set.late_penalty = Decimal("0.25")
    problem_set.save()
    answer = correct_answer(VariantItem.objects.get(variant=variant))
    response = graded_inline(student[1], submit_url(variant), answer)
    detail = student[1].get(f"/api/v1/submissions/{response.json()['id']}/").json()
    assert detail["is_late"] is True
    assert detail["raw_score"] == 6 and detail["score"] == 4.5


def test_the_quiz_time_limit_runs_from_the_first_opening(alphabeta_set, student,
                                                         graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.time_limit_minutes = 10
    problem_set.save()
    variant.opened_at = timezone.now() - timedelta(minutes=9)
    variant.save()
    assert graded_inline(student[1], submit_url(variant), {"value": 3}).status_code == 202
    variant.opened_at = timezone.now() - timedelta(minutes=11)
    variant.save()
    response = graded_inline(student[1], submit_url(variant), {"value": 3})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "time_limit_exceeded"


def test_a_first_submission_starts_the_quiz_clock(alphabeta_set, student,
                                                  graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.time_limit_minutes = 10
    problem_set.save()
    assert graded_inline(student[1], submit_url(variant), {"value": 3}).status_code == 202
    variant.refresh_from_db()
    assert variant.opened_at is not None


def test_only_the_owner_may_submit(alphabeta_set, other_student, instructor, anonymous,
                                   graded_inline) -> None:
    _, variant = alphabeta_set
    assert graded_inline(other_student[1], submit_url(variant), {"value": 3}).status_code == 404
    assert graded_inline(instructor[1], submit_url(variant), {"value": 3}).status_code == 404
    assert graded_inline(anonymous, submit_url(variant), {"value": 3}).status_code == 401
    assert graded_inline(instructor[1], submit_url(variant, 2), {"value": 3}).status_code == 404


def test_a_student_no_longer_enrolled_keeps_their_work_but_not_the_assignment(
        alphabeta_set, student, graded_inline) -> None:
    from accounts.models import Enrollment

    problem_set, variant = alphabeta_set
    _, client = student
    submission_id = graded_inline(client, submit_url(variant), {"value": 3}).json()["id"]
    Enrollment.objects.filter(user=student[0], course=problem_set.course).delete()
    assert client.get("/api/v1/assignments/").json() == []
    assert client.get(f"/api/v1/assignments/{variant.pk}/").status_code == 404
    refused = graded_inline(client, submit_url(variant), {"value": 4})
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
    assert client.get(f"/api/v1/submissions/{submission_id}/").status_code == 200
    assert Submission.objects.filter(student=student[0]).count() == 1


def test_who_may_read_a_submission(alphabeta_set, student, other_student, instructor,
                                   other_instructor, anonymous, graded_inline) -> None:
    _, variant = alphabeta_set
    submission_id = graded_inline(student[1], submit_url(variant), {"value": 3}).json()["id"]
    url = f"/api/v1/submissions/{submission_id}/"
    assert student[1].get(url).status_code == 200
    assert instructor[1].get(url).status_code == 200
    assert other_student[1].get(url).status_code == 404
    assert other_instructor[1].get(url).status_code == 404
    response = anonymous.get(url)
    assert response.status_code == 401
    assert set(response.json()["error"]) == {"code", "message", "details"}


def test_an_unknown_item_is_404(alphabeta_set, student, graded_inline) -> None:
    _, variant = alphabeta_set
    response = graded_inline(student[1], submit_url(variant, 9), {"value": 3})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_submissions_are_throttled_per_student(alphabeta_set, student, graded_inline,
                                               monkeypatch) -> None:
    from django.core.cache import cache
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"submissions": "2/min"})
    cache.clear()
    _, variant = alphabeta_set
    codes = [graded_inline(student[1], submit_url(variant), {"value": 3}).status_code
             for _ in range(3)]
    assert codes == [202, 202, 429]
    assert Submission.objects.count() == 2


def test_oversized_answers_are_refused_before_anything_is_read(alphabeta_set, student,
                                                               graded_inline) -> None:
    _, variant = alphabeta_set
    huge = {"windows": {f"N{i}": None for i in range(1001)}}
    response = graded_inline(student[1], submit_url(variant), huge)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "part": "windows", "rule": "must have at most 1000 entries",
        "label": "(alpha, beta) when the named nodes are entered (exact)"}


@pytest.mark.parametrize("kind_name", ["tictactoe_position", "connect4_eval"])
def test_a_board_items_move_must_be_a_legal_move_and_a_typo_costs_no_attempt(
    kind_name: str, course: Any, instructor: Any, student: Any,
) -> None:
    # Board kinds have no tree to name moves from: the position's legal moves are the names.
    from exercises.generation import generate_item
    from exercises.kinds import get_kind
    from exercises.models import Variant, VariantItem
    from grading.models import Submission
    from tests.grading.conftest import make_problem_set

    kind = get_kind(kind_name)
    # Eight discs played: X moves, and the best column is asked from X's point of view.
    params = {"ask_best_move": True, "player": "X"} if kind_name == "connect4_eval" else {}
    problem_set = make_problem_set(course, instructor[0], [(kind_name, params, "4")])
    item = problem_set.items.get()
    generated = generate_item(kind_name, item.params, "legal-moves")
    variant = Variant.objects.create(problem_set=problem_set, student=student[0], seed="v")
    VariantItem.objects.create(
        variant=variant, item=item, position=1, seed="s", problem=generated.problem,
        prompt=generated.prompt, answer_key=generated.answer_key, trace=generated.trace,
        engine_version=generated.engine_version,
    )
    legal = sorted(kind.legal_moves(generated.problem), key=int)
    assert legal
    url = f"/api/v1/assignments/{variant.pk}/items/1/submissions/"
    for typo in ("\uff19", "42", "A"):
        refused = student[1].post(url, {"answer": {"move": typo}}, format="json")
        assert refused.status_code == 400, refused.content
        error = refused.json()["error"]
        assert error["details"]["part"] == "move"
        assert f"the legal moves are {', '.join(legal)}" in error["details"]["rule"]
    assert not Submission.objects.exists()
    accepted = student[1].post(url, {"answer": {"move": f" {legal[0]} "}}, format="json")
    assert accepted.status_code == 202, accepted.content
    assert Submission.objects.get().answer == {"move": legal[0]}



def test_a_decimal_answer_with_more_digits_than_a_float_is_graded_as_written(
    course, instructor, student, celery_eager, django_capture_on_commit_callbacks
) -> None:
    problem = copy.deepcopy(MINIMAX_PROBLEM)
    exact = "3.00000000000000000001"  # a float reads it as 3.0
    problem["tree"]["children"][0]["children"][0]["value"] = exact  # B1: B and A take it
    problem_set = make_problem_set(course, instructor[0], [("minimax", {}, "4")])
    variant = give_variant(problem_set, student[0], [problem])
    _, client = student
    verdicts = []
    for written in (exact, "3.0"):  # JSON numbers, as a client writes them
        body = '{"answer": {"value": ' + written + "}}"
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(submit_url(variant), body, content_type="application/json")
        assert response.status_code == 202, response.content
        detail = client.get(f"/api/v1/submissions/{response.json()['id']}/").json()
        verdicts.append((detail["answer"]["value"], detail["results"][0]["verdict"]))
    assert verdicts == [(exact, "correct"), (3.0, "wrong")]  # stored as written


@pytest.mark.parametrize(("kind", "part", "typed", "rule"), [
    ("vector", "value", ["8", "8"], "must be a list of 3 numbers (got 2)"),
    ("vector", "value", [8, 8, 1, 0], "must be a list of 3 numbers (got 4)"),
    ("iterative_deepening", "evaluations", [3, 4], "must be a list of 3 numbers (got 2)"),
])
def test_a_vector_of_the_wrong_length_is_a_400_that_uses_no_attempt(
    course, instructor, student, graded_inline, kind, part, typed, rule
) -> None:
    from exercises.generation import generate_item
    from exercises.models import Variant

    problem_set = make_problem_set(course, instructor[0], [(kind, {}, "4")])
    item = problem_set.items.get()
    generated = generate_item(kind, item.params, "length")
    variant = Variant.objects.create(problem_set=problem_set, student=student[0], seed="v")
    VariantItem.objects.create(
        variant=variant, item=item, position=1, seed="s", problem=generated.problem,
        prompt=generated.prompt, answer_key=generated.answer_key,
        engine_version=generated.engine_version)
    response = graded_inline(student[1], submit_url(variant), {part: typed})
    assert response.status_code == 400, response.content
    details = response.json()["error"]["details"]
    assert (details["part"], details["rule"]) == (part, rule)
    assert not Submission.objects.exists()
    parts = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()["items"][0]
    assert {p["name"]: p["length"] for p in parts["answer_parts"]}[part] == 3
