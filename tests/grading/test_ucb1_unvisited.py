"""Grading ``ucb1`` items with unvisited children: their infinite scores, written "∞" or "inf"."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from exercises.generation import generate_item
from exercises.kinds import get_kind
from exercises.models import Item
from exercises.services import split_points
from grading.answers import validate_answer
from grading.grader import GradingContext, grade_answer


def unvisited_context(seed: str) -> GradingContext:
    params = get_kind("ucb1").clean_params({"unvisited": 2, "children": 4})
    generated = generate_item("ucb1", params, seed)
    item = Item(kind="ucb1", params=params, points=Decimal(4), position=1,
                part_points=split_points("ucb1", params, Decimal(4)))
    return GradingContext(item, generated.problem, generated.answer_key, generated.trace)


def unvisited_names(context: GradingContext) -> list[str]:
    return [child["name"] for child in context.problem["params"]["children"]
            if child["visits"] == 0]


@pytest.mark.parametrize("written", ["∞", "inf", "Inf", " ∞ "])
def test_an_unvisited_childs_score_is_accepted_as_infinity(written: str) -> None:
    context = unvisited_context("unvisited-inf")
    unvisited = unvisited_names(context)
    assert len(unvisited) == 2
    assert all(context.expected["scores"][name] == "∞" for name in unvisited)
    answer: dict[str, Any] = {**context.expected, "scores": {
        **context.expected["scores"], **{name: written for name in unvisited}}}
    validate_answer(answer, context.parts, context.problem)
    result = grade_answer(context, answer)
    assert result.raw_score == result.max_score


def test_a_finite_score_for_an_unvisited_child_is_wrong() -> None:
    context = unvisited_context("unvisited-finite")
    first = unvisited_names(context)[0]
    answer = {**context.expected, "scores": {**context.expected["scores"], first: 99}}
    scores = next(r for r in grade_answer(context, answer).results if r["part"] == "scores")
    assert scores["verdict"] != "correct" and scores["points"] < scores["max_points"]


def test_the_first_unvisited_child_from_the_left_is_the_key_and_another_is_wrong() -> None:
    context = unvisited_context("unvisited-first")
    first, second = unvisited_names(context)
    assert context.expected["selected"] == first
    result = grade_answer(context, {**context.expected, "selected": second})
    selected = next(r for r in result.results if r["part"] == "selected")
    assert selected["verdict"] == "wrong"
