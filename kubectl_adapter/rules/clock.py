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


def human_duration(seconds: float) -> str:
    """An age as kubectl prints it (apimachinery's ``duration.HumanDuration``): ``45s``,
    ``5m10s``, ``3h``, ``2d``; more detail while the unit is young. Up to a second in the
    future is "now" (clocks differ); more is ``<invalid>``."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        return _two(minutes, "m", whole % 60, "s")
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        return _two(hours, "h", minutes % 60, "m")
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return _two(hours // 24, "d", hours % 24, "h")
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        return _two(hours // 24 // 365, "y", hours // 24 % 365, "d")
    return f"{hours // 24 // 365}y"


def _two(big: int, unit: str, small: int, small_unit: str) -> str:
    return f"{big}{unit}" + (f"{small}{small_unit}" if small else "")


def age(timestamp: object, now: datetime) -> str:
    """``human_duration`` since an API timestamp; ``<unknown>`` without one, as kubectl."""
    since = parse_time(timestamp)
    return "<unknown>" if since is None else human_duration((now - since).total_seconds())
