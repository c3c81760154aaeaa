"""Running a course (issue 17): editing a published set, archiving, copying, portable
definitions and per-student extensions, over the API."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Course, Role
from accounts.services import enroll
from exercises.models import Extension, Item, ProblemSet, Variant, VariantItem
from grading.models import Regrade, Submission
from tests.conftest import make_account
from tests.grading.conftest import (
    ALPHABETA_PROBLEM,
    correct_answer,
    give_variant,
    make_problem_set,
    prompted,
)

pytestmark = pytest.mark.django_db

NO_CUT = {"evaluated_count": 9, "pruned_leaves": [], "cutoffs": []}


@pytest.fixture
def running(course: Any, instructor: Any, student: Any) -> tuple[ProblemSet, Variant]:
    """Return a ready set (one alpha-beta item, 6 points, 2 attempts) and the student's
    variant of it."""
    problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")],
                                   max_attempts=2)
    return problem_set, prompted(give_variant(problem_set, student[0], [ALPHABETA_PROBLEM]))


@pytest.fixture
def submit(celery_eager: None, django_capture_on_commit_callbacks: Any) -> Any:
    def send(client: Any, variant: Variant, answer: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/api/v1/assignments/{variant.pk}/items/1/submissions/",
                               {"answer": answer}, format="json")

    return send


def key_of(variant: Variant) -> dict[str, Any]:
    return correct_answer(VariantItem.objects.get(variant=variant))


# --- PATCH -------------------------------------------------------------------------------


def test_settings_change_after_publishing_without_a_regrade(running: Any, instructor: Any
                                                            ) -> None:
    problem_set, _ = running
    due = (timezone.now() + timedelta(days=3)).replace(microsecond=0)
    response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", {
        "title": "Week 3, extended", "due_at": due.isoformat(), "max_attempts": 4,
        "late_policy": "penalty", "late_penalty": "0.25", "time_limit_minutes": 30,
        "feedback_policy": "score_only", "score_policy": "last",
    }, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["regraded"] == [] and body["regrade"] is None
    assert body["problem_set"]["title"] == "Week 3, extended"
    problem_set.refresh_from_db()
    assert (problem_set.due_at, problem_set.max_attempts, problem_set.late_policy,
            problem_set.late_penalty, problem_set.time_limit_minutes,
            problem_set.feedback_policy, problem_set.score_policy) == (
        due, 4, "penalty", Decimal("0.25"), 30, "score_only", "last")


def test_a_convention_change_goes_through_a_regrade_and_says_so(
    running: Any, instructor: Any, student: Any, submit: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    problem_set, variant = running
    answer = {**key_of(variant), **NO_CUT}
    assert submit(student[1], variant, answer).status_code == 202
    before = Submission.objects.get().score
    with django_capture_on_commit_callbacks(execute=True):
        response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", {
            "items": [{"position": 1, "params": {"cut_on_equality": False}, "points": "8"}],
        }, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["regraded"] == ["items[0].params.cut_on_equality", "items[0].points"]
    regrade = Regrade.objects.get(pk=body["regrade"])
    assert regrade.status == Regrade.Status.DONE
    assert regrade.report["submissions_regraded"] == 1
    submission = Submission.objects.get()
    assert submission.max_score == 8 and submission.score != before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"title": "kept?", "items": [{"position": 1, "params": {"depth": 4}}]},
         "items[0].params.depth"),
        ({"title": "kept?", "items": [{"position": 7, "points": "1"}]}, "items[0].position"),
        ({"title": "kept?", "max_attempts": 1}, "max_attempts"),
    ],
)
def test_changes_that_cannot_apply_are_a_422_and_change_nothing(
    running: Any, instructor: Any, student: Any, submit: Any, body: dict[str, Any], field: str,
) -> None:
    problem_set, variant = running
    wrong = {**key_of(variant), **NO_CUT}
    for _ in range(2):
        assert submit(student[1], variant, wrong).status_code == 202
    response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", body,
                                   format="json")
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert field in error["details"] and error["message"].startswith(field)
    problem_set.refresh_from_db()
    assert problem_set.title == "Set" and problem_set.max_attempts == 2
    assert Item.objects.get().params["depth"] != 4 and not Regrade.objects.exists()


def test_the_attempt_limit_counts_extensions_and_is_checked_only_when_lowered(
        running: Any, instructor: Any, student: Any, submit: Any) -> None:
    problem_set, variant = running
    path = f"/api/v1/problem-sets/{problem_set.pk}/"
    granted = instructor[1].post(path + "extensions/", {"username": student[0].username,
                                                        "extra_attempts": 2}, format="json")
    assert granted.status_code == 200
    wrong = {**key_of(variant), **NO_CUT}
    for _ in range(3):
        assert submit(student[1], variant, wrong).status_code == 202
    # Three used of the student's four (the set's 2 + 2): the set's own limit is not beyond.
    kept = instructor[1].patch(path, {"max_attempts": 2, "title": "Renamed"}, format="json")
    assert kept.status_code == 200, kept.content
    lowered = instructor[1].patch(path, {"max_attempts": 1}, format="json")
    assert lowered.status_code == 200, lowered.content
    ProblemSet.objects.filter(pk=problem_set.pk).update(max_attempts=2)
    Extension.objects.update(extra_attempts=0)
    refused = instructor[1].patch(path, {"max_attempts": 1}, format="json")
    assert refused.status_code == 422 and "max_attempts" in refused.json()["error"]["details"]


def test_the_outlines_due_date_is_taken_by_patch_too(running: Any, instructor: Any) -> None:
    problem_set, _ = running
    due = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    url = f"/api/v1/problem-sets/{problem_set.pk}/"
    response = instructor[1].patch(url, {"due_date": due.isoformat()}, format="json")
    assert response.status_code == 200, response.content
    problem_set.refresh_from_db()
    assert problem_set.due_at == due
    contradicting = instructor[1].patch(url, {"due_date": due.isoformat(),
                                              "due_at": timezone.now().isoformat()},
                                        format="json")
    assert contradicting.status_code == 400
    assert "due_at" in contradicting.json()["error"]["details"]


def test_one_item_changed_twice_is_a_400_naming_the_second(running: Any,
                                                          instructor: Any) -> None:
    problem_set, _ = running
    response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", {"items": [
        {"position": 1, "points": "2"}, {"position": 1, "points": "3"}]}, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"] == "items: 1.position: item 1 is changed twice", error
    assert Item.objects.get().points == 6


def test_a_malformed_patch_is_a_400_naming_the_field(running: Any, instructor: Any) -> None:
    response = instructor[1].patch(f"/api/v1/problem-sets/{running[0].pk}/",
                                   {"late_policy": "never"}, format="json")
    assert response.status_code == 400
    assert "late_policy" in response.json()["error"]["details"]


# --- archive -----------------------------------------------------------------------------


def test_archiving_hides_the_set_from_students_and_keeps_grades(
    running: Any, instructor: Any, student: Any, submit: Any,
) -> None:
    problem_set, variant = running
    assert submit(student[1], variant, key_of(variant)).status_code == 202
    path = f"/api/v1/problem-sets/{problem_set.pk}/"
    assert instructor[1].delete(path).status_code == 204
    assert student[1].get("/api/v1/assignments/").json() == []
    assert student[1].get(f"/api/v1/assignments/{variant.pk}/").status_code == 404
    assert submit(student[1], variant, key_of(variant)).status_code == 404
    listed = instructor[1].get("/api/v1/problem-sets/").json()
    archived = instructor[1].get("/api/v1/problem-sets/?archived=true").json()
    assert [s["id"] for s in listed] == [] and [s["id"] for s in archived] == [problem_set.pk]
    grades = instructor[1].get(f"/api/v1/problem-sets/{problem_set.pk}/grades.csv")
    [row] = list(csv.DictReader(io.StringIO(grades.content.decode())))
    assert Decimal(row["item_1"]) == 6
    assert instructor[1].get(path).json()["archived_at"] is not None
    published = instructor[1].post(path + "publish/")
    assert published.status_code == 422 and "archived" in published.json()["error"]["details"]
    [submission] = Submission.objects.all()
    review = student[1].post(f"/api/v1/submissions/{submission.pk}/regrade-request/",
                             {"message": "please"}, format="json")
    assert review.status_code == 422 and "submission" in review.json()["error"]["details"]
    # Unarchiving brings it back.
    response = instructor[1].patch(path, {"archived": False}, format="json")
    assert response.status_code == 200 and response.json()["archived_at"] is None
    assert [a["id"] for a in student[1].get("/api/v1/assignments/").json()] == [variant.pk]


def test_the_archived_filter_must_be_a_boolean(instructor: Any) -> None:
    response = instructor[1].get("/api/v1/problem-sets/?archived=maybe")
    assert response.status_code == 400 and "archived" in response.json()["error"]["details"]


# --- copy, export, import ----------------------------------------------------------------


def test_copy_into_another_course_of_mine_is_a_fresh_draft(running: Any, instructor: Any
                                                           ) -> None:
    problem_set, _ = running
    next_year = Course.objects.create(slug="search-102", title="Next year")
    enroll(course=next_year, user=instructor[0], role=Role.INSTRUCTOR)
    response = instructor[1].post(f"/api/v1/problem-sets/{problem_set.pk}/copy/",
                                  {"course": next_year.pk, "title": "Week 3 (2027)"},
                                  format="json")
    assert response.status_code == 201, response.content
    copy = response.json()
    assert copy["course"] == next_year.pk and copy["status"] == "draft"
    assert copy["title"] == "Week 3 (2027)" and copy["variants"] == []
    assert copy["seed"] != problem_set.seed and copy["max_attempts"] == 2
    assert [i["params"] for i in copy["items"]] == [Item.objects.get(
        problem_set=problem_set).params]


def test_copy_into_a_course_i_do_not_teach_is_a_422(running: Any, instructor: Any,
                                                    other_course: Any) -> None:
    response = instructor[1].post(f"/api/v1/problem-sets/{running[0].pk}/copy/",
                                  {"course": other_course.pk}, format="json")
    assert response.status_code == 422 and "course" in response.json()["error"]["details"]


def test_export_import_export_is_the_same_definition(instructor: Any, course: Any) -> None:
    tree = {"type": "max", "name": "R", "children": [
        {"type": "min", "name": "A", "children": [{"name": "A1", "value": 3},
                                                   {"name": "A2", "value": 5}]},
        {"type": "min", "name": "B", "children": [{"name": "B1", "value": 2},
                                                   {"name": "B2", "value": 9}]}]}
    items = [{"kind": "minimax", "params": {"depth": 2}, "points": "2"},
             {"kind": "alphabeta", "params": {"cut_on_equality": False}, "points": "3.5"}]
    if "tree" in _minimax_param_names():
        items.append({"kind": "minimax", "params": {"tree": tree}, "points": "1"})
    created = instructor[1].post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "Portable", "seed": "p-1", "items": items,
        "max_attempts": 3, "late_policy": "penalty", "late_penalty": "0.1",
        "due_at": "2026-12-24T12:00:00Z", "feedback_policy": "full",
    }, format="json").json()
    first = instructor[1].get(f"/api/v1/problem-sets/{created['id']}/export.json").json()
    assert first["format"] == "cutoff-problem-set/1" and len(first["items"]) == len(items)
    imported = instructor[1].post("/api/v1/problem-sets/import/",
                                  {"course": course.pk, "definition": first}, format="json")
    assert imported.status_code == 201, imported.content
    assert imported.json()["status"] == "draft" and imported.json()["id"] != created["id"]
    second = instructor[1].get(
        f"/api/v1/problem-sets/{imported.json()['id']}/export.json").json()
    # On this server the seed is taken (by the exported set): a student taking the course
    # again would meet the same problems, so the import draws a new one.
    assert second["seed"] != first["seed"]
    assert {**second, "seed": first["seed"]} == first
    unused = instructor[1].post("/api/v1/problem-sets/import/", {
        "course": course.pk, "definition": {**first, "seed": "from-another-server"}},
        format="json")
    assert unused.status_code == 201, unused.content
    assert instructor[1].get(f"/api/v1/problem-sets/{unused.json()['id']}/export.json").json(
    ) == {**first, "seed": "from-another-server"}


def _minimax_param_names() -> set[str]:
    from exercises.kinds import get_kind

    return {param.name for param in get_kind("minimax").declared_params()}


def _definition(**changes: Any) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "format": "cutoff-problem-set/1", "title": "Imported", "seed": "s",
        "policies": {"max_attempts": 2},
        "items": [{"kind": "minimax", "params": {}, "points": "1"},
                  {"kind": "minimax", "params": {"depth": 2}, "points": "1"}],
    }
    definition.update(changes)
    return definition


@pytest.mark.parametrize(
    ("definition", "path"),
    [
        (_definition(policies={"late_policy": "never"}), "definition.policies.late_policy"),
        (_definition(format="cutoff-problem-set/9"), "definition.format"),
        (_definition(items=[]), "definition.items"),
        (_definition(items=[{"kind": "minimax", "points": "-1"}]),
         "definition.items[0].points"),
        ({"title": "no format"}, "definition.format"),
    ],
)
def test_a_definition_of_the_wrong_shape_is_a_422_naming_the_path(
    instructor: Any, course: Any, definition: dict[str, Any], path: str
) -> None:
    response = instructor[1].post("/api/v1/problem-sets/import/",
                                  {"course": course.pk, "definition": definition},
                                  format="json")
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert list(error["details"]) == [path], error
    assert not ProblemSet.objects.exists()


DUPLICATE_NAMES = {"type": "max", "name": "R", "children": [{"name": "A", "value": 1},
                                                             {"name": "A", "value": 2}]}
ODDS_SHORT_OF_ONE = {"type": "chance", "name": "R", "probabilities": ["1/2", "1/3"],
                     "children": [{"name": "A", "value": 1}, {"name": "B", "value": 2}]}


@pytest.mark.parametrize(
    ("item", "path", "rule"),
    [
        ({"kind": "minimax", "params": {"tree": DUPLICATE_NAMES}},
         "items[0].params.tree.children[1]", 'node "A": node names must be unique'),
        ({"kind": "expectiminimax", "params": {"tree": ODDS_SHORT_OF_ONE}},
         "items[0].params.tree", 'node "R": chance probabilities must sum exactly to 1'),
        ({"kind": "minimax", "params": {"depth": 99}}, "items[0].params.depth", "must be between"),
        ({"kind": "chess"}, "items[0].kind", "chess"),
    ],
)
def test_an_item_its_kind_refuses_is_a_400_naming_the_path_as_at_creation(
    instructor: Any, course: Any, item: dict[str, Any], path: str, rule: str
) -> None:
    # problem-format.md: a tree that breaks a rule of its kind is refused with a 400 naming
    # the node and the rule; an import refuses its items as creating the set would.
    response = instructor[1].post("/api/v1/problem-sets/import/",
                                  {"course": course.pk, "definition": _definition(items=[item])},
                                  format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert list(error["details"]) == [f"definition.{path}"], error
    assert error["message"].startswith(f"definition.{path}: ") and rule in error["message"]
    created = instructor[1].post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "Direct", "items": [item]}, format="json")
    assert created.status_code == 400 and list(created.json()["error"]["details"]) == [path]
    assert not ProblemSet.objects.exists()


# --- extensions --------------------------------------------------------------------------


def test_an_extension_moves_the_students_deadline_everywhere(
    running: Any, instructor: Any, student: Any, other_student: Any, submit: Any,
) -> None:
    problem_set, variant = running
    other_variant = prompted(give_variant(problem_set, other_student[0], [ALPHABETA_PROBLEM]))
    ProblemSet.objects.filter(pk=problem_set.pk).update(
        due_at=timezone.now() - timedelta(hours=1))
    assert submit(student[1], variant, key_of(variant)).json()["error"]["code"] == "past_due"
    later = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    response = instructor[1].post(f"/api/v1/problem-sets/{problem_set.pk}/extensions/",
                                  {"username": student[0].username,
                                   "due_at": later.isoformat()}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["due_at"].startswith(later.strftime("%Y-%m-%dT%H:%M"))
    assert submit(student[1], variant, key_of(variant)).status_code == 202
    assignment = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert assignment["due_at"].startswith(later.strftime("%Y-%m-%dT%H:%M"))
    assert assignment["answers_visible"] is False and assignment["items"][0]["answer_key"] is None
    [listed] = student[1].get("/api/v1/assignments/").json()
    assert listed["due_at"] == assignment["due_at"]
    # The classmate keeps the set's due date.
    refused = submit(other_student[1], other_variant, key_of(other_variant))
    assert refused.json()["error"]["code"] == "past_due"


def test_an_extension_takes_the_outlines_due_date(
    running: Any, instructor: Any, student: Any,
) -> None:
    problem_set, variant = running
    path = f"/api/v1/problem-sets/{problem_set.pk}/extensions/"
    later = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    response = instructor[1].post(path, {"username": student[0].username,
                                         "due_date": later.isoformat()}, format="json")
    assert response.status_code == 200, response.content
    granted = response.json()
    assert granted["due_date"].startswith(later.strftime("%Y-%m-%dT%H:%M"))
    assert granted["due_at"] == granted["due_date"]
    assert Extension.objects.get().due_at == later
    [listed] = instructor[1].get(path).json()
    assert listed["due_date"] == granted["due_date"]
    assignment = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert assignment["due_at"].startswith(later.strftime("%Y-%m-%dT%H:%M"))
    # null gives the student back the set's due date.
    response = instructor[1].post(path, {"username": student[0].username, "due_date": None},
                                  format="json")
    assert response.status_code == 200 and response.json()["due_date"] is None
    assert Extension.objects.get().due_at is None


def test_due_at_is_an_alias_of_due_date_that_may_not_contradict_it(
    running: Any, instructor: Any, student: Any,
) -> None:
    problem_set, _ = running
    path = f"/api/v1/problem-sets/{problem_set.pk}/extensions/"
    later = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    same_moment_elsewhere = later.astimezone(timezone.get_fixed_timezone(60))
    response = instructor[1].post(path, {"username": student[0].username,
                                         "due_date": later.isoformat(),
                                         "due_at": same_moment_elsewhere.isoformat()},
                                  format="json")
    assert response.status_code == 200, response.content
    assert Extension.objects.get().due_at == later
    for contradicting in ((later + timedelta(days=1)).isoformat(), None):
        refused = instructor[1].post(path, {"username": student[0].username,
                                            "due_date": contradicting,
                                            "due_at": later.isoformat(),
                                            "extra_attempts": 4}, format="json")
        assert refused.status_code == 400, refused.content
        error = refused.json()["error"]
        assert list(error["details"]) == ["due_at"]
        assert error["message"].startswith("due_at: ") and "due_date" in error["message"]
        extension = Extension.objects.get()
        assert (extension.due_at, extension.extra_attempts) == (later, 0)


def test_extra_attempts_and_a_longer_time_limit(running: Any, instructor: Any, student: Any,
                                                 submit: Any) -> None:
    problem_set, variant = running
    ProblemSet.objects.filter(pk=problem_set.pk).update(time_limit_minutes=10)
    wrong = {**key_of(variant), **NO_CUT}
    # One attempt of two used: no key has been shown yet.
    assert submit(student[1], variant, wrong).status_code == 202
    path = f"/api/v1/problem-sets/{problem_set.pk}/extensions/"
    granted = instructor[1].post(path, {"username": student[0].username, "extra_attempts": 1},
                                 format="json")
    assert granted.status_code == 200 and granted.json()["closed_items"] == []
    assert submit(student[1], variant, wrong).status_code == 202
    assert instructor[1].post(path, {"username": student[0].username,
                                     "time_limit_minutes": 90}, format="json").status_code == 200
    extension = Extension.objects.get()
    assert (extension.extra_attempts, extension.time_limit_minutes) == (1, 90)
    assignment = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert assignment["max_attempts"] == 3 and assignment["time_limit_minutes"] == 90
    Variant.objects.filter(pk=variant.pk).update(
        opened_at=timezone.now() - timedelta(minutes=30))
    # 30 minutes in: past the set's 10, within the student's 90.
    assert submit(student[1], variant, wrong).status_code == 202
    assert submit(student[1], variant, wrong).json()["error"]["code"] == "attempts_exhausted"
    [listed] = instructor[1].get(path).json()
    assert listed["username"] == student[0].username and listed["extra_attempts"] == 1


def test_an_item_whose_key_the_student_was_shown_takes_no_more_attempts(
        running: Any, instructor: Any, student: Any, submit: Any) -> None:
    problem_set, variant = running
    wrong = {**key_of(variant), **NO_CUT}
    assert submit(student[1], variant, wrong).status_code == 202
    last = submit(student[1], variant, wrong).json()
    # The last attempt's feedback shows the key, and so does the assignment.
    assert last["answers_visible"] is True
    assert student[1].get(f"/api/v1/assignments/{variant.pk}/").json()["items"][0]["answer_key"]
    path = f"/api/v1/problem-sets/{problem_set.pk}/extensions/"
    granted = instructor[1].post(path, {"username": student[0].username, "extra_attempts": 2,
                                        "due_date": None}, format="json")
    assert granted.status_code == 200 and granted.json()["closed_items"] == [1]
    assert instructor[1].get(path).json()[0]["closed_items"] == [1]
    # Nor does a change of the set's own rules reopen it.
    assert instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", {"max_attempts": 5},
                               format="json").status_code == 200
    refused = submit(student[1], variant, key_of(variant))
    assert refused.status_code == 403, refused.content
    assert refused.json()["error"]["code"] == "answers_seen"
    assert Submission.objects.filter(variant_item__variant=variant).count() == 2


def test_under_a_late_penalty_the_due_date_shows_no_key(running: Any, student: Any,
                                                        submit: Any) -> None:
    problem_set, variant = running
    ProblemSet.objects.filter(pk=problem_set.pk).update(
        due_at=timezone.now() - timedelta(hours=1), late_policy="penalty", late_penalty="0.5")
    # Late answers are still taken: a key shown now would be copied into one.
    assignment = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert assignment["answers_visible"] is False
    assert assignment["items"][0]["answer_key"] is None
    late = submit(student[1], variant, key_of(variant)).json()
    assert late["is_late"] is True and late["answers_visible"] is False
    assert ProblemSet.objects.filter(pk=problem_set.pk).update(late_policy="refuse") == 1
    assert student[1].get(f"/api/v1/assignments/{variant.pk}/").json()["answers_visible"]


def test_an_extension_for_someone_not_in_the_course_is_a_422(
    running: Any, instructor: Any, other_instructor: Any,
) -> None:
    response = instructor[1].post(f"/api/v1/problem-sets/{running[0].pk}/extensions/",
                                  {"username": other_instructor[0].username,
                                   "extra_attempts": 1}, format="json")
    assert response.status_code == 422 and "username" in response.json()["error"]["details"]
    assert not Extension.objects.exists()


def test_listing_assignments_with_extensions_is_not_n_plus_one(
    course: Any, instructor: Any, django_assert_max_num_queries: Any,
) -> None:
    student, client = make_account("many", "student", course)
    for number in range(6):
        problem_set = make_problem_set(course, instructor[0], [("alphabeta", {}, "6")])
        give_variant(problem_set, student, [ALPHABETA_PROBLEM])
        Extension.objects.create(problem_set=problem_set, student=student,
                                 extra_attempts=number)
    with django_assert_max_num_queries(6):
        response = client.get("/api/v1/assignments/")
    assert len(response.json()) == 6


def test_the_student_pages_show_the_extension(
    running: Any, instructor: Any, student: Any, client: Any,
) -> None:
    from django.urls import reverse

    problem_set, variant = running
    ProblemSet.objects.filter(pk=problem_set.pk).update(
        due_at=timezone.now() - timedelta(hours=1))
    later = timezone.now() + timedelta(days=2)
    Extension.objects.create(problem_set=problem_set, student=student[0], due_at=later,
                             extra_attempts=3)
    client.force_login(student[0])
    item = client.get(reverse("pages:item", args=[variant.pk, 1]))
    assert item.status_code == 200
    assert item.context["due_at"] == later and item.context["attempts_left"] == 5
    listed = client.get(reverse("pages:assignments"))
    [row] = listed.context["assignments"]
    assert row.due_at == later and row.items[0].attempts_left == 5
    assert b"past due" not in listed.content


def test_a_convention_change_breaking_published_items_is_a_422_and_changes_nothing(
    course: Any, instructor: Any,
) -> None:
    from exercises.services import create_problem_set
    from tests.pages.conftest import publish_now

    for n in range(20):
        make_account(f"conv-{n}", "student", course)
    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Cuts", seed="convention-change",
        items=[{"kind": "alphabeta", "points": Decimal(4),
                "params": {"depth": 3, "min_cuts": 3, "ask_cut_bound": True}}]))
    keys = list(VariantItem.objects.order_by("pk").values_list("answer_key", "prompt"))
    # Without the root raising alpha some trees cut fewer than 3 times, and some prompts'
    # "a cutoff happens at B" would be false: the key would mark the prompt's reader wrong.
    response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", {
        "items": [{"position": 1, "params": {"root_raises_alpha": False}}]}, format="json")
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert list(error["details"]) == ["items[0].params.root_raises_alpha"]
    assert "of the 20 students' items" in error["message"]
    assert Item.objects.get().params["root_raises_alpha"] is True
    assert list(VariantItem.objects.order_by("pk").values_list("answer_key", "prompt")) == keys
    assert not Regrade.objects.exists()


def test_a_convention_change_the_engine_cannot_check_is_a_422_and_changes_nothing(
    course: Any, instructor: Any,
) -> None:
    from exercises.services import create_problem_set
    from tests.pages.conftest import publish_now

    make_account("conv-engine", "student", course)
    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Cuts", seed="convention-engine",
        items=[{"kind": "alphabeta", "points": Decimal(4), "params": {"depth": 3}}]))
    # A stored problem the engine rejects (its first leaf's value is not a number).
    stored = VariantItem.objects.get()
    problem = stored.problem
    node = problem["tree"]
    while "children" in node:
        node = node["children"][0]
    node["value"] = "seven"
    VariantItem.objects.filter(pk=stored.pk).update(problem=problem)
    response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", {
        "items": [{"position": 1, "params": {"cut_on_equality": False}}]}, format="json")
    assert response.status_code == 422, response.content
    message = response.json()["error"]["message"]
    assert message.startswith("items[0].params.cut_on_equality: ")
    assert "1 of the 1 students' items" in message and "the engine cannot solve it" in message
    assert Item.objects.get().params["cut_on_equality"] is True
    assert not Regrade.objects.exists()


@pytest.mark.parametrize("how", ["extension", "due_date"])
def test_a_later_deadline_takes_the_late_penalty_off_answers_now_on_time(
    running: Any, instructor: Any, student: Any, other_student: Any, submit: Any, how: str,
) -> None:
    # The penalty was fixed when the answer was stored: an extension granted afterwards left
    # the student's full answer at half marks, in their view, the CSV and the LMS.
    from grading.services import NO_LONGER_LATE

    problem_set, variant = running
    other_variant = prompted(give_variant(problem_set, other_student[0], [ALPHABETA_PROBLEM]))
    ProblemSet.objects.filter(pk=problem_set.pk).update(
        due_at=timezone.now() - timedelta(hours=1), late_policy="penalty",
        late_penalty=Decimal("0.5"))
    for client, mine in ((student[1], variant), (other_student[1], other_variant)):
        assert submit(client, mine, key_of(mine)).status_code == 202
    late = Submission.objects.get(student=student[0])
    assert (late.is_late, late.score, late.raw_score) == (True, Decimal(3), Decimal(6))
    later = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    path = f"/api/v1/problem-sets/{problem_set.pk}/"
    if how == "extension":
        response = instructor[1].post(path + "extensions/", {
            "username": student[0].username, "due_at": later.isoformat()}, format="json")
    else:
        response = instructor[1].patch(path, {"due_at": later.isoformat()}, format="json")
    assert response.status_code == 200, response.content
    late.refresh_from_db()
    assert (late.is_late, late.late_penalty, late.score) == (False, Decimal(0), Decimal(6))
    [change] = late.score_changes.all()
    assert (change.old_score, change.new_score, change.reason) == (3, 6, NO_LONGER_LATE)
    # The classmate's answer is still late under the set's own due date, unless it moved.
    classmate = Submission.objects.get(student=other_student[0])
    assert classmate.is_late == (how == "extension")

    # A deadline moved earlier makes no answer late that was sent on time.
    response = instructor[1].patch(
        path, {"due_at": (timezone.now() - timedelta(days=3)).isoformat()}, format="json")
    assert response.status_code == 200, response.content
    late.refresh_from_db()
    assert (late.is_late, late.score) == (False, Decimal(6))


@pytest.mark.parametrize(("body", "field"), [
    ({"course": 5, "title": "Moved"}, "course"),
    ({"seed": "again"}, "seed"),
    ({"items": [{"position": 1, "kind": "minimax"}]}, "items"),
])
def test_a_change_patch_cannot_make_is_a_400_naming_it_and_nothing_changes(
    running: Any, instructor: Any, body: dict[str, Any], field: str,
) -> None:
    # Dropped silently, {"course": 5} was answered 200 as if the set had moved.
    problem_set, _ = running
    response = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/", body,
                                   format="json")
    assert response.status_code == 400, response.content
    details = response.json()["error"]["details"]
    assert field in details and "is not a field that can be given here" in str(details)
    problem_set.refresh_from_db()
    assert problem_set.title == "Set"
    item = instructor[1].patch(f"/api/v1/problem-sets/{problem_set.pk}/items/1/",
                               {"kind": "minimax"}, format="json")
    assert item.status_code == 400 and "kind" in item.json()["error"]["details"]
