"""A Pod on its way up or down, in words: terminating (since when, in which grace period), or
held by an init container (which, in what state). Pure; ``now`` is passed in.

A stop's wait, and its Timeout, show the Pods still terminating: the ReplicaSet stops counting
a Pod the moment it is marked for deletion, so the Deployment's counts say ``0 live`` while
its containers run through their grace period. A start whose Pod is ``Pending`` may be held by
an init container: the phase alone does not say so.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .clock import parse_time


def _seconds(value: float) -> str:
    return f"{max(0, int(value))}s"


def terminating(pod: dict[str, Any], now: datetime) -> str | None:
    """``terminating for 12s of its 30s grace period (deletion requested 05:01:02Z)``, or None
    for a Pod not being deleted. The API server sets ``deletionTimestamp`` to the request's
    time plus the grace period (when the kubelet kills what still runs), so the request's time
    is that less ``deletionGracePeriodSeconds``."""
    meta = pod.get("metadata") or {}
    deadline = parse_time(meta.get("deletionTimestamp"))
    if deadline is None:
        return None
    grace = meta.get("deletionGracePeriodSeconds")
    if not isinstance(grace, int) or isinstance(grace, bool):
        return f"terminating (to be killed at {meta.get('deletionTimestamp')})"
    since = deadline - timedelta(seconds=grace)
    return (
        f"terminating for {_seconds((now - since).total_seconds())} of its {grace}s grace "
        f"period (deletion requested {since.strftime('%H:%M:%SZ')})"
    )


def _state(status: dict[str, Any], now: datetime) -> str:
    state = status.get("state") or {}
    if "running" in state:
        started = parse_time((state.get("running") or {}).get("startedAt"))
        if started is None:
            return "running"
        return f"running (started {_seconds((now - started).total_seconds())} ago)"
    for kind in ("waiting", "terminated"):
        if kind in state:
            detail = state.get(kind) or {}
            reason = detail.get("reason")
            if kind == "terminated" and "exitCode" in detail:
                reason = f"{reason or 'exited'}, exit code {detail['exitCode']}"
            return f"{kind}: {reason}" if reason else kind
    return "not started"


def init_holding(pod: dict[str, Any], now: datetime) -> str | None:
    """``init container setup running (started 5s ago)``: the first init container not done
    (no sidecar: one with ``restartPolicy: Always`` runs beside the app), or None."""
    spec = pod.get("spec") or {}
    sidecars = {
        c.get("name")
        for c in spec.get("initContainers") or []
        if c.get("restartPolicy") == "Always"
    }
    for status in (pod.get("status") or {}).get("initContainerStatuses") or []:
        if status.get("name") in sidecars:
            continue
        terminated = (status.get("state") or {}).get("terminated") or {}
        if terminated.get("exitCode") == 0:
            continue
        return f"init container {status.get('name')} {_state(status, now)}"
    return None


def pod_words(pod: dict[str, Any], now: datetime) -> str:
    """``pod P: Pending, init container setup running …``, ``pod P terminating for …``."""
    name = (pod.get("metadata") or {}).get("name", "?")
    going = terminating(pod, now)
    if going is not None:
        return f"pod {name} {going}"
    phase = (pod.get("status") or {}).get("phase", "Unknown")
    held = init_holding(pod, now) if phase == "Pending" else None
    return f"pod {name}: {phase}" + (f", {held}" if held else "")


def _short(pod: dict[str, Any], now: datetime) -> str | None:
    """A progress line's few words on one Pod: terminating, or held by an init container."""
    name = (pod.get("metadata") or {}).get("name", "?")
    meta = pod.get("metadata") or {}
    deadline = parse_time(meta.get("deletionTimestamp"))
    grace = meta.get("deletionGracePeriodSeconds")
    if deadline is not None and isinstance(grace, int):
        # A time, not a count: the line is redrawn every second between watch events.
        since = (deadline - timedelta(seconds=grace)).strftime("%H:%M:%SZ")
        return f"pod {name} terminating since {since} (grace period {grace}s)"
    if deadline is not None:
        return f"pod {name} terminating"
    if (pod.get("status") or {}).get("phase") == "Pending":
        held = init_holding(pod, now)
        return f"pod {name} Pending, {held}" if held else None
    return None


def progress_note(pods: list[dict[str, Any]], now: datetime) -> str:
    """What a progress line shows before the Deployment's counts: the Pods still
    terminating, and a Pod held by an init container; empty when neither."""
    return "; ".join(sorted(w for pod in pods if (w := _short(pod, now)) is not None))


def stop_headline(
    deployment: dict[str, Any] | None, pods: list[dict[str, Any]], now: datetime
) -> str:
    """What a stop that ran out of time has done and what it still waits for: the scale to 0
    (observed by the controller, or not yet), then each Pod left, terminating or not."""
    status = (deployment or {}).get("status") or {}
    meta = (deployment or {}).get("metadata") or {}
    observed = status.get("observedGeneration", 0) >= meta.get("generation", 0)
    scaled = (
        "scaled to 0 (the controller has observed it)"
        if deployment is not None and observed
        else "scaled to 0, not yet observed by the controller"
    )
    left = [pod_words(pod, now) for pod in pods]
    if not left:
        return scaled
    return f"{scaled}; {len(left)} Pod{'s' if len(left) > 1 else ''} left: " + "; ".join(left)


def wait_for_pods_command(pods: list[dict[str, Any]], namespace: str, now: datetime) -> str:
    """``kubectl wait --for=delete pod/P -n NS --timeout=40s``: to follow the Pods left, for
    what is left of their grace periods (when the kubelet kills them) and 10 s more."""
    names = " ".join(f"pod/{(p.get('metadata') or {}).get('name', '?')}" for p in pods)
    ends = [parse_time((p.get("metadata") or {}).get("deletionTimestamp")) for p in pods]
    left = [(end - now).total_seconds() for end in ends if end is not None]
    bound = int(max(left, default=50)) + 10
    return f"kubectl wait --for=delete {names} -n {namespace} --timeout={max(bound, 10)}s"
