"""Expectiminimax, expectimax and chance-node pruning with exact fractions."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from engine.search.chance import expectimax, expectiminimax, expectiminimax_alphabeta
from engine.search.trace import RecordingTracer
from engine.tree import TreeGame, parse_tree


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children), **extra}


def game_of(tree: dict[str, Any]) -> TreeGame:
    return TreeGame(parse_tree(tree))


COIN_THEN_MIN = node(
    "max", "root",
    node("chance", "L", node("min", "L1", leaf("L11", 3), leaf("L12", 7)),
         node("min", "L2", leaf("L21", 8), leaf("L22", 4)), probabilities=["1/2", "1/2"]),
    node("chance", "R", node("min", "R1", leaf("R11", 10), leaf("R12", 1)),
         node("min", "R2", leaf("R21", 6), leaf("R22", 5)), probabilities=["1/4", "3/4"]),
)


def test_expectiminimax_weights_outcomes_exactly() -> None:
    tracer = RecordingTracer()
    result = expectiminimax(game_of(COIN_THEN_MIN), "root", tracer=tracer)
    # L = (3 + 4) / 2 = 7/2; R = 1/4 * 1 + 3/4 * 5 = 4.
    assert (result.value, result.move) == (4, "R")
    assert tracer.node_values()["L"] == Fraction(7, 2)
    assert result.principal_variation == ("R",)  # the line stops at the chance node


def test_thirds_stay_exact() -> None:
    tree = node(
        "max", "root",
        node("chance", "A", leaf("a1", 4), leaf("a2", 9), leaf("a3", 6),
             probabilities=["1/3"] * 3),
        node("chance", "C", leaf("c1", 5), leaf("c2", 8), leaf("c3", 10),
             probabilities=["1/3", "1/3", "1/3"]),
    )
    tracer = RecordingTracer()
    result = expectiminimax(game_of(tree), "root", tracer=tracer)
    assert result.value == Fraction(23, 3) and result.move == "C"
    assert tracer.node_values()["A"] == Fraction(19, 3)


def test_expectimax_treats_the_opponent_as_uniformly_random() -> None:
    tree = node(
        "max", "root",
        node("min", "A", leaf("a1", 3), leaf("a2", 9)),
        node("min", "B", leaf("b1", 5), leaf("b2", 5)),
    )
    game = game_of(tree)
    assert (expectimax(game, "root").value, expectimax(game, "root").move) == (6, "A")
    assert (expectiminimax(game, "root").value, expectiminimax(game, "root").move) == (5, "B")


PRUNABLE = node(
    "max", "root",
    node("chance", "C1", leaf("a", 4), leaf("b", 6), probabilities=["1/2", "1/2"]),
    node("chance", "C2", leaf("c", -2), leaf("d", 8), probabilities=["1/2", "1/2"]),
)


def test_chance_node_stops_once_its_upper_bound_is_below_alpha() -> None:
    # Leaves lie in [-6, 10]. C1 = 5, so alpha = 5 at C2. After c = -2 (p = 1/2), C2 is at
    # most -1 + 1/2 * 10 = 4 <= 5: d cannot matter and is skipped.
    tracer = RecordingTracer()
    result = expectiminimax_alphabeta(
        game_of(PRUNABLE), "root", utility_bounds=(-6, 10), tracer=tracer
    )
    assert (result.value, result.move) == (5, "C1")
    assert tracer.evaluated() == ["a", "b", "c"]
    [cut] = tracer.cutoffs()
    assert (cut.number, cut.state, cut.alpha, cut.beta, cut.pruned) == (1, "C2", 5, 4, ("d",))
    # C2 lies between -1 + 1/2 * (-6) = -4 and 4.
    assert tracer.node_bounds() == {"C2": (-4, 4)}


def test_chance_node_stops_once_its_lower_bound_reaches_beta() -> None:
    tree = node(
        "min", "root",
        node("chance", "C1", leaf("a", 4), leaf("b", 6), probabilities=["1/2", "1/2"]),
        node("chance", "C2", leaf("c", 10), leaf("d", -6), probabilities=["3/4", "1/4"]),
    )
    tracer = RecordingTracer()
    result = expectiminimax_alphabeta(
        game_of(tree), "root", max_player="max", utility_bounds=(-6, 10), tracer=tracer
    )
    assert (result.value, result.move) == (5, "C1")
    [cut] = tracer.cutoffs()
    # After c: at least 3/4 * 10 + 1/4 * (-6) = 6 >= beta = 5.
    assert (cut.state, cut.alpha, cut.beta, cut.pruned) == ("C2", 6, 5, ("d",))


def test_without_bounds_nothing_below_chance_is_pruned() -> None:
    tracer = RecordingTracer()
    result = expectiminimax_alphabeta(
        game_of(PRUNABLE), "root", utility_bounds=(-100, 100), tracer=tracer
    )
    assert result.value == 5
    assert tracer.evaluated() == ["a", "b", "c", "d"]
