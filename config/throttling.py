"""Per-user throttles: one Redis round trip per request, and requests let through when their
cache (Redis) is unreachable.

Production keeps throttle counters in Redis, the broker's server. When it is down a request
must still be answered (a submission is stored and sent later by the outbox sweep), so an
unreachable cache means "not throttled" rather than a 500.

DRF's throttle reads the request history from the cache and writes it back (two round trips
and a pickled list per request: about 8 % of a web process's CPU per answer, bench/README.md
"Grading load"). With production's Redis cache the same sliding window is one Lua script over
a sorted set of the requests' times: the same rule (at most N requests in any window of the
rate's period; a refused request is not counted) and the same ``Retry-After``.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

from config.redis_cache import KeptClientRedisCache

logger = logging.getLogger(__name__)

SLIDING_WINDOW = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
    redis.call('EXPIRE', KEYS[1], ARGV[2])
    count = count + 1
    allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
return {allowed, count, oldest}
"""
"""KEYS[1]: the window; ARGV: now, the period in seconds, the limit, a unique member. Drops
the times older than the period, adds now if under the limit; returns (allowed, the count
now in the window, the oldest time in it as a string)."""


class RedisWindowRateThrottle(SimpleRateThrottle):
    """SimpleRateThrottle's sliding window, kept in Redis by one script when the cache is
    production's Redis cache (else DRF's own history in the cache)."""

    num_requests: int
    duration: int
    in_window: tuple[int, float] | None = None
    """(requests in the window, the oldest one's time) as the script last saw them."""

    def allow_request(self, request: Request, view: Any) -> bool:
        """Return whether this request is within the rate, counting it if so."""
        # DRF's ``cache`` is the default cache's proxy: look at the backend behind it.
        backend = caches[DEFAULT_CACHE_ALIAS]
        if not isinstance(backend, KeptClientRedisCache):
            self.in_window = None
            return bool(super().allow_request(request, view))
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        allowed, count, oldest = backend.script(SLIDING_WINDOW)(
            keys=[backend.make_and_validate_key(f"{self.key}:window")],
            args=[repr(self.now), self.duration, self.num_requests, uuid.uuid4().hex],
        )
        self.in_window = (int(count), float(oldest))
        return bool(allowed)

    def wait(self) -> float | None:
        """Return the seconds until the next request may pass, as DRF computes them."""
        if self.in_window is None:
            return super().wait()  # type: ignore[no-any-return]
        count, oldest = self.in_window
        remaining = self.duration - (self.now - oldest)
        available = self.num_requests - count + 1
        return remaining / available if available > 0 else None


class AvailableScopedRateThrottle(ScopedRateThrottle, RedisWindowRateThrottle):
    """Throttle like ScopedRateThrottle (in one Redis round trip), but allow the request when
    the cache cannot answer."""

    def allow_request(self, request: Request, view: Any) -> bool:
        """Return whether the request is within its scope's rate (True if Redis is down)."""
        try:
            return bool(super().allow_request(request, view))
        except RedisError as error:
            logger.warning("throttle cache unavailable, request not throttled: %s", error)
            return True
