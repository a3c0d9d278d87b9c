"""Core v1 Event recording with count aggregation (like client-go's event correlator)."""

from __future__ import annotations

import secrets
from typing import Any

from .store import Store
from .timeutil import now_rfc3339


class EventRecorder:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._index: dict[tuple[str, str, str, str], tuple[str, str]] = {}

    def record(
        self,
        involved: dict[str, Any],
        etype: str,
        reason: str,
        message: str,
        *,
        component: str,
        host: str = "",
        field_path: str = "",
    ) -> None:
        md = involved["metadata"]
        ns = md.get("namespace") or "default"
        key = (md["uid"], reason, message, field_path)
        now = now_rfc3339()
        with self.store.lock:
            existing = self._index.get(key)
            if existing:
                ev = self.store.get("events", *existing)
                if ev is not None:
                    ev["count"] = int(ev.get("count", 1)) + 1
                    ev["lastTimestamp"] = now
                    self.store.replace("events", ev)
                    return
            name = f"{md['name']}.{secrets.token_hex(8)}"
            obj_ref: dict[str, Any] = {
                "kind": involved.get("kind"),
                "namespace": md.get("namespace", ""),
                "name": md["name"],
                "uid": md["uid"],
                "apiVersion": involved.get("apiVersion"),
                "resourceVersion": md.get("resourceVersion", ""),
            }
            if field_path:
                obj_ref["fieldPath"] = field_path
            source: dict[str, Any] = {"component": component}
            if host:
                source["host"] = host
            ev = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name, "namespace": ns},
                "involvedObject": obj_ref,
                "reason": reason,
                "message": message,
                "source": source,
                "firstTimestamp": now,
                "lastTimestamp": now,
                "count": 1,
                "type": etype,
                "eventTime": None,
                "reportingComponent": component,
                "reportingInstance": host or f"{component}-fake",
            }
            self.store.create("events", ev)
            self._index[key] = (ns, name)
