"""Plain-SQL UPDATEs (config.plain_sql, used on grading's hot path) write the row the ORM
would: every value through its field, names from the model, IN for a tuple, increments, the
count of rows changed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.db.models import F
from django.utils import timezone

from config.plain_sql import Increment, column_field, update_rows
from grading.models import Submission, WorkerHeartbeat
from tests.grading.conftest import correct_answer

pytestmark = pytest.mark.django_db


def stored_pair(variant: Any, student: Any) -> tuple[Submission, Submission]:
    """Return two equal queued submissions of item 1."""
    variant_item = variant.items.get(position=1)
    return tuple(  # type: ignore[return-value]
        Submission.objects.create(variant_item=variant_item, student=student,
                                  attempt_number=number, answer=correct_answer(variant_item))
        for number in (1, 2)
    )


COLUMNS = ("status", "graded_at", "raw_score", "score", "max_score", "results",
           "graded_engine_version", "grades_recorded", "grading_runs")


def test_an_update_writes_what_the_orm_writes(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    by_orm, by_sql = stored_pair(variant, student[0])
    now = timezone.now()
    values = {"status": Submission.Status.GRADED, "graded_at": now,
              "raw_score": Decimal("2.5000"), "score": Decimal("2.2500"),
              "max_score": Decimal("6.0000"),
              "results": [{"part": "value", "verdict": "correct", "note": "α ≥ β, \"quoted\""}],
              "graded_engine_version": "engine 9"}
    assert Submission.objects.filter(pk=by_orm.pk).update(
        **values, grades_recorded=F("grades_recorded") + 1, grading_runs=F("grading_runs") + 2)
    assert update_rows(Submission, where={"id": by_sql.pk},
                       values={**values, "grades_recorded": Increment(),
                               "grading_runs": Increment(2)}) == 1
    orm_row = Submission.objects.values(*COLUMNS).get(pk=by_orm.pk)
    assert Submission.objects.values(*COLUMNS).get(pk=by_sql.pk) == orm_row
    assert orm_row["grading_runs"] == 2 and orm_row["grades_recorded"] == 1


def test_a_tuple_matches_any_of_its_values_and_the_count_is_of_rows_changed(
        alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    first, second = stored_pair(variant, student[0])
    Submission.objects.filter(pk=second.pk).update(status=Submission.Status.GRADED)
    waiting = (Submission.Status.QUEUED, Submission.Status.RUNNING)
    changed = update_rows(Submission, where={"id": (first.pk, second.pk), "status": waiting},
                          values={"status": Submission.Status.RUNNING})
    assert changed == 1
    assert Submission.objects.get(pk=first.pk).status == Submission.Status.RUNNING
    assert Submission.objects.get(pk=second.pk).status == Submission.Status.GRADED
    assert update_rows(Submission, where={"id": first.pk, "status": Submission.Status.QUEUED},
                       values={"status": Submission.Status.ERROR}) == 0


def test_json_lists_and_names_are_written_as_the_orm_writes_them(db) -> None:
    WorkerHeartbeat.objects.create(name="w pid 1", beat_at=timezone.now(), holding=[])
    assert update_rows(WorkerHeartbeat, where={"name": "w pid 1"},
                       values={"holding": [3, 5], "broker_connected": True}) == 1
    row = WorkerHeartbeat.objects.get(name="w pid 1")
    assert (row.holding, row.broker_connected) == ([3, 5], True)


def test_only_columns_of_the_table_can_be_named() -> None:
    with pytest.raises(ValueError, match="Submission.regrade_requests is not a column"):
        column_field(Submission, "regrade_requests")
