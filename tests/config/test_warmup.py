"""The warm-up of a serving process's database connections (config.warmup)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.warmup import answer_path_statements, warm_statements


def warmed_on_a_new_connection(statements: Callable[[], Sequence[Callable[[], object]]]
                               ) -> tuple[int, int | None]:
    """Warm ``statements()`` up on a new thread's new connection; return how many statements
    it ran and how many that connection then had prepared (None but on PostgreSQL)."""
    found: dict[str, Any] = {}

    def run() -> None:
        try:
            with CaptureQueriesContext(connection) as queries:
                warm_statements(statements())
            found["ran"] = len(queries.captured_queries)
            found["prepared"] = None
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SELECT count(*) FROM pg_prepared_statements")
                    found["prepared"] = cursor.fetchone()[0]
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    return found["ran"], found["prepared"]


@pytest.mark.django_db(transaction=True)
def test_the_answer_path_s_statements_are_prepared_on_a_warmed_connection() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("psycopg prepares statements on PostgreSQL only")

    ran, prepared = warmed_on_a_new_connection(answer_path_statements)

    # The token, the open's two reads, the answer's item, lock and attempts, the grade's
    # re-read, a status read: each run until prepared (6 times at the threshold of 5).
    assert prepared == 8
    assert ran == 8 * (settings.DATABASE_PREPARE_THRESHOLD + 1)


@pytest.mark.django_db(transaction=True)
def test_a_failing_warm_up_is_logged_and_the_process_serves(caplog: Any) -> None:
    def broken() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table_anywhere")

    warm_statements([broken])

    assert "the database warm-up failed" in caplog.text
    with connection.cursor() as cursor:  # the connection still serves
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
