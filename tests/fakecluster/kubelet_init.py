"""Init containers: run in order before the app containers, fail as the kubelet shows."""

from __future__ import annotations

import copy
import time
from typing import Any

from .podsim import (
    CONFIG_RETRY_SECONDS,
    CRASH,
    NEVER_READY,
    NOT_CREATED,
    OOM,
    TERMINAL,
    PodSim,
    _container_id,
    _cstatus,
    _flip,
    _image_id,
)
from .timeutil import now_rfc3339


class InitContainers:
    """Kubelet steps for ``spec.initContainers`` (mixed into ``Kubelet``)."""

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
            self._started_events(pod, c, init=True, pulled=True)
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
