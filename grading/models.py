"""Submissions and their grades, drafts, score history, regrade runs, webhooks, deliveries."""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import Course
from exercises.models import ProblemSet, VariantItem


class Submission(models.Model):
    """One attempt at one item of a student's variant, stored before it is graded.

    ``answer`` holds a typed answer (part name → value); ``source`` holds the Python code of a
    code submission. Both are graded on a worker; the row is the task's only state, so a
    redelivered task finds it and never grades it twice.
    """

    class Kind(models.TextChoices):
        ANSWER = "answer"
        CODE = "code"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        GRADED = "graded"
        ERROR = "error"

    variant_item = models.ForeignKey(
        VariantItem, on_delete=models.CASCADE, related_name="submissions"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    attempt_number = models.PositiveIntegerField(help_text="1-based, per variant item")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.ANSWER)
    answer = models.JSONField(null=True, blank=True, help_text="part name → answer value")
    source = models.TextField(blank=True, help_text="Python source of a code submission")
    idempotency_key = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    error_code = models.CharField(max_length=64, blank=True)
    raw_score = models.DecimalField(max_digits=9, decimal_places=4, null=True, blank=True)
    score = models.DecimalField(
        max_digits=9, decimal_places=4, null=True, blank=True, help_text="after any late penalty"
    )
    max_score = models.DecimalField(max_digits=9, decimal_places=4, null=True, blank=True)
    results = models.JSONField(
        default=list, blank=True, help_text="per-part results and feedback (grading.feedback)"
    )
    is_late = models.BooleanField(default=False)
    overridden = models.BooleanField(
        default=False, help_text="score set by hand: regrades keep it (history in ScoreChange)"
    )
    late_penalty = models.DecimalField(
        max_digits=4, decimal_places=3, default=0, help_text="fraction of the score removed"
    )
    graded_engine_version = models.CharField(max_length=32, blank=True)
    enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="null: the broker has not accepted the task yet"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    graded_at = models.DateTimeField(null=True, blank=True)
    grading_runs = models.PositiveIntegerField(
        default=0, help_text="times a worker started grading it (more than 1: a task was "
        "delivered again, e.g. after its worker was lost)")
    host_retries = models.PositiveIntegerField(
        default=0, help_text="times a code submission was queued again because the host "
        "failed its run (too busy to time it fairly, or killed it): CUTOFF_CODE_BUSY_RETRIES")
    grades_recorded = models.PositiveIntegerField(
        default=0, help_text="times a first grade was recorded: 1 once graded, never more "
        "(regrades replace the grade in place and do not count)")

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["variant_item", "attempt_number"], name="one_submission_per_attempt"
            ),
            models.UniqueConstraint(
                fields=["student", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="one_submission_per_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["status", "enqueued_at"], name="submission_outbox")]

    def __str__(self) -> str:
        return f"submission {self.pk} ({self.status})"


class Draft(models.Model):
    """A student's unsent answer to one item, saved as they type: never graded.

    ``answer`` holds part name → value as typed (not checked beyond its shape, so a half-typed
    "7/" survives), or ``{"source": ...}`` for a code item. One draft per item.
    """

    variant_item = models.ForeignKey(VariantItem, on_delete=models.CASCADE, related_name="drafts")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts"
    )
    answer = models.JSONField(help_text="part name → value as typed, or {source} for code")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["variant_item", "student"], name="one_draft_per_item")
        ]

    def __str__(self) -> str:
        return f"draft of {self.student_id} on item {self.variant_item_id}"


class Regrade(models.Model):
    """One regrade run of a problem set: keys recomputed, submissions regraded, a report."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    problem_set = models.ForeignKey(ProblemSet, on_delete=models.CASCADE, related_name="regrades")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    report = models.JSONField(default=dict, blank=True)
    failure_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)


class ScoreChange(models.Model):
    """A submission's score before and after a regrade or an override: its score history."""

    class Source(models.TextChoices):
        REGRADE = "regrade"
        OVERRIDE = "override"

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="score_changes"
    )
    regrade = models.ForeignKey(
        Regrade, on_delete=models.SET_NULL, null=True, blank=True, related_name="score_changes"
    )
    old_score = models.DecimalField(max_digits=9, decimal_places=4, null=True)
    new_score = models.DecimalField(max_digits=9, decimal_places=4, null=True)
    old_max_score = models.DecimalField(max_digits=9, decimal_places=4, null=True)
    new_max_score = models.DecimalField(max_digits=9, decimal_places=4, null=True)
    old_results = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.REGRADE)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", help_text="the instructor who overrode the score",
    )
    reason = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class RegradeRequest(models.Model):
    """A student's request that an instructor look again at one of their submissions."""

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="regrade_requests"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="regrade_requests"
    )
    message = models.TextField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    reply = models.TextField(blank=True, help_text="the instructor's answer, shown to the student")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    score_change = models.ForeignKey(
        ScoreChange, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="the override made when resolving, if any",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission"], condition=models.Q(status="open"),
                name="one_open_regrade_request_per_submission",
            )
        ]


def new_webhook_secret() -> str:
    """Return a fresh random signing secret for a webhook."""
    return "whsec_" + secrets.token_urlsafe(32)


class Webhook(models.Model):
    """A URL an instructor or LMS client registered to hear about graded submissions."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    course = models.ForeignKey(
        Course,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="webhooks",
        help_text="null: every course the owner teaches",
    )
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=100, default=new_webhook_secret)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class WebhookDelivery(models.Model):
    """One event sent (or being sent) to one webhook, with a log of every attempt."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.UUIDField(default=uuid.uuid4, editable=False)
    event_type = models.CharField(max_length=64)
    submission = models.ForeignKey(
        Submission, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    attempts = models.JSONField(
        default=list, blank=True, help_text="[{at, status_code, error, duration_ms}] per attempt"
    )
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["webhook", "event_id"], name="one_delivery_per_event")
        ]


class WorkerHeartbeat(models.Model):
    """A Celery worker process's sign of life: when it last beat and which submissions it
    holds (running, prefetched or waiting for their ETA).

    Written by ``config.heartbeat``; ``/healthz`` counts the recent ones, and the stale-work
    sweep sends again the submissions of a worker whose heartbeat stopped (it was killed).
    """

    name = models.CharField(max_length=255, unique=True, help_text="node name and process id")
    beat_at = models.DateTimeField(db_index=True)
    broker_connected = models.BooleanField(default=False)
    holding = models.JSONField(default=list, blank=True, help_text="ids of submissions held")

    def __str__(self) -> str:
        return f"{self.name} at {self.beat_at:%H:%M:%S}"


class CodeCheck(models.Model):
    """One "check" run of a student's code on a code item's public example tests.

    A check uses no attempt and never counts in a grade: it runs the item's public example
    test only (:func:`grading.code.grader.check_code`), which the starter file names anyway,
    and keeps what the student's code printed (bounded by ``CUTOFF_CODE_CHECK_OUTPUT_BYTES``).
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        ERROR = "error"

    variant_item = models.ForeignKey(
        VariantItem, on_delete=models.CASCADE, related_name="code_checks"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="code_checks"
    )
    source = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    results = models.JSONField(default=list, blank=True, help_text="one report per public test")
    stdout = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    stdout_truncated = models.BooleanField(default=False)
    stderr_truncated = models.BooleanField(default=False)
    wall_seconds = models.FloatField(null=True, blank=True)
    error_code = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["student", "created_at"], name="code_check_rate")]
