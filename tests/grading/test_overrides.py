"""Overrides, regrade requests and the instructor's list of every submission (issue 17)."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

import pytest

from grading.models import RegradeRequest, ScoreChange, Submission, Webhook, WebhookDelivery
from grading.signals import score_recorded
from tests.conftest import make_account
from tests.grading.conftest import (
    ALPHABETA_PROBLEM,
    correct_answer,
    give_variant,
    make_problem_set,
)

pytestmark = pytest.mark.django_db

NO_CUT = {"evaluated_count": 9, "pruned_leaves": [], "cutoffs": []}


@pytest.fixture
def graded(course: Any, instructor: Any, student: Any, celery_eager: None,
           django_capture_on_commit_callbacks: Any) -> Submission:
    """Return the student's graded, partly wrong submission to a 6-point alpha-beta item."""
    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")])
    variant = give_variant(problem_set, student[0], [ALPHABETA_PROBLEM])
    answer = {**correct_answer(variant.items.get()), **NO_CUT}
    with django_capture_on_commit_callbacks(execute=True):
        response = student[1].post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                                   {"answer": answer}, format="json")
    assert response.status_code == 202
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.status == Submission.Status.GRADED and submission.score < 6
    return submission


def override(client: Any, submission: Submission, score: str, reason: str = "by hand",
             capture: Any = None) -> Any:
    path = f"/api/v1/submissions/{submission.pk}/override/"
    return client.post(path, {"score": score, "reason": reason}, format="json")


def test_an_override_keeps_history_and_reaches_csv_lms_and_webhooks(
    graded: Submission, instructor: Any, student: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    old = graded.score
    Webhook.objects.create(owner=instructor[0], url="http://127.0.0.1:9/hook")
    heard: list[dict[str, Any]] = []

    def listen(sender: Any, **kwargs: Any) -> None:
        heard.append(kwargs)

    score_recorded.connect(listen)
    try:
        response = override(instructor[1], graded, "5.5", "right idea, slip at C")
    finally:
        score_recorded.disconnect(listen)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["score"] == 5.5
    [entry] = body["history"]
    assert entry["source"] == "override" and entry["changed_by"] == instructor[0].username
    assert entry["old_score"] == float(old) and entry["new_score"] == 5.5
    assert entry["reason"] == "right idea, slip at C"
    assert heard == [{"signal": score_recorded, "problem_set_id":
                      graded.variant_item.variant.problem_set_id,
                      "student_id": student[0].pk}]
    assert WebhookDelivery.objects.get().event_type == "submission.overridden"
    problem_set_id = graded.variant_item.variant.problem_set_id
    grades = instructor[1].get(f"/api/v1/problem-sets/{problem_set_id}/grades.csv")
    [row] = list(csv.DictReader(io.StringIO(grades.content.decode())))
    assert Decimal(row["item_1"]) == Decimal("5.5")
    shown = student[1].get(f"/api/v1/submissions/{graded.pk}/").json()
    assert shown["score"] == 5.5 and shown["overridden"] is True


def test_a_regrade_keeps_the_override(graded: Submission, instructor: Any,
                                      django_capture_on_commit_callbacks: Any) -> None:
    assert override(instructor[1], graded, "2").status_code == 200
    problem_set_id = graded.variant_item.variant.problem_set_id
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].post(f"/api/v1/problem-sets/{problem_set_id}/regrade/")
    report = instructor[1].get(response["Location"]).json()["report"]
    assert report["overridden_kept"] == [graded.pk] and report["submissions_regraded"] == 0
    graded.refresh_from_db()
    assert graded.score == 2
    # The history reads back through the API, not only in the override's answer.
    history = instructor[1].get(f"/api/v1/submissions/{graded.pk}/history/").json()
    assert history["score"] == 2 and history["overridden"] is True
    assert [(change["source"], change["new_score"], change["reason"])
            for change in history["history"]] == [("override", 2, "by hand")]


def test_an_override_made_after_a_regrade_listed_the_submission_stands(
    graded: Submission, instructor: Any,
) -> None:
    # A code regrade runs later on the sandbox queue, and a long typed regrade walks a
    # cursor: the override in between must not be replaced by the machine's grade.
    from grading.services import regrade_submission

    listed = Submission.objects.get(pk=graded.pk)
    assert override(instructor[1], graded, "2").status_code == 200
    assert regrade_submission(listed, None) is None
    graded.refresh_from_db()
    assert graded.score == 2 and graded.overridden
    assert list(ScoreChange.objects.filter(submission=graded).values_list("reason", flat=True)) \
        == ["by hand"]


def test_new_points_rescale_an_override_to_its_share(
    graded: Submission, instructor: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    # 5 of 6 stays five sixths of the item: 2.5 of 3, never 5 of an item worth 3.
    assert override(instructor[1], graded, "5").status_code == 200
    problem_set_id = graded.variant_item.variant.problem_set_id
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set_id}/", {
            "items": [{"position": 1, "points": "3"}]}, format="json")
    assert response.status_code == 200, response.content
    report = instructor[1].get(f"/api/v1/regrades/{response.json()['regrade']}/").json()[
        "report"]
    assert report["overridden_kept"] == [graded.pk]
    [entry] = report["scores_changed"]
    assert (entry["old_score"], entry["new_score"]) == (5.0, 2.5)
    graded.refresh_from_db()
    assert (graded.score, graded.max_score, graded.overridden) == (
        Decimal("2.5"), Decimal(3), True)


@pytest.mark.parametrize("score", ["-1", "6.5"])
def test_an_out_of_range_override_is_a_422_and_changes_nothing(
    graded: Submission, instructor: Any, score: str
) -> None:
    old = graded.score
    response = override(instructor[1], graded, score)
    assert response.status_code == 422 and "score" in response.json()["error"]["details"]
    graded.refresh_from_db()
    assert graded.score == old and not ScoreChange.objects.exists()


def test_an_ungraded_submission_cannot_be_overridden(graded: Submission, instructor: Any
                                                     ) -> None:
    Submission.objects.filter(pk=graded.pk).update(status=Submission.Status.QUEUED)
    response = override(instructor[1], graded, "1")
    assert response.status_code == 422


def test_override_needs_a_reason(graded: Submission, instructor: Any) -> None:
    response = instructor[1].post(f"/api/v1/submissions/{graded.pk}/override/",
                                  {"score": "1"}, format="json")
    assert response.status_code == 400 and "reason" in response.json()["error"]["details"]


# --- regrade requests --------------------------------------------------------------------


def test_a_regrade_request_answered_with_an_override(
    graded: Submission, instructor: Any, student: Any
) -> None:
    path = f"/api/v1/submissions/{graded.pk}/regrade-request/"
    created = student[1].post(path, {"message": "C2 is not pruned: 4 > 3"}, format="json")
    assert created.status_code == 201, created.content
    again = student[1].post(path, {"message": "hello?"}, format="json")
    assert again.status_code == 409
    problem_set_id = graded.variant_item.variant.problem_set_id
    [listed] = instructor[1].get(
        f"/api/v1/problem-sets/{problem_set_id}/regrade-requests/?status=open").json()
    assert listed["message"] == "C2 is not pruned: 4 > 3" and listed["student"] == "sara"
    resolve = f"/api/v1/regrade-requests/{listed['id']}/resolve/"
    response = instructor[1].post(resolve, {"reply": "You are right.", "score": "6"},
                                  format="json")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "resolved" and response.json()["new_score"] == 6
    assert instructor[1].post(resolve, {"reply": "again"}, format="json").status_code == 409
    shown = student[1].get(f"/api/v1/submissions/{graded.pk}/").json()
    assert shown["score"] == 6
    assert [(r["status"], r["reply"]) for r in shown["regrade_requests"]] == [
        ("resolved", "You are right.")]
    assert ScoreChange.objects.get().reason == "You are right."
    assert instructor[1].get(
        f"/api/v1/problem-sets/{problem_set_id}/regrade-requests/?status=open").json() == []


def test_a_regrade_request_answered_without_an_override(
    graded: Submission, instructor: Any, student: Any
) -> None:
    student[1].post(f"/api/v1/submissions/{graded.pk}/regrade-request/",
                    {"message": "why?"}, format="json")
    regrade_request = RegradeRequest.objects.get()
    old = graded.score
    response = instructor[1].post(f"/api/v1/regrade-requests/{regrade_request.pk}/resolve/",
                                  {"reply": "C2 is pruned: see the window."}, format="json")
    assert response.status_code == 200 and response.json()["new_score"] is None
    graded.refresh_from_db()
    assert graded.score == old and not ScoreChange.objects.exists()


def test_only_the_owner_may_request_and_only_graded_submissions(
    graded: Submission, other_student: Any, student: Any
) -> None:
    path = f"/api/v1/submissions/{graded.pk}/regrade-request/"
    assert other_student[1].post(path, {"message": "x"}, format="json").status_code == 404
    Submission.objects.filter(pk=graded.pk).update(status=Submission.Status.QUEUED)
    response = student[1].post(path, {"message": "x"}, format="json")
    assert response.status_code == 422 and "submission" in response.json()["error"]["details"]


# --- every submission of a set -----------------------------------------------------------


def test_the_instructor_lists_filters_and_pages_every_submission(
    course: Any, instructor: Any, django_assert_max_num_queries: Any,
) -> None:
    problem_set = make_problem_set(course, instructor[0],
                                   [("alphabeta", {}, "6"), ("minimax", {}, "2")])
    from tests.grading.conftest import MINIMAX_PROBLEM

    for number in range(5):
        student, _ = make_account(f"student{number}", "student", course)
        variant = give_variant(problem_set, student, [ALPHABETA_PROBLEM, MINIMAX_PROBLEM])
        for variant_item in variant.items.all():
            for attempt in (1, 2):
                Submission.objects.create(
                    variant_item=variant_item, student=student, attempt_number=attempt,
                    answer=correct_answer(variant_item), status=Submission.Status.GRADED,
                    score=Decimal(attempt), max_score=Decimal(6), results=[{
                        "part": "value", "verdict": "wrong", "points": 0, "max_points": 1,
                        "expected": 3, "misconception": None,
                        "messages": [{"code": "value_wrong", "params": {"given": "9"}}]}],
                )
    path = f"/api/v1/problem-sets/{problem_set.pk}/submissions/"
    with django_assert_max_num_queries(8):
        body = instructor[1].get(path + "?page_size=200").json()
    assert body["count"] == 20 and len(body["results"]) == 20
    first = body["results"][0]
    assert (first["student"], first["item"], first["attempt_number"]) == ("student0", 1, 1)
    assert first["answer"] and first["status"] == "graded"
    # The stored codes, and the feedback as the instructor's page words it.
    assert first["results"][0]["messages"] == [{"code": "value_wrong", "params": {"given": "9"}}]
    [value] = first["feedback"]
    assert value["messages"][0]["text"] == "9 is not the right value."
    assert value["label"] and value["expected"] == 3
    one = instructor[1].get(path + "?student=student3&item=2").json()
    assert [(r["student"], r["item"]) for r in one["results"]] == [("student3", 2)] * 2
    page = instructor[1].get(path + "?page=2&page_size=8").json()
    assert page["pages"] == 3 and len(page["results"]) == 8
    assert page["results"][0]["student"] == "student2"
    # Digits other than ASCII ones ("²" is a digit to str.isdigit, not to int) and numbers
    # no database offset or column holds are refused as bad input too.
    for bad in ("?page=0", "?page_size=500", "?item=x", "?page=%C2%B2", "?page_size=%C2%B2",
                "?item=%C2%B2", f"?page={10 ** 30}", f"?item={10 ** 30}"):
        response = instructor[1].get(path + bad)
        assert response.status_code == 400, bad
    past = instructor[1].get(path + f"?page={10 ** 17}&page_size=200")
    assert past.status_code == 200 and past.json()["results"] == []
