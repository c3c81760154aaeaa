"""Problem sets, their items, and the per-student variants generated from them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from accounts.models import Course

MOST_ATTEMPTS = 1000
"""The most attempts a problem set may allow (null allows any number)."""


class ProblemSet(models.Model):
    """An instructor's problem set: items with params, generated once per enrolled student."""

    class Status(models.TextChoices):
        DRAFT = "draft"
        GENERATING = "generating"
        READY = "ready"
        FAILED = "failed"

    class LatePolicy(models.TextChoices):
        REFUSE = "refuse"
        PENALTY = "penalty"

    class ScorePolicy(models.TextChoices):
        BEST = "best"
        LAST = "last"

    class FeedbackPolicy(models.TextChoices):
        """What feedback students see while the answers are hidden (grading.feedback_policy)."""

        FULL = "full"
        VERDICTS = "verdicts"
        SCORE_ONLY = "score_only"

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="problem_sets")
    title = models.CharField(max_length=200)
    seed = models.CharField(max_length=64, help_text="instructor's seed; variants derive from it")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    failure_reason = models.TextField(blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    due_at = models.DateTimeField(null=True, blank=True)
    max_attempts = models.PositiveIntegerField(null=True, blank=True, help_text="null: unlimited")
    late_policy = models.CharField(
        max_length=16, choices=LatePolicy.choices, default=LatePolicy.REFUSE
    )
    late_penalty = models.DecimalField(
        max_digits=4, decimal_places=3, default=0, help_text="fraction of the score removed"
    )
    score_policy = models.CharField(
        max_length=8, choices=ScorePolicy.choices, default=ScorePolicy.BEST
    )
    feedback_policy = models.CharField(
        max_length=16, choices=FeedbackPolicy.choices, default=FeedbackPolicy.VERDICTS,
        help_text="feedback students see before the answers are visible",
    )
    time_limit_minutes = models.PositiveIntegerField(
        null=True, blank=True, help_text="per-attempt quiz time limit, from first opening"
    )
    published_at = models.DateTimeField(null=True, blank=True, help_text="last publication")
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text="archived: hidden from students, grades kept"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.course.slug}/{self.title}"


class Item(models.Model):
    """One exercise in a problem set: a kind, its params (conventions included) and points."""

    problem_set = models.ForeignKey(ProblemSet, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField(help_text="1-based; the n in /items/{n}/")
    kind = models.CharField(max_length=32)
    params = models.JSONField(default=dict, help_text="validated, with every default made explicit")
    points = models.DecimalField(max_digits=7, decimal_places=2, default=1)
    part_points = models.JSONField(default=dict, help_text="answer part name → points")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["problem_set", "position"], name="one_item_per_position"
            )
        ]


class Variant(models.Model):
    """One student's copy of a problem set (the API calls it an assignment)."""

    problem_set = models.ForeignKey(ProblemSet, on_delete=models.CASCADE, related_name="variants")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="variants"
    )
    seed = models.CharField(max_length=64, help_text="sha256-derived from set seed and student")
    opened_at = models.DateTimeField(null=True, blank=True, help_text="first opened (quiz clock)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["problem_set", "student"], name="one_variant_per_student"
            )
        ]


class VariantItem(models.Model):
    """A generated item of a variant: the problem shown and the answer key the engine computed."""

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="items")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="variant_items")
    position = models.PositiveIntegerField()
    seed = models.CharField(max_length=64)
    problem = models.JSONField(help_text="gametree/1 problem: tree and params")
    prompt = models.JSONField(default=dict, help_text="translatable prompt data")
    answer_key = models.JSONField(null=True, blank=True, help_text="engine's answer")
    trace = models.JSONField(null=True, blank=True, help_text="engine's trace, for feedback")
    engine_version = models.CharField(max_length=32, blank=True)
    generation_attempt = models.PositiveIntegerField(
        default=0, help_text="0-based attempt whose problem met the kind's quality constraints"
    )
    generated_at = models.DateTimeField(null=True, blank=True)
    keys_seen_at = models.DateTimeField(
        null=True, blank=True, help_text="when its student was first shown its answer key or "
        "its replay: from then on it takes no more of their attempts, whatever an extension "
        "or a change of the set's rules allows")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["variant", "position"], name="one_per_variant_position")
        ]


class Extension(models.Model):
    """One student's own rules for a problem set: a later due date, more attempts, more time.

    A null field keeps the set's rule; ``extra_attempts`` adds to the set's limit.
    """

    problem_set = models.ForeignKey(
        ProblemSet, on_delete=models.CASCADE, related_name="extensions"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="extensions"
    )
    due_at = models.DateTimeField(null=True, blank=True, help_text="null: the set's due date")
    extra_attempts = models.PositiveIntegerField(default=0)
    time_limit_minutes = models.PositiveIntegerField(
        null=True, blank=True, help_text="null: the set's time limit"
    )
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["student__username"]
        constraints = [
            models.UniqueConstraint(
                fields=["problem_set", "student"], name="one_extension_per_student"
            )
        ]
