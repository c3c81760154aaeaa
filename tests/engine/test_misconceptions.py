"""Each named misconception answers in the solver's format and differs from the right answer."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.errors import ProblemError
from engine.misconceptions import MISCONCEPTIONS, applicable, get
from engine.solve import SOLVERS, solve


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children), **extra}


def problem(kind: str, tree: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"format": "gametree/1", "kind": kind, "params": params}
    if tree is not None:
        raw["tree"] = tree
    return raw


TWO_BY_TWO = node(
    "max", "raiz",
    node("min", "A", leaf("A1", 3), leaf("A2", 5)),
    node("min", "B", leaf("B1", 2), leaf("B2", 9)),
)
TIED = node(
    "max", "r",
    node("min", "A", leaf("A1", 3), leaf("A2", 5)),
    node("min", "B", leaf("B1", 3), leaf("B2", 9)),
)
BOUNDED_COINS = node(
    # Leaves in [0, 10]. A = 7; after B1, B is at most 2/2 + (1/2)*10 = 6 <= 7, so Star1
    # prunes B2; after C1, C is at most 6/2 + (1/2)*10 = 8 > 7, so C2 is searched (the upper
    # bound taken with L instead, 6/2 + 0 = 3 <= 7, would prune it).
    "max", "root",
    node("chance", "A", leaf("A1", 6), leaf("A2", 8), probabilities=["1/2", "1/2"]),
    node("chance", "B", leaf("B1", 2), leaf("B2", 9), probabilities=["1/2", "1/2"]),
    node("chance", "C", leaf("C1", 6), leaf("C2", 2), probabilities=["1/2", "1/2"]),
)
ABC = node(
    "max", "root",
    node("min", "A", leaf("A1", 4), leaf("A2", 9), leaf("A3", 6)),
    node("min", "B", leaf("B1", 2), leaf("B2", 15), leaf("B3", 13)),
    node("min", "C", leaf("C1", 5), leaf("C2", 8), leaf("C3", 10)),
)
COIN = node(
    "max", "root",
    node("chance", "L", node("min", "L1", leaf("L11", 3), leaf("L12", 7)),
         node("min", "L2", leaf("L21", 8), leaf("L22", 4)), probabilities=["1/2", "1/2"]),
    node("chance", "R", node("min", "R1", leaf("R11", 10), leaf("R12", 1)),
         node("min", "R2", leaf("R21", 6), leaf("R22", 5)), probabilities=["1/4", "3/4"]),
)

# Worked by hand in tests/exercises/test_deepening.py: best moves A, B, A by depth.
DEEPENING = node(
    "max", "root",
    node("min", "A", node("max", "A1", leaf("A1a", 3), leaf("A1b", 9), value=4),
         node("max", "A2", leaf("A2a", 2), leaf("A2b", 6), value=8), value=5),
    node("min", "B", node("max", "B1", leaf("B1a", 1), leaf("B1b", 4), value=7),
         node("max", "B2", leaf("B2a", 5), leaf("B2b", 7), value=6), value=3),
)


def player(who: str, name: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"type": "player", "player": who, "name": name, "children": list(children)}


THREE = player(
    "A", "root",
    player("B", "l",
           player("C", "l1", leaf("l1a", [1, 2, 6]), leaf("l1b", [4, 2, 3])),
           player("C", "l2", leaf("l2a", [6, 1, 2]), leaf("l2b", [7, 4, 1]))),
    player("B", "r",
           player("C", "r1", leaf("r1a", [5, 4, 5]), leaf("r1b", [2, 5, 4])),
           player("C", "r2", leaf("r2a", [5, 2, 4]), leaf("r2b", [7, 7, 1]))),
)
HORIZON = node(
    "max", "r",
    node("min", "A", node("max", "A1", leaf("A1a", 9), value=1), leaf("A2", 4), value=0),
    leaf("B", 2),
    node("min", "C", leaf("C1", 3), value=1),
)
UCB = {"parent_visits": 16, "c": 1,
       "children": [{"name": "A", "wins": 6, "visits": 12}, {"name": "B", "wins": 1, "visits": 4}]}
PATH = [{"name": "n1", "moved_by": "white", "visits": 0, "reward": 0},
        {"name": "n2", "moved_by": "black", "visits": 0, "reward": 0}]

# For each misconception: a problem it gets wrong, and the answer keys where that shows.
CASES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "alpha_beta_swapped": (problem("alphabeta", TWO_BY_TWO), ("cutoffs",)),
    "no_cut_on_equality": (problem("alphabeta", TIED), ("evaluated_leaves", "pruned_leaves")),
    "cut_on_equality_not_asked": (
        problem("alphabeta", TIED, cut_on_equality=False), ("evaluated_leaves", "pruned_leaves")
    ),
    "cut_too_early": (problem("alphabeta", ABC), ("evaluated_leaves", "pruned_leaves")),
    "beta_updated_at_max": (problem("alphabeta", ABC), ("evaluated_leaves", "cutoffs")),
    "alpha_updated_at_min": (problem("alphabeta", ABC), ("evaluated_leaves", "cutoffs")),
    "no_pruning": (problem("alphabeta", ABC), ("evaluated_leaves", "pruned_leaves", "cutoffs")),
    "right_to_left": (problem("alphabeta", ABC), ("evaluated_leaves", "pruned_leaves")),
    "root_alpha_not_raised": (problem("alphabeta", TWO_BY_TWO), ("evaluated_leaves",)),
    "root_alpha_raised_not_asked": (
        problem("alphabeta", TWO_BY_TWO, root_raises_alpha=False), ("evaluated_leaves",)
    ),
    "chance_unweighted_average": (problem("expectiminimax", COIN), ("value", "move")),
    "chance_as_min": (problem("expectiminimax", COIN), ("value", "move")),
    "star1_bounds_ignored": (
        problem("expectiminimax", BOUNDED_COINS, utility_bounds=[0, 10]),
        ("evaluated_leaves", "pruned_leaves", "cutoffs"),
    ),
    "star1_bounds_swapped": (
        problem("expectiminimax", BOUNDED_COINS, utility_bounds=[0, 10]),
        ("evaluated_leaves", "pruned_leaves", "cutoffs"),
    ),
    "vector_entrywise_max": (problem("vector", THREE, players=["A", "B", "C"]), ("value",)),
    "vector_wrong_player_entry": (
        problem("vector", THREE, players=["A", "B", "C"]), ("value", "move")
    ),
    "mcts_credit_every_node": (problem("mcts_backprop", path=PATH, outcome="black"), ("path",)),
    "final_move_by_ucb1": (problem("ucb1", **UCB), ("final_move",)),
    "other_ucb1_form": (
        problem("ucb1", parent_visits=50, c=2, children=[
            {"name": "first", "wins": 21, "visits": 30},
            {"name": "second", "wins": 7, "visits": 12},
            {"name": "third", "wins": 3, "visits": 8}]),
        ("selected", "scores"),
    ),
    "depth_off_by_one": (problem("minimax", HORIZON, depth_limit=2), ("value", "move")),
    "largest_leaf_branch": (problem("minimax", TWO_BY_TWO), ("value", "move")),
    "unfinished_iteration_played": (
        problem("iterative_deepening", DEEPENING, interrupted_depth=3), ("interrupted_move",)
    ),
}

SPEC_KEYS = {
    "minimax": {"value", "move", "node_values", "principal_variation"},
    "expectiminimax": {"value", "move", "node_values", "principal_variation"},
    "alphabeta": {"value", "move", "node_values", "principal_variation", "evaluated_leaves",
                  "pruned_leaves", "cutoffs"},
    "vector": {"value", "move", "node_values"},
    "ucb1": {"scores", "selected", "final_move"},
    "mcts_backprop": {"path"},
    "iterative_deepening": {"iterations", "value", "move", "depth", "complete"},
}

REQUIRED = {
    "alpha_beta_swapped", "no_cut_on_equality", "cut_too_early", "root_alpha_not_raised",
    "beta_updated_at_max", "alpha_updated_at_min", "no_pruning", "right_to_left",
    "chance_unweighted_average", "chance_as_min", "vector_entrywise_max",
    "vector_wrong_player_entry", "mcts_credit_every_node", "final_move_by_ucb1",
    "other_ucb1_form", "depth_off_by_one", "largest_leaf_branch",
}


def test_the_registry_has_every_required_code_well_described() -> None:
    assert REQUIRED <= set(MISCONCEPTIONS)
    assert set(CASES) == set(MISCONCEPTIONS), "every misconception needs a differing case"
    for code, misconception in MISCONCEPTIONS.items():
        assert misconception.code == code and re.fullmatch(r"[a-z][a-z0-9_]*", code)
        assert misconception.explanation and "\n" not in misconception.explanation
        assert misconception.kinds and misconception.kinds <= set(SOLVERS)


@pytest.mark.parametrize(("code", "convention"), [
    ("cut_on_equality_not_asked", "cut_on_equality"),
    ("root_alpha_raised_not_asked", "root_raises_alpha"),
])
def test_following_a_convention_is_a_mistake_only_where_the_problem_turns_it_off(
    code: str, convention: str
) -> None:
    assert not get(code).applies(problem("alphabeta", TIED))
    assert not get(code).applies(problem("alphabeta", TIED, **{convention: True}))
    assert get(code).applies(problem("alphabeta", TIED, **{convention: False}))


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_misconception_differs_from_the_right_answer(code: str) -> None:
    case, differing = CASES[code]
    right = solve(case)
    wrong = get(code).answer(case)
    assert wrong["misconception"] == code
    assert SPEC_KEYS[case["kind"]] <= set(wrong), "same key format"
    for key in differing:
        assert wrong[key] != right[key], key
    assert get(code).applies(case)
    assert case == CASES[code][0], "the problem is not modified"


def test_specific_wrong_answers() -> None:
    assert get("alpha_beta_swapped").answer(CASES["alpha_beta_swapped"][0])["cutoffs"] == [
        {"number": 1, "node": "B", "alpha": 2, "beta": 3, "pruned": ["B2"]}
    ]
    early = get("cut_too_early").answer(CASES["cut_too_early"][0])
    assert early["pruned_leaves"] == ["C2", "C3"]
    unweighted = get("chance_unweighted_average").answer(CASES["chance_unweighted_average"][0])
    assert unweighted["node_values"]["R"] == 3
    credited = get("mcts_credit_every_node").answer(CASES["mcts_credit_every_node"][0])
    assert [n["reward"] for n in credited["path"]] == [1, 1]
    bounded = CASES["star1_bounds_swapped"][0]
    assert solve(bounded)["pruned_leaves"] == ["B2"]
    assert get("star1_bounds_ignored").answer(bounded)["pruned_leaves"] == []
    assert get("star1_bounds_swapped").answer(bounded)["pruned_leaves"] == ["B2", "C2"]
    largest = get("largest_leaf_branch").answer(CASES["largest_leaf_branch"][0])
    assert (largest["value"], largest["move"]) == (9, "B")


def test_a_max_node_lowering_beta_cuts_once_its_best_reaches_its_own_first_value() -> None:
    # root: A=4 lowers root's beta to 4; B (-inf, 4) = 2; best 4 >= beta 4, so C is cut
    # (the right search reads C and moves there).
    answer = get("beta_updated_at_max").answer(CASES["beta_updated_at_max"][0])
    assert answer["cutoffs"] == [
        {"number": 1, "node": "root", "alpha": "-inf", "beta": 4, "pruned": ["C"]}
    ]
    assert answer["pruned_leaves"] == ["C1", "C2", "C3"]
    assert (answer["value"], answer["move"]) == (4, "A")


def test_a_min_node_raising_alpha_cuts_once_its_best_reaches_its_own_first_value() -> None:
    # A: A1=4 raises alpha to 4, A2 leaves best 4 <= 4: A3 cut; B cut after B1 as it should;
    # C (4, inf): C1=5 raises alpha to 5, C2 leaves best 5 <= 5: C3 cut, and C returns 5.
    answer = get("alpha_updated_at_min").answer(CASES["alpha_updated_at_min"][0])
    assert [(cut["node"], cut["alpha"], cut["pruned"]) for cut in answer["cutoffs"]] == [
        ("A", 4, ["A3"]), ("B", 4, ["B2", "B3"]), ("C", 5, ["C3"])
    ]
    assert (answer["value"], answer["move"]) == (5, "C")


def test_searching_right_to_left_reads_the_last_child_first() -> None:
    # C (10, 8, 5) = 5 first; B reads 13, 15 and 2 with alpha 5 and cuts after its last
    # child, skipping nothing; A likewise: nothing is pruned, where the real search cuts B.
    answer = get("right_to_left").answer(CASES["right_to_left"][0])
    assert answer["evaluated_leaves"] == ["C3", "C2", "C1", "B3", "B2", "B1", "A3", "A2", "A1"]
    assert answer["pruned_leaves"] == [] and answer["cutoffs"] == []
    never = get("no_pruning").answer(CASES["no_pruning"][0])
    assert never["pruned_leaves"] == [] and len(never["evaluated_leaves"]) == 9


def test_the_right_conventions_narrow_the_window_of_the_node_that_moves() -> None:
    from engine.search.alphabeta import STANDARD

    assert STANDARD.narrowed(maximising=True, value=3, alpha=1, beta=9) == (3, 9)
    assert STANDARD.narrowed(maximising=True, value=0, alpha=1, beta=9) == (1, 9)
    assert STANDARD.narrowed(maximising=False, value=3, alpha=1, beta=9) == (1, 3)
    assert STANDARD.narrowed(maximising=False, value=10, alpha=1, beta=9) == (1, 9)


def test_applicability_depends_on_kind_and_params() -> None:
    minimax_problem = problem("minimax", TWO_BY_TWO)
    codes = {m.code for m in applicable(minimax_problem)}
    assert codes == {"largest_leaf_branch"}
    assert "depth_off_by_one" in {m.code for m in applicable(CASES["depth_off_by_one"][0])}
    drawn = problem("mcts_backprop", path=PATH, outcome="draw")
    assert not get("mcts_credit_every_node").applies(drawn)
    with pytest.raises(ProblemError, match="applies to"):
        get("chance_as_min").answer(minimax_problem)
    with pytest.raises(ProblemError, match="unknown misconception"):
        get("no_such_thing")


def test_bad_problems_are_reported_against_the_students_input() -> None:
    broken = problem("alphabeta", node("max", "r", node("min", "M")))
    with pytest.raises(ProblemError, match='node "M"'):
        get("no_cut_on_equality").answer(broken)
