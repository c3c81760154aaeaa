"""Hypothesis-generated problems into the engine and answers into the graders.

The engine may answer or raise ProblemError naming what is wrong, nothing else; a grader may
refuse an answer with AnswerFormatError (a 400 naming the part and rule) or grade it within
[0, max], nothing else. Inputs range from arbitrary JSON to near-valid trees and answers built
from the real problem's node names and key, where the deep code paths are.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.errors import ProblemError
from engine.solve import SOLVERS, solve
from exercises.generation import generate_item
from exercises.kinds import get_kind, kind_names
from exercises.models import Item
from exercises.services import split_points
from grading.answers import AnswerFormatError, validate_answer
from grading.grader import GradingContext, grade_answer

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
VERDICTS = {"correct", "partial", "wrong", "missing"}

numbers = st.one_of(
    st.integers(-10, 10), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["1/2", "-3/4", "inf", "-inf", "nan", "1e400", "9e308", "1e5000",
                     "1e999999999", "0/0", "x", ""]),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
)
json_scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=8))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12,
)
rarely = st.integers(0, 7).map(lambda n: n == 0)
node_types = st.sampled_from(["max", "min", "chance"])
odd_node_types = st.sampled_from(["MAX", "", "player", "leaf", 3, None])


@st.composite
def trees(draw: Any, path: str = "N") -> dict[str, Any]:
    """Draw a near-valid game tree: mostly the right shape, with wrong bits here and there.

    Names are unique (taken from the path) unless a rare draw spoils one, so that most trees
    get past parsing into the searches.
    """
    node: dict[str, Any] = {"name": draw(json_scalars) if draw(rarely) else path}
    if len(path) > 3 or draw(st.booleans()):
        node["value"] = draw(st.one_of(numbers, json_values) if draw(rarely)
                             else st.one_of(st.integers(-9, 9), numbers))
        return node
    node["type"] = draw(odd_node_types if draw(rarely) else node_types)
    width = draw(st.integers(0 if draw(rarely) else 1, 3))
    node["children"] = [draw(trees(f"{path}{index}")) for index in range(width)]
    if node["type"] == "chance" or draw(rarely):
        node["probabilities"] = draw(st.one_of(
            st.just([f"1/{width}"] * width), st.lists(numbers, max_size=3)
        ))
    if draw(rarely):
        node["player"] = draw(json_scalars)
    return node


params = st.dictionaries(
    st.sampled_from(["depth_limit", "order", "root_raises_alpha", "cut_on_equality",
                     "utility_bounds", "players", "c", "form", "arms", "path", "tie_break",
                     "prefer", "reward", "N"]),
    json_values, max_size=4,
)


TREE_KINDS = ["minimax", "alphabeta", "expectiminimax"]


@st.composite
def problems(draw: Any) -> Any:
    """Draw a problem: arbitrary JSON, or a gametree/1 object with a near-valid tree."""
    if draw(st.integers(0, 4)) == 0:
        return draw(json_values)
    kinds = st.sampled_from(sorted(SOLVERS)) if draw(rarely) else st.sampled_from(TREE_KINDS)
    problem = {"format": "gametree/1", "kind": draw(kinds), "tree": draw(trees()),
               "params": draw(params) if draw(rarely) else {}}
    if draw(st.booleans()):
        problem["ask"] = draw(json_values)
    return problem


def two_leaves(kind: str, node_type: str, first: Any, second: Any, **node: Any) -> Any:
    """Return a problem whose root has two leaves, ``first`` and ``second``."""
    return {"format": "gametree/1", "kind": kind, "params": {}, "tree": {
        "name": "r", "type": node_type, **node,
        "children": [{"name": "a", "value": first}, {"name": "b", "value": second}]}}


@settings(FUZZ, max_examples=300)
@given(problem=problems())
@example(problem=two_leaves("minimax", "max", "1e999999999", 1))
@example(problem=two_leaves("alphabeta", "min", "-1e1001", "1e-400"))
@example(problem=two_leaves("expectiminimax", "chance", 10**4000, "1/" + "3" * 4000,
                            probabilities=["1/" + "7" * 4000, "1/2"]))
def test_the_engine_answers_or_raises_a_problem_error(problem: Any) -> None:
    try:
        answer = solve(copy.deepcopy(problem))
    except ProblemError as error:
        assert str(error)
        return
    assert isinstance(answer, dict) and "engine_version" in answer


ANSWERED_KINDS = [name for name in kind_names()
                  if get_kind(name).answer_parts(get_kind(name).clean_params({}))]


def generated_context(kind_name: str) -> GradingContext:
    """Return the grading context of a generated item of ``kind_name`` (default params)."""
    params_ = get_kind(kind_name).clean_params({})
    generated = generate_item(kind_name, params_, "hardening-fuzz")
    item = Item(kind=kind_name, params=params_, points=Decimal(5), position=1,
                part_points=split_points(kind_name, params_, Decimal(5)))
    return GradingContext(item, generated.problem, generated.answer_key, generated.trace)


def node_names(tree: Any) -> list[str]:
    """Return the names of a tree's nodes (empty for problems without a tree)."""
    if not isinstance(tree, dict):
        return []
    names = [tree["name"]] if isinstance(tree.get("name"), str) else []
    for child in tree.get("children", []):
        names.extend(node_names(child))
    return names


def near_answers(context: GradingContext) -> st.SearchStrategy[Any]:
    """Return answers built from the item's parts, key and node names, mutated."""
    names = node_names(context.problem.get("tree")) or ["A"]
    name = st.sampled_from(names)
    value = st.one_of(
        numbers, json_values, name, st.lists(name, max_size=6),
        st.dictionaries(name, numbers, max_size=4),
        st.lists(st.fixed_dictionaries({"node": name, "pruned": st.lists(name, max_size=3)}),
                 max_size=3),
        st.lists(st.fixed_dictionaries({"name": name, "value": numbers}), max_size=3),
    )
    parts = [part.name for part in context.parts]

    def mutated(answer: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {}, optional={part: st.one_of(st.just(answer.get(part)), value) for part in parts}
        )

    return st.one_of(json_values, mutated(context.expected),
                     st.dictionaries(st.text(max_size=6), value, max_size=3))


@pytest.mark.parametrize("kind_name", ANSWERED_KINDS)
def test_a_grader_refuses_with_a_clear_error_or_grades_within_bounds(kind_name: str) -> None:
    context = generated_context(kind_name)

    @settings(FUZZ, max_examples=60)
    @given(answer=near_answers(context))
    def grade(answer: Any) -> None:
        try:
            cleaned = validate_answer(answer, context.parts, context.problem)
        except AnswerFormatError as error:
            assert error.rule
            return
        result = grade_answer(context, cleaned)
        assert 0 <= result.raw_score <= result.max_score
        assert {part["verdict"] for part in result.results} <= VERDICTS

    grade()
