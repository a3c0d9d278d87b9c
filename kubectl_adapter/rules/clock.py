"""The wall clock and Kubernetes timestamps.

The status rules are pure and take ``now`` as an argument; the edges (``list``, ``status``,
the waits, the diagnostics) read it here, the one place tests pin it.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def parse_time(value: object) -> datetime | None:
    """An RFC 3339 timestamp as the API prints it (``2026-11-30T00:00:01Z``), else None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
