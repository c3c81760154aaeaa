"""Grading: submissions, grading, feedback, webhooks and the code sandbox."""

from django.apps import AppConfig


class GradingConfig(AppConfig):
    """Register the grading app."""

    name = "grading"
    default_auto_field = "django.db.models.BigAutoField"
