"""What a problem set's dashboard shows, summarised from grading's grade rows and results.

Scores come from :func:`grading.selectors.grade_rows` (the submission that counts under the
set's score policy); misconceptions are the codes grading stored in each part's result.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from exercises.kinds import get_kind
from exercises.models import ProblemSet
from grading.feedback import misconception_text
from grading.models import Submission
from grading.selectors import grade_rows

HISTOGRAM_BINS = 10
HISTOGRAM_BAR_WIDTH = 60
HISTOGRAM_HEIGHT = 160
TOP_MISCONCEPTIONS = 5


@dataclass(frozen=True)
class Bar:
    """One histogram bar: its score range, how many students, where it is drawn."""

    label: str
    count: int
    x: int
    y: int
    height: int

    @property
    def middle(self) -> int:
        """Return the horizontal centre of the bar, where its labels go."""
        return self.x + HISTOGRAM_BAR_WIDTH // 2


@dataclass(frozen=True)
class ItemSummary:
    """One item's mean counted score and the share of students with a graded attempt."""

    position: int
    title: str
    points: Decimal
    mean: Decimal | None
    completion: int  # percent


@dataclass(frozen=True)
class StudentAttempts:
    """One student's total and, per item, attempts made and score counted."""

    username: str
    total: Decimal
    late: bool
    items: list[tuple[int, Decimal | None]]  # (attempts, counted score)
    name: str = ""  # as the LMS sent it; LMS accounts' usernames are opaque


def histogram(totals: list[Decimal], max_total: Decimal) -> list[Bar]:
    """Return bars counting totals in ten equal bands of the maximum score."""
    counts = [0] * HISTOGRAM_BINS
    for total in totals:
        share = total / max_total if max_total else Decimal(0)
        counts[min(HISTOGRAM_BINS - 1, int(share * HISTOGRAM_BINS))] += 1
    tallest = max(counts) or 1
    bars = []
    for index, count in enumerate(counts):
        height = round(count / tallest * (HISTOGRAM_HEIGHT - 30))
        bars.append(Bar(
            label=f"{index * 10}–{(index + 1) * 10}%",
            count=count,
            x=10 + index * (HISTOGRAM_BAR_WIDTH + 8),
            y=HISTOGRAM_HEIGHT - height,
            height=height,
        ))
    return bars


def dashboard_data(problem_set: ProblemSet) -> dict[str, Any]:
    """Return the histogram, item summaries, top misconceptions and per-student attempts."""
    items = list(problem_set.items.all())
    rows = list(grade_rows(problem_set))
    max_total = sum((item.points for item in items), Decimal(0))
    submissions = Submission.objects.filter(
        variant_item__variant__problem_set=problem_set
    ).select_related("student", "variant_item").only(
        "student__username", "status", "results", "variant_item__position"
    )
    attempts: Counter[tuple[str, int]] = Counter()
    misconceptions: Counter[str] = Counter()
    for submission in submissions:
        if submission.status != Submission.Status.ERROR:
            attempts[(submission.student.username, submission.variant_item.position)] += 1
        for result in submission.results or []:
            if result.get("misconception"):
                misconceptions[result["misconception"]] += 1
    summaries = []
    for index, item in enumerate(items):
        scores = [score for row in rows if (score := row.item_scores[index]) is not None]
        summaries.append(ItemSummary(
            position=item.position,
            title=str(get_kind(item.kind).title),
            points=item.points,
            mean=sum(scores, Decimal(0)) / len(scores) if scores else None,
            completion=round(100 * len(scores) / len(rows)) if rows else 0,
        ))
    graded_totals = [row.total for row in rows if any(s is not None for s in row.item_scores)]
    return {
        "items": summaries,
        "max_total": max_total,
        "bars": histogram(graded_totals, max_total),
        "graded_students": len(graded_totals),
        "histogram_width": 20 + HISTOGRAM_BINS * (HISTOGRAM_BAR_WIDTH + 8),
        "histogram_height": HISTOGRAM_HEIGHT + 40,
        "histogram_baseline": HISTOGRAM_HEIGHT,
        "bar_width": HISTOGRAM_BAR_WIDTH,
        "misconceptions": [
            (code, misconception_text(code), count)
            for code, count in misconceptions.most_common(TOP_MISCONCEPTIONS)
        ],
        "students": [
            StudentAttempts(
                username=row.username, total=row.total, late=row.late, name=row.name,
                items=[
                    (attempts[(row.username, item.position)], row.item_scores[index])
                    for index, item in enumerate(items)
                ],
            )
            for row in rows
        ],
    }
