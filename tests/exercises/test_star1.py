"""The ``star1`` kind: a hand-solved Star1 tree, generation under its quality rules, params."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.utils import translation

from exercises.kinds import get_kind
from exercises.kinds.params import ParamError


def leaf(name: str, value: int) -> dict[str, Any]:
    return {"name": name, "value": value}


def chance(name: str, probabilities: list[str], *values: int) -> dict[str, Any]:
    return {"name": name, "type": "chance", "probabilities": probabilities,
            "children": [leaf(f"{name}{i + 1}", v) for i, v in enumerate(values)]}


HAND_TREE = {"name": "root", "type": "max", "children": [
    chance("A", ["1/2", "1/2"], 6, 8),
    chance("B", ["1/4", "3/4"], 2, 6),
    chance("C", ["1/2", "1/2"], 4, 3),
    chance("D", ["1/2", "1/4", "1/4"], 8, 0, 0),
]}


def hand_problem(*, cut_on_equality: bool) -> dict[str, Any]:
    return {"format": "gametree/1", "kind": "expectiminimax", "tree": HAND_TREE,
            "params": {"utility_bounds": [0, 10], "cut_on_equality": cut_on_equality}}


def test_the_key_of_a_hand_solved_tree_follows_ballards_star1_rule() -> None:
    # Ballard (1983), Star1: at a chance node with probabilities p_i, after searching children
    # 1..k the node's value lies between sum(p_i v_i) + (remaining probability) * L and
    # sum(p_i v_i) + (remaining probability) * U; it cuts when the upper bound <= alpha or
    # the lower bound >= beta. Here L = 0, U = 10 and the MAX root raises alpha.
    # A: 6/2 + 8/2 = 7, so alpha = 7.
    # B: after B1, 2/4 + (3/4)*10 = 8 > 7, go on; B = 2/4 + 18/4 = 5 (alpha stays 7).
    # C: after C1, 4/2 + (1/2)*10 = 7 <= 7, cut on equality: C2 is pruned, C returns 7.
    # D: after D1, 8/2 + (1/2)*10 = 9 > 7; after D2, 4 + 0 + (1/4)*10 = 13/2 <= 7: D3 pruned.
    kind = get_kind("star1")
    problem = hand_problem(cut_on_equality=True)
    key = kind.project(problem, kind.solve(problem))
    assert key == {
        "value": 7,
        "evaluated_count": 7,
        "pruned_leaves": ["C2", "D3"],
        "cutoffs": [{"node": "C", "pruned": ["C2"]}, {"node": "D", "pruned": ["D3"]}],
        "chance_values": {"A": 7, "B": 5, "C": 7, "D": "13/2"},
    }


def test_without_cuts_on_equality_the_tied_bound_searches_on() -> None:
    # C's upper bound 7 equals alpha 7: a strict rule searches C2 (C = 4/2 + 3/2 = 7/2).
    kind = get_kind("star1")
    problem = hand_problem(cut_on_equality=False)
    key = kind.project(problem, kind.solve(problem))
    assert key["pruned_leaves"] == ["D3"] and key["evaluated_count"] == 8
    assert key["cutoffs"] == [{"node": "D", "pruned": ["D3"]}]
    assert key["chance_values"] == {"A": 7, "B": 5, "C": "7/2", "D": "13/2"}


def test_below_a_min_root_the_lower_bound_justifies_the_cut() -> None:
    # MIN root: A = 3 sets beta = 3. B: after B1 = 8, 8/2 + (1/2)*0 = 4 >= 3: B2 is pruned.
    tree = {"name": "root", "type": "min", "children": [
        chance("A", ["1/2", "1/2"], 2, 4), chance("B", ["1/2", "1/2"], 8, 0)]}
    problem = {"format": "gametree/1", "kind": "expectiminimax", "tree": tree,
               "params": {"utility_bounds": [0, 10], "cut_on_equality": True}}
    kind = get_kind("star1")
    key = kind.project(problem, kind.solve(problem))
    assert key["cutoffs"] == [{"node": "B", "pruned": ["B2"]}]
    assert key["chance_values"] == {"A": 3, "B": 4} and key["value"] == 3


def test_generated_trees_cut_by_default_and_keep_leaves_within_the_bounds() -> None:
    kind = get_kind("star1")
    params = kind.clean_params({"lower_bound": -5, "upper_bound": 5})
    found = 0
    for seed in range(40):
        problem = kind.generate(random.Random(seed), params)
        answer = kind.solve(problem)
        if kind.quality_issues(problem, answer, params):
            continue
        found += 1
        assert answer["cutoffs"]
        values = [child["value"] for node in problem["tree"]["children"]
                  for child in node["children"]]
        assert all(-5 <= value <= 5 for value in values)
        assert problem["params"]["utility_bounds"] == [-5, 5]
        # Each named mistake gives its own answer, so grading can tell which one it is.
        key = kind.project(problem, answer)
        wrong = [kind.project(problem, other)
                 for other in kind.misconception_answers(problem).values()]
        distinct = [w for w in wrong if w != key]
        assert all(distinct.count(w) == 1 for w in distinct)
    assert found


@pytest.mark.parametrize(("raw", "field"), [
    ({"lower_bound": 5, "upper_bound": 5}, "upper_bound"),
    ({"chance_nodes": 2, "min_cuts": 2}, "min_cuts"),
    ({"chance": "dice"}, "chance"),
])
def test_bad_params_name_the_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(ParamError) as refused:
        get_kind("star1").clean_params(raw)
    assert refused.value.field == field


@pytest.mark.parametrize("language", ["en", "pt", "ca"])
def test_the_prompt_states_the_bounds_and_the_cut_rule(language: str) -> None:
    kind = get_kind("star1")
    args = {"root_player": "max", "chance": "biased", "lower_bound": -3, "upper_bound": 12,
            "cut_on_equality": False}
    with translation.override(language):
        text = kind.render_prompt(args)
        strict = kind.render_prompt({**args, "cut_on_equality": True})
    assert "L = -3" in text and "U = 12" in text
    assert "S + (1 - P)·U" in text and "S + (1 - P)·L" in text
    assert "< alpha" in text.replace("alfa", "alpha") and text != strict
    if language != "en":
        with translation.override("en"):
            assert kind.render_prompt(args) != text


def test_a_chance_node_whose_first_bound_already_cuts_searches_its_first_outcome() -> None:
    # A = 10 = U raises alpha to U: B's upper bound before any outcome, U, is <= alpha. The
    # search still evaluates B1 (and C1) before cutting, and the prompt says so: read
    # literally, "as soon as its upper bound is <= alpha" cut B and C before their first leaf.
    tree = {"name": "root", "type": "max", "children": [
        chance("A", ["1/2", "1/2"], 10, 10), chance("B", ["1/2", "1/2"], 4, 6),
        chance("C", ["1/2", "1/2"], 2, 9)]}
    problem = {"format": "gametree/1", "kind": "expectiminimax", "tree": tree,
               "params": {"utility_bounds": [0, 10], "cut_on_equality": True}}
    kind = get_kind("star1")
    key = kind.project(problem, kind.solve(problem))
    assert key["evaluated_count"] == 4 and key["pruned_leaves"] == ["B2", "C2"]
    text = kind.render_prompt({"root_player": "max", "chance": "fair_coin", "lower_bound": 0,
                               "upper_bound": 10, "cut_on_equality": True})
    assert "always searches its first outcome" in text
    assert "never before the first" in text


def test_ignoring_the_bounds_is_a_named_misconception_that_evaluates_every_leaf() -> None:
    kind = get_kind("star1")
    problem = hand_problem(cut_on_equality=True)
    ignored = kind.misconception_answers(problem)["star1_bounds_ignored"]
    wrong = kind.project(problem, ignored)
    assert wrong["evaluated_count"] == 9 and wrong["pruned_leaves"] == []
    assert wrong["cutoffs"] == [] and wrong["chance_values"]["C"] == "7/2"


def test_bounds_taken_from_the_wrong_ends_is_a_named_misconception_that_cuts_too_early() -> None:
    # With the upper bound S + (1 - P)*L: after B1, 2/4 + 0 = 1/2 <= 7, so B2 is cut too.
    kind = get_kind("star1")
    problem = hand_problem(cut_on_equality=True)
    swapped = kind.project(problem, kind.misconception_answers(problem)["star1_bounds_swapped"])
    assert swapped["pruned_leaves"] == ["B2", "C2", "D2", "D3"]
    assert swapped["chance_values"] == {"A": 7, "B": "1/2", "C": 2, "D": 4}
