"""Agent tests: exhaustive tic-tac-toe and a seeded Connect Four series, in the real sandbox."""

from __future__ import annotations

import pytest

from grading.code.feedback import message, render_message
from grading.code.grader import grade_code
from grading.sandbox import SandboxConfig, SandboxLimits
from tests.grading.code import solutions

AGENT_LIMITS = SandboxLimits(cpu_seconds=10, wall_seconds=30.0)
"""A perfect agent solves tic-tac-toe once per batch over the proxy: seconds, not minutes."""


@pytest.mark.slow
def test_a_perfect_tictactoe_agent_never_loses(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_tictactoe_agent", {}, "seed", solutions.PERFECT_TICTACTOE,
                        limits=AGENT_LIMITS, config=sandbox_config)

    assert result.fraction == 1
    assert [test["verdict"] for test in result.tests] == ["passed", "passed"]
    assert result.tests[1]["messages"][0]["code"] == "never_lost"


def test_a_losing_tictactoe_agent_is_caught_with_the_line(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_tictactoe_agent", {}, "seed", solutions.FIRST_SQUARE_TICTACTOE,
                        limits=AGENT_LIMITS, config=sandbox_config)

    assert result.fraction == 0
    as_x, as_o = result.tests
    assert as_x["verdict"] == as_o["verdict"] == "wrong"
    assert as_x["messages"] == [message("agent_lost", moves="0, 1, 2, 4, 3, 7",
                                        board="XOX/XO_/_O_")]
    assert render_message(as_x["messages"][0]) == (
        "Your agent loses the game 0, 1, 2, 4, 3, 7 (squares 0-8, row by row), ending "
        "XOX/XO_/_O_.")


def test_an_agent_crash_shows_only_the_students_frames(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_tictactoe_agent", {}, "seed", solutions.CRASHING_AGENT,
                        limits=AGENT_LIMITS, config=sandbox_config)

    test = result.tests[0]
    assert test["verdict"] == "runtime_error"
    assert test["traceback"] == (
        "Traceback (most recent call last):\n"
        '  File "solution.py", line 4, in choose_move\n'
        "    return moves[len(moves)]\n"
        "IndexError: list index out of range\n"
    )


def test_an_agent_failing_only_as_o_keeps_its_result_as_x(sandbox_config: SandboxConfig) -> None:
    source = ("def choose_move(game, state):\n    if game.to_move(state) == 'O':\n"
              "        raise ValueError('playing O')\n    return game.actions(state)[0]\n")
    result = grade_code("code_tictactoe_agent", {}, "seed", source, limits=AGENT_LIMITS,
                        config=sandbox_config)

    as_x, as_o = result.tests
    # One run asked for both sides' first moves; the O positions alone make it fail.
    assert as_x["verdict"] == "wrong"
    assert as_x["messages"] == [message("agent_lost", moves="0, 1, 2, 4, 3, 7",
                                        board="XOX/XO_/_O_")]
    assert as_o["verdict"] == "runtime_error"
    assert as_o["messages"] == [message("run_raised", exception="ValueError")]


def test_a_series_game_that_fails_ends_alone(sandbox_config: SandboxConfig) -> None:
    source = solutions.GREEDY_CONNECT4.replace(
        "    me = game.to_move(state)\n",
        "    me = game.to_move(state)\n    if me == 'O':\n        raise ValueError('playing O')\n")
    result = grade_code("code_connect4_agent", {}, "seed", source, limits=AGENT_LIMITS,
                        config=sandbox_config)

    versus_random, versus_searcher = result.tests
    # As X the agent beats the random player (as the greedy agent does); its games as O end
    # at its first move there, and score nothing.
    assert versus_random["score"] == 0.5 and versus_random["verdict"] == "runtime_error"
    won, stopped, raised = versus_random["messages"]
    assert won["code"] == "series_won" and won["params"]["side"] == "X"
    assert stopped["code"] == "series_stopped" and stopped["params"]["side"] == "O"
    assert len(stopped["params"]["moves"]) == 1
    assert raised == message("run_raised", exception="ValueError")
    assert "ValueError: playing O" in versus_random["traceback"]
    assert [m["code"] for m in versus_searcher["messages"]][1:] == ["series_stopped",
                                                                    "run_raised"]
    assert versus_searcher["score"] in (0, 0.5)


def test_an_agent_playing_a_move_it_was_not_offered_is_illegal(
        sandbox_config: SandboxConfig) -> None:
    source = "def choose_move(game, state):\n    return 4\n"
    result = grade_code("code_tictactoe_agent", {}, "seed", source, limits=AGENT_LIMITS,
                        config=sandbox_config)

    assert {test["verdict"] for test in result.tests} == {"illegal_operation"}


def test_connect4_series_is_scored_by_results_and_reproducible(
        sandbox_config: SandboxConfig) -> None:
    first = grade_code("code_connect4_agent", {}, "seed", solutions.GREEDY_CONNECT4,
                       limits=AGENT_LIMITS, config=sandbox_config)
    again = grade_code("code_connect4_agent", {}, "seed", solutions.GREEDY_CONNECT4,
                       limits=AGENT_LIMITS, config=sandbox_config)

    assert [test["test"] for test in first.tests] == [
        "Connect Four vs random player", "Connect Four vs depth-2 searcher"]
    assert first.tests == again.tests
    versus_random = first.tests[0]
    assert versus_random["verdict"] == "passed" and versus_random["score"] == 1
    assert [m["code"] for m in versus_random["messages"]] == ["series_won", "series_won"]
    assert 0 < first.fraction <= 1


def test_a_series_that_outlasts_the_budget_ends_in_a_time_limit(
        sandbox_config: SandboxConfig) -> None:
    source = ("import time\n\n\ndef choose_move(game, state):\n    time.sleep(0.5)\n"
              "    return game.actions(state)[0]\n")
    result = grade_code("code_connect4_agent", {}, "seed", source, limits=AGENT_LIMITS,
                        budget_seconds=1.0, config=sandbox_config)

    assert [test["verdict"] for test in result.tests] == ["time_limit", "time_limit"]
    assert result.fraction == 0
