"""Tasks sent by name (the outbox sweep sends code runs that way) must exist and be routed."""

from __future__ import annotations

from config.celery_app import app
from grading.services import CODE_SUBMISSION_TASK


def test_the_sweep_sends_code_runs_to_a_registered_task_on_the_sandbox_queue() -> None:
    app.loader.import_default_modules()
    assert CODE_SUBMISSION_TASK in app.tasks
    route = app.amqp.router.route({}, CODE_SUBMISSION_TASK)
    assert route["queue"].name == "sandbox"
