"""Grading properties of issue 13, for every kind and answer format over 50 seeds each.

Each case is graded in-process by the functions the Celery task runs
(:func:`grading.services.grading_context`, :func:`grading.grader.grade_answer`); answers are
first checked by :func:`grading.answers.validate_answer`, as the API does. Figures (cases,
failures) are printed per test and per property at the end of the session.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from exercises.generation import derive_seed, generate_item
from exercises.kinds import get_kind
from exercises.models import Item, VariantItem
from exercises.services import split_points
from grading.answers import AnswerFormatError, validate_answer
from grading.grader import GradeResult, GradingContext, grade_answer
from grading.services import grading_context
from tests.grading.naive_solvers import value_of
from tests.grading.property_cases import (
    ITEM_POINTS,
    SEEDS,
    Checker,
    cases,
    consistent_codes,
    first_context,
    informative,
    key_forms,
    kind_formats,
    misconception_answer,
    one_part_changes,
    option_ids,
    outcome,
    register_figures,
    same,
)

OPEN = [(k, f) for k, f in kind_formats() if f == "open"]


@pytest.fixture(autouse=True, scope="module")
def _figures(request: pytest.FixtureRequest) -> None:
    register_figures(request.config)


def graded(context: GradingContext, answer: Mapping[str, Any]) -> GradeResult | str:
    """Return the grade of ``answer`` as the API stores it (normalised), or why it is a 400."""
    try:
        cleaned = validate_answer(answer, context.parts, context.problem)
    except AnswerFormatError as error:
        return f"refused with 400: {error}"
    return grade_answer(context, cleaned)


def by_part(result: GradeResult) -> dict[str, dict[str, Any]]:
    return {r["part"]: r for r in result.results}


def full_marks(result: GradeResult) -> bool:
    return result.raw_score == result.max_score and all(
        r["verdict"] == "correct" for r in result.results)


@pytest.mark.parametrize(("kind_name", "answer_format"), cases("key_full_marks", kind_formats()))
def test_the_key_in_every_equivalent_form_earns_full_marks(kind_name: str,
                                                           answer_format: str) -> None:
    checker = Checker("key_full_marks", kind_name, answer_format)
    for index, context in checker.contexts(kind_name, answer_format):
        for form, answer in key_forms(context):
            result = graded(context, answer)
            checker.check(
                not isinstance(result, str) and full_marks(result),
                f"seed {index} {form}: {answer} → "
                        f"{result if isinstance(result, str) else outcome(result.results)}",
                form)
    checker.finish(SEEDS - checker.skipped)


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("one_part_changed", kind_formats()))
def test_one_part_changed_loses_exactly_that_parts_points(kind_name: str,
                                                          answer_format: str) -> None:
    checker = Checker("one_part_changed", kind_name, answer_format)
    for index, context in checker.contexts(kind_name, answer_format):
        rng = random.Random(derive_seed("one-part", kind_name, answer_format, index))
        for part, how, answer in one_part_changes(context, rng):
            result = graded(context, answer)
            ok, describe = _only_part_lost(result, part.name, f"seed {index} {part.name} {how}",
                                           answer)
            checker.check(ok, describe, f"{part.name}: {how.split()[0]}")
    checker.finish(SEEDS - checker.skipped)


def _only_part_lost(result: GradeResult | str, changed: str, where: str,
                    answer: Mapping[str, Any]) -> tuple[bool, Any]:
    if isinstance(result, str):
        return False, f"{where}: {result}"
    parts = by_part(result)
    lost = parts[changed]
    others_full = all(r["verdict"] == "correct" and r["points"] == r["max_points"]
                      and not r["messages"] and r["misconception"] is None
                      for name, r in parts.items() if name != changed)
    ok = (others_full and lost["points"] < lost["max_points"]
          and lost["verdict"] in ("wrong", "partial") and bool(lost["messages"]))
    return ok, f"{where}: {answer[changed]!r} → {outcome(result.results)}"


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("misconception_named", kind_formats()))
def test_each_misconceptions_own_answer_is_named_on_the_parts_it_changes(
        kind_name: str, answer_format: str) -> None:
    checker = Checker("misconception_named", kind_name, answer_format)
    for index, context in checker.contexts(kind_name, answer_format):
        if answer_format == "multiple_choice":
            _check_options(checker, context, index)
            continue
        _check_misconceptions_named(checker, context, index)
    checker.finish(0)  # kinds without named misconceptions have none to name


def _check_misconceptions_named(checker: Checker, context: GradingContext, index: int) -> None:
    """Check that each misconception's own answer is named on the parts it changes (or that
    a rival explaining it as well ties with it, so none is)."""
    for code in sorted(context.misconception_expectations):
        answer, changed = misconception_answer(context, code)
        if not changed:
            continue  # this mistake changes nothing on this problem
        result = graded(context, answer)
        if isinstance(result, str):
            checker.check(False, f"seed {index} {code}: {result}")
            continue
        parts = by_part(result)
        right = {p.name for p in context.parts} - changed
        # Another mistake giving this same answer (saying something on every changed part)
        # explains it as well: the two tie and neither is named.
        explaining = consistent_codes(context, answer, set(parts))
        produced = context.misconception_expectations
        parts_by_name = {part.name: part for part in context.parts}
        rivals = {other for other in explaining - {code}
                  if all(informative(parts_by_name[p], produced[other].get(p))
                         for p in changed)}
        expected_code = None if rivals else code
        checker.check(
            code in explaining
            and all(parts[p]["misconception"] == expected_code
                    and parts[p]["verdict"] != "correct" for p in changed)
            and all(parts[p]["verdict"] == "correct" and parts[p]["misconception"] is None
                    for p in right),
            f"seed {index} {code} changes {sorted(changed)}: "
                    f"{outcome(result.results)}; acceptable {sorted(explaining)}",
            code)


OTHER_CONVENTIONS = [
    {"cut_on_equality": False},
    {"root_raises_alpha": False, "depth": 3},
    {"cut_on_equality": False, "root_raises_alpha": False, "depth": 3},
]
"""Alpha-beta conventions other than the textbook's: the default params cover those."""


@pytest.mark.parametrize("conventions", OTHER_CONVENTIONS,
                         ids=lambda conventions: "-".join(sorted(conventions)))
def test_misconceptions_are_named_under_other_alphabeta_conventions(
        conventions: dict[str, Any]) -> None:
    # Keeping the textbook's convention where the item turns it off is a mistake of its own
    # (cut_on_equality_not_asked, root_alpha_raised_not_asked) among the usual ones.
    params = get_kind("alphabeta").clean_params(conventions)
    item = Item(kind="alphabeta", params=params, points=ITEM_POINTS, position=1,
                part_points=split_points("alphabeta", params, ITEM_POINTS))
    checker = Checker("misconception_named", "alphabeta", "-".join(sorted(conventions)))
    offered: set[str] = set()
    for index in range(SEEDS // 2):
        seed = derive_seed("conventions", *sorted(conventions), index)
        made = generate_item("alphabeta", params, seed)
        context = grading_context(VariantItem(
            item=item, position=1, seed=seed, problem=made.problem, prompt=made.prompt,
            answer_key=made.answer_key, trace=made.trace, engine_version=made.engine_version))
        _check_misconceptions_named(checker, context, index)
        offered |= set(context.misconception_expectations)
    checker.finish(SEEDS // 2)
    kept = {"cut_on_equality": "cut_on_equality_not_asked",
            "root_raises_alpha": "root_alpha_raised_not_asked"}
    assert {kept[name] for name in conventions if name in kept} <= offered


def _check_options(checker: Checker, context: GradingContext, index: int) -> None:
    behind = context.trace.get("option_misconceptions") or {}
    for option in option_ids(context):
        code = behind.get(option)
        if code is None:
            continue
        result = graded(context, {"choice": option})
        checker.check(
            not isinstance(result, str) and result.results[0]["misconception"] == code,
            f"seed {index} option {option} ({code}): "
                    f"{result if isinstance(result, str) else outcome(result.results)}",
            code)


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("misconception_consistent", OPEN))
def test_a_named_misconception_agrees_with_every_part_the_student_got_right(
        kind_name: str, answer_format: str) -> None:
    """Grade one-part changes, misconceptions' answers and those with one part put right."""
    checker = Checker("misconception_consistent", kind_name, answer_format)
    for index, context in checker.contexts(kind_name, answer_format):
        rng = random.Random(derive_seed("consistent", kind_name, index))
        answers = [answer for _part, _how, answer in one_part_changes(context, rng)]
        for code in sorted(context.misconception_expectations):
            answer, changed = misconception_answer(context, code)
            answers.append(answer)
            if len(changed) > 1:
                # Got one of the parts this mistake changes right: the mistake is ruled out.
                answers += [{**answer, p: context.expected[p]} for p in sorted(changed)]
        for answer in answers:
            result = graded(context, answer)
            if isinstance(result, str):
                checker.check(False, f"seed {index}: {result}")
                continue
            parts = by_part(result)
            right = {p for p, r in parts.items() if r["verdict"] == "correct"}
            for p, r in parts.items():
                code = r["misconception"]
                if code is None:
                    continue
                checker.check(
                    code in consistent_codes(context, answer, right | {p}),
                    f"seed {index}: {code} named on {p} but it does not give "
                            f"the {sorted(right | {p})} the student wrote: {answer}",
                    code)
    checker.finish(0)


def test_the_key_forms_mean_the_key() -> None:
    """Check the suite's own rewrites: every form of the key is the key, part by part."""
    for kind_name, answer_format in kind_formats():
        context = first_context(kind_name, answer_format)
        for form, answer in key_forms(context):
            for part in context.parts:
                assert same(part, answer[part.name], context.expected[part.name]), (
                    kind_name, form, part.name)


TIE_KINDS = ["alphabeta", "expectiminimax", "expectimax"]
"""Kinds asking for a decision at a MAX or MIN root whose prompt accepts any tied best move.

Minimax is not one: its prompt asks for the leftmost best child, which is its whole key (the
naive solver checks it, ``test_properties_solvers``)."""


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("tied_move_accepted", [(k, "open") for k in TIE_KINDS]))
def test_with_ties_allowed_every_best_move_earns_full_marks(kind_name: str,
                                                            answer_format: str) -> None:
    """With ``allow_ties`` every child as good as the best is a right decision."""
    checker = Checker("tied_move_accepted", kind_name, answer_format)
    # A narrow value range makes tied root children common.
    params = get_kind(kind_name).clean_params({"allow_ties": True, "max_value": 3})
    item = Item(kind=kind_name, params=params, points=ITEM_POINTS, position=1)
    for index in range(SEEDS):
        made = generate_item(kind_name, params, derive_seed("issue-13/ties", kind_name, index))
        context = grading_context(VariantItem(item=item, problem=made.problem,
                                              answer_key=made.answer_key, trace=made.trace))
        root = context.problem["tree"]
        values = [value_of(child) for child in root["children"]]
        best = max(values) if root["type"] == "max" else min(values)
        for child, value in zip(root["children"], values, strict=True):
            if value != best or child["name"] == context.expected["move"]:
                continue
            answer = {**context.expected, "move": child["name"]}
            result = graded(context, answer)
            shown = result if isinstance(result, str) else outcome(result.results)
            checker.check(not isinstance(result, str) and full_marks(result),
                          f"seed {index}: {child['name']} ties {context.expected['move']} "
                          f"at {best} → {shown}")
    checker.finish(1)
