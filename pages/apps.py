"""The server-rendered web pages for students and instructors."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    """Register the pages app (templates, static files, template tags)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "pages"
