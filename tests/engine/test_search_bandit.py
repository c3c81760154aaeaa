"""UCB1 in both forms, selection, the final move, backpropagation and full MCTS."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import pytest

from engine.errors import GameError
from engine.search.bandit import (
    Arm,
    PathNode,
    mcts,
    mcts_backprop,
    most_visited,
    select,
    ucb1,
)
from engine.tree import TreeGame, parse_tree

ARMS = [Arm("first", 21, 30), Arm("second", 7, 12), Arm("third", 3, 8)]


def test_the_two_forms_differ_when_c_is_not_one() -> None:
    # The spec's warning: N = 50, sqrt(2 ln N/n) picks the second, 2*sqrt(ln N/n) the third.
    assert select(ARMS, 50, 2, "sqrt(c*ln N/n)") == "second"
    assert select(ARMS, 50, 2, "c*sqrt(ln N/n)") == "third"
    assert ucb1(21, 30, 50, 2, "sqrt(c*ln N/n)") == pytest.approx(1.211, abs=1e-3)
    assert ucb1(21, 30, 50, Fraction(1, 2)) == pytest.approx(0.881, abs=1e-3)
    for form in ("c*sqrt(ln N/n)", "sqrt(c*ln N/n)"):
        assert ucb1(6, 12, 16, 1, form) == pytest.approx(0.5 + math.sqrt(math.log(16) / 12))


def test_unvisited_children_come_first_and_ties_go_left() -> None:
    assert ucb1(0, 0, 10, 1) == math.inf
    assert select([Arm("a", 1, 2), Arm("b", 0, 0), Arm("c", 0, 0)], 2, 1) == "b"
    assert select([Arm("a", 1, 2), Arm("b", 1, 2)], 4, 1) == "a"
    with pytest.raises(ValueError, match="form"):
        ucb1(1, 1, 1, 1, "c*ln")  # type: ignore[arg-type]


def test_final_move_is_the_most_visited() -> None:
    assert most_visited(ARMS) == "first"
    assert most_visited([Arm("a", 0, 3), Arm("b", 3, 3)]) == "a"


def test_backprop_credits_the_player_who_moved_into_each_node() -> None:
    path = [PathNode("n1", "white", 0, 0), PathNode("n2", "black", 0, 0),
            PathNode("n3", "white", 2, 1)]
    assert mcts_backprop(path, "black") == (
        PathNode("n1", "white", 1, 0), PathNode("n2", "black", 1, 1),
        PathNode("n3", "white", 3, 1),
    )
    drawn = mcts_backprop(path, "draw")
    assert [n.reward for n in drawn] == [Fraction(1, 2), Fraction(1, 2), Fraction(3, 2)]
    assert [n.reward for n in mcts_backprop(path, "draw", draw_reward=0)] == [0, 0, 1]


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children)}


# MAX wins only by "good" then anything; "bad" loses whatever MIN does.
TRAP = node(
    "max", "root",
    node("min", "bad", leaf("b1", -1), leaf("b2", -1)),
    node("min", "good", leaf("g1", 1), leaf("g2", 1)),
    node("min", "mixed", leaf("m1", 1), leaf("m2", -1), leaf("m3", 0)),
)


def test_mcts_finds_the_winning_move_and_is_reproducible() -> None:
    game = TreeGame(parse_tree(TRAP))
    result = mcts(game, "root", iterations=60, rng=random.Random(7))
    again = mcts(game, "root", iterations=60, rng=random.Random(7))
    assert result.move == "good"
    assert result == again
    assert sum(result.visits.values()) == 60
    assert result.rewards["good"] == result.visits["good"]  # every playout through it wins


def test_mcts_expands_one_child_per_iteration_then_selects_by_ucb1() -> None:
    game = TreeGame(parse_tree(TRAP))
    result = mcts(game, "root", iterations=5, rng=random.Random(1), c=1)
    first_three = result.iterations[:3]
    assert [it.expanded for it in first_three] == ["bad", "good", "mixed"]
    assert all(it.steps == () for it in first_three)
    fourth = result.iterations[3]
    # Fully expanded root: N = 3 and each child has n = 1; "good" won its playout: 1 + sqrt(ln 3).
    [step] = fourth.steps[:1]
    assert (step.action, step.parent_visits) == ("good", 3)
    assert step.score == pytest.approx(1 + math.sqrt(math.log(3)))


def test_mcts_needs_a_live_root() -> None:
    game = TreeGame(parse_tree(TRAP))
    with pytest.raises(GameError):
        mcts(game, "b1", iterations=1, rng=random.Random(0))
