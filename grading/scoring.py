"""Score one answer part against the engine's key, by the part's :class:`PartType`.

Every scorer returns the fraction of the part's points earned (an exact ``Fraction`` in
[0, 1]) and the facts feedback needs (which names are missing or extra, which nodes are
wrong). Points come later: :func:`part_points` spreads an item's points over its parts.

Numbers are compared exactly ("7/2", "3.5" and 3.5 are the same number) unless the part
states a tolerance, which is then absolute.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

# The set rules are declared with the kinds' ``set_scoring`` param; re-exported here.
from exercises.kinds.base import ALL_OR_NOTHING as ALL_OR_NOTHING
from exercises.kinds.base import NET_CORRECT as NET_CORRECT
from exercises.kinds.base import SET_SCORING_RULES as SET_SCORING_RULES
from exercises.kinds.base import AnswerPart, PartType

Number = Fraction | float
"""An exact number, or ``±math.inf`` (the only floats besides keys computed in floating point)."""

MAX_EXPONENT = 1000
"""Largest decimal exponent read (keys may pass float's range, as "1e400"): beyond it building
the exact number costs time and memory for no exercise's sake."""
INFINITIES = {"inf": math.inf, "+inf": math.inf, "∞": math.inf, "-inf": -math.inf, "-∞": -math.inf}


def to_number(raw: Any) -> Number:
    """Return ``raw`` (int, float, "3.5", "7/2", "inf") as a number, or raise ValueError."""
    if isinstance(raw, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if math.isnan(raw):
            raise ValueError("NaN is not a number")
        # str() gives the shortest round-trip decimal, so 0.1 is read as exactly 1/10.
        return raw if math.isinf(raw) else Fraction(str(raw))
    if isinstance(raw, str):
        text = raw.strip().replace(" ", "")
        if text.lower() in INFINITIES:
            return INFINITIES[text.lower()]
        try:
            _, _, exponent = text.lower().partition("e")
            if exponent and abs(int(exponent)) > MAX_EXPONENT:
                raise ValueError(f"{raw!r} is out of range")
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{raw!r} is not a number") from None
    raise ValueError(f"{raw!r} is not a number")


def numbers_equal(given: Any, expected: Any, tolerance: Fraction | None = None) -> bool:
    """Return whether two numbers (or two equal-length lists of numbers) are the same value."""
    if isinstance(expected, list | tuple):
        return (
            isinstance(given, list | tuple)
            and len(given) == len(expected)
            and all(numbers_equal(g, e, tolerance) for g, e in zip(given, expected, strict=True))
        )
    try:
        a, b = to_number(given), to_number(expected)
    except ValueError:
        return False
    # to_number gives floats only for ±inf; math.isinf would turn a huge Fraction into a float
    # and overflow.
    if isinstance(a, float) or isinstance(b, float):
        return a == b
    if tolerance is None:
        return a == b
    return abs(Fraction(a) - Fraction(b)) <= tolerance


def format_number(value: Any) -> str:
    """Return a number as people write it: 3, 7/2, ∞, -∞ (lists as [a, b])."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_number(v) for v in value) + "]"
    try:
        number = to_number(value)
    except ValueError:
        return str(value)
    if isinstance(number, float):
        return "∞" if number > 0 else "-∞"
    if isinstance(number, Fraction) and number.denominator == 1:
        return str(number.numerator)
    return str(number)


@dataclass
class PartScore:
    """The fraction of a part's points earned, and what feedback needs to explain it."""

    fraction: Fraction
    facts: dict[str, Any] = field(default_factory=dict)


def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Return the length of the longest common subsequence of ``a`` and ``b``."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def first_divergence(given: Sequence[Any], expected: Sequence[Any]) -> int | None:
    """Return the first index where two sequences differ (None when they are equal)."""
    for index, (g, e) in enumerate(zip(given, expected, strict=False)):
        if g != e:
            return index
    return None if len(given) == len(expected) else min(len(given), len(expected))


def score_number(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Give full credit for the same number (within the part's tolerance), none otherwise."""
    return PartScore(Fraction(int(numbers_equal(given, expected, part.tolerance))))


def score_name(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Give full credit for the same name or option, none otherwise."""
    return PartScore(Fraction(int(str(given).strip() == str(expected))))


def score_set(given: Any, expected: Any, part: AnswerPart, rule: str) -> PartScore:
    """Score a set of names net-correct (right − wrong, floored at 0) or all-or-nothing."""
    chosen, correct = set(given), set(expected)
    right, wrong = chosen & correct, chosen - correct
    missing = [name for name in expected if name not in chosen]
    facts = {"missing": missing, "extra": [name for name in given if name in wrong]}
    if not correct:
        return PartScore(Fraction(int(not chosen)), facts)
    if rule == ALL_OR_NOTHING:
        return PartScore(Fraction(int(chosen == correct)), facts)
    return PartScore(Fraction(max(0, len(right) - len(wrong)), len(correct)), facts)


def score_sequence(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Score an ordered list by its longest common subsequence with the key.

    Dividing by the longer of the two lists makes extra names cost as much as missing ones.
    """
    given, expected = list(given), list(expected)
    facts = {"first_divergence": first_divergence(given, expected)}
    longest = max(len(given), len(expected))
    if longest == 0:
        return PartScore(Fraction(1), facts)
    return PartScore(Fraction(lcs_length(given, expected), longest), facts)


def score_node_values(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Score a node → value map node by node over the nodes the key asks about.

    Values for other nodes earn and cost nothing; they are reported so feedback can say the
    algorithm never computes them.
    """
    given = dict(given)
    wrong = [
        name for name, value in expected.items()
        if name in given and not numbers_equal(given[name], value, part.tolerance)
    ]
    missing = [name for name in expected if name not in given]
    extra = [name for name in given if name not in expected]
    facts = {"wrong": wrong, "missing": missing, "extra": extra}
    if not expected:
        return PartScore(Fraction(1), facts)
    right = len(expected) - len(wrong) - len(missing)
    return PartScore(Fraction(right, len(expected)), facts)


def score_vector(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Give full credit for the same payoff vector, entry by entry; none otherwise."""
    return PartScore(Fraction(int(numbers_equal(list(given), list(expected), part.tolerance))))


def score_cutoffs(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Score the numbered cutoffs by the LCS of the nodes where they happen, in order."""
    given_nodes = [entry["node"] for entry in given]
    expected_nodes = [entry["node"] for entry in expected]
    score = score_sequence(given_nodes, expected_nodes, part)
    wrong_pruned = [
        g["node"] for g, e in zip(given, expected, strict=False)
        if g["node"] == e["node"] and set(g.get("pruned", [])) != set(e.get("pruned", []))
    ]
    score.facts["wrong_pruned"] = wrong_pruned
    return score


def records_by_name(rows: Any) -> dict[str, dict[str, Any] | None]:
    """Return rows given as ``[{"name", field: value}]`` or as name → fields, by name.

    A row may be null: the key says so for a node the search never reaches (no window).
    """
    if isinstance(rows, Mapping):
        return {str(name): None if fields is None else dict(fields)
                for name, fields in rows.items()}
    return {row["name"]: {k: v for k, v in row.items() if k != "name"} for row in rows}


def score_records(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Score rows of numbers cell by cell (e.g. each node's window, or visits and reward).

    An expected null row is one cell, right when the student also leaves that row null.
    """
    given_rows, expected_rows = records_by_name(given), records_by_name(expected)
    wrong: list[dict[str, Any]] = []
    cells = 0
    for name, fields in expected_rows.items():
        row = given_rows.get(name)
        if fields is None:
            cells += 1
            if row:
                wrong.append({"name": name, "field": None})
            continue
        for field_name, value in fields.items():
            cells += 1
            if not numbers_equal((row or {}).get(field_name), value, part.tolerance):
                wrong.append({"name": name, "field": field_name})
    if not cells:
        return PartScore(Fraction(1), {"wrong": wrong})
    return PartScore(Fraction(cells - len(wrong), cells), {"wrong": wrong})


def score_part(part: AnswerPart, given: Any, expected: Any, *, set_rule: str) -> PartScore:
    """Score one answered part against its key with the scorer for its type."""
    if part.type is PartType.SET:
        return score_set(given, expected, part, set_rule)
    scorer = {
        PartType.NUMBER: score_number,
        PartType.NAME: score_name,
        PartType.CHOICE: score_name,
        PartType.SEQUENCE: score_sequence,
        PartType.NODE_VALUES: score_node_values,
        PartType.VECTOR: score_vector,
        PartType.CUTOFFS: score_cutoffs,
        PartType.RECORDS: score_records,
    }[part.type]
    return scorer(given, expected, part)


def part_points(
    parts: Sequence[AnswerPart], item_points: Fraction, stored: Mapping[str, Any]
) -> dict[str, Fraction]:
    """Return each part's points: the item's ``part_points`` when it names every part.

    Items store their parts' points explicitly (``exercises.services.split_points``); for an
    item whose parts changed since, the item's points are split again by the parts' declared
    weights, so the item's total always stays its ``points``.
    """
    if parts and all(part.name in stored for part in parts):
        return {part.name: Fraction(str(stored[part.name])) for part in parts}
    total = sum((Fraction(part.points) for part in parts), Fraction(0))
    if total == 0:
        return {part.name: Fraction(0) for part in parts}
    return {part.name: item_points * Fraction(part.points) / total for part in parts}
