"""Grade one answer to one variant item: score every part and explain it, without side effects.

The item's kind (``exercises.kinds``) says which parts there are and projects the engine's
answer key onto them; :mod:`grading.scoring` scores each part and :mod:`grading.feedback`
explains it. The same projection applied to each named misconception's answer lets
:func:`diagnose` name the one mistake whose answer explains the student's (see
grading/README.md, "Which misconception is named").
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
from grading.scoring import ALL_OR_NOTHING, NET_CORRECT, SET_SCORING_RULES, part_points, score_part

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


def all_or_nothing_sets(item: Item) -> frozenset[str]:
    """Return the names of ``item``'s set parts scored all-or-nothing, whose feedback under
    the ``verdicts`` policy says only that the set is not exact
    (:func:`grading.feedback_policy.served_results`)."""
    return frozenset(
        part.name for part in get_kind(item.kind).answer_parts(item.params)
        if part.type == PartType.SET and set_scoring_rule(item, part) == ALL_OR_NOTHING
    )


class GradingContext:
    """Everything grading one variant item needs, computed once and shared by its parts.

    ``answer_key`` is the variant item's stored key, already projected by the kind onto its
    answer parts; ``trace`` is how generation reached it: the engine's full ``answer`` (with
    the search's event ``trace`` for alpha-beta). A multiple-choice item's ``problem`` lists
    its options; diagnosis compares the chosen option's value with each misconception's.
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
    def asked_part(self) -> AnswerPart | None:
        """Return the open part a multiple-choice item asks about (None for open items)."""
        if not self.kind.is_multiple_choice(self.item.params):
            return None
        return next((part for part in self.kind.open_parts(self.item.params)
                     if part.name == self.kind.choice_part), None)

    def option_value(self, option_id: Any) -> Any:
        """Return the value of the multiple-choice option ``option_id`` (None if unknown)."""
        for option in self.problem.get("options") or []:
            if option.get("id") == option_id:
                return option.get("value")
        return None

    @cached_property
    def misconception_expectations(self) -> dict[str, dict[str, Any]]:
        """Return misconception code → the part values that misconception produces.

        Generation stores them with the item (``trace["misconceptions"]``); items generated
        before it did are computed here, once per process.
        """
        stored = self.trace.get("misconceptions")
        if isinstance(stored, dict):
            return stored
        problem_json = json.dumps(self.problem, sort_keys=True)
        return json.loads(misconception_expectations(self.kind.name, problem_json))


@lru_cache(maxsize=1024)
def misconception_expectations(kind_name: str, problem_json: str) -> str:
    """Return (as JSON) misconception code → part values, for one kind and problem.

    Cached per worker process: a student's attempts at one item share the same problem,
    and the misconceptions' answers are its costliest part to grade.
    """
    return json.dumps(get_kind(kind_name).misconception_parts(json.loads(problem_json)))


def grade_answer(context: GradingContext, answer: Mapping[str, Any]) -> GradeResult:
    """Score and explain every part of ``answer`` for the item in ``context``."""
    points = part_points(context.parts, Fraction(str(context.item.points)),
                         context.item.part_points or {})
    results = []
    raw = Fraction(0)
    right_parts, wrong_parts = [], []
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
            wrong_parts.append(part)
            step = feedback.first_wrong_step(context, part, answer, scored)
            if step is not None:
                result["messages"].insert(0, step.message)
                result["trace_step"] = step.trace_step
        else:
            right_parts.append(part)
        results.append(result)
    diagnosis = None
    if wrong_parts:
        try:
            diagnosis = diagnose(context, answer, right_parts, wrong_parts)
        except Exception:
            # Diagnosis is a bonus: a misconception answer grading cannot compare leaves the
            # answer undiagnosed rather than the submission ungraded.
            logger.warning("diagnosing an answer to %s failed", context.kind.name,
                           exc_info=True)
    if diagnosis is not None:
        for result in results:
            if result["part"] in diagnosis.explained:
                result["misconception"] = diagnosis.code
    return GradeResult(raw, sum(points.values(), Fraction(0)), results)


@dataclass(frozen=True)
class Diagnosis:
    """The one misconception that explains an answer, and the wrong parts it reproduces."""

    code: str
    explained: frozenset[str]


def diagnose(
    context: GradingContext,
    answer: Mapping[str, Any],
    right_parts: list[AnswerPart],
    wrong_parts: list[AnswerPart],
) -> Diagnosis | None:
    """Return the misconception whose own answer explains ``answer``, if exactly one does best.

    A misconception explains an answer when its answer (projected onto the parts) agrees
    with the student's on every part the student got right and equals it on more than half
    of the parts the student got wrong (parts left unanswered count as neither). A part the
    misconception's answer says nothing about (null) neither agrees nor contradicts. The
    candidate equal on the most wrong parts wins; when none qualifies, or two tie, no
    misconception is named and the parts' own messages say what is wrong.
    """
    best: list[Diagnosis] = []
    for code, produced in context.misconception_expectations.items():
        if any(agrees(context, part, answer, produced) is False for part in right_parts):
            continue
        explained = frozenset(
            part.name for part in wrong_parts if agrees(context, part, answer, produced)
        )
        if 2 * len(explained) <= len(wrong_parts):
            continue
        if best and len(explained) > len(best[0].explained):
            best = []
        if not best or len(explained) == len(best[0].explained):
            best.append(Diagnosis(code, explained))
    return best[0] if len(best) == 1 else None


def agrees(
    context: GradingContext, part: AnswerPart, answer: Mapping[str, Any],
    produced: Mapping[str, Any],
) -> bool | None:
    """Return whether a misconception's answer to ``part`` equals the student's (None: silent).

    Equal means the student's value would earn full marks with the misconception's as the
    key. A multiple-choice answer is compared through the value of the chosen option.
    """
    given = answer[part.name]
    if part.type is PartType.CHOICE:
        asked, given = context.asked_part, context.option_value(given)
        if asked is None or given is None:
            return None
        part = asked
    claim = produced.get(part.name)
    if part.type is PartType.NODE_VALUES and isinstance(claim, Mapping):
        # A misconception may leave a node without an exact value; it claims the others.
        claim = {name: value for name, value in claim.items() if value is not None}
        if not claim:
            return None
        scored = score_part(part, given, claim, set_rule=set_scoring_rule(context.item, part))
        return not scored.facts["wrong"] and not scored.facts["missing"]
    if claim is None:
        return None
    scored = score_part(part, given, claim, set_rule=set_scoring_rule(context.item, part))
    return scored.fraction == 1
