"""Fixtures for code grading: a working sandbox, or a skip (a failure under CI=true)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from grading.sandbox import SandboxConfig, SandboxLimits, SandboxUnavailable, check_host
from tests.conftest import require

TEST_BASE = Path(f"/tmp/cutoff-code-tests-{os.getpid()}")
LIMITS = SandboxLimits(cpu_seconds=2, wall_seconds=4.0)
"""Tight limits so looping solutions end quickly."""


@pytest.fixture(scope="session")
def sandbox_config() -> Iterator[SandboxConfig]:
    """Return a sandbox config whose runs live in a directory of this test session."""
    config = SandboxConfig(base_dir=TEST_BASE)
    try:
        check_host(config)
    except SandboxUnavailable as error:
        require(False, str(error))
    require(os.geteuid() == 0, "the sandbox switches to an unprivileged uid and needs root")
    yield config
    shutil.rmtree(TEST_BASE, ignore_errors=True)
