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
# The kubelet lost the container (node reboot, runtime restart): its exit is the platform's,
# not the workload's, and the restart that follows is recovery, not a crash.
LOST_CONTAINER_REASON = "ContainerStatusUnknown"
# A Pod that was serving and lost its readiness (a failing readiness probe) is `running` this
# long, then `failed`: the kubelet already waited failureThreshold x periodSeconds (30 s by
# default) before marking it not ready, so a minute more rides out a blip without hiding an
# outage. No progress deadline covers it: the rollout has completed.
NOT_READY_GRACE_SECONDS = 60.0
# What an exit code says, in a failure message (128 + n is signal n).
EXIT_CODE_MEANINGS = {
    126: "command not executable",
    127: "command not found",
    134: "aborted (SIGABRT)",
    137: "killed (SIGKILL)",
    139: "segmentation fault (SIGSEGV)",
    143: "terminated (SIGTERM)",
}


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


def newest_live_pod(pods: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest Pod that may still become the replica (a failing one included)."""
    live = [pod for pod in pods if is_live(pod)]
    return max(live, key=_created) if live else None


def pod_node(pod: dict[str, Any] | None) -> str | None:
    """The node a Pod was scheduled to (``spec.nodeName``); None before it is scheduled."""
    node = ((pod or {}).get("spec") or {}).get("nodeName")
    return str(node) if node else None


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
    # The scheduler's reason; its " preemption: …" sentence says only that no Pod could
    # make room (kept in details.pods[].scheduling).
    message = str(condition.get("message") or "").split(" preemption: ", 1)[0]
    if since is not None:
        waited = int((now - since).total_seconds())
        message = f"{message} (unschedulable for {waited}s)".lstrip()
    return PodFailure(name, None, "Unschedulable", message, 0)


def exit_text(terminated: dict[str, Any]) -> str:
    code = terminated.get("exitCode", "?")
    meaning = EXIT_CODE_MEANINGS.get(code) if isinstance(code, int) else None
    return f"code {code}" + (f" ({meaning})" if meaning else "")


def is_lost(terminated: dict[str, Any]) -> bool:
    return terminated.get("reason") == LOST_CONTAINER_REASON


def is_error_exit(terminated: dict[str, Any] | None) -> bool:
    """Terminated by the workload with an error: a non-zero exit (OOMKilled included), not a
    container the kubelet lost."""
    if not terminated or is_lost(terminated):
        return False
    code = terminated.get("exitCode")
    return terminated.get("reason") == "OOMKilled" or (isinstance(code, int) and code != 0)


def sidecar_names(pod: dict[str, Any]) -> frozenset[str]:
    """Init containers with ``restartPolicy: Always``: sidecars, which run beside the app
    containers for the Pod's whole life and get the app containers' rules."""
    init = ((pod.get("spec") or {}).get("initContainers")) or []
    return frozenset(str(c.get("name")) for c in init if c.get("restartPolicy") == "Always")


def _restarted_not_ready(cs: dict[str, Any], name: str, init: bool) -> PodFailure | None:
    """A container that has run, exited and been restarted, and is not ready: failing.

    Argo CD's rule for a Running pod under restartPolicy Always (app and sidecar containers);
    it also covers the moment between two CrashLoopBackOff waits, when the container shows
    its exit. A restart after the kubelet lost the container is recovery, not a crash.
    """
    last = (cs.get("lastState") or {}).get("terminated")
    restarts = int(cs.get("restartCount") or 0)
    if not last or restarts < 1 or cs.get("ready") or is_lost(last):
        return None
    shown = (cs.get("state") or {}).get("terminated") or last
    reason = str(shown.get("reason") or "Error")
    message = f"exited with {exit_text(shown)}, restarted and not ready"
    return PodFailure(name, cs.get("name"), reason, message, restarts, init)


def _init_rerun(cs: dict[str, Any], name: str) -> PodFailure | None:
    """An init container running again after an error exit: the moment of a crash loop
    between its back-off and its next exit (kubectl shows ``Init:0/1``); still failing."""
    last = (cs.get("lastState") or {}).get("terminated")
    restarts = int(cs.get("restartCount") or 0)
    if restarts < 1 or not (cs.get("state") or {}).get("running") or not is_error_exit(last):
        return None
    assert last is not None
    reason = str(last.get("reason") or "Error")
    message = f"exited with {exit_text(last)}, running again after a restart"
    return PodFailure(name, cs.get("name"), reason, message, restarts, True)


def _container_failure(cs: dict[str, Any], name: str, init: bool) -> PodFailure | None:
    state = cs.get("state") or {}
    restarts = int(cs.get("restartCount") or 0)
    waiting = state.get("waiting") or {}
    reason = waiting.get("reason")
    last = (cs.get("lastState") or {}).get("terminated") or {}
    if reason == "CrashLoopBackOff" and is_lost(last):
        return None  # the back-off follows a container the kubelet lost, not a crash
    if is_failing_wait_reason(reason):
        message = str(waiting.get("message") or "")
        if reason == "CrashLoopBackOff":
            # "back-off 5m0s restarting failed container=main pod=NAME_NS(UID)": the rest
            # repeats the pod and container the message names already.
            message = message.split(" restarting failed container=", 1)[0]
        if reason == "CrashLoopBackOff" and last:
            message = (
                f"{message}; last exit {exit_text(last)} ({last.get('reason', 'Error')})"
            ).lstrip("; ")
        return PodFailure(name, cs.get("name"), str(reason), message, restarts, init)
    terminated = state.get("terminated") or {}
    if is_error_exit(terminated):
        # Failing at once: the restart (or CrashLoopBackOff) that follows only confirms it.
        # kubectl shows an init container's as Init:Error / Init:OOMKilled.
        why = str(terminated.get("reason") or "Error")
        message = (
            f"container exceeded its memory limit ({exit_text(terminated)})"
            if why == "OOMKilled"
            else f"exited with {exit_text(terminated)}"
        )
        detail = str(terminated.get("message") or "").strip()
        if detail and why != "OOMKilled":
            message += f": {detail}"
        return PodFailure(name, cs.get("name"), why, message, restarts, init)
    return None


def readiness_lost_since(pod: dict[str, Any]) -> datetime | None:
    """When a Running pod that was serving lost its readiness, else None.

    Ready flips only on a change, so ``Ready=False`` whose lastTransitionTime is later than
    the start of every running container means it was True during this run and went False
    (a failing readiness probe). A pod still starting up was never ready: its Ready=False
    dates from before its containers started. Node-lost pods (Ready Unknown) are not this.
    """
    status = pod.get("status") or {}
    ready = _condition(pod, "Ready")
    if status.get("phase") != "Running" or ready is None or ready.get("status") != "False":
        return None
    since = parse_time(ready.get("lastTransitionTime"))
    starts = [
        parse_time(((cs.get("state") or {}).get("running") or {}).get("startedAt"))
        for cs in status.get("containerStatuses") or []
    ]
    if since is None or not starts or any(start is None or start >= since for start in starts):
        return None
    return since


def not_ready_grace_left(pod: dict[str, Any], now: datetime) -> float | None:
    """Seconds until a pod that lost its readiness counts as failed (> 0), else None."""
    since = readiness_lost_since(pod)
    if since is None:
        return None
    left = NOT_READY_GRACE_SECONDS - (now - since).total_seconds()
    return left if left > 0 else None


def _readiness_lost_failure(pod: dict[str, Any], name: str, now: datetime) -> PodFailure | None:
    since = readiness_lost_since(pod)
    if since is None or not_ready_grace_left(pod, now) is not None:
        return None
    ready = _condition(pod, "Ready") or {}
    waited = int((now - since).total_seconds())
    why = str(ready.get("message") or ready.get("reason") or "readiness probe failing")
    return PodFailure(
        name, None, "NotReady", f"lost its readiness {waited}s ago while serving: {why}", 0
    )


def pod_failures(
    pods: list[dict[str, Any]], now: datetime, *, served: bool = False
) -> list[PodFailure]:
    """Every live pod stuck for a reason that will not heal by waiting.

    Terminating and terminal (evicted) pods are being replaced, and a pod on a lost node
    shows stale state: none of them is a failure of the workload. ``served``: the
    Deployment's rollout had completed, so a pod that lost its readiness past the grace is
    failing (during a rollout the progress deadline judges it).
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
        sidecars = sidecar_names(pod)
        for init, key in ((True, "initContainerStatuses"), (False, "containerStatuses")):
            for cs in status.get(key) or []:
                failure = _container_failure(cs, name, init)
                long_running = not init or cs.get("name") in sidecars
                if failure is None and running_not_ready and long_running:
                    failure = _restarted_not_ready(cs, name, init)
                if failure is None and not long_running:
                    failure = _init_rerun(cs, name)
                if failure is not None:
                    failures.append(failure)
        if served and (not failures or failures[-1].pod != name):
            lost = _readiness_lost_failure(pod, name, now)
            if lost is not None:
                failures.append(lost)
    return failures


def pod_notes(pods: list[dict[str, Any]], now: datetime, *, served: bool = False) -> list[str]:
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
        elif served and (left := not_ready_grace_left(pod, now)) is not None:
            waited = NOT_READY_GRACE_SECONDS - left
            notes.append(
                f"pod {name} lost its readiness {waited:.0f}s ago while serving, "
                f"failed in {left:.0f}s unless ready again"
            )
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
