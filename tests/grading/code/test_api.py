"""The code item API: starter files, submitting code, and reading the per-test report."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from exercises.models import ProblemSet, Variant
from grading.code import services
from grading.code.apis import CodeSubmissionCreateApi
from grading.models import Submission
from grading.sandbox import SandboxConfig
from tests.grading.code import solutions
from tests.grading.code.conftest import code_assignment

pytestmark = pytest.mark.django_db


def submit(client: Any, variant: Variant, source: str, **headers: Any) -> Any:
    return client.post(f"/api/v1/assignments/{variant.pk}/items/1/code-submissions/",
                       {"source": source}, format="json", **headers)


def test_the_starter_file_states_the_contract(student: Any, alphabeta_code: Variant) -> None:
    response = student[1].get(f"/api/v1/assignments/{alphabeta_code.pk}/items/1/starter.py")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/x-python; charset=utf-8"
    source = response.content.decode()
    compile(source, "starter.py", "exec")
    assert "def alphabeta_decision(game, state, depth):" in source
    for convention in ("Depth counts plies from 0", "Cut on equality", "The root raises alpha",
                       "first best action", "game.evaluate(state, player)"):
        assert convention in source
    assert "The graded tests include it." in " ".join(source.split())


def test_the_starter_file_follows_the_items_conventions(course: Any, instructor: Any,
                                                        student: Any) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              {"cut_on_equality": False})

    source = student[1].get(f"/api/v1/assignments/{variant.pk}/items/1/starter.py").content

    assert b"only when alpha > beta" in source


@override_settings(CUTOFF_CODE_BUDGET_SECONDS=24)
def test_the_starter_file_and_the_page_state_the_items_limits(course: Any, instructor: Any,
                                                              student: Any) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              {"limits": {"cpu_seconds": 3, "wall_seconds": 7.5}})

    source = student[1].get(f"/api/v1/assignments/{variant.pk}/items/1/starter.py").content
    browser = Client()
    browser.force_login(student[0])
    page = browser.get(f"/assignments/{variant.pk}/items/1/").content.decode()

    stated = ("each run of your code may use 3 s of CPU time, 7.5 s of wall-clock time (the "
              "time the grader takes to answer your game calls does not count) and 256 MiB of "
              "memory; all the runs of one submission share 24 s.")
    assert stated in " ".join(source.decode().replace("#", "").split())
    assert stated in " ".join(page.split())


def test_the_starter_file_says_whether_the_graded_tests_include_the_public_one(
        course: Any, instructor: Any, student: Any) -> None:
    without_fixed = code_assignment(course, instructor[0], student[0], "code_minimax",
                                    {"test_sets": ["generated_trees", "tictactoe"]})
    source = student[1].get(f"/api/v1/assignments/{without_fixed.pk}/items/1/starter.py")
    text = " ".join(source.content.decode().split())

    assert "The graded tests include it." not in text
    assert "This item's graded tests leave the fixed trees out, so they do not include it." in text


def test_someone_elses_starter_file_is_not_found(other_student: Any,
                                                 alphabeta_code: Variant) -> None:
    response = other_student[1].get(
        f"/api/v1/assignments/{alphabeta_code.pk}/items/1/starter.py")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_code_is_stored_before_the_202_and_graded_with_a_report(
        course: Any, instructor: Any, student: Any, sandbox_config: SandboxConfig,
        monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any) -> None:
    # Seeds whose hidden trees tell a root that keeps its window from plain minimax: on
    # two-ply trees and games the two searches are the same, so on some seeds (about 1 in 4)
    # every test matches both and the summary rightly names neither.
    alphabeta_code = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                                     seed_student=1)
    monkeypatch.setattr(services, "sandbox_config", lambda: sandbox_config)
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(services, "enqueue_submission",
                        lambda pk, kind: sent.append((pk, kind)) or True)
    # The report quotes the reference search: today's full feedback.
    ProblemSet.objects.filter(pk=alphabeta_code.problem_set_id).update(feedback_policy="full")

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = submit(student[1], alphabeta_code, solutions.ROOT_ALPHA_NOT_RAISED)
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["kind"] == "code" and body["tests"] == []
    assert response["Location"] == f"/api/v1/code-submissions/{body['id']}/"
    assert Submission.objects.get(pk=body["id"]).source == solutions.ROOT_ALPHA_NOT_RAISED

    assert sent == []
    for callback in callbacks:
        callback()
    assert sent == [(body["id"], "code")]
    services.grade_code_submission(body["id"])
    detail = student[1].get(f"/api/v1/code-submissions/{body['id']}/").json()
    assert detail["status"] == "graded"
    assert 0 < detail["score"] < detail["max_score"] == 3
    assert detail["summary"]["misconception"]["code"] == "root_alpha_not_raised"
    textbook = detail["tests"][0]
    assert textbook["test"] == "textbook tree" and textbook["verdict"] == "wrong"
    assert textbook["messages"][0] == {
        "code": "evaluated_differs", "params": {"n": 5, "yours": "B2", "reference": "C1"},
        "text": "Your 5th evaluated state was B2; the reference evaluates C1 there."}
    # The generic submission resource shows the same per-test report (it was a 500 once).
    generic = student[1].get(f"/api/v1/submissions/{body['id']}/")
    assert generic.status_code == 200
    assert generic.json()["tests"][0]["verdict"] == "wrong"


def test_an_idempotency_key_replays_and_refuses_other_code(student: Any,
                                                           alphabeta_code: Variant) -> None:
    first = submit(student[1], alphabeta_code, solutions.ALPHABETA, HTTP_IDEMPOTENCY_KEY="k1")
    again = submit(student[1], alphabeta_code, solutions.ALPHABETA, HTTP_IDEMPOTENCY_KEY="k1")
    other = submit(student[1], alphabeta_code, solutions.LYING, HTTP_IDEMPOTENCY_KEY="k1")

    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert Submission.objects.count() == 1


def test_source_that_is_not_python_is_refused_without_using_an_attempt(
        student: Any, alphabeta_code: Variant) -> None:
    response = submit(student[1], alphabeta_code, "def alphabeta_decision(game, state, depth)\n")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_source"
    assert error["details"]["line"] == 1
    assert not Submission.objects.exists()


def test_attempts_and_deadlines_are_enforced(course: Any, instructor: Any,
                                             student: Any) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              max_attempts=1)

    assert submit(student[1], variant, solutions.ALPHABETA).status_code == 202
    refused = submit(student[1], variant, solutions.ALPHABETA)

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "attempts_exhausted"


def test_a_typed_answer_item_takes_no_code(course: Any, instructor: Any, student: Any) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta")
    item = variant.items.get().item
    item.kind = "minimax"
    item.save()

    response = submit(student[1], variant, solutions.ALPHABETA)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "not_a_code_item"


def test_other_students_cannot_submit_or_read(student: Any, other_student: Any,
                                              alphabeta_code: Variant) -> None:
    mine = submit(student[1], alphabeta_code, solutions.ALPHABETA).json()

    assert submit(other_student[1], alphabeta_code, solutions.ALPHABETA).status_code == 404
    assert other_student[1].get(f"/api/v1/code-submissions/{mine['id']}/").status_code == 404


def test_code_runs_are_throttled_in_their_own_scope() -> None:
    assert CodeSubmissionCreateApi.throttle_scope == "code_runs"


def test_a_host_without_the_sandbox_marks_the_submission_error(
        student: Any, alphabeta_code: Variant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "sandbox_config",
                        lambda: SandboxConfig(bwrap="/nonexistent/bwrap"))
    submission_id = submit(student[1], alphabeta_code, solutions.ALPHABETA).json()["id"]

    services.grade_code_submission(submission_id)

    detail = student[1].get(f"/api/v1/code-submissions/{submission_id}/").json()
    assert detail["status"] == "error"
    assert detail["error_code"] == "sandbox_unavailable"
    assert detail["summary"] is None


def test_from_problem_set_to_graded_code_through_the_api(
        instructor: Any, student: Any, course: Any, celery_eager: None,
        sandbox_config: SandboxConfig, monkeypatch: pytest.MonkeyPatch,
        django_capture_on_commit_callbacks: Any) -> None:
    monkeypatch.setattr(services, "sandbox_config", lambda: sandbox_config)
    created = instructor[1].post("/api/v1/problem-sets/", {
        "title": "Code", "course": course.pk,
        "items": [{"kind": "code_minimax", "params": {"test_sets": ["fixed_trees"]},
                   "points": 2}],
    }, format="json")
    assert created.status_code == 201, created.json()
    with django_capture_on_commit_callbacks(execute=True):
        published = instructor[1].post(f"/api/v1/problem-sets/{created.json()['id']}/publish/")
    assert published.status_code in (200, 202), published.json()
    assignment = student[1].get("/api/v1/assignments/").json()[0]
    item = student[1].get(f"/api/v1/assignments/{assignment['id']}/").json()["items"][0]
    assert item["problem"]["entry_point"] == "minimax_decision"
    assert item["answer_parts"] == []

    monkeypatch.setattr(services, "enqueue_submission", lambda pk, kind: True)
    response = student[1].post(
        f"/api/v1/assignments/{assignment['id']}/items/1/code-submissions/",
        {"source": solutions.MINIMAX}, format="json")
    services.grade_code_submission(response.json()["id"])

    detail = student[1].get(f"/api/v1/code-submissions/{response.json()['id']}/").json()
    assert detail["status"] == "graded"
    assert detail["score"] == detail["max_score"] == 2
    assert [test["test"] for test in detail["tests"]] == ["textbook tree", "three-ply tree",
                                                        "extra-move tree"]


@pytest.mark.parametrize("policy", ["verdicts", "score_only"])
def test_hidden_tests_reference_values_stay_hidden_while_attempts_remain(
        student: Any, instructor: Any, alphabeta_code: Variant, sandbox_config: SandboxConfig,
        monkeypatch: pytest.MonkeyPatch, policy: str) -> None:
    from tests.grading.test_feedback_policy import leaks

    monkeypatch.setattr(services, "sandbox_config", lambda: sandbox_config)
    monkeypatch.setattr(services, "enqueue_submission", lambda pk, kind: True)
    ProblemSet.objects.filter(pk=alphabeta_code.problem_set_id).update(
        feedback_policy=policy, max_attempts=3)
    # Hard-codes a decision and a value without searching: full feedback would tell it the
    # reference's decision and value on every hidden test.
    submission_id = submit(student[1], alphabeta_code, solutions.HARD_CODED).json()["id"]
    services.grade_code_submission(submission_id)
    stored = Submission.objects.get(pk=submission_id).results
    quoted = [message["params"] for test in stored for message in test["messages"]
              if message["code"] in ("decision_differs", "value_differs")]
    references = {str(params["reference"]) for params in quoted} - {
        str(params["yours"]) for params in quoted}  # what the student returned itself
    assert references

    detail = student[1].get(f"/api/v1/code-submissions/{submission_id}/").json()
    assert detail["status"] == "graded" and detail["feedback_policy"] == policy
    messages = [message for test in detail["tests"] for message in test["messages"]]
    assert leaks(messages, references) == []
    assert all(message["text"] != message["code"] for message in messages)
    if policy == "score_only":
        assert detail["tests"] == [] and detail["summary"] is None
    else:
        assert {"decision_differs_withheld", "value_differs_withheld"} <= {
            message["code"] for message in messages}
    generic = student[1].get(f"/api/v1/submissions/{submission_id}/").json()
    assert generic["tests"] == detail["tests"]
    full = instructor[1].get(f"/api/v1/code-submissions/{submission_id}/").json()
    assert full["feedback_policy"] == "full"
    assert leaks([m for test in full["tests"] for m in test["messages"]], references)


def test_the_starter_file_of_a_timed_quiz_starts_its_clock(course: Any, instructor: Any,
                                                           student: Any) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              time_limit_minutes=20)
    assert variant.opened_at is None
    response = student[1].get(f"/api/v1/assignments/{variant.pk}/items/1/starter.py")
    assert response.status_code == 200
    variant.refresh_from_db()
    assert variant.opened_at is not None


@pytest.mark.parametrize(("language", "words"), [("pt", "Explore todo o jogo"),
                                                 ("ca", "Exploreu tot el joc")])
def test_the_code_prompt_is_translated(language: str, words: str) -> None:
    from django.utils import translation

    from exercises.kinds import get_kind

    kind = get_kind("code_minimax")
    with translation.override(language):
        prompt = kind.render_prompt({"signature": "minimax_decision(game, state)",
                                     "conventions": {}})
    assert words in prompt
