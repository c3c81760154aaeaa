"""End to end with a real Celery worker on the sandbox queue: POST code → 202 → graded."""

from __future__ import annotations

from typing import Any

import pytest

from exercises.models import Variant
from tests.conftest import wait_until
from tests.grading.code import solutions
from tests.grading.code.conftest import code_assignment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def graded(client: Any, submission_id: int) -> dict[str, Any]:
    """Poll the code submission until the worker finishes it; return its last state."""
    url = f"/api/v1/code-submissions/{submission_id}/"
    assert wait_until(lambda: client.get(url).json()["status"] in ("graded", "error"),
                      timeout=60), client.get(url).json()
    return client.get(url).json()


def test_code_is_graded_by_a_sandbox_worker_with_a_report_per_test(
        celery_worker_process: Any, sandbox_config: Any, course: Any, instructor: Any,
        student: Any) -> None:
    variant: Variant = code_assignment(course, instructor[0], student[0], "code_alphabeta")
    url = f"/api/v1/assignments/{variant.pk}/items/1/code-submissions/"

    right = student[1].post(url, {"source": solutions.ALPHABETA}, format="json")
    wrong = student[1].post(url, {"source": solutions.NO_CUT_ON_EQUALITY}, format="json")
    crash = student[1].post(url, {"source": solutions.CRASHING}, format="json")

    assert [r.status_code for r in (right, wrong, crash)] == [202, 202, 202]
    right, wrong, crash = (graded(student[1], r.json()["id"]) for r in (right, wrong, crash))
    assert right["status"] == "graded" and right["score"] == right["max_score"] == 3
    assert {test["verdict"] for test in right["tests"]} == {"passed"}
    assert len(right["tests"]) == 7
    assert 0 < wrong["score"] < 3
    assert wrong["summary"]["misconception"]["code"] == "no_cut_on_equality"
    assert crash["score"] == 0
    assert {test["verdict"] for test in crash["tests"]} == {"runtime_error"}
    assert crash["tests"][0]["traceback"].startswith(
        'Traceback (most recent call last):\n  File "solution.py", line 7')
