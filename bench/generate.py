"""Time publishing a 5-item problem set to 300 students with a real Celery worker.

Run from the repository root (PostgreSQL and Redis running):

    .venv/bin/python bench/generate.py

It creates (or empties) a scratch PostgreSQL database ``cutoff_bench_generate`` (or uses
``--database-url``; ``sqlite:///path`` works too), migrates it, enrols the students, starts
one worker (``--concurrency 2``, prefork, the default queue) on a Redis database of its own
(``--broker``, flushed first), then times ``publish`` → ``ready``: every variant generated,
solved by the engine and stored. Prints seconds, variants/s and items/s; the target is under
10 s on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/cutoff_bench_generate"
DEFAULT_BROKER = "redis://127.0.0.1:6379/13"
TIMEOUT_SECONDS = 120
ITEMS = [
    {"kind": "minimax", "params": {"depth": 3, "max_leaves": 18}, "points": 2},
    {"kind": "alphabeta", "params": {"depth": 3, "max_leaves": 18, "min_cuts": 2}, "points": 4},
    {"kind": "expectiminimax", "params": {"chance": "biased"}, "points": 3},
    {"kind": "vector", "params": {}, "points": 2},
    {"kind": "ucb1", "params": {"c": "2", "form": "c*sqrt(ln N/n)"}, "points": 2},
]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE)
    parser.add_argument("--broker", default=DEFAULT_BROKER)
    parser.add_argument("--concurrency", type=int, default=2)
    return parser.parse_args()


def fresh_postgres_database(url: str) -> None:
    """Drop and recreate the scratch PostgreSQL database named in ``url``."""
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def start_worker(env: dict[str, str], concurrency: int) -> subprocess.Popen[bytes]:
    """Start a Celery worker like the e2e fixture does, and wait until it answers a ping."""
    from config.celery_app import app

    log = open(REPO / "var" / "bench-generate-worker.log", "wb")  # noqa: SIM115 - lives with it
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default",
         "--concurrency", str(concurrency), "--loglevel", "WARNING",
         "--hostname", f"bench-generate-{os.getpid()}@%h"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while not app.control.ping(timeout=0.5):
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            sys.exit("the worker did not start; see var/bench-generate-worker.log")
    return worker


def main() -> None:
    args = parse_args()
    sys.path.insert(0, str(REPO))
    (REPO / "var").mkdir(exist_ok=True)
    if args.database_url.startswith("postgres"):
        fresh_postgres_database(args.database_url)
    elif args.database_url.startswith("sqlite:///"):
        Path(args.database_url.removeprefix("sqlite:///")).unlink(missing_ok=True)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": args.database_url,
        "CELERY_BROKER_URL": args.broker,
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)

    import django
    import redis

    django.setup()
    from django.core.management import call_command

    from accounts.models import Course, Enrollment, Role, User
    from exercises.models import ProblemSet, VariantItem
    from exercises.services import create_problem_set, publish_problem_set

    redis.Redis.from_url(args.broker).flushdb()
    call_command("migrate", verbosity=0)
    instructor = User.objects.create(username="bench-instructor", role=Role.INSTRUCTOR)
    course = Course.objects.create(slug="bench", title="Generation benchmark")
    Enrollment.objects.create(course=course, user=instructor, role=Role.INSTRUCTOR)
    students = User.objects.bulk_create(
        User(username=f"bench-student-{i:04d}", role=Role.STUDENT) for i in range(args.students)
    )
    Enrollment.objects.bulk_create(
        Enrollment(course=course, user=student, role=Role.STUDENT) for student in students
    )
    problem_set = create_problem_set(
        creator=instructor, course=course, title="Benchmark", seed="bench", items=ITEMS
    )

    worker = start_worker(env, args.concurrency)
    try:
        start = time.perf_counter()
        problem_set = publish_problem_set(problem_set)
        while problem_set.status == ProblemSet.Status.GENERATING:
            if time.perf_counter() - start > TIMEOUT_SECONDS:
                sys.exit(f"still generating after {TIMEOUT_SECONDS} s; see the worker's log")
            time.sleep(0.05)
            problem_set.refresh_from_db()
        seconds = time.perf_counter() - start
    finally:
        worker.terminate()
        worker.wait(timeout=30)

    if problem_set.status != ProblemSet.Status.READY:
        sys.exit(f"generation failed: {problem_set.failure_reason}")
    items = VariantItem.objects.filter(variant__problem_set=problem_set).count()
    assert items == args.students * len(ITEMS), items
    engine = urlparse(args.database_url).scheme
    print(
        f"published {len(ITEMS)} items to {args.students} students ({items} items generated, "
        f"solved and stored; {engine}, {args.concurrency} worker processes): "
        f"{seconds:.2f} s, {args.students / seconds:.0f} variants/s, {items / seconds:.0f} "
        "items/s"
    )


if __name__ == "__main__":
    main()
