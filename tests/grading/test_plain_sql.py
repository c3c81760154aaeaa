"""Plain SQL (config.plain_sql, used on grading's hot path) writes and reads what the ORM
would: UPDATEs with every value through its field, names from the model, IN for a tuple,
increments and the count of rows changed; INSERTs with defaults and auto_now applied; joined
reads with the same values, deferred fields and cached related rows as select_related."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.db.models import F, Prefetch
from django.utils import timezone

from config.plain_sql import Increment, JoinedRead, column_field, insert_row, update_rows
from exercises.models import Extension, ProblemSet, Variant, VariantItem
from exercises.selectors import EXTENSIONS_PREFETCHED, rules_for, variant_of, variants_of
from grading.models import RegradeRequest, Submission, WorkerHeartbeat
from grading.selectors import VARIANT_ITEM_BULK, student_variant_item, submission_for
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


def loaded_values(instance: Any) -> dict[str, Any]:
    """Return the values of ``instance``'s loaded concrete fields, by attribute name."""
    deferred = instance.get_deferred_fields()
    return {field.attname: getattr(instance, field.attname)
            for field in type(instance)._meta.concrete_fields if field.attname not in deferred}


def test_a_joined_read_reads_what_select_related_reads(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    by_orm = (VariantItem.objects.select_related("item", "variant__problem_set")
              .defer("answer_key", "trace").get(variant=variant, position=1))
    by_sql = student_variant_item(student[0], variant.pk, 1)
    assert by_sql is not None
    assert by_sql.get_deferred_fields() == by_orm.get_deferred_fields() == {"answer_key", "trace"}
    assert loaded_values(by_sql) == loaded_values(by_orm)
    for related in ("item", "variant"):
        assert VariantItem._meta.get_field(related).is_cached(by_sql)
    assert loaded_values(by_sql.item) == loaded_values(by_orm.item)
    assert loaded_values(by_sql.variant) == loaded_values(by_orm.variant)
    assert loaded_values(by_sql.variant.problem_set) == loaded_values(by_orm.variant.problem_set)
    with django_assert_no_queries():
        by_sql.variant.problem_set.course_id  # noqa: B018 - reading it must not query
    # A deferred field loads on access, as the ORM's does.
    assert by_sql.answer_key == VariantItem.objects.get(pk=by_orm.pk).answer_key


@pytest.mark.parametrize("extended", [False, True])
def test_an_item_is_read_with_its_students_extension_only(alphabeta_set, student, other_student,
                                                          instructor, extended) -> None:
    problem_set, variant = alphabeta_set
    if extended:
        Extension.objects.create(problem_set=problem_set, student=student[0], extra_attempts=2,
                                 due_at=timezone.now(), time_limit_minutes=40,
                                 granted_by=instructor[0])
    # Another student's extension on the same set never comes along.
    Extension.objects.create(problem_set=problem_set, student=other_student[0],
                             extra_attempts=5, granted_by=instructor[0])
    by_sql = student_variant_item(student[0], variant.pk, 1)
    assert by_sql is not None
    by_query = rules_for(Variant.objects.get(pk=variant.pk))  # its own extension read
    with django_assert_no_queries():
        assert rules_for(by_sql.variant) == by_query
        read = getattr(by_sql.variant.problem_set, EXTENSIONS_PREFETCHED)
    assert by_query.extended is extended
    assert [loaded_values(e) for e in read] == [
        loaded_values(e) for e in Extension.objects.filter(problem_set=problem_set,
                                                           student=student[0])]


def django_assert_no_queries() -> Any:
    """Return a context that fails if a query runs inside it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    class NoQueries(CaptureQueriesContext):
        def __exit__(self, *exc: Any) -> None:
            super().__exit__(*exc)
            assert not self.captured_queries, self.captured_queries

    return NoQueries(connection)


def test_a_joined_read_of_a_null_foreign_key_caches_none(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    submission = Submission.objects.create(variant_item=variant.items.get(position=1),
                                           student=student[0], attempt_number=1, answer={})
    request = RegradeRequest.objects.create(submission=submission, student=student[0],
                                            message="why")
    read = JoinedRead(RegradeRequest, related=("resolved_by", "submission"))
    found = read.fetch_one(read.select(f"{read.column('id')} = %s"), [request.pk])
    assert found.resolved_by is None and found.submission.pk == submission.pk
    assert loaded_values(found) == loaded_values(RegradeRequest.objects.get(pk=request.pk))
    assert read.fetch(read.select(f"{read.column('id')} = %s"), [request.pk + 1000]) == []


def test_a_joined_read_names_what_it_cannot_join() -> None:
    with pytest.raises(ValueError, match="'variant__problem_set' is not joined"):
        JoinedRead(VariantItem, related=("variant",)).column("variant__problem_set__course")
    with pytest.raises(ValueError, match="VariantItem.submissions is not a foreign key"):
        JoinedRead(VariantItem, related=("submissions",))


def test_an_insert_stores_what_create_stores(alphabeta_set, student) -> None:
    _, variant = alphabeta_set
    fields = {"variant_item": variant.items.get(position=1), "student": student[0],
              "answer": {"value": 3, "move": "B", "note": "α \"quoted\""},
              "idempotency_key": "k-1", "is_late": True, "late_penalty": Decimal("0.25")}
    by_orm = Submission.objects.create(attempt_number=1, **fields)
    by_sql = Submission(attempt_number=2, **{**fields, "idempotency_key": "k-2"})
    insert_row(by_sql)
    assert by_sql.pk is not None and not by_sql._state.adding
    stored = Submission.objects.get(pk=by_sql.pk)
    assert stored.created_at is not None and stored.created_at == by_sql.created_at
    differs = {"id", "attempt_number", "idempotency_key", "created_at"}
    assert ({name: value for name, value in loaded_values(stored).items() if name not in differs}
            == {name: value for name, value in loaded_values(by_orm).items()
                if name not in differs})


@pytest.mark.parametrize("extended", [False, True])
def test_a_variant_is_read_as_variants_of_reads_it(alphabeta_set, student, instructor,
                                                    extended) -> None:
    problem_set, variant = alphabeta_set
    if extended:
        Extension.objects.create(problem_set=problem_set, student=student[0], extra_attempts=2,
                                 granted_by=instructor[0])
    # An open never shows the items' grading traces (an alpha-beta one is ~7 kB): both
    # reads leave them out, and the item page's replay loads its one item's on access.
    items_read = VariantItem.objects.select_related("item").defer("trace")
    by_orm = (variants_of(student[0])
              .prefetch_related(Prefetch("items", queryset=items_read))
              .get(pk=variant.pk))
    by_sql = variant_of(student[0], variant.pk)
    assert by_sql is not None
    with django_assert_no_queries():
        assert loaded_values(by_sql) == loaded_values(by_orm)
        assert loaded_values(by_sql.problem_set) == loaded_values(by_orm.problem_set)
        assert (loaded_values(by_sql.problem_set.course)
                == loaded_values(by_orm.problem_set.course))
        items = list(by_sql.items.all())
        assert [loaded_values(i) for i in items] == [loaded_values(i) for i in by_orm.items.all()]
        assert [loaded_values(i.item) for i in items] == [
            loaded_values(i.item) for i in by_orm.items.all()]
        assert all(i.variant is by_sql for i in items)
        assert rules_for(by_sql) == rules_for(by_orm)
        assert all("trace" not in vars(i) for i in items)
    assert rules_for(by_sql).extended is extended
    assert [i.trace for i in items] == [
        i.trace for i in VariantItem.objects.filter(variant=variant).order_by("position")]
    assert items[0].trace
    assert variant_of(instructor[0], variant.pk) is None
    ProblemSet.objects.filter(pk=problem_set.pk).update(archived_at=timezone.now())
    assert variant_of(student[0], variant.pk) is None


def test_a_submission_is_read_for_its_reader_as_select_related_reads_it(
        alphabeta_set, student, other_student, instructor) -> None:
    _, variant = alphabeta_set
    stored = Submission.objects.create(variant_item=variant.items.get(position=1),
                                       student=student[0], attempt_number=1, answer={"value": 3})
    bulk = [f"variant_item__{name}" for name in VARIANT_ITEM_BULK]
    by_orm = (Submission.objects.select_related("variant_item__item",
                                                "variant_item__variant__problem_set")
              .defer(*bulk).get(pk=stored.pk))
    for reader in (student[0], instructor[0]):
        by_sql = submission_for(reader, stored.pk)
        assert by_sql is not None
        assert loaded_values(by_sql) == loaded_values(by_orm)
        with django_assert_no_queries():
            assert (loaded_values(by_sql.variant_item)
                    == loaded_values(by_orm.variant_item))
            assert (by_sql.variant_item.get_deferred_fields()
                    == by_orm.variant_item.get_deferred_fields())
            assert (loaded_values(by_sql.variant_item.item)
                    == loaded_values(by_orm.variant_item.item))
            assert (loaded_values(by_sql.variant_item.variant.problem_set)
                    == loaded_values(by_orm.variant_item.variant.problem_set))
    assert submission_for(other_student[0], stored.pk) is None
    assert submission_for(student[0], stored.pk + 1000) is None


def test_starting_to_grade_returns_what_the_update_then_the_read_return(alphabeta_set,
                                                                         student) -> None:
    from grading.selectors import submission_to_grade
    from grading.services import start_grading

    _, variant = alphabeta_set
    by_statement, by_two = stored_pair(variant, student[0])
    started = start_grading(by_statement.pk)
    update_rows(Submission, where={"id": by_two.pk},
                values={"status": Submission.Status.RUNNING, "started_at": started.started_at,
                        "grading_runs": Increment()})
    expected = submission_to_grade(by_two.pk)
    assert started is not None
    assert started.status == Submission.Status.RUNNING and started.grading_runs == 1
    differing = {"id", "attempt_number", "created_at"}
    assert ({name: value for name, value in loaded_values(started).items()
             if name not in differing}
            == {name: value for name, value in loaded_values(expected).items()
                if name not in differing})
    for path in ("variant_item", "variant_item__item", "variant_item__variant",
                 "variant_item__variant__problem_set"):
        first, second = started, expected
        for name in path.split("__"):
            first, second = getattr(first, name), getattr(second, name)
        assert loaded_values(first) == loaded_values(second)
    with django_assert_no_queries():
        started.variant_item.variant.problem_set.course_id  # noqa: B018 - cached, no query
    # A finished (or code) submission is not started again.
    update_rows(Submission, where={"id": by_statement.pk},
                values={"status": Submission.Status.GRADED})
    assert start_grading(by_statement.pk) is None
    assert Submission.objects.get(pk=by_statement.pk).grading_runs == 1
