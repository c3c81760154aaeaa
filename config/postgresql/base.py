"""Django's PostgreSQL backend, checking a kept connection without a query when it can.

With ``CONN_HEALTH_CHECKS`` Django runs ``SELECT 1`` before the first query of every
request and task on a kept connection: one round trip of thirteen in a submission, and one
of the grading task's. A server that drops a connection (a restart, an administrator's
``pg_terminate_backend``, ``idle_session_timeout``) first sends the session its FATAL
notice and closes the socket, so an idle connection whose socket has nothing to read is
still open. Only when something arrived (that notice, the end of the stream, or a message
the session did not ask for) does the check run the query, which then reads it and fails.
A connection whose peer vanished without a word (a lost network) passes both checks alike:
its first query fails, as it would after a ``SELECT 1`` that happened to go through.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


def has_unread_data(fileno: int) -> bool:
    """Return whether the socket ``fileno`` has bytes to read, or its peer closed it."""
    poller = select.poll()
    poller.register(fileno, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


class DatabaseWrapper(base.DatabaseWrapper):
    """Django's PostgreSQL wrapper whose ``is_usable`` queries only when it must."""

    def is_usable(self) -> bool:
        """Return whether the connection still works: without a query while it is idle and
        the server has sent it nothing, else by running ``SELECT 1``."""
        kept = self.connection
        if kept is None or kept.closed or kept.broken:
            return False
        if kept.info.transaction_status != TransactionStatus.IDLE:
            return bool(super().is_usable())
        try:
            quiet = not has_unread_data(kept.fileno())
        except (OSError, ValueError):  # a socket already gone
            return False
        return quiet or bool(super().is_usable())
