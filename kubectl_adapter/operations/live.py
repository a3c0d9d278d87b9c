"""``list --watch`` and ``status --watch``: a live feed of snapshots, one per change.

Three kubectl processes whatever the number of workloads: ``get deployments|replicasets|pods
-l SELECTOR --watch``, run at once (``runner.watch_together``, as every wait runs its
watches). What they show is kept per object, by uid, and a workload's snapshot is rebuilt
from its own objects each time one of them changes, with the same pure rules ``list`` uses
(``rules.snapshots``): the feed says ``ADDED`` / ``MODIFIED`` / ``DELETED`` only when that
snapshot differs from the last one it gave, and ``SYNCED`` once every workload it has given
is as the cluster now shows it (after the first list, and after a broken watch's new list).

A watch that breaks (the API server closed, reset or expired it, or restarted) is started
again, all three together: each lists the current state first, which is compared with what
the feed last gave, so a change made meanwhile is given once and nothing unchanged is
repeated. Memory holds the objects that exist now and one snapshot per workload: deleted
objects leave it. Only an API server unreachable for ``UNREACHABLE_SECONDS`` in a row, or a
refusal (Forbidden, a bad kubeconfig), ends the feed with its error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from time import monotonic
from typing import Any

from ..contract.errors import Unavailable
from ..contract.naming import ProviderId
from ..contract.statuses import Status
from ..kubectl import commands
from ..kubectl.runner import KubectlRunner
from ..kubectl.transcript import Wait
from ..rules.snapshots import placeholder_document, snapshot_document

__all__ = ["UNREACHABLE_SECONDS", "Feed", "watch_snapshots"]

Document = dict[str, Any]
# (event, snapshot document): "ADDED" | "MODIFIED" | "DELETED", or ("SYNCED", None).
Feed = Callable[[str, Document | None], None]

DEPLOYMENTS, REPLICASETS, PODS = 0, 1, 2
RESUME_DELAYS = (0.0, 0.5, 1.0, 2.0)
# An API server restart is over in seconds; a feed that cannot reach it for this long says
# so (Unavailable) rather than watch nothing silently.
UNREACHABLE_SECONDS = 30.0
# One run of the watches lasts at most this long; then they are started again (a relist).
RUN_SECONDS = 3600.0


def _uid(obj: Document) -> str:
    meta = obj.get("metadata") or {}
    return str(meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}")


def _owner(obj: Document) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") and ref.get("uid"):
            return str(ref["uid"])
    return None


def _pid(obj: Document) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


class _Objects:
    """What the three watches have shown, by uid, with the owner links a snapshot needs."""

    def __init__(self) -> None:
        self.kinds: list[dict[str, Document]] = [{}, {}, {}]
        # owner uid -> its ReplicaSets' (a Deployment's) or Pods' (a ReplicaSet's) uids:
        # a snapshot reads its own objects, never the whole namespace's.
        self.children: list[dict[str, set[str]]] = [{}, {}, {}]

    def seen(self, index: int, kind: str, obj: Document) -> set[str]:
        """Store one event; the uids of the Deployments whose snapshot it may change."""
        uid = _uid(obj)
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
        return touched

    def _deployments_of(self, index: int, obj: Document) -> set[str]:
        if index == DEPLOYMENTS:
            return {_uid(obj)}
        owner = _owner(obj)
        if owner is None:
            return set()
        if index == REPLICASETS:
            return {owner}
        replicaset = self.kinds[REPLICASETS].get(owner)
        found = _owner(replicaset) if replicaset is not None else None
        return {found} if found is not None else set()

    def snapshot(self, uid: str) -> Document | None:
        deployment = self.kinds[DEPLOYMENTS].get(uid)
        if deployment is None:
            return None
        owned = sorted(self.children[REPLICASETS].get(uid, ()))
        replicasets = [self.kinds[REPLICASETS][rs] for rs in owned]
        pods = [
            self.kinds[PODS][pod] for rs in owned for pod in sorted(self.children[PODS].get(rs, ()))
        ]
        return snapshot_document(deployment, replicasets, pods)


class _Watched:
    """One run of the three watches (``processes.Watching``); ``given`` outlives it."""

    def __init__(self, given: dict[str, Document], feed: Feed, only: ProviderId | None) -> None:
        self.given = given  # provider ID -> the snapshot the feed last gave
        self.feed = feed
        self.only = only
        self.objects = _Objects()
        self.listed = [False, False, False]
        self.pids: dict[str, str] = {}  # Deployment uid -> provider ID

    @property
    def working(self) -> bool:
        return all(self.listed)

    def document(self, index: int, document: Any) -> bool:
        event = commands.watched_objects(document)
        if event is None:
            return False  # ERROR (an expired watch: kubectl ends it, it is started again)
        kind, objects = event
        touched: set[str] = set()
        for item in objects:
            touched |= self.objects.seen(index, kind, item)
        if self.working:
            for uid in sorted(touched):
                self._give(uid)
        return False

    def stderr_line(self, index: int, line: str) -> bool:
        if self.listed[index] or not commands.watch_listed(line):
            return False
        self.listed[index] = True
        if self.working:
            self._sync()
        return False

    def wake_at(self) -> float | None:
        return None

    def woken(self) -> bool:
        return False

    def _give(self, uid: str) -> None:
        document = self.objects.snapshot(uid)
        if document is None:
            pid = self.pids.pop(uid, None)
            if pid is not None:
                self._gone(pid)
            return
        pid = str(document["providerId"])
        self.pids[uid] = pid
        before = self.given.get(pid)
        if before == document:
            return
        self.given[pid] = document
        self.feed("ADDED" if before is None or before["status"] == "missing" else "MODIFIED",
                  document)  # fmt: skip

    def _gone(self, pid: str) -> None:
        before = self.given.get(pid)
        if before is None or before["status"] == "missing":
            return
        namespace, _, name = pid.partition("/")
        gone = placeholder_document(
            ProviderId(namespace, name), Status.MISSING, "deployment does not exist"
        )
        if self.only is None:
            del self.given[pid]
        else:
            self.given[pid] = gone
        self.feed("DELETED", gone)

    def _sync(self) -> None:
        """Every watch has listed: what the cluster shows now, against what was given."""
        for uid in sorted(self.objects.kinds[DEPLOYMENTS]):
            self._give(uid)
        shown = set(self.pids.values())
        for pid in sorted(set(self.given) - shown):
            self._gone(pid)
        if self.only is not None and str(self.only) not in self.given:
            missing = placeholder_document(self.only, Status.MISSING, "deployment does not exist")
            self.given[str(self.only)] = missing
            self.feed("ADDED", missing)
        self.feed("SYNCED", None)


def watch_snapshots(
    runner: KubectlRunner,
    namespace: str | None,
    selector: str,
    feed: Feed,
    *,
    all_namespaces: bool = False,
    only: ProviderId | None = None,
) -> None:
    """Feed every change of the workloads ``selector`` picks until interrupted (a signal),
    a refusal, or an API server unreachable for ``UNREACHABLE_SECONDS``: those raise.
    ``only``: ``status -w`` of one workload, given as missing while it does not exist."""
    watches = commands.watch_workloads(selector, all_namespaces=all_namespaces)
    given: dict[str, Document] = {}
    first = True
    failed_in_a_row = 0
    unreachable_since: float | None = None
    while True:
        watched = _Watched(given, feed, only)
        end = runner.watch_together(
            watches, watched, namespace=namespace, seconds=RUN_SECONDS, wait=Wait(0, first)
        )
        first = False
        failure = end.failure
        if failure is not None and not isinstance(failure, Unavailable):
            raise failure  # refused, misconfigured: starting again cannot help
        now = monotonic()
        if watched.working:  # it got through: a watch ended, not the API server
            failed_in_a_row, unreachable_since = 0, None
        else:
            failed_in_a_row += 1
            if unreachable_since is None:
                unreachable_since = now
            elif failure is not None and now - unreachable_since >= UNREACHABLE_SECONDS:
                raise failure
        time.sleep(RESUME_DELAYS[min(failed_in_a_row, len(RESUME_DELAYS) - 1)])
