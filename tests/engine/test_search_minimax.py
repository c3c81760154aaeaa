"""Minimax and negamax on hand-worked trees: values, moves, lines, depth limits."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import GameError
from engine.search.common import depth_scored
from engine.search.minimax import minimax, negamax
from engine.search.trace import NodeCounter, RecordingTracer
from engine.tree import TreeGame, parse_tree


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children), **extra}


# Depth 3: MAX over MIN over MAX. Worked by hand:
# A1 = max(3, 5) = 5, A2 = max(6, 9) = 9, A = min(5, 9) = 5;
# B1 = max(1, 2) = 2, B2 = max(0, -1) = 0, B = min(2, 0) = 0; root = max(5, 0) = 5.
DEEP = node(
    "max", "root",
    node("min", "A",
         node("max", "A1", leaf("A1a", 3), leaf("A1b", 5)),
         node("max", "A2", leaf("A2a", 6), leaf("A2b", 9))),
    node("min", "B",
         node("max", "B1", leaf("B1a", 1), leaf("B1b", 2)),
         node("max", "B2", leaf("B2a", 0), leaf("B2b", -1))),
)


def test_minimax_values_move_and_line() -> None:
    game = TreeGame(parse_tree(DEEP))
    tracer = RecordingTracer()
    result = minimax(game, "root", tracer=tracer)
    assert (result.value, result.move) == (5, "A")
    assert result.principal_variation == ("A", "A1", "A1b")
    assert tracer.node_values() == {
        "A1a": 3, "A1b": 5, "A1": 5, "A2a": 6, "A2b": 9, "A2": 9, "A": 5,
        "B1a": 1, "B1b": 2, "B1": 2, "B2a": 0, "B2b": -1, "B2": 0, "B": 0, "root": 5,
    }
    assert tracer.evaluated() == ["A1a", "A1b", "A2a", "A2b", "B1a", "B1b", "B2a", "B2b"]


def test_node_counter_counts_below_the_root() -> None:
    counter = NodeCounter()
    minimax(TreeGame(parse_tree(DEEP)), "root", tracer=counter)
    assert counter.nodes == 14  # 15 nodes, the root not counted
    assert counter.leaves == 8


def test_ties_go_to_the_leftmost_child() -> None:
    tree = node("max", "r", node("min", "x", leaf("x1", 4)), node("min", "y", leaf("y1", 4)))
    assert minimax(TreeGame(parse_tree(tree)), "r").move == "x"


def test_min_root_minimises_for_max() -> None:
    tree = node("min", "r", leaf("a", 3), leaf("b", -2), leaf("c", -2))
    result = minimax(TreeGame(parse_tree(tree)), "r", max_player="max")
    assert (result.value, result.move) == (-2, "b")


def test_negamax_matches_minimax_for_each_side() -> None:
    game = TreeGame(parse_tree(DEEP))
    result = negamax(game, "root")
    assert (result.value, result.move, result.principal_variation) == (5, "A", ("A", "A1", "A1b"))
    # From MIN's seat at A the value is negated: MIN gets -5 by choosing A1.
    at_a = negamax(game, "A")
    assert (at_a.value, at_a.move) == (-5, "A1")


def test_negamax_keeps_the_sign_when_the_same_player_moves_again() -> None:
    tree = node("max", "r", node("max", "again", leaf("a", 1), leaf("b", 7)), leaf("c", 3))
    game = TreeGame(parse_tree(tree))
    assert negamax(game, "r").value == minimax(game, "r").value == 7


def test_negamax_rejects_chance_nodes() -> None:
    tree = node("max", "r", node("chance", "c", leaf("a", 1), probabilities=[1]))
    with pytest.raises(GameError, match="chance"):
        negamax(TreeGame(parse_tree(tree)), "r")


def test_depth_limit_uses_estimates_below_the_horizon_and_exact_terminals() -> None:
    tree = node(
        "max", "r",
        node("min", "A", node("max", "A1", leaf("A1a", 9), value=1), leaf("A2", 4), value=0),
        leaf("B", 2),
    )
    game = TreeGame(parse_tree(tree))
    tracer = RecordingTracer()
    result = minimax(game, "r", depth_limit=2, evaluator=game.estimate, tracer=tracer)
    # A1 is cut at depth 2 and estimated 1; A2 is terminal at depth 2 and keeps 4.
    assert (result.value, result.move) == (2, "B")
    assert tracer.evaluated() == ["A1", "A2", "B"]
    assert minimax(game, "r", depth_limit=1, evaluator=game.estimate).value == 2
    with pytest.raises(ValueError, match="evaluator"):
        minimax(game, "r", depth_limit=1)


def test_depth_limit_zero_estimates_the_root() -> None:
    tree = node("max", "r", leaf("a", 1), value=6)
    game = TreeGame(parse_tree(tree))
    result = minimax(game, "r", depth_limit=0, evaluator=game.estimate)
    assert (result.value, result.move) == (6, None)


def test_depth_scored_prefers_the_quicker_win() -> None:
    tree = node(
        "max", "r",
        node("max", "slow", node("max", "slower", leaf("win_late", 1))),
        node("max", "fast", leaf("win_soon", 1)),
    )
    game = TreeGame(parse_tree(tree))
    assert minimax(game, "r").move == "slow"  # plain utilities tie, leftmost wins
    scored = minimax(game, "r", terminal_value=depth_scored())
    assert (scored.value, scored.move) == (98, "fast")
    rescore = depth_scored(10)
    assert (rescore(1, 3), rescore(-1, 3), rescore(0, 3)) == (7, -7, 0)


def test_terminal_root_needs_a_player() -> None:
    game = TreeGame(parse_tree(leaf("only", 4)))
    with pytest.raises(GameError, match="terminal"):
        minimax(game, "only")
    result = minimax(game, "only", max_player="max")
    assert (result.value, result.move, result.principal_variation) == (4, None, ())
