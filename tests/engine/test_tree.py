"""Parsing and validating gametree/1 trees, and playing them as a Game."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from engine.errors import GameError, ProblemError
from engine.game import CHANCE
from engine.tree import TreeGame, parse_number, parse_tree


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children), **extra}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(3, 3), (-2, -2), (3.5, Fraction(7, 2)), ("7/2", Fraction(7, 2)), ("4/2", 2),
     ("0.1", Fraction(1, 10)), (0.1, Fraction(1, 10)), ("-1/3", Fraction(-1, 3)),
     ("1.5E+3", 1500), (".5", Fraction(1, 2)), ("3.", 3)],
)
def test_numbers_parse_exactly(raw: Any, expected: Any) -> None:
    value = parse_number(raw, what="a value", node="n")
    assert value == expected
    assert type(value) is type(expected)


# Fraction() alone would take the last four; other readers of the format would not.
@pytest.mark.parametrize("raw", [True, None, "abc", "1/0", [1], float("inf"), float("nan"),
                                 "1_000", " 2 ", "\u0661\u0662", "\uff11\uff12"])
def test_non_numbers_are_rejected_naming_the_node(raw: Any) -> None:
    with pytest.raises(ProblemError, match='node "n"') as error:
        parse_number(raw, what="a leaf value", node="n")
    assert error.value.node == "n"


def test_parsed_tree_is_indexed_and_immutable() -> None:
    tree = parse_tree(node("max", "r", leaf("a", 1), node("min", "m", leaf("b", "1/2"))))
    assert tree.leaves() == ["a", "b"]
    assert [n.name for n in tree.walk()] == ["r", "a", "m", "b"]
    assert tree.node("b").value == Fraction(1, 2)
    with pytest.raises(TypeError):
        tree.nodes["x"] = tree.root  # type: ignore[index]
    with pytest.raises(AttributeError):
        tree.root.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("raw", "players", "node_name", "rule"),
    [
        (node("max", "B"), None, "B", "a max node needs at least one child"),
        ({"type": "min", "name": "B"}, None, "B", "a min node needs at least one child"),
        (node("max", "r", leaf("x", 1), leaf("x", 2)), None, "x", "unique"),
        (node("max", "r", leaf("r", 1)), None, "r", "unique"),
        (node("maxx", "r", leaf("a", 1)), None, "r", "unknown node type"),
        (node("chance", "C", leaf("a", 1), leaf("b", 2), probabilities=["1/2", "1/3"]),
         None, "C", "sum exactly to 1"),
        (node("chance", "C", leaf("a", 1), leaf("b", 2), probabilities=["1/2"]),
         None, "C", "one per child"),
        (node("chance", "C", leaf("a", 1), leaf("b", 2)), None, "C", "probabilities"),
        (node("chance", "C", leaf("a", 1), leaf("b", 2), probabilities=["3/2", "-1/2"]),
         None, "C", "negative"),
        (node("chance", "C", leaf("a", 1), probabilities=["one"]), None, "C", "probability"),
        (node("player", "p", leaf("a", [1, 2]), player="A"), ["A", "B", "C"], "a",
         "needs 3 values"),
        (node("player", "p", leaf("a", 1), player="A"), ["A", "B"], "a", "needs 2 values"),
        (node("player", "p", leaf("a", [1, 2]), player="Z"), ["A", "B"], "p", "must be one of"),
        (node("player", "p", leaf("a", [1, 2]), player="A"), None, "p", "vector"),
        (node("max", "r", leaf("a", [1, 2])), None, "a", "one number"),
        (node("max", "r", {"name": "a"}), None, "a", 'needs a "value"'),
        (node("max", "r", {"name": "a", "children": []}), None, "a", 'needs a "type"'),
        (node("max", "r", leaf("a", "x/y")), None, "a", "leaf value"),
    ],
)
def test_bad_trees_name_the_node_and_the_rule(
    raw: dict[str, Any], players: list[str] | None, node_name: str, rule: str
) -> None:
    with pytest.raises(ProblemError) as error:
        parse_tree(raw, players=players)
    assert f'node "{node_name}"' in str(error.value)
    assert rule in str(error.value)
    assert error.value.node == node_name


def test_nameless_and_non_object_nodes_are_located_by_position() -> None:
    with pytest.raises(ProblemError, match='child 2 of node "r"'):
        parse_tree(node("max", "r", leaf("a", 1), {"value": 2}))
    with pytest.raises(ProblemError, match="must be a JSON object"):
        parse_tree(node("max", "r", 5))  # type: ignore[arg-type]


def test_too_deep_trees_are_rejected_by_name() -> None:
    raw: dict[str, Any] = leaf("bottom", 0)
    for level in range(250):
        raw = node("max", f"n{level}", raw)
    with pytest.raises(ProblemError, match="at most 200 levels"):
        parse_tree(raw)


def test_tree_game_plays_the_tree() -> None:
    tree = parse_tree(node(
        "max", "r",
        node("chance", "c", leaf("a", 4), leaf("b", "-1/2"), probabilities=[0.25, "3/4"]),
        node("min", "m", leaf("d", 2)),
    ))
    game = TreeGame(tree)
    assert game.to_move("r") == "max"
    assert game.to_move("m") == "min"
    assert game.to_move("c") == CHANCE
    assert game.actions("r") == ("c", "m")
    assert game.result("r", "m") == "m"
    assert game.chance_outcomes("c") == (("a", Fraction(1, 4)), ("b", Fraction(3, 4)))
    assert game.is_terminal("a") and not game.is_terminal("c")
    assert game.utility("b", "max") == Fraction(-1, 2)
    assert game.utility("b", "min") == Fraction(1, 2)
    with pytest.raises(GameError, match="not a child"):
        game.result("r", "a")
    with pytest.raises(GameError, match="leaf"):
        game.to_move("a")
    with pytest.raises(GameError, match="not a leaf"):
        game.utility("r", "max")
    with pytest.raises(GameError, match="no node"):
        game.actions("zzz")


def test_vector_tree_payoffs_by_player() -> None:
    tree = parse_tree(
        node("player", "r", leaf("a", [1, "1/2", 3]), player="B"), players=["A", "B", "C"]
    )
    game = TreeGame(tree)
    assert game.to_move("r") == "B"
    assert [game.utility("a", p) for p in "ABC"] == [1, Fraction(1, 2), 3]
    with pytest.raises(GameError):
        game.utility("a", "max")


def test_inner_value_is_an_estimate_for_depth_limits() -> None:
    tree = parse_tree(node("max", "r", node("min", "m", leaf("a", 1), value=7)))
    game = TreeGame(tree)
    assert game.estimate("m", "max") == 7
    with pytest.raises(ProblemError, match='node "r".*"value" estimate'):
        game.estimate("r", "max")


def test_an_inner_value_of_null_is_no_estimate_and_a_bad_one_is_named_as_such() -> None:
    tree = parse_tree(node("max", "r", node("min", "m", leaf("a", 1), value=None)))
    with pytest.raises(ProblemError, match='node "m".*"value" estimate'):
        TreeGame(tree).estimate("m", "max")
    with pytest.raises(ProblemError) as refused:
        parse_tree(node("max", "r", leaf("a", 1), value="?"))
    assert str(refused.value).startswith('node "r": its "value" estimate must be a number')
