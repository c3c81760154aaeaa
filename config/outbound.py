"""Make server-side HTTP requests only to the addresses they are allowed to reach.

Cutoff calls URLs that users give it: webhooks, and an LMS's token, key set, roster and
grade services. Unless the operator setting ``CUTOFF_ALLOW_PRIVATE_URLS`` is true
(development, tests), each of those connections must go to public internet addresses only,
or a URL could make the worker reach services inside Cutoff's own network (a cloud metadata
endpoint, the database, Redis).

Checking a host name once, when it is registered, is not enough: its DNS answer can change
afterwards (DNS rebinding). So :func:`guarded_session` checks at every connection: it
resolves the host, refuses it unless *every* address is allowed, and connects to one of the
addresses it checked, not to a name resolved again later. The ``Host`` header, TLS SNI and
certificate check still use the host name. Proxies from the environment are ignored (a proxy
would connect on our behalf, unchecked).
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util import connection

REFUSED_MESSAGE = (
    "must resolve to public internet addresses only (private, loopback, link-local and "
    "reserved addresses are refused)"
)


class RefusedAddress(Exception):
    """A host resolves to an address server-side requests may not reach."""


def private_urls_allowed() -> bool:
    """Return whether the operator lets server-side requests reach private addresses."""
    return bool(getattr(settings, "CUTOFF_ALLOW_PRIVATE_URLS", False))


def is_public_address(address: str) -> bool:
    """Return whether ``address`` is a public unicast internet address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def checked_addresses(hostname: str, port: int | None = None) -> list[str]:
    """Return the addresses ``hostname`` resolves to, once checked.

    Raise :class:`RefusedAddress` unless every one is public (or private ones are allowed),
    and ``socket.gaierror`` when the name does not resolve.
    """
    infos = socket.getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise socket.gaierror(f"{hostname} resolves to no address")
    if not private_urls_allowed():
        refused = [address for address in addresses if not is_public_address(address)]
        if refused:
            raise RefusedAddress(f"{hostname} resolves to {', '.join(refused)}: {REFUSED_MESSAGE}")
    return addresses


def check_url_host(hostname: str) -> str | None:
    """Return why ``hostname`` may not be called server-side, or None when it may."""
    if private_urls_allowed():
        return None
    try:
        checked_addresses(hostname)
    except RefusedAddress:
        return REFUSED_MESSAGE
    except (socket.gaierror, UnicodeError):
        return "must be a host name that resolves (" + REFUSED_MESSAGE + ")"
    return None


class _CheckedConnectionMixin:
    """Open the socket to an address checked by :func:`checked_addresses`."""

    host: str
    port: int
    timeout: Any
    source_address: Any
    socket_options: Any
    _dns_host: str

    def _new_conn(self) -> socket.socket:
        try:
            addresses = checked_addresses(self._dns_host, self.port)
        except (socket.gaierror, UnicodeError) as error:
            raise NameResolutionError(
                self.host, self, error  # type: ignore[arg-type]
            ) from error
        except RefusedAddress as error:
            raise NewConnectionError(self, f"refused: {error}") from error  # type: ignore[arg-type]
        last_error: OSError | None = None
        for address in addresses:
            try:
                return connection.create_connection(
                    (address, self.port), self.timeout,
                    source_address=self.source_address, socket_options=self.socket_options,
                )
            except TimeoutError as error:
                raise ConnectTimeoutError(
                    self, f"connection to {self.host} timed out (connect timeout={self.timeout})"
                ) from error
            except OSError as error:
                last_error = error
        # The mixin is only ever mixed into HTTPConnection subclasses.
        raise NewConnectionError(
            self, f"failed to establish a new connection: {last_error}"  # type: ignore[arg-type]
        )


class CheckedHTTPConnection(_CheckedConnectionMixin, HTTPConnection):
    """An HTTP connection to a checked address."""


class CheckedHTTPSConnection(_CheckedConnectionMixin, HTTPSConnection):
    """An HTTPS connection to a checked address (SNI and certificate for the host name)."""


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = CheckedHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = CheckedHTTPSConnection


class CheckedAddressAdapter(HTTPAdapter):
    """A requests adapter whose every connection goes to a checked address."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        """Create the pool manager with pools of checked connections."""
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _CheckedHTTPPool, "https": _CheckedHTTPSPool,
        }


def guarded_session() -> requests.Session:
    """Return a requests session that connects only to checked addresses, without proxies."""
    session = requests.Session()
    session.trust_env = False
    adapter = CheckedAddressAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def refusal_in(error: BaseException) -> RefusedAddress | None:
    """Return the :class:`RefusedAddress` behind a requests/urllib3 error, if that is its cause."""
    seen: set[int] = set()
    pending: list[Any] = [error]
    while pending:
        current = pending.pop()
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, RefusedAddress):
            return current
        pending.extend([current.__cause__, current.__context__, getattr(current, "reason", None),
                        *current.args])
    return None
