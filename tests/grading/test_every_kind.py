"""Every registered kind's generated items: the key is well formed and earns full marks, and
each named misconception's answer is accepted, loses points and is diagnosed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from exercises.generation import generate_item
from exercises.kinds import get_kind, kind_names
from exercises.kinds.base import PartType
from exercises.models import Item
from exercises.services import split_points
from grading.answers import validate_answer
from grading.grader import GradingContext, grade_answer
from grading.scoring import score_part

ANSWERED_KINDS = [name for name in kind_names()
                  if get_kind(name).answer_parts(get_kind(name).clean_params({}))]


def informative(value: object) -> bool:
    """Return whether a projected value is known (kinds project what they lack as null)."""
    if isinstance(value, dict):
        return any(entry is not None for entry in value.values())
    return value is not None


def says(value: Any) -> bool:
    """Return whether a projected value says anything (kinds project what they lack as null)."""
    return value is not None


def full_marks(context: GradingContext, part_name: str, given: Any, key: Any) -> bool:
    part = next(part for part in context.parts if part.name == part_name)
    return score_part(part, given, key, set_rule=context.item.params.get(
        "set_scoring", "net_correct")).fraction == 1


def agrees_on(context: GradingContext, part_name: str, given: Any, claim: Any) -> bool | None:
    """Return whether ``given`` earns full marks with a misconception's ``claim`` as the key.

    None when the claim says nothing (null, or node values all null); a null node value is
    left out of the claim. Full marks is the key's own scoring: an optional last-child
    cutoff may be listed or not, and any one of several listed moves is right.
    """
    part = next(part for part in context.parts if part.name == part_name)
    if part.type is PartType.NODE_VALUES and isinstance(claim, dict):
        claim = {node: value for node, value in claim.items() if value is not None}
        if not claim:
            return None
    if not says(claim):
        return None
    return full_marks(context, part_name, given, claim)


def whole_answer_of(context: GradingContext, produced: dict[str, Any],
                    answer: dict[str, Any]) -> bool:
    """Return whether a misconception's answer explains the student's whole answer.

    It agrees with every part it speaks of and speaks of (and so agrees with) every part the
    student got wrong.
    """
    for name, value in answer.items():
        agreed = agrees_on(context, name, value, produced.get(name))
        if agreed is False:
            return False
        if agreed is None and not full_marks(context, name, value, context.expected[name]):
            return False
    return True


def generated_context(kind_name: str, seed: str) -> GradingContext:
    kind = get_kind(kind_name)
    params = kind.clean_params({})
    generated = generate_item(kind_name, params, seed)
    item = Item(kind=kind_name, params=params, points=Decimal(5), position=1,
                part_points=split_points(kind_name, params, Decimal(5)))
    return GradingContext(item, generated.problem, generated.answer_key, generated.trace)


@pytest.mark.parametrize("kind_name", ANSWERED_KINDS)
def test_the_key_is_a_valid_answer_worth_full_marks(kind_name: str) -> None:
    context = generated_context(kind_name, "every-kind")
    validate_answer(context.expected, context.parts, context.problem)
    result = grade_answer(context, context.expected)
    assert result.raw_score == result.max_score == 5
    assert all(part["verdict"] == "correct" for part in result.results)


@pytest.mark.parametrize("kind_name", ANSWERED_KINDS)
def test_each_misconceptions_answer_loses_points_and_is_named(kind_name: str) -> None:
    context = generated_context(kind_name, "every-kind")
    part_names = {part.name for part in context.parts}
    for code, produced in context.misconception_expectations.items():
        answer = {name: value for name, value in produced.items()
                  if name in part_names and informative(value)}
        if answer == {name: context.expected.get(name) for name in answer}:
            continue  # this mistake changes nothing on this problem
        validate_answer(answer, context.parts, context.problem)
        result = grade_answer(context, answer)
        assert result.raw_score < result.max_score, code
        named = {p["misconception"] for p in result.results
                 if p["verdict"] in ("wrong", "partial")} - {None}
        # Two mistakes may give the same answer here; then neither explains it better.
        same_answer = {other for other, values in context.misconception_expectations.items()
                       if whole_answer_of(context, values, answer)}
        assert named == ({code} if same_answer == {code} else set()), (code, same_answer)


def test_an_answer_to_a_code_item_is_sent_to_code_submissions(course, instructor, student,
                                                              db) -> None:
    code_kinds = [name for name in kind_names() if name not in ANSWERED_KINDS]
    if not code_kinds:
        pytest.skip("no code kind is registered")
    from exercises.models import ProblemSet, Variant, VariantItem

    kind = get_kind(code_kinds[0])
    params = kind.clean_params({})
    problem_set = ProblemSet.objects.create(course=course, title="Code", seed="s",
                                            created_by=instructor[0], status="ready")
    item = Item.objects.create(problem_set=problem_set, position=1, kind=code_kinds[0],
                               params=params, points=1)
    variant = Variant.objects.create(problem_set=problem_set, student=student[0], seed="v")
    VariantItem.objects.create(variant=variant, item=item, position=1, seed="x",
                               problem={}, answer_key={})
    response = student[1].post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                               {"answer": {"value": 1}}, format="json")
    assert response.status_code == 400
    assert "code-submissions" in response.json()["error"]["message"]


def test_every_misconception_generated_items_can_show_is_named_somewhere() -> None:
    named: dict[str, set[str]] = {}
    for kind_name in ANSWERED_KINDS:
        for index in range(12):
            context = generated_context(kind_name, f"cover-{index}")
            part_names = {part.name for part in context.parts}
            for code, produced in context.misconception_expectations.items():
                answer = {name: value for name, value in produced.items()
                          if name in part_names and informative(value)}
                if answer == {name: context.expected.get(name) for name in answer}:
                    continue
                result = grade_answer(context, answer)
                named.setdefault(code, set()).update(
                    p["misconception"] for p in result.results if p["misconception"])
    # Default params draw fair coins, no ties and no depth limit, so chance weighting, cuts
    # on equality and depth counting are covered by hand-made trees (test_grader.py).
    assert {code for code, names in named.items() if code in names} >= {
        "alpha_beta_swapped", "alpha_updated_at_min", "beta_updated_at_max", "chance_as_min",
        "cut_too_early", "final_move_by_ucb1", "largest_leaf_branch", "mcts_credit_every_node",
        "no_pruning", "other_ucb1_form", "right_to_left", "root_alpha_not_raised",
        "vector_entrywise_max", "vector_wrong_player_entry",
    }
