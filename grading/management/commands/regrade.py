"""``manage.py regrade --problem-set ID``: recompute keys, regrade, print the report."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from exercises.models import ProblemSet
from grading.services import request_regrade, run_regrade


class Command(BaseCommand):
    """Regrade a problem set here (or on a worker with --enqueue) and print what changed."""

    help = (
        "Recompute a problem set's answer keys with the engine under its items' current "
        "conventions and points, regrade every graded submission (old scores are kept) "
        "and print the report as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare --problem-set and --enqueue."""
        parser.add_argument("--problem-set", type=int, required=True, dest="problem_set")
        parser.add_argument(
            "--enqueue", action="store_true",
            help="run it on a Celery worker and print only the regrade's id",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Run the regrade and print its report."""
        problem_set = ProblemSet.objects.filter(pk=options["problem_set"]).first()
        if problem_set is None:
            raise CommandError(f"no problem set with id {options['problem_set']}")
        regrade = request_regrade(problem_set, requested_by=None, enqueue=options["enqueue"])
        if options["enqueue"]:
            self.stdout.write(json.dumps({"regrade": regrade.pk, "status": regrade.status}))
            return
        regrade = run_regrade(regrade.pk)
        self.stdout.write(json.dumps({"regrade": regrade.pk, **regrade.report}, indent=2))
