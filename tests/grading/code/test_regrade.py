"""A regrade of a problem set runs its graded code submissions again in the sandbox."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from exercises.models import Item
from grading import services as grading_services
from grading.code import services
from grading.models import Regrade, ScoreChange, Submission
from grading.sandbox import SandboxConfig
from grading.services import request_regrade, run_regrade
from tests.grading.code import solutions
from tests.grading.code.conftest import code_assignment

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded_no_cut(course: Any, instructor: Any, student: Any, sandbox_config: SandboxConfig,
                  monkeypatch: pytest.MonkeyPatch) -> Submission:
    """Return a graded alpha-beta submission that does not cut on equality (wrong here)."""
    monkeypatch.setattr(services, "sandbox_config", lambda: sandbox_config)
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              {"test_sets": ["fixed_trees"]})
    submission, _ = services.submit_code(student=student[0], variant_id=variant.pk,
                                         position=1, source=solutions.NO_CUT_ON_EQUALITY)
    services.grade_code_submission(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.GRADED
    assert submission.score < Decimal(3)
    return submission


def test_a_regrade_reruns_code_submissions_and_keeps_the_history(
        graded_no_cut: Submission, instructor: Any, celery_eager: None) -> None:
    old_score, old_results = graded_no_cut.score, graded_no_cut.results
    item = Item.objects.get(pk=graded_no_cut.variant_item.item_id)
    item.params = {**item.params, "cut_on_equality": False}
    item.save(update_fields=["params"])

    regrade = run_regrade(request_regrade(item.problem_set, instructor[0], enqueue=False).pk)

    assert regrade.status == Regrade.Status.DONE and regrade.finished_at is not None
    assert regrade.report["code_submissions_requeued"] == [graded_no_cut.pk]
    assert regrade.report["code_submissions_pending"] == []
    assert regrade.report["code_submissions_not_sent"] == []
    assert regrade.report["scores_changed"] == [{
        "submission": graded_no_cut.pk, "kind": "code", "student": "sara", "item": 1,
        "attempt": 1, "old_score": float(old_score), "new_score": 3.0,
        "old_max_score": 3.0, "new_max_score": 3.0,
    }]
    graded_no_cut.refresh_from_db()
    assert graded_no_cut.status == Submission.Status.GRADED
    assert graded_no_cut.score == Decimal(3)
    assert {test["verdict"] for test in graded_no_cut.results} == {"passed"}
    [change] = ScoreChange.objects.filter(submission=graded_no_cut)
    assert change.regrade_id == regrade.pk and change.reason == "regrade"
    assert (change.old_score, change.new_score) == (old_score, Decimal(3))
    assert change.old_results == old_results

    # Nothing changed since: a second regrade runs the code again and records nothing new.
    again = run_regrade(request_regrade(item.problem_set, instructor[0], enqueue=False).pk)
    assert again.report["code_submissions_requeued"] == [graded_no_cut.pk]
    assert again.status == Regrade.Status.DONE and again.report["scores_changed"] == []
    assert ScoreChange.objects.filter(submission=graded_no_cut).count() == 1


def test_a_regrade_stays_running_until_its_code_runs_report_back(
        graded_no_cut: Submission, instructor: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    monkeypatch.setattr(grading_services, "enqueue_code_regrade",
                        lambda pk, regrade_id: sent.append(pk) or True)
    item = Item.objects.get(pk=graded_no_cut.variant_item.item_id)
    Item.objects.filter(pk=item.pk).update(params={**item.params, "cut_on_equality": False})

    regrade = run_regrade(request_regrade(item.problem_set, instructor[0], enqueue=False).pk)
    assert sent == [graded_no_cut.pk]
    assert regrade.status == Regrade.Status.RUNNING and regrade.finished_at is None
    assert regrade.report["code_submissions_pending"] == [graded_no_cut.pk]

    # The sweep leaves young pending runs alone and sends old ones again.
    assert grading_services.requeue_stale_code_regrades() == []
    later = timezone.now() + timedelta(minutes=11)
    assert grading_services.requeue_stale_code_regrades(now=later) == [graded_no_cut.pk]
    assert grading_services.requeue_stale_code_regrades(now=later) == []

    # The sandbox worker runs it (twice: a redelivered task); the report counts it once.
    change = services.regrade_code_submission(graded_no_cut.pk, regrade.pk)
    assert change is not None
    assert services.regrade_code_submission(graded_no_cut.pk, regrade.pk) is None
    regrade.refresh_from_db()
    assert regrade.status == Regrade.Status.DONE and regrade.finished_at is not None
    assert regrade.report["code_submissions_pending"] == []
    assert [entry["submission"] for entry in regrade.report["scores_changed"]] == [
        graded_no_cut.pk]
    assert grading_services.requeue_stale_code_regrades(now=later) == []


def test_code_runs_the_broker_refused_stay_pending_and_a_failed_run_is_reported(
        graded_no_cut: Submission, instructor: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grading_services, "enqueue_code_regrade", lambda pk, regrade_id: False)
    item = Item.objects.get(pk=graded_no_cut.variant_item.item_id)
    regrade = run_regrade(request_regrade(item.problem_set, instructor[0], enqueue=False).pk)
    assert regrade.status == Regrade.Status.RUNNING
    assert regrade.report["code_submissions_not_sent"] == [graded_no_cut.pk]
    assert regrade.report["code_submissions_pending"] == [graded_no_cut.pk]

    monkeypatch.setattr(services, "sandbox_config",
                        lambda: SandboxConfig(bwrap="/nonexistent/bwrap"))
    assert services.regrade_code_submission(graded_no_cut.pk, regrade.pk) is None
    regrade.refresh_from_db()
    assert regrade.status == Regrade.Status.DONE
    assert regrade.report["code_submissions_failed"] == [graded_no_cut.pk]
    assert regrade.report["scores_changed"] == []


def test_a_sandbox_that_cannot_run_leaves_the_old_grade(
        graded_no_cut: Submission, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "sandbox_config",
                        lambda: SandboxConfig(bwrap="/nonexistent/bwrap"))
    old_score = graded_no_cut.score
    Item.objects.filter(pk=graded_no_cut.variant_item.item_id).update(
        params={"test_sets": ["fixed_trees"], "cut_on_equality": False})

    assert services.regrade_code_submission(graded_no_cut.pk, None) is None
    graded_no_cut.refresh_from_db()
    assert graded_no_cut.status == Submission.Status.GRADED
    assert graded_no_cut.score == old_score
    assert not ScoreChange.objects.filter(submission=graded_no_cut).exists()


def test_submissions_not_graded_are_not_regraded(graded_no_cut: Submission) -> None:
    Submission.objects.filter(pk=graded_no_cut.pk).update(status=Submission.Status.ERROR)

    assert services.regrade_code_submission(graded_no_cut.pk, None) is None


def test_a_sandbox_that_cannot_run_keeps_the_tests_outcome_on_the_new_points(
        graded_no_cut: Submission, monkeypatch: pytest.MonkeyPatch) -> None:
    # Kept on the old maximum, the set's total could pass its new maximum, and the LMS's.
    monkeypatch.setattr(services, "sandbox_config",
                        lambda: SandboxConfig(bwrap="/nonexistent/bwrap"))
    share = graded_no_cut.score / graded_no_cut.max_score
    Item.objects.filter(pk=graded_no_cut.variant_item.item_id).update(points=Decimal(6))

    change = services.regrade_code_submission(graded_no_cut.pk, None)
    graded_no_cut.refresh_from_db()
    assert graded_no_cut.max_score == Decimal(6)
    assert graded_no_cut.score == (share * 6).quantize(Decimal("0.0001"))
    assert change is not None and change.new_max_score == Decimal(6)
