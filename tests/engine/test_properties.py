"""Property tests on random trees, cross-checked against a separate, deliberately naive engine.

The naive functions below walk the raw JSON dicts recursively, textbook style, sharing no
code with the engine.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.search.alphabeta import AlphaBetaConventions, alphabeta
from engine.search.chance import expectiminimax, expectiminimax_alphabeta
from engine.search.minimax import minimax, negamax
from engine.search.multiplayer import maxn
from engine.search.ordering import by_value
from engine.search.trace import RecordingTracer
from engine.solve import SOLVERS, solve
from engine.tree import TreeGame, parse_tree

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
LOW, HIGH = -9, 9

# --- the naive engine ------------------------------------------------------------------------


def naive_value(n: dict[str, Any]) -> Fraction:
    if "children" not in n:
        return Fraction(n["value"])
    values = [naive_value(c) for c in n["children"]]
    if n["type"] == "max":
        return max(values)
    if n["type"] == "min":
        return min(values)
    return sum((Fraction(p) * v for p, v in zip(n["probabilities"], values, strict=True)),
               Fraction(0))


def naive_alphabeta(n: dict[str, Any], alpha: float, beta: float, seen: list[str]) -> Any:
    if "children" not in n:
        seen.append(n["name"])
        return Fraction(n["value"])
    if n["type"] == "max":
        v: Any = -math.inf
        for c in n["children"]:
            v = max(v, naive_alphabeta(c, alpha, beta, seen))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    v = math.inf
    for c in n["children"]:
        v = min(v, naive_alphabeta(c, alpha, beta, seen))
        if v <= alpha:
            return v
        beta = min(beta, v)
    return v


def naive_maxn(n: dict[str, Any], players: list[str]) -> tuple[Fraction, ...]:
    if "children" not in n:
        return tuple(Fraction(x) for x in n["value"])
    vectors = [naive_maxn(c, players) for c in n["children"]]
    i = players.index(n["player"])
    best = vectors[0]
    for v in vectors[1:]:
        if v[i] > best[i]:
            best = v
    return best


def naive_move(tree: dict[str, Any]) -> str:
    values = [naive_value(c) for c in tree["children"]]
    pick = max if tree["type"] == "max" else min
    return str(tree["children"][values.index(pick(values))]["name"])


# --- random trees ------------------------------------------------------------------------------


def named(shape: Any, counter: itertools.count[int] | None = None) -> dict[str, Any]:
    """Turn a nested shape (a leaf value, or (type, children, extra)) into a named tree."""
    counter = counter if counter is not None else itertools.count()
    name = f"n{next(counter)}"
    if not isinstance(shape, tuple):
        return {"name": name, "value": shape}
    kind, children, extra = shape
    return {"name": name, "type": kind,
            "children": [named(c, counter) for c in children], **extra}


@st.composite
def inner(draw: st.DrawFn, children: st.SearchStrategy[Any], kinds: list[str]) -> Any:
    kind = draw(st.sampled_from(kinds))
    kids = draw(st.lists(children, min_size=1, max_size=3))
    extra: dict[str, Any] = {}
    if kind == "chance":
        weights = draw(st.lists(st.integers(1, 4), min_size=len(kids), max_size=len(kids)))
        extra["probabilities"] = [f"{w}/{sum(weights)}" for w in weights]
    return (kind, kids, extra)


SCALARS = st.integers(LOW, HIGH)


def trees(kinds: list[str], leaves: st.SearchStrategy[Any] = SCALARS
          ) -> st.SearchStrategy[dict[str, Any]]:
    shapes = st.recursive(leaves, lambda kids: inner(kids, kinds), max_leaves=24)
    return inner(shapes, kinds).map(named)


MINIMAX_TREES = trees(["max", "min"])
CHANCE_TREES = trees(["max", "min", "chance"])


def shuffled(rng: random.Random) -> Any:
    def order(state: str, actions: Any) -> list[str]:
        actions = list(actions)
        rng.shuffle(actions)
        return actions

    return order


# --- properties --------------------------------------------------------------------------------


@PROPERTY
@given(MINIMAX_TREES)
def test_engine_agrees_with_the_naive_engine(tree: dict[str, Any]) -> None:
    game = TreeGame(parse_tree(tree))
    seen: list[str] = []
    expected = naive_alphabeta(tree, -math.inf, math.inf, seen)
    assert expected == naive_value(tree)
    tracer = RecordingTracer()
    result = alphabeta(game, tree["name"], max_player="max", tracer=tracer)
    assert result.value == expected == minimax(game, tree["name"], max_player="max").value
    assert result.move == naive_move(tree)
    assert tracer.evaluated() == seen


@PROPERTY
@given(MINIMAX_TREES, st.randoms(use_true_random=False))
def test_alphabeta_value_does_not_depend_on_child_order(
    tree: dict[str, Any], rng: random.Random
) -> None:
    game = TreeGame(parse_tree(tree))
    for conventions in (AlphaBetaConventions(), AlphaBetaConventions(False, False)):
        result = alphabeta(game, tree["name"], max_player="max", order=shuffled(rng),
                           conventions=conventions)
        assert result.value == naive_value(tree)


@PROPERTY
@given(MINIMAX_TREES, st.sampled_from(["natural", "reverse", "best-first"]), st.booleans())
def test_evaluated_and_pruned_leaves_partition_the_leaves(
    tree: dict[str, Any], order: str, cut_on_equality: bool
) -> None:
    answer = solve({"format": "gametree/1", "kind": "alphabeta", "tree": tree,
                    "params": {"order": order, "cut_on_equality": cut_on_equality}})
    evaluated, pruned = answer["evaluated_leaves"], answer["pruned_leaves"]
    leaves = parse_tree(tree).leaves()
    assert set(evaluated).isdisjoint(pruned)
    assert sorted(evaluated + pruned) == sorted(leaves)
    assert pruned == [name for name in leaves if name in set(pruned)]  # tree order
    assert len(answer["cutoffs"]) == 0 or pruned
    skipped = {name for cut in answer["cutoffs"] for name in cut["pruned"]}
    assert skipped.isdisjoint(evaluated)


@PROPERTY
@given(MINIMAX_TREES, st.booleans(), st.booleans())
def test_exact_nodes_are_right_and_bounds_hold(
    tree: dict[str, Any], cut_on_equality: bool, root_raises_alpha: bool
) -> None:
    game = TreeGame(parse_tree(tree))
    truth = RecordingTracer()
    minimax(game, tree["name"], max_player="max", tracer=truth)
    true_values = truth.node_values()
    tracer = RecordingTracer()
    alphabeta(game, tree["name"], max_player="max", tracer=tracer,
              conventions=AlphaBetaConventions(cut_on_equality, root_raises_alpha))
    for name, value in tracer.node_values().items():
        assert true_values[name] == value, name
    for name, (lower, upper) in tracer.node_bounds().items():
        assert lower <= true_values[name] <= upper, name  # type: ignore[operator]
    assert tree["name"] in tracer.node_values()


@PROPERTY
@given(MINIMAX_TREES)
def test_negamax_equals_minimax(tree: dict[str, Any]) -> None:
    game = TreeGame(parse_tree(tree))
    mover = tree["type"]
    sign = 1 if mover == "max" else -1
    assert negamax(game, tree["name"]).value == sign * naive_value(tree)


@PROPERTY
@given(CHANCE_TREES)
def test_expectiminimax_agrees_with_the_naive_engine(tree: dict[str, Any]) -> None:
    game = TreeGame(parse_tree(tree))
    expected = naive_value(tree)
    result = expectiminimax(game, tree["name"], max_player="max")
    assert result.value == expected
    tracer = RecordingTracer()
    pruned = expectiminimax_alphabeta(game, tree["name"], max_player="max",
                                      utility_bounds=(LOW, HIGH), tracer=tracer)
    assert pruned.value == expected
    if tree["type"] != "chance":
        assert pruned.move == result.move == naive_move(tree)
    truth = RecordingTracer()
    minimax(game, tree["name"], max_player="max", tracer=truth)
    for name, (lower, upper) in tracer.node_bounds().items():
        assert lower <= truth.node_values()[name] <= upper  # type: ignore[operator]


@PROPERTY
@given(trees(["player"], st.lists(st.integers(LOW, HIGH), min_size=3, max_size=3)),
       st.randoms(use_true_random=False))
def test_maxn_agrees_with_the_naive_engine(tree: dict[str, Any], rng: random.Random) -> None:
    players = ["A", "B", "C"]
    for n in _walk(tree):
        if "children" in n:
            n["player"] = rng.choice(players)
    game = TreeGame(parse_tree(tree, players=players))
    assert maxn(game, tree["name"], players=players).value == naive_maxn(tree, players)


def _walk(n: dict[str, Any]) -> list[dict[str, Any]]:
    return [n, *(d for c in n.get("children", []) for d in _walk(c))]


def uniform(branching: int, depth: int, values: list[int]) -> dict[str, Any]:
    """Return a uniform MAX/MIN tree with the given leaf values, left to right."""
    leaves = iter(values)

    def build(level: int) -> Any:
        if level == depth:
            return next(leaves)
        kind = "max" if level % 2 == 0 else "min"
        return (kind, [build(level + 1) for _ in range(branching)], {})

    return named(build(0))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3), st.integers(1, 4), st.randoms(use_true_random=False))
def test_perfect_ordering_evaluates_the_minimum_number_of_leaves(
    branching: int, depth: int, rng: random.Random
) -> None:
    values = list(range(branching**depth))
    rng.shuffle(values)  # distinct leaves: no ties to cut early on
    tree = uniform(branching, depth, values)
    game = TreeGame(parse_tree(tree))
    truth = RecordingTracer()
    minimax(game, tree["name"], tracer=truth)
    exact = {str(k): v for k, v in truth.node_values().items()
             if not isinstance(v, tuple | float)}
    tracer = RecordingTracer()
    alphabeta(game, tree["name"], order=by_value(game, exact, "max"), tracer=tracer)
    expected = branching ** math.ceil(depth / 2) + branching ** math.floor(depth / 2) - 1
    assert len(tracer.evaluated()) == expected


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False)
    | st.sampled_from(["", "x", "1/2", "1/0", "max", "min", "chance", "player", "draw", "A"]),
    lambda kids: st.lists(kids, max_size=3)
    | st.dictionaries(st.sampled_from(["name", "type", "value", "children", "probabilities",
                                       "player", "players", "c", "visits", "wins"]),
                      kids, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SOLVERS)), JSON, JSON)
def test_any_input_is_answered_or_rejected_as_a_problem(kind: str, tree: Any, params: Any) -> None:
    try:
        answer = solve({"format": "gametree/1", "kind": kind, "tree": tree, "params": params})
    except EngineError:
        return
    json.dumps(answer, allow_nan=False)
