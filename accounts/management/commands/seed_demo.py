"""``manage.py seed_demo``: create the demo course, instructor and student; print their tokens."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.models import Course, Role
from accounts.services import create_account

DEMO_PASSWORD = "cutoff-demo"


class Command(BaseCommand):
    """Create (idempotently) a demo course with one instructor and one student."""

    help = "Create the demo course, instructor and student (idempotent) and print their tokens."

    def handle(self, *args: Any, **options: Any) -> None:
        """Create the demo accounts and print their usernames, password and API tokens."""
        course, _ = Course.objects.get_or_create(slug="demo", defaults={"title": "Demo course"})
        demo = (("demo-instructor", Role.INSTRUCTOR), ("demo-student", Role.STUDENT))
        for username, role in demo:
            _, token = create_account(
                username=username, role=role, password=DEMO_PASSWORD, course=course
            )
            self.stdout.write(
                f"{role:<10} username={username} password={DEMO_PASSWORD} token={token}"
            )
