"""Measure sustained code grading: alpha-beta submissions graded per second by 2 sandbox workers.

Run from the repository root, as root (the sandbox drops to an unprivileged uid), with
PostgreSQL and Redis up (about half a minute):

    .venv/bin/python bench/code_grading.py [--submissions 200]

It creates (or reuses) the database ``cutoff_bench_code`` next to ``DATABASE_URL``'s server,
migrates it, seeds a student with a code alpha-beta item whose hidden tests are the two fixed
trees (the textbook tree, 13 nodes, and the three-ply tree, 22 nodes, searched to depth 2),
starts one Celery worker on the ``sandbox`` queue with 2 processes (Redis db 11), and submits
``--submissions`` programs through the code-submission service as fast as it can: three in
four a correct alpha-beta, one in four a program with a named mistake (so the
misconceptions are run too). Every submission is stored, enqueued, run in bubblewrap and
graded for real. It prints the rate from the first submission to the last grade, and the
steady rate between the 10th and the last grade, then stops the worker it started.
Target: at least 8 graded per second.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
if not __package__:
    # Run as a file, this folder comes first on sys.path: put the repository root there.
    sys.path[0] = str(REPO)

from bench.support import bench_database_url, ensure_database  # noqa: E402 - needs the root on sys.path

if TYPE_CHECKING:
    from accounts.models import User
    from grading.models import Submission

TARGET_PER_SECOND = 8.0
BENCH_DATABASE = "cutoff_bench_code"
BENCH_BROKER = "redis://127.0.0.1:6379/11"
WARM_UP = 10
GRADED_WITHIN_SECONDS = 120.0


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start one Celery worker with 2 processes on the sandbox queue only."""
    log = open(REPO / "var" / "bench-code-worker.log", "w")  # noqa: SIM115 - lives with it
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "sandbox",
         "--concurrency", "2", "--loglevel", "WARNING", "--hostname",
         f"bench-code-{os.getpid()}@%h"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )


def wait_for_worker(deadline: float) -> None:
    """Wait until the worker answers a ping."""
    from config.celery_app import app

    while time.monotonic() < deadline:
        if app.control.ping(timeout=0.5):
            return
    raise SystemExit("the worker did not start; see var/bench-code-worker.log")


def seed() -> tuple[User, int]:
    """Create a student with a variant holding one code alpha-beta item; return both."""
    from accounts.models import Course, Role
    from accounts.services import create_account
    from exercises.generation import generate_item, item_seed, variant_seed
    from exercises.kinds import get_kind
    from exercises.models import Item, ProblemSet, Variant, VariantItem

    slug = f"bench-code-{uuid.uuid4().hex[:8]}"
    course = Course.objects.create(slug=slug, title="Code grading")
    instructor, _ = create_account(username=f"{slug}-ines", role=Role.INSTRUCTOR, course=course)
    student, _ = create_account(username=f"{slug}-sara", role=Role.STUDENT, course=course)
    problem_set = ProblemSet.objects.create(course=course, title="Code", seed=slug,
                                            created_by=instructor,
                                            status=ProblemSet.Status.READY)
    params = get_kind("code_alphabeta").clean_params({"test_sets": ["fixed_trees"]})
    item = Item.objects.create(problem_set=problem_set, position=1, kind="code_alphabeta",
                               params=params, points=Decimal(3))
    variant = Variant.objects.create(problem_set=problem_set, student=student,
                                     seed=variant_seed(slug, student.pk))
    seed_text = item_seed(slug, student.pk, 1)
    generated = generate_item("code_alphabeta", params, seed_text)
    VariantItem.objects.create(variant=variant, item=item, position=1, seed=seed_text,
                               problem=generated.problem, prompt=generated.prompt,
                               answer_key=generated.answer_key, trace=generated.trace,
                               engine_version=generated.engine_version)
    return student, variant.pk


def programs() -> list[str]:
    """Return the submitted programs: a correct alpha-beta three times, then a wrong one."""
    from tests.grading.code import solutions

    return [solutions.ALPHABETA, solutions.ALPHABETA, solutions.ALPHABETA,
            solutions.ROOT_ALPHA_NOT_RAISED]


def main() -> None:
    """Seed, start the worker, submit, wait for every grade, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=200)
    args = parser.parse_args()
    if not WARM_UP < args.submissions <= 2000:
        raise SystemExit(f"--submissions must be {WARM_UP + 1}..2000")
    if os.geteuid() != 0:
        raise SystemExit("run as root: the sandbox switches to an unprivileged uid")

    database_url = bench_database_url(BENCH_DATABASE)
    ensure_database(database_url)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
           "SECRET_KEY": uuid.uuid4().hex * 2, "DATABASE_URL": database_url,
           "REDIS_URL": BENCH_BROKER, "CELERY_BROKER_URL": BENCH_BROKER,
           "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING"}
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    worker = start_worker(env)
    try:
        wait_for_worker(time.monotonic() + 60)
        student, variant_id = seed()
        submitted, graded = run(student, variant_id, args.submissions)
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
    report(args.submissions, submitted, graded)


def run(student: User, variant_id: int, count: int) -> tuple[float, list[Submission]]:
    """Submit ``count`` programs; return when the first was stored and every submission."""
    from grading.code.services import submit_code
    from grading.models import Submission

    sources = programs()
    started = time.time()
    ids = [submit_code(student=student, variant_id=variant_id, position=1,
                       source=sources[index % len(sources)])[0].pk
           for index in range(count)]
    deadline = time.monotonic() + GRADED_WITHIN_SECONDS
    pending = Submission.objects.filter(pk__in=ids).exclude(
        status__in=[Submission.Status.GRADED, Submission.Status.ERROR])
    while pending.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    return started, list(Submission.objects.filter(pk__in=ids).order_by("graded_at"))


def report(count: int, started: float, submissions: list[Submission]) -> None:
    """Print the overall and steady rates, and any submission that did not grade well."""
    graded = [s for s in submissions if s.status == "graded"]
    errors = [s for s in submissions if s.status != "graded"]
    times = sorted(s.graded_at.timestamp() for s in graded if s.graded_at is not None)
    print(f"submissions: {count}, graded: {len(graded)}, not graded: {len(errors)}")
    if len(times) > WARM_UP + 1:
        overall = len(times) / (times[-1] - started)
        steady = (len(times) - WARM_UP) / (times[-1] - times[WARM_UP - 1])
        print(f"graded per second: {overall:.1f} from the first submission to the last "
              f"grade, {steady:.1f} steady (after the first {WARM_UP})")
        verdict = "met" if steady >= TARGET_PER_SECOND and not errors else "NOT met"
        print(f"target >= {TARGET_PER_SECOND:.0f} graded/s with 2 sandbox workers: {verdict}")
    full = sum(1 for s in graded if s.score == s.max_score)
    print(f"full marks: {full} of {len(graded)} (expected: 3 in 4)")
    for submission in errors[:10]:
        print(f"not graded: submission {submission.pk} is {submission.status} "
              f"{submission.error_code}")


if __name__ == "__main__":
    main()
