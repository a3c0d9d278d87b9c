"""What a wait's two watches have shown, judged: over, cannot succeed, or not yet (pure).

kubectl watches one kind per process, so a wait watches the Deployment and its Pods side by
side; ``Seen`` is what both have shown so far. A watch has *listed* once kubectl has printed
every object that existed when it started (the watch request after its list was answered):
only then does "no Deployment" mean deleted and "no Pod" mean none left. The race rules
(``races``) judge the Deployment; the status rules (``pods``, ``status``) the Pods.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from ..contract.errors import NotFound
from ..contract.naming import ProviderId
from .pod_failures import describe_failure, pod_failures
from .pods import is_live, is_terminal, is_terminating, unschedulable_grace_left
from .races import rollout_event, stop_event
from .status import replica_failure

Document = dict[str, Any]


class Seen(NamedTuple):
    """The last state each watch showed: the Deployment (None: not shown, or gone) and the
    Pods by name, each with whether its watch has listed."""

    deployment: Document | None
    deployment_listed: bool
    pods: Sequence[Document]
    pods_listed: bool


class Verdict(NamedTuple):
    """``done``: the wait is over. ``suspect``: (key, words) of a failure the Pods or the
    Deployment show, which ends the wait if it is the newest ReplicaSet's (a read of the
    ReplicaSets confirms it: the watch of Pods cannot tell old from new). ``wake_in``: judge
    again in that many seconds even if nothing changes (an Unschedulable Pod's grace ends)."""

    done: bool
    suspect: tuple[str, str] | None = None
    wake_in: float | None = None


NOT_YET = Verdict(False)
DONE = Verdict(True)


def rollout_verdict(
    pid: ProviderId, seen: Seen, uid: str | None, verb: str, now: datetime
) -> Verdict:
    """create, start, reconfigure: ``kubectl rollout status``'s rule on the Deployment
    (``races.rollout_event``), and a failing Pod or ``ReplicaFailure`` as a suspect. An
    Unschedulable Pod in its grace is no failure: the wait looks again when the grace ends."""
    deployment = seen.deployment
    if deployment is None:
        if seen.deployment_listed:
            rollout_event(pid, "DELETED", None, uid, verb)  # raises NotFound
        return NOT_YET
    if rollout_event(pid, "MODIFIED", deployment, uid, verb):
        return DONE
    cannot_create = replica_failure(deployment)
    if cannot_create is not None:
        return Verdict(False, ("ReplicaFailure", cannot_create))
    if not seen.pods_listed:
        return NOT_YET
    live = [pod for pod in seen.pods if is_live(pod)]
    failures = pod_failures(live, now)
    suspect = None
    if failures:
        first = failures[0]
        suspect = (f"{first.pod}/{first.container}/{first.reason}", describe_failure(first))
    graces = [left for pod in live if (left := unschedulable_grace_left(pod, now)) is not None]
    return Verdict(False, suspect, min(graces) if graces else None)


def stop_verdict(pid: ProviderId, seen: Seen, uid: str | None) -> Verdict:
    """stop: over once the Deployment's controller has observed the scale to 0
    (``races.stop_event``) and no Pod of it is left. A Pod being deleted runs its containers
    through its grace period, so it holds the stop until it is gone; an evicted (Failed) or
    Succeeded Pod not being deleted, which nothing deletes and whose containers have all
    ended, does not. A Deployment
    deleted, replaced or scaled up again meanwhile ends the wait at once."""
    deployment = seen.deployment
    if deployment is None:
        if seen.deployment_listed:
            raise NotFound(
                f"deployment {pid} was deleted by another operation while stop waited for its "
                "pods to go (they are deleted with it)",
                {"providerId": str(pid)},
            )
        return NOT_YET
    if not stop_event(pid, "MODIFIED", deployment, uid):
        return NOT_YET
    left = [pod for pod in seen.pods if holds_stop(pod)]
    return DONE if seen.pods_listed and not left else NOT_YET


def holds_stop(pod: Document) -> bool:
    """A Pod stop waits for: one running its containers, or being deleted."""
    return is_terminating(pod) or not is_terminal(pod)
