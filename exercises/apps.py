"""Exercises: exercise kinds, generation, problem sets and per-student variants."""

from django.apps import AppConfig


class ExercisesConfig(AppConfig):
    """Register the exercises app."""

    name = "exercises"
    default_auto_field = "django.db.models.BigAutoField"
