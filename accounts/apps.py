"""Accounts: users with roles, courses and enrolments, API tokens."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Register the accounts app."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
