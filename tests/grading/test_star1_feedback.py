"""What grading says about a Star1 answer: chance nodes are explained by their bounds
against the window, never by a MIN node's rule, and a cut chance node by the bound it
returns; under the verdicts policy none of it tells which chance node cuts."""

from __future__ import annotations

from typing import Any

from grading.feedback import render_message
from grading.feedback_policy import served_results
from grading.grader import grade_answer
from tests.exercises.test_star1 import chance, hand_problem
from tests.grading.test_grader import by_part, context_for


def first_message(problem: dict[str, Any], answer: dict[str, Any], part: str,
                  **params: Any) -> str:
    result = by_part(grade_answer(context_for("star1", problem, **params), answer))[part]
    return render_message(result["messages"][0])


def test_pruning_a_chance_node_too_early_is_explained_by_its_range() -> None:
    # B after B1=2 (1/4): between 2/4 + (3/4)·0 = 1/2 and 2/4 + (3/4)·10 = 8; alpha is 7.
    text = first_message(hand_problem(cut_on_equality=True), {"pruned_leaves": ["B2", "C2", "D3"]},
                         "pruned_leaves")
    assert text == (
        "You pruned B2, but at chance node B the window was α=7, β=∞ and the outcomes "
        "searched before it (B1=2) leave its value between 1/2 and 8: a chance node stops "
        "only once its upper bound is at most α or its lower bound at least β.")
    assert "MIN" not in text
    strict = first_message(hand_problem(cut_on_equality=False), {"pruned_leaves": ["B2", "D3"]},
                           "pruned_leaves", cut_on_equality=False)
    assert strict.endswith("its upper bound is below α or its lower bound above β.")


def test_a_missed_chance_cutoff_names_the_bound_that_cut() -> None:
    text = first_message(hand_problem(cut_on_equality=True), {"pruned_leaves": ["D3"]},
                         "pruned_leaves")
    assert text == ("You evaluated C2, but cutoff 1 happens before it at chance node C: there "
                    "its upper bound, 7, leaves it no value above α=7, so C2 is skipped.")
    # Below a MIN root the lower bound cuts: B after B1=8 is at least 8/2 + (1/2)·0 = 4 >= 3.
    tree = {"name": "root", "type": "min", "children": [
        chance("A", ["1/2", "1/2"], 2, 4), chance("B", ["1/2", "1/2"], 8, 0)]}
    below_min = {"format": "gametree/1", "kind": "expectiminimax", "tree": tree,
                 "params": {"utility_bounds": [0, 10], "cut_on_equality": True}}
    text = first_message(below_min, {"pruned_leaves": []}, "pruned_leaves")
    assert text == ("You evaluated B2, but cutoff 1 happens before it at chance node B: there "
                    "its lower bound, 4, leaves it no value below β=3, so B2 is skipped.")
    value = first_message(below_min, {"chance_values": {"A": 3, "B": 2}}, "chance_values")
    assert value == (
        "B stops at cutoff 1, so it returns the bound that justified the cutoff: its lower "
        "bound, the weighted values of the outcomes it searched (B1=8; probabilities 1/2, "
        "1/2) plus the probability of the others times L=0, not 2.")


def test_a_cut_chance_node_returns_its_bound_not_its_average() -> None:
    problem = hand_problem(cut_on_equality=True)
    # C's exact average, 7/2, is not what C returns: it stops after C1 with the bound 7.
    text = first_message(problem, {"chance_values": {"A": 7, "B": 5, "C": "7/2", "D": "13/2"}},
                         "chance_values")
    assert text == (
        "C stops at cutoff 1, so it returns the bound that justified the cutoff: its upper "
        "bound, the weighted values of the outcomes it searched (C1=4; probabilities 1/2, "
        "1/2) plus the probability of the others times U=10, not 7/2.")


def test_under_verdicts_a_chance_nodes_message_does_not_tell_whether_it_cuts() -> None:
    problem = hand_problem(cut_on_equality=True)
    context = context_for("star1", problem)
    cut = grade_answer(context, {"chance_values": {"A": 7, "B": 5, "C": 6, "D": "13/2"}})
    searched = grade_answer(context, {"chance_values": {"A": 7, "B": 6, "C": 7, "D": "13/2"}})
    served = [
        [render_message(m) for m in part["messages"]]
        for result in (cut, searched)
        for part in served_results(result.results, "verdicts", all_or_nothing=())
        if part["part"] == "chance_values"
    ]
    assert served[0][0] == (
        "C is a chance node: it returns the average of its children's values weighted by "
        "their probabilities when it searches every outcome, and the bound that justified "
        "its cutoff when it stops early; not 6.")
    assert served[1][0] == served[0][0].replace("C is", "B is")
