"""What the tests' LMSs share (the simulator, tests/lms/simulator.py, and Open edX,
tests/lms/openedx_platform.py): a platform signing key with its public JWK, and an HTTP
server on a free 127.0.0.1 port that hands every request to the platform."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK


def new_rsa_key() -> tuple[str, dict[str, Any]]:
    """Return a fresh RSA private key (PEM) and its public JWK (with kid and alg)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    jwk = JWK.from_pem(pem.encode())
    public = json.loads(jwk.export_public())
    public.update({"kid": jwk.thumbprint(), "alg": "RS256", "use": "sig"})
    return pem, public


class LoopbackPlatform:
    """Give a test LMS its signing key and its HTTP server; the LMS answers in ``_handle``.

    Subclasses are dataclasses whose ``__post_init__`` calls this one's first.
    """

    private_key_pem: str
    public_jwk: dict[str, Any]
    kid: str

    def __post_init__(self) -> None:
        self.rotate_key()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def rotate_key(self) -> None:
        """Replace the platform's signing key (its JWKS then lists only the new one)."""
        self.private_key_pem, self.public_jwk = new_rsa_key()
        self.kid = self.public_jwk["kid"]

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> Self:
        """Serve on a free loopback port in a daemon thread."""
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                platform._handle(self, "GET")

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                platform._handle(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Keep the test output quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def issuer(self) -> str:
        """Return the platform's issuer (its base URL, the LMS root as Open edX sends it)."""
        assert self._server is not None, "start() the platform first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        """Return the absolute URL of ``path`` on the platform."""
        return self.issuer + path

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        """Answer one request (``method`` is GET or POST)."""
        raise NotImplementedError
