"""Scheduler + kubelet simulation: pod phases, container states, failure behaviours."""

from __future__ import annotations

import copy
import hashlib
import math
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from .container_errors import (
    KNOB_CONFIG_MAP,
    config_error,
    invalid_image_message,
    pull_message,
    pull_reason,
)
from .events import EventRecorder
from .store import Store
from .timeutil import now_rfc3339

OK, PULL_ERROR, CRASH, OOM, NEVER_READY = "ok", "pull_error", "crash", "oom", "never_ready"
INVALID_IMAGE, CONFIG_ERROR = "invalid_image", "config_error"
BEHAVIOURS = (OK, PULL_ERROR, CRASH, OOM, NEVER_READY, INVALID_IMAGE, CONFIG_ERROR)
# Behaviours that keep a container from being created at all (it stays waiting).
NOT_CREATED = (PULL_ERROR, INVALID_IMAGE, CONFIG_ERROR)
TERMINAL = ("Succeeded", "Failed")
# How often the kubelet retries a container it could not create for want of a ConfigMap/Secret.
CONFIG_RETRY_SECONDS = 1.0
# A stop delay that outlasts any grace period: the container ignores SIGTERM and is killed
# (exit 137) when its Pod's grace period ends.
WHOLE_GRACE = math.inf


def parse_cpu(q: Any) -> int:
    """millicores"""
    s = str(q)
    if s.endswith("m"):
        return int(float(s[:-1]))
    return int(float(s) * 1000)


_MEM_SUFFIX = {
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "k": 1000,
    "K": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
}


def parse_mem(q: Any) -> int:
    s = str(q)
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", s)
    if not m:
        return 0
    return int(float(m.group(1)) * _MEM_SUFFIX.get(m.group(2), 1))


def _node_id(name: str, what: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"fakecluster:{what}:{name}")


@dataclass
class Node:
    name: str
    cpu: str = "4"
    memory: str = "8Gi"
    ip: str = "172.18.0.2"

    def to_object(self) -> dict[str, Any]:
        res = {"cpu": self.cpu, "memory": self.memory, "pods": "110", "ephemeral-storage": "100Gi"}
        now = now_rfc3339()
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                },
            },
            "spec": {"podCIDR": "10.244.0.0/24"},
            "status": {
                "capacity": dict(res),
                "allocatable": dict(res),
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "KubeletReady",
                        "message": "kubelet is posting ready status",
                        "lastHeartbeatTime": now,
                        "lastTransitionTime": now,
                    }
                ],
                "addresses": [
                    {"type": "InternalIP", "address": self.ip},
                    {"type": "Hostname", "address": self.name},
                ],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                # Every field NodeSystemInfo requires (the official clients refuse a Node
                # without them), stable per node name.
                "nodeInfo": {
                    "machineID": _node_id(self.name, "machine").hex,
                    "systemUUID": str(_node_id(self.name, "system")),
                    "bootID": str(_node_id(self.name, "boot")),
                    "kernelVersion": "6.1.0",
                    "osImage": "Fake Linux",
                    "containerRuntimeVersion": "containerd://1.7.24",
                    "kubeletVersion": "v1.32.0",
                    "kubeProxyVersion": "v1.32.0",
                    "operatingSystem": "linux",
                    "architecture": "amd64",
                },
            },
        }


@dataclass
class PodSim:
    behaviour: str
    stage: str = "pending"
    due: float = 0.0
    restarts: int = 0
    deleting_since: float | None = None
    # When the kubelet kills what still runs (deletion + grace, shortened by a later DELETE).
    kill_at: float = math.inf
    grace_seen: int | None = None
    started_at: str = ""
    container_ids: dict[str, str] = field(default_factory=dict)
    init_index: int = 0  # the init container running (or failing) now
    target: str = ""  # the container that cannot be created (config error, bad image)
    unready: bool = False  # its readiness probe fails (FakeCluster.set_pod_ready)


def _env(c: dict[str, Any]) -> dict[str, str]:
    return {
        str(e.get("name")): str(e.get("value", ""))
        for e in c.get("env") or []
        if isinstance(e, dict)
    }


def parse_stop_delay(value: str | float) -> float:
    """``FAKE_STOP_SECONDS``: seconds, or ``grace`` for a container that ignores SIGTERM."""
    if value == "grace":
        return WHOLE_GRACE
    seconds = float(value)
    if seconds < 0 or math.isnan(seconds):
        raise ValueError(f"a stop delay is >= 0 seconds or 'grace', not {value!r}")
    return seconds


def classify_container(c: dict[str, Any], overrides: dict[str, str]) -> str:
    image = str(c.get("image", ""))
    for pattern, behaviour in overrides.items():
        if pattern in image:
            return behaviour
    if invalid_image_message(image) is not None:
        return INVALID_IMAGE
    env = _env(c)
    cmd = " ".join(str(x) for x in (c.get("command") or []) + (c.get("args") or []))
    if (
        "does-not-exist" in image
        or image.startswith("fake.invalid/")
        or env.get("FAKE_PULL_ERROR") == "1"
    ):
        return PULL_ERROR
    if "oomkill" in image or env.get("FAKE_OOM") == "1":
        return OOM
    limit = ((c.get("resources") or {}).get("limits") or {}).get("memory")
    if limit is not None and parse_mem(limit) < 4 * 1024**2:
        return OOM
    if "crashloop" in image or "exit 1" in cmd or env.get("FAKE_CRASH") == "1":
        return CRASH
    if "never-ready" in image or env.get("FAKE_NEVER_READY") == "1":
        return NEVER_READY
    return OK


def _requests(pod: dict[str, Any]) -> tuple[int, int]:
    cpu = mem = 0
    for c in pod.get("spec", {}).get("containers") or []:
        res = c.get("resources") or {}
        req = res.get("requests") or res.get("limits") or {}
        if "cpu" in req:
            cpu += parse_cpu(req["cpu"])
        if "memory" in req:
            mem += parse_mem(req["memory"])
    return cpu, mem


def qos_class(pod: dict[str, Any]) -> str:
    containers = pod.get("spec", {}).get("containers") or []
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        if req or lim:
            any_set = True
        for r in ("cpu", "memory"):
            if r not in lim or (r in req and str(req[r]) != str(lim[r])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


class Kubelet:
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
                c, m = _requests(p)
                slot[0] += c
                slot[1] += m
        return used

    def _schedule(self, pod: dict[str, Any], used: dict[str, list[int]]) -> None:
        cpu, mem = _requests(pod)
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

    # -- readiness ---------------------------------------------------------
    def set_ready(
        self, namespace: str, name: str, ready: bool, *, seconds_ago: float, probe_message: str
    ) -> dict[str, Any]:
        """A running Pod's readiness probe starts failing (or passing again): its running
        containers turn ``ready: false``, Ready/ContainersReady False ContainersNotReady, a
        Warning ``Unhealthy`` event. The transition is dated ``seconds_ago`` in the past (again
        on a second call), and what started later is moved before it, as if the Pod had been
        running since."""
        with self.store.lock:
            cur = self.store.raw("pods", namespace, name)
            if cur is None:
                raise KeyError(f"pods {namespace}/{name}")
            statuses = cur["status"].get("containerStatuses") or []
            if cur["status"].get("phase") != "Running" or not any(
                "running" in cs.get("state", {}) for cs in statuses
            ):
                raise ValueError(f"pod {namespace}/{name} has no running container")
            sim = self._sim(cur)
            sim.unready = not ready
            new = copy.deepcopy(cur)
            st = new["status"]
            when = now_rfc3339(-seconds_ago)
            before = now_rfc3339(-seconds_ago - 1)
            if st.get("startTime", "") >= when:
                st["startTime"] = before
            unready = []
            containers = new["spec"].get("containers") or []
            for c, cs in zip(containers, st["containerStatuses"], strict=True):
                running = cs.get("state", {}).get("running")
                if running is not None and running.get("startedAt", "") >= when:
                    running["startedAt"] = before
                ok = classify_container(c, self.overrides) == OK
                cs["ready"] = bool(running is not None and ready and ok)
                if not cs["ready"]:
                    unready.append(cs["name"])
            conds = []
            for cond in st.get("conditions") or []:
                cond = dict(cond)
                if cond["type"] in ("Ready", "ContainersReady"):
                    cond["lastTransitionTime"] = when  # (re)dated, even if already so
                    if unready:
                        cond = _flip(cond, False, when)
                        cond["reason"] = "ContainersNotReady"
                        cond["message"] = f"containers with unready status: [{' '.join(unready)}]"
                    else:
                        cond = _flip(cond, True, when)
                        cond.pop("reason", None)
                        cond.pop("message", None)
                elif cond.get("lastTransitionTime", "") >= when:
                    cond["lastTransitionTime"] = before
                conds.append(cond)
            st["conditions"] = conds
            if not ready:
                for cs in statuses:
                    self._emit(
                        cur,
                        "Warning",
                        "Unhealthy",
                        f"Readiness probe failed: {probe_message}",
                        cs["name"],
                    )
            return self.store.replace("pods", new, manager="kubelet", subresource="status")

    # -- graceful deletion -------------------------------------------------
    def stop_delay(self, pod: dict[str, Any]) -> float:
        """How long this Pod's containers take to stop after SIGTERM (the slowest decides)."""
        md = pod["metadata"]
        by_pod = self.pod_stop_delays.get((md["namespace"], md["name"]))
        if by_pod is not None:
            return by_pod
        delays = []
        for c in pod["spec"].get("containers") or []:
            image = str(c.get("image", ""))
            found = next((d for pat, d in self.stop_delays.items() if pat in image), None)
            env = _env(c).get("FAKE_STOP_SECONDS")
            if found is None and env is not None:
                found = parse_stop_delay(env)
            delays.append(self.termination_delay if found is None else found)
        return max(delays, default=self.termination_delay)

    def _stop_due(self, pod: dict[str, Any], sim: PodSim, now: float) -> float:
        """When a deleted Pod's containers have stopped: their stop delay after the kubelet
        saw the deletion, at the latest when the grace period ends (SIGKILL)."""
        md = pod["metadata"]
        grace = int(md.get("deletionGracePeriodSeconds") or 0)
        if sim.deleting_since is None:
            sim.deleting_since = now
        if sim.grace_seen != grace:
            # A second DELETE may shorten the grace period: it counts from that DELETE.
            sim.grace_seen = grace
            sim.kill_at = min(sim.kill_at, now + grace)
        if pod["status"].get("phase") in TERMINAL or not any(
            "running" in (cs.get("state") or {})
            for cs in pod["status"].get("containerStatuses") or []
        ):
            delay = self.termination_delay  # nothing runs: only the sandbox to tear down
        else:
            delay = self.stop_delay(pod)
        return min(sim.deleting_since + delay, sim.kill_at)

    def _terminate(self, pod: dict[str, Any], sim: PodSim, *, killed: bool) -> None:
        """The containers have stopped: like the kubelet since 1.27, give the Pod its terminal
        phase (Succeeded when every container exited 0, else Failed), then delete it."""
        md = pod["metadata"]
        ns, name = md["namespace"], md["name"]
        if pod["status"].get("phase") not in TERMINAL and pod["spec"].get("nodeName"):
            new = copy.deepcopy(pod)
            st = new["status"]
            now = now_rfc3339()
            failed = False
            for cs in st.get("containerStatuses") or []:
                state = cs.get("state") or {}
                if "terminated" in state:
                    failed = failed or state["terminated"].get("exitCode") != 0
                    continue
                running = state.get("running")
                if running is None:
                    # Never started: the kubelet reports it as it does a container it removed
                    # before it ran.
                    cs["state"] = {
                        "terminated": {
                            "exitCode": 137,
                            "reason": "ContainerStatusUnknown",
                            "message": "The container could not be located when the pod was "
                            "terminated",
                        }
                    }
                    failed = True
                else:
                    code = 137 if killed else 0
                    failed = failed or bool(code)
                    cs["state"] = {
                        "terminated": {
                            "exitCode": code,
                            "reason": "Error" if code else "Completed",
                            "startedAt": running.get("startedAt"),
                            "finishedAt": now,
                            "containerID": cs.get("containerID", ""),
                        }
                    }
                cs["ready"], cs["started"] = False, False
            st["phase"] = "Failed" if failed else "Succeeded"
            why = "PodFailed" if failed else "PodCompleted"
            conds = []
            for c in st.get("conditions") or []:
                c = dict(c)
                if c["type"] == "PodReadyToStartContainers":
                    c = _flip(c, False, now)
                elif c["type"] in ("Ready", "ContainersReady"):
                    c = _flip(c, False, now)
                    c["reason"] = why
                    c.pop("message", None)
                conds.append(c)
            st["conditions"] = conds
            self.store.replace("pods", new, manager="kubelet", subresource="status")
        self.store.remove("pods", ns, name)

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

    def _started_events(self, pod: dict[str, Any], c: dict[str, Any], *, init: bool) -> None:
        name, image = c["name"], c.get("image", "")
        self._emit(
            pod,
            "Normal",
            "Pulled",
            f'Container image "{image}" already present on machine',
            name,
            init=init,
        )
        self._emit(pod, "Normal", "Created", f"Created container: {name}", name, init=init)
        self._emit(pod, "Normal", "Started", f"Started container {name}", name, init=init)

    # -- init containers ---------------------------------------------------
    def _advance_init(self, pod: dict[str, Any], sim: PodSim) -> None:
        """Init containers run one at a time, in order, before any app container: each must
        exit 0; one that fails is restarted with back-off (restartPolicy Always) and the Pod
        stays Pending. A sidecar (``restartPolicy: Always``) starts and keeps running."""
        inits = pod["spec"].get("initContainers") or []
        ns, now_m = pod["metadata"]["namespace"], time.monotonic()
        delay = self.ready_delay * 0.5
        if sim.init_index >= len(inits):
            sim.stage, sim.due = "scheduled", now_m
            return
        c = inits[sim.init_index]
        name, image = c["name"], c.get("image", "")
        behaviour = self.behaviour(c, ns)
        if sim.stage == "init_next":
            if behaviour in NOT_CREATED:
                sim.stage, sim.due = self._not_created(pod, sim, c, behaviour, init=True)
                return
            self._emit(pod, "Normal", "Pulling", f'Pulling image "{image}"', name, init=True)
            self._emit(
                pod,
                "Normal",
                "Pulled",
                f'Successfully pulled image "{image}" in 1.042s (1.042s including waiting). '
                "Image size: 72938484 bytes.",
                name,
                init=True,
            )
            self._emit(pod, "Normal", "Created", f"Created container: {name}", name, init=True)
            self._emit(pod, "Normal", "Started", f"Started container {name}", name, init=True)
            self._run_init(pod, sim, c, behaviour)
            return
        if sim.stage == "init_running":
            term: dict[str, Any] = {
                "exitCode": 0,
                "reason": "Completed",
                "startedAt": sim.started_at,
                "finishedAt": now_rfc3339(),
                "containerID": _container_id(pod, name, sim.restarts),
            }
            if behaviour in (CRASH, OOM):
                oom = behaviour == OOM
                term.update(exitCode=137 if oom else 1, reason="OOMKilled" if oom else "Error")
                self._set_init(pod, sim, {"terminated": term})
                sim.stage, sim.due = "init_crashed", now_m + delay
                return
            self._set_init(pod, sim, {"terminated": term})
            self._next_init(sim, inits)
            return
        if sim.stage == "init_crashed":
            sim.restarts += 1
            uid, pname = pod["metadata"]["uid"], pod["metadata"]["name"]
            backoff = min(10 * 2 ** (sim.restarts - 1), 300)
            self._emit(
                pod,
                "Warning",
                "BackOff",
                f"Back-off restarting failed container {name} in pod {pname}_{ns}({uid})",
                name,
                init=True,
            )
            cur = next(
                (x for x in pod["status"].get("initContainerStatuses") or [] if x["name"] == name),
                {},
            )
            msg = f"back-off {backoff}s restarting failed container={name} pod={pname}_{ns}({uid})"
            self._set_init(
                pod,
                sim,
                {"waiting": {"reason": "CrashLoopBackOff", "message": msg}},
                last=cur.get("state", {}),
            )
            sim.stage, sim.due = "init_backoff", now_m + min(delay * 2**sim.restarts, 2.0)
            return
        if sim.stage == "init_backoff":
            self._started_events(pod, c, init=True)
            self._run_init(pod, sim, c, behaviour)
            return
        if sim.stage == "init_errimagepull":
            self._emit(
                pod, "Normal", "BackOff", f'Back-off pulling image "{image}"', name, init=True
            )
            self._emit(pod, "Warning", "Failed", "Error: ImagePullBackOff", name, init=True)
            waiting = {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}"'}
            self._set_init(pod, sim, {"waiting": waiting})
            sim.stage, sim.due = "init_stuck", 0.0
            return
        if sim.stage == "init_configerror":
            msg = self._config_message(c, ns)
            if msg is None:
                sim.stage, sim.due = "init_next", now_m
                return
            self._emit(pod, "Warning", "Failed", f"Error: {msg}", name, init=True)
            sim.due = now_m + CONFIG_RETRY_SECONDS

    def _run_init(
        self, pod: dict[str, Any], sim: PodSim, c: dict[str, Any], behaviour: str
    ) -> None:
        sim.started_at = now_rfc3339()
        self._set_init(pod, sim, {"running": {"startedAt": sim.started_at}})
        if c.get("restartPolicy") == "Always":  # a sidecar: started is enough
            self._next_init(sim, pod["spec"].get("initContainers") or [])
        elif behaviour == NEVER_READY:  # never exits: the Pod stays Init:0/N
            sim.stage, sim.due = "init_running", 0.0
        else:
            sim.stage, sim.due = "init_running", time.monotonic() + self.ready_delay * 0.5

    def _next_init(self, sim: PodSim, inits: list[dict[str, Any]]) -> None:
        sim.init_index += 1
        sim.restarts = 0
        sim.stage = "init_next" if sim.init_index < len(inits) else "scheduled"
        sim.due = time.monotonic()

    def _set_init(
        self,
        pod: dict[str, Any],
        sim: PodSim,
        state: dict[str, Any],
        last: dict[str, Any] | None = None,
    ) -> None:
        """Write the current init container's state; Initialized follows (True once every
        init container exited 0 and every sidecar started)."""
        md = pod["metadata"]
        cur = self.store.raw("pods", md["namespace"], md["name"])
        if cur is None or cur["status"].get("phase") in TERMINAL:
            return
        new = copy.deepcopy(cur)
        st = new["status"]
        now = now_rfc3339()
        inits = new["spec"].get("initContainers") or []
        default = {"waiting": {"reason": "PodInitializing"}}
        statuses = {x["name"]: x for x in st.get("initContainerStatuses") or []}
        c = inits[sim.init_index]
        n = c["name"]
        cs = statuses.get(n) or _cstatus(c, default)
        cs["state"] = state
        if last is not None:
            cs["lastState"] = last
        cs["restartCount"] = sim.restarts
        running, term = "running" in state, state.get("terminated")
        if running or term:
            cs["containerID"] = _container_id(cur, n, sim.restarts)
            cs["imageID"] = _image_id(c.get("image", ""))
        cs["started"] = running
        sidecar = c.get("restartPolicy") == "Always"
        cs["ready"] = running if sidecar else bool(term and term.get("exitCode") == 0)
        statuses[n] = cs
        st["initContainerStatuses"] = [
            statuses.get(x["name"]) or _cstatus(x, default) for x in inits
        ]
        incomplete = [x["name"] for x in st["initContainerStatuses"] if not x["ready"]]
        if not st.get("podIP"):
            ip = self._next_ip()  # the sandbox (and its IP) exists before any container runs
            st["podIP"], st["podIPs"] = ip, [{"ip": ip}]
        conds = []
        for cond in st.get("conditions") or []:
            cond = dict(cond)
            if cond["type"] == "PodReadyToStartContainers":
                cond = _flip(cond, True, now)  # the sandbox exists once an init container is tried
            elif cond["type"] == "Initialized" and incomplete:
                cond = _flip(cond, False, now)
                cond["reason"] = "ContainersNotInitialized"
                cond["message"] = f"containers with incomplete status: [{' '.join(incomplete)}]"
            elif cond["type"] == "Initialized":
                cond = _flip(cond, True, now)
                cond.pop("reason", None)
                cond.pop("message", None)
            conds.append(cond)
        st["conditions"] = conds
        self.store.replace("pods", new, manager="kubelet", subresource="status")

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
            self._set_states(pod, sim, {tname: term}, last={tname: term})
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
            self._emit(
                pod,
                "Normal",
                "Pulled",
                f'Container image "{image}" already present on machine',
                tname,
            )
            self._emit(pod, "Normal", "Created", f"Created container: {tname}", tname)
            self._emit(pod, "Normal", "Started", f"Started container {tname}", tname)
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
            image = c.get("image", "")
            self._emit(pod, "Normal", "Pulling", f'Pulling image "{image}"', c["name"])
            self._emit(
                pod,
                "Normal",
                "Pulled",
                f'Successfully pulled image "{image}" in 1.042s (1.042s including waiting). '
                "Image size: 72938484 bytes.",
                c["name"],
            )
            self._emit(pod, "Normal", "Created", f"Created container: {c['name']}", c["name"])
            self._emit(pod, "Normal", "Started", f"Started container {c['name']}", c["name"])
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


def _target_name(pod: dict[str, Any], overrides: dict[str, str]) -> str:
    containers = pod["spec"].get("containers") or []
    bad = [c for c in containers if classify_container(c, overrides) != OK]
    return (bad[0] if bad else containers[0] if containers else {}).get("name", "")


def _flip(c: dict[str, Any], on: bool, now: str) -> dict[str, Any]:
    want = "True" if on else "False"
    if c.get("status") != want:
        c["status"] = want
        c["lastTransitionTime"] = now
    return c


def _not_ready(kind: str, names: list[str], now: str) -> dict[str, Any]:
    return {
        "type": kind,
        "status": "False",
        "lastProbeTime": None,
        "lastTransitionTime": now,
        "reason": "ContainersNotReady",
        "message": f"containers with unready status: [{' '.join(names)}]",
    }


def _cstatus(c: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": c["name"],
        "state": state,
        "lastState": {},
        "ready": False,
        "restartCount": 0,
        "image": c.get("image", ""),
        "imageID": "",
        "started": False,
    }


def _container_id(pod: dict[str, Any], name: str, restarts: int) -> str:
    seed = f"{pod['metadata']['uid']}{name}{restarts}"
    return "containerd://" + hashlib.sha256(seed.encode()).hexdigest()


def _image_id(image: str) -> str:
    repo = image.split("@")[0].rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
    if "/" not in repo:
        repo = f"docker.io/library/{repo}"
    return f"{repo}@sha256:{hashlib.sha256(image.encode()).hexdigest()}"


def _min(a: float | None, b: float) -> float:
    return b if a is None else min(a, b)
