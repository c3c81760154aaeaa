"""Fixtures for code grading: a working sandbox, or a skip (a failure under CI=true)."""

from __future__ import annotations

import os
import shutil
import zlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from exercises.generation import generate_item, item_seed, variant_seed
from exercises.kinds import get_kind
from exercises.models import Item, ProblemSet, Variant, VariantItem
from grading.code.tasks import run_code_submission
from grading.sandbox import SandboxConfig, SandboxLimits, SandboxUnavailable, check_host
from tests.conftest import require

TEST_BASE = Path(f"/tmp/cutoff-code-tests-{os.getpid()}")
LIMITS = SandboxLimits(cpu_seconds=2, wall_seconds=4.0)
"""Tight limits so looping solutions end quickly."""


@pytest.fixture(scope="session")
def sandbox_config() -> Iterator[SandboxConfig]:
    """Return a sandbox config whose runs live in a directory of this test session."""
    # This test run's own uids (config/settings/test.py), as the e2e worker's.
    config = SandboxConfig(base_dir=TEST_BASE, uid=settings.CUTOFF_SANDBOX_UID,
                           gid=settings.CUTOFF_SANDBOX_UID,
                           uid_count=settings.CUTOFF_SANDBOX_UID_COUNT)
    try:
        check_host(config)
    except SandboxUnavailable as error:
        require(False, str(error))
    require(os.geteuid() == 0, "the sandbox switches to an unprivileged uid and needs root")
    yield config
    shutil.rmtree(TEST_BASE, ignore_errors=True)


def seed_id(student: Any) -> int:
    """Return the number that stands for ``student`` in its variant's seeds: one drawn from
    the username, since the row id PostgreSQL gives depends on the tests that ran before (a
    test's hidden trees, and what they can tell apart, changed with the suite's order)."""
    return zlib.crc32(student.username.encode())


def code_assignment(course: Any, instructor: Any, student: Any, kind: str,
                    params: dict[str, Any] | None = None, points: str = "3",
                    seed_student: int | None = None, **settings: Any) -> Variant:
    """Return ``student``'s variant of a ready set whose item 1 is a generated code item,
    its seeds those of ``seed_student`` (default :func:`seed_id`), whatever the row ids."""
    seed_student = seed_id(student) if seed_student is None else seed_student
    problem_set = ProblemSet.objects.create(
        course=course, title="Code", seed="code-set", created_by=instructor,
        status=ProblemSet.Status.READY, **settings,
    )
    cleaned = get_kind(kind).clean_params(params or {})
    item = Item.objects.create(problem_set=problem_set, position=1, kind=kind, params=cleaned,
                               points=Decimal(points))
    variant = Variant.objects.create(problem_set=problem_set, student=student,
                                     seed=variant_seed(problem_set.seed, seed_student))
    seed = item_seed(problem_set.seed, seed_student, 1)
    generated = generate_item(kind, cleaned, seed)
    VariantItem.objects.create(
        variant=variant, item=item, position=1, seed=seed, problem=generated.problem,
        prompt=generated.prompt, answer_key=generated.answer_key, trace=generated.trace,
        engine_version=generated.engine_version,
    )
    return variant


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record the code tasks published instead of sending them to a broker."""
    published: list[dict[str, Any]] = []
    monkeypatch.setattr(run_code_submission, "apply_async",
                        lambda **options: published.append(options))
    return published


@pytest.fixture
def alphabeta_code(course: Any, instructor: Any, student: Any) -> Variant:
    """Return the student's variant of a set with one 3-point alpha-beta code item."""
    return code_assignment(course, instructor[0], student[0], "code_alphabeta")
