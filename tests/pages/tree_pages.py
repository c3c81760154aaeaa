"""Helpers of the tree-view page tests: deep trees, artefacts, and boxes measured in Chromium."""

from __future__ import annotations

import os
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from tests.pages.conftest import publish_now

DEEP_PARAMS = {  # the tree: depth 4, branching 3, 81 leaves, 4,648 px wide
    "depth": 4, "min_branching": 3, "max_branching": 3, "max_leaves": 81,
    "min_value": 0, "max_value": 99, "min_cuts": 1,
}
DEPTH3_PARAMS = {
    "depth": 3, "min_branching": 3, "max_branching": 3, "max_leaves": 27,
    "min_value": 0, "max_value": 40, "min_cuts": 1,
}


def artefacts_dir() -> Path:
    """Return the directory screenshots are kept in (``CUTOFF_TEST_ARTIFACTS``)."""
    directory = Path(os.environ.get("CUTOFF_TEST_ARTIFACTS")
                     or Path(settings.BASE_DIR) / "var" / "test-artifacts")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def keep_screenshot(page: Any, name: str, *, full_page: bool = True) -> None:
    """Save a screenshot of ``page`` as a test artefact ``<name>.png``."""
    page.screenshot(path=str(artefacts_dir() / f"{name}.png"), full_page=full_page)


def tree_set(instructor: Any, course: Any, params: dict[str, Any], *, items: int = 1,
             past_due: bool = False, **settings_: Any) -> Any:
    """Publish an alpha-beta set of ``items`` items with ``params``; due yesterday if asked."""
    from exercises.models import ProblemSet
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor, course=course, title="Deep trees", seed="tree-view",
        items=[{"kind": "alphabeta", "params": params, "points": Decimal(4)}] * items,
        **settings_,
    ))
    if past_due:
        ProblemSet.objects.filter(pk=problem_set.pk).update(
            due_at=timezone.now() - timedelta(days=1))
        problem_set.refresh_from_db()
    return problem_set


def horizontal_overflow(page: Any) -> int:
    """Return by how many CSS pixels the page scrolls sideways (0: it does not)."""
    return int(page.evaluate(
        "() => document.scrollingElement.scrollWidth - document.documentElement.clientWidth"))
