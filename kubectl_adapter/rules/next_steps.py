"""What a failed wait says first, and the command an operator types next (pure).

A failure's message leads with one headline: what failed and the reason, once. Then the
context (counts, conditions, other Pods, events not already said), then the next step: a
kubectl command to paste. A container that exited has logs (``kubectl logs … --previous``:
the run that failed, not the one restarting); an image that cannot be pulled, a Pod that
cannot be scheduled or configured has its story in the kubelet's and the scheduler's events
(``kubectl describe pod``). The commands carry ``-n`` but no ``--context``/``--kubeconfig``:
the operator's own kubectl setup is what they paste into (``-v`` shows the adapter's).
"""

from __future__ import annotations

import re
from typing import Any

from .pod_failures import PodFailure, describe_failure

PULL_REASONS = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"}
)
# Reasons of a container that never ran: nothing logged, the events say why.
NEVER_RAN_REASONS = frozenset(
    {"CreateContainerConfigError", "CreateContainerError", "RunContainerError"}
)
_PULL_EVENT = re.compile(r"^Failed to pull image ")


def _pull_message(failure: PodFailure, events: list[dict[str, Any]]) -> str | None:
    """The kubelet's own words on the pull (its newest "Failed to pull image" event about
    the Pod): ImagePullBackOff says only "Back-off pulling image"."""
    for event in reversed(events):
        message = str(event.get("message") or "")
        if event.get("object") == f"Pod/{failure.pod}" and _PULL_EVENT.match(message):
            return message
    return None


def headline(failure: PodFailure, events: list[dict[str, Any]]) -> str:
    """What failed and why, once: the Pod, the container, the reason; for an image that
    cannot be pulled, the image and the kubelet's message."""
    text = describe_failure(failure)
    if failure.reason == "ImagePullBackOff":
        pulled = _pull_message(failure, events)
        if pulled:
            text += f"; kubelet: {pulled}"
    return text


def about_failing_pods(event: dict[str, Any], failures: list[PodFailure]) -> bool:
    """An event about a Pod a failure already names (BackOff, Failed, FailedScheduling):
    the headline has said it."""
    return any(event.get("object") == f"Pod/{failure.pod}" for failure in failures)


def has_logs(failure: PodFailure) -> bool:
    """The container ran and exited (or runs and is not ready): its logs say why."""
    return (
        failure.container is not None
        and failure.reason not in PULL_REASONS
        and failure.reason not in NEVER_RAN_REASONS
    )


def logs_command(failure: PodFailure, namespace: str, deployment: str, *, alone: bool) -> list[str]:
    """``kubectl logs deployment/NAME -c main --previous -n NS``: the Deployment's name when
    the failing Pod is its only one (kubectl picks a running, ready Pod first, so with an old
    Pod still serving it would show the wrong logs: then the Pod's name). ``--previous`` once
    the container has restarted: the current run may not have failed yet."""
    target = f"deployment/{deployment}" if alone else failure.pod
    argv = ["kubectl", "logs", target, "-c", str(failure.container)]
    if failure.restarts or failure.reason == "CrashLoopBackOff":
        argv.append("--previous")
    return [*argv, "-n", namespace]


def next_step(
    failure: PodFailure | None,
    namespace: str,
    deployment: str,
    *,
    alone: bool,
    pod: str | None = None,
    replicaset: str | None = None,
) -> str:
    """The command to paste next: logs for a container that ran, else ``kubectl describe``
    of what the events are about (the failing Pod, the ReplicaSet that cannot create one, a
    Pod still on its way, or the Deployment)."""
    if failure is not None and has_logs(failure):
        return " ".join(logs_command(failure, namespace, deployment, alone=alone))
    if failure is not None:
        return f"kubectl describe pod {failure.pod} -n {namespace}"
    if replicaset:
        return f"kubectl describe replicaset {replicaset} -n {namespace}"
    if pod:
        return f"kubectl describe pod {pod} -n {namespace}"
    return f"kubectl describe deployment {deployment} -n {namespace}"
