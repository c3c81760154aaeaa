"""What a graded part says: which skipped child is wrong, a hint for rounded decimals, and
counts worded in the singular or plural in every language."""

from __future__ import annotations

import copy

import pytest
from django.utils import translation

from grading.feedback import message, render_message
from grading.grader import grade_answer
from tests.grading.conftest import ALPHABETA_PROBLEM
from tests.grading.test_grader import CHANCE_PROBLEM, by_part, context_for

# A is worth 1/3·5 + 2/3·7 = 19/3, which no decimal writes exactly.
THIRDS_PROBLEM = copy.deepcopy(CHANCE_PROBLEM)
THIRDS_PROBLEM["tree"]["children"][0].update(probabilities=["1/3", "2/3"], children=[
    {"name": "A1", "value": 5}, {"name": "A2", "value": 7}])
THIRDS_PROBLEM["ask"]["node_values"] = ["A"]


def test_the_key_lists_the_cut_at_a_last_child_as_optional() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    # D's last leaf D3=2 reaches alpha=3: a cut that skips nothing.
    assert context.expected["cutoffs"] == [
        {"node": "C", "pruned": ["C2", "C3"]},
        {"node": "D", "pruned": [], "optional": True},
    ]
    for listed in ([{"node": "C", "pruned": ["C2", "C3"]}],
                   [{"node": "C", "pruned": ["C2", "C3"]}, {"node": "D", "pruned": []}]):
        assert by_part(grade_answer(context, {"cutoffs": listed}))["cutoffs"]["verdict"] == \
            "correct"


@pytest.mark.parametrize("listed", [
    [],
    [{"node": "C", "pruned": ["C3"]}],
    [{"node": "C", "pruned": ["C1", "C2"]}],
    [{"node": "B", "pruned": ["B3"]}],
])
@pytest.mark.parametrize("first", [False, True], ids=["after", "before"])
def test_listing_a_cut_that_skips_nothing_changes_neither_score_nor_count(listed, first
                                                                          ) -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    d = {"node": "D", "pruned": []}  # D's cut skips nothing: not to list
    with_d = [d, *listed] if first else [*listed, d]  # out of order too
    without, padded = (by_part(grade_answer(context, {"cutoffs": cuts}))["cutoffs"]
                       for cuts in (listed, with_d))
    assert padded["points"] == without["points"] and padded["verdict"] == without["verdict"]
    if not first:  # the message numbers listed entries: D first moves their numbers
        assert padded["messages"] == without["messages"]  # "makes 1 cutoff" both times


def test_a_cut_that_skips_nothing_listed_with_children_costs_as_a_wrong_cutoff() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    right = [{"node": "C", "pruned": ["C2", "C3"]}]
    part = by_part(grade_answer(context, {"cutoffs": [*right, {"node": "D", "pruned": ["D3"]}]}))[
        "cutoffs"]
    assert part["verdict"] == "partial" and part["points"] == part["max_points"] * 3 / 4
    assert {"code": "cutoff_pruned_extra", "params": {"node": "D", "names": ["D3"]}} in (
        part["messages"])


@pytest.mark.parametrize("pruned", [[], ["C1"], ["C2"]])
def test_a_cutoff_at_the_right_node_skipping_the_wrong_children_earns_half(pruned) -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    part = by_part(grade_answer(context, {"cutoffs": [{"node": "C", "pruned": pruned}]}))[
        "cutoffs"]
    assert part["verdict"] == "partial"
    assert part["points"] == part["max_points"] / 2


def test_a_wrong_skipped_child_is_named() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    part = by_part(grade_answer(context, {"cutoffs": [{"node": "C", "pruned": ["C1", "C2"]}]}))[
        "cutoffs"]
    codes = {m["code"]: m["params"] for m in part["messages"]}
    assert codes["cutoff_pruned_extra"] == {"node": "C", "names": ["C1"]}
    assert codes["cutoff_pruned_missing"] == {"node": "C", "count": 1}
    assert render_message(message("cutoff_pruned_extra", node="C", names=["C1"])) == \
        "The cutoff at C does not skip C1: it is searched."


def test_a_rounded_value_gets_a_hint_without_the_value() -> None:
    context = context_for("expectiminimax", THIRDS_PROBLEM)
    assert context.expected["value"] == "19/3"
    parts = by_part(grade_answer(context, {"value": "6.3333", "node_values": {"A": 6.33}}))
    assert parts["value"]["messages"] == [{"code": "value_inexact", "params": {"given": "6.3333"}}]
    text = render_message(parts["value"]["messages"][0])
    assert "exact" in text and "19/3" not in text
    assert any(m["code"] == "node_values_inexact" for m in parts["node_values"]["messages"])


def test_feedback_quotes_a_wrong_number_as_written() -> None:
    # 6.5 read as a fraction would be quoted back as 13/2, a number the student never wrote.
    context = context_for("expectiminimax", THIRDS_PROBLEM)
    parts = by_part(grade_answer(context, {"value": 6.5, "node_values": {"A": " 6.50"}}))
    assert parts["value"]["messages"] == [{"code": "value_wrong", "params": {"given": "6.5"}}]
    quoted = {m["params"].get("given") for m in parts["node_values"]["messages"]}
    assert "6.50" in quoted and "13/2" not in quoted
    parts = by_part(grade_answer(context, {"value": "-inf", "node_values": {"A": "13/2"}}))
    assert parts["value"]["messages"][0]["params"] == {"given": "-∞"}


@pytest.mark.parametrize(("lang", "one", "two"), [
    ("en", "makes 1 cutoff;", "makes 2 cutoffs;"),
    ("pt", "faz 1 corte;", "faz 2 cortes;"),
    ("ca", "fa 1 tall;", "fa 2 talls;"),
])
def test_counts_are_worded_by_number(lang: str, one: str, two: str) -> None:
    with translation.override(lang):
        assert one in render_message(message("cutoff_count", expected=1, given=2))
        assert two in render_message(message("cutoff_count", expected=2, given=1))


def test_a_single_skipped_child_is_singular() -> None:
    params = {"leaf": "B3", "number": 1, "node": "B", "alpha": "3", "beta": "2"}
    assert render_message(message("missed_cutoff", **params, pruned=["B3"])).endswith(
        "so B3 is skipped.")
    assert render_message(message("missed_cutoff", **params, pruned=["B2", "B3"])).endswith(
        "so B2, B3 are skipped.")


@pytest.mark.parametrize(("lang", "one", "two"), [
    ("en", "make 1 cutoff.", "make 2 cutoffs."),
    ("pt", "faz 1 corte.", "faz 2 cortes."),
    ("pt-br", "faz 1 corte.", "faz 2 cortes."),
    ("ca", "fa 1 tall.", "fa 2 talls."),
])
def test_withheld_counts_are_worded_by_number(lang: str, one: str, two: str) -> None:
    # Served under verdicts, the student's own count is all that is left of the message.
    with translation.override(lang):
        assert render_message({"code": "cutoff_count_withheld", "params": {"given": 1}}
                              ).endswith(one)
        assert render_message({"code": "cutoff_count_withheld", "params": {"given": 2}}
                              ).endswith(two)


@pytest.mark.parametrize(("code", "params", "one"), [
    ("evaluated_too_few", {"count": 1, "reference": "A1"}, "You evaluated 1 state;"),
    ("evaluated_too_few_withheld", {"count": 1}, "You evaluated 1 state;"),
    ("evaluated_too_many", {"count": 1, "n": 2, "yours": "A2"}, "after 1 evaluation;"),
    ("backprop_shape", {"count": 1, "returned": "[]"}, "(1 pair)"),
])
def test_code_test_counts_are_worded_by_number(code: str, params: dict[str, object],
                                               one: str) -> None:
    from grading.code.feedback import render_message as render_code_message

    assert one in render_code_message({"code": code, "params": params})
    plural = one.replace("1 state", "2 states").replace("1 evaluation", "2 evaluations"
                                                        ).replace("1 pair", "2 pairs")
    assert plural in render_code_message({"code": code, "params": {**params, "count": 2}})
