"""Admin pages to inspect submissions, score history, regrades and webhook deliveries."""

from django.contrib import admin

from grading.models import Regrade, ScoreChange, Submission, Webhook, WebhookDelivery


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Submissions, filterable by status and lateness."""

    list_display = ["id", "student", "variant_item", "attempt_number", "status", "score",
                    "max_score", "is_late", "created_at", "graded_at"]
    list_filter = ["status", "kind", "is_late"]
    search_fields = ["student__username"]
    raw_id_fields = ["variant_item", "student"]


@admin.register(ScoreChange)
class ScoreChangeAdmin(admin.ModelAdmin):
    """The history of regraded scores."""

    list_display = ["id", "submission", "old_score", "new_score", "regrade", "created_at"]
    raw_id_fields = ["submission", "regrade"]


@admin.register(Regrade)
class RegradeAdmin(admin.ModelAdmin):
    """Regrade runs and their reports."""

    list_display = ["id", "problem_set", "status", "created_at", "finished_at"]
    raw_id_fields = ["problem_set", "requested_by"]


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """Registered webhooks (secrets are not listed)."""

    list_display = ["id", "owner", "course", "url", "is_active", "created_at"]
    exclude = ["secret"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """Each event sent to a webhook with its attempts."""

    list_display = ["id", "webhook", "event_type", "status", "attempt_count", "created_at",
                    "delivered_at"]
    list_filter = ["status", "event_type"]
    raw_id_fields = ["webhook", "submission"]
