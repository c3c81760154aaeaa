"""Hidden-test grading of search code items, with real sandbox runs."""

from __future__ import annotations

import time
from typing import Any
from unittest.mock import Mock

import pytest

from grading.code.feedback import message, render_message
from grading.code.grader import CodeGrade, grade_code
from grading.code.runs import Budget, SandboxFailed
from grading.sandbox import SandboxConfig
from tests.grading.code import solutions
from tests.grading.code.conftest import LIMITS

SEED = "variant-item-seed-1"


def grade(source: str, kind: str = "code_alphabeta", config: SandboxConfig | None = None,
          **params: Any) -> CodeGrade:
    return grade_code(kind, params, SEED, source, limits=LIMITS, config=config)


def test_correct_alphabeta_passes_every_hidden_test(sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.ALPHABETA, config=sandbox_config)

    assert result.fraction == 1
    assert [test["verdict"] for test in result.tests] == ["passed"] * len(result.tests)
    names = [test["test"] for test in result.tests]
    assert names[:2] == ["textbook tree", "three-ply tree"]
    assert any(name.startswith("tic-tac-toe") for name in names)
    assert any(name.startswith("Connect Four") for name in names)
    assert result.summary["misconception"] is None


@pytest.mark.parametrize(("source", "code"), [
    (solutions.NO_CUT_ON_EQUALITY, "no_cut_on_equality"),
    (solutions.ROOT_ALPHA_NOT_RAISED, "root_alpha_not_raised"),
    (solutions.DEPTH_ONE_TOO_DEEP, "depth_one_ply_too_deep"),
    (solutions.DEPTH_ONE_TOO_SHALLOW, "depth_off_by_one"),
    (solutions.PLAIN_MINIMAX, "no_pruning"),
    (solutions.PARTIAL_PLY, "partial_ply"),
    (solutions.LAST_BEST_MOVE, "last_best_move"),
    (solutions.TERMINAL_AFTER_DEPTH, "terminal_tested_after_depth"),
])
def test_typical_mistakes_are_wrong_and_named(sandbox_config: SandboxConfig, source: str,
                                              code: str) -> None:
    result = grade(source, config=sandbox_config)

    assert 0 < result.fraction < 1
    wrong = [test for test in result.tests if test["verdict"] == "wrong"]
    assert wrong
    assert all(code in test["misconceptions"] for test in wrong)
    assert result.summary["misconception"]["code"] == code
    assert result.summary["misconception"]["explanation"]


@pytest.mark.parametrize(("convention", "following_it", "code"), [
    ("cut_on_equality", solutions.NO_CUT_ON_EQUALITY, "cut_on_equality_not_asked"),
    ("root_raises_alpha", solutions.ROOT_ALPHA_NOT_RAISED, "root_alpha_raised_not_asked"),
])
def test_keeping_a_convention_the_item_turns_off_is_named(
        sandbox_config: SandboxConfig, convention: str, following_it: str, code: str) -> None:
    # The textbook search cuts on equality and raises alpha at the root: under an item
    # that states otherwise it is wrong, and was left unnamed.
    assert grade(following_it, config=sandbox_config, **{convention: False}).fraction == 1
    result = grade(solutions.ALPHABETA, config=sandbox_config, **{convention: False})

    wrong = [test for test in result.tests if test["verdict"] == "wrong"]
    assert wrong and all(code in test["misconceptions"] for test in wrong)
    assert result.summary["misconception"]["code"] == code


def test_the_first_divergence_names_both_states(sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.ROOT_ALPHA_NOT_RAISED, config=sandbox_config,
                   test_sets=["fixed_trees"])

    textbook = result.tests[0]
    assert textbook["verdict"] == "wrong"
    first, extra = textbook["messages"][:2]
    assert first == message("evaluated_differs", n=5, yours="B2", reference="C1")
    assert render_message(first) == (
        "Your 5th evaluated state was B2; the reference evaluates C1 there.")
    assert extra == message("generated_extra", states="B2, B3, C2, C3")
    # On these depth-2 trees a search without pruning does exactly the same: naming either
    # mistake would be a guess, so the test names none; the summary, over every test set,
    # names the one the deeper trees tell apart.
    assert textbook["misconceptions"] == ["root_alpha_not_raised", "no_pruning"]
    assert all(m["code"] != "matches_misconception" for m in textbook["messages"])
    assert textbook["checks"]["decision"] is True and textbook["checks"]["value"] is True
    summary = grade(solutions.ROOT_ALPHA_NOT_RAISED, config=sandbox_config).summary
    assert summary["misconception"]["code"] == "root_alpha_not_raised"
    assert render_message(message("matches_misconception",
                                  misconception="root_alpha_not_raised")).startswith(
        "Your search matches a known mistake: You did not narrow the root's window")


@pytest.mark.parametrize(("source", "kind", "test_name"), [
    (solutions.ALPHABETA_BY_DEPTH, "code_alphabeta", "extra-move tree"),
    (solutions.MINIMAX_BY_DEPTH, "code_minimax", "extra-move tree"),
    (solutions.EXPECTIMAX_BY_DEPTH, "code_expectimax", "extra-move chance tree"),
])
def test_a_search_deciding_max_and_min_by_depth_fails_where_a_player_moves_twice(
        sandbox_config: SandboxConfig, source: str, kind: str, test_name: str) -> None:
    result = grade(source, kind=kind, config=sandbox_config, test_sets=["fixed_trees"])

    by_name = {test["test"]: test for test in result.tests}
    assert {name for name, test in by_name.items() if test["verdict"] != "passed"} == {
        test_name}
    # Before, minimax and expectimax items had no such tree and gave this full marks, and
    # alpha-beta named "root alpha not raised", which agrees with it only where both depart
    # from the correct search: a named mistake must explain the whole search.
    assert by_name[test_name]["misconceptions"] == []
    assert all(m["code"] != "matches_misconception" for m in by_name[test_name]["messages"])


def test_a_mistake_is_named_where_it_explains_a_value_only_search(
        sandbox_config: SandboxConfig) -> None:
    # On this seed's second tree the unweighted average would also choose another root
    # move; a value-only item's search returns no move, so that must not hide the match.
    result = grade_code("code_expectimax", {}, "audit-seed-1", solutions.EXPECTIMAX_UNWEIGHTED,
                        limits=LIMITS, config=sandbox_config)

    wrong = [test for test in result.tests if test["verdict"] == "wrong"]
    assert wrong and all(test["misconceptions"] == ["chance_unweighted_average"]
                         for test in wrong)


def test_a_move_the_game_never_offered_is_illegal(sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.LYING, config=sandbox_config)

    assert result.fraction == 0
    assert {test["verdict"] for test in result.tests} == {"illegal_operation"}
    assert result.tests[0]["messages"] == [message("move_not_offered", move="A")]


def test_a_runtime_error_shows_only_the_students_traceback(
        sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.CRASHING, config=sandbox_config, test_sets=["fixed_trees"])

    test = result.tests[0]
    assert test["verdict"] == "runtime_error"
    assert test["traceback"] == (
        "Traceback (most recent call last):\n"
        '  File "solution.py", line 7, in alphabeta_decision\n'
        "    return first_move(game, state), 0\n"
        '  File "solution.py", line 3, in first_move\n'
        "    return game.actions(state)[99]\n"
        "IndexError: list index out of range\n"
    )
    assert "bootstrap" not in test["traceback"] and "/sandbox" not in test["traceback"]


def test_an_endless_loop_is_a_time_limit(sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.LOOPING, config=sandbox_config, test_sets=["fixed_trees"])

    assert [test["verdict"] for test in result.tests] == ["time_limit"] * 3
    assert result.fraction == 0


@pytest.mark.parametrize(("source", "verdict"), [
    (solutions.PRINTING, "output_limit"),
    (solutions.HOARDING, "memory_limit"),
])
def test_resource_limits_are_verdicts_of_their_own(sandbox_config: SandboxConfig, source: str,
                                                   verdict: str) -> None:
    result = grade(source, config=sandbox_config, test_sets=["fixed_trees"])

    assert [test["verdict"] for test in result.tests] == [verdict] * 3
    assert result.fraction == 0


def test_tests_left_without_time_are_not_run(sandbox_config: SandboxConfig) -> None:
    result = grade_code("code_alphabeta", {}, SEED, solutions.LOOPING, limits=LIMITS,
                        budget_seconds=2, config=sandbox_config)

    assert {test["verdict"] for test in result.tests} == {"time_limit"}
    assert [render_message(m) for m in result.tests[-1]["messages"]] == [
        "Not run: your submission used up the 2 s all its tests may take together."]


def test_a_test_cut_short_by_the_budget_says_so_not_that_its_limit_was_shorter(
        sandbox_config: SandboxConfig) -> None:
    sleeper = "import time\n\ndef alphabeta_decision(game, state, depth):\n    time.sleep(600)\n"
    # The batched run ends at the 4 s wall limit; the first test's re-run has 2 s left.
    result = grade_code("code_alphabeta", {}, SEED, sleeper, limits=LIMITS, budget_seconds=6,
                        config=sandbox_config)

    first, *rest = result.tests
    assert [render_message(m) for m in first["messages"]] == [
        "Your code was stopped when your submission used up the 6 s all its tests may take "
        "together."]
    assert first["verdict"] == "time_limit"
    assert {render_message(m) for test in rest for m in test["messages"]} == {
        "Not run: your submission used up the 6 s all its tests may take together."}


def test_a_submission_whose_runs_the_host_kept_waiting_is_not_graded() -> None:
    budget = Budget.of(30)
    # Twice the budget went by (in a test: made to), two thirds of it waiting for a CPU.
    budget.real_deadline = time.monotonic()
    budget.started = budget.real_deadline - 60
    budget.waited = 40

    with pytest.raises(SandboxFailed) as failed:
        budget.allowance()
    assert failed.value.ending == "host_busy"
    # Had they waited little, the grader answering their calls took it: the student's time.
    budget.waited = 1
    assert budget.allowance() is None


def test_item_conventions_change_the_reference(sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.NO_CUT_ON_EQUALITY, config=sandbox_config,
                   test_sets=["fixed_trees"], cut_on_equality=False)

    assert result.fraction == 1


def test_hidden_trees_differ_between_students_but_not_between_runs() -> None:
    from grading.code.cases import search_cases

    mine = search_cases("code_alphabeta", {"test_sets": ["generated_trees"]}, "seed-a")
    again = search_cases("code_alphabeta", {"test_sets": ["generated_trees"]}, "seed-a")
    theirs = search_cases("code_alphabeta", {"test_sets": ["generated_trees"]}, "seed-b")

    assert [case.tree for case in mine] == [case.tree for case in again]
    assert [case.tree for case in mine] != [case.tree for case in theirs]


def test_minimax_item(sandbox_config: SandboxConfig) -> None:
    result = grade(solutions.MINIMAX, kind="code_minimax", config=sandbox_config)

    assert result.fraction == 1, result.tests


def test_expectimax_item_names_an_unweighted_average(sandbox_config: SandboxConfig) -> None:
    right = grade(solutions.EXPECTIMAX, kind="code_expectimax", config=sandbox_config)
    unweighted = grade(solutions.EXPECTIMAX_UNWEIGHTED, kind="code_expectimax",
                       config=sandbox_config)

    assert right.fraction == 1, right.tests
    assert unweighted.fraction < 1
    assert unweighted.summary["misconception"]["code"] == "chance_unweighted_average"


def test_partial_ply_is_told_apart_from_a_shallow_search(sandbox_config: SandboxConfig
                                                         ) -> None:
    from grading.code.reference import explain

    partial = grade(solutions.PARTIAL_PLY, config=sandbox_config, test_sets=["fixed_trees"])
    shallow = grade(solutions.DEPTH_ONE_TOO_SHALLOW, config=sandbox_config,
                    test_sets=["fixed_trees"])

    extra_move = partial.tests[2]
    assert extra_move["test"] == "extra-move tree"
    assert extra_move["misconceptions"] == ["partial_ply"]
    assert extra_move["messages"][-1] == message("matches_misconception",
                                                 misconception="partial_ply")
    assert "opponent's reply" in render_message(extra_move["messages"][-1])
    assert "opponent's reply" in explain("partial_ply")
    from django.utils import translation

    for language in ("pt", "ca"):
        with translation.override(language):
            assert "opponent" not in explain("partial_ply"), language
    assert "partial_ply" not in shallow.tests[2]["misconceptions"]
    assert shallow.summary["misconception"]["code"] == "depth_off_by_one"


# --- fixes: code feedback in the reader's language -------------------------------------


@pytest.mark.parametrize(("language", "expected"), [
    ("en", "Your 5th evaluated state was B2; the reference evaluates C1 there."),
    ("pt", "O seu 5.º estado avaliado foi B2; a referência avalia aí C1."),
    ("ca", "El vostre 5è estat avaluat va ser B2; la referència hi avalua C1."),
])
def test_code_messages_are_rendered_in_the_readers_language(language: str, expected: str
                                                            ) -> None:
    from django.utils import translation

    with translation.override(language):
        assert render_message(message("evaluated_differs", n=5, yours="B2",
                                      reference="C1")) == expected


def test_every_way_a_run_ends_has_a_message_for_students() -> None:
    from grading.code.feedback import MESSAGES
    from grading.sandbox.record import RUN_ENDINGS

    assert {f"run_{ending}" for ending in RUN_ENDINGS} <= set(MESSAGES)


@pytest.mark.parametrize(("language", "expected"), [
    ("en", "Your code used more than its 2 s of CPU time."),
    ("pt", "O seu código usou mais do que os seus 2 s de tempo de CPU."),
    ("ca", "El vostre codi ha fet servir més dels seus 2 s de temps de CPU."),
])
def test_how_a_run_ended_is_told_in_the_readers_language(language: str, expected: str) -> None:
    from django.utils import translation

    from grading.code.runs import Outcome
    from grading.sandbox.record import RUN_ENDINGS

    record = Mock(verdict="time_limit", ending="cpu_limit", ending_params=(("seconds", 2),),
                  traceback=None, return_value=None)
    outcome = Outcome.of(record)
    assert outcome.message == message("run_cpu_limit", seconds=2)
    assert RUN_ENDINGS["cpu_limit"].format(seconds=2) == "CPU limit of 2 s exceeded"
    with translation.override(language):
        assert render_message(outcome.message) == expected


@pytest.mark.parametrize("language", ["pt", "ca"])
def test_code_misconceptions_and_verdicts_are_translated(language: str) -> None:
    from django.utils import translation

    from grading.code.feedback import MESSAGES, VERDICT_LABELS, render_tests
    from grading.code.grader import summarise
    from grading.wording import template_text

    counted = {"count": 2}  # the count the worded-by-number messages are read for

    report = {"test": "t", "verdict": "time_limit", "score": 0.0, "max_score": 1.0,
              "messages": [message("matches_misconception", misconception="no_pruning")],
              "misconceptions": ["no_pruning"]}
    with translation.override("en"):
        english = render_tests([report], verdict_labels=True)[0]
        english_summary = summarise([report])["misconception"]["explanation"]
        english_messages = {code: template_text(text, counted) for code, text in MESSAGES.items()}
    with translation.override(language):
        shown = render_tests([report], verdict_labels=True)[0]
        summary = summarise([report])["misconception"]["explanation"]
        assert all(template_text(text, counted) != english_messages[code]
                   for code, text in MESSAGES.items() if code != "run_ended"), language
        assert all(str(label) != key for key, label in VERDICT_LABELS.items())
    assert english["verdict_label"] == "time limit exceeded"
    assert shown["verdict_label"] not in ("time_limit", "time limit exceeded")
    assert shown["verdict"] == "time_limit"  # the stored code does not change
    assert "evaluated every leaf" in english["messages"][0]["text"]
    assert "every leaf" not in shown["messages"][0]["text"]
    assert summary != english_summary and "every leaf" not in summary
