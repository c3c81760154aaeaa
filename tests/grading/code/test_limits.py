"""Sandbox limits of code items: the site's settings, then the kind's, then the item's."""

from __future__ import annotations

import pytest
from django.test import override_settings

from exercises.kinds import get_kind
from exercises.kinds.params import ParamError
from grading.code.sandboxing import grading_budget_seconds, limits_for


@override_settings(CUTOFF_SANDBOX_LIMITS={"cpu_seconds": 3, "wall_seconds": 6},
                   CUTOFF_SANDBOX_KIND_LIMITS={"code_tictactoe_agent": {"wall_seconds": 30}})
def test_item_limits_override_the_kinds_which_override_the_sites() -> None:
    assert limits_for("code_alphabeta", {}).cpu_seconds == 3
    assert limits_for("code_tictactoe_agent", {}).wall_seconds == 30
    item = limits_for("code_tictactoe_agent", {"limits": {"wall_seconds": 12}})
    assert (item.cpu_seconds, item.wall_seconds) == (3, 12)


def test_an_unknown_or_negative_limit_is_refused_when_the_item_is_created() -> None:
    kind = get_kind("code_alphabeta")

    with pytest.raises(ParamError, match="unknown sandbox limits"):
        kind.clean_params({"limits": {"cpu_secs": 10}})
    with pytest.raises(ParamError, match="positive"):
        kind.clean_params({"limits": {"cpu_seconds": -1}})
    assert kind.clean_params({"limits": {"cpu_seconds": 10}})["limits"] == {"cpu_seconds": 10}


@override_settings(CELERY_TASK_SOFT_TIME_LIMIT=120, CUTOFF_CODE_BUDGET_SECONDS=300)
def test_all_runs_of_a_submission_end_before_the_tasks_soft_time_limit() -> None:
    assert grading_budget_seconds() == 45


@override_settings(CELERY_TASK_SOFT_TIME_LIMIT=120, CUTOFF_CODE_BUDGET_SECONDS=30)
def test_the_budget_of_a_submission_is_the_sites() -> None:
    assert grading_budget_seconds() == 30


@override_settings(CELERY_TASK_SOFT_TIME_LIMIT=120, CUTOFF_CODE_BUDGET_SECONDS=30)
def test_an_item_cannot_ask_for_a_wall_limit_its_submissions_budget_cuts() -> None:
    kind = get_kind("code_alphabeta")

    with pytest.raises(ParamError) as refused:
        kind.clean_params({"limits": {"wall_seconds": 100}})
    assert refused.value.field == "limits.wall_seconds"
    assert "at most 30" in str(refused.value)
    assert kind.clean_params({"limits": {"wall_seconds": 30}})["limits"] == {"wall_seconds": 30}
