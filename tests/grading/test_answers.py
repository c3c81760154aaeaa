"""Checking an answer normalises it: names lose surrounding spaces in every part type, so the
key written with padded names, sets in another order and numbers in another form earns full
marks for every kind."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from exercises.kinds.base import AnswerPart, PartType
from grading.answers import AnswerFormatError, validate_answer
from grading.grader import grade_answer
from tests.grading.conftest import ALPHABETA_PROBLEM
from tests.grading.test_every_kind import ANSWERED_KINDS, generated_context

PARTS = [
    AnswerPart("move", PartType.NAME, "move"),
    AnswerPart("pruned", PartType.SET, "pruned"),
    AnswerPart("order", PartType.SEQUENCE, "order"),
    AnswerPart("values", PartType.NODE_VALUES, "values"),
    AnswerPart("cutoffs", PartType.CUTOFFS, "cutoffs"),
    AnswerPart("windows", PartType.RECORDS, "windows"),
    AnswerPart("rows", PartType.RECORDS, "rows"),
]


def test_every_name_is_stored_without_surrounding_spaces() -> None:
    answer = {
        "move": " B ",
        "pruned": [" C2", "C3 "],
        "order": ["B1 ", " B2"],
        "values": {" B": 3, "C ": "7/2"},
        "cutoffs": [{"node": " C", "pruned": [" C2", "C3 "]}],
        "windows": {" C": {"alpha": 3, "beta": "inf"}, "D ": None},
        "rows": [{"name": " B", "visits": 2}],
    }
    assert validate_answer(answer, PARTS, ALPHABETA_PROBLEM) == {
        "move": "B",
        "pruned": ["C2", "C3"],
        "order": ["B1", "B2"],
        "values": {"B": 3, "C": "7/2"},
        "cutoffs": [{"node": "C", "pruned": ["C2", "C3"]}],
        "windows": {"C": {"alpha": 3, "beta": "inf"}, "D": None},
        "rows": [{"name": "B", "visits": 2}],
    }


def test_a_decision_may_list_several_names_each_at_most_once() -> None:
    assert validate_answer({"move": [" B", "C "]}, PARTS, ALPHABETA_PROBLEM) == {
        "move": ["B", "C"]}
    for bad in ([], ["B", " B"], ["B", "Z"]):
        with pytest.raises(AnswerFormatError) as error:
            validate_answer({"move": bad}, PARTS, ALPHABETA_PROBLEM)
        assert error.value.part == "move"


def test_a_choice_is_stored_without_surrounding_spaces() -> None:
    problem = {"options": [{"id": "a"}, {"id": "b"}]}
    part = AnswerPart("choice", PartType.CHOICE, "choice")
    assert validate_answer({"choice": " b "}, [part], problem) == {"choice": "b"}


@pytest.mark.parametrize(("part", "value"), [
    ("pruned", ["C2", " C2"]),
    ("values", {"B": 1, " B": 2}),
    ("windows", {"C": None, "C ": None}),
    ("cutoffs", [{"node": "C", "pruned": ["C2", "C2 "]}]),
])
def test_names_equal_once_stripped_are_the_same_name(part: str, value: Any) -> None:
    with pytest.raises(AnswerFormatError) as error:
        validate_answer({part: value}, PARTS, ALPHABETA_PROBLEM)
    assert error.value.part.startswith(part) and "at most once" in error.value.rule


def other_form(number: Any) -> Any:
    """Return a key's number written another way: 3 as "3.0", 7/2 as "3.50", 1/3 as " 2/6 "."""
    if isinstance(number, float):
        return str(number)
    if number in ("inf", "-inf"):
        return {"inf": " ∞ ", "-inf": "-∞"}[number]
    exact = Fraction(str(number))
    if exact.denominator == 1:
        return f"{exact.numerator}.0"
    if (exact * 10**6).denominator == 1:
        return f"{float(exact)}0"
    return f" {2 * exact.numerator}/{2 * exact.denominator} "


@pytest.mark.parametrize("kind_name", ANSWERED_KINDS)
def test_the_key_written_carelessly_still_earns_full_marks(kind_name: str) -> None:
    context = generated_context(kind_name, "careless-key")
    answer = {}
    for part in context.parts:
        key = copy.deepcopy(context.expected[part.name])
        if part.type in (PartType.NAME, PartType.CHOICE):
            key = f"  {key[0] if isinstance(key, list) else key} "
        elif part.type is PartType.SET:
            key = [f" {name}" for name in reversed(key)]
        elif part.type is PartType.SEQUENCE:
            key = [f"{name} " for name in key]
        elif part.type is PartType.NUMBER:
            key = other_form(key)
        elif part.type is PartType.VECTOR:
            key = [other_form(entry) for entry in key]
        elif part.type is PartType.NODE_VALUES:
            key = {f" {name} ": [other_form(v) for v in value] if isinstance(value, list)
                   else other_form(value) for name, value in key.items()}
        elif part.type is PartType.CUTOFFS:
            key = [{"node": f" {cut['node']}", "pruned": [f"{c} " for c in reversed(cut["pruned"])]}
                   for cut in key]
        elif part.type is PartType.RECORDS:
            words = part.options.get("choices", {})  # e.g. an entry's flag: padded, not renumbered
            key = {f" {name}": None if fields is None else
                   {field: f" {value} " if field in words else other_form(value)
                    for field, value in fields.items()}
                   for name, fields in key.items()}
        answer[part.name] = key
    cleaned = validate_answer(answer, context.parts, context.problem)
    result = grade_answer(context, cleaned)
    assert [p["verdict"] for p in result.results] == ["correct"] * len(context.parts), \
        [(p["part"], p["messages"]) for p in result.results if p["verdict"] != "correct"]


def test_a_records_word_field_outside_its_choices_is_refused_naming_the_cell() -> None:
    context = generated_context("transposition_table", "careless-key")
    entries = next(part for part in context.parts if part.name == "entries")
    position = next(iter(context.expected["entries"]))
    with pytest.raises(AnswerFormatError) as raised:
        validate_answer({"entries": {position: {"flag": "maybe", "value": 3}}},
                        [entries], context.problem)
    assert raised.value.part == f"entries.{position}.flag"
    assert "exact, lower, upper" in raised.value.rule
