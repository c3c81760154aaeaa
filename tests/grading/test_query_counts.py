"""What one answer costs the database on its hot path: counted queries, not timings.

An exam's answers each go through submit → grade → one status read; every query here is
paid hundreds of times a second (bench/README.md, "Grading under load"). A change that adds
one should change these counts on purpose.
"""

from __future__ import annotations

import uuid
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from exercises.generation import generate_item
from exercises.kinds import get_kind
from exercises.models import VariantItem
from grading import services
from grading.grader import GradingContext, grade_answer
from grading.models import Submission
from tests.grading.conftest import correct_answer

# Each test runs in a transaction that is rolled back: the submissions' commit hooks (the
# broker publish) never run. (Patching ``grading.services.enqueue_submission`` instead once
# leaked: a module first imported under the patch kept the mock for the rest of the run.)
pytestmark = pytest.mark.django_db


def statements(queries: CaptureQueriesContext) -> list[str]:
    """Return the captured SQL statements, transaction control left out."""
    return [query["sql"] for query in queries.captured_queries
            if query["sql"] not in ("BEGIN", "COMMIT", "ROLLBACK")
            and not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]


def submit(client: Any, variant: Any, answer: Any) -> Any:
    return client.post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                       {"answer": answer}, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)


def test_submitting_an_answer(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    answer = correct_answer(VariantItem.objects.get(variant=variant))
    with CaptureQueriesContext(connection) as queries:
        assert submit(student[1], variant, answer).status_code == 202
    # Token and user; the student's item with their extension (due date and attempts are
    # theirs; enrolment checked in the same query); the item's lock; the attempts so far; the
    # insert. A new idempotency key is not looked up: its unique constraint catches a retry.
    assert len(statements(queries)) == 5


def test_opening_an_assignment(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    generated = generate_item("alphabeta", get_kind("alphabeta").clean_params({}), "counts")
    VariantItem.objects.filter(variant=variant).update(prompt=generated.prompt)
    with CaptureQueriesContext(connection) as queries:
        assert student[1].get(f"/api/v1/assignments/{variant.pk}/").status_code == 200
    # Token and user; the variant with its set, course and the student's extension
    # (enrolment in the same query); the variant's items, each with its exercise.
    assert len(statements(queries)) == 3


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="the WITH queries and NOTIFY are PostgreSQL's; elsewhere two more")
def test_grading_an_answer(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    submission_id = submit(student[1], variant,
                           correct_answer(VariantItem.objects.get(variant=variant))).json()["id"]
    with CaptureQueriesContext(connection) as queries:
        services.grade_submission(submission_id)
    sql = statements(queries)
    # queued → running, returning the submission with its item and set (one WITH query);
    # running → graded, sending the NOTIFY that wakes the long-polls (at the commit; one
    # WITH query); whether any webhook could hear the course and whether any LMS links the
    # set (one plain EXISTS each: the full queries run only then).
    assert len(sql) == 4, sql
    assert sum(statement.startswith("WITH") for statement in sql) == 2
    assert sql[0].startswith('WITH started AS (UPDATE "grading_submission"')
    assert "pg_notify" in sql[1] and sql[1].startswith('WITH changed AS (UPDATE')
    assert Submission.objects.get(pk=submission_id).status == Submission.Status.GRADED


def test_reading_a_graded_submission(alphabeta_set, student, stop_listener) -> None:
    _, variant = alphabeta_set
    submission_id = submit(student[1], variant, {"value": 3}).json()["id"]
    services.grade_submission(submission_id)
    with CaptureQueriesContext(connection) as queries:
        response = student[1].get(f"/api/v1/submissions/{submission_id}/?wait=10")
    assert response.json()["status"] == "graded"
    # Token and user; the submission with its item, variant and set in one query; the
    # student's extension (when the key becomes visible); the submission's regrade requests.
    assert len(statements(queries)) == 4


def test_generation_stores_the_misconceptions_so_grading_runs_none_of_their_searches(
        alphabeta_set) -> None:
    kind = get_kind("alphabeta")
    generated = generate_item("alphabeta", kind.clean_params({}), "query-counts")
    stored = generated.trace["misconceptions"]
    assert stored == kind.misconception_parts(generated.problem)
    assert stored, "an alpha-beta item has misconceptions to name"
    problem_set, _ = alphabeta_set
    item = problem_set.items.get()
    wrong = next(parts for parts in stored.values() if parts != generated.answer_key)
    context = GradingContext(item, generated.problem, generated.answer_key, generated.trace)
    with mock.patch.object(type(kind), "misconception_answers",
                           side_effect=AssertionError("searched while grading")):
        result = grade_answer(context, wrong)
    # Computed from the problem instead (items generated before they were stored): the same.
    computed = grade_answer(GradingContext(item, generated.problem, generated.answer_key,
                                           {"answer": generated.trace["answer"]}), wrong)
    assert result.results == computed.results
    assert any(part.get("misconception") for part in result.results)
