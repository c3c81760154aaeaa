"""Judge a student's search on one hidden test against the reference engine's trace.

Four things are compared: the decision and the value (a fifth of the test each; the value
alone is two fifths for value-only items), the set of states generated with ``result``
(three tenths, net-correct: states the reference generates, minus states it does not, over
the reference's count) and the order of states evaluated with ``utility``/``evaluate``
(three tenths, by longest common subsequence). The search is most of the mark: a right
answer found without the right search is not the exercise. Feedback names the first
divergence and the named misconception whose whole search the student's reproduces on the
test, when exactly one does (several giving the same search cannot be told apart there).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from grading.code.feedback import message, misconception_messages, shown
from grading.code.reference import (
    Method,
    Trace,
    collapse_repeats,
    misconception_traces,
    run_reference,
)
from grading.code.runs import CaseRun

PASSED = "passed"
WRONG = "wrong"
LCS_CELLS_LIMIT = 4_000_000
"""Beyond this many table cells the evaluation order is scored by common prefix instead."""
FLOAT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class StudentTrace:
    """What the student's run did on one test, in the terms of :class:`Trace`."""

    move: Hashable | None
    value: Fraction | float | None
    generated: frozenset[Hashable]
    evaluated: tuple[Hashable, ...]
    paths: dict[Hashable, str]


def student_trace(run: CaseRun, *, returns_move: bool
                  ) -> tuple[StudentTrace, dict[str, Any] | None]:
    """Return the student's trace on ``run`` and a complaint about the return value's shape."""
    answer = run.return_value
    complaint: dict[str, Any] | None = None
    move: Hashable | None = None
    value: Any = answer
    if returns_move:
        if isinstance(answer, list | tuple) and len(answer) == 2:
            move, value = answer
        else:
            complaint = message("return_shape", returned=shown(answer))
            value = None
    if value is not None and not _is_number(value):
        complaint = complaint or message("value_not_number", returned=shown(value))
        value = None
    paths: dict[Hashable, str] = {run.case.root: ""}
    generated = set()
    for event in run.calls:
        if event.kind == "result" and event.error is None:
            generated.add(event.value)
            before = paths.get(event.state, "?")
            paths.setdefault(event.value, f"{before}, {event.action}" if before
                             else f"after {event.action}")
    evaluated = collapse_repeats([event.state for event in run.calls
                                  if event.kind in ("utility", "evaluate") and event.error is None])
    return StudentTrace(move, value, frozenset(generated), evaluated, paths), complaint


def new_report(run: CaseRun) -> dict[str, Any]:
    """Return a test's report with no score yet; for a run that did not return normally, its
    verdict, message and the student's traceback."""
    report: dict[str, Any] = {"test": run.case.name, "verdict": run.verdict, "score": 0.0,
                              "max_score": 1.0, "messages": [], "misconceptions": []}
    if run.verdict != "ok":
        report["messages"].append(run.outcome.message)
        if run.outcome.traceback:
            report["traceback"] = run.outcome.traceback
    return report


def grade_case(run: CaseRun, method: Method, *, returns_move: bool) -> dict[str, Any]:
    """Return the report of one hidden test: verdict, score out of 1, messages, diagnosis."""
    report = new_report(run)
    if run.verdict != "ok":
        return report
    trace, complaint = student_trace(run, returns_move=returns_move)
    if returns_move and trace.move is not None and not run.was_offered(trace.move):
        report["verdict"] = "illegal_operation"
        report["messages"].append(message("move_not_offered", move=str(trace.move)))
        return report
    reference = run_reference(run.case, method)
    paths = {**trace.paths, **reference.paths}
    checks = _checks(trace, reference, returns_move)
    score = round(_score(checks, returns_move), 4)
    report["score"] = score
    report["checks"] = checks
    if complaint:
        report["messages"].append(complaint)
    if score == 1:
        report["verdict"] = PASSED
        return report
    report["verdict"] = WRONG
    report["messages"] += divergence_messages(run, trace, reference, paths)
    codes = matching_misconceptions(run, method, trace, reference, returns_move=returns_move)
    report["misconceptions"] = codes
    report["messages"] += misconception_messages(codes)
    return report


def _checks(trace: StudentTrace, reference: Trace, returns_move: bool) -> dict[str, Any]:
    checks: dict[str, Any] = {"value": _same_number(trace.value, reference.value)}
    if returns_move:
        checks["decision"] = trace.move == reference.move
    checks["generated"] = _overlap(trace.generated, reference.generated)
    checks["evaluated"] = _order_similarity(trace.evaluated, reference.evaluated)
    return checks


def _score(checks: dict[str, Any], returns_move: bool) -> float:
    answer = float(checks["decision"] if returns_move else checks["value"])
    return (0.2 * float(checks["value"]) + 0.2 * answer + 0.3 * float(checks["generated"])
            + 0.3 * float(checks["evaluated"]))


def divergence_messages(run: CaseRun, trace: StudentTrace, reference: Trace,
                        paths: dict[Hashable, str]) -> list[dict[str, Any]]:
    """Return what first went wrong, most telling first: evaluation order, states, answer."""

    def name(state: Hashable) -> str:
        return run.case.name_of(state, paths) or "the root"

    messages = []
    mine, theirs = trace.evaluated, reference.evaluated
    first = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                 min(len(mine), len(theirs)))
    if first < len(mine) and first < len(theirs):
        messages.append(message("evaluated_differs", n=first + 1, yours=name(mine[first]),
                                reference=name(theirs[first])))
    elif first < len(theirs):
        messages.append(message("evaluated_too_few", count=len(mine),
                                reference=name(theirs[first])))
    elif first < len(mine):
        messages.append(message("evaluated_too_many", count=len(theirs), n=first + 1,
                                yours=name(mine[first])))
    extra = sorted(trace.generated - reference.generated, key=name)
    missing = sorted(reference.generated - trace.generated, key=name)
    if extra:
        messages.append(message("generated_extra", states=_listed(extra, name)))
    if missing:
        messages.append(message("generated_missing", states=_listed(missing, name)))
    if trace.move != reference.move and trace.move is not None:
        messages.append(message("decision_differs", yours=str(trace.move),
                                reference=str(reference.move)))
    if not _same_number(trace.value, reference.value) and trace.value is not None:
        messages.append(message("value_differs", yours=_number_text(trace.value),
                                reference=_number_text(reference.value)))
    return messages


def matching_misconceptions(run: CaseRun, method: Method, trace: StudentTrace,
                            correct: Trace, *, returns_move: bool) -> list[str]:
    """Return the codes of misconceptions whose whole search the student's reproduces on this
    test: the same decision (on items returning one), value, generated states and evaluation
    order.

    Agreeing with a misconception only where it departs from the correct search is not
    enough: the student's other departures are mistakes it does not explain (a search that
    decides MAX and MIN by depth, wrong where a player moves twice, is not one that leaves
    alpha at the root unraised because both get one tree's value wrong).
    """
    return [
        code for code, wrong in misconception_traces(run.case, method, correct).items()
        if (not returns_move or trace.move == wrong.move)
        and _same_number(trace.value, wrong.value)
        and trace.generated == wrong.generated and trace.evaluated == wrong.evaluated
    ]


def _overlap(mine: frozenset[Hashable], theirs: frozenset[Hashable]) -> float:
    if not theirs:
        return 0.0 if mine else 1.0
    net = len(mine & theirs) - len(mine - theirs)
    return round(max(net, 0) / len(theirs), 4)


def _order_similarity(mine: Sequence[Hashable], theirs: Sequence[Hashable]) -> float:
    longest = max(len(mine), len(theirs))
    if longest == 0:
        return 1.0
    if len(mine) * len(theirs) > LCS_CELLS_LIMIT:
        common = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                      min(len(mine), len(theirs)))
    else:
        common = _lcs_length(mine, theirs)
    return round(common / longest, 4)


def _lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int | Fraction)


def _same_number(mine: Any, theirs: Fraction) -> bool:
    if mine is None:
        return False
    if isinstance(mine, float):
        return abs(mine - float(theirs)) <= FLOAT_TOLERANCE
    return Fraction(mine) == theirs


def _number_text(value: Fraction | float) -> str:
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    return str(value)


def _listed(states: list[Hashable], name: Any, limit: int = 5) -> str:
    names = [name(state) for state in states[:limit]]
    more = len(states) - limit
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")

