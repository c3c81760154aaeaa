"""Names and Role Provisioning (roster sync), platform registration and the LTI API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import Enrollment, Role, User
from lms.models import LtiContext, LtiUserLink, Platform
from tests.conftest import make_account
from tests.lms.conftest import launch
from tests.lms.simulator import ROLE, PlatformSimulator
from tests.lms.test_launch import bind_link

pytestmark = pytest.mark.django_db


def member(user_id: str, role: str, status: str = "Active") -> dict[str, Any]:
    """Return an NRPS member entry."""
    return {
        "user_id": user_id,
        "roles": [ROLE + role],
        "status": status,
        "given_name": user_id.title(),
        "family_name": "Member",
        "email": f"{user_id}@lms.example.edu",
    }


ROSTER = [
    member("ana", "Learner"),
    member("bo", "Learner"),
    member("carla", "Instructor"),
    member("dropped", "Learner", status="Inactive"),
    member("mentor", "Mentor"),
]


def test_an_instructor_launch_syncs_the_roster_over_every_page(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    simulator.members = ROSTER
    link = bind_link(platform, simulator, instructor[0])
    with django_capture_on_commit_callbacks(execute=True):
        response = launch(
            Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"], with_nrps=True
        )
    assert response.status_code == 200 and b"roster is being synced" in response.content
    assert simulator.roster_requests == 3  # pages of two
    context = LtiContext.objects.get(platform=platform)
    assert context.roster_synced_at is not None
    roles = {
        link.subject: Enrollment.objects.get(user=link.user, course=context.course).role
        for link in LtiUserLink.objects.filter(subject__in=["ana", "bo", "carla"])
    }
    assert roles == {"ana": Role.STUDENT, "bo": Role.STUDENT, "carla": Role.INSTRUCTOR}
    assert not LtiUserLink.objects.filter(subject__in=["dropped", "mentor"]).exists()
    assert LtiUserLink.objects.get(subject="ana").user.email == "ana@lms.example.edu"

    # A member synced first and launching later is the same account.
    launch(Client(), simulator, "ana", ["Learner"], custom=link["custom"])
    assert LtiUserLink.objects.filter(subject="ana").count() == 1

    # Instructors launch often: the roster is not fetched again right away.
    with django_capture_on_commit_callbacks(execute=True):
        again = launch(
            Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"], with_nrps=True
        )
    assert b"roster is being synced" not in again.content
    assert simulator.roster_requests == 3


@pytest.mark.parametrize("page_links", ["bare", "tokens"])
def test_every_page_of_the_roster_is_read_however_the_link_header_names_it(
    simulator: PlatformSimulator, platform: Any, instructor: Any, celery_eager: None,
    page_links: str,
) -> None:
    from lms.services import sync_roster

    link = bind_link(platform, simulator, instructor[0])
    launch(Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"], with_nrps=True)
    context = LtiContext.objects.get()
    simulator.members = [member(f"learner{n}", "Learner") for n in range(6)]
    assert sync_roster(context=context).enrolled == 6
    # Read as rel=next with a title before it, or with case-sensitive page tokens (pylti1p3
    # found neither: the sync stopped at page one, then unenrolled the other four).
    simulator.page_links = page_links
    result = sync_roster(context=context)
    assert (result.enrolled, result.unenrolled) == (6, 0)
    assert simulator.roster_requests >= 3 + 3


def test_roster_sync_on_demand(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    other_instructor: Any,
    celery_eager: None,
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    launch(Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"])
    context = LtiContext.objects.get()
    _, client = instructor
    response = client.post(f"/api/v1/lti/contexts/{context.pk}/roster-sync/")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "roster_service_unavailable"

    launch(Client(), simulator, "learner-9", ["Learner"], custom=link["custom"], with_nrps=True)
    simulator.members = ROSTER[:2]
    response = client.post(f"/api/v1/lti/contexts/{context.pk}/roster-sync/")
    assert response.status_code == 202, response.content
    assert set(context.course.enrollments.values_list("user__lti_links__subject", flat=True)) >= {
        "ana",
        "bo",
    }
    listed = client.get("/api/v1/lti/contexts/").json()
    assert listed[0]["has_roster_service"] and listed[0]["roster_synced_at"]
    _, other = other_instructor
    assert other.post(f"/api/v1/lti/contexts/{context.pk}/roster-sync/").status_code == 404
    assert other.get("/api/v1/lti/contexts/").json() == []

    # Later syncs reuse the access token; one the platform revoked is replaced.
    tokens_before = len(simulator.token_requests)
    simulator.members = ROSTER[:3]
    assert client.post(f"/api/v1/lti/contexts/{context.pk}/roster-sync/").status_code == 202
    assert len(simulator.token_requests) == tokens_before
    simulator.revoke_tokens()
    assert client.post(f"/api/v1/lti/contexts/{context.pk}/roster-sync/").status_code == 202
    assert len(simulator.token_requests) == tokens_before + 1


def test_roster_sync_survives_a_platform_that_refuses(
    simulator: PlatformSimulator, platform: Any, instructor: Any, celery_eager: None
) -> None:
    from lms.tasks import sync_roster_task

    link = bind_link(platform, simulator, instructor[0])
    launch(Client(), simulator, "t", ["Instructor"], custom=link["custom"], with_nrps=True)
    context = LtiContext.objects.get()
    context.memberships_url = simulator.url("/nowhere/memberships-gone")
    context.save()
    sync_roster_task.delay(context.pk)  # a 404 from the platform is logged, not raised
    assert LtiContext.objects.get().roster_synced_at is None


# --- platform registration -----------------------------------------------------------------


def test_an_instructor_registers_a_platform_and_gets_the_tool_configuration(
    simulator: PlatformSimulator, instructor: Any
) -> None:
    _, client = instructor
    response = client.post("/api/v1/lti/platforms/create/", simulator.registration(), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["issuer"] == simulator.issuer and body["is_active"]
    tool = body["tool"]
    assert tool["login_url"] == "http://testserver/lti/login/"
    assert tool["launch_url"] == tool["deep_linking_url"] == "http://testserver/lti/launch/"
    assert tool["jwks_url"] == "http://testserver/lti/jwks/"
    jwks = Client().get("/lti/jwks/").json()
    assert tool["kid"] in [key["kid"] for key in jwks["keys"]]

    again = client.post("/api/v1/lti/platforms/create/", simulator.registration(), format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert [p["id"] for p in client.get("/api/v1/lti/platforms/").json()] == [body["id"]]


def test_platform_registration_is_validated_and_for_instructors(
    simulator: PlatformSimulator, instructor: Any, student: Any
) -> None:
    _, student_client = student
    response = student_client.post(
        "/api/v1/lti/platforms/create/", simulator.registration(), format="json"
    )
    assert response.status_code == 403
    _, client = instructor
    bad = {**simulator.registration(), "key_set_url": "not a url", "deployment_ids": []}
    response = client.post("/api/v1/lti/platforms/create/", bad, format="json")
    assert response.status_code == 400
    assert {"key_set_url", "deployment_ids"} <= set(response.json()["error"]["details"])


def test_deactivating_a_platform_drops_its_key_from_the_jwks(
    simulator: PlatformSimulator, platform: Any, instructor: Any, other_instructor: Any
) -> None:
    _, other = other_instructor
    assert other.post(f"/api/v1/lti/platforms/{platform.pk}/deactivate/").status_code == 404
    _, client = instructor
    response = client.post(f"/api/v1/lti/platforms/{platform.pk}/deactivate/")
    assert response.status_code == 200 and response.json()["is_active"] is False
    assert Client().get("/lti/jwks/").json() == {"keys": []}
    assert not Platform.objects.get().is_active


def test_an_admin_registers_a_platform_with_its_own_key(
    simulator: PlatformSimulator, instructor: Any
) -> None:
    from accounts.models import User

    admin = User.objects.create_superuser("root", "root@example.edu", "pw")
    browser = Client()
    browser.force_login(admin)
    form = {
        **simulator.registration(),
        "deployment_ids": '["deployment-1"]',
        "owner": instructor[0].pk,
        "auth_audience": "",
        "is_active": "on",
    }
    response = browser.post("/admin/lti/platform/add/", form)
    assert response.status_code == 302, response.content
    platform = Platform.objects.get()
    assert platform.tool_key.kid in [k["kid"] for k in Client().get("/lti/jwks/").json()["keys"]]
    assert browser.get(f"/admin/lti/platform/{platform.pk}/change/").status_code == 200


def test_an_admin_revokes_api_clients(instructor: Any) -> None:
    from accounts.models import User
    from lms.clients import create_api_client
    from lms.models import ApiClient

    client, _ = create_api_client(owner=instructor[0], name="LMS", scopes=["grades:read"])
    admin = User.objects.create_superuser("root", "root@example.edu", "pw")
    browser = Client()
    browser.force_login(admin)
    assert browser.get("/admin/lti/apiclient/add/").status_code == 403
    response = browser.post(
        "/admin/lti/apiclient/", {"action": "revoke", "_selected_action": [client.pk]}
    )
    assert response.status_code == 302
    assert ApiClient.objects.get().revoked_at is not None


def test_a_roster_sync_generates_the_newcomers_variants_of_published_sets(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from exercises.models import ProblemSet, Variant

    simulator.members = ROSTER[:3]
    link = bind_link(platform, simulator, instructor[0])
    ProblemSet.objects.filter(pk=link["problem_set"].pk).update(status=ProblemSet.Status.READY)
    with django_capture_on_commit_callbacks(execute=True):
        launch(
            Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"], with_nrps=True
        )
    students = set(
        Variant.objects.filter(problem_set=link["problem_set"]).values_list(
            "student__lti_links__subject", flat=True
        )
    )
    assert students == {"ana", "bo"}


def test_a_sync_unenrols_students_who_left_the_lms_course_and_keeps_their_work(
    simulator: PlatformSimulator, platform: Any, instructor: Any, celery_eager: None
) -> None:
    from lms.services import sync_roster

    link = bind_link(platform, simulator, instructor[0])
    launch(Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"], with_nrps=True)
    context = LtiContext.objects.get()
    local_student = make_account("walk-in", "student", context.course)[0]
    simulator.members = [member("ana", "Learner"), member("bo", "Learner"),
                         member("dropped", "Learner"), member("carla", "Instructor")]
    assert sync_roster(context=context).unenrolled == 0

    def enrolled() -> set[str]:
        return set(context.course.enrollments.values_list("user__username", flat=True))

    usernames = {link.subject: link.user.username for link in LtiUserLink.objects.all()}
    assert {usernames[s] for s in ("ana", "bo", "dropped", "carla")} <= enrolled()
    # "dropped" is now inactive, "bo" left the course, the instructor too.
    simulator.members = [member("ana", "Learner"), member("dropped", "Learner", "Inactive")]
    result = sync_roster(context=context)
    assert (result.enrolled, result.skipped, result.unenrolled) == (1, 1, 2)
    left = enrolled()
    assert usernames["ana"] in left and usernames["carla"] in left
    assert usernames["bo"] not in left and usernames["dropped"] not in left
    # Accounts made outside the LMS, and the platform owner, are not the roster's to manage.
    assert local_student.username in left and instructor[0].username in left
    assert User.objects.filter(username=usernames["bo"]).exists()

    # An LMS answering with nobody active unenrols nobody.
    simulator.members = []
    assert sync_roster(context=context).unenrolled == 0
    assert usernames["ana"] in enrolled()


def test_an_instructor_launch_while_the_broker_is_down_still_opens(
    simulator: PlatformSimulator,
    platform: Any,
    instructor: Any,
    django_capture_on_commit_callbacks: Any,
    broker_refuses: Callable[..., None],
) -> None:
    # The roster sync was published in a bare on_commit: the launch answered 500.
    from lms.tasks import sync_roster_task

    broker_refuses(sync_roster_task)
    simulator.members = ROSTER
    link = bind_link(platform, simulator, instructor[0])
    with django_capture_on_commit_callbacks(execute=True):
        response = launch(
            Client(), simulator, "teacher-1", ["Instructor"], custom=link["custom"], with_nrps=True
        )
    assert response.status_code == 200
    # Not synced, so still due: the next launch queues it again.
    assert LtiContext.objects.get(platform=platform).roster_synced_at is None
