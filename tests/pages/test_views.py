"""Page views through Django's test client: who may see what, and the answer round trip."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.pages.conftest import variant_of_user

pytestmark = pytest.mark.django_db


def logged_in(user: Any) -> Client:
    """Return a test client with ``user``'s session."""
    client = Client()
    client.force_login(user)
    return client


def test_login_page_logs_in_with_a_password(course: Any) -> None:
    from accounts.services import create_account

    create_account(username="pat", role="student", password="s3cret-pw", course=course)
    client = Client()
    assert client.get(reverse("pages:login")).status_code == 200
    response = client.post(reverse("pages:login"), {"username": "pat", "password": "s3cret-pw"})
    assert response.status_code == 302
    assert client.get(reverse("pages:home")).url == reverse("pages:assignments")


def test_pages_need_a_login(alphabeta_set: Any, student: Any) -> None:
    variant = variant_of_user(alphabeta_set, student[0])
    for url in (reverse("pages:assignments"), reverse("pages:item", args=[variant.pk, 1]),
                reverse("pages:builder")):
        response = Client().get(url)
        assert response.status_code == 302
        assert response.url.startswith(reverse("pages:login"))


def test_assignment_list_shows_due_date_attempts_and_score(alphabeta_set: Any, student: Any
                                                           ) -> None:
    response = logged_in(student[0]).get(reverse("pages:assignments"))
    assert response.status_code == 200
    text = response.content.decode()
    assert "Week 3: alpha-beta" in text
    assert "unlimited" in text


def test_item_page_draws_the_tree_with_inputs_on_it(alphabeta_set: Any, student: Any) -> None:
    variant = variant_of_user(alphabeta_set, student[0])
    response = logged_in(student[0]).get(reverse("pages:item", args=[variant.pk, 1]))
    assert response.status_code == 200
    text = response.content.decode()
    assert "<svg" in text and 'aria-label="Game tree"' in text
    assert 'name="answer-pruned_leaves"' in text
    assert 'name="answer-value"' in text and 'name="answer-move"' in text


def test_student_cannot_open_another_students_item(alphabeta_set: Any, student: Any,
                                                   other_student: Any) -> None:
    theirs = variant_of_user(alphabeta_set, other_student[0])
    client = logged_in(student[0])
    assert client.get(reverse("pages:item", args=[theirs.pk, 1])).status_code == 404
    assert client.post(reverse("pages:item", args=[theirs.pk, 1]),
                       {"answer-value": "3"}).status_code == 404


def test_missing_item_is_404(alphabeta_set: Any, student: Any) -> None:
    variant = variant_of_user(alphabeta_set, student[0])
    assert logged_in(student[0]).get(
        reverse("pages:item", args=[variant.pk, 9])).status_code == 404


def test_students_cannot_open_instructor_pages(alphabeta_set: Any, student: Any) -> None:
    client = logged_in(student[0])
    for url in (reverse("pages:builder"), reverse("pages:problem_sets"),
                reverse("pages:dashboard", args=[alphabeta_set.pk]),
                reverse("pages:problem_set", args=[alphabeta_set.pk]),
                reverse("pages:problem_set_status", args=[alphabeta_set.pk])):
        assert client.get(url).status_code == 404
    assert client.post(reverse("pages:publish", args=[alphabeta_set.pk])).status_code == 404


def test_other_instructors_cannot_open_the_set(alphabeta_set: Any, other_instructor: Any
                                               ) -> None:
    client = logged_in(other_instructor[0])
    assert client.get(reverse("pages:dashboard", args=[alphabeta_set.pk])).status_code == 404
    assert client.get(reverse("pages:problem_set", args=[alphabeta_set.pk])).status_code == 404


def test_submitting_stores_the_answer_through_grading(alphabeta_set: Any, student: Any,
                                                      celery_eager: None) -> None:
    from grading.models import Submission

    variant = variant_of_user(alphabeta_set, student[0])
    leaves = [leaf for child in variant.items.get().problem["tree"]["children"]
              for leaf in child["children"]]
    client = logged_in(student[0])
    url = reverse("pages:item", args=[variant.pk, 1])
    response = client.post(url, {
        "answer-value": "7", "answer-pruned_leaves": [leaves[-1]["name"]],
        "answer-cutoffs": "B: B2 B3",
    })
    assert response.status_code == 302
    submission = Submission.objects.get(student=student[0])
    assert submission.answer["value"] == "7"
    assert submission.answer["pruned_leaves"] == [leaves[-1]["name"]]
    assert submission.answer["cutoffs"] == [{"node": "B", "pruned": ["B2", "B3"]}]


def test_malformed_answer_is_refused_without_using_an_attempt(alphabeta_set: Any, student: Any
                                                              ) -> None:
    variant = variant_of_user(alphabeta_set, student[0])
    response = logged_in(student[0]).post(
        reverse("pages:item", args=[variant.pk, 1]), {"answer-value": "seven"})
    assert response.status_code == 400
    assert "not accepted" in response.content.decode()
    assert variant.items.get().submissions.count() == 0


def test_instructor_pages_render(alphabeta_set: Any, instructor: Any) -> None:
    client = logged_in(instructor[0])
    for url in (reverse("pages:problem_sets"), reverse("pages:builder"),
                reverse("pages:problem_set", args=[alphabeta_set.pk]),
                reverse("pages:dashboard", args=[alphabeta_set.pk])):
        assert client.get(url).status_code == 200, url
    status = client.get(reverse("pages:problem_set_status", args=[alphabeta_set.pk])).json()
    assert status["status"] == "ready"


def builder_post(course: Any, changes: dict[str, str] | None = None) -> dict[str, Any]:
    """Return a builder form asking for one alpha-beta item with the kind's defaults."""
    from tests.pages.test_kinds import builder_defaults

    data = {**builder_defaults("alphabeta", 0), **builder_defaults("alphabeta", 1)}
    data.pop("preview_item")
    data.update({"course": str(course.pk), "title": "Built in the page", "item": ["0", "1"],
                 "item-0-points": "2.5", "item-1-points": "2.5", "max_attempts": "3"})
    data.update(changes or {})
    return data


CODE_ROW = {"item": ["0", "1", "2"], "item-2-kind": "code_minimax"}
"""A third row, a code item, whose other params are left out (their defaults apply)."""


def test_builder_creates_a_draft_set_through_the_service(instructor: Any, course: Any) -> None:
    from exercises.models import ProblemSet

    client = logged_in(instructor[0])
    response = client.post(reverse("pages:builder"), builder_post(course))
    problem_set = ProblemSet.objects.get(title="Built in the page")
    assert response.status_code == 302
    assert response.url == reverse("pages:problem_set", args=[problem_set.pk])
    assert problem_set.status == "draft" and problem_set.max_attempts == 3
    assert [item.points for item in problem_set.items.all()] == [2.5, 2.5]
    assert problem_set.items.first().params["cut_on_equality"] is True
    assert problem_set.feedback_policy == "verdicts"


def test_builder_stores_the_chosen_feedback_policy(instructor: Any, course: Any) -> None:
    from exercises.models import ProblemSet

    client = logged_in(instructor[0])
    assert 'name="feedback_policy"' in client.get(reverse("pages:builder")).content.decode()
    client.post(reverse("pages:builder"), builder_post(course, {"feedback_policy": "full"}))
    assert ProblemSet.objects.get(title="Built in the page").feedback_policy == "full"


@pytest.mark.parametrize(("changes", "named"), [
    ({"item-0-min_branching": "4", "item-0-max_branching": "2"}, "max_branching"),
    ({"item-1-depth": "deep"}, "item-1-depth"),
    ({"item-0-points": "-1"}, "item-0-points"),
    ({"max_attempts": "99999999999"}, "max_attempts"),
    ({"item": []}, "items"),
    ({"item-1-kind": "chess"}, "item-1-kind"),
    ({"time_limit_minutes": "0"}, "time_limit_minutes"),
    ({"late_penalty": "150"}, "late_penalty"),
    ({"score_policy": "worst"}, "score_policy"),
    ({"item-0-tree": "MAX(A: MIN(3, 5), B: CHANCE(2, 9))"},
     'items[0].params.tree.children[1]: node &quot;B&quot;: alphabeta trees have only'),
    ({"title": ""}, "title"),
    ({"course": "999999"}, "course"),
    ({"due_at": "tomorrow"}, "due_at"),
    ({**CODE_ROW, "item-2-limits": "[" * 5000 + "]" * 5000},
     "JSON may be nested at most"),
    ({**CODE_ROW, "item-2-limits": '{"cpu_seconds": "\\u0000"}'},
     "NUL characters"),
    ({**CODE_ROW, "item-2-limits": '{"memory_bytes": 1e30}'},
     "limits"),
    ({"title": "Week\x003"}, "title"),
    ({"seed": "s\x00"}, "seed"),
    ({"feedback_policy": "keys"}, "feedback_policy"),
])
def test_builder_names_what_is_wrong(instructor: Any, course: Any, changes: dict[str, str],
                                     named: str) -> None:
    from exercises.models import ProblemSet

    response = logged_in(instructor[0]).post(reverse("pages:builder"),
                                             builder_post(course, changes))
    assert response.status_code == 400
    assert named in response.content.decode()
    assert not ProblemSet.objects.exists()


def test_publish_from_the_page_queues_generation(instructor: Any, student: Any, course: Any,
                                                 django_capture_on_commit_callbacks: Any,
                                                 celery_eager: None) -> None:
    from tests.pages.conftest import make_problem_set

    problem_set = make_problem_set(instructor[0], course)
    client = logged_in(instructor[0])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("pages:publish", args=[problem_set.pk]))
    assert response.status_code == 302
    status = client.get(reverse("pages:problem_set_status", args=[problem_set.pk])).json()
    assert status == {"status": "ready", "status_label": "ready", "done": 1, "total": 1,
                      "failure_reason": ""}


def test_dashboard_links_the_grades_csv_that_the_session_can_download(
        alphabeta_set: Any, instructor: Any) -> None:
    client = logged_in(instructor[0])
    html = client.get(reverse("pages:dashboard", args=[alphabeta_set.pk])).content.decode()
    csv_url = reverse("problem-set-grades-csv", args=[alphabeta_set.pk])
    assert f'href="{csv_url}"' in html
    response = client.get(csv_url)
    assert response.status_code == 200
    assert "sara" in response.content.decode()


def test_the_dashboard_lists_passbacks_the_lms_did_not_take_and_resends_them(
        alphabeta_set: Any, instructor: Any, other_instructor: Any, student: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    from lms.models import LtiContext, LtiResourceLink, ScorePassback
    from lms.services import register_platform

    platform = register_platform(
        owner=instructor[0], name="Moodle", issuer="http://127.0.0.1:9", client_id="c",
        deployment_ids=["1"], auth_login_url="http://127.0.0.1:9/auth",
        auth_token_url="http://127.0.0.1:9/token", key_set_url="http://127.0.0.1:9/jwks",
    )
    context = LtiContext.objects.create(platform=platform, context_id="c-1",
                                        course=alphabeta_set.course)
    link = LtiResourceLink.objects.create(platform=platform, context=context,
                                          resource_link_id="rl-1", problem_set=alphabeta_set)
    failed = ScorePassback.objects.create(resource_link=link, student=student[0],
                                          status=ScorePassback.Status.FAILED,
                                          last_error="could not reach the LMS")
    ScorePassback.objects.create(resource_link=link, student=student[0],
                                 status=ScorePassback.Status.SENT)
    client = logged_in(instructor[0])
    html = client.get(reverse("pages:dashboard", args=[alphabeta_set.pk])).content.decode()
    assert "LMS grade passbacks to look at" in html and "could not reach the LMS" in html
    resend = reverse("pages:resend_passback", args=[alphabeta_set.pk, failed.pk])
    assert f'action="{resend}"' in html
    assert logged_in(other_instructor[0]).post(resend).status_code == 404
    with django_capture_on_commit_callbacks() as queued:
        response = client.post(resend)
    assert response.status_code == 302 and len(queued) == 1
    assert ScorePassback.objects.get(pk=failed.pk).status == ScorePassback.Status.QUEUED
    html = client.get(reverse("pages:dashboard", args=[alphabeta_set.pk])).content.decode()
    assert "latest score is sent to the LMS" in html
    assert "LMS grade passbacks to look at" not in html


def test_submission_status_is_only_for_its_owner(alphabeta_set: Any, student: Any,
                                                 other_student: Any) -> None:
    from grading.services import submit_answer

    variant = variant_of_user(alphabeta_set, student[0])
    submission, _ = submit_answer(student=student[0], variant_id=variant.pk, position=1,
                                  answer={"value": "3"})
    url = reverse("pages:submission_status", args=[submission.pk])
    assert logged_in(student[0]).get(url).json()["status"] == "queued"
    assert logged_in(other_student[0]).get(url).status_code == 404
    assert logged_in(other_student[0]).get(url + "?wait=20").status_code == 404


def test_submission_status_long_polls_and_names_a_bad_wait(alphabeta_set: Any, student: Any,
                                                           stop_listener: None) -> None:
    from grading.services import submit_answer

    variant = variant_of_user(alphabeta_set, student[0])
    submission, _ = submit_answer(student=student[0], variant_id=variant.pk, position=1,
                                  answer={"value": "3"})
    url = reverse("pages:submission_status", args=[submission.pk])
    unfinished = logged_in(student[0]).get(url + "?wait=0.2")
    assert unfinished.json()["status"] == "queued"
    assert unfinished["Retry-After"] == "1"
    refused = logged_in(student[0]).get(url + "?wait=soon")
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("wait: ")
    assert "wait" in refused.json()["error"]["details"]


@pytest.mark.parametrize(("language", "label", "text"), [
    ("pt", "tempo limite excedido", "O seu 2.º estado avaliado foi B2"),
    ("ca", "límit de temps superat", "El vostre 2n estat avaluat va ser B2"),
])
def test_code_report_shows_translated_verdicts_and_message_texts(
    instructor: Any, student: Any, course: Any, language: str, label: str, text: str,
) -> None:
    from decimal import Decimal

    from exercises.models import VariantItem
    from exercises.services import create_problem_set
    from grading.models import Submission
    from tests.pages.conftest import publish_now

    problem_set = publish_now(create_problem_set(
        creator=instructor[0], course=course, title="Write minimax", seed="code",
        items=[{"kind": "code_minimax", "params": {}, "points": Decimal(3)}],
        feedback_policy="full",  # the report quotes the reference
    ))
    variant = variant_of_user(problem_set, student[0])
    reports = [
        {"test": "three-ply tree", "verdict": "time_limit", "score": 0.0, "max_score": 1.0,
         "messages": [], "misconceptions": []},
        {"test": "textbook tree", "verdict": "wrong", "score": 0.5, "max_score": 1.0,
         "messages": [{"code": "evaluated_differs",
                       "params": {"n": 2, "yours": "B2", "reference": "C1"}}],
         "misconceptions": ["no_pruning"]},
    ]
    Submission.objects.create(
        variant_item=VariantItem.objects.get(variant=variant), student=student[0],
        attempt_number=1, kind=Submission.Kind.CODE, source="pass",
        status=Submission.Status.GRADED, raw_score=Decimal("0.75"), score=Decimal("0.75"),
        max_score=Decimal(3), results=reports,
    )
    response = logged_in(student[0]).get(reverse("pages:item", args=[variant.pk, 1]),
                                         HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    page = response.content.decode()
    assert label in page and text in page
    assert "time_limit" not in page.replace('data-verdict="time_limit"', "")
    assert "evaluated_differs" not in page and "evaluated every leaf" not in page


def answered_item_page(instructor: Any, student: Any, course: Any, capture: Any,
                       **settings: Any) -> tuple[Client, str]:
    """Return the student's client and item page after an answer that prunes nothing (the
    search's cutoff skips a leaf it evaluates), graded inline."""
    from tests.pages.conftest import make_problem_set, publish_now

    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=3,
                                               **settings))
    variant = variant_of_user(problem_set, student[0])
    client = logged_in(student[0])
    url = reverse("pages:item", args=[variant.pk, 1])
    with capture(execute=True):
        client.post(url, {"answer-value": "99", "answer-evaluated_count": "0"})
    return client, client.get(url).content.decode()


@pytest.mark.parametrize(("policy", "shown"), [
    ("verdicts", "A cutoff skips a leaf you evaluated."),
    ("full", "happens before it at"),
])
def test_item_page_serves_feedback_under_the_policy(
    instructor: Any, student: Any, course: Any, celery_eager: None, policy: str, shown: str,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    client, page = answered_item_page(
        instructor, student, course, django_capture_on_commit_callbacks,
        feedback_policy=policy, due_at=timezone.now() + timedelta(days=1))
    assert f'data-feedback-policy="{policy}"' in page
    assert shown in page
    if policy == "verdicts":
        assert "happens before it at" not in page and "α=" not in page
    listing = client.get(reverse("pages:assignments")).content.decode()
    assert f'data-feedback-policy="{policy}"' in listing


def test_score_only_pages_show_the_score_alone(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, page = answered_item_page(instructor, student, course,
                                 django_capture_on_commit_callbacks, feedback_policy="score_only")
    assert 'id="attempt-score"' in page and 'class="feedback-part"' not in page
    assert "your score only" in page
