"""Which kubectl the adapter can use: the oldest release with every flag it passes, and
kubectl's own version skew policy against the API server.

``check`` reports against this; the error table names it when a kubectl rejects a flag.
"""

from __future__ import annotations

import re
from typing import Any

# The flags the adapter passes (kubectl/commands.py, kubectl/runner.py) that appeared late,
# with the release that brought each; every other flag it passes is older than all of them.
FLAG_RELEASES: dict[str, tuple[int, int]] = {
    # get/patch/apply print managedFields only when asked since 1.21 (kubernetes#96878);
    # before that the flag is unknown ("Error: unknown flag: --show-managed-fields").
    "--show-managed-fields": (1, 21),
    # --cascade took a boolean until 1.20 (kubernetes#93384): "foreground" was rejected.
    "--cascade=foreground": (1, 20),
    # get --watch printing each event's type.
    "--output-watch-events": (1, 16),
}

OLDEST_KUBECTL: tuple[int, int] = max(FLAG_RELEASES.values())

# kubectl's skew policy: supported within one minor version (older or newer) of the server.
SKEW_MINORS = 1

_GIT_VERSION = re.compile(r"^v?(?P<major>\d+)\.(?P<minor>\d+)")


def release(version: Any) -> tuple[int, int] | None:
    """``(major, minor)`` of a ``kubectl version -o json`` half (``clientVersion`` or
    ``serverVersion``): from ``gitVersion``, else ``major``/``minor`` (``"32+"`` on some
    builds); None when neither says."""
    if not isinstance(version, dict):
        return None
    found = _GIT_VERSION.match(str(version.get("gitVersion") or ""))
    if found:
        return int(found["major"]), int(found["minor"])
    major = re.match(r"\d+", str(version.get("major") or ""))
    minor = re.match(r"\d+", str(version.get("minor") or ""))
    if major and minor:
        return int(major.group()), int(minor.group())
    return None


def shown(version: tuple[int, int]) -> str:
    return f"v{version[0]}.{version[1]}"


def supported_range(server: tuple[int, int] | None) -> str:
    """The kubectl releases that can drive this server, in words."""
    oldest = shown(OLDEST_KUBECTL)
    if server is None:
        return f"{oldest} or newer, within {SKEW_MINORS} minor version of the API server"
    low = max(OLDEST_KUBECTL, (server[0], server[1] - SKEW_MINORS))
    high = (server[0], server[1] + SKEW_MINORS)
    if low > high:
        return (
            f"none: the adapter needs kubectl {oldest} or newer, and kubectl's skew policy "
            f"allows at most {shown(high)} for this server"
        )
    return f"{shown(low)} to {shown(high)}"


def kubectl_problems(client: Any, server: Any) -> list[str]:
    """Why this kubectl cannot serve the adapter against this server (empty: it can)."""
    ours, theirs = release(client), release(server)
    problems = []
    if ours is None:
        problems.append("kubectl did not say its version (clientVersion)")
    elif ours < OLDEST_KUBECTL:
        late = sorted(flag for flag, since in FLAG_RELEASES.items() if since > ours)
        problems.append(
            f"kubectl {shown(ours)} is older than {shown(OLDEST_KUBECTL)}, the oldest that "
            f"knows every flag the adapter passes (missing: {', '.join(late)})"
        )
    if ours is None or theirs is None:
        return problems
    if ours[0] != theirs[0] or abs(ours[1] - theirs[1]) > SKEW_MINORS:
        problems.append(
            f"kubectl {shown(ours)} is more than {SKEW_MINORS} minor version from the API "
            f"server's {shown(theirs)} (kubectl's version skew policy)"
        )
    return problems
