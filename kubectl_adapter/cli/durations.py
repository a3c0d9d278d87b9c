"""Time flags as kubectl writes them: Go durations (``90s``, ``5m``, ``1h30m``, ``1.5h``).

The grammar is Go's ``time.ParseDuration`` (go/src/time/format.go): an optional sign, then
one or more decimal numbers, each with an optional fraction and a unit among ``ns``, ``us``
(``µs``, ``μs``), ``ms``, ``s``, ``m``, ``h``; ``0`` alone is zero. A bare number is seconds, as
kubectl's ``--request-timeout`` takes it (client-go's ``clientcmd.ParseTimeout``), and as every
flag of the adapter always took it. The bounds stay the adapter's: > 0 and at most a day.
"""

from __future__ import annotations

import math
import re

__all__ = ["ACCEPTED", "go_duration_seconds", "seconds_of"]

# Go's units, in nanoseconds; "µ" is U+00B5 MICRO SIGN and "μ" U+03BC GREEK SMALL LETTER MU.
_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
_MAX_NS = (1 << 63) - 1  # Go's time.Duration is an int64 of nanoseconds
_DIGITS = "0123456789"
ACCEPTED = "a duration such as 90s, 5m or 1h30m, or seconds such as 90"


def go_duration_seconds(text: str) -> float:
    """``time.ParseDuration(text)`` in seconds; ValueError where Go returns an error."""
    orig, s = text, text
    negative = False
    if s[:1] in ("-", "+"):
        negative, s = s[0] == "-", s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise ValueError(f"invalid duration {orig!r}")
    total = 0
    while s:
        i = 0
        while i < len(s) and s[i] in _DIGITS:
            i += 1
        whole, s = s[:i], s[i:]
        fraction = ""
        if s[:1] == ".":
            s = s[1:]
            i = 0
            while i < len(s) and s[i] in _DIGITS:
                i += 1
            fraction, s = s[:i], s[i:]
        if not whole and not fraction:
            raise ValueError(f"invalid duration {orig!r}")
        i = 0
        while i < len(s) and s[i] != "." and s[i] not in _DIGITS:
            i += 1
        unit, s = s[:i], s[i:]
        if not unit:
            raise ValueError(f"missing unit in duration {orig!r}")
        if unit not in _UNITS:
            raise ValueError(f"unknown unit {unit!r} in duration {orig!r}")
        scale = _UNITS[unit]
        value = int(whole or "0")
        if value > _MAX_NS // scale:
            raise ValueError(f"invalid duration {orig!r}")
        nanos = value * scale
        if fraction:
            # Go keeps about 19 significant fraction digits and rounds toward zero; the
            # adapter's bounds (a day) make the difference under a nanosecond.
            nanos += int(int(fraction[:30]) * scale // 10 ** len(fraction[:30]))
        total += nanos
        if total > _MAX_NS:
            raise ValueError(f"invalid duration {orig!r}")
    return (-total if negative else total) / 1e9


# A bare number, as the adapter's flags always took one (``90``, ``2.5``, ``1e3``): a decimal
# literal, never Python's other float spellings (``inf``, ``1_000``, `` 5``).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _bare_seconds(text: str) -> float | None:
    """A bare decimal number: seconds."""
    return float(text) if _DECIMAL.fullmatch(text) else None


def seconds_of(text: str, *, maximum: float) -> float:
    """A time flag's value in seconds, > 0 and <= ``maximum``; ValueError naming an accepted
    form otherwise."""
    seconds = _bare_seconds(text)
    if seconds is None:
        try:
            seconds = go_duration_seconds(text)
        except ValueError:
            raise ValueError(f"{text!r} is not {ACCEPTED}") from None
    if not (math.isfinite(seconds) and 0 < seconds <= maximum):
        raise ValueError(
            f"{text!r} is out of range: give more than 0 and at most "
            f"{_go_form(maximum)}: {ACCEPTED}"
        )
    return seconds


def _go_form(seconds: float) -> str:
    """``86400`` as Go prints it for the bound: ``24h``."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return "".join(f"{n}{u}" for n, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if n) or "0s"
