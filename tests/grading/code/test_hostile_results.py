"""Results of hostile student code are always stored, bounded, and shown: text PostgreSQL
refuses (a NUL in an exception message) is replaced, an exception class name of 300,000
characters is cut, deep return values are summarised, and a grade that still cannot be
stored ends the submission as an error once instead of leaving it running."""

from __future__ import annotations

import json
from typing import Any

import pytest

from exercises.models import Variant
from grading import services as grading_services
from grading.code import services
from grading.models import Submission
from grading.sandbox import SandboxConfig
from tests.grading.code.conftest import code_assignment

pytestmark = pytest.mark.django_db

NUL_IN_MESSAGE = '''
def alphabeta_decision(game, state, depth):
    raise ValueError("bad \\x00 text")
'''
HUGE_CLASS_NAME = '''
def alphabeta_decision(game, state, depth):
    raise type("E" * 300_000, (Exception,), {})("x")
'''
DEEP_RETURN = '''
def minimax_decision(game, state):
    value = []
    for _ in range(600):
        value = [value]
    return value
'''


@pytest.fixture
def graded(sandbox_config: SandboxConfig, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Return a function submitting code through the API and grading it: (id, detail)."""
    monkeypatch.setattr(services, "sandbox_config", lambda: sandbox_config)
    monkeypatch.setattr(services, "enqueue_submission", lambda pk, kind: True)

    def submit_and_grade(client: Any, variant: Variant, source: str) -> tuple[int, Any]:
        response = client.post(f"/api/v1/assignments/{variant.pk}/items/1/code-submissions/",
                               {"source": source}, format="json")
        assert response.status_code == 202, response.content
        submission_id = response.json()["id"]
        services.grade_code_submission(submission_id)
        return submission_id, client.get(f"/api/v1/code-submissions/{submission_id}/")

    return submit_and_grade


def test_a_nul_in_an_exception_message_is_stored_replaced(
    student: Any, alphabeta_code: Variant, graded: Any
) -> None:
    submission_id, detail = graded(student[1], alphabeta_code, NUL_IN_MESSAGE)
    assert detail.status_code == 200
    body = detail.json()
    assert body["status"] == "graded"
    assert body["tests"][0]["verdict"] == "runtime_error"
    assert "ValueError: bad \ufffd text" in body["tests"][0]["traceback"]
    # A regrade runs it again and stores its result too, and finishes.
    assert services.regrade_code_submission(submission_id, None) is None
    assert Submission.objects.get(pk=submission_id).status == Submission.Status.GRADED


def test_a_huge_exception_class_name_is_cut(
    student: Any, alphabeta_code: Variant, graded: Any
) -> None:
    submission_id, detail = graded(student[1], alphabeta_code, HUGE_CLASS_NAME)
    assert detail.status_code == 200 and detail.json()["status"] == "graded"
    stored = Submission.objects.get(pk=submission_id).results
    assert len(json.dumps(stored)) < 200_000
    assert len(detail.content) < 300_000
    name = detail.json()["tests"][0]["messages"][0]["params"]["exception"]
    assert name.startswith("EEEE") and name.endswith("…") and len(name) <= 4000


def test_a_deeply_nested_return_value_is_graded_wrong(
    course: Any, instructor: Any, student: Any, graded: Any
) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_minimax")
    _, detail = graded(student[1], variant, DEEP_RETURN)
    assert detail.status_code == 200
    body = detail.json()
    assert body["status"] == "graded" and body["score"] == 0
    assert {test["verdict"] for test in body["tests"]} <= {"wrong", "runtime_error"}


def test_a_grade_that_cannot_be_stored_ends_as_an_error_once(
    student: Any, alphabeta_code: Variant, graded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "storable", lambda results: results)  # as before the fix
    submission_id, detail = graded(student[1], alphabeta_code, NUL_IN_MESSAGE)
    assert detail.json()["status"] == "error"
    assert detail.json()["error_code"] == "results_unsavable"
    # Not picked up again by the stale-work sweep: it is no longer running.
    assert submission_id not in grading_services.requeue_stale_submissions()
