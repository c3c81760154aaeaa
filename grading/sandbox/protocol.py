"""Frame the JSON messages exchanged between the grader and the sandboxed bootstrap.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON holding one
object. ``bootstrap.py`` carries its own copy of these few lines because it runs under the
system interpreter, where this package does not exist.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from .errors import ProtocolViolation

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 1024 * 1024
"""Largest frame the grader accepts from the sandbox; a bigger one is a protocol violation."""


def encode_frame(message: dict[str, Any]) -> bytes:
    """Return ``message`` as one length-prefixed frame."""
    body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode()
    return HEADER.pack(len(body)) + body


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class FrameReader:
    """Reassemble frames from arbitrary chunks of bytes read from the sandbox."""

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        """Append bytes read from the pipe."""
        self._buffer += data

    @property
    def pending(self) -> int:
        """Return how many bytes are buffered but not yet returned as a frame."""
        return len(self._buffer)

    def next_frame(self) -> dict[str, Any] | None:
        """Return the next complete message, ``None`` if incomplete, or raise ProtocolViolation."""
        if len(self._buffer) < HEADER.size:
            return None
        (length,) = HEADER.unpack_from(self._buffer)
        if length > self.max_frame_bytes:
            raise ProtocolViolation(
                f"frame of {length} bytes exceeds the {self.max_frame_bytes}-byte limit")
        if len(self._buffer) < HEADER.size + length:
            return None
        body = bytes(self._buffer[HEADER.size:HEADER.size + length])
        del self._buffer[:HEADER.size + length]
        try:
            message = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ProtocolViolation(f"frame is not valid JSON: {exc}") from None
        if not isinstance(message, dict):
            raise ProtocolViolation(f"frame holds a JSON {type(message).__name__}, not an object")
        return message
