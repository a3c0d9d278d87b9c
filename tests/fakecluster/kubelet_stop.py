"""Graceful deletion: a deleted Pod runs until its containers stop, within its grace."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from .podsim import (
    TERMINAL,
    PodSim,
    _env,
    _flip,
    parse_stop_delay,
)
from .timeutil import now_rfc3339


class GracefulStop:
    """Kubelet steps for a Pod being deleted (mixed into ``Kubelet``)."""

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
                with contextlib.suppress(ValueError):  # not a delay: the default, as if unset
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
