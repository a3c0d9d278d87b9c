"""``describe``'s document: the snapshot and the why behind it, from what two reads return.

Pure, over the Deployment with its ReplicaSets and Pods (status's one read) and the
namespace's events (one more read): the Pods it owns with each container's state, restarts
and last exit, the conditions of the Deployment and of each Pod, the failures that will not
heal, the most recent events about its own objects, and what ``kubectl describe
deployment`` shows besides (``template_description``: labels, selector, the Pod template,
the revision history), with the rollback that made the current revision, if one did. Field names are
the ``models.Description`` wire names; the CLI prints this dict (``-o json|yaml``) or its text.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import template_description
from .pod_failures import describe_failure, pod_failures
from .pods import is_ready, is_terminating, pod_node
from .rollback_mark import rollback_of
from .selection import select_owned
from .snapshots import snapshot_document
from .status import replica_failure

Document = dict[str, Any]
# A screen: the newest events only (kubectl describe shows every event of one object).
MAX_EVENTS = 10


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def condition(raw: Document) -> Document:
    return {
        "type": str(raw.get("type", "")),
        "status": str(raw.get("status", "")),
        "reason": _text(raw.get("reason")),
        "message": _text(raw.get("message")),
        "lastTransitionTime": _text(raw.get("lastTransitionTime")),
    }


def _exit(terminated: Any) -> Document | None:
    if not isinstance(terminated, dict) or not terminated:
        return None
    code = terminated.get("exitCode")
    return {
        "exitCode": code if isinstance(code, int) and not isinstance(code, bool) else None,
        "reason": _text(terminated.get("reason")),
        "message": _text(terminated.get("message")),
        "finishedAt": _text(terminated.get("finishedAt")),
    }


def container_state(status: Document, *, init: bool, image: Any = None) -> Document:
    """One ``containerStatuses`` entry: which state, why, since when, and the last exit."""
    state = status.get("state") or {}
    kind = next((k for k in ("waiting", "running", "terminated") if state.get(k) is not None), None)
    detail = (state.get(kind) or {}) if kind else {}
    restarts = status.get("restartCount")
    return {
        "name": str(status.get("name", "")),
        "init": init,
        "image": _text(status.get("image") or image),
        "state": kind or "unknown",
        "reason": _text(detail.get("reason")),
        "message": _text(detail.get("message")) if kind == "waiting" else None,
        "startedAt": _text(detail.get("startedAt")),
        "terminated": _exit(detail) if kind == "terminated" else None,
        "ready": status.get("ready") is True,
        "restartCount": restarts if isinstance(restarts, int) else 0,
        "lastExit": _exit((status.get("lastState") or {}).get("terminated")),
    }


def _images(pod: Document, key: str) -> dict[str, Any]:
    containers = (pod.get("spec") or {}).get(key) or []
    return {str(c.get("name")): c.get("image") for c in containers if isinstance(c, dict)}


def _owner(pod: Document) -> str | None:
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("kind") == "ReplicaSet":
            return _text(ref.get("name"))
    return None


def pod_description(pod: Document, current: bool) -> Document:
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    containers = []
    for init, key, spec_key in (
        (True, "initContainerStatuses", "initContainers"),
        (False, "containerStatuses", "containers"),
    ):
        images = _images(pod, spec_key)
        for cs in status.get(key) or []:
            containers.append(container_state(cs, init=init, image=images.get(str(cs.get("name")))))
    if not containers:  # not scheduled yet: the kubelet has reported nothing
        for name, image in _images(pod, "containers").items():
            waiting = {"name": name, "state": {}, "ready": False, "restartCount": 0}
            containers.append(container_state(waiting, init=False, image=image))
    return {
        "name": str(meta.get("name", "")),
        "replicaSet": _owner(pod),
        "current": current,
        "phase": str(status.get("phase") or "Unknown"),
        "ready": is_ready(pod),
        "terminating": is_terminating(pod),
        "node": pod_node(pod),
        "podIp": _text(status.get("podIP")),
        "createdAt": _text(meta.get("creationTimestamp")),
        "reason": _text(status.get("reason")),
        "message": _text(status.get("message")),
        "containers": containers,
        "conditions": [condition(c) for c in status.get("conditions") or []],
    }


def _involved(event: Document) -> Document:
    return event.get("involvedObject") or event.get("regarding") or {}


def event_summary(event: Document) -> Document:
    """A core/v1 Event (or one written through events.k8s.io, with ``series``)."""
    meta, involved = event.get("metadata") or {}, _involved(event)
    series = event.get("series") or {}
    source = (event.get("source") or {}).get("component") or event.get("reportingComponent")
    count = event.get("count") or series.get("count") or 1
    last = (
        event.get("lastTimestamp")
        or series.get("lastObservedTime")
        or event.get("eventTime")
        or meta.get("creationTimestamp")
    )
    first = event.get("firstTimestamp") or event.get("eventTime") or meta.get("creationTimestamp")
    return {
        "type": str(event.get("type") or "Warning"),
        "reason": _text(event.get("reason")),
        "message": _text(event.get("message") or event.get("note")),
        "object": f"{involved.get('kind')}/{involved.get('name')}",
        "source": _text(source),
        "count": count if isinstance(count, int) else 1,
        "firstSeen": _text(first),
        "lastSeen": _text(last),
    }


def workload_events(
    events: list[Document], objects: list[Document], limit: int = MAX_EVENTS
) -> list[Document]:
    """The newest events, Normal and Warning, about ``objects`` (by uid; by kind and name
    when an event names no uid), oldest first, as ``kubectl describe`` lists them."""
    uids = set()
    names = set()
    for obj in objects:
        meta = obj.get("metadata") or {}
        if meta.get("uid"):
            uids.add(str(meta["uid"]))
        names.add((str(obj.get("kind", "")), str(meta.get("name", ""))))
    picked = []
    for event in events:
        involved = _involved(event)
        uid = involved.get("uid")
        if (uid and str(uid) in uids) or (
            not uid and (str(involved.get("kind")), str(involved.get("name"))) in names
        ):
            picked.append((_written(event), event_summary(event)))
    # Several events in one second (a rollout's): in the order the API server wrote them.
    picked.sort(key=lambda found: (str(found[1]["lastSeen"] or ""), found[0]))
    return [summary for _, summary in picked[-limit:]]


def _written(event: Document) -> int:
    """The event's resourceVersion as a number (etcd's revision: later writes are larger);
    0 when it is not one."""
    version = (event.get("metadata") or {}).get("resourceVersion")
    return int(version) if isinstance(version, str) and version.isdigit() else 0


def description_document(
    deployment: Document,
    replicasets: list[Document],
    pods: list[Document],
    events: list[Document],
    *,
    now: datetime,
    events_error: str | None = None,
) -> Document:
    """The ``describe`` document of a Manager Deployment that exists."""
    owned = select_owned(deployment, replicasets, pods)
    newest = {id(pod) for pod in owned.newest_pods}
    status = deployment.get("status") or {}
    failing = [describe_failure(f) for f in pod_failures(owned.newest_pods, now)]
    cannot_create = replica_failure(deployment)
    ordered = sorted(owned.pods, key=lambda p: str((p.get("metadata") or {}).get("name", "")))
    objects = [
        {"kind": "Deployment", **deployment},
        *({"kind": "ReplicaSet", **rs} for rs in owned.replicasets),
        *({"kind": "Pod", **pod} for pod in owned.pods),
    ]
    return {
        "snapshot": snapshot_document(deployment, replicasets, pods, now=now),
        "conditions": [condition(c) for c in status.get("conditions") or []],
        "replicaSet": _text(((owned.newest or {}).get("metadata") or {}).get("name")),
        "failing": ([cannot_create] if cannot_create else []) + failing,
        "pods": [pod_description(pod, id(pod) in newest) for pod in ordered],
        "events": workload_events(events, objects),
        "eventsError": events_error,
        "labels": template_description.labels(deployment),
        "selector": template_description.selector(deployment),
        "template": template_description.pod_template(deployment),
        "revisions": template_description.revisions(owned.replicasets, owned.newest),
        "rollback": rollback_of(deployment),
    }


def placeholder_description(snapshot: Document) -> Document:
    """For a workload that could not be read, or is not there: its snapshot says why."""
    return {
        "snapshot": snapshot,
        "conditions": [],
        "replicaSet": None,
        "failing": [],
        "pods": [],
        "events": [],
        "eventsError": None,
        "labels": {},
        "selector": None,
        "template": None,
        "revisions": [],
        "rollback": None,
    }
