"""Drafts, the attempt history of an item, numbers as people type them, errors named by label."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from django.utils import translation

from exercises.kinds.base import AnswerPart, PartType
from exercises.models import VariantItem
from grading.answers import AnswerFormatError, check_number, part_label
from grading.models import Draft, Submission
from grading.scoring import to_number
from grading.services import MAX_DRAFT_CHARACTERS
from tests.grading.conftest import correct_answer

pytestmark = pytest.mark.django_db


def item_url(variant: Any, what: str, position: int = 1) -> str:
    return f"/api/v1/assignments/{variant.pk}/items/{position}/{what}/"


@pytest.fixture
def graded_inline(celery_eager: None, django_capture_on_commit_callbacks: Any) -> Any:
    """Submit with on-commit callbacks (the enqueue) run and the grading done inline."""

    def submit(client: Any, variant: Any, answer: Any, **headers: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(item_url(variant, "submissions"), {"answer": answer},
                               format="json", **headers)

    return submit


# --- drafts ---------------------------------------------------------------------------------


def test_a_draft_is_saved_and_restored_without_using_an_attempt(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    _, client = student
    assert client.get(item_url(variant, "draft")).json() == {"answer": None, "updated_at": None}
    typed = {"value": "7/", "pruned_leaves": ["C2"]}  # half typed: drafts are not graded
    saved = client.put(item_url(variant, "draft"), {"answer": typed}, format="json")
    assert saved.status_code == 200, saved.content
    again = client.put(item_url(variant, "draft"), {"answer": {**typed, "value": "7/2"}},
                       format="json")
    assert again.status_code == 200
    restored = client.get(item_url(variant, "draft")).json()
    assert restored["answer"] == {"value": "7/2", "pruned_leaves": ["C2"]}
    assert restored["updated_at"]
    assert Draft.objects.count() == 1
    assert not Submission.objects.exists()


@pytest.mark.parametrize(("answer", "part"), [
    ({"colour": "red"}, "colour"),
    ({"pruned_leaves": "C2"}, "pruned_leaves"),
    ({"windows": {"B": 3}}, "windows"),
    ({"value": {"a": 1}}, "value"),
    ({"value": "x" * (MAX_DRAFT_CHARACTERS + 1)}, "answer"),
])
def test_a_draft_of_the_wrong_shape_is_refused_and_the_old_one_kept(
    alphabeta_set, student, answer, part
) -> None:
    _, variant = alphabeta_set
    _, client = student
    client.put(item_url(variant, "draft"), {"answer": {"value": "3"}}, format="json")
    response = client.put(item_url(variant, "draft"), {"answer": answer}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_draft"
    assert error["details"]["part"] == part
    assert client.get(item_url(variant, "draft")).json()["answer"] == {"value": "3"}


def test_a_draft_must_be_an_object(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    _, client = student
    response = client.put(item_url(variant, "draft"), {"answer": [1]}, format="json")
    assert response.status_code == 400
    assert "answer" in response.json()["error"]["message"]
    assert not Draft.objects.exists()


def test_another_students_draft_and_history_are_404(alphabeta_set, student,
                                                    other_student) -> None:
    _, variant = alphabeta_set
    student[1].put(item_url(variant, "draft"), {"answer": {"value": "3"}}, format="json")
    _, intruder = other_student
    assert intruder.get(item_url(variant, "draft")).status_code == 404
    assert intruder.put(item_url(variant, "draft"), {"answer": {"value": "9"}},
                        format="json").status_code == 404
    assert intruder.get(item_url(variant, "submissions")).status_code == 404
    assert Draft.objects.get().answer == {"value": "3"}


# --- attempt history ------------------------------------------------------------------------


def test_the_history_lists_every_attempt_with_its_feedback(alphabeta_set, student,
                                                           graded_inline) -> None:
    problem_set, variant = alphabeta_set
    _, client = student
    assert client.get(item_url(variant, "submissions")).json() == []
    right = correct_answer(VariantItem.objects.get(variant=variant))
    graded_inline(client, variant, {"value": 99})
    graded_inline(client, variant, right)
    history = client.get(item_url(variant, "submissions")).json()
    assert [attempt["attempt_number"] for attempt in history] == [1, 2]
    assert history[0]["answer"] == {"value": 99}
    assert history[0]["results"][0]["part"] == "value"
    assert history[0]["results"][0]["verdict"] == "wrong"
    assert history[1]["score"] == history[1]["max_score"]
    for attempt in history:
        assert attempt == client.get(f"/api/v1/submissions/{attempt['id']}/").json()


def test_the_history_is_redacted_by_the_feedback_policy(alphabeta_set, student,
                                                        graded_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.feedback_policy = "score_only"
    problem_set.save(update_fields=["feedback_policy"])
    _, client = student
    graded_inline(client, variant, {"value": 99, "pruned_leaves": ["C3"]})
    attempt = client.get(item_url(variant, "submissions")).json()[0]
    assert attempt["feedback_policy"] == "score_only"
    assert all(not part["messages"] for part in attempt["results"])
    assert all("expected" not in part for part in attempt["results"])


# --- numbers as typed -----------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["∞", "+∞", "-∞", "−∞", "inf", "INF", "Infinity", "+inf",
                                   "-inf", "−inf", "-Infinity"])
def test_every_way_of_typing_infinity_is_read(typed: str) -> None:
    value = to_number(check_number("windows.B.beta", typed))
    assert value == (float("-inf") if typed[0] in "-−" else float("inf"))


@pytest.mark.parametrize(("language", "typed", "stored"), [
    ("pt", "0,89", "0.89"), ("ca", "-2,5", "-2.5"), ("pt", "0.89", "0.89"),
    ("en", "0.89", "0.89"),
])
def test_the_decimal_comma_is_read_where_the_language_writes_one(
    language: str, typed: str, stored: str
) -> None:
    with translation.override(language):
        assert check_number("value", typed) == stored
    assert to_number(stored) == Fraction(stored)  # exact, not a float


def test_the_decimal_comma_is_refused_where_the_language_writes_a_point() -> None:
    with translation.override("en"), pytest.raises(AnswerFormatError):
        check_number("value", "0,89")


def test_a_portuguese_answer_with_a_comma_is_graded_exactly(alphabeta_set, student,
                                                            graded_inline) -> None:
    _, variant = alphabeta_set
    _, client = student
    response = graded_inline(client, variant, {"value": "2,50"}, HTTP_ACCEPT_LANGUAGE="pt")
    assert response.status_code == 202, response.content
    assert Submission.objects.get().answer == {"value": "2.50"}


# --- errors name the part by its label ------------------------------------------------------


def test_a_refusal_names_the_part_by_its_label(alphabeta_set, student, graded_inline) -> None:
    _, variant = alphabeta_set
    _, client = student
    response = graded_inline(client, variant, {"windows": {"C": {"alpha": "x"}}})
    details = response.json()["error"]["details"]
    assert details["part"] == "windows.C.alpha"
    assert details["label"].startswith("(alpha, beta) when the named nodes are entered")
    assert details["label"].endswith(", C, α")


def test_part_label_reads_every_path_form() -> None:
    parts = [AnswerPart("scores", PartType.NODE_VALUES, "minimax values"),
             AnswerPart("cutoffs", PartType.CUTOFFS, "cutoffs")]
    scores = str(parts[0].label)  # number parts say how exactly they are graded
    assert part_label("scores.A", parts) == f"{scores}, A"
    assert part_label("cutoffs[0].node", parts) == "cutoffs, entry 1, node"
    assert part_label("scores", parts) == scores
    assert part_label("answer", parts) == "answer"
