"""LTI 1.3 platforms, the links between their users, courses and resources and ours, line
items, the log of grade passbacks, and API clients with scoped tokens."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from accounts.models import Course


class ToolKey(models.Model):
    """An RSA key pair Cutoff signs LTI messages with; its public half is in our JWKS."""

    kid = models.CharField(max_length=64, unique=True)
    private_key_pem = models.TextField()
    public_key_pem = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when a rotation replaced it; our JWKS keeps it for a grace period",
    )

    def __str__(self) -> str:
        return self.kid


class Platform(models.Model):
    """An LMS registered with Cutoff: where to send users to log in, and which keys to trust.

    ``owner`` is the instructor who registered it; every course created for one of the
    platform's LMS courses has the owner as an instructor, so they can build problem sets
    there with their own token.
    """

    name = models.CharField(max_length=200)
    issuer = models.URLField(max_length=500, help_text="the platform's `iss` claim")
    client_id = models.CharField(max_length=255, help_text="the client id the platform gave us")
    deployment_ids = models.JSONField(default=list, help_text="deployment ids we accept")
    auth_login_url = models.URLField(max_length=500, help_text="OIDC authorization endpoint")
    auth_token_url = models.URLField(max_length=500, help_text="OAuth2 token endpoint (AGS, NRPS)")
    auth_audience = models.CharField(
        max_length=500, blank=True, help_text="`aud` for token requests when not the token URL"
    )
    key_set_url = models.URLField(max_length=500, help_text="the platform's JWKS URL")
    integer_score_maximum = models.BooleanField(
        default=False,
        help_text="the platform takes whole-number scoreMaximum only (Open edX): scores of a "
        "set worth e.g. 7.5 points are sent scaled exactly (15 of 15)",
    )
    tool_key = models.ForeignKey(ToolKey, on_delete=models.PROTECT, related_name="platforms")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="lti_platforms"
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "client_id"], name="one_platform_per_client")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.issuer}, {self.client_id})"


class LtiContext(models.Model):
    """An LMS course (LTI context) and the Cutoff course its members are enrolled in."""

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="contexts")
    context_id = models.CharField(max_length=255)
    title = models.CharField(max_length=255, blank=True)
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_contexts")
    memberships_url = models.URLField(
        max_length=500, blank=True, help_text="NRPS endpoint, when the platform offers it"
    )
    roster_synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "context_id"], name="one_context_per_id")
        ]

    def __str__(self) -> str:
        return f"{self.platform.name}: {self.title or self.context_id}"


class LtiUserLink(models.Model):
    """Which Cutoff account a platform user (its `sub`) is."""

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="user_links")
    subject = models.CharField(max_length=255, help_text="the platform's `sub` for the user")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lti_links"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "subject"], name="one_link_per_subject"),
            models.UniqueConstraint(fields=["platform", "user"], name="one_subject_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.platform.name}: {self.subject} → {self.user}"


class LtiResourceLink(models.Model):
    """A link placed in an LMS course that opens one problem set, and its grade service."""

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="resource_links")
    context = models.ForeignKey(LtiContext, on_delete=models.CASCADE, related_name="resource_links")
    resource_link_id = models.CharField(max_length=255)
    title = models.CharField(max_length=255, blank=True)
    problem_set = models.ForeignKey(
        "exercises.ProblemSet", on_delete=models.CASCADE, related_name="lti_resource_links"
    )
    ags_lineitems_url = models.URLField(max_length=500, blank=True)
    ags_scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "resource_link_id"], name="one_resource_link_per_id"
            )
        ]

    def __str__(self) -> str:
        return f"{self.platform.name}: {self.resource_link_id} → problem set {self.problem_set_id}"


class LineItem(models.Model):
    """The LMS gradebook column a resource link's scores are posted to."""

    resource_link = models.OneToOneField(
        LtiResourceLink, on_delete=models.CASCADE, related_name="line_item"
    )
    url = models.URLField(max_length=500)
    label = models.CharField(max_length=255, blank=True)
    score_maximum = models.DecimalField(max_digits=9, decimal_places=2, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.url


class ScorePassback(models.Model):
    """One attempt to send a student's problem-set score to an LMS line item, and its outcome.

    ``failed``: the LMS stayed unreachable (or failing) through every retry, or the task
    queue was unreachable when it was to be sent; the periodic sweep and the instructor may
    send it again. ``refused``: the LMS (or Cutoff, for a
    score it cannot send) said no, e.g. to a malformed score; sending it again would not
    help. ``superseded``: not sent because one of the student's answers on the set was
    still being graded (a score marked pending blanks Moodle's grade and Canvas ignores
    it); the passback that answer's grade (or error) makes carries the score.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        SENT = "sent"
        RETRYING = "retrying"
        FAILED = "failed"
        REFUSED = "refused"
        SUPERSEDED = "superseded"

    resource_link = models.ForeignKey(
        LtiResourceLink, on_delete=models.CASCADE, related_name="score_passbacks"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="score_passbacks"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    score_given = models.DecimalField(max_digits=9, decimal_places=3, null=True, blank=True)
    score_maximum = models.DecimalField(max_digits=9, decimal_places=3, null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.student} on {self.resource_link}: {self.status}"


class ApiClient(models.Model):
    """An LMS (or script) acting for its owner, limited to scopes; revocable.

    Only the token's sha256 is stored: the token itself is shown once, at creation.
    """

    class Scope(models.TextChoices):
        GRADES_READ = "grades:read", "Read grades"
        PROBLEM_SETS_WRITE = "problem_sets:write", "Create and publish problem sets"
        WEBHOOKS_WRITE = "webhooks:write", "Register webhooks"

    name = models.CharField(max_length=200)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_clients"
    )
    scopes = models.JSONField(default=list)
    token_prefix = models.CharField(max_length=16, help_text="first characters, to recognise it")
    token_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.token_prefix}…)"

    @property
    def is_revoked(self) -> bool:
        """Return whether the token has been revoked."""
        return self.revoked_at is not None
