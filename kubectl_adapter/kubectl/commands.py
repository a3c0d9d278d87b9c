"""The kubectl arguments of every step an operation runs.

The real run and ``--dry-run`` take their commands from here, so a plan cannot drift from
what runs (``tests/operations/test_provider.py`` compares them). The runner adds the
connection flags.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..contract.naming import (
    FIELD_MANAGER,
    MANAGED_LABEL,
    NAME_LABEL,
    NODE_ID_LABEL,
    identity_labels,
    name_selector,
    owner_labels,
    selector_string,
)
from .call import wait_timeout_args

# kubectl drops metadata.managedFields from its output unless asked; drift (rules/drift.py)
# reads them from the same Deployment every read already returns.
SHOW_MANAGED_FIELDS = "--show-managed-fields"

# A read whose answer grows with the namespace logs each answered request (one per page of
# 500 objects), so that its bound follows its requests, not its size (``call.pacing``).
ANSWERS = "-v=6"
# A write logs each request as it leaves, so that it can be stopped while still in
# discovery, before its change is sent; and each response's status, which types a 5xx whose
# body names no reason.
REQUESTS = "-v=7"


def get_deployment(name: str) -> list[str]:
    """By name; a 404 is kubectl's NotFound error (never ``--ignore-not-found``'s silence,
    which a kubectl that prints nothing would imitate)."""
    return ["get", "deployment", name, "-o", "json", SHOW_MANAGED_FIELDS]


def get_namespace(name: str) -> list[str]:
    """``namespace/NAME`` when it exists, nothing when it does not: what a person is told
    when a name names nothing (``cli.targets``)."""
    return ["get", "namespace", name, "--ignore-not-found", "-o", "name"]


def workloads_selector(node_id: str | None, selector: str | None = None) -> str:
    """Manager's workloads (of one node), ANDed with a person's ``-l`` (checked already:
    ``contract.selectors``); a comma can only narrow a selector."""
    labels = {MANAGED_LABEL: "true"}
    if node_id is not None:
        labels[NODE_ID_LABEL] = node_id
    own = selector_string(labels)
    return f"{own},{selector}" if selector else own


ALL_NAMESPACES = "--all-namespaces"


def list_workloads(
    node_id: str | None,
    selector: str | None = None,
    *,
    all_namespaces: bool = False,
    kinds: str = "deployments,replicasets,pods",
) -> list[str]:
    """Every Manager workload (of one node): ``get deployments,replicasets,pods -l
    managed=true[,node-id=N][,SELECTOR] [--all-namespaces]``. ``kinds``: fewer of them (the
    live feed's read, whose Deployments its watch lists); managedFields only with the
    Deployments (drift reads theirs)."""
    scope = [ALL_NAMESPACES] if all_namespaces else []
    fields = [SHOW_MANAGED_FIELDS] if "deployments" in kinds else []
    return ["get", kinds, *scope, "-l", workloads_selector(node_id, selector), "-o", "json",
            *fields, ANSWERS]  # fmt: skip


def named_workload(name: str) -> list[str]:
    """status's and network's one read: the Deployment NAME with its ReplicaSets and Pods, by
    the name label (``naming.name_selector``)."""
    return workload(name_selector(name))


def warning_events() -> list[str]:
    """The namespace's Warning events: the diagnostics keep those about the
    workload's own objects. One read whatever their number: a field selector cannot name
    several objects, and a label selector selects no event (events carry no labels of the
    objects they are about)."""
    return ["get", "events", "--field-selector", "type=Warning", "-o", "json"]


def events() -> list[str]:
    """The namespace's events, Normal and Warning: ``describe`` keeps those about the
    workload's objects (``kubectl describe`` shows both types)."""
    return ["get", "events", "-o", "json"]


def owned(selector: str) -> list[str]:
    """ReplicaSets and Pods of one workload."""
    return ["get", "replicasets,pods", "-l", selector, "-o", "json", ANSWERS]


def replicasets(selector: str) -> list[str]:
    """A workload's ReplicaSets: a wait learns from them which Pods the Deployment owns."""
    return ["get", "replicasets", "-l", selector, "-o", "json"]


def access_reviews() -> list[str]:
    """SelfSubjectAccessReviews, one per permission, as a List on stdin (``check``): one
    process whatever their number."""
    return ["create", "-f", "-", "-o", "json"]


def workload(selector: str) -> list[str]:
    """The Deployment with its ReplicaSets and Pods."""
    return [
        "get",
        "deployments,replicasets,pods",
        "-l",
        selector,
        "-o",
        "json",
        SHOW_MANAGED_FIELDS,
        ANSWERS,
    ]


def rollout_status(name: str, seconds: float) -> list[str]:
    """A rollout wait as an operator pastes it (the adapter watches instead: ``transcript``)."""
    return ["rollout", "status", f"deployment/{name}", *wait_timeout_args(seconds)]


# The Pods stop waits for: not an evicted (Failed) or Succeeded one, which nothing deletes
# and whose containers have all ended.
LIVE_PODS = "--field-selector=status.phase!=Failed,status.phase!=Succeeded"


def pods_gone(selector: str, seconds: float) -> list[str]:
    """Stop's wait as an operator pastes it: until no Pod of the workload is left (the
    adapter watches the same Pods, ``watch_pods``, and ends at the same state; one being
    deleted that reached Succeeded or Failed already, its containers all ended, it waits
    for too, until it is gone)."""
    return ["wait", "--for=delete", "pod", "-l", selector, LIVE_PODS, *wait_timeout_args(seconds)]


def delete_deployment(name: str, timeout: float) -> list[str]:
    return [
        "delete",
        "deployment",
        name,
        "--cascade=foreground",
        "--ignore-not-found",
        "--wait=true",
        *wait_timeout_args(timeout),
    ]


def apply() -> list[str]:
    return [
        "apply",
        "--server-side",
        f"--field-manager={FIELD_MANAGER}",
        "--force-conflicts",
        "-f",
        "-",
    ]


def scale(name: str, replicas: int) -> list[str]:
    # -v=6 makes kubectl log each response: if it is stuck retrying 409 Conflict (it
    # does so for 5 minutes) the process bound ends it and the log says it was a conflict.
    return ["scale", f"deployment/{name}", f"--replicas={replicas}", "-v=6"]


def _pointer(key: str) -> str:
    """A label key as a JSON-pointer segment (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def patch_replicas(name: str, replicas: int, owner: dict[str, str]) -> list[str]:
    """Scale by name, ownership checked by the API server in the same request.

    A JSON patch is atomic: its ``test`` operations compare Manager's labels on the stored
    object, and the ``replace`` runs only if all of them hold (else 422, nothing changed).
    It never creates, and ``-o json`` prints the Deployment as it now is (uid, paused,
    deletionTimestamp): the operation's first read, for free.
    """
    ops: list[dict[str, object]] = [
        {"op": "test", "path": f"/metadata/labels/{_pointer(key)}", "value": value}
        for key, value in sorted(owner.items())
    ]
    ops.append({"op": "replace", "path": "/spec/replicas", "value": replicas})
    patch = json.dumps(ops, separators=(",", ":"))
    return [
        "patch",
        "deployment",
        name,
        "--type=json",
        "-p",
        patch,
        "-o",
        "json",
        SHOW_MANAGED_FIELDS,  # what it prints is stop's snapshot, drift included
        REQUESTS,
    ]


# -v=6 makes kubectl log each response: the watch request's (after its list was printed)
# says the list is complete, so an empty one is seen (kubectl prints nothing for it).
WATCH_LOG = "-v=6"


def watch_deployment(name: str, owner: dict[str, str] | None) -> list[str]:
    """A wait's watch of the Deployment: every change, as kubectl's watch prints it. By
    ``owner``'s labels too, or (None) by its name alone, whatever its labels."""
    by_labels = ["-l", selector_string(owner)] if owner is not None else []
    return [
        "get",
        "deployments",
        *by_labels,
        "--field-selector",
        f"metadata.name={name}",
        "--watch",
        "-o",
        "json",
        "--output-watch-events",
        SHOW_MANAGED_FIELDS,  # the last state it shows is stop's snapshot, drift included
        WATCH_LOG,
    ]


def watch_pods(selector: str) -> list[str]:
    """A wait's watch of the workload's Pods (by the Deployment's selector, which every Pod
    of it carries, of any revision), beside the Deployment's: kubectl watches one kind per
    process. Every phase: a Pod being deleted turns Succeeded or Failed when its containers
    have stopped, and is gone only a moment later; stop waits until it is gone."""
    return ["get", "pods", "-l", selector, "--watch", "-o", "json", "--output-watch-events",
            WATCH_LOG]  # fmt: skip


# The labels a wait's Deployment watch selects on: Manager's managed label.
WAIT_OWNER = owner_labels(None, None)


def wait_watches(name: str, selector: str, *, any_labels: bool = False) -> list[list[str]]:
    """A wait's two watches, run at once (the real run and ``--dry-run`` alike): the
    Deployment NAME, by its name and Manager's managed label, and its Pods by ``selector``.
    ``any_labels`` (create's): the Deployment by its name alone, so that its list shows a
    Deployment of that name whoever's it is (the ownership check's read, at no process of
    its own); the wait sees it as the label-selected watch would (``in_view``)."""
    return [watch_deployment(name, None if any_labels else WAIT_OWNER), watch_pods(selector)]


def in_view(kind: str, obj: dict[str, Any], shown: bool) -> str | None:
    """A Deployment watch's event as the watch selecting ``WAIT_OWNER`` shows it (the API
    server's: an object leaving the selector is DELETED, one entering it ADDED), or None
    when that watch shows nothing of it. ``shown``: it has the object in view."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    selected = kind != "DELETED" and all(labels.get(k) == v for k, v in WAIT_OWNER.items())
    if selected:
        return kind if shown else "ADDED"
    return "DELETED" if shown else None


def watch_selector(name: str, container_id: str | None) -> str:
    """The Pods a write's wait watches before the write shows its Deployment (start's and
    stop's): by the container's identity labels (the Deployment's selector) when Manager
    names it, else by the name label."""
    if container_id is None:
        return name_selector(name)
    return selector_string(identity_labels(container_id))


def watch_listed(stderr_line: str) -> bool:
    """kubectl's ``-v=6`` line for a watch request answered (``WATCH_LOG``): everything its
    list found has been printed before it. Read by ``requests_log``, the log's one reader."""
    from .requests_log import watch_listed as listed

    return listed(stderr_line)


def watched_objects(document: Any) -> tuple[str, list[dict[str, Any]]] | None:
    """A watch's ``-o json`` event as (ADDED | MODIFIED | DELETED, the objects it carries);
    None for anything else (an ERROR: the watch expired, kubectl ends it). A list kubectl
    read in pages (more than its --chunk-size, 500) is printed one page at a time, each page
    a List as one ADDED event: its items are the objects."""
    kind = document.get("type") if isinstance(document, dict) else None
    obj = document.get("object") if isinstance(document, dict) else None
    if kind not in ("ADDED", "MODIFIED", "DELETED") or not isinstance(obj, dict):
        return None
    items = obj.get("items")
    if kind == "ADDED" and isinstance(items, list) and not (obj.get("metadata") or {}).get("name"):
        return kind, [item for item in items if isinstance(item, dict)]
    return str(kind), [obj]


def delete_owned(name: str, owner: dict[str, str], timeout: float) -> list[str]:
    """Delete by name and Manager's labels: a Deployment without them never matches, so the
    API server's list, not a read of ours before it, decides ownership."""
    return [
        "delete",
        "deployments",
        "-l",
        selector_string(owner),
        "--field-selector",
        f"metadata.name={name}",
        "--cascade=foreground",
        # Under a selector kubectl ignores a 404 by default, and then waits for the object
        # anyway: a 404 that is not the truth would cost the whole --timeout.
        "--ignore-not-found=false",
        "--wait=true",
        *wait_timeout_args(timeout),
        # Its own discovery and LIST come before the DELETE: against an API gone silent
        # since delete's read, it is stopped there, not at the end of the whole wait.
        REQUESTS,
    ]


def find_deployment(name: str) -> list[str]:
    """The Deployment by name as a list: a read that does not use the object's own path."""
    return ["get", "deployments", "--field-selector", f"metadata.name={name}", "-o", "json"]


def apply_read_back() -> list[str]:
    """create's and reconfigure's apply, printing the applied Deployment with its
    managedFields; its log shows its requests (``REQUESTS``)."""
    return [*apply(), "-o", "json", SHOW_MANAGED_FIELDS, REQUESTS]


def restore(name: str, patch: str) -> list[str]:
    """reconfigure's take-back of fields another manager added, which server-side apply never
    removes (rules/restore.py builds the strategic merge patch; it carries no values)."""
    return [
        "patch",
        "deployment",
        name,
        "--type=strategic",
        f"--field-manager={FIELD_MANAGER}",
        "-p",
        patch,
        "-o",
        "json",
        SHOW_MANAGED_FIELDS,
        REQUESTS,
    ]


# The pages of a feed's watch's first list (kubectl's default: 500): the heap one page takes
# to decode, in kubectl and in the adapter, is what the long-lived feed grew to and may keep
# (issue 42).
FEED_PAGE = "--chunk-size=100"


def watch_kind(kind: str, selector: str, *, all_namespaces: bool = False) -> list[str]:
    """One of the live feed's watches (``list -w``, ``status -w``): ``kind`` by ``selector``."""
    scope = [ALL_NAMESPACES] if all_namespaces else []
    return ["get", kind, *scope, "-l", selector, "--watch", "-o", "json", "--output-watch-events",
            *([SHOW_MANAGED_FIELDS] if kind == "deployments" else []), FEED_PAGE,
            WATCH_LOG]  # fmt: skip


def named_within(selector: str, names: Sequence[str]) -> str:
    """``selector`` narrowed to the workloads named (their name label, on their ReplicaSets
    and Pods): the live feed watches only the workloads in motion."""
    return f"{selector},{NAME_LABEL} in ({','.join(sorted(names))})"


def feed_probe(name: str) -> list[str]:
    """A live feed's look at the API server after a silence (a watch gone quiet cannot tell
    a quiet cluster from an API server that stopped answering): one Deployment by name, a
    request the API server answers at once whatever the number of workloads, bounded and
    typed as ``list``'s read is."""
    return ["get", "deployment", name, "--ignore-not-found", "-o", "name"]
