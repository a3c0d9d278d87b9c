"""Readiness probes: a running Pod loses its readiness, or gets it back."""

from __future__ import annotations

import copy
from typing import Any

from .podsim import (
    OK,
    _flip,
    classify_container,
)
from .timeutil import now_rfc3339


class Readiness:
    """The kubelet's readiness results (mixed into ``Kubelet``)."""

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
