"""Scale out across hosts: web, two worker hosts, PostgreSQL and Redis in network namespaces.

Run as root from the repository root (about two minutes):

    .venv/bin/python bench/scale_out.py [--students 100] [--submissions 4] [--cut-after 8]

Each "host" is a network namespace joined to a bridge in the root namespace by a veth pair
(10.77.0.0/24): ``cutoff-pg`` runs a private PostgreSQL (a fresh cluster in a temporary
directory), ``cutoff-redis`` a private redis-server, ``cutoff-web`` gunicorn (production
settings, config/gunicorn.py), ``cutoff-w1`` and ``cutoff-w2`` a Celery worker each (prefork,
concurrency 2; w2 runs beat, the stale-work sweep). Nothing talks over loopback between
hosts: every connection crosses a veth. The simulated students (bench/grading_load.py's)
run in the root namespace against the web host.

``--cut-after`` seconds into the run, worker host w1's link is set down: its processes keep
running but reach neither the broker nor the database, like a machine whose network died.
The run goes on; afterwards the script waits for every submission to finish and checks from
the database that none is lost (all graded) and none was graded twice
(``Submission.grades_recorded`` is 1 for each), and lists those a worker started more than
once (``grading_runs``: the ones the cut host held, sent again by the sweep once its heartbeat
went stale). Then it stops everything and removes the namespaces and the bridge.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if not __package__:
    sys.path[0] = str(REPO)

from bench import grading_load  # noqa: E402 - needs the root on sys.path

BRIDGE = "cutoffbr0"
SUBNET = "10.77.0"
HOSTS = {"pg": 10, "redis": 11, "web": 20, "w1": 31, "w2": 32}
"""Namespace suffix → last octet of its address."""
WEB_PORT = 8000
FINISH_WITHIN_SECONDS = 180.0
"""After the load, how long the script waits for the last submissions (the cut host's)."""


def run(*command: str) -> None:
    """Run a set-up command; fail loudly."""
    subprocess.run(command, check=True)


def address(host: str) -> str:
    """Return the address of ``host`` on the bridge."""
    return f"{SUBNET}.{HOSTS[host]}"


def namespace(host: str) -> str:
    """Return the network namespace of ``host``."""
    return f"cutoff-{host}"


def create_network() -> None:
    """Create the bridge and, per host, a namespace joined to it by a veth pair."""
    run("ip", "link", "add", BRIDGE, "type", "bridge")
    run("ip", "addr", "add", f"{SUBNET}.1/24", "dev", BRIDGE)
    run("ip", "link", "set", BRIDGE, "up")
    for host in HOSTS:
        ns = namespace(host)
        run("ip", "netns", "add", ns)
        run("ip", "link", "add", f"veth-{host}", "type", "veth", "peer", "name", "eth0",
            "netns", ns)
        run("ip", "link", "set", f"veth-{host}", "master", BRIDGE, "up")
        run("ip", "netns", "exec", ns, "ip", "addr", "add", f"{address(host)}/24", "dev", "eth0")
        run("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up")
        run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")


def remove_network() -> None:
    """Remove the namespaces (their veth pairs go with them) and the bridge."""
    for host in HOSTS:
        subprocess.run(["ip", "netns", "del", namespace(host)], check=False,
                       stderr=subprocess.DEVNULL)
        # Normally gone with its namespace; not while a process still holds that namespace.
        subprocess.run(["ip", "link", "del", f"veth-{host}"], check=False,
                       stderr=subprocess.DEVNULL)
    subprocess.run(["ip", "link", "del", BRIDGE], check=False, stderr=subprocess.DEVNULL)


def in_namespace(host: str, command: list[str], env: dict[str, str], log: Path,
                 user: str | None = None) -> subprocess.Popen:
    """Start ``command`` in ``host``'s namespace, output to ``log``."""
    prefix = ["ip", "netns", "exec", namespace(host)]
    if user:
        prefix += ["runuser", "-u", user, "--"]
    return subprocess.Popen(prefix + command, cwd=REPO, env=env,
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)  # noqa: SIM115


def start_postgres(data: Path, log_dir: Path) -> subprocess.Popen:
    """Create a fresh cluster in ``data`` and start it on the PostgreSQL host."""
    data.mkdir()
    shutil.chown(data, "postgres", "postgres")
    run("runuser", "-u", "postgres", "--", "initdb", "-D", str(data), "-U", "postgres",
        "--auth=trust", "--no-sync")
    with open(data / "pg_hba.conf", "a") as hba:
        hba.write(f"host all all {SUBNET}.0/24 trust\n")
    return in_namespace("pg", [
        "postgres", "-D", str(data), "-c", f"listen_addresses={address('pg')}",
        "-c", f"unix_socket_directories={data}", "-c", "max_connections=200",
        # A host cut off mid-transaction leaves its backend holding row locks until the
        # server notices it is gone: end such sessions after 10 s (docs/scaling.md).
        "-c", "idle_in_transaction_session_timeout=10s", "-c", "tcp_keepalives_idle=10",
        "-c", "tcp_keepalives_interval=5", "-c", "tcp_keepalives_count=3",
    ], dict(os.environ), log_dir / "scale-postgres.log", user="postgres")


def wait_for_postgres(url: str, deadline: float) -> None:
    """Wait until PostgreSQL accepts connections."""
    import psycopg

    while time.monotonic() < deadline:
        try:
            psycopg.connect(url, connect_timeout=1).close()
            return
        except psycopg.OperationalError:
            time.sleep(0.2)
    raise SystemExit("PostgreSQL did not start; see var/scale-postgres.log")


def main() -> None:
    """Build the hosts, run the students with one worker host cut off, check, tear down."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--submissions", type=int, default=4)
    parser.add_argument("--wait", type=float, default=10.0, help="long-poll seconds")
    parser.add_argument("--cut-after", type=float, default=8.0,
                        help="seconds into the run at which worker host w1 is cut off")
    # Its students wait for the grade on the POST (grading_load.py's --wait-on submit).
    parser.set_defaults(wait_on="submit")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root: it creates network namespaces and a bridge")
    log_dir = REPO / "var"
    log_dir.mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="cutoff-scale-"))
    scratch.chmod(0o755)
    processes: list[subprocess.Popen] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    remove_network()  # what an interrupted run left
    try:
        create_network()
        processes.append(start_postgres(scratch / "pgdata", log_dir))
        processes.append(in_namespace("redis", [
            "redis-server", "--bind", address("redis"), "--port", "6379", "--save", "",
            "--appendonly", "no", "--protected-mode", "no",
            "--maxmemory-policy", "noeviction"], dict(os.environ), log_dir / "scale-redis.log"))
        database_url = f"postgres://postgres@{address('pg')}:5432/cutoff_scale"
        wait_for_postgres(f"postgres://postgres@{address('pg')}:5432/postgres",
                          time.monotonic() + 60)
        from bench.support import ensure_database, production_environment

        ensure_database(database_url)
        broker = f"redis://{address('redis')}:6379/0"
        env = production_environment(database_url, broker, address("web"))
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        python = sys.executable
        processes.append(in_namespace("web", [
            python, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application",
            "--bind", f"{address('web')}:{WEB_PORT}", "--log-level", "warning"],
            env, log_dir / "scale-web.log"))
        worker = [python, "-m", "celery", "-A", "config", "worker", "-Q", "default",
                  "--pool", "prefork", "--concurrency", "2", "--loglevel", "WARNING"]
        cut_worker = in_namespace("w1", [*worker, "--hostname", "w1@cutoff"], env,
                                  log_dir / "scale-w1.log")
        processes.append(cut_worker)
        processes.append(in_namespace("w2", [
            *worker, "--hostname", "w2@cutoff", "--beat", "--schedule",
            str(scratch / "beat-schedule")], env, log_dir / "scale-w2.log"))
        report(run_load(args, processes), args)
    finally:
        for process in reversed(processes):
            stop_tree(process)
        remove_network()
        shutil.rmtree(scratch, ignore_errors=True)


def stop_tree(process: subprocess.Popen) -> None:
    """Stop a process this script started and its children (a cut host's never exit)."""
    # Listed once: children of a killed parent are re-parented and would be missed later.
    pids = grading_load.descendants(process.pid)
    signal_all(pids, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    signal_all(pids, signal.SIGKILL)
    process.wait()


def signal_all(pids: list[int], signum: int) -> None:
    """Send ``signum`` to each of ``pids`` still running."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def run_load(args: argparse.Namespace, processes: list[subprocess.Popen]) -> dict[str, object]:
    """Seed, run the students, cut w1 off mid-run; return what happened."""
    grading_load.SERVER_HOST = address("web")
    # The cut host's submissions wait for the sweep (its heartbeat goes stale after 20 s).
    grading_load.GRADED_WITHIN_SECONDS = 90.0
    started = time.monotonic()
    grading_load.wait_for_services(f"http://{address('web')}:{WEB_PORT}", started + 90)
    *plans, warmup = grading_load.seed(args.students, started + 180)
    grading_load.warm_up(WEB_PORT, warmup, args.wait)
    results = grading_load.Results()
    measured_from = time.time()
    stop_at = time.monotonic() + 180
    threads = [
        threading.Thread(target=grading_load.simulate_student,
                         args=(WEB_PORT, plan, args.submissions, results, random.Random(index),
                               stop_at, args.wait), daemon=True)
        for index, plan in enumerate(plans)
    ]
    cut: dict[str, object] = {}

    def cut_off() -> None:
        from grading.models import WorkerHeartbeat

        held = WorkerHeartbeat.objects.filter(name__startswith="w1@").values_list(
            "holding", flat=True)
        run("ip", "link", "set", "veth-w1", "down")
        cut["at"] = time.time()
        cut["held"] = sorted({pk for holding in held for pk in holding})

    timer = threading.Timer(args.cut_after, cut_off)
    load_started = time.monotonic()
    for thread in threads:
        thread.start()
    timer.start()
    for thread in threads:
        thread.join()
    timer.join()
    elapsed = time.monotonic() - load_started
    return {"results": results, "since": measured_from, "elapsed": elapsed, "cut": cut,
            "finished": wait_all_finished(measured_from)}


def wait_all_finished(since: float) -> float:
    """Wait until every submission stored since ``since`` is graded or failed; return when."""
    from grading.models import Submission

    unfinished = Submission.objects.filter(
        created_at__gte=datetime.fromtimestamp(since, tz=UTC),
        status__in=[Submission.Status.QUEUED, Submission.Status.RUNNING])
    deadline = time.monotonic() + FINISH_WITHIN_SECONDS
    while unfinished.exists() and time.monotonic() < deadline:
        time.sleep(1)
    return time.time()


def report(outcome: dict[str, object], args: argparse.Namespace) -> None:
    """Print the latencies and the database's account of every submission."""
    from django.db.models import Count, Max

    from grading.models import Submission

    results = outcome["results"]
    assert isinstance(results, grading_load.Results)
    elapsed = float(outcome["elapsed"])  # type: ignore[arg-type]
    grading_load.report(results, args, elapsed)
    grading_load.report_stages(float(outcome["since"]), results.sent)  # type: ignore[arg-type]
    print(f"load average (1 min) after: {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    cut = outcome["cut"]
    assert isinstance(cut, dict)
    since = datetime.fromtimestamp(float(outcome["since"]), tz=UTC)  # type: ignore[arg-type]
    rows = Submission.objects.filter(created_at__gte=since)
    counts = dict(rows.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    twice = rows.filter(grades_recorded__gt=1).count()
    ungraded_but_counted = rows.exclude(status=Submission.Status.GRADED).filter(
        grades_recorded__gt=0).count()
    rerun = list(rows.filter(grading_runs__gt=1).values_list("pk", flat=True))
    held = cut.get("held", [])
    last = rows.aggregate(last=Max("graded_at"))["last"]
    print(f"worker host w1 cut off {args.cut_after:.0f} s into the run; it held "
          f"{len(held)} submissions then: {held}")
    print(f"submissions stored: {rows.count()}; by status: {counts}")
    print(f"graded twice (grades_recorded > 1): {twice}; recorded but not graded: "
          f"{ungraded_but_counted}")
    print(f"started more than once (grading_runs > 1): {len(rerun)} {rerun}")
    if last is not None and "at" in cut:
        print(f"last grade {last.timestamp() - float(cut['at']):.1f} s after the cut")
    lost = rows.count() - counts.get(Submission.Status.GRADED, 0)
    verdict = "met" if lost == 0 and twice == 0 else "NOT met"
    print(f"no answer lost or graded twice: {verdict} (lost {lost}, twice {twice})")


if __name__ == "__main__":
    main()
