"""End to end over the API with a real Celery worker: publish a set, students fetch variants."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import make_account, wait_until

ITEMS = [
    {"kind": "alphabeta", "params": {"depth": 3, "max_leaves": 14, "min_cuts": 2}, "points": "4"},
    {"kind": "expectiminimax", "params": {"chance": "biased"}, "points": "3"},
    {"kind": "ucb1", "params": {"c": "2", "form": "c*sqrt(ln N/n)"}, "points": "2"},
]


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_publish_three_items_for_five_students_with_a_real_worker(
    celery_worker_process: Any, instructor: Any, course: Any
) -> None:
    _, client = instructor
    students = [make_account(f"student{i}", "student", course) for i in range(5)]
    created = client.post(
        "/api/v1/problem-sets/",
        {"course": course.pk, "title": "E2E", "seed": "e2e", "items": ITEMS},
        format="json",
    )
    assert created.status_code == 201, created.content
    problem_set_id = created.json()["id"]
    accepted = client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/")
    assert accepted.status_code == 202, accepted.content
    assert accepted.json()["progress"]["total"] == 5

    def state() -> dict[str, Any]:
        return client.get(f"/api/v1/problem-sets/{problem_set_id}/").json()

    assert wait_until(lambda: state()["status"] in ("ready", "failed"), timeout=60)
    detail = state()
    assert detail["status"] == "ready", detail["failure_reason"]
    assert detail["progress"] == {"done": 5, "total": 5}
    assert all(len(variant["items"]) == 3 for variant in detail["variants"])

    seen = set()
    for _, student_client in students:
        listing = student_client.get("/api/v1/assignments/").json()
        assert len(listing) == 1
        body = student_client.get(f"/api/v1/assignments/{listing[0]['id']}/").json()
        assert [item["position"] for item in body["items"]] == [1, 2, 3]
        assert all(item["answer_key"] is None for item in body["items"])
        assert "answer_key" not in json.dumps([item["problem"] for item in body["items"]])
        seen.add(json.dumps([item["problem"] for item in body["items"]], sort_keys=True))
    assert len(seen) == 5, "every student gets a different variant"


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_instructors_trees_are_posed_by_the_real_worker(
    celery_worker_process: Any, instructor: Any, course: Any
) -> None:
    from exercises.tree_text import parse_tree_text

    _, client = instructor
    students = [make_account(f"learner{i}", "student", course) for i in range(3)]
    lecture = "MAX(A: MIN(3, 12, 8), B: MIN(2, 4, 6), C: MIN(14, 5, 2))"
    created = client.post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "Lecture trees", "seed": "e2e-trees", "items": [
            {"kind": "alphabeta", "params": {"tree": lecture}, "points": "2"},
            {"kind": "alphabeta", "params": {"tree": lecture, "randomize_values": True},
             "points": "2"},
        ]}, format="json")
    assert created.status_code == 201, created.content
    problem_set_id = created.json()["id"]
    assert client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/").status_code == 202

    def state() -> dict[str, Any]:
        return client.get(f"/api/v1/problem-sets/{problem_set_id}/").json()

    assert wait_until(lambda: state()["status"] in ("ready", "failed"), timeout=60)
    assert state()["status"] == "ready", state()["failure_reason"]
    drawn = set()
    for _, student_client in students:
        listing = student_client.get("/api/v1/assignments/").json()
        fixed, randomized = student_client.get(
            f"/api/v1/assignments/{listing[0]['id']}/").json()["items"]
        assert fixed["problem"]["tree"] == parse_tree_text(lecture)
        assert randomized["problem"]["tree"]["children"][1]["name"] == "B"
        drawn.add(json.dumps(randomized["problem"]["tree"]))
    assert len(drawn) == 3, "every student's randomized tree has its own values"
    keys = client.get(f"/api/v1/problem-sets/{problem_set_id}/").json()["variants"]
    assert all(variant["items"][0]["answer_key"]["pruned_leaves"] == ["B2", "B3"]
               for variant in keys)
