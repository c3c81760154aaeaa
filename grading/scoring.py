"""Score one answer part against the engine's key, by the part's :class:`PartType`.

Every scorer returns the fraction of the part's points earned (an exact ``Fraction`` in
[0, 1]) and the facts feedback needs (which names are missing or extra, which nodes are
wrong). Points come later: :func:`part_points` spreads an item's points over its parts.

Numbers are compared exactly ("7/2", "3.5" and 3.5 are the same number) unless the part
states a tolerance, which is then absolute. A decimal that is wrong only because it was
rounded (6.3333 for 19/3) is flagged ``inexact`` so feedback can ask for the exact value.

A name part's key is one name, or the list of every name accepted (equally good moves).
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
INFINITIES = {
    f"{sign}{word}": (-math.inf if sign == "-" else math.inf)
    for sign in ("", "+", "-") for word in ("inf", "infinity", "∞")
}
"""Every way of typing an infinite value (matched case-insensitively, Unicode minus read as -)."""


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
        # U+2212 is the minus sign typeset pages (and the ∞ shown beside inputs) use. Spaces
        # are dropped: answers stored before new ones were refused for a space between
        # digits (grading.answers.check_number) keep the grade they were given.
        text = raw.strip().replace(" ", "").replace("\u2212", "-")
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


def decimal_places(raw: Any) -> int | None:
    """Return how many digits follow the decimal point of a written number (None: not a decimal).

    ``"6.3333"`` and ``6.3333`` have 4; integers, fractions and exponents are not decimals.
    """
    if isinstance(raw, float) and math.isfinite(raw):
        raw = str(raw)
    if not isinstance(raw, str):
        return None
    text = raw.strip().replace(" ", "").lower()
    _, point, digits = text.partition(".")
    if not point or not digits.isdigit() or "/" in text or "e" in text:
        return None
    return len(digits)


def rounded_from(given: Any, expected: Any) -> bool:
    """Return whether decimal ``given`` misses ``expected`` by under one unit of its last digit.

    That is what rounding or cutting an exact value short gives: 6.3333 or 6.33 for 19/3.
    """
    places = decimal_places(given)
    if places is None:
        return False
    try:
        a, b = to_number(given), to_number(expected)
    except ValueError:
        return False
    if isinstance(a, float) or isinstance(b, float) or a == b:
        return False
    return abs(Fraction(a) - Fraction(b)) < Fraction(1, 10**places)


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


def as_written(value: Any) -> str:
    """Return a student's number as they wrote it, for feedback quoting their answer: 6.3333
    stays 6.3333 (as a fraction it would read 63333/10000), 7/2 stays 7/2; infinities as ∞
    and -∞, lists as [a, b]."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(as_written(v) for v in value) + "]"
    try:
        number = to_number(value)
    except ValueError:
        return str(value).strip()
    if isinstance(number, float):
        return format_number(number)
    return str(value).strip().replace("\u2212", "-")


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


def lcs_pairs(a: Sequence[Any], b: Sequence[Any]) -> list[tuple[int, int]]:
    """Return the index pairs ``(i, j)`` of one longest common subsequence, ``a[i] == b[j]``."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = (table[i + 1][j + 1] + 1 if a[i] == b[j]
                           else max(table[i + 1][j], table[i][j + 1]))
    pairs, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def first_divergence(given: Sequence[Any], expected: Sequence[Any]) -> int | None:
    """Return the first index where two sequences differ (None when they are equal)."""
    for index, (g, e) in enumerate(zip(given, expected, strict=False)):
        if g != e:
            return index
    return None if len(given) == len(expected) else min(len(given), len(expected))


def score_number(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Give full credit for the same number (within the part's tolerance), none otherwise.

    Without a tolerance the number must be exact; a rounded decimal is flagged ``inexact``.
    """
    right = numbers_equal(given, expected, part.tolerance)
    inexact = not right and part.tolerance is None and rounded_from(given, expected)
    return PartScore(Fraction(int(right)), {"inexact": inexact})


def accepted_names(expected: Any) -> list[str]:
    """Return the names of a name part's key (or answer): one name, or each of a list."""
    return [str(name) for name in expected] if isinstance(expected, list) else [str(expected)]


def score_name(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Give full credit for the name or option the key names (or any of those it lists).

    A decision may also be given as a list of names: right when every one is accepted, so
    naming all the equally good moves is right and naming a worse one among them is not.
    """
    accepted = accepted_names(expected)
    chosen = [name.strip() for name in accepted_names(given)]
    return PartScore(Fraction(int(bool(chosen) and all(name in accepted for name in chosen))))


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
    inexact = [name for name in wrong
               if part.tolerance is None and rounded_from(given[name], expected[name])]
    facts = {"wrong": wrong, "missing": missing, "extra": extra, "inexact": inexact}
    if not expected:
        return PartScore(Fraction(1), facts)
    right = len(expected) - len(wrong) - len(missing)
    return PartScore(Fraction(right, len(expected)), facts)


def score_vector(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Give full credit for the same payoff vector, entry by entry; none otherwise."""
    return PartScore(Fraction(int(numbers_equal(list(given), list(expected), part.tolerance))))


def score_cutoffs(given: Any, expected: Any, part: AnswerPart) -> PartScore:
    """Score numbered cutoffs: each is worth half for its node and half for what it skips.

    Listed and real cutoffs are matched in order (the longest common subsequence of their
    nodes). A matched cutoff earns half its share, and the other half when it names exactly
    the children the key says it skips. Each share is one over the longer of the two lists,
    so a cutoff listed where none happens costs as much as one left out. A key entry marked
    ``"optional": true`` (a cut at a node's last child, which skips nothing) is not a cutoff
    to list: listed with no children it changes nothing, neither share nor count; listed
    with children it counts as a cutoff whose skipped children are wrong.
    """
    # Dropped before matching: listed out of order, such an entry must not take the match
    # of a real cutoff.
    skips_nothing = {entry["node"] for entry in expected if entry.get("optional")}
    listed = [i for i, entry in enumerate(given)
              if not (entry["node"] in skips_nothing and not entry.get("pruned"))]
    pairs = [(listed[i], j) for i, j in lcs_pairs([given[i]["node"] for i in listed],
                                                  [entry["node"] for entry in expected])]
    matched = {i for i, _ in pairs}
    counted = (sum(not entry.get("optional") for entry in expected)
               + sum(bool(expected[j].get("optional")) for _, j in pairs))
    wrong_pruned = []
    earned = Fraction(0)
    for i, j in pairs:
        names, skipped = list(given[i].get("pruned", [])), list(expected[j].get("pruned", []))
        if set(names) == set(skipped):
            earned += 1
            continue
        earned += Fraction(1, 2)
        wrong_pruned.append({
            "node": given[i]["node"],
            "extra": [name for name in names if name not in skipped],
            "missing": sum(name not in names for name in skipped),
        })
    facts = {
        "unmatched": [i for i in listed if i not in matched],
        "expected_count": counted,
        "given_count": len(listed),
        "wrong_pruned": wrong_pruned,
    }
    longest = max(counted, len(listed))
    if longest == 0:
        return PartScore(Fraction(1), facts)
    return PartScore(earned / longest, facts)


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

    A field the part lists in ``options["choices"]`` holds a word (e.g. a table entry's flag)
    and is right only when it is that word.

    An expected null row is one cell, right when the student also leaves that row null.
    """
    given_rows, expected_rows = records_by_name(given), records_by_name(expected)
    wrong: list[dict[str, Any]] = []
    inexact: list[dict[str, Any]] = []
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
            written = (row or {}).get(field_name)
            if field_name in part.options.get("choices", {}):
                if written != value:  # a word such as an entry's flag, not a number
                    wrong.append({"name": name, "field": field_name})
            elif not numbers_equal(written, value, part.tolerance):
                wrong.append({"name": name, "field": field_name})
                if part.tolerance is None and rounded_from(written, value):
                    inexact.append({"name": name, "field": field_name})
    facts = {"wrong": wrong, "inexact": inexact}
    if not cells:
        return PartScore(Fraction(1), facts)
    return PartScore(Fraction(cells - len(wrong), cells), facts)


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
