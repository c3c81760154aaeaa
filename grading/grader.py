"""Grade one answer to one variant item: score every part and explain it, without side effects.

The item's kind (``exercises.kinds``) says which parts there are and projects the engine's
answer key onto them; :mod:`grading.scoring` scores each part and :mod:`grading.feedback`
explains it. The same projection applied to each named misconception's answer lets feedback
say which mistake a wrong part matches.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

from exercises.kinds import get_kind
from exercises.kinds.base import SET_SCORING, AnswerPart, Kind, PartType
from exercises.models import Item
from grading import feedback
from grading.scoring import NET_CORRECT, SET_SCORING_RULES, PartScore, part_points, score_part

logger = logging.getLogger(__name__)

SET_SCORING_PARAM = SET_SCORING.name  # declared by every kind with a set part


@dataclass(frozen=True)
class GradeResult:
    """An item's score before any late penalty, its maximum, and one result per part."""

    raw_score: Fraction
    max_score: Fraction
    results: list[dict[str, Any]]


def set_scoring_rule(item: Item, part: AnswerPart) -> str:
    """Return how ``part`` (a set) is scored for ``item``: net-correct or all-or-nothing.

    The instructor chooses per item with the ``set_scoring`` param when the kind offers it;
    otherwise the part's declared option, otherwise net-correct.
    """
    for rule in (item.params.get(SET_SCORING_PARAM), part.options.get("scoring")):
        if rule in SET_SCORING_RULES:
            return str(rule)
    return NET_CORRECT


class GradingContext:
    """Everything grading one variant item needs, computed once and shared by its parts.

    ``answer_key`` is the variant item's stored key, already projected by the kind onto its
    answer parts; ``trace`` is how generation reached it: the engine's full ``answer`` (with
    the search's event ``trace`` for alpha-beta) and, for multiple choice, the misconception
    behind each option.
    """

    def __init__(
        self,
        item: Item,
        problem: Mapping[str, Any],
        answer_key: Mapping[str, Any],
        trace: Mapping[str, Any] | None,
    ) -> None:
        self.item = item
        self.kind: Kind = get_kind(item.kind)
        self.problem = dict(problem)
        self.expected = dict(answer_key)
        self.trace = dict(trace or {})
        self.engine_answer: dict[str, Any] = dict(self.trace.get("answer") or {})
        self.parts = self.kind.answer_parts(item.params)

    @cached_property
    def misconception_expectations(self) -> dict[str, dict[str, Any]]:
        """Return misconception code → the part values that misconception produces."""
        problem_json = json.dumps(self.problem, sort_keys=True)
        return json.loads(misconception_expectations(self.kind.name, problem_json))


@lru_cache(maxsize=1024)
def misconception_expectations(kind_name: str, problem_json: str) -> str:
    """Return (as JSON) misconception code → part values, for one kind and problem.

    Cached per worker process: a student's attempts at one item share the same problem,
    and the misconceptions' answers are its costliest part to grade. Diagnosis is a
    bonus: a misconception the kind cannot answer or project is left out rather than
    failing the grade.
    """
    kind = get_kind(kind_name)
    problem = json.loads(problem_json)
    try:
        answers = kind.misconception_answers(problem)
    except Exception:
        logger.warning("misconceptions of %s failed", kind_name, exc_info=True)
        return "{}"
    expectations = {}
    for code, answer in answers.items():
        try:
            expectations[code] = kind.project(problem, answer)
        except Exception:
            logger.warning("projecting misconception %s of %s failed", code, kind_name,
                           exc_info=True)
    return json.dumps(expectations, default=str)


def grade_answer(context: GradingContext, answer: Mapping[str, Any]) -> GradeResult:
    """Score and explain every part of ``answer`` for the item in ``context``."""
    points = part_points(context.parts, Fraction(str(context.item.points)),
                         context.item.part_points or {})
    results = []
    raw = Fraction(0)
    wrong_parts = []
    for part in context.parts:
        part_max = points[part.name]
        expected = context.expected.get(part.name)
        if part.name not in answer:
            results.append(feedback.missing_part(part, part_max, expected))
            continue
        scored = score_part(part, answer[part.name], expected,
                            set_rule=set_scoring_rule(context.item, part))
        earned = part_max * scored.fraction
        raw += earned
        result = feedback.part_result(
            part, scored, earned=earned, max_points=part_max, given=answer[part.name],
            expected=expected,
        )
        if scored.fraction < 1:
            wrong_parts.append((part, result))
            step = feedback.first_wrong_step(context, part, answer, scored)
            if step is not None:
                result["messages"].insert(0, step.message)
                result["trace_step"] = step.trace_step
        results.append(result)
    if wrong_parts:
        name_misconceptions(context, answer, wrong_parts)
    return GradeResult(raw, sum(points.values(), Fraction(0)), results)


def name_misconceptions(
    context: GradingContext,
    answer: Mapping[str, Any],
    wrong_parts: list[tuple[AnswerPart, dict[str, Any]]],
) -> None:
    """Name, on each wrong part, the misconception whose answer equals the student's.

    Only misconceptions whose answer to the part differs from the correct one count, so a
    part is never blamed on a mistake that happens to agree with the key. When several
    match a part, the one matching the most wrong parts of the whole answer wins: it
    explains the answer best.
    """
    matches: dict[str, set[str]] = {}
    for part, _result in wrong_parts:
        given = answer[part.name]
        if part.type is PartType.CHOICE:
            code = (context.trace.get("option_misconceptions") or {}).get(str(given))
            if code:
                matches.setdefault(code, set()).add(part.name)
            continue
        correct = context.expected.get(part.name)
        rule = set_scoring_rule(context.item, part)
        for code, produced in context.misconception_expectations.items():
            value = produced.get(part.name)
            if _informative(value) and value != correct and _full_marks(part, given, value, rule):
                matches.setdefault(code, set()).add(part.name)
    ranked = sorted(matches, key=lambda code: -len(matches[code]))
    for part, result in wrong_parts:
        result["misconception"] = next(
            (code for code in ranked if part.name in matches[code]), None
        )


def _informative(value: Any) -> bool:
    """Return whether a projected value says something (not null, not all-null rows).

    A kind projects what an engine answer lacks as null; matching on it would blame every
    student who leaves that part empty on whichever misconception comes first.
    """
    if isinstance(value, Mapping):
        return any(entry is not None for entry in value.values())
    return value is not None


def _full_marks(part: AnswerPart, given: Any, expected: Any, rule: str) -> bool:
    scored: PartScore = score_part(part, given, expected, set_rule=rule)
    if part.type is PartType.NODE_VALUES:
        # A misconception reaches different nodes; agreeing on all it reaches is enough.
        return not scored.facts["wrong"] and not scored.facts["missing"]
    return scored.fraction == 1
