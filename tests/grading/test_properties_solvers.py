"""Issue 13: the engine's keys agree with a second, naive solver on random generated problems.

The naive solvers (``tests/grading/naive_solvers.py``) import nothing from ``engine/``; every
kind they cover is checked over 50 seeds of its default params, part by part.
"""

from __future__ import annotations

from typing import Any

import pytest

from exercises.generation import derive_seed, generate_item
from exercises.kinds import get_kind
from exercises.models import Item, VariantItem
from grading.services import grading_context
from tests.grading.naive_solvers import NAIVE_SOLVERS
from tests.grading.property_cases import (
    SEEDS,
    Checker,
    answered_kinds,
    cases,
    register_figures,
    same,
)

VARIED: dict[str, list[dict[str, Any]]] = {
    "minimax": [{"depth": 3, "root_player": "min", "allow_ties": True, "max_leaves": 27,
                 "max_value": 9, "ask_nodes": 4}],
    "alphabeta": [
        {"depth": 3, "max_leaves": 27, "cut_on_equality": False, "allow_ties": True,
         "max_value": 9, "ask_windows": 2},
        {"depth": 3, "max_leaves": 27, "max_value": 40, "root_raises_alpha": False},
        {"depth": 4, "max_branching": 2, "root_player": "min", "allow_ties": True,
         "max_value": 5, "min_cuts": 2},
    ],
    "expectimax": [{"chance": "biased", "depth": 4, "max_branching": 3}, {"chance": "dice"}],
    "expectiminimax": [{"chance": "biased"}, {"depth": 4, "min_value": -5}],
    "move_ordering": [{"depth": 3, "max_leaves": 27, "max_value": 40},
                      {"cut_on_equality": False, "allow_ties": True, "max_value": 5}],
    "vector": [{"players": 2, "depth": 3}, {"players": 4, "depth": 3, "max_branching": 2}],
    "price_war": [{"prices": 4, "responses": 3}],
    "ucb1": [{"form": "c*sqrt(ln N/n)", "c": "3/2", "children": 5}],
    "mcts_backprop": [{"draw_reward": "0", "path_length": 6}],
    "iterative_deepening": [
        {"depth": 4, "max_branching": 2, "cut_on_equality": False, "allow_ties": True,
         "max_value": 6},
        {"root_raises_alpha": False, "min_changes": 0, "max_branching": 3, "max_leaves": 27,
         "max_value": 30},
    ],
    "tree_size": [{"node_counting": "root_excluded", "max_moves": 3, "max_branching": 4},
                  {"depth_given_in": "plies", "min_plies": 1, "max_plies": 9,
                   "max_branching": 2}],
    "tictactoe_position": [{"empty_squares": 6, "cut_on_equality": False},
                           {"empty_squares": 6, "root_raises_alpha": False},
                           {"empty_squares": 5, "allow_ties": True},
                           {"empty_squares": 5, "ask_census": True}],
    "star1": [{"cut_on_equality": False, "root_player": "min", "chance_nodes": 4,
               "lower_bound": -3, "upper_bound": 9},
              {"chance": "fair_coin", "lower_bound": -5, "upper_bound": 5, "min_cuts": 2}],
    "transposition_table": [{"depth": 4, "repeats": 4, "max_branching": 2},
                            {"cut_on_equality": False, "repeats": 3, "min_hits": 2}],
}
"""Params beyond the defaults (deeper trees, ties, other conventions) checked the same way."""

AUTHORED_TREES = {
    "minimax": "MAX(MIN(MAX(3, 5), MAX(2, 9)), MIN(4, MAX(1, 8, 7)), MIN(6, 2))",
    "alphabeta": "MAX(A: MIN(3, 12, 8), B: MIN(2, 4, 6), C: MIN(14, 5, 2))",
    "move_ordering": "MAX(MIN(MAX(1, 2), MAX(3, 4)), MIN(MAX(8, 9), MAX(6, 7)))",
    "expectimax": "MAX(CHANCE([1/3] 3, [2/3] MAX(6, 1)), CHANCE(2, 9, 4))",
    "expectiminimax": "MAX(L: CHANCE(MIN(3, 7), MIN(8, 4)), R: CHANCE([1/4] MIN(10, 1), "
                      "[3/4] MIN(6, 5)))",
    "vector": "A(l: B(C((1, 2, 6), (4, 2, 3)), C((6, 1, 2), (7, 4, 1))), r: B(C((5, 4, 5), "
              "(2, 5, 4)), C((5, 2, 4), (7, 7, 1))))",
    "star1": "MAX(CHANCE([1/3] 6, [2/3] 8), CHANCE([1/2] 1, [1/4] 4, [1/4] 7), CHANCE(3, 9))",
}
"""Instructors' trees (issue 17): each kind's key on them, as given and with values drawn
afresh per seed, must agree with the naive solver too."""
for _kind, _tree in AUTHORED_TREES.items():
    _range = {"upper_bound": 12} if _kind == "star1" else {"max_value": 30}
    VARIED[_kind] = [*VARIED[_kind], {"tree": _tree},
                     {"tree": _tree, "randomize_values": True, **_range}]

SOLVED = [(name, "open") for name in answered_kinds() if name in NAIVE_SOLVERS]


@pytest.fixture(autouse=True, scope="module")
def _figures(request: pytest.FixtureRequest) -> None:
    register_figures(request.config)


def compare_with_naive(checker: Checker, kind_name: str, index: int, context: Any) -> None:
    """Check every part of one variant's key against the kind's naive solver."""
    naive = NAIVE_SOLVERS[kind_name](context.problem)
    for part in context.parts:
        checker.check(
            same(part, naive[part.name], context.expected[part.name]),
            f"seed {index} {part.name}: engine {context.expected[part.name]}, "
            f"naive {naive[part.name]}; problem {context.problem}",
            part.name)


@pytest.mark.parametrize(("kind_name", "answer_format"), cases("naive_solver_agrees", SOLVED))
def test_the_key_agrees_with_a_naive_solver(kind_name: str, answer_format: str) -> None:
    checker = Checker("naive_solver_agrees", kind_name, answer_format)
    for index, context in checker.contexts(kind_name, answer_format):
        compare_with_naive(checker, kind_name, index, context)
    checker.finish(SEEDS - checker.skipped)


def test_every_tree_kind_has_a_naive_solver() -> None:
    """A new kind on trees must bring its naive solver (or be listed here as having none)."""
    without = {"concept_quiz", "connect4_eval", "eval_function"}
    assert set(answered_kinds()) - set(NAIVE_SOLVERS) == without


VARIED_CASES = [
    pytest.param(kind_name, raw, id=f"{kind_name}-{'-'.join(f'{k}={v}' for k, v in raw.items())}"
                                    f"-{SEEDS}-seeds")
    for kind_name, variants in VARIED.items() for raw in variants
]


@pytest.mark.parametrize(("kind_name", "raw"), VARIED_CASES)
def test_the_key_agrees_with_a_naive_solver_beyond_the_defaults(kind_name: str,
                                                                raw: dict[str, Any]) -> None:
    checker = Checker("naive_solver_agrees_varied", kind_name, "open")
    params = get_kind(kind_name).clean_params(raw)
    for index in range(SEEDS):
        made = generate_item(kind_name, params, derive_seed("issue-13/varied", kind_name,
                                                            sorted(raw.items()), index))
        item = Item(kind=kind_name, params=params, points=1, position=1)
        context = grading_context(VariantItem(item=item, problem=made.problem,
                                              answer_key=made.answer_key, trace=made.trace))
        compare_with_naive(checker, kind_name, index, context)
    checker.finish(SEEDS)
