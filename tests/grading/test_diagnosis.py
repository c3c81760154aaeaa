"""A misconception is named only when its own answer explains the student's whole answer.

The rule (grading/README.md, "Which misconception is named"): the misconception agrees with
every part the student got right and reproduces more than half of the wrong ones; the one
reproducing most wins and a tie names none.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from exercises.kinds import get_kind
from grading.feedback import render_results
from grading.grader import GradingContext, grade_answer
from tests.grading.conftest import ALPHABETA_PROBLEM, MINIMAX_PROBLEM
from tests.grading.test_every_kind import full_marks, generated_context, says, whole_answer_of
from tests.grading.test_grader import by_part, context_for

DIAGNOSED_KINDS = ["alphabeta", "expectiminimax", "expectimax", "minimax", "vector", "ucb1",
                   "mcts_backprop", "price_war"]
SEEDS = [f"diagnosis-{index}" for index in range(8)]


def named(result: Any) -> set[str]:
    return {part["misconception"] for part in result.results} - {None}


def contexts() -> list[tuple[str, GradingContext]]:
    found = []
    for kind_name in DIAGNOSED_KINDS:
        for seed in SEEDS:
            context = generated_context(kind_name, seed)
            if context.misconception_expectations:
                found.append((kind_name, context))
    return found


CONTEXTS = contexts()


def test_every_kind_with_misconceptions_is_exercised() -> None:
    assert {kind_name for kind_name, _ in CONTEXTS} == set(DIAGNOSED_KINDS)


def test_a_misconceptions_own_answer_is_diagnosed_as_that_misconception() -> None:
    checked = 0
    for kind_name, context in CONTEXTS:
        produced_by = context.misconception_expectations
        for code, produced in produced_by.items():
            answer = {part.name: produced[part.name] for part in context.parts
                      if says(produced.get(part.name))}
            if all(full_marks(context, name, value, context.expected[name])
                   for name, value in answer.items()):
                continue  # this mistake changes nothing on this problem
            twins = {other for other, values in produced_by.items()
                     if other != code and whole_answer_of(context, values, answer)}
            result = grade_answer(context, answer)
            assert named(result) == (set() if twins else {code}), (kind_name, code, twins)
            checked += 1
    assert checked


def test_the_key_with_one_part_changed_names_only_a_misconception_giving_exactly_that() -> None:
    checked = 0
    for kind_name, context in CONTEXTS:
        produced_by = context.misconception_expectations
        for part in context.parts:
            key = context.expected[part.name]
            changed = [values[part.name] for values in produced_by.values()
                       if says(values.get(part.name))]
            for value in changed:
                if full_marks(context, part.name, value, key):
                    continue
                answer = {**context.expected, part.name: value}
                whole = {code for code, values in produced_by.items()
                         if whole_answer_of(context, values, answer)}
                result = grade_answer(context, answer)
                assert named(result) == (whole if len(whole) == 1 else set()), (
                    kind_name, part.name, value, whole)
                checked += 1
    assert checked


def test_a_named_misconception_agrees_with_every_right_part_and_most_wrong_ones() -> None:
    rng = random.Random("mixed answers")
    checked = 0
    for kind_name, context in CONTEXTS:
        sources = [context.expected, *context.misconception_expectations.values()]
        for _ in range(6):
            # Each part from the key or from some misconception: answers no single rule gives.
            answer = {}
            for part in context.parts:
                value = rng.choice(sources).get(part.name)
                if says(value):
                    answer[part.name] = copy.deepcopy(value)
            result = grade_answer(context, answer)
            verdicts = {part["part"]: part["verdict"] for part in result.results}
            right = [name for name in answer if verdicts[name] == "correct"]
            wrong = [name for name in answer if verdicts[name] != "correct"]
            for code in named(result):
                produced = context.misconception_expectations[code]
                for name in right:
                    assert not says(produced.get(name)) or full_marks(
                        context, name, answer[name], produced[name]), (kind_name, code, name)
                explained = [part["part"] for part in result.results
                             if part["misconception"] == code]
                assert set(explained) <= set(wrong)
                assert 2 * len(explained) > len(wrong), (kind_name, code, explained, wrong)
                checked += 1
    assert checked


@pytest.mark.parametrize("kind_name", ["alphabeta", "minimax", "expectiminimax", "vector",
                                       "ucb1"])
def test_every_wrong_option_names_the_one_misconception_that_gives_it(kind_name: str) -> None:
    from decimal import Decimal

    from exercises.generation import generate_item
    from exercises.models import Item
    from exercises.services import split_points

    kind = get_kind(kind_name)
    params = kind.clean_params({"answer_format": "multiple_choice"})
    item = Item(kind=kind_name, params=params, points=Decimal(5), position=1,
                part_points=split_points(kind_name, params, Decimal(5)))
    for seed in SEEDS[:4]:
        generated = generate_item(kind_name, params, seed)
        context = GradingContext(item, generated.problem, generated.answer_key, generated.trace)
        for option, code in generated.trace["option_misconceptions"].items():
            result = grade_answer(context, {"choice": option})
            assert result.results[0]["misconception"] == code, (kind_name, seed, option)
            # Options naming no misconception are the key and, when misconceptions give too
            # few distinct values, fillers (shared values, near misses): wrong, undiagnosed.
            assert (result.results[0]["verdict"] == "correct") == (
                option == generated.trace["correct_option"])


# --- the cases, by hand -----------------------------------------------------------


def test_only_the_decision_wrong_is_not_blamed_on_cutting_too_early() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    assert context.misconception_expectations["cut_too_early"]["move"] == "D"
    parts = by_part(grade_answer(context, {**context.expected, "move": "D"}))
    assert parts["move"]["verdict"] == "wrong"
    assert {part["misconception"] for part in parts.values()} == {None}
    assert parts["move"]["messages"] == [{"code": "name_wrong", "params": {"given": "D"}}]


# Worked by hand: root A raises nothing and lowers beta to B=3; C is entered with (-inf, 3),
# returns 2, and A's best 3 >= beta 2 cuts D.
BETA_LOWERED_AT_MAX = {
    "value": 3, "move": "B", "evaluated_count": 6, "pruned_leaves": ["D1", "D2", "D3"],
    "cutoffs": [{"node": "A", "pruned": ["D"]}],
    "windows": {"C": {"alpha": "-inf", "beta": 3}},
}


def test_lowering_beta_at_a_max_node_is_named_as_such_not_as_cutting_too_early() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    parts = by_part(grade_answer(context, BETA_LOWERED_AT_MAX))
    wrong = {name for name, part in parts.items() if part["verdict"] != "correct"}
    assert wrong == {"evaluated_count", "pruned_leaves", "cutoffs", "windows"}
    assert {parts[name]["misconception"] for name in wrong} == {"beta_updated_at_max"}
    assert {parts[name]["misconception"] for name in ("value", "move")} == {None}


def test_raising_alpha_at_a_min_node_is_named() -> None:
    # Worked by hand: B1=3 raises alpha to 3 and B2 leaves B's best 3 <= 3, so B3 is cut;
    # C is cut after C1 as it should; D1=14 raises alpha to 14 and D2=5 <= 14 cuts D3, so D
    # returns 5 and becomes the move.
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    answer = {"value": 5, "move": "D", "evaluated_count": 5,
              "pruned_leaves": ["B3", "C2", "C3", "D3"],
              "cutoffs": [{"node": "B", "pruned": ["B3"]}, {"node": "C", "pruned": ["C2", "C3"]},
                          {"node": "D", "pruned": ["D3"]}],
              "windows": {"C": {"alpha": 3, "beta": "inf"}}}
    parts = by_part(grade_answer(context, answer))
    assert parts["windows"]["verdict"] == "correct"
    assert {part["misconception"] for name, part in parts.items() if name != "windows"} == {
        "alpha_updated_at_min"}


AVERAGING_PROBLEM = copy.deepcopy(MINIMAX_PROBLEM)
AVERAGING_PROBLEM["tree"]["children"][0]["children"][1]["value"] = 4  # B: 3, 4, 8
AVERAGING_PROBLEM["tree"]["children"][2]["children"][2]["value"] = 1  # D: 14, 5, 1


def test_averaging_at_min_nodes_is_not_called_picking_the_largest_leaf() -> None:
    context = context_for("minimax", AVERAGING_PROBLEM)
    assert context.expected == {"value": 3, "move": "B", "node_values": {"B": 3, "C": 2}}
    assert context.misconception_expectations["largest_leaf_branch"]["move"] == "D"
    # Averages: B = 5, C = 4, D = 20/3: the same move as the largest leaf, nothing else.
    parts = by_part(grade_answer(context, {"value": "20/3", "move": "D",
                                           "node_values": {"B": 5, "C": 4}}))
    assert all(part["verdict"] == "wrong" for part in parts.values())
    assert {part["misconception"] for part in parts.values()} == {None}


def test_swapped_windows_with_wrong_pruning_are_not_told_the_pruning_was_right() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    answer = {**context.expected, "pruned_leaves": ["C3"],
              "windows": {"C": {"alpha": "inf", "beta": 3}}}
    parts = by_part(grade_answer(context, answer))
    assert parts["pruned_leaves"]["verdict"] == "partial"
    assert {part["misconception"] for part in parts.values()} == {None}
    # With the pruning right it is named, and its text claims nothing about the pruning.
    parts = by_part(grade_answer(context, {**answer, "pruned_leaves": ["C2", "C3"]}))
    assert parts["windows"]["misconception"] == "alpha_beta_swapped"
    text = render_results([parts["windows"]], labels={}, show_expected=False)[0][
        "misconception_text"]
    assert text == "You wrote alpha where beta belongs and beta where alpha does."


def test_a_misconception_is_shown_only_on_the_parts_it_reproduces() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    # beta_updated_at_max's answer, with the windows also wrong in another way.
    answer = {**BETA_LOWERED_AT_MAX, "windows": {"C": {"alpha": 1, "beta": 1}}}
    parts = by_part(grade_answer(context, answer))
    assert parts["windows"]["verdict"] == "wrong" and parts["windows"]["misconception"] is None
    assert parts["cutoffs"]["misconception"] == "beta_updated_at_max"


def test_a_misconception_answer_that_cannot_be_compared_leaves_the_grade_undiagnosed() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    broken = {**context.expected, "cutoffs": [{"x": 1}]}  # agrees until the cutoffs
    context.__dict__["misconception_expectations"] = {"cut_too_early": broken}
    result = grade_answer(context, {**context.expected, "pruned_leaves": ["C3"]})
    assert {part["misconception"] for part in result.results} == {None}
    assert result.raw_score < result.max_score


# --- through the service the Celery task runs -----------------------------------------------


@pytest.mark.parametrize(("answer_change", "misconceptions"), [
    ({"move": "D"}, {"move": None}),
    (BETA_LOWERED_AT_MAX, {"value": None, "move": None, "evaluated_count": "beta_updated_at_max",
                           "pruned_leaves": "beta_updated_at_max",
                           "cutoffs": "beta_updated_at_max",
                           "windows": "beta_updated_at_max"}),
])
def test_graded_submissions_carry_the_diagnosis(
    course: Any, instructor: Any, student: Any, answer_change: dict[str, Any],
    misconceptions: dict[str, str | None],
) -> None:
    from exercises.models import VariantItem
    from grading.models import Submission
    from grading.services import grade_submission, submit_answer
    from tests.grading.conftest import give_variant, make_problem_set

    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")])
    variant = give_variant(problem_set, student[0], [ALPHABETA_PROBLEM])
    key = VariantItem.objects.get(variant=variant).answer_key
    submission, _ = submit_answer(student=student[0], variant_id=variant.pk, position=1,
                                  answer={**key, **answer_change})
    graded = grade_submission(submission.pk)
    assert graded is not None and graded.status == Submission.Status.GRADED
    found = {part["part"]: part["misconception"] for part in graded.results}
    assert {name: found[name] for name in misconceptions} == misconceptions
    assert set(found.values()) <= set(misconceptions.values())
