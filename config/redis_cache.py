"""Django's Redis cache backend, keeping its Redis client instead of making one per call.

Why: Django's ``RedisCacheClient`` makes a new ``redis.Redis`` for every cache operation, and
its constructor copies some 200 response callbacks; the submissions throttle reads and writes
the cache on every answer, which made it about 8 % of a web process's CPU per answer
(bench/README.md, "Grading load"). The connection pools are Django's own, as before.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class KeptClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, with one ``redis.Redis`` for writes and one for reads.

    With one server (as deployed) both use its pool; with replicas, reads stay on the
    replica first picked instead of a random one per call.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept_clients: dict[bool, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """Return the client for writes or for reads (made once, then kept)."""
        client = self._kept_clients.get(write)
        if client is None:
            client = self._kept_clients[write] = super().get_client(key, write=write)
        return client


class KeptClientRedisCache(RedisCache):
    """Django's ``RedisCache`` using :class:`KeptClientRedisCacheClient`, which can also run
    Lua scripts (the throttles' sliding window, config.throttling)."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
        self._scripts: dict[str, Any] = {}

    def connect(self) -> None:
        """Open a connection to the write server now (a PING), kept in its pool."""
        self._cache.get_client(write=True).ping()

    def script(self, source: str) -> Any:
        """Return ``source`` as a script callable on the write server (registered once: run
        by its SHA, sent again only if the server lost it)."""
        script = self._scripts.get(source)
        if script is None:
            client = self._cache.get_client(write=True)
            script = self._scripts[source] = client.register_script(source)
        return script
