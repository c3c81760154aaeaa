"""A code submission the host was too busy to time fairly is run again later, without using
an attempt, and fails as the host's (``sandbox_busy``) only after its retries; over the real
database and the real sandbox (the broker is replaced by a recorder)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from exercises.models import Variant
from grading.code.services import grade_code_submission
from grading.models import Submission
from grading.sandbox import SandboxConfig
from tests.grading.code.conftest import code_assignment
from tests.grading.sandbox.conftest import one_cpu_shared_with

pytestmark = pytest.mark.django_db

SPINNING = """import time

def alphabeta_decision(game, state, depth):
    began = time.process_time()
    while time.process_time() - began < 3:
        pass
    return game.actions(state)[0], 0
"""
"""Needs 3 s of CPU, within its CPU limit but more than its 1 s wall limit."""


@pytest.fixture
def spinning_code(course: Any, instructor: Any, student: Any) -> Variant:
    return code_assignment(course, instructor[0], student[0], "code_alphabeta",
                           {"limits": {"cpu_seconds": 10, "wall_seconds": 1}})


@override_settings(CUTOFF_CODE_BUSY_RETRIES=1, CUTOFF_CODE_BUSY_RETRY_SECONDS=20)
def test_a_run_the_host_starved_is_run_again_then_fails_as_the_hosts(
        sandbox_config: SandboxConfig, sent: list[dict[str, Any]],
        spinning_code: Variant) -> None:
    variant_item = spinning_code.items.get()
    submission = Submission.objects.create(
        variant_item=variant_item, student=spinning_code.student, kind=Submission.Kind.CODE,
        source=SPINNING, attempt_number=1)

    with one_cpu_shared_with(competitors=3):
        grade_code_submission(submission.pk)
        submission.refresh_from_db()
        assert (submission.status, submission.error_code) == ("queued", "")
        assert submission.host_retries == 1
        (options,) = sent
        assert options["args"] == [submission.pk] and options["countdown"] == 20

        grade_code_submission(submission.pk)

    submission.refresh_from_db()
    assert (submission.status, submission.error_code) == ("error", "sandbox_busy")
    assert submission.score is None and submission.results == []
    assert len(sent) == 1
