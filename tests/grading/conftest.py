"""Problem sets with hand-made trees for grading tests, keyed exactly as generation keys them."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest

from exercises.generation import generate_item
from exercises.kinds import get_kind
from exercises.models import Item, ProblemSet, Variant, VariantItem
from exercises.services import split_points

# The classroom tree of "Cerca amb Adversari" (ca): alpha-beta prunes C2 and C3.
ALPHABETA_PROBLEM: dict[str, Any] = {
    "format": "gametree/1",
    "kind": "alphabeta",
    "tree": {
        "type": "max", "name": "A", "children": [
            {"type": "min", "name": "B", "children": [
                {"name": "B1", "value": 3}, {"name": "B2", "value": 12},
                {"name": "B3", "value": 8}]},
            {"type": "min", "name": "C", "children": [
                {"name": "C1", "value": 2}, {"name": "C2", "value": 4},
                {"name": "C3", "value": 6}]},
            {"type": "min", "name": "D", "children": [
                {"name": "D1", "value": 14}, {"name": "D2", "value": 5},
                {"name": "D3", "value": 2}]},
        ],
    },
    "params": {"cut_on_equality": True, "root_raises_alpha": True},
    "ask": {"windows": ["C"]},
}

# C's first leaf (5) stays above alpha=3, so nothing below C may be pruned after C1.
ALPHABETA_NO_CUT_AT_C = copy.deepcopy(ALPHABETA_PROBLEM)
ALPHABETA_NO_CUT_AT_C["tree"]["children"][1]["children"][0]["value"] = 5
ALPHABETA_NO_CUT_AT_C["tree"]["children"][1]["children"][1]["value"] = 7

MINIMAX_PROBLEM: dict[str, Any] = {
    "format": "gametree/1",
    "kind": "minimax",
    "tree": copy.deepcopy(ALPHABETA_PROBLEM["tree"]),
    "params": {},
    "ask": {"node_values": ["B", "C"]},
}


def keyed_variant_item(
    variant: Variant, item: Item, problem: dict[str, Any]
) -> VariantItem:
    """Store ``problem`` as item ``item`` of ``variant`` with the kind's key and trace."""
    kind = get_kind(item.kind)
    answer = kind.solve(copy.deepcopy(problem))
    return VariantItem.objects.create(
        variant=variant, item=item, position=item.position, seed="test",
        problem=problem, prompt={}, answer_key=kind.project(problem, answer),
        trace={"answer": answer}, engine_version=answer["engine_version"],
    )


def prompted(variant: Variant) -> Variant:
    """Give the hand-keyed variant's items a prompt, as generation would, for the pages."""
    for variant_item in variant.items.select_related("item"):
        item = variant_item.item
        variant_item.prompt = generate_item(item.kind, item.params, "prompt").prompt
        variant_item.save(update_fields=["prompt"])
    return variant


def make_problem_set(
    course: Any, instructor: Any, items: list[tuple[str, dict[str, Any], str]], **settings: Any
) -> ProblemSet:
    """Create a ready problem set whose items are (kind, params, points)."""
    problem_set = ProblemSet.objects.create(
        course=course, title="Set", seed="s", created_by=instructor,
        status=ProblemSet.Status.READY, **settings,
    )
    for position, (kind_name, params, points) in enumerate(items, start=1):
        cleaned = get_kind(kind_name).clean_params(params)
        Item.objects.create(
            problem_set=problem_set, position=position, kind=kind_name, params=cleaned,
            points=Decimal(points),
            part_points=split_points(kind_name, cleaned, Decimal(points)),
        )
    return problem_set


def give_variant(
    problem_set: ProblemSet, student: Any, problems: list[dict[str, Any]]
) -> Variant:
    """Create ``student``'s variant with one hand-made problem per item."""
    variant = Variant.objects.create(problem_set=problem_set, student=student, seed="v")
    for item, problem in zip(problem_set.items.all(), problems, strict=True):
        keyed_variant_item(variant, item, problem)
    return variant


@pytest.fixture
def alphabeta_set(course: Any, instructor: Any, student: Any) -> tuple[ProblemSet, Variant]:
    """Return a problem set with one alpha-beta item (6 points) and the student's variant."""
    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")])
    return problem_set, give_variant(problem_set, student[0], [ALPHABETA_PROBLEM])


def correct_answer(variant_item: VariantItem) -> dict[str, Any]:
    """Return the full-marks answer of a variant item (its projected key)."""
    return copy.deepcopy(variant_item.answer_key)

