"""``iterative_deepening``: a hand-worked tree, the key the kind projects, its misconception."""

from __future__ import annotations

import copy
from typing import Any

from exercises.kinds import get_kind
from tests.engine.test_misconceptions import DEEPENING

# Evaluations written on the inner nodes: A 5, B 3; A1 4, A2 8, B1 7, B2 6.
#
# Depth 1: A = 5, B = 3 → A (2 evaluations).
# Depth 2, A first: A1 = 4, A2 = 8 → A = 4; B (alpha 4): B1 = 7, B2 = 6 → B = 6 > 4 → B (4).
# Depth 3, B (depth 2's best) first: B1 = max(1, 4) = 4; B2 (-inf, 4): B2a = 5 >= 4 cuts
#   B2b, so B = 4; A (alpha 4): A1 = max(3, 9) = 9, A2 (4, 9): 2, 6 → 6; A = 6 > 4 → A (7).
# Depth 3 left to right: A = 6 first (4 evaluations); B (alpha 6): B1 = max(1, 4) = 4 <= 6
#   cuts B2, so 6 evaluations: searching B first costs 1 more.


def worked_problem(interrupted_depth: int) -> dict[str, Any]:
    return {"format": "gametree/1", "kind": "iterative_deepening", "tree": copy.deepcopy(DEEPENING),
            "params": {"cut_on_equality": True, "root_raises_alpha": True, "max_depth": 3,
                       "reuse": "root", "interrupted_depth": interrupted_depth}}


def test_the_hand_worked_tree() -> None:
    kind = get_kind("iterative_deepening")
    problem = worked_problem(3)
    key = kind.project(problem, kind.solve(problem))
    assert key == {"best_moves": ["A", "B", "A"], "evaluations": [2, 4, 7],
                   "interrupted_move": "B", "ordering_saving": -1}
    problem = worked_problem(2)
    assert kind.project(problem, kind.solve(problem))["interrupted_move"] == "A"


def test_playing_the_interrupted_iteration_is_the_named_misconception() -> None:
    kind = get_kind("iterative_deepening")
    wrong = kind.misconception_answers(worked_problem(3))
    assert set(wrong) == {"unfinished_iteration_played"}
    projected = kind.project(worked_problem(3), wrong["unfinished_iteration_played"])
    assert projected["interrupted_move"] == "A"
    assert projected["best_moves"] == ["A", "B", "A"]


def test_the_prompt_lists_every_static_evaluation_and_the_conventions() -> None:
    kind = get_kind("iterative_deepening")
    params = kind.clean_params({})
    args = kind.prompt_args(worked_problem(3), params)
    text = kind.render_prompt(args)
    assert "A = 5, A1 = 4, A2 = 8, B = 3, B1 = 7, B2 = 6" in text
    assert "previous iteration is searched first" in text
    assert "iteration 3" in text and "strictly better" in text and "discarded" in text
