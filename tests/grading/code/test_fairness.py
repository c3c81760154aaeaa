"""End to end with a real worker: two students flooding the sandbox queue with code that sleeps
until every limit kills it cannot keep a third student's honest submission waiting once a
slot frees."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from grading.models import Submission
from tests.conftest import make_account, wait_until
from tests.grading.code import solutions
from tests.grading.code.conftest import code_assignment

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLEEPER = "import time\n\ndef alphabeta_decision(game, state, depth):\n    time.sleep(600)\n"
LIMITS = {"cpu_seconds": 1, "wall_seconds": 2}
"""Each sleeper's batched run and every re-run of its tests end at the 2 s wall limit: one
sleeper holds a worker slot for about 16 s (seven tests)."""
SLOT_PICKUP = timedelta(seconds=5)


def submit(client: Any, variant: Any, source: str) -> int:
    response = client.post(f"/api/v1/assignments/{variant.pk}/items/1/code-submissions/",
                           {"source": source}, format="json")
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


def status_of(submission_id: int) -> str:
    return str(Submission.objects.get(pk=submission_id).status)


def test_an_honest_submission_goes_before_the_floods_second_round(
        celery_worker_process: Any, sandbox_config: Any, course: Any, instructor: Any) -> None:
    accounts = {name: make_account(name, "student", course) for name in ("ana", "bo", "honest")}
    variants = {name: code_assignment(course, instructor[0], user, "code_alphabeta",
                                      {"limits": LIMITS})
                for name, (user, _) in accounts.items()}

    def send(name: str, source: str) -> int:
        return submit(accounts[name][1], variants[name], source)

    first_round = [send("ana", SLEEPER), send("bo", SLEEPER)]
    # The worker's two slots are the sleepers' now (concurrency 2, prefetch 1).
    assert wait_until(lambda: all(status_of(pk) == "running" for pk in first_round), 60)
    second_round = [send("ana", SLEEPER), send("bo", SLEEPER)]
    honest = send("honest", solutions.ALPHABETA)

    finished = (*first_round, *second_round, honest)
    assert wait_until(lambda: all(status_of(pk) in ("graded", "error") for pk in finished),
                      240), [status_of(pk) for pk in finished]
    rows = {row.pk: row for row in Submission.objects.filter(pk__in=finished)}
    graded = rows[honest]
    assert graded.status == "graded" and graded.score == graded.max_score
    slot_freed = min(rows[pk].graded_at for pk in first_round)
    assert graded.started_at is not None and slot_freed is not None
    # Taken by the first slot that freed, not behind the flood's second round in the queue:
    assert graded.started_at - slot_freed < SLOT_PICKUP, graded.started_at - slot_freed
    assert all(graded.started_at < rows[pk].graded_at for pk in second_round)
    assert all(rows[pk].status == "graded" and rows[pk].score == 0 for pk in second_round)
