"""What another Manager job did to a workload while this one worked on it: pure verdicts.

Two jobs on one workload (a start and a stop, a reconfigure and a delete) interleave their
kubectl calls. Each operation reads the Deployment first and keeps its ``uid``; after its
writes and waits it looks again, and these functions say whether the outcome it promised
still holds. ``None`` means it does; otherwise the typed error to raise: ``NotFound`` when
the Deployment was deleted under us, ``Conflict`` when it was replaced, scaled the other
way or re-created by someone else.
"""

from __future__ import annotations

from typing import Any

from ..contract.errors import (
    AdapterError,
    Conflict,
    InternalError,
    NotFound,
    RolloutFailed,
    Unavailable,
)
from ..contract.naming import ProviderId
from ..contract.statuses import Status
from .status import desired_replicas

Deployment = dict[str, Any]


def uid_of(deployment: Deployment | None) -> str | None:
    uid = ((deployment or {}).get("metadata") or {}).get("uid")
    return str(uid) if uid else None


def precondition(deployment: Deployment) -> dict[str, str]:
    """The read's identity and version, for the applied manifest's metadata.

    The API server honours both on server-side apply: a ``uid`` with no object is a 409
    ("uid mismatch … no existing object was found"), so the apply can never create; a
    ``resourceVersion`` that is no longer current is a 409 ("the object has been modified").
    A resourceVersion alone would not stop a create: the uid is what does.
    """
    meta = deployment.get("metadata") or {}
    missing = [key for key in ("uid", "resourceVersion") if not meta.get(key)]
    if missing:
        # The API server always prints both; without them the apply could create (no uid)
        # or overwrite blindly. What printed this Deployment is not the API server's kubectl.
        field = f"metadata.{missing[0]}"
        raise InternalError(
            f"kubectl printed Deployment {meta.get('name', '?')!s} without {field}: the "
            "adapter cannot make its reconfigure safe against concurrent jobs without it",
            {"problem": f"output.{field} is missing"},
        )
    return {"uid": str(meta["uid"]), "resourceVersion": str(meta["resourceVersion"])}


def _being_deleted(deployment: Deployment) -> bool:
    return bool((deployment.get("metadata") or {}).get("deletionTimestamp"))


def _vanished(
    pid: ProviderId, deployment: Deployment | None, uid: str | None, doing: str
) -> AdapterError | None:
    """Deleted, being deleted, or replaced by a Deployment of the same name."""
    details: dict[str, Any] = {"providerId": str(pid)}
    if deployment is None:
        return NotFound(f"deployment {pid} was deleted by another operation {doing}", details)
    found = uid_of(deployment)
    if uid is not None and found != uid:
        details |= {"expectedUid": uid, "uid": found}
        return Conflict(
            f"deployment {pid} was replaced (deleted and re-created, uid {found}, was {uid}) "
            f"by another operation {doing}",
            details,
        )
    if _being_deleted(deployment):
        return NotFound(f"deployment {pid} is being deleted by another operation {doing}", details)
    return None


def not_running(
    pid: ProviderId,
    deployment: Deployment | None,
    uid: str | None,
    status: str,
    message: str,
    verb: str,
) -> AdapterError | None:
    """After ``start``/``create`` waited: success means the container is running."""
    doing = f"while {verb} waited for it"
    vanished = _vanished(pid, deployment, uid, doing)
    if vanished is not None or deployment is None:
        return vanished
    details: dict[str, Any] = {"providerId": str(pid), "status": status}
    if desired_replicas(deployment) == 0:
        return Conflict(
            f"deployment {pid} was scaled to 0 (stopped) by another operation {doing}; "
            "it is not running",
            details,
        )
    if status == Status.RUNNING:
        return None
    return RolloutFailed(
        f"deployment {pid} is {status} after its rollout completed, not running: {message}",
        details,
    )


def stop_interrupted(
    pid: ProviderId, deployment: Deployment | None, uid: str | None
) -> AdapterError | None:
    """Between the slices of ``stop``'s wait: has someone started it again (or replaced it)?

    A Deployment deleted meanwhile is no obstacle: its pods go too, and the wait ends.
    """
    if deployment is None or _being_deleted(deployment):
        return None
    vanished = _vanished(pid, deployment, uid, "while stop waited for its pods to go")
    if vanished is not None:
        return vanished
    replicas = desired_replicas(deployment)
    if replicas != 0:
        return Conflict(
            f"deployment {pid} was scaled back up to {replicas} replica(s) by another operation "
            "(a start?) while stop waited for its pods to go; it is not stopped",
            {"providerId": str(pid), "replicas": replicas},
        )
    return None


def not_deleted(
    pid: ProviderId, deployment: Deployment | None, uid: str | None
) -> AdapterError | None:
    """After ``delete``: the read that confirms it. kubectl exits 0 on a 404 from the delete
    call (``--ignore-not-found``), whatever the reason for that 404."""
    if deployment is None:
        return None
    found = uid_of(deployment)
    details: dict[str, Any] = {"providerId": str(pid), "expectedUid": uid, "uid": found}
    if uid is not None and found != uid:
        return Conflict(
            f"deployment {pid} was re-created by another operation (uid {found}, was {uid}) "
            "while delete ran; the new Deployment was left in place",
            details,
        )
    if _being_deleted(deployment):
        return Conflict(
            f"deployment {pid} is still being deleted (by another operation: this one's delete "
            "call was answered 404 Not Found); it is not gone yet",
            details,
        )
    return Unavailable(
        f"the API server answered the delete of {pid} with 404 Not Found, yet the same "
        f"Deployment (uid {found}) still exists with its ReplicaSets and Pods; nothing was "
        "deleted (a proxy or aggregation layer answering for the API server?); retry",
        details,
    )


def changed_under_apply(
    pid: ProviderId, deployment: Deployment | None, uid: str | None
) -> AdapterError | None:
    """After reconfigure's apply was refused by its precondition (409): why? ``None`` means
    only the resourceVersion moved on (a status update, a scale): apply again."""
    return _vanished(pid, deployment, uid, "while reconfigure applied the new spec")


def _count(deployment: Deployment, key: str) -> int:
    value = (deployment.get("status") or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _observed(deployment: Deployment) -> bool:
    meta, status = deployment.get("metadata") or {}, deployment.get("status") or {}
    return _count(deployment, "observedGeneration") >= (meta.get("generation") or 0) and bool(
        status or not meta.get("generation")
    )


def _progress_deadline(deployment: Deployment) -> str | None:
    for cond in (deployment.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
            return str(cond.get("message") or "progress deadline exceeded")
    return None


def rollout_event(
    pid: ProviderId, event: str, deployment: Deployment | None, uid: str | None, verb: str
) -> bool:
    """One state of the Deployment as the wait's watch saw it: True when the rollout is
    complete (``kubectl rollout status``'s rule); raises when it can no longer complete, so
    a Deployment being deleted, replaced, stopped or paused is said at once, not after
    ``--timeout``."""
    doing = f"while {verb} waited for it"
    if event == "DELETED" or deployment is None:
        raise NotFound(f"deployment {pid} was deleted by another operation {doing}",
                       {"providerId": str(pid)})  # fmt: skip
    vanished = _vanished(pid, deployment, uid, doing)
    if vanished is not None:
        if _being_deleted(deployment):
            finalizers = (deployment.get("metadata") or {}).get("finalizers") or []
            vanished.details["finalizers"] = finalizers
        raise vanished
    desired = desired_replicas(deployment)
    if desired == 0 and verb != "reconfigure":
        raise Conflict(
            f"deployment {pid} was scaled to 0 (stopped) by another operation {doing}; "
            "it is not running",
            {"providerId": str(pid)},
        )
    if not _observed(deployment):
        return False
    deadline = _progress_deadline(deployment)
    if deadline is not None:
        raise RolloutFailed(
            f"deployment {pid} exceeded its progress deadline: {deadline}",
            {"providerId": str(pid)},
        )
    updated = _count(deployment, "updatedReplicas")
    if (
        updated >= desired
        and _count(deployment, "replicas") <= updated
        and _count(deployment, "availableReplicas") >= updated
    ):
        return True
    if (deployment.get("spec") or {}).get("paused"):
        if verb == "start":
            # A paused Deployment still scales (its current ReplicaSet): start waits for the
            # replica, not for a template change the pause holds back (status says so).
            return _count(deployment, "availableReplicas") >= desired
        raise RolloutFailed(
            f"deployment {pid} is paused, so its rollout cannot finish "
            f"(kubectl rollout resume deployment/{pid.name})",
            {"providerId": str(pid), "reason": "paused"},
        )
    return False


def stop_event(pid: ProviderId, event: str, deployment: Deployment | None, uid: str | None) -> bool:
    """One state of the Deployment while ``stop`` waits: True once its controller has
    observed the scale to 0 and counts no replica. ``status.replicas`` counts neither a Pod
    being deleted (still running through its grace period) nor an evicted or Succeeded one:
    the wait watches the Pods too (``wait_verdicts.stop_verdict``).

    A Deployment scaled up again meanwhile (a racing start) is a Conflict the moment the
    watch shows it; one deleted or being deleted is NotFound (its Pods go with it, but stop
    cannot answer "offline" for a container that no longer exists).
    """
    doing = "while stop waited for its pods to go"
    if event == "DELETED" or deployment is None:
        raise NotFound(f"deployment {pid} was deleted by another operation {doing}",
                       {"providerId": str(pid)})  # fmt: skip
    if _being_deleted(deployment):
        raise NotFound(f"deployment {pid} is being deleted by another operation {doing}",
                       {"providerId": str(pid)})  # fmt: skip
    problem = stop_interrupted(pid, deployment, uid)
    if problem is not None:
        raise problem
    return _observed(deployment) and _count(deployment, "replicas") == 0
