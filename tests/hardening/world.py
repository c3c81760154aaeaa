"""A small classroom with one of every object the API exposes, for the hardening tests.

Two courses (each with its instructor), two students of the first course, a ready problem set
with a typed-answer item and a code item, both students' variants, a graded submission and a
code submission of the owner (the latter with an open regrade request), a regrade, a webhook
with a delivery, an LMS platform with a course context and a passback, and API clients of the
instructor with and without scopes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from accounts.models import Course, Role
from accounts.services import create_account, enroll
from exercises.generation import generate_item, item_seed, variant_seed
from exercises.kinds import get_kind
from exercises.models import Item, ProblemSet, Variant, VariantItem
from exercises.services import split_points
from grading import services as grading_services
from grading.models import (
    CodeCheck,
    Regrade,
    RegradeRequest,
    Submission,
    Webhook,
    WebhookDelivery,
)
from lms.clients import create_api_client
from lms.models import ApiClient, LtiContext, LtiResourceLink, ScorePassback
from lms.services import register_platform

TYPED_POSITION = 1
CODE_POSITION = 2
PERSONAS = ("anonymous", "owner", "classmate", "instructor", "outsider", "lms", "lms_unscoped")
"""Who asks: nobody; the student whose objects they are; another student of the course; the
course's instructor; another course's instructor; an LMS client of the instructor with every
scope; the same instructor's LMS client with every scope but the one the endpoint needs."""


@dataclass
class World:
    """Hold the ids of the objects and the Authorization header of each persona."""

    ids: dict[str, int] = field(default_factory=dict)
    authorization: dict[str, str] = field(default_factory=dict)
    key_of_owner: dict[str, Any] = field(default_factory=dict)
    token_lacking: dict[str, str] = field(default_factory=dict)

    def lms_without(self, scope: str) -> str:
        """Return the Authorization header of the instructor's client with every scope but
        ``scope``."""
        return f"Bearer {self.token_lacking[scope]}"


def _variant(problem_set: ProblemSet, student: Any) -> Variant:
    variant = Variant.objects.create(
        problem_set=problem_set, student=student,
        seed=variant_seed(problem_set.seed, student.pk),
    )
    for item in problem_set.items.all():
        seed = item_seed(problem_set.seed, student.pk, item.position)
        generated = generate_item(item.kind, item.params, seed)
        VariantItem.objects.create(
            variant=variant, item=item, position=item.position, seed=seed,
            problem=generated.problem, prompt=generated.prompt,
            answer_key=generated.answer_key, trace=generated.trace,
            engine_version=generated.engine_version,
        )
    return variant


def _item(problem_set: ProblemSet, position: int, kind: str, points: str) -> Item:
    params = get_kind(kind).clean_params({})
    return Item.objects.create(
        problem_set=problem_set, position=position, kind=kind, params=params,
        points=Decimal(points), part_points=split_points(kind, params, Decimal(points)),
    )


def build_world(**problem_set_settings: Any) -> World:
    """Create the classroom and return the ids and credentials the tests address it by."""
    world = World()
    course = Course.objects.create(slug="search-101", title="Adversarial search")
    other_course = Course.objects.create(slug="other-101", title="Another course")
    instructor, instructor_token = create_account(
        username="ines", role="instructor", course=course
    )
    _, outsider_token = create_account(username="otto", role="instructor", course=other_course)
    owner, owner_token = create_account(username="sara", role="student", course=course)
    classmate, classmate_token = create_account(username="tomas", role="student", course=course)
    # A teaching assistant from the LMS: a student account with the course role grader.
    grader, grader_token = create_account(username="gita", role="student")
    enroll(course=course, user=grader, role=Role.GRADER)

    problem_set = ProblemSet.objects.create(
        course=course, title="Week 3", seed="hardening", created_by=instructor,
        status=ProblemSet.Status.READY, max_attempts=5, **problem_set_settings,
    )
    _item(problem_set, TYPED_POSITION, "alphabeta", "4")
    _item(problem_set, CODE_POSITION, "code_minimax", "3")
    variant = _variant(problem_set, owner)
    classmate_variant = _variant(problem_set, classmate)
    typed_item = variant.items.get(position=TYPED_POSITION)
    world.key_of_owner = dict(typed_item.answer_key)

    submission = Submission.objects.create(
        variant_item=typed_item, student=owner, attempt_number=1,
        kind=Submission.Kind.ANSWER, answer=dict(typed_item.answer_key),
    )
    grading_services.grade_submission(submission.pk)
    code_submission = Submission.objects.create(
        variant_item=variant.items.get(position=CODE_POSITION), student=owner,
        attempt_number=1, kind=Submission.Kind.CODE, source="def f():\n    return 1\n",
    )
    # Made an hour ago, so the owner's check in the matrix is within the rate limits.
    code_check = CodeCheck.objects.create(
        variant_item=variant.items.get(position=CODE_POSITION), student=owner,
        source="def f():\n    return 1\n", created_at=timezone.now() - timedelta(hours=1),
    )
    regrade = Regrade.objects.create(problem_set=problem_set, requested_by=instructor)
    # On the code submission, so the owner may still ask about the typed one.
    regrade_request = RegradeRequest.objects.create(
        submission=code_submission, student=owner, message="Please run my tests again."
    )
    webhook = Webhook.objects.create(owner=instructor, url="http://127.0.0.1:9/hook",
                                     course=course)
    WebhookDelivery.objects.create(webhook=webhook, event_type="submission.graded",
                                   submission=submission, payload={"id": "x"})
    platform = register_platform(
        owner=instructor, name="Moodle", issuer="https://lms.invalid",
        client_id="cutoff", deployment_ids=["1"],
        auth_login_url="https://lms.invalid/auth", auth_token_url="https://lms.invalid/token",
        key_set_url="https://lms.invalid/jwks",
    )
    context = LtiContext.objects.create(
        platform=platform, context_id="ctx-1", title="Search", course=course,
        memberships_url="https://lms.invalid/memberships",
    )
    link = LtiResourceLink.objects.create(
        platform=platform, context=context, resource_link_id="rl-1", problem_set=problem_set
    )
    passback = ScorePassback.objects.create(
        resource_link=link, student=owner, status=ScorePassback.Status.FAILED
    )
    _, lms_token = create_api_client(owner=instructor, name="LMS",
                                     scopes=list(ApiClient.Scope.values))
    for missing in ApiClient.Scope.values:
        _, world.token_lacking[missing] = create_api_client(
            owner=instructor, name=f"LMS without {missing}",
            scopes=[scope for scope in ApiClient.Scope.values if scope != missing],
        )
    spare_client, _ = create_api_client(owner=instructor, name="spare",
                                        scopes=[ApiClient.Scope.GRADES_READ])

    world.ids = {
        "course_id": course.pk, "other_course_id": other_course.pk,
        "problem_set_id": problem_set.pk, "variant_id": variant.pk,
        "classmate_variant_id": classmate_variant.pk,
        "submission_id": submission.pk, "code_submission_id": code_submission.pk,
        "code_check_id": code_check.pk,
        "regrade_id": regrade.pk, "regrade_request_id": regrade_request.pk,
        "webhook_id": webhook.pk, "platform_id": platform.pk,
        "context_id": context.pk, "client_id": spare_client.pk, "passback_id": passback.pk,
    }
    world.authorization = {
        "anonymous": "",
        "owner": f"Token {owner_token}",
        "classmate": f"Token {classmate_token}",
        "instructor": f"Token {instructor_token}",
        "outsider": f"Token {outsider_token}",
        "lms": f"Bearer {lms_token}",
        "grader": f"Token {grader_token}",
    }
    return world
