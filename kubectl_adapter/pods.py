"""Pure readings of Pod and ReplicaSet JSON: which pod is current, and what is failing."""

from __future__ import annotations

from typing import Any, NamedTuple

# Waiting reasons that will not fix themselves (kubectl rollout status never reports them).
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
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"


class PodFailure(NamedTuple):
    pod: str
    container: str | None
    reason: str
    message: str
    restarts: int


def _owner_names(obj: dict[str, Any], kind: str) -> set[str]:
    refs = obj.get("metadata", {}).get("ownerReferences") or []
    return {ref.get("name", "") for ref in refs if ref.get("kind") == kind}


def _owner_uids(obj: dict[str, Any], kind: str) -> set[str]:
    refs = obj.get("metadata", {}).get("ownerReferences") or []
    return {ref.get("uid", "") for ref in refs if ref.get("kind") == kind and ref.get("uid")}


def _revision(replicaset: dict[str, Any]) -> int:
    annotations = replicaset.get("metadata", {}).get("annotations") or {}
    try:
        return int(annotations.get(REVISION_ANNOTATION, "0"))
    except ValueError:
        return 0


def owned_replicasets(
    deployment: dict[str, Any], replicasets: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """ReplicaSets controlled by this Deployment (by UID when known, else by name)."""
    meta = deployment.get("metadata", {})
    uid, name = meta.get("uid"), meta.get("name")
    result = []
    for rs in replicasets:
        if uid and _owner_uids(rs, "Deployment"):
            if uid in _owner_uids(rs, "Deployment"):
                result.append(rs)
        elif name in _owner_names(rs, "Deployment"):
            result.append(rs)
    return result


def newest_replicaset(
    deployment: dict[str, Any], replicasets: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The Deployment's current ReplicaSet: highest revision, then newest."""
    owned = owned_replicasets(deployment, replicasets)
    if not owned:
        return None
    return max(
        owned,
        key=lambda rs: (_revision(rs), rs.get("metadata", {}).get("creationTimestamp", "")),
    )


def is_ready(pod: dict[str, Any]) -> bool:
    for condition in pod.get("status", {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return bool(condition.get("status") == "True")
    return False


def is_terminating(obj: dict[str, Any]) -> bool:
    return bool(obj.get("metadata", {}).get("deletionTimestamp"))


def pods_of(replicaset: dict[str, Any], pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    meta = replicaset.get("metadata", {})
    uid, name = meta.get("uid"), meta.get("name")
    owned = []
    for pod in pods:
        uids = _owner_uids(pod, "ReplicaSet")
        if (uid and uid in uids) or (not uids and name in _owner_names(pod, "ReplicaSet")):
            owned.append(pod)
    return owned


def ready_pod_among(
    newest: dict[str, Any] | None, pods: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The Ready, non-terminating pod with an IP owned by ``newest`` (newest first), or None."""
    if newest is None:
        return None
    best: dict[str, Any] | None = None
    for pod in pods_of(newest, pods):
        status = pod.get("status") or {}
        if is_ready(pod) and not is_terminating(pod) and status.get("podIP"):
            created = (pod.get("metadata") or {}).get("creationTimestamp", "")
            if best is None or created > (best.get("metadata") or {}).get("creationTimestamp", ""):
                best = pod
    return best


def current_ready_pod(
    deployment: dict[str, Any], replicasets: list[dict[str, Any]], pods: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The Ready, non-terminating pod of the newest ReplicaSet (newest first), or None.

    Its IP is what Manager may show; it is ephemeral and never an identity.
    """
    return ready_pod_among(newest_replicaset(deployment, replicasets), pods)


def pod_ip(pod: dict[str, Any] | None) -> str | None:
    if pod is None:
        return None
    ip = pod.get("status", {}).get("podIP")
    return str(ip) if ip else None


def pod_failures(pods: list[dict[str, Any]]) -> list[PodFailure]:
    """Every non-terminating pod stuck for a reason that will not heal by waiting."""
    failures = []
    for pod in pods:
        if is_terminating(pod):
            continue
        name = pod.get("metadata", {}).get("name", "?")
        status = pod.get("status", {})
        for condition in status.get("conditions") or []:
            if (
                condition.get("type") == "PodScheduled"
                and condition.get("status") == "False"
                and condition.get("reason") == "Unschedulable"
            ):
                failures.append(
                    PodFailure(name, None, "Unschedulable", condition.get("message", ""), 0)
                )
        statuses = (status.get("initContainerStatuses") or []) + (
            status.get("containerStatuses") or []
        )
        for cs in statuses:
            waiting = (cs.get("state") or {}).get("waiting") or {}
            reason = waiting.get("reason")
            if reason in FAILING_WAIT_REASONS:
                message = waiting.get("message", "")
                last = (cs.get("lastState") or {}).get("terminated") or {}
                if reason == "CrashLoopBackOff" and last:
                    message = (
                        f"{message}; last exit code {last.get('exitCode')}"
                        f" ({last.get('reason', 'Error')})"
                    ).lstrip("; ")
                failures.append(
                    PodFailure(
                        name, cs.get("name"), reason, message, int(cs.get("restartCount", 0))
                    )
                )
            terminated = (cs.get("state") or {}).get("terminated") or {}
            if terminated.get("reason") == "OOMKilled":
                failures.append(
                    PodFailure(
                        name,
                        cs.get("name"),
                        "OOMKilled",
                        f"container exceeded its memory limit (exit code "
                        f"{terminated.get('exitCode', 137)})",
                        int(cs.get("restartCount", 0)),
                    )
                )
    return failures


def describe_failure(failure: PodFailure) -> str:
    where = f"pod {failure.pod}" + (f" container {failure.container}" if failure.container else "")
    text = f"{where}: {failure.reason}"
    if failure.message:
        text += f": {failure.message}"
    if failure.restarts:
        text += f" (restarts: {failure.restarts})"
    return text
