"""The PostgreSQL backend checks a kept connection with no query while the server has sent it
nothing, and still replaces one the server dropped before a request uses it."""

from __future__ import annotations

import pytest
from django.db import close_old_connections, connection, connections
from django.db.backends.postgresql.base import DatabaseWrapper as DjangoWrapper

from config.postgresql.base import has_unread_data
from tests.conftest import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL sessions"),
]


def backend_pid() -> int:
    """Return the server process of the default connection (a query: starts it if needed)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def new_request() -> None:
    """Do what Django does between two requests: the next query checks the connection."""
    close_old_connections()


def test_it_is_the_backend_the_settings_name() -> None:
    assert connection.settings_dict["ENGINE"] == "config.postgresql"
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True


def test_a_quiet_connection_is_usable_without_a_query(monkeypatch: pytest.MonkeyPatch) -> None:
    first = backend_pid()

    def no_query(self: DjangoWrapper) -> bool:
        raise AssertionError("the health check queried a connection the server left alone")

    monkeypatch.setattr(DjangoWrapper, "is_usable", no_query)
    new_request()
    assert connection.is_usable()
    monkeypatch.undo()
    assert backend_pid() == first


def test_a_connection_the_server_dropped_is_replaced_before_the_next_query() -> None:
    dropped = backend_pid()
    socket = connection.connection.fileno()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [dropped])
    finally:
        other.close()
    assert wait_until(lambda: has_unread_data(socket), timeout=10)
    new_request()
    assert not connection.is_usable()
    # The request's first query runs on a new connection instead of failing.
    assert backend_pid() != dropped


def test_a_connection_inside_a_transaction_is_checked_by_a_query() -> None:
    backend_pid()
    connection.connection.execute("BEGIN")
    try:
        assert connection.is_usable()
    finally:
        connection.connection.execute("ROLLBACK")


def test_a_closed_connection_is_not_usable() -> None:
    backend_pid()
    connection.connection.close()
    assert not connection.is_usable()
    connection.close()
