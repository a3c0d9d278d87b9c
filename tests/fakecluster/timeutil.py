"""Timestamps in the RFC 3339 (second precision) form the API server uses."""

from __future__ import annotations

import datetime as _dt


def now_rfc3339(offset_seconds: float = 0.0) -> str:
    t = _dt.datetime.now(_dt.UTC) + _dt.timedelta(seconds=offset_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def now_micro() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
