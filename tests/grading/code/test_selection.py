"""The UCB1 selection item: the child chosen, compared with the engine's, mistakes named."""

from __future__ import annotations

import pytest

from grading.code.feedback import render_message
from grading.code.grader import grade_code
from grading.code.selection import selection_cases
from grading.sandbox import SandboxConfig
from tests.grading.code import solutions
from tests.grading.code.conftest import LIMITS


def test_a_correct_selection_passes_every_test(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_ucb1", {}, "seed", solutions.UCB1, limits=LIMITS,
                        config=sandbox_config)

    assert result.fraction == 1, result.tests
    assert result.tests[0]["test"] == "a child never visited"


@pytest.mark.parametrize(("source", "code"), [
    (solutions.UCB1_OTHER_FORM, "other_ucb1_form"),
    (solutions.UCB1_MOST_VISITED, "selected_most_visited"),
])
def test_wrong_selections_are_named(sandbox_config: SandboxConfig, source: str,
                                    code: str) -> None:
    result = grade_code("code_ucb1", {}, "seed", source, limits=LIMITS, config=sandbox_config)

    drawn = result.tests[1:]
    assert {test["verdict"] for test in drawn} == {"wrong"}
    assert all(code in test["misconceptions"] for test in drawn)
    assert result.summary["misconception"]["code"] == code
    assert drawn[0]["messages"][0]["code"] == "selection_differs"
    assert render_message(drawn[0]["messages"][0]).startswith("You selected ")


def test_drawn_statistics_depend_on_the_seed_only() -> None:
    assert [c.args for c in selection_cases("a")] == [c.args for c in selection_cases("a")]
    assert [c.args for c in selection_cases("a")] != [c.args for c in selection_cases("b")]
