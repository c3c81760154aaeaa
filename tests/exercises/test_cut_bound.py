"""``alphabeta`` with ``ask_cut_bound``: the bound a cut node returns, worked by hand."""

from __future__ import annotations

from typing import Any

import pytest

from exercises.generation import derive_seed, generate_item
from exercises.kinds import get_kind
from tests.grading.naive_solvers import alphabeta_parts

# root (MAX): A (MIN) = min(3, 5) = 3, so alpha = 3 at the root; B (MIN) in (3, inf): B1 = 2
# <= 3 cuts B2 and B returns 2, a bound: B's value is at most 2 (lower -inf, upper 2).
# C (MIN) in (3, inf): C1 = 9, C2 = 4 → C = 4 exactly.
TREE = {"name": "root", "type": "max", "children": [
    {"name": "A", "type": "min", "children": [{"name": "A1", "value": 3},
                                              {"name": "A2", "value": 5}]},
    {"name": "B", "type": "min", "children": [{"name": "B1", "value": 2},
                                              {"name": "B2", "value": 8}]},
    {"name": "C", "type": "min", "children": [{"name": "C1", "value": 9},
                                              {"name": "C2", "value": 4}]},
]}


def problem(asked: str) -> dict[str, Any]:
    return {"format": "gametree/1", "kind": "alphabeta", "tree": TREE,
            "params": {"cut_on_equality": True, "root_raises_alpha": True},
            "ask": {"windows": [], "cut_bound": [asked]}}


def test_a_cut_min_node_returns_an_upper_bound() -> None:
    kind = get_kind("alphabeta")
    key = kind.project(problem("B"), kind.solve(problem("B")))
    assert key["cut_bound"] == {"B": {"lower": "-inf", "upper": 2}}


def test_a_misconception_that_never_cuts_there_reads_an_exact_value() -> None:
    kind = get_kind("alphabeta")
    wrong = kind.misconception_answers(problem("B"))["no_pruning"]
    assert kind.project(problem("B"), wrong)["cut_bound"] == {"B": {"lower": 2, "upper": 2}}


def test_the_part_is_off_by_default_and_asks_a_node_that_cuts() -> None:
    kind = get_kind("alphabeta")
    plain = kind.clean_params({})
    assert "cut_bound" not in {part.name for part in kind.answer_parts(plain)}
    assert "cut_bound" not in generate_item("alphabeta", plain, "s").problem["ask"]
    params = kind.clean_params({"ask_cut_bound": True, "depth": 3, "max_leaves": 18})
    for seed in ("a", "b", "c"):
        item = generate_item("alphabeta", params, seed)
        [asked] = item.problem["ask"]["cut_bound"]
        assert asked in {cut["node"] for cut in item.answer_key["cutoffs"] if cut["pruned"]}
        bound = item.answer_key["cut_bound"][asked]
        assert bound["lower"] == "-inf" or bound["upper"] == "inf"
        assert f"A cutoff happens at {asked}" in kind.render_prompt(item.prompt["args"])


def test_the_item_page_asks_one_row_for_the_named_node() -> None:
    from pages.answer_form import asked_names

    kind = get_kind("alphabeta")
    params = kind.clean_params({"ask_cut_bound": True, "depth": 3, "max_leaves": 18})
    part = next(p for p in kind.answer_parts(params) if p.name == "cut_bound")
    assert asked_names(problem("A1"), part, None) == ["A1"]


@pytest.mark.parametrize("raw", [
    {"depth": 3, "max_leaves": 27, "max_value": 40},
    {"depth": 4, "max_branching": 2, "cut_on_equality": False, "allow_ties": True,
     "max_value": 5, "root_raises_alpha": False},
    {"depth": 3, "max_leaves": 27, "root_player": "min", "max_value": 40},
])
def test_the_bound_agrees_with_the_naive_solver(raw: dict[str, Any]) -> None:
    kind = get_kind("alphabeta")
    params = kind.clean_params({**raw, "ask_cut_bound": True})
    for index in range(40):
        item = generate_item("alphabeta", params, derive_seed("cut-bound", index))
        naive = alphabeta_parts(item.problem)["cut_bound"]
        assert item.answer_key["cut_bound"] == naive, item.problem
