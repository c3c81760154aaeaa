"""Faults with real processes: workers killed mid-grading, the broker and the database gone,
a webhook receiver that never answers. Nothing is lost, graded twice or written halfway.

Each test runs gunicorn and Celery workers against this run's test database and a private
Redis of its own (never the machine's shared one).
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from exercises.models import ProblemSet
from grading.models import Submission, Webhook, WebhookDelivery
from grading.webhooks import ATTEMPT_SECONDS
from tests.conftest import require
from tests.hardening.conftest import (
    HTTPS,
    PrivateRedis,
    Processes,
    Service,
    children_of,
    database_url_of_this_run,
    free_port,
    poll,
)
from tests.hardening.world import CODE_POSITION, TYPED_POSITION, World, build_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLOW_SOURCE = (
    "import time\n\n"
    "time.sleep(3)  # long enough to kill the worker while it grades\n\n\n"
    "def minimax_decision(game, state):\n"
    "    return None\n"
)


def worker_env(redis: PrivateRedis) -> dict[str, str]:
    """Return the environment of a worker on the private broker and this run's database."""
    return {"DATABASE_URL": database_url_of_this_run(), "CELERY_BROKER_URL": redis.url}


def production_env(redis: PrivateRedis, database_url: str | None = None) -> dict[str, str]:
    """Return the environment of the web tier under production settings."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "hardening-tests-only-" + "x" * 40,
        "DATABASE_URL": database_url or database_url_of_this_run(),
        "REDIS_URL": redis.url,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
    }


def as_persona(world: World, persona: str) -> dict[str, str]:
    """Return the headers of a request by ``persona`` through the HTTPS proxy."""
    return {**HTTPS, "Authorization": world.authorization[persona]}


def submit_answer(web: Service, world: World, key: str) -> requests.Response:
    """POST the owner's correct answer to the typed item with Idempotency-Key ``key``."""
    return requests.post(
        f"{web.base_url}/api/v1/assignments/{world.ids['variant_id']}/items/{TYPED_POSITION}"
        "/submissions/",
        json={"answer": world.key_of_owner},
        headers={**as_persona(world, "owner"), "Idempotency-Key": key},
        timeout=30,
    )


def submit_code(web: Service, world: World, source: str) -> requests.Response:
    """POST ``source`` to the owner's code item."""
    return requests.post(
        f"{web.base_url}/api/v1/assignments/{world.ids['variant_id']}/items/{CODE_POSITION}"
        "/code-submissions/",
        json={"source": source},
        headers=as_persona(world, "owner"),
        timeout=30,
    )


def status_of(submission_id: int) -> str:
    """Return the stored status of a submission."""
    return Submission.objects.get(pk=submission_id).status


def graded(submission_id: int) -> bool:
    """Return whether the submission is graded."""
    return status_of(submission_id) == Submission.Status.GRADED


@pytest.fixture
def sandbox_ready() -> None:
    """Require what the workers need to run code submissions: bubblewrap and root."""
    from grading.code.sandboxing import sandbox_config
    from grading.sandbox import SandboxUnavailable, check_host

    try:
        check_host(sandbox_config())
    except SandboxUnavailable as error:
        require(False, str(error))
    require(os.geteuid() == 0, "the sandbox switches to an unprivileged uid and needs root")


@pytest.fixture
def world(settings: Any) -> World:
    """Return the classroom (its data committed: the processes read it)."""
    return build_world()


def test_a_worker_process_killed_mid_grading_leaves_the_submission_to_another(
    sandbox_ready: None, world: World, private_redis: PrivateRedis, processes: Processes
) -> None:
    first = processes.worker("first", worker_env(private_redis))
    second = processes.worker("second", worker_env(private_redis))
    web = processes.web(worker_env(private_redis))
    response = submit_code(web, world, SLOW_SOURCE)
    assert response.status_code == 202, response.text
    submission_id = response.json()["id"]

    poll(lambda: status_of(submission_id) == Submission.Status.RUNNING, 60, "never started")
    busy = next(w for w in (first, second) if "run_code_submission[" in w.log())
    (pool_process,) = children_of(busy.process.pid)
    os.kill(pool_process, signal.SIGKILL)

    poll(lambda: graded(submission_id), 120, first.log() + second.log())
    assert f"pid:{pool_process} exited with 'signal 9" in busy.log()
    # Graded once: one run finished, one grade recorded, one webhook event for it.

    def runs_finished() -> int:
        return sum(
            line.count("succeeded") for worker in (first, second)
            for line in worker.log().splitlines() if "run_code_submission[" in line
        )

    poll(runs_finished, 10, "the run that graded it never logged its end")
    assert runs_finished() == 1, first.log() + second.log()
    assert WebhookDelivery.objects.filter(submission_id=submission_id).count() == 1


def test_a_whole_worker_killed_mid_grading_is_graded_again_within_60_s(
    sandbox_ready: None, world: World, private_redis: PrivateRedis, processes: Processes
) -> None:
    doomed = processes.worker("doomed", worker_env(private_redis))
    web = processes.web(worker_env(private_redis))
    response = submit_code(web, world, SLOW_SOURCE)
    assert response.status_code == 202, response.text
    submission_id = response.json()["id"]
    poll(lambda: status_of(submission_id) == Submission.Status.RUNNING, 60, doomed.log())
    os.killpg(doomed.process.pid, signal.SIGKILL)
    doomed.process.wait(timeout=10)
    killed_at = time.monotonic()

    # Its replacement runs beat, whose sweep finds the dead worker's heartbeat listing the
    # submission; Redis would only redeliver the unacknowledged message after an hour.
    survivor = processes.worker("survivor", worker_env(private_redis), beat=True)
    poll(lambda: graded(submission_id), 60 - (time.monotonic() - killed_at), survivor.log())
    poll(lambda: WebhookDelivery.objects.filter(submission_id=submission_id).exists(), 10,
         "no webhook event for the grade")
    assert WebhookDelivery.objects.filter(submission_id=submission_id).count() == 1


def test_a_broker_outage_with_answers_in_flight_never_ends_the_worker(
    sandbox_ready: None, world: World, private_redis: PrivateRedis, processes: Processes
) -> None:
    ProblemSet.objects.filter(pk=world.ids["problem_set_id"]).update(max_attempts=None)
    # As in compose: a default-queue worker embedding beat and a sandbox worker, two each.
    default = processes.worker("default", worker_env(private_redis), queues="default",
                               concurrency=2, beat=True)
    sandbox = processes.worker("sandbox", worker_env(private_redis), queues="sandbox",
                               concurrency=2)
    web = processes.web(worker_env(private_redis))

    def submit_answers(first: int, count: int) -> list[int]:
        ids = []
        for number in range(first, first + count):
            response = submit_answer(web, world, f"in-flight-{number}")
            assert response.status_code == 202, response.text
            ids.append(response.json()["id"])
        return ids

    # What made workers exit: unacknowledged messages while a BRPOP is pending. The default
    # worker holds the retry of a failed webhook delivery (waiting for its countdown); the
    # sandbox worker runs a code submission with a pool slot free.
    in_flight = submit_answers(0, 25)
    poll(lambda: " retry: Retry in " in default.log(), 60, default.log())
    code = submit_code(web, world, SLOW_SOURCE)
    assert code.status_code == 202, code.text
    code_id = code.json()["id"]
    poll(lambda: status_of(code_id) == Submission.Status.RUNNING, 60, sandbox.log())
    pids = (default.process.pid, sandbox.process.pid)

    private_redis.kill()

    def both_retrying() -> bool:
        for worker in (default, sandbox):
            assert worker.process.poll() is None, worker.log()
        return all("Cannot connect to redis" in w.log() for w in (default, sandbox))

    poll(both_retrying, 60, default.log() + sandbox.log())
    in_flight += submit_answers(25, 25)  # stored, not sent: the broker is down
    private_redis.start()  # empty: a broker restarted without its data lost every message
    back_at = time.monotonic()

    def all_graded() -> bool:
        for worker in (default, sandbox):
            assert worker.process.poll() is None, worker.log()
        return not Submission.objects.filter(pk__in=[*in_flight, code_id]).exclude(
            status=Submission.Status.GRADED).exists()

    poll(all_graded, 30, default.log() + sandbox.log())
    assert time.monotonic() - back_at < 30
    assert (default.process.pid, sandbox.process.pid) == pids
    for worker in (default, sandbox):
        assert worker.process.poll() is None and "Unrecoverable error" not in worker.log()
    # Graded once: one webhook event per submission, however often it was sent.
    poll(lambda: WebhookDelivery.objects.filter(submission_id=code_id).exists(), 10,
         "no event for the code submission")
    events = WebhookDelivery.objects.filter(submission_id__in=[*in_flight, code_id])
    assert sorted(events.values_list("submission_id", flat=True)) == sorted(
        [*in_flight, code_id])


def test_the_web_tier_answers_while_the_broker_is_down_and_nothing_is_lost(
    world: World, private_redis: PrivateRedis, processes: Processes
) -> None:
    deployment = production_env(private_redis)
    worker = processes.worker("worker", deployment, beat=True)
    web = processes.web(deployment)
    before = submit_answer(web, world, "before-outage")
    assert before.status_code == 202, before.text
    poll(lambda: graded(before.json()["id"]), 60, worker.log())

    private_redis.kill()
    started = time.monotonic()
    during = submit_answer(web, world, "during-outage")
    assert during.status_code == 202, during.text
    assert time.monotonic() - started < 10, "a submission waited too long on the broker"
    stored = Submission.objects.get(pk=during.json()["id"])
    assert stored.status == Submission.Status.QUEUED and stored.enqueued_at is None
    assignment = requests.get(
        f"{web.base_url}/api/v1/assignments/{world.ids['variant_id']}/",
        headers=as_persona(world, "owner"),
        timeout=30,
    )
    assert assignment.status_code == 200

    def health_names_the_broker() -> bool:
        health = requests.get(f"{web.base_url}/healthz", headers=as_persona(world, "instructor"),
                              timeout=30)
        return health.status_code == 503 and "broker" in health.json()["down"]

    poll(health_names_the_broker, 90, "the workers' heartbeat never reported the broker lost")
    retried = submit_answer(web, world, "during-outage")
    assert retried.status_code == 202 and retried.json()["id"] == stored.pk

    private_redis.start()
    # The outbox sweep (beat, in the worker that rode out the outage) sends it once the
    # broker is back and the submission is older than the sweep's grace.
    poll(lambda: graded(stored.pk), 90, worker.log())
    assert worker.process.poll() is None and "Unrecoverable error" not in worker.log()
    assert Submission.objects.filter(idempotency_key="during-outage").count() == 1


class CuttingProxy:
    """Forward TCP to PostgreSQL; cut a connection when its client sends ``cut_on`` after
    having sent ``armed_by`` (e.g. the COMMIT of the transaction that inserted a row)."""

    def __init__(self, target_port: int, armed_by: bytes, cut_on: bytes) -> None:
        self.target_port = target_port
        self.armed_by, self.cut_on = armed_by, cut_on
        self.cuts = 0
        self.refusing = False
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open_sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing:
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", self.target_port))
            self.open_sockets += [client, server]
            threading.Thread(target=self._pipe, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, False), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        armed = False
        try:
            while chunk := source.recv(65536):
                if from_client and self.armed_by in chunk:
                    armed = True
                elif from_client and armed and self.cut_on in chunk:
                    self.cuts += 1
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def close(self) -> None:
        """Stop accepting and close every forwarded connection."""
        self.listener.close()
        for end in self.open_sockets:
            try:
                # Wakes the pipe threads blocked in recv(); close() alone would not.
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def cutting_proxy() -> Iterator[CuttingProxy]:
    """Return a proxy to PostgreSQL that cuts the COMMIT of a submission's insert."""
    from django.conf import settings

    proxy = CuttingProxy(
        int(settings.DATABASES["default"]["PORT"] or 5432),
        armed_by=b'INSERT INTO "grading_submission"',
        cut_on=b"COMMIT",
    )
    try:
        yield proxy
    finally:
        proxy.close()


def test_a_database_that_cannot_be_reached_answers_503_with_a_clear_message(
    world: World, private_redis: PrivateRedis, processes: Processes
) -> None:
    closed = database_url_of_this_run(port=free_port())
    web = processes.web({**worker_env(private_redis), "DATABASE_URL": closed})
    response = submit_answer(web, world, "no-database")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "database_unavailable"
    assert "nothing was changed" in response.json()["error"]["message"]
    # Nobody can be authenticated without the database: the status alone.
    health = requests.get(f"{web.base_url}/healthz", headers=as_persona(world, "instructor"),
                          timeout=30)
    assert health.status_code == 503 and health.json() == {"status": "degraded"}
    assert not Submission.objects.filter(idempotency_key="no-database").exists()


def test_a_database_lost_at_commit_leaves_no_partial_write_and_a_retry_succeeds(
    world: World,
    private_redis: PrivateRedis,
    processes: Processes,
    cutting_proxy: CuttingProxy,
) -> None:
    through_proxy = database_url_of_this_run(port=cutting_proxy.port, sslmode="disable")
    web = processes.web({**worker_env(private_redis), "DATABASE_URL": through_proxy})
    count_before = Submission.objects.count()
    cut = submit_answer(web, world, "cut-at-commit")
    assert cutting_proxy.cuts == 1
    assert cut.status_code == 503, cut.text
    assert cut.json()["error"]["code"] == "database_unavailable"
    assert Submission.objects.count() == count_before, "the insert outlived its lost commit"

    cutting_proxy.armed_by = b"never sent by anyone"
    retry = submit_answer(web, world, "cut-at-commit")
    assert retry.status_code == 202, retry.text
    assert Submission.objects.filter(idempotency_key="cut-at-commit").count() == 1


class SilentReceiver:
    """Accept webhook connections and never answer (a receiver that hangs); with ``trickle``,
    answer a status line and then one header line every 2 s, forever (a slow loris)."""

    def __init__(self, trickle: bool = False) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self.trickle = trickle
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)
            if self.trickle:
                threading.Thread(target=self._dribble, args=(connection,), daemon=True).start()

    @staticmethod
    def _dribble(connection: socket.socket) -> None:
        try:
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            while True:
                connection.sendall(b"X-Slow: 1\r\n")
                time.sleep(2)
        except OSError:
            pass

    def close(self) -> None:
        """Stop listening and drop the held connections."""
        self.listener.close()
        for held in self.held:
            held.close()


@pytest.mark.parametrize("trickle", [False, True], ids=["silent", "slow-loris"])
def test_a_hanging_webhook_receiver_blocks_a_worker_no_longer_than_the_timeout(
    world: World, private_redis: PrivateRedis, processes: Processes, trickle: bool
) -> None:
    receiver = SilentReceiver(trickle)
    try:
        Webhook.objects.update(url=f"http://127.0.0.1:{receiver.port}/hook")
        # One worker process: while it waits on the receiver, nothing else is graded.
        worker = processes.worker("single", worker_env(private_redis))
        web = processes.web(worker_env(private_redis))
        first = submit_answer(web, world, "first")
        poll(lambda: graded(first.json()["id"]), 60, worker.log())
        poll(lambda: receiver.held, 30, "the webhook was never called")
        delivery_started = time.monotonic()
        second = submit_answer(web, world, "second")
        poll(lambda: graded(second.json()["id"]), 60, worker.log())
        blocked = time.monotonic() - delivery_started
    finally:
        receiver.close()
    assert blocked < ATTEMPT_SECONDS + 5, f"the worker was blocked {blocked:.1f} s"
    attempt = WebhookDelivery.objects.get(submission_id=first.json()["id"]).attempts[0]
    assert "timed out" in attempt["error"].lower() or "timeout" in attempt["error"].lower()
    assert attempt["duration_ms"] <= (ATTEMPT_SECONDS + 1) * 1000
