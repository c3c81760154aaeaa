"""Each kind's grader against right, partly right and typical wrong answers."""

from __future__ import annotations

import copy
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from exercises.kinds import get_kind
from exercises.models import Item, VariantItem
from exercises.services import split_points
from grading.feedback import render_results
from grading.grader import GradingContext, grade_answer
from grading.scoring import NET_CORRECT, score_part
from tests.grading.conftest import (
    ALPHABETA_NO_CUT_AT_C,
    ALPHABETA_PROBLEM,
    MINIMAX_PROBLEM,
)


def context_for(kind_name: str, problem: dict[str, Any], points: str = "6",
                **params: Any) -> GradingContext:
    """Return a grading context for an unsaved item of ``kind_name`` and ``problem``."""
    kind = get_kind(kind_name)
    cleaned = kind.clean_params(params)
    item = Item(kind=kind_name, params=cleaned, points=Decimal(points), position=1,
                part_points=split_points(kind_name, cleaned, Decimal(points)))
    answer = kind.solve(copy.deepcopy(problem))
    return GradingContext(item, problem, kind.project(problem, answer), {"answer": answer})


def with_conventions(problem: dict[str, Any], **conventions: bool) -> dict[str, Any]:
    """Return a copy of an alpha-beta ``problem`` under other conventions."""
    changed = copy.deepcopy(problem)
    changed["params"] = {**changed.get("params", {}), **conventions}
    return changed


def by_part(result: Any) -> dict[str, dict[str, Any]]:
    return {part["part"]: part for part in result.results}


def test_alphabeta_right_answer_scores_full_marks() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    result = grade_answer(context, context.expected)
    assert result.raw_score == result.max_score == 6
    assert all(part["verdict"] == "correct" and not part["messages"]
               for part in result.results)


def test_alphabeta_partly_right_answer_gets_partial_credit_per_part() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    answer = {**context.expected, "pruned_leaves": ["C2"], "value": "7/2"}
    parts = by_part(grade_answer(context, answer))
    assert parts["value"]["verdict"] == "wrong" and parts["value"]["points"] == 0
    # Net-correct: one of the two pruned leaves, nothing wrong → half the set's points.
    assert parts["pruned_leaves"]["verdict"] == "partial"
    assert parts["pruned_leaves"]["points"] == parts["pruned_leaves"]["max_points"] / 2
    assert parts["move"]["verdict"] == "correct"


def test_alphabeta_all_or_nothing_sets_are_the_instructors_choice() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    context.item.params["set_scoring"] = "all_or_nothing"
    parts = by_part(grade_answer(context, {**context.expected, "pruned_leaves": ["C2"]}))
    assert parts["pruned_leaves"]["points"] == 0


def test_missing_parts_score_nothing_and_say_so() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    result = grade_answer(context, {"value": 3})
    parts = by_part(result)
    assert parts["value"]["verdict"] == "correct"
    assert parts["cutoffs"]["verdict"] == "missing"
    assert parts["cutoffs"]["messages"] == [{"code": "part_missing", "params": {}}]
    assert result.raw_score == Fraction(parts["value"]["max_points"]).limit_denominator()


def test_pruning_a_leaf_the_search_reads_names_the_window_that_forbids_it() -> None:
    context = context_for("alphabeta", ALPHABETA_NO_CUT_AT_C)
    assert context.expected["pruned_leaves"] == ["D3"]
    answer = {**context.expected, "pruned_leaves": ["C3", "D3"]}
    part = by_part(grade_answer(context, answer))["pruned_leaves"]
    step = part["messages"][0]
    assert step["code"] == "pruned_too_early_min"
    assert step["params"] == {"pruned": "C3", "node": "C", "alpha": "3", "beta": "∞",
                              "child": "C1", "value": "5"}
    assert part["trace_step"]["event"] == "enter" and part["trace_step"]["node"] == "C"
    text = render_results([part], labels={}, show_expected=False)[0]["messages"][0]["text"]
    assert text == ("You pruned C3, but at C the window was α=3, β=∞ and C1=5 does not reach "
                    "α; MIN only stops when its value ≤ α.")


def test_evaluating_a_pruned_leaf_names_the_cutoff_that_skips_it() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    part = by_part(grade_answer(context, {**context.expected, "pruned_leaves": ["C3"]}))
    step = part["pruned_leaves"]["messages"][0]
    assert step == {"code": "missed_cutoff", "params": {
        "leaf": "C2", "number": 1, "node": "C", "alpha": "3", "beta": "2",
        "pruned": ["C2", "C3"]}}
    assert part["pruned_leaves"]["trace_step"]["event"] == "cutoff"


EQUALITY_PROBLEM = copy.deepcopy(ALPHABETA_PROBLEM)
EQUALITY_PROBLEM["tree"]["children"][1]["children"][0]["value"] = 3  # C1 = alpha: cut on =
EQUAL_AND_STRICT_CUTS = copy.deepcopy(EQUALITY_PROBLEM)
EQUAL_AND_STRICT_CUTS["tree"]["children"][2]["children"][1]["value"] = 1  # D2 < alpha: cut


@pytest.mark.parametrize(("code", "problem"), [
    ("alpha_beta_swapped", ALPHABETA_PROBLEM),
    # Not cutting on equality still cuts at D: unlike not pruning at all.
    ("no_cut_on_equality", EQUAL_AND_STRICT_CUTS),
    ("no_pruning", EQUAL_AND_STRICT_CUTS),
    ("right_to_left", ALPHABETA_PROBLEM),
    ("cut_too_early", ALPHABETA_PROBLEM),
    ("beta_updated_at_max", ALPHABETA_PROBLEM),
    ("alpha_updated_at_min", ALPHABETA_PROBLEM),
    ("root_alpha_not_raised", ALPHABETA_PROBLEM),
    ("largest_leaf_branch", ALPHABETA_PROBLEM),
    # Keeping a convention the problem turns off: the textbook's search, here a mistake.
    ("cut_on_equality_not_asked", with_conventions(EQUAL_AND_STRICT_CUTS, cut_on_equality=False)),
    ("root_alpha_raised_not_asked", with_conventions(ALPHABETA_PROBLEM, root_raises_alpha=False)),
])
def test_each_alphabeta_misconception_is_named(code: str, problem: dict[str, Any]) -> None:
    context = context_for("alphabeta", problem)
    wrong = context.misconception_expectations[code]
    assert wrong != context.expected
    result = grade_answer(context, wrong)
    named = {p["misconception"] for p in result.results if p["verdict"] != "correct"}
    assert named == {code}, (code, result.results)


def test_misconceptions_agreeing_on_the_answered_parts_tie_and_none_is_named() -> None:
    # Without the windows, not cutting on equality and not raising alpha at the root give
    # the same answer here: neither explains it better, so neither is named.
    context = context_for("alphabeta", EQUALITY_PROBLEM)
    produced = context.misconception_expectations
    # They differ only by cuts at a node's last child, which the key marks optional: the
    # answer leaving them out earns full marks with either misconception's as the key.
    parts = {part.name: part for part in context.parts}
    cuts_listed = {name: value for name, value in produced["no_cut_on_equality"].items()
                   if name != "windows"}
    answer = {name: value for name, value in produced["root_alpha_not_raised"].items()
              if name != "windows"}
    assert [cut for cut in cuts_listed["cutoffs"] if not cut.get("optional")] == (
        answer["cutoffs"])
    assert all(score_part(parts[name], answer[name], cuts_listed[name],
                          set_rule=NET_CORRECT).fraction == 1 for name in answer)
    result = grade_answer(context, answer)
    assert {part["misconception"] for part in result.results} == {None}
    assert all(part["messages"] for part in result.results if part["verdict"] == "wrong")


def test_a_misconception_agrees_on_a_decision_only_when_its_own_move_keys_every_name_given(
) -> None:
    # B and C tie at the root: the key lists both. Swapping alpha and beta changes only the
    # windows here; its own answer names the one move B (its search bounds the children it
    # prunes, so it has no exact values to tie them by) and lists the cut at D's last child.
    context = context_for("alphabeta", EQUALITY_PROBLEM)
    assert context.expected["move"] == ["B", "C"]
    swapped = context.misconception_expectations["alpha_beta_swapped"]
    assert swapped["move"] == "B"
    answer = {**context.expected, "windows": swapped["windows"]}
    # With B alone the swapped search explains everything written: optional cuts left out.
    parts = by_part(grade_answer(context, {**answer, "move": "B"}))
    assert parts["windows"]["misconception"] == "alpha_beta_swapped"
    assert {p["misconception"] for name, p in parts.items() if name != "windows"} == {None}
    # Writing C too (right: the key lists it) is more than its answer says: not named.
    parts = by_part(grade_answer(context, answer))
    assert parts["move"]["verdict"] == "correct"
    assert {p["misconception"] for p in parts.values()} == {None}


def test_minimax_node_values_are_scored_per_node_and_explained_by_the_rule() -> None:
    context = context_for("minimax", MINIMAX_PROBLEM)
    assert context.expected == {"value": 3, "move": "B", "node_values": {"B": 3, "C": 2}}
    parts = by_part(grade_answer(context, {"value": 3, "move": "B",
                                           "node_values": {"B": 3, "C": 4}}))
    values = parts["node_values"]
    assert values["verdict"] == "partial" and values["points"] == values["max_points"] / 2
    assert values["messages"][0] == {"code": "node_value_min", "params": {
        "node": "C", "children": ["C1=2", "C2=4", "C3=6"], "given": "4"}}


def test_minimax_largest_leaf_misconception_is_named() -> None:
    context = context_for("minimax", MINIMAX_PROBLEM)
    parts = by_part(grade_answer(context, {"value": 14, "move": "D",
                                           "node_values": {"B": 12, "C": 6}}))
    assert parts["value"]["misconception"] == "largest_leaf_branch"
    assert parts["node_values"]["misconception"] == "largest_leaf_branch"
    rendered = render_results([parts["value"]], labels={}, show_expected=False)[0]
    assert "largest leaf" in rendered["misconception_text"]


def test_a_correct_part_is_never_blamed_on_a_misconception() -> None:
    context = context_for("minimax", MINIMAX_PROBLEM)
    parts = by_part(grade_answer(context, {"value": 3, "move": "D"}))
    assert parts["value"]["misconception"] is None


def test_fractions_and_decimals_are_the_same_exact_number() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    for written in (3, "3", "3.0", "6/2", 3.0):
        assert by_part(grade_answer(context, {"value": written}))["value"]["verdict"] == "correct"


def test_multiple_choice_names_the_misconception_whose_answer_is_the_option(db: None) -> None:
    problem = {**MINIMAX_PROBLEM, "options": [
        {"id": "a", "value": 3}, {"id": "b", "value": 14}, {"id": "c", "value": 99}]}
    context = context_for("minimax", problem, answer_format="multiple_choice")
    context.expected = {"choice": "a"}
    assert context.misconception_expectations["largest_leaf_branch"]["value"] == 14
    parts = by_part(grade_answer(context, {"choice": "b"}))
    assert parts["choice"]["verdict"] == "wrong"
    assert parts["choice"]["misconception"] == "largest_leaf_branch"
    # An option no misconception answers is wrong without a named mistake.
    assert by_part(grade_answer(context, {"choice": "c"}))["choice"]["misconception"] is None
    assert by_part(grade_answer(context, {"choice": "a"}))["choice"]["verdict"] == "correct"


def test_stored_variant_items_carry_what_grading_needs(alphabeta_set: Any) -> None:
    _, variant = alphabeta_set
    variant_item = VariantItem.objects.get(variant=variant)
    assert "trace" in variant_item.trace["answer"]


@pytest.mark.parametrize(("language", "start"), [
    ("pt", "Podou C3, mas em C a janela era α=3, β=∞ e C1=5 não chega a α"),
    ("ca", "Heu podat C3, però a C la finestra era α=3, β=∞ i C1=5 no arriba a α"),
])
def test_feedback_is_translated_when_rendered(language: str, start: str) -> None:
    from django.utils import translation

    context = context_for("alphabeta", ALPHABETA_NO_CUT_AT_C)
    part = by_part(grade_answer(context, {"pruned_leaves": ["C3", "D3"]}))["pruned_leaves"]
    with translation.override(language):
        rendered = render_results([part], labels={}, show_expected=False)[0]
    assert rendered["messages"][0]["text"].startswith(start)
    assert rendered["messages"][0]["params"]["node"] == "C"


def test_a_wrong_cutoff_is_explained_by_the_window_where_it_was_placed() -> None:
    context = context_for("alphabeta", ALPHABETA_NO_CUT_AT_C)
    answer = {"cutoffs": [{"node": "C", "pruned": ["C3"]}, *context.expected["cutoffs"]]}
    part = by_part(grade_answer(context, answer))["cutoffs"]
    assert part["verdict"] == "partial"
    assert part["messages"][0]["code"] == "pruned_too_early_min"
    assert part["messages"][0]["params"]["pruned"] == "C3"
    assert part["messages"][1] == {"code": "cutoff_wrong_node",
                                   "params": {"number": 1, "given": "C"}}


CHANCE_PROBLEM: dict[str, Any] = {
    "format": "gametree/1",
    "kind": "expectiminimax",
    "tree": {"name": "root", "type": "max", "children": [
        {"name": "A", "type": "chance", "probabilities": ["1/4", "3/4"], "children": [
            {"name": "A1", "value": 8}, {"name": "A2", "value": 0}]},
        {"name": "B", "type": "chance", "probabilities": ["1/2", "1/2"], "children": [
            {"name": "B1", "value": 3}, {"name": "B2", "value": 3}]},
    ]},
    "params": {},
    "ask": {"node_values": ["A", "B"], "minimax_move": False},
}


def test_averaging_without_probabilities_is_named_and_the_chance_rule_explained() -> None:
    context = context_for("expectiminimax", CHANCE_PROBLEM)
    assert context.expected == {"value": 3, "move": "B", "node_values": {"A": 2, "B": 3}}
    parts = by_part(grade_answer(context, {"value": 4, "move": "A",
                                           "node_values": {"A": 4, "B": 3}}))
    assert {parts[name]["misconception"] for name in ("value", "move", "node_values")} == {
        "chance_unweighted_average"}
    assert parts["node_values"]["messages"][0] == {"code": "node_value_chance", "params": {
        "node": "A", "children": ["A1=8", "A2=0"], "probabilities": ["1/4", "3/4"],
        "given": "4"}}
    rendered = render_results([parts["value"]], labels={}, show_expected=False)[0]
    assert rendered["misconception_text"] == (
        "You averaged the chance outcomes without their probabilities.")


def test_counting_the_root_as_depth_one_is_named() -> None:
    problem = copy.deepcopy(MINIMAX_PROBLEM)
    problem["params"] = {"depth_limit": 2}
    for estimate, inner in zip((4, 1, 9), problem["tree"]["children"], strict=True):
        inner["value"] = estimate  # what a depth-limited search scores B, C, D with
    context = context_for("minimax", problem)
    wrong = context.misconception_expectations["depth_off_by_one"]
    assert wrong["value"] != context.expected["value"]
    parts = by_part(grade_answer(context, wrong))
    assert parts["value"]["misconception"] == "depth_off_by_one"


# --- fixes: the set scoring rule is a declared param, honoured end to end ----------------


def test_kinds_with_set_parts_declare_the_set_scoring_rule_with_its_default() -> None:
    from exercises.kinds import all_kinds
    from exercises.kinds.base import PartType

    for kind in all_kinds():
        params = kind.clean_params({})
        if any(part.type is PartType.SET for part in kind.open_parts(params)):
            assert params["set_scoring"] == "net_correct", kind.name
            assert kind.clean_params({"set_scoring": "all_or_nothing"})["set_scoring"] == (
                "all_or_nothing")
    assert get_kind("alphabeta").params_schema()["properties"]["set_scoring"]["enum"] == [
        "net_correct", "all_or_nothing"]


@pytest.mark.parametrize(("rule", "earned"), [("net_correct", "1/2"), ("all_or_nothing", "0")])
def test_submissions_are_graded_with_the_items_set_scoring_rule(
    course: Any, instructor: Any, student: Any, rule: str, earned: str,
) -> None:
    from grading.models import Submission
    from grading.services import grade_submission, submit_answer
    from tests.grading.conftest import give_variant, make_problem_set

    problem_set = make_problem_set(course, instructor[0],
                                   [("alphabeta", {"set_scoring": rule}, "6")])
    assert problem_set.items.get().params["set_scoring"] == rule
    variant = give_variant(problem_set, student[0], [ALPHABETA_PROBLEM])
    key = VariantItem.objects.get(variant=variant).answer_key
    assert sorted(key["pruned_leaves"]) == ["C2", "C3"]
    submission, _ = submit_answer(student=student[0], variant_id=variant.pk, position=1,
                                  answer={**key, "pruned_leaves": ["C2"]})
    graded = grade_submission(submission.pk)
    assert graded is not None and graded.status == Submission.Status.GRADED
    part = next(p for p in graded.results if p["part"] == "pruned_leaves")
    assert Fraction(str(part["points"])) == Fraction(earned) * Fraction(str(part["max_points"]))


def test_swapping_alpha_and_beta_is_named_on_the_windows() -> None:
    context = context_for("alphabeta", ALPHABETA_PROBLEM)
    assert context.expected["windows"] == {"C": {"alpha": 3, "beta": "inf"}}
    swapped = context.misconception_expectations["alpha_beta_swapped"]
    assert swapped["windows"] == {"C": {"alpha": "inf", "beta": 3}}
    # Every misconception's projection now has the windows its own search entered with.
    assert all("windows" in produced
               for produced in context.misconception_expectations.values())
    answer = {**context.expected, "windows": {"C": {"alpha": "inf", "beta": "3"}}}
    parts = by_part(grade_answer(context, answer))
    assert parts["windows"]["verdict"] == "wrong"
    assert parts["windows"]["misconception"] == "alpha_beta_swapped"
    assert all(parts[name]["verdict"] == "correct" for name in parts if name != "windows")
    rendered = render_results([parts["windows"]], labels={}, show_expected=False)[0]
    assert "alpha where beta belongs" in rendered["misconception_text"]


PRICE_WAR_PROBLEM: dict[str, Any] = {
    "format": "gametree/1",
    "kind": "vector",
    "tree": {"name": "root", "type": "player", "player": "firm", "children": [
        {"name": "A", "type": "player", "player": "rival", "children": [
            {"name": "A1", "value": [5, 10]}, {"name": "A2", "value": [20, 2]}]},
        {"name": "B", "type": "player", "player": "rival", "children": [
            {"name": "B1", "value": [8, 1]}, {"name": "B2", "value": [12, 9]}]},
    ]},
    "params": {"players": ["firm", "rival"], "tie_break": "first"},
}


def test_price_war_projects_misconception_answers_and_names_them() -> None:
    context = context_for("price_war", PRICE_WAR_PROBLEM)
    assert context.expected == {"floor_value": 8, "floor_move": "B",
                                "rational_value": 12, "rational_move": "B"}
    produced = context.misconception_expectations
    # Both vector misconceptions project (no KeyError 'paranoid'); neither says a floor.
    assert set(produced) == {"vector_entrywise_max", "vector_wrong_player_entry"}
    assert produced["vector_entrywise_max"] == {"floor_value": None, "floor_move": None,
                                                "rational_value": 20, "rational_move": "A"}
    assert produced["vector_wrong_player_entry"]["floor_value"] is None
    parts = by_part(grade_answer(context, {"floor_value": 8, "floor_move": "B",
                                           "rational_value": 20, "rational_move": "A"}))
    assert parts["floor_value"]["verdict"] == parts["floor_move"]["verdict"] == "correct"
    assert {parts[name]["misconception"] for name in ("rational_value", "rational_move")} == {
        "vector_entrywise_max"}
    # A wrong floor is not blamed on a misconception of the rational reading.
    parts = by_part(grade_answer(context, {**context.expected, "floor_value": 5}))
    assert parts["floor_value"]["misconception"] is None


# --- fixes: misconception explanations in the reader's language ------------------------


def every_misconception_code() -> list[str]:
    from engine.misconceptions import MISCONCEPTIONS as ENGINE
    from grading.code.reference import MISCONCEPTIONS as CODE_MISCONCEPTIONS

    return sorted({*ENGINE, *(m.code for m in CODE_MISCONCEPTIONS)})


@pytest.mark.parametrize("language", ["pt", "ca"])
def test_every_misconception_explanation_is_translated(language: str) -> None:
    from django.utils import translation

    from engine.misconceptions import MISCONCEPTIONS as ENGINE
    from grading.code.reference import explain

    for code in every_misconception_code():
        with translation.override("en"):
            english = explain(code)
        with translation.override(language):
            shown = explain(code)
        assert shown != english, (language, code)
        if code in ENGINE:
            assert shown != ENGINE[code].explanation, (language, code)


@pytest.mark.parametrize("language", ["pt", "ca"])
@pytest.mark.parametrize("code", ["alpha_beta_swapped", "vector_entrywise_max",
                                  "other_ucb1_form", "cut_too_early"])
def test_a_rendered_misconception_has_no_english_explanation(language: str, code: str) -> None:
    from django.utils import translation

    from engine.misconceptions import MISCONCEPTIONS as ENGINE
    from grading.feedback import MISCONCEPTIONS

    result = {"part": "value", "verdict": "wrong", "messages": [], "misconception": code}
    with translation.override(language):
        rendered = render_results([result], labels={}, show_expected=False,
                                  misconception_texts={code: ENGINE[code].explanation})[0]
    with translation.override("en"):
        english = str(MISCONCEPTIONS[code])
    text = rendered["misconception_text"]
    assert text and text not in (english, ENGINE[code].explanation)
    # Not even a long stretch of the English sentence survives.
    assert english[:25] not in text and ENGINE[code].explanation[:25] not in text
