"""The adapter's one exception hierarchy.

Every failure the CLI reports is one of these; each has a stable ``type`` (the JSON contract)
and a CLI exit code::

    AdapterError                      exit 1  (base; never raised itself)
    ├── InternalError                 exit 1  a bug, or kubectl failed in a way we do not know
    ├── InvalidInput                  exit 2  bad spec, bad flag, usage
    │   └── InvalidProviderId         exit 2  provider ID is not ``namespace/name``
    ├── NotFound                      exit 3  the Deployment (or namespace) does not exist
    ├── Unauthorized                  exit 4  HTTP 401, no or bad credentials
    ├── Forbidden                     exit 5  HTTP 403, RBAC denies the call
    ├── Conflict                      exit 6  HTTP 409, or the Deployment is not this container's
    ├── Timeout                       exit 7  a bounded wait or a kubectl process ran out of time
    ├── Unavailable                   exit 8  API unreachable, refused, DNS/TLS, 5xx/429
    ├── ConfigurationError            exit 9  kubectl missing, kubeconfig/context missing or invalid
    ├── RolloutFailed                 exit 10 progress deadline exceeded or a pod failure seen
    ├── OutputFailed                  exit 11 done, but stdout could not take the document
    └── Interrupted                   exit 130 SIGINT; 128 + the signal (129 SIGHUP, 143 SIGTERM)

Messages and details must already be redacted when an error is built (see ``redact``).
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "AdapterError",
    "ConfigurationError",
    "Conflict",
    "Forbidden",
    "InternalError",
    "Interrupted",
    "InvalidInput",
    "InvalidProviderId",
    "NotFound",
    "OutputFailed",
    "RolloutFailed",
    "Timeout",
    "Unauthorized",
    "Unavailable",
]


class AdapterError(Exception):
    """Base of every error the adapter raises on purpose."""

    type: ClassVar[str] = "AdapterError"
    exit_code: ClassVar[int] = 1

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        from .redact import redact, redact_value

        self.message = redact(message)
        self.details: dict[str, Any] = redact_value(details or {})
        super().__init__(self.message)

    def to_json(self) -> dict[str, Any]:
        """The ``{"error": ...}`` document the CLI prints on stdout."""
        return {"error": {"type": self.type, "message": self.message, "details": self.details}}


class InternalError(AdapterError):
    """Raised for bugs and for kubectl failures no rule in the error table recognises."""

    type = "InternalError"
    exit_code = 1


class InvalidInput(AdapterError):
    """Raised for a bad spec, flag or argument, before anything is sent to the cluster."""

    type = "InvalidInput"
    exit_code = 2


class InvalidProviderId(InvalidInput):
    """Raised when a provider ID is not exactly ``namespace/name`` of DNS-1123 labels."""

    type = "InvalidProviderId"
    exit_code = 2


class NotFound(AdapterError):
    """Raised when the Deployment or namespace does not exist where that is an error."""

    type = "NotFound"
    exit_code = 3


class Unauthorized(AdapterError):
    """Raised on HTTP 401: credentials missing, expired or rejected."""

    type = "Unauthorized"
    exit_code = 4


class Forbidden(AdapterError):
    """Raised on HTTP 403: authenticated, but RBAC denies the call."""

    type = "Forbidden"
    exit_code = 5


class Conflict(AdapterError):
    """Raised on HTTP 409, or when the Deployment exists but belongs to someone else."""

    type = "Conflict"
    exit_code = 6


class Timeout(AdapterError):
    """Raised when a bounded wait or a kubectl process runs out of time."""

    type = "Timeout"
    exit_code = 7


class Unavailable(AdapterError):
    """Raised when the API server cannot be reached or answers 5xx/429."""

    type = "Unavailable"
    exit_code = 8


class ConfigurationError(AdapterError):
    """Raised when kubectl, the kubeconfig or the context is missing or invalid."""

    type = "ConfigurationError"
    exit_code = 9


class RolloutFailed(AdapterError):
    """Raised when the rollout cannot succeed: progress deadline or a failing pod."""

    type = "RolloutFailed"
    exit_code = 10


class OutputFailed(AdapterError):
    """Raised when a command succeeded but stdout could not take its document (closed, full,
    or its reader went away): the work stands, only the report is lost. Never printed on
    stdout (it cannot be); the CLI says why on stderr. A failed command keeps its own code.
    """

    type = "OutputFailed"
    exit_code = 11


class Interrupted(AdapterError):
    """Raised when a signal (SIGINT, SIGTERM, SIGHUP) ends the command; kubectl was killed.

    The CLI exits 128 + the signal's number, as a shell reports a process a signal ended;
    ``exit_code`` is SIGINT's. What already happened on the cluster stays: read ``status``.
    """

    type = "Interrupted"
    exit_code = 130


ALL_ERRORS: tuple[type[AdapterError], ...] = (
    InternalError,
    InvalidInput,
    InvalidProviderId,
    NotFound,
    Unauthorized,
    Forbidden,
    Conflict,
    Timeout,
    Unavailable,
    ConfigurationError,
    RolloutFailed,
    OutputFailed,
    Interrupted,
)
