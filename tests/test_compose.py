"""docker-compose.yml cannot run here (no Docker engine), so check it statically."""

from __future__ import annotations

import importlib
import re
import shlex

import yaml
from django.conf import settings

from config.settings.env import ENV_VARS
from tests.conftest import REPO

COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
# Variables read by the third-party images, not by Cutoff's settings.
IMAGE_VARS = {"POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD", "HOSTNAME"}


def command_words(service: dict) -> list[str]:
    command = service.get("command", "")
    words = shlex.split(command if isinstance(command, str) else " ".join(command))
    if words[:2] == ["sh", "-c"]:
        words = shlex.split(words[2].replace("&&", " "))
    return words


def test_the_stack_has_every_service_with_a_health_check() -> None:
    assert set(SERVICES) == {"web", "worker", "sandbox-worker", "redis", "postgres"}
    for name, service in SERVICES.items():
        assert "healthcheck" in service, name
    assert set(COMPOSE["volumes"]) == {"postgres-data", "redis-data"}


def test_web_serves_the_real_wsgi_application_and_is_checked_on_healthz() -> None:
    words = command_words(SERVICES["web"])
    target = next(w for w in words if w.endswith(":application"))
    module, attr = target.split(":")
    assert module == "config.wsgi"
    source = (REPO / "config" / "wsgi.py").read_text()
    assert f"{attr} = get_wsgi_application()" in source
    assert "/healthz" in " ".join(SERVICES["web"]["healthcheck"]["test"])


def test_workers_run_the_real_celery_app_on_the_configured_queues() -> None:
    queues = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    for name, expected in (("worker", {"default"}), ("sandbox-worker", {"sandbox"})):
        words = command_words(SERVICES[name])
        assert words[:4] == ["celery", "-A", "config", "worker"], name
        app_module = importlib.import_module("config")
        assert hasattr(app_module, "celery_app")
        assert set(words[words.index("-Q") + 1].split(",")) == expected
        assert expected <= queues


def test_every_env_name_used_is_one_settings_read() -> None:
    used: set[str] = set()
    for line in (REPO / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            used.add(line.split("=", 1)[0])
    text = (REPO / "docker-compose.yml").read_text()
    used |= set(re.findall(r"\$\{?([A-Z_][A-Z0-9_]*)", text))
    for service in SERVICES.values():
        used |= set((service.get("environment") or {}).keys())
    unknown = used - set(ENV_VARS) - IMAGE_VARS
    assert not unknown, f"compose/.env.example use names settings never read: {unknown}"
    for required in ("SECRET_KEY", "DATABASE_URL", "REDIS_URL"):
        assert required in used


def test_sandbox_worker_privileges_are_spelled_out_and_minimal() -> None:
    sandbox = SERVICES["sandbox-worker"]
    assert sandbox["cap_drop"] == ["ALL"]
    assert set(sandbox["cap_add"]) <= {"SYS_ADMIN", "SETUID", "SETGID", "KILL", "DAC_OVERRIDE"}
    assert "ports" not in sandbox
    assert sandbox["init"] is True  # pid 1 reaps orphans; Celery as pid 1 would not
    for name in ("worker", "web"):
        assert "cap_add" not in SERVICES[name] and "privileged" not in SERVICES[name]


def test_exactly_one_worker_runs_beat_and_its_tasks_exist() -> None:
    from config.celery_app import app

    app.loader.import_default_modules()
    assert "--beat" in command_words(SERVICES["worker"])
    assert "--beat" not in command_words(SERVICES["sandbox-worker"])
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks, entry["task"]
