"""Per-user throttles that let requests through when their cache (Redis) is unreachable.

Production keeps throttle counters in Redis, the broker's server. When it is down a request
must still be answered (a submission is stored and sent later by the outbox sweep), so an
unreachable cache means "not throttled" rather than a 500.
"""

from __future__ import annotations

import logging
from typing import Any

from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle

logger = logging.getLogger(__name__)


class AvailableScopedRateThrottle(ScopedRateThrottle):
    """Throttle like ScopedRateThrottle, but allow the request when the cache cannot answer."""

    def allow_request(self, request: Request, view: Any) -> bool:
        """Return whether the request is within its scope's rate (True if Redis is down)."""
        try:
            return super().allow_request(request, view)
        except RedisError as error:
            logger.warning("throttle cache unavailable, request not throttled: %s", error)
            return True
