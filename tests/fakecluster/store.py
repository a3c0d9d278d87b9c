"""In-memory object store: resourceVersions, generations, managed fields and a watch log.

All state lives behind one re-entrant lock; ``cond`` (built on it) is notified after every
write, which is what watches, the controllers and ``FakeCluster.wait_for`` wait on.
"""

from __future__ import annotations

import bisect
import copy
import threading
import uuid
from dataclasses import dataclass
from typing import Any

from .resources import BY_NAME
from .ssa import Ownership
from .timeutil import now_rfc3339

_SPEC_GENERATION = frozenset({"deployments", "replicasets"})
_LOG_MAX = 50_000

Key = tuple[str, str, str]  # (resource, namespace, name)


@dataclass(frozen=True)
class WatchEvent:
    rv: int
    type: str  # ADDED | MODIFIED | DELETED
    resource: str
    namespace: str
    obj: dict[str, Any]
    prev: dict[str, Any] | None


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    c = copy.deepcopy(obj)
    c.get("metadata", {}).pop("resourceVersion", None)
    return c


class Store:
    def __init__(self, uid_seed: str | None = None) -> None:
        # With a seed, the n-th object created under one (resource, namespace, name) gets the
        # same uid in every store with that seed: two fakes can replay one history exactly.
        self.uid_seed = uid_seed
        self._incarnations: dict[Key, int] = {}
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        # The watch log has a lock of its own (taken after ``lock``, never before it): a watch
        # sends an event as soon as it is logged, as an API server's watch cache does, not
        # once the controllers' pass (which holds ``lock``) lets go. Its events are copies.
        self.log_cond = threading.Condition(threading.RLock())
        self._rv = 1000
        self._objects: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
        self._own: dict[Key, Ownership] = {}
        self._log: list[WatchEvent] = []
        self._log_rvs: list[int] = []
        self._floor = self._rv
        self.closed = False

    # -- reads -------------------------------------------------------------
    @property
    def rv(self) -> int:
        with self.lock:
            return self._rv

    def raw(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The stored object itself (no copy). Callers must hold ``lock`` and not mutate it."""
        return self._objects.get(resource, {}).get((namespace, name))

    def get(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        with self.lock:
            obj = self.raw(resource, namespace, name)
            return copy.deepcopy(obj) if obj is not None else None

    def raw_list(self, resource: str, namespace: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            items = self._objects.get(resource, {})
            out = [o for (ns, _), o in items.items() if namespace is None or ns == namespace]
            return sorted(
                out, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"])
            )

    def list(self, resource: str, namespace: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return copy.deepcopy(self.raw_list(resource, namespace))

    def ownership(self, resource: str, namespace: str, name: str) -> Ownership:
        with self.lock:
            return self._own.setdefault((resource, namespace, name), Ownership())

    def set_ownership(self, resource: str, namespace: str, name: str, own: Ownership) -> None:
        with self.lock:
            self._own[(resource, namespace, name)] = own

    # -- writes ------------------------------------------------------------
    def _next_rv(self) -> int:
        self._rv += 1
        return self._rv

    def _emit(self, etype: str, resource: str, obj: dict[str, Any], prev: dict[str, Any] | None):
        ev = WatchEvent(self._rv, etype, resource, obj["metadata"].get("namespace", ""), obj, prev)
        with self.log_cond:
            self._log.append(ev)
            self._log_rvs.append(ev.rv)
            if len(self._log) > _LOG_MAX:
                cut = len(self._log) - _LOG_MAX // 2
                self._floor = self._log_rvs[cut - 1]
                del self._log[:cut]
                del self._log_rvs[:cut]
            self.log_cond.notify_all()
        self.cond.notify_all()

    def _render_fields(self, resource: str, obj: dict[str, Any]) -> None:
        md = obj["metadata"]
        own = self._own.get((resource, md.get("namespace", ""), md["name"]))
        rendered = own.render(obj["apiVersion"]) if own else []
        if rendered:
            md["managedFields"] = rendered
        else:
            md.pop("managedFields", None)

    def create(
        self,
        resource: str,
        obj: dict[str, Any],
        *,
        manager: str | None = None,
        ownership: Ownership | None = None,
    ) -> dict[str, Any]:
        """Store a new object (the caller checked it does not exist)."""
        with self.lock:
            obj = copy.deepcopy(obj)
            md = obj.setdefault("metadata", {})
            info = BY_NAME[resource]
            if not info.namespaced:
                md.pop("namespace", None)
            ns = md.get("namespace", "")
            md.pop("managedFields", None)
            md["uid"] = self._new_uid((resource, ns, md["name"]))
            md["resourceVersion"] = str(self._next_rv())
            md["creationTimestamp"] = now_rfc3339()
            if resource in _SPEC_GENERATION:
                md["generation"] = 1
            key = (resource, ns, md["name"])
            own = ownership or Ownership()
            if manager:
                own.record_update(None, obj, manager, now=md["creationTimestamp"])
            self._own[key] = own
            self._render_fields(resource, obj)
            md = obj["metadata"]
            ordered = {k: md[k] for k in _META_ORDER if k in md}
            ordered.update({k: v for k, v in md.items() if k not in ordered})
            obj["metadata"] = ordered
            self._objects.setdefault(resource, {})[(ns, md["name"])] = obj
            self._emit("ADDED", resource, copy.deepcopy(obj), None)
            return copy.deepcopy(obj)

    def _new_uid(self, key: Key) -> str:
        if self.uid_seed is None:
            return str(uuid.uuid4())
        n = self._incarnations[key] = self._incarnations.get(key, 0) + 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.uid_seed}/{'/'.join(key)}/{n}"))

    def replace(
        self,
        resource: str,
        obj: dict[str, Any],
        *,
        manager: str | None = None,
        subresource: str = "",
    ) -> dict[str, Any]:
        """Replace an existing object; a no-op write keeps the resourceVersion."""
        with self.lock:
            md = obj["metadata"]
            ns, name = md.get("namespace", ""), md["name"]
            old = self.raw(resource, ns, name)
            if old is None:
                raise KeyError((resource, ns, name))
            new = copy.deepcopy(obj)
            nmd = new["metadata"]
            for k in ("uid", "creationTimestamp"):
                nmd[k] = old["metadata"][k]
            if "generation" in old["metadata"]:
                gen = old["metadata"]["generation"]
                if new.get("spec") != old.get("spec"):
                    gen += 1
                nmd["generation"] = gen
            own = self._own.setdefault((resource, ns, name), Ownership())
            if manager:
                own.record_update(old, new, manager, subresource=subresource, now=now_rfc3339())
            self._render_fields(resource, new)
            nmd["resourceVersion"] = old["metadata"]["resourceVersion"]
            if _comparable(new) == _comparable(old) and new == old:
                return copy.deepcopy(old)
            nmd["resourceVersion"] = str(self._next_rv())
            self._objects[resource][(ns, name)] = new
            self._emit("MODIFIED", resource, copy.deepcopy(new), copy.deepcopy(old))
            return copy.deepcopy(new)

    def remove(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        with self.lock:
            old = self._objects.get(resource, {}).pop((namespace, name), None)
            if old is None:
                return None
            self._own.pop((resource, namespace, name), None)
            gone = copy.deepcopy(old)
            gone["metadata"]["resourceVersion"] = str(self._next_rv())
            self._emit("DELETED", resource, gone, copy.deepcopy(old))
            return copy.deepcopy(gone)

    def touch(self) -> None:
        """Wake everybody waiting on ``cond`` or ``log_cond`` (e.g. after a fault-injection
        change)."""
        with self.lock:
            self.cond.notify_all()
        with self.log_cond:
            self.log_cond.notify_all()

    # -- watch log ---------------------------------------------------------
    def events_after(self, rv: int) -> list[WatchEvent] | None:
        """Events with resourceVersion > rv, or None if rv is older than the log."""
        with self.log_cond:
            if rv < self._floor:
                return None
            i = bisect.bisect_right(self._log_rvs, rv)
            return self._log[i:]

    def log(self, since: int | None = None) -> list[WatchEvent]:
        """The watch log after resourceVersion ``since`` (None: all it still holds)."""
        with self.lock:
            return list(self._log if since is None else self.events_after(since) or [])

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.cond.notify_all()
        with self.log_cond:
            self.log_cond.notify_all()


_META_ORDER = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)
