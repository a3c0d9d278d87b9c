"""Scheduler + kubelet simulation: pod phases, container states, failure behaviours.

Init containers (``kubelet_init``), graceful deletion (``kubelet_stop``) and readiness
(``kubelet_readiness``) are mixins; ``podsim`` holds the per-Pod model and ``nodes`` the nodes."""

from __future__ import annotations

import copy
import hashlib
import time
from typing import Any

from .container_errors import (
    KNOB_CONFIG_MAP,
    config_error,
    invalid_image_message,
    pull_message,
    pull_reason,
)
from .events import EventRecorder
from .kubelet_init import InitContainers
from .kubelet_readiness import Readiness
from .kubelet_stop import GracefulStop
from .nodes import Node, parse_cpu, parse_mem, pod_requests, qos_class
from .podsim import (
    CONFIG_ERROR,
    CONFIG_RETRY_SECONDS,
    CRASH,
    INVALID_IMAGE,
    NEVER_READY,
    NOT_CREATED,
    OK,
    OOM,
    PULL_ERROR,
    TERMINAL,
    PodSim,
    _cstatus,
    _flip,
    _image_id,
    _min,
    _not_ready,
    _target_name,
    classify_container,
)
from .store import Store
from .timeutil import now_rfc3339


class Kubelet(InitContainers, GracefulStop, Readiness):
    """Advances pods through their life cycle; ``sync`` returns the next time it needs to run."""

    def __init__(
        self,
        store: Store,
        events: EventRecorder,
        nodes: list[Node],
        *,
        ready_delay: float,
        termination_delay: float,
    ) -> None:
        self.store = store
        self.events = events
        self.nodes = nodes
        self.ready_delay = ready_delay
        self.termination_delay = termination_delay
        self.overrides: dict[str, str] = {}
        # How long containers take to stop once their Pod is deleted (default:
        # termination_delay): by image substring, and by Pod (namespace, name).
        self.stop_delays: dict[str, float] = {}
        self.pod_stop_delays: dict[tuple[str, str], float] = {}
        self.sims: dict[str, PodSim] = {}
        self._ip = 0

    # -- helpers -----------------------------------------------------------
    def _next_ip(self) -> str:
        self._ip += 1
        return f"10.244.{(self._ip // 250) % 256}.{self._ip % 250 + 2}"

    def _sim(self, pod: dict[str, Any]) -> PodSim:
        uid = pod["metadata"]["uid"]
        sim = self.sims.get(uid)
        if sim is None:
            behaviours = [
                classify_container(c, self.overrides) for c in pod["spec"].get("containers") or []
            ]
            bad = [b for b in behaviours if b != OK]
            sim = PodSim(bad[0] if bad else OK)
            self.sims[uid] = sim
        return sim

    def _emit(
        self,
        pod: dict[str, Any],
        etype: str,
        reason: str,
        msg: str,
        container: str = "",
        *,
        init: bool = False,
    ) -> None:
        kind = "initContainers" if init else "containers"
        fp = f"spec.{kind}{{{container}}}" if container else ""
        comp = "default-scheduler" if reason in ("Scheduled", "FailedScheduling") else "kubelet"
        host = pod["spec"].get("nodeName", "") if comp == "kubelet" else ""
        self.events.record(pod, etype, reason, msg, component=comp, host=host, field_path=fp)

    # -- scheduling --------------------------------------------------------
    def _usage(self) -> dict[str, list[int]]:
        """[millicores, bytes] requested on each node by the Pods that have not ended."""
        used = {node.name: [0, 0] for node in self.nodes}
        for p in self.store.raw_list("pods"):
            slot = used.get(p["spec"].get("nodeName") or "")
            if slot is not None and p["status"].get("phase") not in TERMINAL:
                c, m = pod_requests(p)
                slot[0] += c
                slot[1] += m
        return used

    def _schedule(self, pod: dict[str, Any], used: dict[str, list[int]]) -> None:
        cpu, mem = pod_requests(pod)
        short: dict[str, int] = {}
        for node in self.nodes:
            used_cpu, used_mem = used[node.name]
            lacks = []
            if used_cpu + cpu > parse_cpu(node.cpu):
                lacks.append("cpu")
            if used_mem + mem > parse_mem(node.memory):
                lacks.append("memory")
            if not lacks:
                used[node.name][0] += cpu
                used[node.name][1] += mem
                self._bind(pod, node)
                return
            for r in lacks:
                short[r] = short.get(r, 0) + 1
        n = len(self.nodes)
        reasons = ", ".join(f"{cnt} Insufficient {r}" for r, cnt in sorted(short.items()))
        msg = (
            f"0/{n} nodes are available: {reasons}. preemption: 0/{n} nodes are available: "
            f"{n} No preemption victims found for incoming pod."
        )
        status = pod["status"]
        cond = {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": now_rfc3339(),
            "reason": "Unschedulable",
            "message": msg,
        }
        old = next((c for c in status.get("conditions") or [] if c["type"] == "PodScheduled"), None)
        if old and old.get("message") == msg:
            return
        new = copy.deepcopy(pod)
        new["status"]["conditions"] = [cond]
        self.store.replace("pods", new, manager="kube-scheduler", subresource="status")
        self._emit(new, "Warning", "FailedScheduling", msg)

    def _bind(self, pod: dict[str, Any], node: Node) -> None:
        new = copy.deepcopy(pod)
        new["spec"]["nodeName"] = node.name
        now = now_rfc3339()
        names = [c["name"] for c in new["spec"].get("containers") or []]
        inits = new["spec"].get("initContainers") or []
        initialized: dict[str, Any] = {
            "type": "Initialized",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": now,
        }
        if inits:
            initialized.update(
                status="False",
                reason="ContainersNotInitialized",
                message="containers with incomplete status: "
                f"[{' '.join(c['name'] for c in inits)}]",
            )
        # The kubelet's default state for a container not created yet.
        waiting = {"waiting": {"reason": "PodInitializing" if inits else "ContainerCreating"}}
        new["status"] = {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "PodReadyToStartContainers",
                    "status": "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": now,
                },
                initialized,
                _not_ready("Ready", names, now),
                _not_ready("ContainersReady", names, now),
                {
                    "type": "PodScheduled",
                    "status": "True",
                    "lastProbeTime": None,
                    "lastTransitionTime": now,
                },
            ],
            "hostIP": node.ip,
            "hostIPs": [{"ip": node.ip}],
            "startTime": now,
            "containerStatuses": [_cstatus(c, waiting) for c in new["spec"]["containers"]],
            "qosClass": pod["status"].get("qosClass", qos_class(pod)),
        }
        if inits:
            new["status"]["initContainerStatuses"] = [_cstatus(c, waiting) for c in inits]
        self.store.replace("pods", new, manager="kube-scheduler", subresource="status")
        ns, name = new["metadata"]["namespace"], new["metadata"]["name"]
        self._emit(new, "Normal", "Scheduled", f"Successfully assigned {ns}/{name} to {node.name}")
        sim = self._sim(new)
        sim.stage = "init_next" if inits else "scheduled"
        sim.due = time.monotonic() + self.ready_delay

    # -- main loop ---------------------------------------------------------
    def sync(self) -> float | None:
        now = time.monotonic()
        next_due: float | None = None
        live = set()
        used: dict[str, list[int]] | None = None
        for pod in self.store.raw_list("pods"):
            uid = pod["metadata"]["uid"]
            live.add(uid)
            sim = self._sim(pod)
            if pod["metadata"].get("deletionTimestamp"):
                due = self._stop_due(pod, sim, now)
                if now >= due:
                    self._terminate(pod, sim, killed=now >= sim.kill_at)
                    continue
                next_due = _min(next_due, due)
                continue
            if pod["status"].get("phase") in TERMINAL:
                # An ended Pod (evicted, completed) stays as it is until someone deletes it.
                sim.due = 0.0
                continue
            if not pod["spec"].get("nodeName"):
                if used is None:
                    used = self._usage()
                self._schedule(pod, used)
                pod = (
                    self.store.raw("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
                    or pod
                )
                if not pod["spec"].get("nodeName"):
                    continue
            if sim.due and now >= sim.due:
                self._advance(pod, sim)
            if sim.due:
                next_due = _min(next_due, sim.due)
        for uid in list(self.sims):
            if uid not in live:
                del self.sims[uid]
        return next_due

    # -- containers that cannot be created ------------------------------------
    def behaviour(self, c: dict[str, Any], namespace: str) -> str:
        """``classify_container``, plus CreateContainerConfigError from the Pod's env."""
        b = classify_container(c, self.overrides)
        if b == OK and config_error(c, namespace, self.store.raw) is not None:
            return CONFIG_ERROR
        return b

    def _config_message(self, c: dict[str, Any], namespace: str) -> str | None:
        if classify_container(c, self.overrides) == CONFIG_ERROR:  # the knob
            return f'configmap "{KNOB_CONFIG_MAP}" not found'
        return config_error(c, namespace, self.store.raw)

    def _not_created(
        self, pod: dict[str, Any], sim: PodSim, c: dict[str, Any], behaviour: str, *, init: bool
    ) -> tuple[str, float]:
        """The kubelet cannot create ``c``: its waiting reason, message and events, as the
        kubelet gives them. Returns the next stage and when it is due."""
        name, image = c["name"], str(c.get("image", ""))
        now_m, prefix = time.monotonic(), "init_" if init else ""
        sim.target = name
        if behaviour == PULL_ERROR:
            self._emit(pod, "Normal", "Pulling", f'Pulling image "{image}"', name, init=init)
            self._emit(pod, "Warning", "Failed", pull_message(image), name, init=init)
            self._emit(pod, "Warning", "Failed", "Error: ErrImagePull", name, init=init)
            waiting = {"reason": "ErrImagePull", "message": pull_reason(image)}
            stage, due = "errimagepull", now_m + self.ready_delay * 0.5
        elif behaviour == INVALID_IMAGE:
            msg = invalid_image_message(image) or f'couldn\'t parse image name "{image}"'
            self._emit(pod, "Warning", "InspectFailed", msg, name, init=init)
            self._emit(pod, "Warning", "Failed", "Error: InvalidImageName", name, init=init)
            waiting = {"reason": "InvalidImageName", "message": msg}
            stage, due = "stuck", 0.0
        else:
            msg = self._config_message(c, pod["metadata"]["namespace"]) or ""
            self._emit(
                pod,
                "Normal",
                "Pulled",
                f'Container image "{image}" already present on machine',
                name,
                init=init,
            )
            self._emit(pod, "Warning", "Failed", f"Error: {msg}", name, init=init)
            waiting = {"reason": "CreateContainerConfigError", "message": msg}
            # The kubelet tries again on every pod sync: a ConfigMap or Secret created
            # meanwhile lets the container start.
            stage, due = "configerror", now_m + CONFIG_RETRY_SECONDS
        if init:
            self._set_init(pod, sim, {"waiting": waiting})
        else:
            self._set_states(pod, sim, {name: {"waiting": waiting}})
        return prefix + stage, due

    def _started_events(
        self, pod: dict[str, Any], c: dict[str, Any], *, init: bool, pulled: bool = False
    ) -> None:
        """A container (re)started: its image already present, or ``pulled`` just now."""
        name, image = c["name"], c.get("image", "")
        if pulled:
            self._emit(pod, "Normal", "Pulling", f'Pulling image "{image}"', name, init=init)
            message = (
                f'Successfully pulled image "{image}" in 1.042s (1.042s including waiting). '
                "Image size: 72938484 bytes."
            )
        else:
            message = f'Container image "{image}" already present on machine'
        self._emit(pod, "Normal", "Pulled", message, name, init=init)
        self._emit(pod, "Normal", "Created", f"Created container: {name}", name, init=init)
        self._emit(pod, "Normal", "Started", f"Started container {name}", name, init=init)

    # -- init containers ---------------------------------------------------
    # -- app containers ----------------------------------------------------
    def _advance(self, pod: dict[str, Any], sim: PodSim) -> None:
        if sim.stage.startswith("init_"):
            self._advance_init(pod, sim)
            return
        containers = pod["spec"].get("containers") or []
        ns = pod["metadata"]["namespace"]
        delay = self.ready_delay * 0.5
        now_m = time.monotonic()
        bad = [(c, b) for c in containers if (b := self.behaviour(c, ns)) != OK]
        target, behaviour = bad[0] if bad else ((containers[0] if containers else {}), OK)
        if sim.stage == "configerror":
            target = next((c for c in containers if c["name"] == sim.target), target)
        tname, image = target.get("name", ""), target.get("image", "")
        if sim.stage == "scheduled":
            sim.behaviour = behaviour
            if behaviour in NOT_CREATED:
                sim.stage, sim.due = self._not_created(pod, sim, target, behaviour, init=False)
                self._start_ok(pod, sim, exclude=tname, emit_only=True)
                return
            self._start_ok(pod, sim)
            if sim.behaviour in (CRASH, OOM):
                sim.stage, sim.due = "running_then_crash", now_m + delay
            else:
                sim.stage, sim.due = "running", 0.0
            return
        if sim.stage == "configerror":
            msg = self._config_message(target, ns)
            if msg is not None:
                self._emit(pod, "Warning", "Failed", f"Error: {msg}", tname)
                sim.due = now_m + CONFIG_RETRY_SECONDS
                return
            self._started_events(pod, target, init=False)
            sim.started_at = now_rfc3339()
            self._set_states(pod, sim, {tname: {"running": {"startedAt": sim.started_at}}})
            sim.behaviour = classify_container(target, self.overrides)
            if sim.behaviour in (CRASH, OOM):
                sim.stage, sim.due = "running_then_crash", now_m + delay
            else:
                sim.stage, sim.due = "running", 0.0
            return
        if sim.stage == "errimagepull":
            self._emit(pod, "Normal", "BackOff", f'Back-off pulling image "{image}"', tname)
            self._emit(pod, "Warning", "Failed", "Error: ImagePullBackOff", tname)
            self._set_states(
                pod,
                sim,
                {
                    tname: {
                        "waiting": {
                            "reason": "ImagePullBackOff",
                            "message": f'Back-off pulling image "{image}"',
                        }
                    }
                },
            )
            sim.stage, sim.due = "imagepullbackoff", 0.0
            return
        if sim.stage == "running_then_crash":
            oom = sim.behaviour == OOM
            term = {
                "terminated": {
                    "exitCode": 137 if oom else 1,
                    "reason": "OOMKilled" if oom else "Error",
                    "startedAt": sim.started_at,
                    "finishedAt": now_rfc3339(),
                    "containerID": sim.container_ids.get(tname, ""),
                }
            }
            # lastState is the run before this one: the kubelet fills it from the previous
            # container of the same name (kubelet_pods.go, convertToAPIContainerStatuses),
            # so a first crash has none; the restart ("crashed" below) moves it there.
            self._set_states(pod, sim, {tname: term})
            sim.stage, sim.due = "crashed", now_m + delay
            return
        if sim.stage == "crashed":
            sim.restarts += 1
            uid, ns, name = (
                pod["metadata"]["uid"],
                pod["metadata"]["namespace"],
                pod["metadata"]["name"],
            )
            backoff = min(10 * 2 ** (sim.restarts - 1), 300)
            msg = f"back-off {backoff}s restarting failed container={tname} pod={name}_{ns}({uid})"
            self._emit(
                pod,
                "Warning",
                "BackOff",
                f"Back-off restarting failed container {tname} in pod {name}_{ns}({uid})",
                tname,
            )
            cur = next(
                (c for c in pod["status"].get("containerStatuses") or [] if c["name"] == tname), {}
            )
            self._set_states(
                pod,
                sim,
                {tname: {"waiting": {"reason": "CrashLoopBackOff", "message": msg}}},
                last={tname: cur.get("state", {})},
            )
            sim.stage, sim.due = "backoff", now_m + min(delay * 2**sim.restarts, 2.0)
            return
        if sim.stage == "backoff":
            self._started_events(pod, target, init=False)
            sim.started_at = now_rfc3339()
            self._set_states(
                pod, sim, {tname: {"running": {"startedAt": sim.started_at}}}, ready_override=False
            )
            sim.stage, sim.due = "running_then_crash", now_m + delay
            return

    def _start_ok(
        self, pod: dict[str, Any], sim: PodSim, exclude: str = "", emit_only: bool = False
    ) -> None:
        sim.started_at = now_rfc3339()
        states: dict[str, dict[str, Any]] = {}
        for c in pod["spec"].get("containers") or []:
            if c["name"] == exclude:
                continue
            self._started_events(pod, c, init=False, pulled=True)
            states[c["name"]] = {"running": {"startedAt": sim.started_at}}
        if not emit_only or states:
            self._set_states(pod, sim, states)

    def _set_states(
        self,
        pod: dict[str, Any],
        sim: PodSim,
        states: dict[str, dict[str, Any]],
        last: dict[str, dict[str, Any]] | None = None,
        ready_override: bool | None = None,
    ) -> None:
        cur = self.store.raw("pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
        if cur is None or cur["status"].get("phase") in TERMINAL:
            return
        new = copy.deepcopy(cur)
        st = new["status"]
        now = now_rfc3339()
        statuses = {c["name"]: c for c in st.get("containerStatuses") or []}
        for c in new["spec"].get("containers") or []:
            n = c["name"]
            cs = statuses.get(n) or _cstatus(c, {"waiting": {"reason": "ContainerCreating"}})
            if n in states:
                cs["state"] = states[n]
                if "running" in states[n]:
                    cid = sim.container_ids.setdefault(
                        n,
                        "containerd://"
                        + hashlib.sha256(
                            f"{cur['metadata']['uid']}{n}{sim.restarts}".encode()
                        ).hexdigest(),
                    )
                    cs["containerID"] = cid
                    cs["imageID"] = _image_id(c.get("image", ""))
                    cs["started"] = True
                else:
                    cs["started"] = False
            if last and n in last:
                cs["lastState"] = last[n]
            if n == _target_name(new, self.overrides):
                cs["restartCount"] = sim.restarts
            running = "running" in cs["state"]
            behaviour = classify_container(c, self.overrides)
            cs["ready"] = (
                running
                and behaviour not in (NEVER_READY,)
                and (ready_override is not False or behaviour == OK)
            )
            if behaviour in (CRASH, OOM) or sim.unready:
                cs["ready"] = False
            statuses[n] = cs
        st["containerStatuses"] = [statuses[c["name"]] for c in new["spec"].get("containers") or []]
        all_ready = all(cs["ready"] for cs in st["containerStatuses"])
        any_running = any(
            "running" in cs["state"] or "terminated" in cs["state"] or cs.get("restartCount")
            for cs in st["containerStatuses"]
        )
        st["phase"] = "Running" if any_running else "Pending"
        if any_running and not st.get("podIP"):
            ip = self._next_ip()
            st["podIP"], st["podIPs"] = ip, [{"ip": ip}]
        unready = [cs["name"] for cs in st["containerStatuses"] if not cs["ready"]]
        conds = []
        for c in st.get("conditions") or []:
            c = dict(c)
            if c["type"] == "PodReadyToStartContainers" and any_running:
                c = _flip(c, True, now)
            if c["type"] in ("Ready", "ContainersReady"):
                if all_ready:
                    c = _flip(c, True, now)
                    c.pop("reason", None)
                    c.pop("message", None)
                else:
                    c = _flip(c, False, now)
                    c["reason"] = "ContainersNotReady"
                    c["message"] = f"containers with unready status: [{' '.join(unready)}]"
            conds.append(c)
        st["conditions"] = conds
        self.store.replace("pods", new, manager="kubelet", subresource="status")
