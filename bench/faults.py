"""Broker outage bench: kill Redis with answers in flight, bring it back, count what was lost.

Starts a private redis-server (a free port on 127.0.0.1, no persistence: a restart loses
every message, the worst case), gunicorn under production settings, a
default-queue worker embedding beat and a sandbox-queue worker (two processes each, as
compose runs them), on a database of its own (``cutoff_faults`` on the server
``DATABASE_URL`` names). A course webhook points at a closed port, so each grade leaves a
delivery retry waiting for its countdown in the worker, and a code submission (student code
sleeping 3 s in the sandbox) is running when Redis dies: the unacknowledged messages that
used to make workers exit on a connection loss (the sandbox needs bubblewrap and root).

Then: submit half the answers and the code, kill Redis, submit the other half during the
outage, keep it down ``--outage`` seconds, start it again, and wait until every submission
is graded. Prints the
outage length, the answers in flight, how many were graded (each once: one webhook event
each), lost, whether both workers kept their process id, and the seconds from the broker's
return to the last grade.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if not __package__:
    # Run as a file, this folder comes first on sys.path: put the repository root there.
    sys.path[0] = str(REPO)

from bench.support import bench_database_url, ensure_database, free_port  # noqa: E402 - needs the root on sys.path

BENCH_DATABASE = "cutoff_faults"
GIVE_UP_SECONDS = 180.0
"""After the broker is back, answers not graded within this are counted as lost."""


class Redis:
    """A redis-server of this bench on a free port, killed and started again at will."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Return the broker URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def answers(self) -> bool:
        """Return whether the server accepts connections."""
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
        except OSError:
            return False
        return True

    def start(self) -> None:
        """Start the server (empty) and wait until it answers."""
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline:
                raise SystemExit("redis-server did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        """Kill the server at once, as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


def start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start one service of this bench, logging to ``log``."""
    return subprocess.Popen(argv, cwd=REPO, env=env, stdout=open(log, "w"),  # noqa: SIM115
                            stderr=subprocess.STDOUT, start_new_session=True)


SLOW_SOURCE = (
    "import time\n\n"
    "time.sleep(3)  # still running when Redis is killed\n\n\n"
    "def minimax_decision(game, state):\n"
    "    return None\n"
)


def seed() -> tuple[str, int, dict[str, Any]]:
    """Create a course with a webhook, a student and a ready problem set (item 1 typed
    answers, item 2 code).

    Return the student's token, their variant id and the correct answer to item 1.
    """
    from accounts.models import Course, Role
    from accounts.services import create_account
    from exercises.models import ProblemSet, Variant
    from exercises.services import create_problem_set, publish_problem_set
    from grading.models import Webhook

    slug = f"faults-{uuid.uuid4().hex[:8]}"
    course = Course.objects.create(slug=slug, title="Faults")
    instructor, _ = create_account(username=f"{slug}-ines", role=Role.INSTRUCTOR, course=course)
    student, token = create_account(username=f"{slug}-sara", role=Role.STUDENT, course=course)
    # Created directly: the API refuses private URLs under production settings.
    Webhook.objects.create(owner=instructor, url="http://127.0.0.1:9/hook", course=course)
    problem_set = create_problem_set(
        creator=instructor, course=course, title="Outage", seed=slug,
        items=[{"kind": "alphabeta", "params": {}, "points": 4},
               {"kind": "code_minimax", "params": {}, "points": 3}],
    )
    ProblemSet.objects.filter(pk=problem_set.pk).update(max_attempts=None)
    publish_problem_set(problem_set)
    deadline = time.monotonic() + 120
    while ProblemSet.objects.get(pk=problem_set.pk).status != ProblemSet.Status.READY:
        if time.monotonic() > deadline:
            raise SystemExit("variant generation did not finish in time")
        time.sleep(0.2)
    variant = Variant.objects.get(problem_set=problem_set, student=student)
    key = variant.items.get(position=1).answer_key
    assert key is not None, "a ready set's items have their keys"
    return token, variant.pk, dict(key)


def main() -> None:
    """Run the outage scenario and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=50, help="answers in flight")
    parser.add_argument("--outage", type=float, default=60.0, help="seconds Redis stays down")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed")

    folder = Path(tempfile.mkdtemp(prefix="cutoff-faults-"))
    redis = Redis(folder)
    database_url = bench_database_url(BENCH_DATABASE)
    ensure_database(database_url)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
           "SECRET_KEY": uuid.uuid4().hex * 2, "DATABASE_URL": database_url,
           "REDIS_URL": redis.url, "CELERY_BROKER_URL": redis.url,
           "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "INFO"}
    os.environ.update(env)
    import django

    django.setup()
    import requests
    from django.core.management import call_command

    from grading.models import Submission, WebhookDelivery

    call_command("migrate", verbosity=0)
    redis.start()
    port = free_port()
    celery = [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "2",
              "--loglevel", "INFO"]
    processes = {
        "web": start([sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
                      "config.wsgi:application", "--bind", f"127.0.0.1:{port}"],
                     env, folder / "web.log"),
        "default": start([*celery, "-Q", "default", "--hostname", "default@%h", "--beat",
                          "--schedule", str(folder / "beat")], env, folder / "default.log"),
        "sandbox": start([*celery, "-Q", "sandbox", "--hostname", "sandbox@%h"],
                         env, folder / "sandbox.log"),
    }
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        for name in ("default", "sandbox"):
            log = folder / f"{name}.log"
            while " ready." not in log.read_text(errors="replace"):
                if processes[name].poll() is not None:
                    raise SystemExit(f"the {name} worker exited; see {log}")
                time.sleep(0.2)
        pids = {name: process.pid for name, process in processes.items()}
        token, variant, answer = seed()
        url = f"http://127.0.0.1:{port}/api/v1/assignments/{variant}/items/1/submissions/"
        headers = {"Authorization": f"Token {token}", "X-Forwarded-Proto": "https"}

        def submit(number: int) -> int:
            response = requests.post(url, json={"answer": answer}, timeout=30,
                                     headers={**headers, "Idempotency-Key": f"a-{number}"})
            if response.status_code != 202:
                raise SystemExit(f"submission {number}: {response.status_code} {response.text}")
            return int(response.json()["id"])

        half = args.answers // 2
        in_flight = [submit(number) for number in range(half)]
        code = requests.post(url.replace("/items/1/submissions/", "/items/2/code-submissions/"),
                             json={"source": SLOW_SOURCE}, headers=headers, timeout=30)
        if code.status_code != 202:
            raise SystemExit(f"code submission: {code.status_code} {code.text}")
        in_flight.append(int(code.json()["id"]))
        while Submission.objects.get(pk=in_flight[-1]).status == Submission.Status.QUEUED:
            time.sleep(0.05)
        redis.kill()
        down_at = time.monotonic()
        in_flight += [submit(number) for number in range(half, args.answers)]
        unsent = Submission.objects.filter(pk__in=in_flight, enqueued_at__isnull=True).count()
        time.sleep(max(0.0, args.outage - (time.monotonic() - down_at)))  # the outage itself
        redis.start()
        back_at = time.monotonic()
        outage = back_at - down_at

        def ungraded() -> int:
            return Submission.objects.filter(pk__in=in_flight).exclude(
                status=Submission.Status.GRADED).count()

        while ungraded() and time.monotonic() - back_at < GIVE_UP_SECONDS:
            time.sleep(0.2)
        recovered = time.monotonic() - back_at
        lost = ungraded()
        events = WebhookDelivery.objects.filter(submission_id__in=in_flight)
        graded_twice = events.count() - events.values("submission_id").distinct().count()
        alive = {name: processes[name].poll() is None and processes[name].pid == pids[name]
                 for name in ("default", "sandbox")}
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        redis.kill()

    print(f"outage: {outage:.1f} s (Redis killed, restarted empty)")
    print(f"in flight: {len(in_flight)} ({half} answers sent before the outage and a code "
          f"submission running, {args.answers - half} answers stored during it; {unsent} "
          "never reached the broker)")
    print(f"graded: {len(in_flight) - lost}, lost: {lost}, graded twice: {graded_twice}")
    print("workers kept their process: "
          + ", ".join(f"{name} {'yes' if kept else 'NO'}" for name, kept in alive.items()))
    if lost:
        print(f"seconds to recover: not within {GIVE_UP_SECONDS:.0f} s; logs in {folder}")
    else:
        print(f"seconds to recover (broker back → last answer graded): {recovered:.1f}")
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average (1 min): {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
