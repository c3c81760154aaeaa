"""The Redis broker transport: kombu's, with a channel that closes cleanly when Redis vanished
and that keeps its Redis client.

Why: with kombu 5.7 and Celery 5.7, a worker holding an unacknowledged message (a task
running under ``acks_late``, a prefetched one, or one waiting for its ETA) exits with
``Unrecoverable error: AttributeError("'NoneType' object has no attribute 'hostname'")``
when the Redis connection is lost while a ``BRPOP`` is in flight. The sequence:

1. Celery's consumer, on the connection error, calls ``Connection.collect()``, which closes
   the default channel. kombu's ``Channel.close()`` first reads the reply of the ``BRPOP``
   in flight; against a dead broker that read raises ``ConnectionError`` *before* the
   channel is marked closed (the error is swallowed by ``maybe_close_channel``).
2. ``collect()`` then clears the transport's ``client`` (the connection info), and Celery
   calls ``Connection.close()``, which closes the same channel again. This time it gets as
   far as restoring the unacknowledged messages, which needs a Redis client built from the
   connection info that is now ``None``: ``AttributeError``. That is not one of the
   transport's connection errors, so it escapes and kills the worker (and the beat it
   embeds).

No other kombu/celery release is available to us, and no setting avoids the in-flight
``BRPOP`` (remote control, the unacked-restore timer and the heartbeat check all talk to the
broker while it is pending). The fix is one step: a dead ``BRPOP`` no longer stops the first
close, so the channel is marked closed then and the second close does nothing. The restore
itself still fails (the broker is down): the messages stay in Redis's unacked set until the
visibility timeout, and :func:`grading.services.requeue_after_broker_outage` sends the
submissions again as soon as the worker is reconnected.

The channel also keeps one synchronous Redis client per connection pool: kombu makes a new
``redis.Redis`` for every publish, acknowledgement and unacked-list write, and its
constructor (copying some 200 response callbacks) cost about 6 % of a web process's CPU per
answer and 12 % of the worker's main process (bench/README.md, "Grading load").
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from queue import Empty
from typing import Any

from kombu.transport import TRANSPORT_ALIASES, _transport_cache, redis

logger = logging.getLogger(__name__)


class Channel(redis.Channel):
    """A Redis channel whose ``close()`` survives the broker having gone away, and which
    keeps its synchronous client."""

    _kept_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        """Yield ``client``, else this channel's synchronous client over its current pool.

        The client is made again whenever kombu replaced the pool (after a lost
        connection it disconnects and drops its pools); a ``redis.Redis`` is safe to
        share between threads: each command takes a connection from the pool.
        """
        if client:
            yield client
            return
        pool = self.pool
        if self._kept_client is None or self._kept_client.connection_pool is not pool:
            self._kept_client = self._create_client()
        yield self._kept_client

    def close(self) -> None:
        """Read or drop the pending BRPOP, then close as kombu does."""
        if self._in_poll:
            try:
                self._brpop_read()
            except Empty:
                pass
            except self.connection_errors:
                # The connection is gone: whatever BRPOP may have popped is not ours to
                # restore (it was never delivered); _brpop_read cleared _in_poll.
                pass
        super().close()

    def basic_ack(self, delivery_tag: Any, multiple: bool = False) -> None:
        """Acknowledge a message, unless its channel closed with a lost connection.

        A task that was running when the broker went away finishes after Celery reconnected;
        its message belongs to the old channel, which has no connection to acknowledge on
        (kombu would fail with the same AttributeError). Redis still lists the message as
        unacknowledged and delivers it again after the visibility timeout; the grading
        services make that second delivery a no-op.
        """
        if self.closed:
            logger.warning("not acknowledging message %s of a channel closed by a lost "
                           "broker connection; it comes back after the visibility timeout",
                           delivery_tag)
            return
        super().basic_ack(delivery_tag, multiple=multiple)

    def basic_reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        """Reject a message, unless its channel closed with a lost connection (as above)."""
        if self.closed:
            logger.warning("not rejecting message %s of a channel closed by a lost broker "
                           "connection; it comes back after the visibility timeout",
                           delivery_tag)
            return
        super().basic_reject(delivery_tag, requeue=requeue)


class Transport(redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel


def use_this_transport_for_redis_urls() -> None:
    """Make ``redis://``, ``rediss://`` and ``redis+socket://`` broker URLs use :class:`Transport`.

    kombu picks a transport by the URL's scheme through this alias table (Celery's
    ``broker_transport`` setting does not apply to ``redis+socket://`` URLs).
    """
    for scheme in ("redis", "rediss"):
        TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
        _transport_cache.pop(scheme, None)
