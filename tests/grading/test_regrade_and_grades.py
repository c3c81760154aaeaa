"""Regrading after a convention, points or engine change; grades as CSV."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from exercises.models import VariantItem
from grading.models import Regrade, ScoreChange, Submission
from tests.grading.conftest import (
    ALPHABETA_PROBLEM,
    correct_answer,
    give_variant,
    make_problem_set,
)

EQUALITY_PROBLEM = json.loads(json.dumps(ALPHABETA_PROBLEM))
EQUALITY_PROBLEM["tree"]["children"][1]["children"][0]["value"] = 3  # C1 = alpha


@pytest.fixture
def submit_inline(celery_eager: None, django_capture_on_commit_callbacks: Any) -> Any:
    def submit(client: Any, variant: Any, answer: Any, position: int = 1) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                f"/api/v1/assignments/{variant.pk}/items/{position}/submissions/",
                {"answer": answer}, format="json",
            )
        assert response.status_code == 202, response.content
        return client.get(f"/api/v1/submissions/{response.json()['id']}/").json()

    return submit


@pytest.fixture
def equality_set(course, instructor, student) -> tuple[Any, Any]:
    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")])
    return problem_set, give_variant(problem_set, student[0], [EQUALITY_PROBLEM])


def test_changing_a_convention_then_regrading_keeps_the_score_history(
    equality_set, student, instructor, submit_inline, django_capture_on_commit_callbacks,
) -> None:
    problem_set, variant = equality_set
    variant_item = VariantItem.objects.get(variant=variant)
    assert variant_item.answer_key["pruned_leaves"] == ["C2", "C3"]
    # The student did not cut on equality: wrong under the set's convention...
    no_cut = {**correct_answer(variant_item), "evaluated_count": 9, "pruned_leaves": [],
              "cutoffs": []}
    before = submit_inline(student[1], variant, no_cut)
    assert before["score"] < 6
    # ...until the instructor changes the convention and regrades.
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/items/1/",
                                       {"params": {"cut_on_equality": False}}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["params"]["cut_on_equality"] is False
    regrade = instructor[1].get(response["Location"]).json()
    assert regrade["status"] == "done"
    report = regrade["report"]
    assert report["submissions_regraded"] == 1
    assert report["items"][0]["keys_recomputed"] == 1
    [change] = report["scores_changed"]
    assert change["old_score"] == before["score"]
    assert change["new_score"] > before["score"]
    submission = Submission.objects.get(pk=before["id"])
    assert submission.score == Decimal(str(change["new_score"]))
    history = ScoreChange.objects.get(submission=submission)
    assert history.old_score == Decimal(str(before["score"]))
    assert history.old_results and history.regrade_id == regrade["id"]


def test_changing_points_regrades_to_the_new_total(alphabeta_set, student, instructor,
                                                   submit_inline,
                                                   django_capture_on_commit_callbacks) -> None:
    problem_set, variant = alphabeta_set
    submit_inline(student[1], variant, correct_answer(VariantItem.objects.get(variant=variant)))
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/items/1/",
                                       {"points": "10"}, format="json")
    assert response.status_code == 200, response.content
    assert instructor[1].get(response["Location"]).json()["status"] == "done"
    submission = Submission.objects.get()
    assert submission.score == submission.max_score == 10
    assert ScoreChange.objects.get().old_score == 6


def test_an_older_engine_version_is_reported_and_recomputed(alphabeta_set, student,
                                                            submit_inline) -> None:
    problem_set, variant = alphabeta_set
    VariantItem.objects.filter(variant=variant).update(
        engine_version="0.9", answer_key={**VariantItem.objects.get().answer_key, "value": 5})
    submit_inline(student[1], variant, {"value": 3})
    out = io.StringIO()
    call_command("regrade", "--problem-set", str(problem_set.pk), stdout=out)
    report = json.loads(out.getvalue())
    assert report["items"][0]["keys_from_older_engine"] == 1
    assert report["items"][0]["keys_changed"] == 1
    assert report["scores_changed"][0]["old_score"] == 0
    assert report["scores_changed"][0]["new_score"] > 0
    # A second regrade changes nothing.
    out = io.StringIO()
    call_command("regrade", "--problem-set", str(problem_set.pk), stdout=out)
    assert json.loads(out.getvalue())["scores_changed"] == []


def test_regrade_is_for_the_sets_instructor_only(alphabeta_set, other_instructor, student,
                                                 anonymous) -> None:
    problem_set, _ = alphabeta_set
    url = f"/api/v1/problem-sets/{problem_set.pk}/regrade/"
    assert other_instructor[1].post(url).status_code == 404
    assert student[1].post(url).status_code == 403
    assert anonymous.post(url).status_code == 401
    assert not Regrade.objects.exists()


def test_the_regrade_command_refuses_an_unknown_set(db) -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no problem set with id 999"):
        call_command("regrade", "--problem-set", "999")


def read_csv(response: Any) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_grades_csv_counts_the_best_or_last_attempt(course, instructor, student, other_student,
                                                    submit_inline) -> None:
    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6"),
                                                           ("minimax", {}, "2")])
    from tests.grading.conftest import MINIMAX_PROBLEM

    variant = give_variant(problem_set, student[0], [ALPHABETA_PROBLEM, MINIMAX_PROBLEM])
    first_item = VariantItem.objects.get(variant=variant, position=1)
    submit_inline(student[1], variant, correct_answer(first_item))
    submit_inline(student[1], variant, {"value": 3})
    url = f"/api/v1/problem-sets/{problem_set.pk}/grades.csv"
    rows = read_csv(instructor[1].get(url))
    assert [row["username"] for row in rows] == ["sara", "tomas"]
    sara, tomas = rows
    assert Decimal(sara["item_1"]) == 6 and sara["item_2"] == ""
    assert Decimal(sara["total"]) == 6 and Decimal(sara["max_total"]) == 8
    assert sara["late"] == "no"
    assert tomas["item_1"] == "" and Decimal(tomas["total"]) == 0
    problem_set.score_policy = "last"
    problem_set.save()
    sara = read_csv(instructor[1].get(url))[0]
    assert Decimal(sara["item_1"]) < 6


def test_grades_csv_flags_late_work(alphabeta_set, instructor, student, submit_inline) -> None:
    problem_set, variant = alphabeta_set
    problem_set.due_at = timezone.now() - timedelta(hours=1)
    problem_set.late_policy = "penalty"
    problem_set.late_penalty = Decimal("0.5")
    problem_set.save()
    submit_inline(student[1], variant, correct_answer(VariantItem.objects.get(variant=variant)))
    row = read_csv(instructor[1].get(f"/api/v1/problem-sets/{problem_set.pk}/grades.csv"))[0]
    assert row["late"] == "yes" and Decimal(row["item_1"]) == 3


def test_grades_csv_is_the_instructors_only(alphabeta_set, other_instructor, student,
                                            anonymous) -> None:
    problem_set, _ = alphabeta_set
    url = f"/api/v1/problem-sets/{problem_set.pk}/grades.csv"
    response = other_instructor[1].get(url)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert student[1].get(url).status_code == 403
    assert anonymous.get(url).status_code == 401
    assert other_instructor[1].get(url, HTTP_ACCEPT="text/csv").status_code == 404


def test_lms_clients_read_grades_with_the_grades_scope(alphabeta_set, instructor,
                                                       submit_inline, student) -> None:
    from rest_framework.test import APIClient

    problem_set, variant = alphabeta_set
    submission = submit_inline(student[1], variant, {"value": 3})
    created = instructor[1].post("/api/v1/api-clients/create/",
                                 {"name": "Canvas", "scopes": ["grades:read"]}, format="json")
    lms = APIClient()
    lms.credentials(HTTP_AUTHORIZATION=f"Bearer {created.json()['token']}")
    rows = read_csv(lms.get(f"/api/v1/problem-sets/{problem_set.pk}/grades.csv"))
    assert rows[0]["username"] == "sara"
    assert lms.get(f"/api/v1/submissions/{submission['id']}/").json()["id"] == submission["id"]


def test_a_regrade_report_is_shown_to_the_sets_instructors_only(alphabeta_set, instructor,
                                                                other_instructor) -> None:
    from grading.services import request_regrade

    problem_set, _ = alphabeta_set
    regrade = request_regrade(problem_set, instructor[0], enqueue=False)
    url = f"/api/v1/regrades/{regrade.pk}/"
    assert instructor[1].get(url).json()["status"] == "queued"
    assert other_instructor[1].get(url).status_code == 404


def test_a_regrade_the_broker_refuses_is_failed_for_its_instructor_to_ask_again(
    alphabeta_set, instructor, broker_refuses, django_capture_on_commit_callbacks,
) -> None:
    # Its task was published in a bare on_commit: the request answered 500 and the regrade
    # stayed queued for good.
    from grading.services import REGRADE_NOT_SENT
    from grading.tasks import run_regrade_task

    problem_set, _ = alphabeta_set
    broker_refuses(run_regrade_task)
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].post(f"/api/v1/problem-sets/{problem_set.pk}/regrade/")
    assert response.status_code == 202, response.content
    regrade = Regrade.objects.get()
    assert (regrade.status, regrade.failure_reason) == (Regrade.Status.FAILED, REGRADE_NOT_SENT)
    shown = instructor[1].get(f"/api/v1/regrades/{regrade.pk}/").json()
    assert (shown["status"], shown["failure_reason"]) == ("failed", REGRADE_NOT_SENT)
