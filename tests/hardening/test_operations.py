"""Operations: every log line of the production web tier and workers says which request or task
it belongs to (JSON, one object per line), and the request id is echoed to the client."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from typing import Any

import pytest
import requests
from django.utils import timezone

from grading.models import Submission
from tests.conftest import REPO
from tests.hardening.conftest import HTTPS, PrivateRedis, Processes, Service, poll
from tests.hardening.test_faults import production_env
from tests.hardening.world import TYPED_POSITION, World, build_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def json_lines(service: Service) -> list[dict[str, Any]]:
    """Return the log lines of ``service`` that are JSON objects."""
    records = []
    for line in service.log().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def test_request_ids_are_echoed_and_on_the_log_lines_of_the_request(
    private_redis: PrivateRedis, processes: Processes
) -> None:
    world: World = build_world()
    web = processes.web(production_env(private_redis))
    headers = {**HTTPS, "Authorization": world.authorization["owner"]}
    chosen = requests.get(f"{web.base_url}/api/v1/assignments/",
                          headers={**headers, "X-Request-ID": "ops-check-42"}, timeout=30)
    assert chosen.headers["X-Request-ID"] == "ops-check-42"
    unsafe = requests.get(f"{web.base_url}/api/v1/assignments/",
                          headers={**headers, "X-Request-ID": "a b\u00e9" * 30}, timeout=30)
    assert len(unsafe.headers["X-Request-ID"]) == 32  # replaced by a fresh id
    # A refused submission logs a warning inside the request.
    requests.post(
        f"{web.base_url}/api/v1/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}"
        "/submissions/", json={"answer": {"nope": 1}},
        headers={**headers, "X-Request-ID": "ops-check-43"}, timeout=30,
    )
    poll(lambda: any(r["request_id"] == "ops-check-43" for r in json_lines(web)), 10, web.log())
    records = json_lines(web)
    refused = [r for r in records if r["request_id"] == "ops-check-43"]
    path = f"/api/v1/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}/submissions/"
    assert [r["message"] for r in refused if r["logger"] == "django.request"] == [
        f"Bad Request: {path}"
    ]
    [access] = [r for r in refused if r["logger"] == "cutoff.request"]
    assert access["message"].startswith(f"POST {path} 400 ")
    assert all(r["task_id"] == "-" for r in refused)
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)


def test_task_ids_are_on_the_log_lines_of_the_task(
    private_redis: PrivateRedis, processes: Processes
) -> None:
    world: World = build_world()
    deployment = production_env(private_redis)
    worker = processes.worker("ops", deployment)
    Submission.objects.filter(pk=world.ids["submission_id"]).update(
        status=Submission.Status.QUEUED, enqueued_at=None,
        created_at=timezone.now() - timedelta(minutes=1),
    )
    sent = subprocess.run(
        [sys.executable, "-c",
         "from config.celery_app import app; "
         "app.send_task('grading.tasks.requeue_stale_submissions', task_id='ops-task-7')"],
        cwd=REPO, env={**os.environ, **deployment}, capture_output=True, text=True, timeout=60,
    )
    assert sent.returncode == 0, sent.stderr

    def sweep_lines() -> list[dict[str, Any]]:
        # The sweep names the submissions it sent (others of the classroom may be among them).
        pattern = re.compile(r"requeued stale submissions \[([\d, ]*)\]")
        return [r for r in json_lines(worker)
                if (found := pattern.fullmatch(r["message"]))
                and world.ids["submission_id"] in [int(i) for i in found[1].split(",")]]

    poll(sweep_lines, 30, worker.log())
    [line] = sweep_lines()
    assert line["task_id"] == "ops-task-7" and line["request_id"] == "-"
