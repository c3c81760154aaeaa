"""Problem sets over the API: create, validate, publish, progress, permissions, assignments."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Enrollment, Role
from exercises.models import ProblemSet, Variant

pytestmark = pytest.mark.django_db

ITEMS = [
    {"kind": "minimax", "params": {"depth": 2}, "points": "2"},
    {"kind": "alphabeta", "params": {"depth": 3, "max_leaves": 12, "min_cuts": 2}, "points": "3"},
]


def create_set(client: Any, course: Any, **extra: Any) -> dict[str, Any]:
    body = {"course": course.pk, "title": "Week 3", "seed": "week-3", "items": ITEMS, **extra}
    response = client.post("/api/v1/problem-sets/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def publish(client: Any, problem_set_id: int, capture: Any) -> dict[str, Any]:
    with capture(execute=True):
        response = client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/")
    assert response.status_code == 202, response.content
    return response.json()


def test_create_stores_params_with_every_default(instructor: Any, course: Any) -> None:
    _, client = instructor
    body = create_set(client, course)
    alphabeta = body["items"][1]["params"]
    assert alphabeta["cut_on_equality"] is True and alphabeta["root_raises_alpha"] is True
    assert alphabeta["depth"] == 3 and alphabeta["allow_ties"] is False
    assert body["status"] == "draft" and body["progress"] == {"done": 0, "total": 0}
    points = body["items"][1]["part_points"]
    assert sum(Decimal(p) for p in points.values()) == 3
    assert points == {"value": "0.38", "move": "0.38", "evaluated_count": "0.37",
                      "pruned_leaves": "0.75", "cutoffs": "0.75", "windows": "0.37"}


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ([{"kind": "chess", "params": {}}], "items[0].kind"),
        ([{"kind": "minimax", "params": {"depth": 9}}], "items[0].params.depth"),
        ([{"kind": "minimax", "params": {"colour": 1}}], "items[0].params.colour"),
        ([{"kind": "minimax", "params": {"depth": "2"}}], "items[0].params.depth"),
        ([{"kind": "minimax"}, {"kind": "alphabeta", "params": {"cut_on_equality": "yes"}}],
         "items[1].params.cut_on_equality"),
        ([{"kind": "minimax", "params": {"min_value": 5, "max_value": 5}}],
         "items[0].params.max_value"),
        ([{"kind": "minimax", "params": [1, 2]}], "items[0].params"),
        ([{"kind": 7}], "items[0].kind"),
    ],
)
def test_bad_params_are_a_400_naming_the_field(
    instructor: Any, course: Any, items: list[dict[str, Any]], field: str
) -> None:
    _, client = instructor
    response = client.post(
        "/api/v1/problem-sets/", {"course": course.pk, "title": "t", "items": items},
        format="json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"].startswith(field), error
    assert field in error["details"]


def test_other_instructors_course_is_refused(other_instructor: Any, course: Any) -> None:
    _, client = other_instructor
    response = client.post(
        "/api/v1/problem-sets/", {"course": course.pk, "title": "t", "items": ITEMS},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("course:")


def test_students_cannot_create(student: Any, course: Any) -> None:
    _, client = student
    response = client.post(
        "/api/v1/problem-sets/", {"course": course.pk, "title": "t", "items": ITEMS},
        format="json",
    )
    assert response.status_code == 403


def test_publish_generates_one_variant_per_student(
    instructor: Any, student: Any, other_student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set = create_set(client, course)
    accepted = publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    assert accepted["status"] == "generating" and accepted["progress"]["total"] == 2
    detail = client.get(f"/api/v1/problem-sets/{problem_set['id']}/").json()
    assert detail["status"] == "ready" and detail["progress"] == {"done": 2, "total": 2}
    assert {v["student"] for v in detail["variants"]} == {"sara", "tomas"}
    for variant in detail["variants"]:
        assert [item["position"] for item in variant["items"]] == [1, 2]
        assert "value" in variant["items"][0]["answer_key"]


def test_republishing_generates_only_the_missing_variants(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from tests.conftest import make_account

    _, client = instructor
    problem_set = create_set(client, course)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    first = Variant.objects.get(student=student[0])
    make_account("ugo", "student", course)
    accepted = publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    assert accepted["progress"] == {"done": 1, "total": 2}
    assert Variant.objects.filter(problem_set_id=problem_set["id"]).count() == 2
    assert Variant.objects.get(student=student[0]).created_at == first.created_at
    assert ProblemSet.objects.get(pk=problem_set["id"]).status == "ready"


def test_problem_set_is_hidden_from_other_instructors_and_students(
    instructor: Any, other_instructor: Any, student: Any, course: Any
) -> None:
    _, client = instructor
    problem_set = create_set(client, course)
    url = f"/api/v1/problem-sets/{problem_set['id']}/"
    assert other_instructor[1].get(url).status_code == 404
    assert other_instructor[1].post(url + "publish/").status_code == 404
    assert student[1].get(url).status_code == 404
    assert student[1].post(url + "publish/").status_code == 404
    assert student[1].patch(url + "items/1/", {"points": 9}, format="json").status_code == 404


def test_assignments_show_own_variant_without_keys(
    instructor: Any, student: Any, other_student: Any, other_instructor: Any, course: Any,
    celery_eager: None, django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    due_at = (timezone.now() + timedelta(days=1)).isoformat()
    problem_set = create_set(client, course, due_at=due_at)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    listing = student[1].get("/api/v1/assignments/").json()
    assert len(listing) == 1
    mine = listing[0]["id"]
    detail = student[1].get(f"/api/v1/assignments/{mine}/").json()
    assert detail["answers_visible"] is False
    for item in detail["items"]:
        assert item["answer_key"] is None
        assert item["prompt"] and item["problem"]["tree"]["name"] == "root"
        assert "answer" not in str(item["problem"])
    assert other_student[1].get(f"/api/v1/assignments/{mine}/").status_code == 404
    assert other_instructor[1].get(f"/api/v1/assignments/{mine}/").status_code == 404


def test_keys_show_after_the_due_date(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set = create_set(client, course)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    ProblemSet.objects.filter(pk=problem_set["id"]).update(
        due_at=timezone.now() - timedelta(minutes=1)
    )
    variant = Variant.objects.get(student=student[0])
    detail = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert detail["answers_visible"] is True
    assert detail["items"][0]["answer_key"]["value"] is not None


def test_opening_a_timed_assignment_starts_the_clock_once(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set = create_set(client, course, time_limit_minutes=30)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    variant = Variant.objects.get(student=student[0])
    first = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    second = student[1].get(f"/api/v1/assignments/{variant.pk}/").json()
    assert first["opened_at"] is not None and first["opened_at"] == second["opened_at"]
    assert first["closes_at"] is not None


def test_patch_item_changes_conventions_and_recomputes_keys(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set = create_set(client, course)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    url = f"/api/v1/problem-sets/{problem_set['id']}/items/2/"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.patch(url, {"params": {"cut_on_equality": False}, "points": "5"},
                                format="json")
    assert response.status_code == 200, response.content
    assert response.json()["params"]["cut_on_equality"] is False
    from exercises.models import VariantItem

    stored = VariantItem.objects.get(variant__student=student[0], position=2)
    assert stored.problem["params"]["cut_on_equality"] is False
    # The prompt states the convention the new key follows, not the one it was made with.
    from exercises.kinds import get_kind

    assert stored.prompt == {"kind": "alphabeta", "args": get_kind("alphabeta").prompt_args(
        stored.problem, stored.item.params)}
    shown = student[1].get(f"/api/v1/assignments/{stored.variant_id}/").json()
    text = json.dumps(shown, ensure_ascii=False)
    assert "equality included" not in text and "not on equality" in text
    from engine.solve import solve

    # The key adds the cuts at a node's last child, which skip nothing, as optional.
    assert [cut for cut in stored.answer_key["cutoffs"] if not cut.get("optional")] == [
        {"node": cut["node"], "pruned": cut["pruned"]} for cut in solve(stored.problem)["cutoffs"]
    ]
    assert stored.item.part_points["value"] and stored.item.points == 5
    frozen = client.patch(url, {"params": {"depth": 2}}, format="json")
    assert frozen.status_code == 422
    assert frozen.json()["error"]["message"].startswith("params.depth")
    assert list(frozen.json()["error"]["details"]) == ["params.depth"]
    invalid = client.patch(url, {"params": {"min_cuts": -1}}, format="json")
    assert invalid.status_code == 400
    assert invalid.json()["error"]["message"].startswith("params.min_cuts")
    not_object = client.patch(url, {"params": 3}, format="json")
    assert not_object.status_code == 400
    assert not_object.json()["error"]["message"].startswith("params")


def test_a_multiple_choice_items_conventions_are_frozen_once_generated(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    # Its options were drawn under the old conventions: the new key might be none of them.
    _, client = instructor
    items = [{"kind": "alphabeta", "params": {"depth": 3, "max_leaves": 12,
                                               "answer_format": "multiple_choice"}}]
    problem_set = create_set(client, course, items=items)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    from exercises.models import VariantItem

    before = VariantItem.objects.get(variant__student=student[0])
    url = f"/api/v1/problem-sets/{problem_set['id']}/items/1/"
    with django_capture_on_commit_callbacks(execute=True):
        refused = client.patch(url, {"params": {"cut_on_equality": False}}, format="json")
        whole_set = client.patch(f"/api/v1/problem-sets/{problem_set['id']}/", {
            "items": [{"position": 1, "params": {"cut_on_equality": False}}]}, format="json")
    # The item's endpoint refuses it as the set's does, naming the param on its own.
    assert refused.status_code == 422, refused.content
    assert refused.json()["error"]["message"].startswith("params.cut_on_equality: the options")
    assert "params.cut_on_equality" in refused.json()["error"]["details"]
    assert whole_set.status_code == 422, whole_set.content
    assert "items[0].params.cut_on_equality" in whole_set.json()["error"]["details"]
    after = VariantItem.objects.get(pk=before.pk)
    assert (after.problem, after.answer_key, after.item.params) == (
        before.problem, before.answer_key, before.item.params)
    points = client.patch(url, {"points": "4"}, format="json")
    assert points.status_code == 200 and points.json()["points"] == "4.00"


def test_preview_returns_problem_and_key(instructor: Any) -> None:
    _, client = instructor
    response = client.post("/api/v1/kinds/alphabeta/preview/",
                           {"params": {"depth": 3, "max_leaves": 12}}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["params"]["cut_on_equality"] is True
    assert body["answer_key"]["cutoffs"]
    bad = client.post("/api/v1/kinds/alphabeta/preview/", {"params": {"depth": 0}},
                      format="json")
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("params.depth")
    not_object = client.post("/api/v1/kinds/minimax/preview/", {"params": "x"}, format="json")
    assert not_object.json()["error"]["message"].startswith("params:")
    assert client.post("/api/v1/kinds/chess/preview/", {}, format="json").status_code == 404


def test_kinds_listing_has_schemas(student: Any) -> None:
    response = student[1].get("/api/v1/kinds/")
    assert response.status_code == 200
    kinds = {kind["name"]: kind for kind in response.json()}
    assert kinds["alphabeta"]["params_schema"]["properties"]["cut_on_equality"]["default"] is True
    assert "cut_on_equality" in kinds["alphabeta"]["conventions"]
    scores = kinds["ucb1"]["answer_parts"][0]
    assert scores["name"] == "scores" and scores["tolerance"] == "1/100"


def test_enrolled_instructors_get_no_variant(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set = create_set(client, course)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    assert not Variant.objects.filter(
        student__enrollments__role=Role.INSTRUCTOR, problem_set_id=problem_set["id"]
    ).exists()
    assert Enrollment.objects.filter(course=course, role=Role.STUDENT).count() == 1


def test_concept_explanations_show_with_the_key(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    items = [{"kind": "concept_quiz", "params": {"topics": ["mcts"]}}]
    problem_set = create_set(client, course, items=items)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    variant = Variant.objects.get(student=student[0])
    url = f"/api/v1/assignments/{variant.pk}/"
    assert student[1].get(url).json()["items"][0]["explanation"] is None
    ProblemSet.objects.filter(pk=problem_set["id"]).update(
        due_at=timezone.now() - timedelta(minutes=1)
    )
    item = student[1].get(url, {"lang": "ca"}).json()["items"][0]
    assert item["answer_key"]["choice"] in "abcd" and item["explanation"]
    assert item["explanation"] != student[1].get(url).json()["items"][0]["explanation"]


def test_an_unreachable_broker_fails_the_set_so_it_can_be_published_again(
    instructor: Any, student: Any, course: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from kombu.exceptions import OperationalError

    from exercises.tasks import generate_variants_task

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("connection refused")

    _, client = instructor
    problem_set = create_set(client, course)
    monkeypatch.setattr(generate_variants_task, "delay", refuse)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    detail = client.get(f"/api/v1/problem-sets/{problem_set['id']}/").json()
    assert detail["status"] == "failed" and "unreachable" in detail["failure_reason"]


def test_publishing_twice_while_generating_is_a_conflict_until_stale(
    instructor: Any, student: Any, course: Any, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from exercises.tasks import generate_variants_task

    monkeypatch.setattr(generate_variants_task, "delay", lambda *args: None)  # tasks lost
    _, client = instructor
    problem_set = create_set(client, course)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    again = client.post(f"/api/v1/problem-sets/{problem_set['id']}/publish/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    ProblemSet.objects.filter(pk=problem_set["id"]).update(
        updated_at=timezone.now() - timedelta(hours=1)
    )
    assert publish(client, problem_set["id"], django_capture_on_commit_callbacks)[
        "status"] == "generating"


def test_a_locked_database_is_retried_and_other_errors_fail_the_set(
    instructor: Any, student: Any, course: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.db import OperationalError

    from exercises import services

    _, client = instructor
    problem_set = ProblemSet.objects.get(pk=create_set(client, course)["id"])
    ProblemSet.objects.filter(pk=problem_set.pk).update(status="generating", progress_total=1)
    store, calls = services._store_variants, []

    def locked_once(*args: Any) -> int:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("database is locked")
        return store(*args)

    monkeypatch.setattr(services, "_store_variants", locked_once)
    assert services.generate_variants(problem_set.pk, [student[0].pk]) == 1
    assert len(calls) == 2
    problem_set.refresh_from_db()
    assert problem_set.status == "ready"

    ProblemSet.objects.filter(pk=problem_set.pk).update(status="generating", progress_total=2)
    other = make_student("vera", course)

    def broken(*args: Any) -> int:
        raise ValueError("unexpected")

    monkeypatch.setattr(services, "_store_variants", broken)
    with pytest.raises(ValueError):
        services.generate_variants(problem_set.pk, [other.pk])
    problem_set.refresh_from_db()
    assert problem_set.status == "failed" and "unexpected" in problem_set.failure_reason


def make_student(username: str, course: Any) -> Any:
    from tests.conftest import make_account

    return make_account(username, "student", course)[0]


def test_alphabeta_that_can_never_cut_is_a_400_naming_the_params(instructor: Any,
                                                                 course: Any) -> None:
    _, client = instructor
    body = {"course": course.pk, "title": "No cuts", "seed": "s", "items": [
        {"kind": "alphabeta", "params": {"depth": 2, "root_raises_alpha": False}}]}
    response = client.post("/api/v1/problem-sets/", body, format="json")
    assert response.status_code == 400
    text = response.json()["error"]["message"]
    assert "min_cuts" in text and "root_raises_alpha" in text and "depth 2" in text


def test_a_convention_change_solves_each_distinct_problem_once(
    instructor: Any, course: Any, celery_eager: None, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A tree_size item's variants share a few problems (b and depth), and one search of
    # 10^4 leaves takes a fifth of a second: a class of hundreds solved one by one held the
    # instructor's request past the web server's timeout.
    from exercises.kinds import get_kind
    from exercises.models import VariantItem
    from tests.conftest import make_account

    for number in range(12):
        make_account(f"size-student-{number}", Role.STUDENT, course)
    _, client = instructor
    items = [{"kind": "tree_size", "params": {"min_branching": 2, "max_branching": 3,
                                              "min_moves": 1, "max_moves": 1}, "points": "2"}]
    problem_set = create_set(client, course, items=items)
    publish(client, problem_set["id"], django_capture_on_commit_callbacks)
    stored = VariantItem.objects.filter(item__problem_set_id=problem_set["id"])
    distinct = {json.dumps(problem, sort_keys=True) for problem in
                stored.values_list("problem", flat=True)}
    assert stored.count() >= 12 > len(distinct)
    kind = get_kind("tree_size")
    solved: list[dict[str, Any]] = []
    real_solve = kind.solve

    def counted_solve(problem: dict[str, Any]) -> dict[str, Any]:
        solved.append(problem)
        return real_solve(problem)

    monkeypatch.setattr(kind, "solve", counted_solve)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.patch(f"/api/v1/problem-sets/{problem_set['id']}/items/1/",
                                {"params": {"node_counting": "root_excluded"}}, format="json")
    assert response.status_code == 200, response.content
    # Per distinct problem, once to check the prompts and once to recompute the keys (the
    # new params' sample problems are solved too): one by one it was twice per student.
    assert 2 * len(distinct) <= len(solved) < stored.count()
    for variant_item in stored.all():
        assert variant_item.problem["params"]["node_counting"] == "root_excluded"
        assert variant_item.answer_key == kind.project(variant_item.problem,
                                                        real_solve(variant_item.problem))
