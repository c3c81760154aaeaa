"""Measure what one request of each kind costs the server with nothing else in flight.

Run from the repository root with PostgreSQL and Redis up (about a minute):

    .venv/bin/python bench/request_floor.py [--students 200]

It sets up as ``bench/grading_load.py`` does (its database, Redis db, seeded course and
published set, gunicorn with production settings and config/gunicorn.py, one prefork Celery
worker), then sends, one at a time over one keep-alive connection each:

1. ``GET /healthz`` anonymously, ``--probes`` times: a Django view behind the whole
   middleware stack with one indexed query, the cheapest request the service answers; the
   baseline the other figures are divided by;
2. every student's assignment open (``GET /api/v1/assignments/{id}/``);
3. every student's answers (``--submissions`` each), each ``POST …/submissions/?wait=10``
   waiting for its grade, as the load bench's students do.

For each it prints the CPU milliseconds per request of each process (from /proc, as the
load bench counts them) and that figure divided by the baseline's. No request waits on
another, so this is the cost of the work itself, without the switching, queueing and lock
waits of a load: a floor for what ``grading_load.py`` measures. Its last lines set that
floor against the 200-student target: the two cores give each answer, at the rate that
load offers, at most ``2 cores / rate`` of CPU, and less than that for a p99 near the
service time.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if not __package__:
    # Run as a file, this folder comes first on sys.path: put the repository root there.
    sys.path[0] = str(REPO)

from bench import grading_load  # noqa: E402 - needs the root on sys.path
from bench.support import (  # noqa: E402
    bench_database_url,
    ensure_database,
    free_port,
    production_environment,
    reference_loop_ms,
)

LOAD_STUDENTS = 200
LOAD_MEAN_THINK_SECONDS = 2.0
"""grading_load.py's students think 1–3 s before each answer: about 200 / 2 answers/s."""


def measure(label: str, meter: grading_load.CpuMeter, send: Callable[[], int]) -> float:
    """Run ``send`` (which returns how many requests it sent) and print the CPU each process
    spent per request; return the server's (Redis excluded) in ms."""
    started = time.monotonic()
    meter.start()
    count = send()
    meter.stop()
    elapsed = time.monotonic() - started
    per_role = {role: 1000 * seconds / count for role, seconds in meter.used.items()}
    server = sum(ms for role, ms in per_role.items() if "Redis" not in role)
    roles = ", ".join(f"{role.split(' (')[0]} {ms:.2f}" for role, ms in per_role.items())
    print(f"{label:<26} n={count:<5} {1000 * elapsed / count:6.2f} ms each wall; CPU ms: "
          f"{roles}; server {server:.2f}")
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--submissions", type=int, default=4)
    parser.add_argument("--probes", type=int, default=500, help="anonymous /healthz requests")
    parser.add_argument("--database", default=grading_load.BENCH_DATABASE)
    parser.add_argument("--redis-db", type=int, default=grading_load.BENCH_REDIS_DB)
    args = parser.parse_args()
    if not 1 <= args.students <= grading_load.MAX_STUDENTS or not 1 <= args.submissions <= 20:
        raise SystemExit(f"--students must be 1..{grading_load.MAX_STUDENTS} and "
                         "--submissions 1..20")

    database_url = bench_database_url(args.database)
    broker = f"redis://127.0.0.1:6379/{args.redis_db}"
    ensure_database(database_url)
    env = production_environment(database_url, broker, "127.0.0.1")
    os.environ.update(env)
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(broker).flushdb()
    port = free_port()
    processes = grading_load.start_services(env, port, REPO / "var", "prefork", 2)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        grading_load.wait_for_services(f"http://127.0.0.1:{port}", time.monotonic() + 60)
        *plans, warmup = grading_load.seed(args.students, time.monotonic() + 120)
        grading_load.vacuum(args.database)
        grading_load.warm_up(port, warmup, 10)
        meter = grading_load.CpuMeter(processes, args.database)
        speed_before = reference_loop_ms()
        probe = grading_load.StudentClient(port, warmup["token"])
        probe.headers.pop("Authorization")

        def probes() -> int:
            for _ in range(args.probes):
                status, _ = probe.request("GET", "/healthz")
                if status not in (200, 503):
                    raise SystemExit(f"/healthz answered {status}")
            return args.probes

        clients = [grading_load.StudentClient(port, plan["token"]) for plan in plans]

        def opens() -> int:
            for client, plan in zip(clients, plans, strict=True):
                status, _ = client.request("GET", f"/api/v1/assignments/{plan['variant']}/")
                if status != 200:
                    raise SystemExit(f"an open answered {status}")
            return len(plans)

        rng = random.Random(0)

        def answers() -> int:
            for client, plan in zip(clients, plans, strict=True):
                for _ in range(args.submissions):
                    submit(client, plan, rng)
            return len(plans) * args.submissions

        baseline = measure("GET /healthz (anonymous)", meter, probes)
        opened = measure("open an assignment", meter, opens)
        answered = measure("POST an answer, ?wait=10", meter, answers)
        speed_after = reference_loop_ms()
    finally:
        grading_load.stop_services(processes)
    report(baseline, opened, answered, args.submissions, (speed_before + speed_after) / 2)


def submit(client: grading_load.StudentClient, plan: dict[str, Any], rng: random.Random
           ) -> None:
    """Send one of the plan's answers and check it came back graded."""
    position = rng.choice(sorted(plan["answers"]))
    answer = rng.choice(plan["answers"][position])
    status, body = client.request(
        "POST", f"/api/v1/assignments/{plan['variant']}/items/{position}/submissions/?wait=10",
        {"answer": answer}, {"Idempotency-Key": uuid.uuid4().hex})
    if status != 202 or (body or {}).get("status") != "graded":
        raise SystemExit(f"an answer came back {status}: {str(body)[:200]}")


def report(baseline: float, opened: float, answered: float, submissions: int,
           reference_ms: float) -> None:
    """Print each figure against the baseline and the floor against the load's budget."""
    print(f"per /healthz: open {opened / baseline:.1f}x, answer {answered / baseline:.1f}x")
    per_answer = answered + opened / submissions
    rate = LOAD_STUDENTS / LOAD_MEAN_THINK_SECONDS
    budget = 2 * 1000 / rate
    print(f"floor per answer, its share of an open included: {per_answer:.2f} ms of server CPU "
          f"({per_answer / reference_ms:.3f} of the reference loop, {reference_ms:.0f} ms)")
    print(f"the {LOAD_STUDENTS}-student load offers about {rate:.0f} answers/s; 2 cores give "
          f"each {budget:.1f} ms at 100 % use: the floor is {per_answer / budget:.2f} of that")


if __name__ == "__main__":
    main()
