"""Server-side apply: per-manager field ownership, conflicts, merge and field removal.

Field paths use the segments of the API server's FieldsV1 encoding (`f:spec`,
`k:{"name":"main"}`), so rendering `metadata.managedFields` is a plain nesting step.
Lists listed in ``ASSOC_KEYS`` are associative (merged by key); all other lists are atomic.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

Path = tuple[str, ...]
ManagerKey = tuple[str, str, str]  # (manager, operation, subresource)

ASSOC_KEYS: dict[str, tuple[str, ...]] = {
    "containers": ("name",),
    "initContainers": ("name",),
    "ephemeralContainers": ("name",),
    "env": ("name",),
    "volumes": ("name",),
    "volumeMounts": ("mountPath",),
    "imagePullSecrets": ("name",),
    "ports": ("containerPort", "protocol"),
    "ownerReferences": ("uid",),
    "conditions": ("type",),
    "hostAliases": ("ip",),
}
ATOMIC_MAPS = frozenset({"selector", "nodeSelector"})
TRACKED_METADATA = ("labels", "annotations", "ownerReferences", "finalizers")


class _Marker:
    def __repr__(self) -> str:
        return "<item>"


ITEM = _Marker()
MISSING = _Marker()


def _is_assoc(name: str | None, value: Any) -> bool:
    return (
        name in ASSOC_KEYS and isinstance(value, list) and all(isinstance(i, dict) for i in value)
    )


def item_key(name: str, item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in ASSOC_KEYS[name]:
        v = item.get(k)
        if v is None and k == "protocol":
            v = "TCP"
        if v is not None:
            out[k] = v
    return out


def key_segment(name: str, item: dict[str, Any]) -> str:
    return "k:" + json.dumps(item_key(name, item), separators=(",", ":"), sort_keys=True)


def _walk(path: Path, name: str | None, value: Any, out: dict[Path, Any]) -> None:
    if isinstance(value, dict) and value and name not in ATOMIC_MAPS:
        for k, v in value.items():
            _walk((*path, f"f:{k}"), k, v, out)
    elif _is_assoc(name, value) and value:
        assert name is not None
        for item in value:
            p = (*path, key_segment(name, item))
            out[p] = ITEM
            for k, v in item.items():
                _walk((*p, f"f:{k}"), k, v, out)
    else:
        out[path] = value


def field_set(obj: dict[str, Any] | None, *, status: bool = False) -> dict[Path, Any]:
    """Leaf paths (and associative-list item nodes) of `obj` mapped to their values.

    With ``status=True`` only the status stanza is walked (status subresource writes).
    """
    out: dict[Path, Any] = {}
    if not obj:
        return out
    for k, v in obj.items():
        if k in ("apiVersion", "kind"):
            continue
        if (k == "status") != status:
            continue
        if k == "metadata":
            for mk in TRACKED_METADATA:
                if mk in v:
                    _walk(("f:metadata", f"f:{mk}"), mk, v[mk], out)
            continue
        _walk((f"f:{k}",), k, v, out)
    return out


def get_at(obj: Any, path: Path) -> Any:
    cur, name = obj, None
    for seg in path:
        if seg.startswith("f:"):
            if not isinstance(cur, dict) or seg[2:] not in cur:
                return MISSING
            name, cur = seg[2:], cur[seg[2:]]
        else:
            if not isinstance(cur, list) or name is None or name not in ASSOC_KEYS:
                return MISSING
            found = [i for i in cur if isinstance(i, dict) and key_segment(name, i) == seg]
            if not found:
                return MISSING
            cur = found[0]
    return cur


def delete_at(obj: dict[str, Any], path: Path) -> None:
    parent = get_at(obj, path[:-1])
    seg = path[-1]
    if isinstance(parent, dict) and seg.startswith("f:"):
        parent.pop(seg[2:], None)
    elif isinstance(parent, list):
        name = path[-2][2:] if len(path) >= 2 else ""
        parent[:] = [i for i in parent if not (isinstance(i, dict) and key_segment(name, i) == seg)]


def human_path(path: Path) -> str:
    out = ""
    for seg in path:
        if seg.startswith("f:"):
            out += "." + seg[2:]
        else:
            keys = json.loads(seg[2:])
            out += "[" + ",".join(f"{k}={json.dumps(v)}" for k, v in keys.items()) + "]"
    return out


def merge(live: Any, applied: Any, name: str | None = None) -> Any:
    """Structural merge of an applied configuration into the live object."""
    if isinstance(live, dict) and isinstance(applied, dict) and name not in ATOMIC_MAPS:
        out = copy.deepcopy(live)
        for k, v in applied.items():
            out[k] = merge(live[k], v, k) if k in live else copy.deepcopy(v)
        return out
    if _is_assoc(name, live) and _is_assoc(name, applied):
        assert name is not None
        by_key = {key_segment(name, i): i for i in live}
        out_list: list[Any] = []
        seen: set[str] = set()
        for item in applied:
            ks = key_segment(name, item)
            seen.add(ks)
            out_list.append(merge(by_key[ks], item) if ks in by_key else copy.deepcopy(item))
        out_list.extend(copy.deepcopy(i) for i in live if key_segment(name, i) not in seen)
        return out_list
    return copy.deepcopy(applied)


@dataclass
class Conflict:
    manager: str
    path: Path


class ApplyConflict(Exception):
    def __init__(self, conflicts: list[Conflict], api_version: str) -> None:
        super().__init__("apply conflict")
        self.conflicts = conflicts
        self.api_version = api_version

    def status(self) -> dict[str, Any]:
        av = self.api_version
        n = len(self.conflicts)
        if n == 1:
            c = self.conflicts[0]
            text = f'conflict with "{c.manager}" using {av}: {human_path(c.path)}'
        else:
            lines: list[str] = []
            for m in sorted({c.manager for c in self.conflicts}):
                lines.append(f'conflicts with "{m}" using {av}:')
                lines.extend(f"- {human_path(c.path)}" for c in self.conflicts if c.manager == m)
            text = "\n".join(lines)
        causes = [
            {
                "reason": "FieldManagerConflict",
                "message": f'conflict with "{c.manager}" using {av}',
                "field": human_path(c.path),
            }
            for c in self.conflicts
        ]
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f"Apply failed with {n} conflict{'s' if n != 1 else ''}: {text}",
            "reason": "Conflict",
            "code": 409,
            "details": {"causes": causes},
        }


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return True  # empty-map leaves never conflict
    return bool(a == b)


@dataclass
class Ownership:
    """Field ownership of one object."""

    managers: dict[ManagerKey, set[Path]] = field(default_factory=dict)
    times: dict[ManagerKey, str] = field(default_factory=dict)

    def owned_by_others(self, key: ManagerKey, path: Path, *, prefix: bool) -> bool:
        for k, paths in self.managers.items():
            if k == key:
                continue
            if path in paths:
                return True
            if prefix and any(p[: len(path)] == path for p in paths):
                return True
        return False

    def apply(
        self,
        live: dict[str, Any] | None,
        applied: dict[str, Any],
        manager: str,
        *,
        force: bool,
        api_version: str,
        now: str,
    ) -> dict[str, Any]:
        """Return the merged object; raise ApplyConflict unless `force`."""
        key: ManagerKey = (manager, "Apply", "")
        base = live or {}
        new_fields = field_set(applied)
        conflicts: list[Conflict] = []
        steal: list[tuple[ManagerKey, Path]] = []
        for p, v in new_fields.items():
            if v is ITEM:
                continue
            for other, paths in self.managers.items():
                if other == key or p not in paths:
                    continue
                cur = get_at(base, p)
                if cur is MISSING or _same(cur, v):
                    continue
                conflicts.append(Conflict(other[0], p))
                steal.append((other, p))
        if conflicts and not force:
            raise ApplyConflict(conflicts, api_version)
        for other, p in steal:
            self.managers[other].discard(p)
        merged: dict[str, Any] = merge(base, applied)
        removed = self.managers.get(key, set()) - set(new_fields)
        if self.managers.get(key) != set(new_fields) or key not in self.times:
            self.times[key] = now
        self.managers[key] = set(new_fields)
        for p in sorted(removed, key=len):
            is_item = p[-1].startswith("k:")
            if not self.owned_by_others(key, p, prefix=is_item):
                delete_at(merged, p)
                self._prune(merged, p[:-1])
        return merged

    def _prune(self, obj: dict[str, Any], path: Path) -> None:
        while len(path) > 1:
            cur = get_at(obj, path)
            if cur in ({}, []) and not any(path in s for s in self.managers.values()):
                delete_at(obj, path)
                path = path[:-1]
            else:
                return

    def record_update(
        self,
        before: dict[str, Any] | None,
        after: dict[str, Any],
        manager: str,
        *,
        subresource: str = "",
        now: str,
    ) -> None:
        status = subresource == "status"
        b = field_set(before, status=status)
        a = field_set(after, status=status)
        changed = {p for p, v in a.items() if p not in b or (v is not ITEM and b[p] != v)}
        removed = set(b) - set(a)
        if not changed and not removed:
            return
        key: ManagerKey = (manager, "Update", subresource)
        for k, s in self.managers.items():
            if k != key:
                s -= changed
            s -= removed
        self.managers.setdefault(key, set()).update(changed)
        self.times[key] = now

    def render(self, api_version: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for (manager, op, sub), paths in self.managers.items():
            if not paths:
                continue
            tree: dict[str, Any] = {}
            for p in sorted(paths):
                node = tree
                for seg in p:
                    node = node.setdefault(seg, {})
                if p[-1].startswith("k:"):
                    node["."] = {}
            entry: dict[str, Any] = {
                "manager": manager,
                "operation": op,
                "apiVersion": api_version,
                "time": self.times.get((manager, op, sub), ""),
                "fieldsType": "FieldsV1",
                "fieldsV1": tree,
            }
            if sub:
                entry["subresource"] = sub
            out.append(entry)
        return out
