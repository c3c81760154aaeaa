"""Webhook URLs reach public addresses only: checked at registration, and again at every
delivery, which connects to the very address it checked (DNS rebinding cannot slip through).

Host names are made up (``.test``) and resolved by the ``fake_network`` fixture; its
connector fails any connection to an address other than loopback before it is made.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from grading import webhooks
from grading.models import Webhook, WebhookDelivery
from tests.fake_network import FakeNetwork

PUBLIC = "93.184.216.34"


@pytest.fixture
def private_refused(settings: Any) -> None:
    """Run with the production default: private addresses are refused."""
    settings.CUTOFF_ALLOW_PRIVATE_URLS = False


def register(client: Any, url: str) -> Any:
    """POST a webhook registration and return the response."""
    return client.post("/api/v1/webhooks/", {"url": url}, format="json")


def pending_delivery(webhook_id: int) -> WebhookDelivery:
    """Return a fresh pending delivery for the webhook."""
    return WebhookDelivery.objects.create(
        webhook_id=webhook_id, event_type="submission.graded", payload={"id": "event-1"}
    )


def test_a_host_with_any_non_public_address_is_refused_at_registration(
    instructor: Any, fake_network: FakeNetwork, private_refused: None
) -> None:
    fake_network.resolve("mixed.test", PUBLIC, "10.0.0.7")
    fake_network.resolve("mixed6.test", PUBLIC, "::1")
    fake_network.resolve("public.test", PUBLIC)
    for name in ("mixed.test", "mixed6.test"):
        response = register(instructor[1], f"https://{name}/hook")
        assert response.status_code == 400, response.content
        error = response.json()["error"]
        assert error["message"].startswith("url: must resolve to public internet addresses")
        assert error["details"]["url"]
    assert register(instructor[1], "https://public.test/hook").status_code == 201
    assert fake_network.lookups == ["mixed.test", "mixed6.test", "public.test"]
    assert fake_network.connections == []
    assert list(Webhook.objects.values_list("url", flat=True)) == ["https://public.test/hook"]


def test_every_delivery_checks_the_address_again(
    instructor: Any, fake_network: FakeNetwork, private_refused: None
) -> None:
    fake_network.resolve("rebinding.test", PUBLIC)
    created = register(instructor[1], "http://rebinding.test/hook")
    assert created.status_code == 201, created.content
    for addresses in (["127.0.0.1"], [PUBLIC, "169.254.169.254"], ["::ffff:10.1.2.3"]):
        fake_network.resolve("rebinding.test", *addresses)
        delivery = webhooks.attempt_delivery(pending_delivery(created.json()["id"]).pk)
        assert delivery is not None and delivery.status == WebhookDelivery.Status.PENDING
        [attempt] = delivery.attempts
        assert attempt["status_code"] is None
        assert attempt["error"].startswith("refused: rebinding.test resolves to ")
    assert fake_network.connections == []


def test_a_delivery_connects_to_the_public_address_it_checked(
    instructor: Any, fake_network: FakeNetwork, private_refused: None
) -> None:
    fake_network.resolve("hooks.test", PUBLIC)
    created = register(instructor[1], "https://hooks.test:8443/hook")
    assert created.status_code == 201, created.content
    delivery = webhooks.attempt_delivery(pending_delivery(created.json()["id"]).pk)
    # The test's connector refused to open it: the address was the checked one.
    assert fake_network.connections == [(PUBLIC, 8443)]
    assert delivery is not None and "ConnectionError" in delivery.attempts[0]["error"]


@pytest.fixture
def host_headers() -> Iterator[tuple[int, list[str]]]:
    """Serve on 127.0.0.1; return the port and the Host headers received."""
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            self.rfile.read(int(self.headers["Content-Length"]))
            received.append(self.headers["Host"])
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            """Keep test output quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port, received
    finally:
        server.shutdown()
        server.server_close()


def test_the_connection_goes_to_the_resolved_address_with_the_host_name_kept(
    instructor: Any, fake_network: FakeNetwork, host_headers: tuple[int, list[str]]
) -> None:
    port, received = host_headers
    # Private addresses allowed (test settings): the receiver listens on loopback.
    fake_network.resolve("receiver.test", "127.0.0.1")
    created = register(instructor[1], f"http://receiver.test:{port}/hook")
    assert created.status_code == 201, created.content
    delivery = webhooks.attempt_delivery(pending_delivery(created.json()["id"]).pk)
    assert delivery is not None and delivery.status == WebhookDelivery.Status.SUCCEEDED
    assert received == [f"receiver.test:{port}"]
    assert fake_network.connections == [("127.0.0.1", port)]
