"""A fake resolver and a guarded connector for the tests of server-side request checks.

Tests give made-up host names (under the reserved ``.test`` domain) the addresses they want
with :meth:`FakeNetwork.resolve`; the connector lets a connection through only to 127.0.0.1
or ::1, where the tests' own servers listen, and fails anything else *before* a packet is
sent, recording where it would have gone.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Any

import pytest
from urllib3.util import connection

LOOPBACK = ("127.0.0.1", "::1")


class ConnectionRefusedByTest(OSError):
    """The test connector refused to open a connection to a non-loopback address."""


@dataclass
class FakeNetwork:
    """Answer DNS for the names given to :meth:`resolve`; record every connection asked for."""

    answers: dict[str, list[str]] = field(default_factory=dict)
    lookups: list[str] = field(default_factory=list)
    connections: list[tuple[str, int]] = field(default_factory=list)

    def resolve(self, hostname: str, *addresses: str) -> None:
        """Make ``hostname`` resolve to ``addresses`` from now on."""
        self.answers[hostname] = list(addresses)


@pytest.fixture
def fake_network(monkeypatch: pytest.MonkeyPatch) -> FakeNetwork:
    """Patch ``socket.getaddrinfo`` and urllib3's connector with a :class:`FakeNetwork`."""
    network = FakeNetwork()
    real_getaddrinfo = socket.getaddrinfo
    real_connect = connection.create_connection

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in network.answers:
            return real_getaddrinfo(host, port, *args, **kwargs)
        network.lookups.append(name)
        return [
            (socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM,
             socket.IPPROTO_TCP, "", (address, port or 0))
            for address in network.answers[name]
        ]

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        network.connections.append(address)
        if address[0] not in LOOPBACK:
            raise ConnectionRefusedByTest(f"the test refuses to connect to {address}")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(connection, "create_connection", create_connection)
    return network
