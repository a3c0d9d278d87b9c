"""Which ReplicaSets and Pods belong to a Deployment: the one selection every path uses.

A label selector is not ownership: the Pods of an earlier Deployment of the same name (left
behind by an orphaning delete) carry the same labels. Ownership is the controller's
``ownerReferences`` chain, Deployment -> ReplicaSet UID -> Pod, matched by UID; by name only
when a reference carries no UID. ``list`` indexes every object once (linear in the number of
objects); ``status``, the waits and the diagnostics select over one workload's objects with the
same index, so all of them judge the same Pods.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, NamedTuple

from ..contract.naming import NAME_LABEL

Document = dict[str, Any]
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
_Key = tuple[str, str]


class Owned(NamedTuple):
    replicasets: list[Document]
    pods: list[Document]
    newest: Document | None
    newest_pods: list[Document]


def _controller_ref(obj: Document, kind: str) -> Document | None:
    """The controlling reference of that kind (the first of that kind when none says so)."""
    first: Document | None = None
    ref: Document
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if ref and ref.get("kind") == kind:
            if ref.get("controller"):
                return ref
            if first is None:
                first = ref
    return first


def _ref_key(ref: Document) -> _Key:
    uid = ref.get("uid")
    return ("uid", str(uid)) if uid else ("name", str(ref.get("name", "")))


def _owner_keys(owner: Document) -> tuple[_Key, ...]:
    """The keys a child's reference to ``owner`` may carry: its UID, or its name when the
    reference has no UID (never the name when both sides have UIDs: that is the orphan case)."""
    meta = owner.get("metadata") or {}
    by_name = ("name", str(meta.get("name", "")))
    uid = meta.get("uid")
    return (("uid", str(uid)), by_name) if uid else (by_name,)


def revision(replicaset: Document) -> int:
    annotations = (replicaset.get("metadata") or {}).get("annotations") or {}
    try:
        return int(annotations.get(REVISION_ANNOTATION, "0"))
    except (TypeError, ValueError):
        return 0


def _newest(replicasets: list[Document]) -> Document | None:
    if not replicasets:
        return None
    return max(
        replicasets,
        key=lambda rs: (revision(rs), (rs.get("metadata") or {}).get("creationTimestamp") or ""),
    )


class OwnerIndex:
    """ReplicaSets grouped by owning Deployment and Pods by owning ReplicaSet, built once."""

    def __init__(self, replicasets: list[Document], pods: list[Document]) -> None:
        self._replicasets: dict[_Key, list[Document]] = defaultdict(list)
        self._pods: dict[_Key, list[Document]] = defaultdict(list)
        for rs in replicasets:
            ref = _controller_ref(rs, "Deployment")
            if ref is not None:
                self._replicasets[_ref_key(ref)].append(rs)
        for pod in pods:
            ref = _controller_ref(pod, "ReplicaSet")
            if ref is not None:
                self._pods[_ref_key(ref)].append(pod)

    def _children(self, table: dict[_Key, list[Document]], owner: Document) -> list[Document]:
        found: list[Document] = []
        for key in _owner_keys(owner):
            found.extend(table.get(key, ()))
        return found

    def owned_by(self, deployment: Document) -> Owned:
        replicasets = self._children(self._replicasets, deployment)
        if len(replicasets) == 1:  # the common case: that one is the newest, its Pods are all
            pods = self._children(self._pods, replicasets[0])
            return Owned(replicasets, pods, replicasets[0], list(pods))
        pods = [pod for rs in replicasets for pod in self._children(self._pods, rs)]
        newest = _newest(replicasets)
        newest_pods = self._children(self._pods, newest) if newest is not None else []
        return Owned(replicasets, pods, newest, newest_pods)


def replicaset_key(pod: Document) -> _Key | None:
    """The key of the ReplicaSet that controls ``pod`` (its uid; its name when the reference
    has none), or None: a Pod no ReplicaSet controls (made by hand) is no Deployment's."""
    ref = _controller_ref(pod, "ReplicaSet")
    return None if ref is None else _ref_key(ref)


TEMPLATE_HASH_LABEL = "pod-template-hash"


def named_as_its_replicaset(deployment: Document, pod: Document) -> bool:
    """Whether ``pod``'s ReplicaSet bears the name the Deployment gives its own (NAME-HASH,
    HASH the Pod's ``pod-template-hash``): what is left to tell of a Pod whose ReplicaSet has
    just been deleted (its Deployment deleted, an old revision cleaned up)."""
    ref = _controller_ref(pod, "ReplicaSet")
    name = (deployment.get("metadata") or {}).get("name")
    hash_ = ((pod.get("metadata") or {}).get("labels") or {}).get(TEMPLATE_HASH_LABEL)
    return ref is not None and bool(hash_) and ref.get("name") == f"{name}-{hash_}"


def owned_replicaset_keys(deployment: Document, replicasets: list[Document]) -> set[_Key]:
    """The keys a Pod's reference may carry to a ReplicaSet the Deployment owns (by uid)."""
    owned = OwnerIndex(replicasets, []).owned_by(deployment).replicasets
    return {key for rs in owned for key in _owner_keys(rs)}


def select_owned(deployment: Document, replicasets: list[Document], pods: list[Document]) -> Owned:
    """The Deployment's own ReplicaSets and Pods among objects read by label."""
    return OwnerIndex(replicasets, pods).owned_by(deployment)


def _count(obj: Document) -> int:
    replicas = (obj.get("status") or {}).get("replicas", 0)
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 0


def holds_every_pod(deployment: Document, owned: Owned) -> bool:
    """Whether a read by the name label (``naming.name_selector``) saw all of the
    Deployment's Pods: its Pod template carries the label, so its current ReplicaSet and Pods
    do (a rollback to a revision from before the label would not), and the owned ReplicaSets
    seen account for every Pod the Deployment counts (mid-rollout, the ReplicaSet of a
    revision from before the label holds Pods the read did not see)."""
    name = (deployment.get("metadata") or {}).get("name")
    template = ((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}
    if (template.get("labels") or {}).get(NAME_LABEL) != name:
        return False
    return sum(_count(rs) for rs in owned.replicasets) >= _count(deployment)
