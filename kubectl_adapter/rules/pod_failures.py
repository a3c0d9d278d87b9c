"""Why a Pod is failing: the reasons that will not heal by waiting, found in its JSON (pure).

Split from ``pods`` (which reads what a Pod is: live, ready, unschedulable, serving) so each
stays one job; this module reads those predicates, never the other way round.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from .pods import (
    LOST_CONTAINER_REASON,
    NORMAL_WAIT_REASONS,
    condition_of,
    is_live,
    is_node_lost,
    is_ready,
    not_ready_grace_left,
    readiness_lost_since,
    unschedulable_grace_left,
    unschedulable_since,
)

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


def is_failing_wait_reason(reason: object) -> bool:
    if not isinstance(reason, str) or not reason or reason in NORMAL_WAIT_REASONS:
        return False
    return (
        reason in FAILING_WAIT_REASONS
        or reason.startswith("Err")
        or reason.endswith(("Error", "BackOff"))
    )


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


def _readiness_lost_failure(pod: dict[str, Any], name: str, now: datetime) -> PodFailure | None:
    since = readiness_lost_since(pod)
    if since is None or not_ready_grace_left(pod, now) is not None:
        return None
    ready = condition_of(pod, "Ready") or {}
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
