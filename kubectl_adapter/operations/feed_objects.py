"""What the live feed knows of the cluster: the objects its reads and watches have shown, by
uid, with the owner links a snapshot needs (a snapshot reads its own objects, never the
whole namespace's). Memory holds the objects that exist now: a deleted object leaves it, and
a deleted Deployment takes its ReplicaSets and Pods with it (their watch may not be running
to say they went).

Each object is held as its JSON bytes (``Packed``), decoded when a snapshot or a judgement
reads it: a feed reads the few objects of the workload that changed, while it holds every
object for as long as it runs. As Python objects the fields the rules read took about 28 KiB
a workload (a Deployment's managedFields, nested dicts, most of it); as bytes 6 KiB.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any

from ..rules.selection import select_owned
from ..rules.snapshots import snapshot_document

__all__ = ["DEPLOYMENTS", "PODS", "REPLICASETS", "Objects", "uid_of"]

Document = dict[str, Any]
DEPLOYMENTS, REPLICASETS, PODS = 0, 1, 2


def uid_of(obj: Document) -> str:
    meta = obj.get("metadata") or {}
    return str(meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}")


def _owner(obj: Document) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") and ref.get("uid"):
            return str(ref["uid"])
    return None


class Packed(MutableMapping[str, Document]):
    """Objects by uid, each kept as its JSON bytes and decoded when read (a fresh dict each
    time: nothing read is changed in place)."""

    def __init__(self) -> None:
        import msgspec  # the feed's watch events are decoded by it already

        self._encode, self._decode = msgspec.json.encode, msgspec.json.decode
        self._held: dict[str, bytes] = {}

    def __getitem__(self, uid: str) -> Document:
        found: Document = self._decode(self._held[uid])
        return found

    def __setitem__(self, uid: str, obj: Document) -> None:
        self._held[uid] = self._encode(obj)

    def __delitem__(self, uid: str) -> None:
        del self._held[uid]

    def __contains__(self, uid: object) -> bool:
        return uid in self._held

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)


class Objects:
    """Deployments, ReplicaSets and Pods by uid; children by owner uid."""

    def __init__(self) -> None:
        self.kinds: list[Packed] = [Packed(), Packed(), Packed()]
        # owner uid -> its ReplicaSets' (a Deployment's) or Pods' (a ReplicaSet's) uids
        self.children: list[dict[str, set[str]]] = [{}, {}, {}]

    def seen(self, index: int, kind: str, obj: Document) -> set[str]:
        """Store one event; the uids of the Deployments whose snapshot it may change."""
        uid = uid_of(obj)
        old = self.kinds[index].get(uid)
        children = self.children[index]
        if old is not None and (owner := _owner(old)) is not None:
            children.get(owner, set()).discard(uid)
            if not children.get(owner, True):
                del children[owner]
        if kind == "DELETED":
            self.kinds[index].pop(uid, None)
        else:
            self.kinds[index][uid] = obj
            if (owner := _owner(obj)) is not None:
                children.setdefault(owner, set()).add(uid)
        touched: set[str] = set()
        for version in (old, None if kind == "DELETED" else obj):
            if version is not None:
                touched |= self._deployments_of(index, version)
        if index == DEPLOYMENTS and kind == "DELETED":
            self.forget_children(uid, set(), set())
        return touched

    def _deployments_of(self, index: int, obj: Document) -> set[str]:
        if index == DEPLOYMENTS:
            return {uid_of(obj)}
        owner = _owner(obj)
        if owner is None:
            return set()
        if index == REPLICASETS:
            return {owner}
        replicaset = self.kinds[REPLICASETS].get(owner)
        found = _owner(replicaset) if replicaset is not None else None
        return {found} if found is not None else set()

    def owned(self, uid: str) -> tuple[list[Document], list[Document]]:
        """The ReplicaSets and Pods the Deployment ``uid`` owns, as known now."""
        rs_uids = sorted(self.children[REPLICASETS].get(uid, ()))
        replicasets = [self.kinds[REPLICASETS][rs] for rs in rs_uids]
        pods = [
            self.kinds[PODS][pod]
            for rs in rs_uids
            for pod in sorted(self.children[PODS].get(rs, ()))
        ]
        return replicasets, pods

    def owned_pods(self, uid: str) -> list[Document]:
        """The Pods the status rules judge it by (owner-checked, as ``list`` picks them)."""
        deployment = self.kinds[DEPLOYMENTS].get(uid)
        if deployment is None:
            return []
        return select_owned(deployment, *self.owned(uid)).pods

    def snapshot(self, uid: str) -> Document | None:
        deployment = self.kinds[DEPLOYMENTS].get(uid)
        if deployment is None:
            return None
        return snapshot_document(deployment, *self.owned(uid))

    def forget_children(self, uid: str, kept_replicasets: set[str], kept_pods: set[str]) -> bool:
        """Drop the ReplicaSets and Pods of Deployment ``uid`` not in ``kept_*`` (a new list
        did not show them: they went while unwatched). True when any went."""
        gone = False
        for rs in list(self.children[REPLICASETS].get(uid, ())):
            for pod in list(self.children[PODS].get(rs, ())):
                if pod not in kept_pods:
                    self.seen(PODS, "DELETED", self.kinds[PODS][pod])
                    gone = True
            if rs not in kept_replicasets:
                for pod in list(self.children[PODS].get(rs, ())):
                    self.seen(PODS, "DELETED", self.kinds[PODS][pod])
                self.seen(REPLICASETS, "DELETED", self.kinds[REPLICASETS][rs])
                gone = True
        return gone
