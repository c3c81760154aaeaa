"""The sandbox's small exception tree."""


class SandboxError(Exception):
    """Base class of every error the sandbox raises on purpose."""


class SandboxUnavailable(SandboxError):
    """The host lacks something the sandbox needs; the message says what to install or fix."""


class ProtocolViolation(SandboxError):
    """The sandboxed process sent something the harness protocol does not allow."""
