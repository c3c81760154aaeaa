"""Checks: a code item's public example test run in the real sandbox, using no attempt."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from exercises.models import Variant
from grading.code import services
from grading.code.cases import public_cases, search_cases
from grading.models import CodeCheck, Submission
from grading.sandbox import SandboxConfig
from tests.grading.code import solutions
from tests.grading.code.conftest import code_assignment

pytestmark = pytest.mark.django_db

PRINTING_ALPHABETA = solutions.ALPHABETA.replace(
    "    player = game.to_move(state)\n",
    "    player = game.to_move(state)\n    print('searching', state)\n", 1)


def check(client: Any, variant: Variant, source: str) -> Any:
    return client.post(f"/api/v1/assignments/{variant.pk}/items/1/code-checks/",
                       {"source": source}, format="json")


@pytest.fixture
def sandboxed(monkeypatch: pytest.MonkeyPatch, sandbox_config: SandboxConfig) -> list[int]:
    """Run checks in the test session's sandbox; return the ids of checks sent to the broker."""
    monkeypatch.setattr(services, "sandbox_config", lambda: sandbox_config)
    sent: list[int] = []
    monkeypatch.setattr(services, "send_check_task",
                        lambda pk, countdown=None: sent.append(pk))
    return sent


def test_the_public_test_is_the_first_fixed_tree() -> None:
    assert [case.name for case in public_cases("code_alphabeta", {})] == ["textbook tree"]
    assert [case.name for case in public_cases("code_minimax", {})] == ["textbook tree"]
    assert [case.name for case in public_cases("code_expectimax", {})] == ["chance tree"]
    assert public_cases("code_alphabeta", {})[0].args == (2,)


def test_a_check_runs_the_public_test_shows_the_output_and_uses_no_attempt(
        student: Any, alphabeta_code: Variant, sandboxed: list[int],
        django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = check(student[1], alphabeta_code, PRINTING_ALPHABETA)

    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["tests"] == []
    assert response["Location"] == f"/api/v1/code-checks/{body['id']}/"
    assert sandboxed == [body["id"]]
    services.run_code_check(body["id"])

    done = student[1].get(f"/api/v1/code-checks/{body['id']}/").json()
    assert done["status"] == "done", done
    assert [(t["test"], t["verdict"]) for t in done["tests"]] == [("textbook tree", "passed")]
    assert done["tests"][0]["test_label"] == "textbook tree"
    assert done["tests"][0]["verdict_label"]
    assert done["stdout"].startswith("searching ")
    assert done["stdout_truncated"] is False and done["wall_seconds"] > 0
    assert Submission.objects.count() == 0


def test_a_failing_check_reports_the_test_and_the_traceback(
        student: Any, alphabeta_code: Variant, sandboxed: list[int]) -> None:
    body = check(student[1], alphabeta_code, solutions.CRASHING).json()
    services.run_code_check(body["id"])

    done = student[1].get(f"/api/v1/code-checks/{body['id']}/").json()
    assert done["status"] == "done"
    assert done["tests"][0]["verdict"] == "runtime_error"
    assert done["tests"][0]["traceback"]


def test_the_printed_output_is_bounded(student: Any, alphabeta_code: Variant,
                                       sandboxed: list[int], settings: Any) -> None:
    settings.CUTOFF_CODE_CHECK_OUTPUT_BYTES = 1000
    body = check(student[1], alphabeta_code, solutions.PRINTING).json()
    services.run_code_check(body["id"])

    stored = CodeCheck.objects.get(pk=body["id"])
    assert len(stored.stdout.encode()) <= 1000 and stored.stdout_truncated


def test_a_second_check_right_away_is_refused_with_retry_after(
        student: Any, alphabeta_code: Variant, sandboxed: list[int], settings: Any) -> None:
    # An hour's window: a loaded machine cannot let the first check leave it meanwhile.
    settings.CUTOFF_CODE_CHECK_RATES = [(1, 3600)]
    assert check(student[1], alphabeta_code, solutions.ALPHABETA).status_code == 202

    refused = check(student[1], alphabeta_code, solutions.ALPHABETA)

    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "check_rate_limited"
    assert error["details"]["limit"] == {"checks": 1, "seconds": 3600}
    assert 1 <= int(refused["Retry-After"]) <= 3600
    assert CodeCheck.objects.count() == 1


def test_the_hourly_limit_counts_checks(student: Any, alphabeta_code: Variant,
                                        sandboxed: list[int], settings: Any) -> None:
    settings.CUTOFF_CODE_CHECK_RATES = [(1, 10), (3, 3600)]
    start = timezone.now()
    for minute in range(3):
        services.request_check(student=student[0], variant_id=alphabeta_code.pk, position=1,
                               source=solutions.ALPHABETA,
                               now=start + timedelta(minutes=minute))

    with pytest.raises(services.CheckRateLimited) as refused:
        services.request_check(student=student[0], variant_id=alphabeta_code.pk, position=1,
                               source=solutions.ALPHABETA, now=start + timedelta(minutes=3))
    assert refused.value.details["limit"] == {"checks": 3, "seconds": 3600}
    assert CodeCheck.objects.count() == 3


def test_a_check_is_allowed_after_the_attempts_are_used_up(
        student: Any, course: Any, instructor: Any, sandboxed: list[int]) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              max_attempts=1)
    item = variant.items.get()
    Submission.objects.create(variant_item=item, student=student[0], attempt_number=1,
                              kind=Submission.Kind.CODE, source="x = 1",
                              status=Submission.Status.GRADED)

    assert check(student[1], variant, solutions.ALPHABETA).status_code == 202


def test_a_check_is_refused_after_a_timed_quiz_ends(
        student: Any, course: Any, instructor: Any, sandboxed: list[int]) -> None:
    variant = code_assignment(course, instructor[0], student[0], "code_alphabeta",
                              time_limit_minutes=10)
    Variant.objects.filter(pk=variant.pk).update(opened_at=timezone.now() - timedelta(hours=1))

    refused = check(student[1], variant, solutions.ALPHABETA)

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "time_limit_exceeded"
    assert CodeCheck.objects.count() == 0


def test_bad_source_is_refused_and_nothing_is_stored(
        student: Any, alphabeta_code: Variant, sandboxed: list[int]) -> None:
    bad = check(student[1], alphabeta_code, "def f(:\n")

    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_source"
    assert CodeCheck.objects.count() == 0 and sandboxed == []


FIRST_COLUMN_CONNECT4 = "def choose_move(game, state):\n    return game.actions(state)[0]\n"


def printing(source: str, entry_point: str) -> str:
    """Return ``source`` printing the root's actions (by their labels) first in the entry."""
    start = source.index(f"def {entry_point}(")
    body = source.index("\n", start) + 1
    return source[:body] + "    print('actions', *game.actions(state))\n" + source[body:]


@pytest.mark.parametrize(("kind", "right", "wrong", "test", "wrong_text", "printed"), [
    ("code_ucb1", solutions.UCB1, solutions.UCB1_MOST_VISITED, "a child never visited",
     "You selected C (UCB1 ", "actions A B C\n"),
    ("code_mcts_backprop", solutions.MCTS_BACKPROP, solutions.MCTS_CREDIT_EVERY_NODE,
     "a path where MIN wins", "The 1st node on the path, B, has reward 4", "actions A B\n"),
    ("code_tictactoe_agent", solutions.PERFECT_TICTACTOE, solutions.FIRST_SQUARE_TICTACTOE,
     "tic-tac-toe agent as X, against every opponent", "Your agent loses the game 0, ",
     "actions 0 1 2 3 4 5 6 7 8\n"),
    ("code_connect4_agent", solutions.GREEDY_CONNECT4, FIRST_COLUMN_CONNECT4,
     "Connect Four vs depth-2 searcher", "As X your agent lost: 1",
     "actions 0 1 2 3 4 5 6\n"),
])
def test_every_code_kind_checks_its_public_test_graded_as_the_hidden_tests(
        student: Any, course: Any, instructor: Any, sandboxed: list[int], settings: Any,
        kind: str, right: str, wrong: str, test: str, wrong_text: str, printed: str) -> None:
    from grading.code.contract import CONTRACTS, starter_source

    settings.CUTOFF_CODE_CHECK_RATES = []
    variant = code_assignment(course, instructor[0], student[0], kind)
    entry_point = CONTRACTS[kind].entry_point
    reports = {}
    for source in (printing(right, entry_point), wrong):
        body = check(student[1], variant, source).json()
        services.run_code_check(body["id"])
        reports[source] = student[1].get(f"/api/v1/code-checks/{body['id']}/").json()

    passed, failed = reports.values()
    assert passed["status"] == failed["status"] == "done"
    assert [(t["test"], t["verdict"]) for t in passed["tests"]] == [(test, "passed")]
    assert passed["stdout"].startswith(printed), passed["stdout"][:200]
    assert [(t["test"], t["verdict"]) for t in failed["tests"]] == [(test, "wrong")]
    assert failed["tests"][0]["messages"][0]["text"].startswith(wrong_text), failed["tests"]
    # The public test is one of the hidden tests, and the starter file names it.
    assert test in " ".join(starter_source(kind, {}).split())
    assert Submission.objects.count() == 0


def test_the_public_tests_are_among_the_hidden_tests() -> None:
    from grading.code.backprop import backprop_cases, public_backprop_test
    from grading.code.selection import public_selection_case, selection_cases

    assert public_selection_case().args == selection_cases("any seed")[0].args
    assert public_backprop_test().path == backprop_cases("any seed")[0].path
    for kind in ("code_minimax", "code_alphabeta", "code_expectimax"):
        assert public_cases(kind, {})[0].tree == search_cases(kind, {}, "any seed")[0].tree


def test_only_its_student_sees_a_check(student: Any, other_student: Any, instructor: Any,
                                       alphabeta_code: Variant, sandboxed: list[int]) -> None:
    body = check(student[1], alphabeta_code, solutions.ALPHABETA).json()

    for client in (other_student[1], instructor[1]):
        response = client.get(f"/api/v1/code-checks/{body['id']}/")
        assert response.status_code == 404
    assert check(other_student[1], alphabeta_code, solutions.ALPHABETA).status_code == 404


def test_a_second_running_check_of_the_student_is_deferred(
        student: Any, alphabeta_code: Variant, sandboxed: list[int], settings: Any) -> None:
    settings.CUTOFF_CODE_CHECK_RATES = []
    first = services.request_check(student=student[0], variant_id=alphabeta_code.pk,
                                   position=1, source=solutions.ALPHABETA)
    second = services.request_check(student=student[0], variant_id=alphabeta_code.pk,
                                    position=1, source=solutions.ALPHABETA)
    assert services.claim_check(first.pk) is services.Claim.CLAIMED

    services.run_code_check(second.pk)

    assert CodeCheck.objects.get(pk=second.pk).status == CodeCheck.Status.QUEUED
    assert sandboxed[-1] == second.pk


@pytest.mark.parametrize(("language", "name", "label"), [
    ("pt", "textbook tree", "árvore do manual"),
    ("ca", "your tree 2", "el vostre arbre 2"),
    ("pt-br", "tic-tac-toe XO./.../..., X to move", "jogo da velha XO./.../..., joga X"),
    ("en", "Connect Four vs random player", "Connect Four vs random player"),
    ("pt", "something new", "something new"),
])
def test_test_names_are_shown_in_the_readers_language(language: str, name: str,
                                                      label: str) -> None:
    from django.utils import translation

    from grading.code.feedback import test_label

    with translation.override(language):
        assert test_label(name) == label
