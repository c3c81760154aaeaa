"""The board text form of trees: examples, the round trip, and errors with position and rule."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tree import parse_tree
from exercises.kinds import get_kind
from exercises.tree_text import TreeTextError, auto_name, parse_tree_text, print_tree_text


def test_the_board_example_reads_as_the_json_tree() -> None:
    assert parse_tree_text("MAX(A: MIN(3, 5), B: MIN(2, 9))") == {
        "name": "root", "type": "max", "children": [
            {"name": "A", "type": "min", "children": [{"name": "A1", "value": 3},
                                                       {"name": "A2", "value": 5}]},
            {"name": "B", "type": "min", "children": [{"name": "B1", "value": 2},
                                                       {"name": "B2", "value": 9}]},
        ]}


def test_chance_nodes_take_exact_probabilities_or_are_uniform() -> None:
    tree = parse_tree_text("max(chance([1/3] 3, [2/3] -7/2), CHANCE(1, 2.5, 0))")
    biased, uniform = tree["children"]
    assert biased["probabilities"] == ["1/3", "2/3"]
    assert biased["children"][1]["value"] == "-7/2"
    assert uniform["probabilities"] == ["1/3", "1/3", "1/3"]
    assert uniform["children"][1]["value"] == 2.5
    parse_tree(tree)  # the engine reads it


def test_vector_trees_name_the_mover_and_list_payoffs() -> None:
    tree = parse_tree_text("A(x: B((1, 2, 3), (3, 2, 1)), C((0, 0, 0)))")
    assert tree["type"] == "player" and tree["player"] == "A"
    assert tree["children"][0] == {"name": "x", "type": "player", "player": "B", "children": [
        {"name": "x1", "value": [1, 2, 3]}, {"name": "x2", "value": [3, 2, 1]}]}
    parse_tree(tree, players=["A", "B", "C"])


def test_printing_leaves_out_automatic_names_and_uniform_probabilities() -> None:
    text = "top: MAX(MIN(3, 5), B: CHANCE(2, 9), C: CHANCE([1/4] 1, [3/4] 0))"
    assert print_tree_text(parse_tree_text(text)) == text.replace("B: ", "").replace("C: ", "")


def test_names_that_are_not_identifiers_or_are_keywords_are_quoted() -> None:
    tree = {"name": "max", "type": "max", "children": [
        {"name": "a b", "value": 1}, {"name": 'say "hi"', "value": 2}]}
    text = print_tree_text(tree)
    assert text == '"max": MAX("a b": 1, "say \\"hi\\"": 2)'
    assert parse_tree_text(text) == tree


@pytest.mark.parametrize(
    ("text", "column", "rule"),
    [
        ("MAX(3,", 7, "expected a node"),
        ("MAX(3 5)", 7, "expected ','"),
        ("MIN(A: 3, A: 4)", 11, 'the name "A" is used twice'),
        ("MAX(A, 3)", 5, "expected a node"),
        ("MAX([1/2] 3, 4)", 5, "only a CHANCE node's branches"),
        ("CHANCE([1/2] 3, 4)", 17, "every branch of a CHANCE node a probability"),
        ("CHANCE(3, [1/2] 4)", 11, "every branch of a CHANCE node a probability"),
        ("MAX(3)x", 7, "nothing may follow"),
        ("MAX(3, $)", 8, "unexpected character"),
        ("MAX((1, x))", 9, "a payoff vector lists numbers"),
        ("", 1, "expected a node"),
        ("MAX(1.5e3)", 5, "a number is written like"),
        ("MAX(3., 4)", 5, "a number is written like"),
    ],
)
def test_errors_give_the_column_and_the_rule(text: str, column: int, rule: str) -> None:
    with pytest.raises(TreeTextError) as refused:
        parse_tree_text(text)
    assert refused.value.column == column, str(refused.value)
    assert rule in refused.value.rule
    assert str(refused.value).startswith(f"column {column}: ")


def test_errors_on_later_lines_give_the_line() -> None:
    with pytest.raises(TreeTextError) as refused:
        parse_tree_text("MAX(\n  MIN(3, 5),\n  MIN(2 9))")
    assert (refused.value.line, refused.value.column) == (3, 9)
    assert str(refused.value).startswith("line 3, column 9: ")


def test_too_deep_and_too_long_texts_are_refused() -> None:
    with pytest.raises(TreeTextError, match="levels deep"):
        parse_tree_text("MAX(" * 300 + "1" + ")" * 300)
    with pytest.raises(TreeTextError, match="at most"):
        parse_tree_text("MAX(" + ", ".join(["1"] * 10_000) + ")")


def test_what_the_text_form_cannot_say_is_refused_when_printing() -> None:
    with pytest.raises(ValueError, match="no exact text form"):
        print_tree_text({"name": "r", "type": "max", "children": [{"name": "a", "value": "3.50"}]})
    with pytest.raises(ValueError, match="estimates"):
        print_tree_text({"name": "r", "type": "max", "value": 3,
                         "children": [{"name": "a", "value": 1}]})


# --- the round trip ---------------------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(-10**6, 10**6),
    st.tuples(st.integers(-99, 99), st.integers(2, 99)).map(lambda pq: f"{pq[0]}/{pq[1]}"),
    st.decimals(-1000, 1000, places=3, allow_nan=False, allow_infinity=False).map(
        lambda d: float(d)).filter(lambda f: not f.is_integer()),
)
NAMES = st.sampled_from(["n", "Max_", "with space", 'quo"te', "é", "3", "x:y"])


@st.composite
def trees(draw: st.DrawFn) -> dict[str, Any]:
    """Draw a tree of any node types, names automatic or not, and every kind of number."""
    counter = itertools.count()
    players = draw(st.integers(2, 4))

    def node(auto: str, depth: int) -> dict[str, Any]:
        # "~" on both sides: no automatic name (a parent's name plus a digit or letter)
        # can ever equal one of these.
        name = auto if draw(st.booleans()) else f"{draw(NAMES)}~{next(counter)}~"
        if depth >= 3 or draw(st.integers(0, 3)) == 0:
            if draw(st.booleans()):
                return {"name": name, "value": draw(NUMBERS)}
            return {"name": name, "value": draw(st.lists(NUMBERS, min_size=players,
                                                         max_size=players))}
        node_type = draw(st.sampled_from(["max", "min", "chance", "player"]))
        count = draw(st.integers(1, 5))
        built: dict[str, Any] = {"name": name, "type": node_type}
        if node_type == "player":
            built["player"] = draw(st.sampled_from(["A", "B", "Carla", "max player"]))
        built["children"] = [node(auto_name(name, i, depth + 1), depth + 1)
                             for i in range(count)]
        if node_type == "chance":
            built["probabilities"] = draw(st.one_of(
                st.just([str(1 if count == 1 else f"1/{count}")] * count),
                st.lists(NUMBERS, min_size=count, max_size=count),
            ))
        return built

    return node("root", 0)


@settings(max_examples=300, deadline=None)
@given(trees())
def test_printing_then_reading_gives_the_tree_back(tree: dict[str, Any]) -> None:
    text = print_tree_text(tree)
    assert parse_tree_text(text) == tree
    assert print_tree_text(parse_tree_text(text)) == text


@pytest.mark.parametrize("kind_name", ["minimax", "alphabeta", "move_ordering", "expectimax",
                                       "expectiminimax", "vector", "star1"])
def test_every_generated_tree_prints_and_reads_back(kind_name: str) -> None:
    kind = get_kind(kind_name)
    params = kind.clean_params({})
    for seed in range(30):
        tree = kind.generate(random.Random(seed), params)["tree"]
        assert parse_tree_text(print_tree_text(tree)) == tree


def test_a_decimal_a_float_cannot_hold_stays_exact() -> None:
    tree = parse_tree_text("MAX(A: 0.30000000000000001, B: 0.3, C: 2.5)")
    assert [child["value"] for child in tree["children"]] == [
        "0.30000000000000001", 0.3, 2.5]
