"""Deployment + ReplicaSet controllers, garbage collector, deletion semantics, main loop."""

from __future__ import annotations

import copy
import json
import math
import secrets
import sys
import threading
import time
import traceback
from typing import Any

from .defaults import default_pod
from .events import EventRecorder
from .kubelet import Kubelet
from .nodes import Node, qos_class
from .selectors import match_labels_selector
from .store import Store
from .timeutil import now_rfc3339

REVISION = "deployment.kubernetes.io/revision"
HASH_LABEL = "pod-template-hash"
_ALNUM = "bcdfghjklmnpqrstvwxz2456789"
CM = "kube-controller-manager"
PAUSED = "DeploymentPaused"
TIMED_OUT = "ProgressDeadlineExceeded"


class NotFoundError(KeyError):
    pass


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def normalized_template(tmpl: dict[str, Any]) -> dict[str, Any]:
    t = copy.deepcopy(tmpl)
    md = t.setdefault("metadata", {})
    md.pop("creationTimestamp", None)
    labels = dict(md.get("labels") or {})
    labels.pop(HASH_LABEL, None)
    md["labels"] = labels
    return t


def template_hash(tmpl: dict[str, Any]) -> str:
    raw = json.dumps(normalized_template(tmpl), sort_keys=True).encode()
    return "".join(_ALNUM[b % len(_ALNUM)] for b in str(_fnv32a(raw)).encode())


def _resolve(value: Any, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        f = int(value[:-1]) * total / 100
        return math.ceil(f) if round_up else math.floor(f)
    return int(value or 0)


def _replicas(rs: dict[str, Any]) -> int:
    return int(rs["spec"].get("replicas", 0))


def _available(rs: dict[str, Any]) -> int:
    return int((rs.get("status") or {}).get("availableReplicas", 0))


def _fenceposts(spec: dict[str, Any], desired: int) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) as counts (deployment/util ``ResolveFenceposts`` and
    ``MaxUnavailable``): surge rounded up, unavailable down, never both 0, unavailable at
    most the replicas."""
    rolling = (spec.get("strategy") or {}).get("rollingUpdate") or {}
    surge = _resolve(rolling.get("maxSurge", "25%"), desired, True)
    unavailable = _resolve(rolling.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, 0 if desired == 0 else min(unavailable, desired)


def _revision(rs: dict[str, Any]) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


class Controller:
    def __init__(
        self,
        store: Store,
        *,
        nodes: list[Node],
        pod_ready_delay: float,
        termination_delay: float,
    ) -> None:
        self.store = store
        self.events = EventRecorder(store)
        self.kubelet = Kubelet(
            store,
            self.events,
            nodes,
            ready_delay=pod_ready_delay,
            termination_delay=termination_delay,
        )
        self.available_times: dict[str, float] = {}
        self._progress: dict[str, float] = {}
        self._complete: set[str] = set()  # Deployments (uid) whose rollout is complete now
        self._template_keys: dict[tuple[str, int], str] = {}
        self._stop = False
        self._held = False
        # The store's resourceVersion the last pass started from and left unchanged: every
        # write up to it has been reconciled (what ``settled`` awaits).
        self.reconciled_rv = -1
        self._thread = threading.Thread(
            target=self._run, name="fakecluster-controller", daemon=True
        )

    # -- loop --------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        with self.store.cond:
            self._stop = True
            self.store.cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def hold(self, held: bool = True) -> None:
        """While held, no controller (nor the kubelet) acts on anything: a controller manager
        that lags behind the API server, for tests of what a client sees before it catches up."""
        with self.store.cond:
            self._held = held
            self.store.cond.notify_all()

    def settled(self) -> bool:
        """Every write so far has been reconciled (call with the store's lock held)."""
        return not self._held and self.reconciled_rv == self.store.rv

    def _run(self) -> None:
        seen = -1
        due: float | None = None
        while True:
            with self.store.cond:
                while not self._stop and (self._held or self.store.rv == seen):
                    timeout = 5.0 if due is None or self._held else due - time.monotonic()
                    if timeout <= 0:
                        break
                    self.store.cond.wait(timeout)
                if self._stop:
                    return
                try:
                    due = self.reconcile()
                except Exception:  # keep the simulation alive; show the bug
                    traceback.print_exc(file=sys.stderr)
                    due = time.monotonic() + 0.5
                seen = self.store.rv
                if self.reconciled_rv != seen:
                    self.reconciled_rv = seen
                    self.store.cond.notify_all()

    def reconcile(self) -> float | None:
        """Run every controller until nothing changes; return the next timed wake-up.

        Each step reads the stored objects themselves (no copies) through per-owner indices
        built once per step, and copies only what it writes, so a pass costs O(objects)."""
        due: float | None = None
        for _ in range(20):
            before = self.store.rv
            due = None
            rs_index = _by_owner(self.store.raw_list("replicasets"))
            pod_index = _by_owner(self.store.raw_list("pods"))
            for d in self.store.raw_list("deployments"):
                due = _min(due, self._sync_deployment(d, rs_index, pod_index))
            pod_index = _by_owner(self.store.raw_list("pods"))
            for rs in self.store.raw_list("replicasets"):
                self._sync_replicaset(rs, pod_index.get(rs["metadata"]["uid"], []))
            kd = self.kubelet.sync()
            due = _min(due, kd) if kd is not None else due
            self._collect_garbage()
            if self.store.rv == before:
                break
        return due

    # -- deletion ----------------------------------------------------------
    def delete(
        self,
        resource: str,
        namespace: str,
        name: str,
        *,
        propagation: str | None = None,
        grace: int | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Delete like the API server. Returns (object, still_exists)."""
        with self.store.lock:
            obj = self.store.get(resource, namespace, name)
            if obj is None:
                raise NotFoundError(name)
            md = obj["metadata"]
            if md.get("deletionTimestamp"):
                if resource == "pods" and grace == 0:
                    return self.store.remove(resource, namespace, name) or obj, False
                if (
                    resource == "pods"
                    and grace is not None
                    and grace < int(md.get("deletionGracePeriodSeconds") or 0)
                ):
                    # The API server shortens a running graceful deletion, never lengthens it.
                    md["deletionTimestamp"] = now_rfc3339(grace)
                    md["deletionGracePeriodSeconds"] = grace
                    return self.store.replace(resource, obj), True
                return obj, True
            if propagation == "Orphan":
                self._orphan(md["uid"], namespace)
            if propagation == "Foreground" and resource in ("deployments", "replicasets"):
                md["deletionTimestamp"] = now_rfc3339()
                md["deletionGracePeriodSeconds"] = 0
                md["finalizers"] = [*(md.get("finalizers") or []), "foregroundDeletion"]
                return self.store.replace(resource, obj), True
            if resource == "pods" and obj["spec"].get("nodeName") and grace != 0:
                g = (
                    grace
                    if grace is not None
                    else int(obj["spec"].get("terminationGracePeriodSeconds", 30))
                )
                md["deletionTimestamp"] = now_rfc3339(g)
                md["deletionGracePeriodSeconds"] = g
                new = self.store.replace(resource, obj)
                for c in obj["spec"].get("containers") or []:
                    self.events.record(
                        new,
                        "Normal",
                        "Killing",
                        f"Stopping container {c['name']}",
                        component="kubelet",
                        host=obj["spec"]["nodeName"],
                        field_path=f"spec.containers{{{c['name']}}}",
                    )
                return new, True
            if md.get("finalizers"):
                md["deletionTimestamp"] = now_rfc3339()
                md["deletionGracePeriodSeconds"] = 0
                return self.store.replace(resource, obj), True
            gone = self.store.remove(resource, namespace, name)
            return gone or obj, False

    def _orphan(self, owner_uid: str, namespace: str) -> None:
        for res in ("replicasets", "pods"):
            for raw in self.store.raw_list(res, namespace):
                refs = raw["metadata"].get("ownerReferences") or []
                kept = [r for r in refs if r.get("uid") != owner_uid]
                if len(kept) != len(refs):
                    dep = copy.deepcopy(raw)
                    if kept:
                        dep["metadata"]["ownerReferences"] = kept
                    else:
                        dep["metadata"].pop("ownerReferences", None)
                    self.store.replace(res, dep, manager="kube-controller-manager")

    def _collect_garbage(self) -> None:
        owners: dict[str, dict[str, Any]] = {}
        for res in ("deployments", "replicasets"):
            for o in self.store.raw_list(res):
                owners[o["metadata"]["uid"]] = o
        referenced: set[str] = set()
        for res in ("replicasets", "pods"):
            for dep in self.store.raw_list(res):
                refs = dep["metadata"].get("ownerReferences") or []
                referenced.update(str(r.get("uid")) for r in refs)
                if not refs or dep["metadata"].get("deletionTimestamp"):
                    continue
                live = [r for r in refs if r.get("uid") in owners]
                md = dep["metadata"]
                if not live:
                    self.delete(res, md["namespace"], md["name"], propagation="Background")
                    continue
                if any(
                    "foregroundDeletion" in (owners[r["uid"]]["metadata"].get("finalizers") or [])
                    for r in live
                ):
                    prop = "Foreground" if res == "replicasets" else None
                    self.delete(res, md["namespace"], md["name"], propagation=prop)
        for res in ("deployments", "replicasets"):
            for raw in self.store.raw_list(res):
                if "foregroundDeletion" not in (raw["metadata"].get("finalizers") or []):
                    continue
                if raw["metadata"]["uid"] in referenced:
                    continue
                o = copy.deepcopy(raw)
                md = o["metadata"]
                md["finalizers"] = [f for f in md["finalizers"] if f != "foregroundDeletion"]
                if md["finalizers"]:
                    self.store.replace(res, o)
                else:
                    self.store.remove(res, md["namespace"], md["name"])

    # -- replicasets -------------------------------------------------------
    def _sync_replicaset(self, rs: dict[str, Any], owned: list[dict[str, Any]]) -> None:
        """``rs`` and ``owned`` (its controlled Pods) are stored objects: read, never mutate.

        Like the real controller (``controller.FilterActivePods``), a Pod that is being deleted
        or has ended (phase Succeeded or Failed, e.g. evicted) is not counted, replaced or
        deleted: it stays until someone deletes it or its owner goes."""
        md = rs["metadata"]
        ns = md["namespace"]
        sel = match_labels_selector(rs["spec"].get("selector"))
        active = [p for p in owned if _is_active(p)]
        want = int(rs["spec"].get("replicas", 1) or 0)
        if not md.get("deletionTimestamp"):
            for _ in range(want - len(active)):
                active.append(self._create_pod(rs))
            if len(active) > want:

                def rank(p: dict[str, Any]) -> tuple[int, int, str]:
                    ready = _pod_ready(p)
                    scheduled = 1 if p["spec"].get("nodeName") else 0
                    return (ready, scheduled, p["metadata"]["creationTimestamp"])

                victims = sorted(active, key=rank)[: len(active) - want]
                for p in victims:
                    self.delete("pods", ns, p["metadata"]["name"])
                    self.events.record(
                        rs,
                        "Normal",
                        "SuccessfulDelete",
                        f"Deleted pod: {p['metadata']['name']}",
                        component="replicaset-controller",
                    )
                    active.remove(p)
        ready = sum(1 for p in active if _pod_ready(p))
        status: dict[str, Any] = {"replicas": len(active)}
        labeled = sum(1 for p in active if sel(p["metadata"].get("labels") or {}))
        if labeled:
            status["fullyLabeledReplicas"] = labeled
        if ready:
            status["readyReplicas"] = ready
            status["availableReplicas"] = ready
        status["observedGeneration"] = md.get("generation", 1)
        if rs.get("status") != status:
            cur = self.store.get("replicasets", ns, md["name"])
            if cur is not None:
                cur["status"] = status
                self.store.replace("replicasets", cur, manager=CM, subresource="status")

    def _create_pod(self, rs: dict[str, Any]) -> dict[str, Any]:
        md = rs["metadata"]
        tmpl = copy.deepcopy(rs["spec"].get("template") or {})
        tmd = tmpl.get("metadata") or {}
        name = f"{md['name']}-" + "".join(secrets.choice(_ALNUM) for _ in range(5))
        pod_md: dict[str, Any] = {
            "name": name,
            "generateName": f"{md['name']}-",
            "namespace": md["namespace"],
            "labels": dict(tmd.get("labels") or {}),
        }
        if tmd.get("annotations"):
            pod_md["annotations"] = dict(tmd["annotations"])
        pod_md["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": md["name"],
                "uid": md["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        spec = tmpl.get("spec") or {}
        spec.setdefault("serviceAccountName", "default")
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": pod_md, "spec": spec, "status": {}}
        default_pod(pod)
        pod["status"] = {"phase": "Pending", "qosClass": qos_class(pod)}
        created = self.store.create("pods", pod, manager=CM)
        self.events.record(
            rs,
            "Normal",
            "SuccessfulCreate",
            f"Created pod: {name}",
            component="replicaset-controller",
        )
        return created

    # -- deployments -------------------------------------------------------
    def _scale_rs(self, d: dict[str, Any], rs: dict[str, Any], n: int) -> dict[str, Any]:
        old = int(rs["spec"].get("replicas", 0))
        if old == n:
            return rs
        rs = copy.deepcopy(rs)
        rs["spec"]["replicas"] = n
        ann = rs["metadata"].setdefault("annotations", {})
        ann["deployment.kubernetes.io/desired-replicas"] = str(d["spec"]["replicas"])
        new = self.store.replace("replicasets", rs, manager=CM)
        verb = "up" if n > old else "down"
        self.events.record(
            d,
            "Normal",
            "ScalingReplicaSet",
            f"Scaled {verb} replica set {rs['metadata']['name']} from {old} to {n}",
            component="deployment-controller",
        )
        return new

    def _template_key(self, obj: dict[str, Any]) -> str:
        """Canonical JSON of the normalized pod template, cached per (uid, generation)."""
        md = obj["metadata"]
        key = (md["uid"], int(md.get("generation", 0)))
        hit = self._template_keys.get(key)
        if hit is None:
            if len(self._template_keys) > 20_000:
                self._template_keys.clear()
            hit = json.dumps(normalized_template(obj["spec"].get("template") or {}), sort_keys=True)
            self._template_keys[key] = hit
        return hit

    def _sync_deployment(
        self,
        d: dict[str, Any],
        rs_index: dict[str, list[dict[str, Any]]],
        pod_index: dict[str, list[dict[str, Any]]],
    ) -> float | None:
        """``d`` and the indexed objects are stored objects: read, never mutate."""
        md = d["metadata"]
        if md.get("deletionTimestamp"):
            return None
        ns, name, uid = md["namespace"], md["name"], md["uid"]
        spec = d["spec"]
        desired = int(spec.get("replicas", 1))
        paused = bool(spec.get("paused"))
        tmpl = spec.get("template") or {}
        all_rs = rs_index.get(uid, [])
        want = self._template_key(d)
        new_rs = next((rs for rs in all_rs if self._template_key(rs) == want), None)
        olds = [rs for rs in all_rs if rs is not new_rs]
        max_rev = max((_revision(rs) for rs in all_rs), default=0)
        progress_reason = ""
        progress_msg = ""
        if new_rs is None and not paused:
            # A paused Deployment gets no ReplicaSet for a changed template (the real
            # controller's sync() calls getAllReplicaSetsAndSyncRevision(createIfNotExisted=false)).
            h = template_hash(tmpl)
            rs_tmpl = copy.deepcopy(tmpl)
            rs_tmpl.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = h
            sel = copy.deepcopy(spec.get("selector") or {})
            sel.setdefault("matchLabels", {})[HASH_LABEL] = h
            rs_name = f"{name}-{h}"
            running = sum(int(o["spec"].get("replicas", 0)) for o in olds)
            if spec.get("strategy", {}).get("type") == "Recreate":
                initial = 0 if running else desired
            else:  # NewRSNewReplicas: no more Pods in all than desired + maxSurge
                surge = _fenceposts(spec, desired)[0]
                initial = max(0, min(desired, desired + surge - running))
            rs = {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {
                    "name": rs_name,
                    "namespace": ns,
                    "labels": dict(rs_tmpl["metadata"]["labels"]),
                    "annotations": {
                        **_copied_annotations(d),
                        "deployment.kubernetes.io/desired-replicas": str(desired),
                        "deployment.kubernetes.io/max-replicas": str(
                            desired
                            + _resolve(
                                spec.get("strategy", {}).get("rollingUpdate", {}).get("maxSurge"),
                                desired,
                                True,
                            )
                        ),
                        REVISION: str(max_rev + 1),
                    },
                    "ownerReferences": [
                        {
                            "apiVersion": "apps/v1",
                            "kind": "Deployment",
                            "name": name,
                            "uid": uid,
                            "controller": True,
                            "blockOwnerDeletion": True,
                        }
                    ],
                },
                "spec": {"replicas": initial, "selector": sel, "template": rs_tmpl},
                "status": {"replicas": 0},
            }
            if spec.get("minReadySeconds"):
                rs["spec"]["minReadySeconds"] = spec["minReadySeconds"]
            if self.store.raw("replicasets", ns, rs_name) is not None:
                return None  # hash collision with a foreign RS: give up quietly
            new_rs = self.store.create("replicasets", rs, manager=CM)
            if initial:
                self.events.record(
                    d,
                    "Normal",
                    "ScalingReplicaSet",
                    f"Scaled up replica set {rs_name} from 0 to {initial}",
                    component="deployment-controller",
                )
            progress_reason, progress_msg = (
                "NewReplicaSetCreated",
                f'Created new replica set "{rs_name}"',
            )
        elif new_rs is not None and (_revision(new_rs) < max_rev or not _revision(new_rs)):
            new_rs = copy.deepcopy(new_rs)
            new_rs["metadata"].setdefault("annotations", {}).update(_copied_annotations(d))
            new_rs["metadata"]["annotations"][REVISION] = str(max_rev + 1)
            new_rs = self.store.replace("replicasets", new_rs, manager=CM)
            progress_reason = "FoundNewReplicaSet"
            progress_msg = f'Found new replica set "{new_rs["metadata"]["name"]}"'
        if paused:
            self._scale_paused(d, new_rs, olds)
        elif new_rs is not None and spec.get("strategy", {}).get("type") == "Recreate":
            for o in olds:
                self._scale_rs(d, o, 0)
            old_pods = any(
                p["status"].get("phase") not in ("Failed", "Succeeded")
                for o in olds
                for p in pod_index.get(o["metadata"]["uid"], [])
            )
            if not old_pods:
                new_rs = self._scale_rs(d, new_rs, desired)
        elif new_rs is not None:
            new_rs = self._roll(d, new_rs, olds)
        self._cleanup_history(d, olds)
        if new_rs is not None:
            rev = (new_rs["metadata"].get("annotations") or {}).get(REVISION, "1")
            if (md.get("annotations") or {}).get(REVISION) != rev:
                dep = self.store.get("deployments", ns, name)
                if dep is None:
                    return None
                dep["metadata"].setdefault("annotations", {})[REVISION] = rev
                self.store.replace("deployments", dep, manager=CM)
        cur = self.store.raw("deployments", ns, name)
        if cur is None:
            return None
        names = [rs["metadata"]["name"] for rs in all_rs]
        if new_rs is not None and new_rs["metadata"]["name"] not in names:
            names.append(new_rs["metadata"]["name"])
        return self._update_status(cur, names, new_rs, progress_reason, progress_msg)

    def _roll(
        self, d: dict[str, Any], new_rs: dict[str, Any], olds: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """One step of the Deployment controller's rolling update (pkg/controller/deployment
        rolling.go, ``rolloutRolling``): ``reconcileNewReplicaSet`` scales the new ReplicaSet
        up within maxSurge (``NewRSNewReplicas``); ``reconcileOldReplicaSets`` scales the old
        ones down only as far as maxUnavailable allows, the unhealthy first
        (``cleanupUnhealthyReplicas``), then the available ones, oldest first
        (``scaleDownOldReplicaSetsForRollingUpdate``). So the one available ReplicaSet keeps
        serving while a new one cannot start, and a second broken template after a first
        takes the first broken one's Pod, never the serving one's."""
        desired = int(d["spec"].get("replicas", 1))
        surge, unavailable = _fenceposts(d["spec"], desired)
        new_count = _replicas(new_rs)
        if new_count > desired:
            new_rs = self._scale_rs(d, new_rs, desired)
        elif new_count < desired:
            room = desired + surge - new_count - sum(_replicas(o) for o in olds)
            if room > 0:
                new_rs = self._scale_rs(d, new_rs, new_count + min(room, desired - new_count))
        old_count = sum(_replicas(o) for o in olds)
        if old_count == 0:
            return new_rs
        min_available = desired - unavailable
        new_unavailable = _replicas(new_rs) - _available(new_rs)
        most = old_count + _replicas(new_rs) - min_available - new_unavailable
        if most <= 0:
            return new_rs
        # ReplicaSetsByCreationTimestamp: oldest first, then by name
        ordered = sorted(
            olds, key=lambda o: (o["metadata"]["creationTimestamp"], o["metadata"]["name"])
        )
        counts = {o["metadata"]["uid"]: _replicas(o) for o in ordered}
        cleaned = 0
        for o in ordered:
            count = counts[o["metadata"]["uid"]]
            if count == 0 or count == _available(o):
                continue
            if cleaned >= most:
                break
            down = min(most - cleaned, count - _available(o))
            counts[o["metadata"]["uid"]] = count - down
            self._scale_rs(d, o, count - down)
            cleaned += down
        available = sum(_available(o) for o in olds) + _available(new_rs)
        to_go = available - min_available
        for o in ordered:
            count = counts[o["metadata"]["uid"]]
            if to_go <= 0:
                break
            if count == 0:
                continue
            down = min(count, to_go)
            self._scale_rs(d, o, count - down)
            to_go -= down
        return new_rs

    def _scale_paused(
        self, d: dict[str, Any], new_rs: dict[str, Any] | None, olds: list[dict[str, Any]]
    ) -> None:
        """A paused Deployment is only scaled (the real controller's ``scale``): the one
        active ReplicaSet, or the newest when none is active, gets ``spec.replicas``.
        Proportional scaling across several active ReplicaSets is not modelled."""
        all_rs = ([new_rs] if new_rs is not None else []) + olds
        active = [rs for rs in all_rs if int(rs["spec"].get("replicas", 0))]
        if len(active) == 1:
            target = active[0]
        elif not active and new_rs is not None:
            target = new_rs
        elif not active and olds:
            target = max(olds, key=lambda rs: rs["metadata"]["creationTimestamp"])
        else:
            return
        self._scale_rs(d, target, int(d["spec"].get("replicas", 1)))

    def _cleanup_history(self, d: dict[str, Any], olds: list[dict[str, Any]]) -> None:
        limit = int(d["spec"].get("revisionHistoryLimit", 10))
        idle = [
            o
            for o in olds
            if not int(o["spec"].get("replicas", 0))
            and not int(o.get("status", {}).get("replicas", 0))
        ]
        idle.sort(key=_revision)
        for o in idle[: max(0, len(idle) - limit)]:
            self.delete("replicasets", o["metadata"]["namespace"], o["metadata"]["name"])

    def _update_status(
        self,
        d: dict[str, Any],
        rs_names: list[str],
        new_rs: dict[str, Any] | None,
        reason: str,
        message: str,
    ) -> float | None:
        """``d`` is the stored Deployment: read, never mutate."""
        md, spec = d["metadata"], d["spec"]
        uid = md["uid"]
        found = (self.store.raw("replicasets", md["namespace"], n) for n in rs_names)
        all_rs = [rs for rs in found if rs is not None]
        if new_rs is not None:
            new_rs = next(
                (r for r in all_rs if r["metadata"]["uid"] == new_rs["metadata"]["uid"]), new_rs
            )
        desired = int(spec.get("replicas", 1))
        paused = bool(spec.get("paused"))

        def total(key: str, rss: list[dict[str, Any]]) -> int:
            return sum(int(r.get("status", {}).get(key, 0)) for r in rss)

        replicas = total("replicas", all_rs)
        updated = int(new_rs.get("status", {}).get("replicas", 0)) if new_rs is not None else 0
        ready = total("readyReplicas", all_rs)
        available = total("availableReplicas", all_rs)
        spec_total = sum(int(r["spec"].get("replicas", 0)) for r in all_rs)
        unavailable = max(0, spec_total - available)
        old = d.get("status") or {}
        status: dict[str, Any] = {"observedGeneration": md.get("generation", 1)}
        for k, v in (
            ("replicas", replicas),
            ("updatedReplicas", updated),
            ("readyReplicas", ready),
            ("availableReplicas", available),
            ("unavailableReplicas", unavailable),
        ):
            if v:
                status[k] = v
        now = now_rfc3339()
        conds = {c["type"]: dict(c) for c in old.get("conditions") or []}
        strategy = spec.get("strategy") or {}
        max_unavail = 0
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            ru = strategy.get("rollingUpdate") or {}
            surge = _resolve(ru.get("maxSurge", "25%"), desired, True)
            max_unavail = _resolve(ru.get("maxUnavailable", "25%"), desired, False)
            if surge == 0 and max_unavail == 0:
                max_unavail = 1
        is_available = available >= desired - max_unavail
        _set_cond(
            conds,
            "Available",
            is_available,
            "MinimumReplicasAvailable" if is_available else "MinimumReplicasUnavailable",
            "Deployment has minimum availability."
            if is_available
            else "Deployment does not have minimum availability.",
            now,
        )
        prog = conds.get("Progressing")
        wake: float | None = None
        if paused or new_rs is None:
            # checkPausedConditions: Progressing=Unknown DeploymentPaused, no deadline while
            # paused (a deadline already exceeded stays).
            if paused and (not prog or prog.get("reason") not in (PAUSED, TIMED_OUT)):
                _set_cond(conds, "Progressing", None, PAUSED, "Deployment is paused", now)
            self._progress.pop(uid, None)
        else:
            wake = self._progressing(
                d, conds, new_rs, reason, message, now, (replicas, updated, ready, available), old
            )
        order = ["Available", "Progressing"]
        status["conditions"] = [conds[t] for t in order if t in conds]
        if status != old:
            cur = self.store.get("deployments", md["namespace"], md["name"])
            if cur is not None:
                cur["status"] = status
                self.store.replace("deployments", cur, manager=CM, subresource="status")
        return wake

    def _progressing(
        self,
        d: dict[str, Any],
        conds: dict[str, dict[str, Any]],
        new_rs: dict[str, Any],
        reason: str,
        message: str,
        now: str,
        counts: tuple[int, int, int, int],
        old: dict[str, Any],
    ) -> float | None:
        """The Progressing condition and the progress deadline; returns the next wake-up."""
        md, spec = d["metadata"], d["spec"]
        uid = md["uid"]
        desired = int(spec.get("replicas", 1))
        replicas, updated, _ready, available = counts
        rs_name = new_rs["metadata"]["name"]
        complete = (
            updated == desired
            and replicas == updated
            and available == desired
            and int(new_rs["spec"].get("replicas", 0)) == desired
        )
        old_counts = tuple(
            int(old.get(k, 0))
            for k in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")
        )
        mono = time.monotonic()
        deadline = spec.get("progressDeadlineSeconds")
        prog = conds.get("Progressing")
        wake: float | None = None
        if complete and uid not in self._complete:
            self._complete.add(uid)
            self.available_times[md["name"]] = mono
        elif not complete:
            self._complete.discard(uid)
        if (
            not reason
            and replicas == updated
            and prog is not None
            and prog.get("reason") == "NewReplicaSetAvailable"
        ):
            # syncRolloutStatus: once the latest rollout completed, nothing but a new rollout
            # touches Progressing (no deadline either): a Pod that loses its readiness, or a
            # scale, leaves NewReplicaSetAvailable as it is.
            self._progress.pop(uid, None)
            return None
        if complete:
            _set_cond(
                conds,
                "Progressing",
                True,
                "NewReplicaSetAvailable",
                f'ReplicaSet "{rs_name}" has successfully progressed.',
                now,
            )
            self._progress.pop(uid, None)
        elif (
            reason
            or counts != old_counts
            or uid not in self._progress
            or (prog and prog.get("reason") in ("NewReplicaSetAvailable", PAUSED))
        ):
            self._progress[uid] = mono
            if not reason:
                reason, message = "ReplicaSetUpdated", f'ReplicaSet "{rs_name}" is progressing.'
            _set_cond(conds, "Progressing", True, reason, message, now)
        if not complete and deadline is not None and uid in self._progress:
            limit = self._progress[uid] + float(deadline)
            if mono >= limit:
                _set_cond(
                    conds,
                    "Progressing",
                    False,
                    TIMED_OUT,
                    f'ReplicaSet "{rs_name}" has timed out progressing.',
                    now,
                )
            else:
                wake = limit
        return wake


def _set_cond(
    conds: dict[str, dict[str, Any]],
    ctype: str,
    ok: bool | None,
    reason: str,
    message: str,
    now: str,
) -> None:
    want = "Unknown" if ok is None else "True" if ok else "False"
    cur = conds.get(ctype)
    if (
        cur
        and cur.get("status") == want
        and cur.get("reason") == reason
        and cur.get("message") == message
    ):
        return
    new = {
        "type": ctype,
        "status": want,
        "lastUpdateTime": now,
        "lastTransitionTime": now
        if not cur or cur.get("status") != want
        else cur["lastTransitionTime"],
        "reason": reason,
        "message": message,
    }
    conds[ctype] = new


def _by_owner(objs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Objects grouped by their controller owner's uid."""
    out: dict[str, list[dict[str, Any]]] = {}
    for o in objs:
        for ref in o["metadata"].get("ownerReferences") or ():
            if ref.get("controller"):
                out.setdefault(ref["uid"], []).append(o)
                break
    return out


def _is_active(p: dict[str, Any]) -> bool:
    """Counted by its ReplicaSet: not being deleted and not ended (Succeeded/Failed)."""
    return not p["metadata"].get("deletionTimestamp") and (p.get("status") or {}).get(
        "phase"
    ) not in ("Succeeded", "Failed")


def _pod_ready(p: dict[str, Any]) -> int:
    for c in p.get("status", {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return 1 if c.get("status") == "True" else 0
    return 0


def _min(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


# The deployment controller copies the Deployment's annotations to its new ReplicaSet, but
# these (pkg/controller/deployment/util: annotationsToSkip); ``kubectl rollout undo`` copies
# the ReplicaSet's back, so a rollback restores the annotations of the revision it returns to.
_NOT_COPIED = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    }
)


def _copied_annotations(deployment: dict[str, Any]) -> dict[str, str]:
    annotations = deployment["metadata"].get("annotations") or {}
    return {k: v for k, v in annotations.items() if k not in _NOT_COPIED}
