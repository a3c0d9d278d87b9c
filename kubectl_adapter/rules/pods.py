"""Pure readings of Pod JSON: which pod is current, what is failing, and what only looks so.

Every rule that depends on time takes ``now``; nothing here reads the clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from .clock import parse_time
from .selection import Owned, select_owned

# kstatus gives a Pod this long to be scheduled before Unschedulable is a failure: it is often
# transient (a node being added, resources freed by a terminating Pod).
UNSCHEDULABLE_GRACE_SECONDS = 15.0
# Waiting reasons that will not fix themselves (kubectl rollout status never reports them);
# beyond these, any reason shaped like Err*, *Error or *BackOff (Argo CD's rule).
FAILING_WAIT_REASONS = frozenset(
    {
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "ErrImageNeverPull",
        "CrashLoopBackOff",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)
# The kubelet's waiting reasons on the way up; never a failure.
NORMAL_WAIT_REASONS = frozenset({"ContainerCreating", "PodInitializing"})
TERMINAL_PHASES = frozenset({"Failed", "Succeeded"})
NODE_LOST_REASON = "NodeLost"


class PodFailure(NamedTuple):
    pod: str
    container: str | None
    reason: str
    message: str
    restarts: int
    init: bool = False


def is_ready(pod: dict[str, Any]) -> bool:
    return _condition_status(pod, "Ready") == "True"


def _condition(pod: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return None


def _condition_status(pod: dict[str, Any], kind: str) -> str | None:
    condition = _condition(pod, kind)
    return None if condition is None else str(condition.get("status"))


def is_terminating(obj: dict[str, Any]) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def is_terminal(pod: dict[str, Any]) -> bool:
    """Failed or Succeeded (an evicted Pod, for one): its ReplicaSet creates a replacement."""
    return (pod.get("status") or {}).get("phase") in TERMINAL_PHASES


def is_node_lost(pod: dict[str, Any]) -> bool:
    """On a node that stopped reporting: the Pod's recorded state is stale."""
    status = pod.get("status") or {}
    return status.get("reason") == NODE_LOST_REASON or _condition_status(pod, "Ready") == "Unknown"


def is_live(pod: dict[str, Any]) -> bool:
    """A Pod that may still become the replica: not terminating, not terminal."""
    return not is_terminating(pod) and not is_terminal(pod)


def is_failing_wait_reason(reason: object) -> bool:
    if not isinstance(reason, str) or not reason or reason in NORMAL_WAIT_REASONS:
        return False
    return (
        reason in FAILING_WAIT_REASONS
        or reason.startswith("Err")
        or reason.endswith(("Error", "BackOff"))
    )


def _created(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("creationTimestamp") or "")


def ready_pod(pods: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest Ready, non-terminating pod with an IP among ``pods``, or None."""
    best: dict[str, Any] | None = None
    for pod in pods:
        serving = is_ready(pod) and not is_terminating(pod) and pod_ip(pod) is not None
        if serving and (best is None or _created(pod) > _created(best)):
            best = pod
    return best


def current_ready_pod(
    deployment: dict[str, Any], replicasets: list[dict[str, Any]], pods: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The Ready, non-terminating pod of the newest owned ReplicaSet (newest first), or None.

    Its IP is what Manager may show; it is ephemeral and never an identity.
    """
    return current_ready_pod_of(select_owned(deployment, replicasets, pods))


def current_ready_pod_of(owned: Owned) -> dict[str, Any] | None:
    return ready_pod(owned.newest_pods)


def pod_ip(pod: dict[str, Any] | None) -> str | None:
    if pod is None:
        return None
    ip = (pod.get("status") or {}).get("podIP")
    return str(ip) if ip else None


def unschedulable_since(pod: dict[str, Any]) -> tuple[dict[str, Any], datetime | None] | None:
    """The PodScheduled=False/Unschedulable condition and when it began, if the pod has one.

    The start is the condition's lastTransitionTime, else the pod's creationTimestamp; None
    when neither is known (then it counts as long ago, as kstatus reads a zero time).
    """
    condition = _condition(pod, "PodScheduled")
    if (
        condition is None
        or condition.get("status") != "False"
        or condition.get("reason") != "Unschedulable"
    ):
        return None
    since = parse_time(condition.get("lastTransitionTime"))
    if since is None:
        since = parse_time((pod.get("metadata") or {}).get("creationTimestamp"))
    return condition, since


def unschedulable_grace_left(pod: dict[str, Any], now: datetime) -> float | None:
    """Seconds until an Unschedulable pod counts as failed (> 0), else None."""
    found = unschedulable_since(pod)
    if found is None or found[1] is None:
        return None
    left = UNSCHEDULABLE_GRACE_SECONDS - (now - found[1]).total_seconds()
    return left if left > 0 else None


def _unschedulable_failure(pod: dict[str, Any], name: str, now: datetime) -> PodFailure | None:
    found = unschedulable_since(pod)
    if found is None or unschedulable_grace_left(pod, now) is not None:
        return None
    condition, since = found
    message = str(condition.get("message") or "")
    if since is not None:
        waited = int((now - since).total_seconds())
        message = f"{message} (unschedulable for {waited}s)".lstrip()
    return PodFailure(name, None, "Unschedulable", message, 0)


def _restarted_not_ready(cs: dict[str, Any], name: str) -> PodFailure | None:
    """A container that has run, exited and been restarted, and is not ready: failing.

    Argo CD's rule for a Running pod under restartPolicy Always; it also covers the moment
    between two CrashLoopBackOff waits, when the container shows its exit (state terminated).
    """
    last = (cs.get("lastState") or {}).get("terminated")
    restarts = int(cs.get("restartCount") or 0)
    if not last or restarts < 1 or cs.get("ready"):
        return None
    shown = (cs.get("state") or {}).get("terminated") or last
    reason = str(shown.get("reason") or "Error")
    message = f"exited with code {shown.get('exitCode', '?')}, restarted and not ready"
    return PodFailure(name, cs.get("name"), reason, message, restarts)


def _container_failure(cs: dict[str, Any], name: str, init: bool) -> PodFailure | None:
    state = cs.get("state") or {}
    restarts = int(cs.get("restartCount") or 0)
    waiting = state.get("waiting") or {}
    reason = waiting.get("reason")
    if is_failing_wait_reason(reason):
        message = str(waiting.get("message") or "")
        last = (cs.get("lastState") or {}).get("terminated") or {}
        if reason == "CrashLoopBackOff" and last:
            message = (
                f"{message}; last exit code {last.get('exitCode')} ({last.get('reason', 'Error')})"
            ).lstrip("; ")
        return PodFailure(name, cs.get("name"), str(reason), message, restarts, init)
    terminated = state.get("terminated") or {}
    if terminated.get("reason") == "OOMKilled":
        return PodFailure(
            name,
            cs.get("name"),
            "OOMKilled",
            f"container exceeded its memory limit (exit code {terminated.get('exitCode', 137)})",
            restarts,
            init,
        )
    return None


def pod_failures(pods: list[dict[str, Any]], now: datetime) -> list[PodFailure]:
    """Every live pod stuck for a reason that will not heal by waiting.

    Terminating and terminal (evicted) pods are being replaced, and a pod on a lost node
    shows stale state: none of them is a failure of the workload.
    """
    failures = []
    for pod in pods:
        if not is_live(pod) or is_node_lost(pod):
            continue
        name = (pod.get("metadata") or {}).get("name", "?")
        status = pod.get("status") or {}
        unschedulable = _unschedulable_failure(pod, name, now)
        if unschedulable is not None:
            failures.append(unschedulable)
        running_not_ready = status.get("phase") == "Running" and not is_ready(pod)
        for init, key in ((True, "initContainerStatuses"), (False, "containerStatuses")):
            for cs in status.get(key) or []:
                failure = _container_failure(cs, name, init)
                if failure is None and running_not_ready and not init:
                    failure = _restarted_not_ready(cs, name)
                if failure is not None:
                    failures.append(failure)
    return failures


def pod_notes(pods: list[dict[str, Any]], now: datetime) -> list[str]:
    """Why pods that are not failures are not serving either: said in the status message."""
    notes = []
    for pod in pods:
        name = (pod.get("metadata") or {}).get("name", "?")
        status = pod.get("status") or {}
        if is_terminating(pod):
            continue
        if is_terminal(pod):
            why = ": ".join(str(s) for s in (status.get("reason"), status.get("message")) if s)
            notes.append(f"pod {name} {status.get('phase')}" + (f" ({why})" if why else ""))
        elif is_node_lost(pod):
            why = status.get("message") or "its node stopped reporting"
            notes.append(f"pod {name}: node lost: {why}")
        elif (left := unschedulable_grace_left(pod, now)) is not None:
            condition, _ = unschedulable_since(pod) or ({}, None)
            notes.append(
                f"pod {name} unschedulable, failed in {left:.0f}s unless scheduled: "
                f"{condition.get('message', '')}".rstrip(": ")
            )
    return notes


def describe_failure(failure: PodFailure) -> str:
    where = f"pod {failure.pod}"
    if failure.container:
        where += f" {'init container' if failure.init else 'container'} {failure.container}"
    text = f"{where}: {failure.reason}"
    if failure.message:
        text += f": {failure.message}"
    if failure.restarts:
        text += f" (restarts: {failure.restarts})"
    return text
