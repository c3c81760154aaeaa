"""The MCTS backpropagation item: statistics compared with the engine's, mistakes named."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grading.code.backprop import backprop_cases, reference
from grading.code.contract import starter_source
from grading.code.feedback import render_message
from grading.code.grader import grade_code
from grading.sandbox import SandboxConfig
from tests.grading.code import solutions
from tests.grading.code.conftest import LIMITS


def test_a_correct_backpropagation_passes_every_test(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_mcts_backprop", {}, "seed", solutions.MCTS_BACKPROP,
                        limits=LIMITS, config=sandbox_config)

    assert result.fraction == 1, result.tests
    assert [test["test"] for test in result.tests][:2] == ["a path where MIN wins",
                                                           "a drawn game"]
    assert any("tic-tac-toe" in test["test"] for test in result.tests)
    assert result.summary["misconception"] is None


@pytest.mark.parametrize(("source", "code"), [
    (solutions.MCTS_CREDIT_EVERY_NODE, "mcts_credit_every_node"),
    (solutions.MCTS_CREDIT_WRONG_PLAYER, "mcts_credit_wrong_player"),
])
def test_wrong_credit_is_named(sandbox_config: SandboxConfig, source: str, code: str) -> None:
    result = grade_code("code_mcts_backprop", {}, "seed", source, limits=LIMITS,
                        config=sandbox_config)

    decisive = [test for test in result.tests if test["test"] != "a drawn game"]
    assert {test["verdict"] for test in decisive} == {"wrong"}
    assert all(test["misconceptions"] == [code] for test in decisive)
    assert result.summary["misconception"]["code"] == code
    assert result.summary["misconception"]["explanation"]
    first = decisive[0]["messages"][0]
    assert first["code"] == "backprop_differs"
    assert render_message(first).startswith("The ")


def test_the_first_wrong_node_is_named(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_mcts_backprop", {}, "seed", solutions.MCTS_CREDIT_WRONG_PLAYER,
                        limits=LIMITS, config=sandbox_config)

    # B was entered by MAX, so MIN's win leaves its reward at 3; the mistake credits MIN.
    assert render_message(result.tests[0]["messages"][0]) == (
        "The 1st node on the path, B, has reward 4 and 8 visits in your answer; the reference "
        "gives it reward 3 and 8 visits.")


def test_the_items_draw_reward_is_the_reference(sandbox_config: SandboxConfig) -> None:
    source = solutions.MCTS_BACKPROP.replace("Fraction(1, 2)", "0")
    result = grade_code("code_mcts_backprop", {"draw_reward": "0"}, "seed", source,
                        limits=LIMITS, config=sandbox_config)

    assert result.fraction == 1, result.tests
    assert "by 0 for a draw" in starter_source("code_mcts_backprop", {"draw_reward": "0"})
    assert "by 1/2 for a draw" in starter_source("code_mcts_backprop", {})


def test_drawn_paths_depend_on_the_seed_only() -> None:
    def args(seed: str) -> list[object]:
        return [test.case.args for test in backprop_cases(seed)]

    assert args("a") == args("a")
    assert args("a") != args("b")
    for test in backprop_cases("a"):
        assert len(reference(test, Fraction(1, 2))) == len(test.path)
