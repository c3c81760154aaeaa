"""Item statistics of a problem set: attempts, means, first-attempt success, misconceptions,
multiple-choice option counts and each item's point-biserial discrimination.

Pure computation over rows already read by :func:`grading.selectors.problem_set_statistics`;
the definitions are in docs/course-running.md ("Statistics").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Discrimination:
    """A point-biserial correlation, or None with the reason it is undefined."""

    value: float | None
    reason: str | None = None


def point_biserial(right: Sequence[bool], rest: Sequence[float]) -> Discrimination:
    """Return the point-biserial correlation of ``right`` (full marks or not) with ``rest``.

    r = (M1 - M0) / s * sqrt(p * q): M1 and M0 are the mean rest scores of the students who
    got full marks and of the others, s the population standard deviation of every rest
    score, p the fraction with full marks and q = 1 - p. It equals Pearson's correlation of
    the 0/1 item score with the rest score. Undefined (None) with fewer than two students
    (``too_few_students``), when every student or none got full marks
    (``item_zero_variance``) and when every rest score is equal (``rest_zero_variance``).
    """
    n = len(right)
    if n < 2:
        return Discrimination(None, "too_few_students")
    ones = [score for ok, score in zip(right, rest, strict=True) if ok]
    zeros = [score for ok, score in zip(right, rest, strict=True) if not ok]
    if not ones or not zeros:
        return Discrimination(None, "item_zero_variance")
    mean = sum(rest) / n
    variance = sum((score - mean) ** 2 for score in rest) / n
    if variance == 0:
        return Discrimination(None, "rest_zero_variance")
    p = len(ones) / n
    m1, m0 = sum(ones) / len(ones), sum(zeros) / len(zeros)
    return Discrimination(round((m1 - m0) / math.sqrt(variance) * math.sqrt(p * (1 - p)), 6))


@dataclass
class Attempt:
    """One graded attempt, as statistics read it."""

    student_id: int
    attempt_number: int
    score: float
    max_score: float
    results: list[dict[str, Any]]
    choice: str | None = None


@dataclass
class PartStats:
    """Statistics of one answer part over the students who answered the item."""

    name: str
    students: int = 0
    attempts: int = 0
    mean: float | None = None
    max_points: float | None = None
    right_at_first_attempt: int = 0
    misconceptions: dict[str, int] = field(default_factory=dict)
    discrimination: Discrimination = field(default_factory=lambda: Discrimination(None))


@dataclass
class ItemStats:
    """Statistics of one item: the part statistics and the item's own."""

    position: int
    kind: str
    points: float
    multiple_choice: bool
    students: int = 0
    attempts: int = 0
    mean: float | None = None
    right_at_first_attempt: int = 0
    misconceptions: dict[str, int] = field(default_factory=dict)
    options: dict[str, int] = field(default_factory=dict)
    discrimination: Discrimination = field(default_factory=lambda: Discrimination(None))
    parts: list[PartStats] = field(default_factory=list)


def counted(attempts: list[Attempt], score_policy: str) -> Attempt:
    """Return the attempt that counts under ``score_policy`` (as the grades CSV counts it)."""
    if score_policy == "last":
        return max(attempts, key=lambda a: a.attempt_number)
    return max(attempts, key=lambda a: (a.score, -a.attempt_number))


def item_statistics(
    items: Sequence[tuple[int, str, float, bool, list[str]]],
    attempts: dict[int, dict[int, list[Attempt]]],
    students: Sequence[int],
    score_policy: str,
) -> list[ItemStats]:
    """Return the statistics of each item.

    ``items`` are (position, kind, points, multiple choice, part names); ``attempts`` maps
    position → student id → graded attempts; ``students`` are those counted for
    discrimination (every student with a graded attempt in the set; an item they did not
    answer scores 0 and is not full marks).
    """
    chosen = {
        position: {sid: counted(tries, score_policy) for sid, tries in by_student.items()}
        for position, by_student in attempts.items()
    }

    def item_score(position: int, sid: int) -> float:
        attempt = chosen.get(position, {}).get(sid)
        return attempt.score if attempt else 0.0

    totals = {sid: sum(item_score(position, sid) for position, *_ in items) for sid in students}
    out = []
    for position, kind, points, multiple_choice, part_names in items:
        by_student = attempts.get(position, {})
        tries = [a for group in by_student.values() for a in group]
        stats = ItemStats(position, kind, points, multiple_choice,
                          students=len(by_student), attempts=len(tries))
        counted_here = list(chosen.get(position, {}).values())
        if counted_here:
            stats.mean = round(sum(a.score for a in counted_here) / len(counted_here), 4)
        firsts = [a for a in tries if a.attempt_number == min(
            t.attempt_number for t in by_student[a.student_id])]
        stats.right_at_first_attempt = sum(1 for a in firsts if a.score >= a.max_score > 0)
        stats.misconceptions = dict(sorted(Counter(
            code for a in tries for code in _misconceptions_of(a)).items()))
        if multiple_choice:
            stats.options = dict(sorted(Counter(a.choice for a in tries if a.choice).items()))
        rest = [totals[sid] - item_score(position, sid) for sid in students]
        full = [
            (a := chosen.get(position, {}).get(sid)) is not None and a.score >= a.max_score > 0
            for sid in students
        ]
        stats.discrimination = (
            Discrimination(None, "no_rest_of_set") if len(items) < 2
            else point_biserial(full, rest)
        )
        stats.parts = [
            _part_stats(name, tries, firsts, chosen.get(position, {}), students, rest,
                        len(items))
            for name in part_names
        ]
        out.append(stats)
    return out


def _misconceptions_of(attempt: Attempt) -> set[str]:
    """Return the misconceptions an attempt's results name, each once: a typed answer's parts
    name one each (``misconception``), a code submission's tests a list (``misconceptions``)."""
    codes: set[str] = set()
    for result in attempt.results:
        if result.get("misconception"):
            codes.add(str(result["misconception"]))
        codes.update(str(code) for code in result.get("misconceptions") or [])
    return codes


def _part_result(attempt: Attempt | None, name: str) -> dict[str, Any] | None:
    if attempt is None:
        return None
    return next((r for r in attempt.results if r.get("part") == name), None)


def _part_right(result: dict[str, Any] | None) -> bool:
    return result is not None and result.get("verdict") == "correct"


def _part_stats(
    name: str, tries: list[Attempt], firsts: list[Attempt], chosen: dict[int, Attempt],
    students: Sequence[int], rest: list[float], item_count: int,
) -> PartStats:
    stats = PartStats(name, students=len(chosen), attempts=len(tries))
    counted_results = [r for a in chosen.values() if (r := _part_result(a, name)) is not None]
    if counted_results:
        stats.mean = round(
            sum(float(r.get("points") or 0) for r in counted_results) / len(counted_results), 4
        )
        stats.max_points = float(counted_results[0].get("max_points") or 0)
    stats.right_at_first_attempt = sum(1 for a in firsts if _part_right(_part_result(a, name)))
    stats.misconceptions = dict(sorted(Counter(
        code for a in tries
        if (r := _part_result(a, name)) is not None and (code := r.get("misconception"))
    ).items()))
    right = [_part_right(_part_result(chosen.get(sid), name)) for sid in students]
    stats.discrimination = (
        Discrimination(None, "no_rest_of_set") if item_count < 2
        else point_biserial(right, rest)
    )
    return stats
