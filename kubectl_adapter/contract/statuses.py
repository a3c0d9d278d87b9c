"""Manager's container statuses: the words Manager stores and shows."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """A Manager container's status; docs/lifecycle.md says when each one applies."""

    RUNNING = "running"
    OFFLINE = "offline"
    CREATING = "creating"
    FAILED = "failed"
    MISSING = "missing"
    UNKNOWN = "unknown"
