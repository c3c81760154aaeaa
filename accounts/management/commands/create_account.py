"""``manage.py create_account``: create an account (optionally enrolled) and print its token."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import ACCOUNT_ROLES, Course
from accounts.services import create_account
from config.api import ApiError


class Command(BaseCommand):
    """Create or update an account and print its API token on stdout."""

    help = "Create an account with a role (optionally in a course) and print its API token."

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare --username, --role, --course and --password."""
        parser.add_argument("--username", required=True)
        parser.add_argument("--role", required=True, choices=[role.value for role in ACCOUNT_ROLES])
        parser.add_argument("--course", help="slug of a course to enrol in (created if missing)")
        parser.add_argument("--password", help="also set a password for the web pages")

    def handle(self, *args: Any, **options: Any) -> None:
        """Create the account and print its token (only the token, for scripts)."""
        course = None
        if options["course"]:
            course, _ = Course.objects.get_or_create(
                slug=options["course"], defaults={"title": options["course"]}
            )
        try:
            _, token = create_account(
                username=options["username"],
                role=options["role"],
                password=options["password"],
                course=course,
            )
        except ApiError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(token)
