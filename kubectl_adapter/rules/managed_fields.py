"""Reading ``metadata.managedFields``: who owns which field, and what kind of field it is.

Server-side apply records, per field manager, the fields it set as a FieldsV1 tree. ``drift``
compares Manager's set with every other manager's; this module only reads the trees (pure).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..contract.naming import (
    APPLIED_ANNOTATION,
    CONTAINER_ID_LABEL,
    CONTAINER_NAME,
    FIELD_MANAGER,
    MANAGED_LABEL,
    NAME_LABEL,
    NODE_ID_LABEL,
)

Path = tuple[str, ...]
Document = dict[str, Any]

OWNERSHIP_LABELS = (MANAGED_LABEL, NODE_ID_LABEL, CONTAINER_ID_LABEL, NAME_LABEL)
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
TEMPLATE_SPEC: Path = ("f:spec", "f:template", "f:spec")
_CONTAINER_LISTS = ("f:containers", "f:initContainers")
_MAIN_FIELDS = {
    "f:image": "image",
    "f:command": "command",
    "f:args": "command",
    "f:env": "env",
    "f:envFrom": "env",
    "f:resources": "resources",
}


def _paths(tree: Any, prefix: Path = ()) -> Iterator[Path]:
    """Every owned path of a FieldsV1 tree; ``"."`` marks the node above it as owned."""
    if not isinstance(tree, dict):
        return
    for key, child in tree.items():
        if key == ".":
            yield prefix
        elif isinstance(child, dict) and child:
            yield from _paths(child, (*prefix, str(key)))
        else:
            yield (*prefix, str(key))


def ownership(deployment: Document) -> tuple[set[Path], dict[str, set[Path]]] | None:
    """(Manager's paths, every other manager's paths), or None when managedFields are absent
    or Manager never applied (nothing to compare with). Status writes are nobody's config."""
    entries = (deployment.get("metadata") or {}).get("managedFields")
    if not isinstance(entries, list) or not entries:
        return None
    ours: set[Path] = set()
    others: dict[str, set[Path]] = {}
    applied = False
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("subresource") == "status":
            continue
        paths = set(_paths(entry.get("fieldsV1")))
        manager = str(entry.get("manager") or "")
        if manager == FIELD_MANAGER:
            ours |= paths
            applied = applied or entry.get("operation") == "Apply"
        else:
            others.setdefault(manager, set()).update(paths)
    return (ours, others) if applied else None


def applied_at(deployment: Document) -> str | None:
    """When Manager last applied (its Apply entry's ``time``, RFC 3339 to the second)."""
    for entry in (deployment.get("metadata") or {}).get("managedFields") or []:
        if not isinstance(entry, dict) or entry.get("manager") != FIELD_MANAGER:
            continue
        if entry.get("operation") == "Apply" and entry.get("time"):
            return str(entry["time"])
    return None


def value_at(document: Any, path: Path) -> Any:
    """The value a FieldsV1 path names in ``document`` (``f:`` a key, ``k:`` the list item
    with those keys, ``v:`` the set item), or None."""
    here = document
    for segment in path:
        if segment.startswith("f:") and isinstance(here, dict):
            here = here.get(segment[2:])
        elif segment.startswith("k:") and isinstance(here, list):
            keys = key_of(segment)
            here = next(
                (
                    i
                    for i in here
                    if isinstance(i, dict) and all(i.get(k) == v for k, v in keys.items())
                ),
                None,
            )
        elif segment.startswith("v:") and isinstance(here, list):
            wanted = json.loads(segment[2:]) if segment[2:] else None
            here = wanted if wanted in here else None
        else:
            return None
    return here


def key_of(segment: str) -> dict[str, Any]:
    try:
        found = json.loads(segment[2:])
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def human_path(path: Path) -> str:
    """``spec.template.spec.containers[name=main].image`` for a FieldsV1 path."""
    out = ""
    for segment in path:
        if segment.startswith("k:"):
            out += "[" + ",".join(f"{k}={v}" for k, v in key_of(segment).items()) + "]"
        elif segment.startswith("v:"):
            out += f"[{segment[2:]}]"
        else:
            out += ("." if out else "") + segment[2:]
    return out


def classify(path: Path) -> tuple[str, str | None, Path] | None:
    """(kind, name, the path a change is reported at) for a tracked path, else None."""
    if path[:2] == ("f:metadata", "f:labels") and len(path) == 3:
        # Any label: an ownership label changed, or one Manager never applies added
        # (``kubectl label deployment NAME team=ops``), which reconfigure leaves in place.
        return ("labels", path[2][2:], path)
    if path[:2] == ("f:metadata", "f:annotations") and len(path) == 3:
        return ("other", None, path) if path[2][2:] == APPLIED_ANNOTATION else None
    if (
        not path
        or path[0] != "f:spec"
        or path[:2] in (("f:spec", "f:replicas"), ("f:spec", "f:paused"))
    ):
        return None
    if path[:4] == ("f:spec", "f:template", "f:metadata", "f:labels") and len(path) >= 5:
        label = path[4][2:]
        return ("labels" if label in OWNERSHIP_LABELS else "other", label, path[:5])
    if path[:4] == ("f:spec", "f:template", "f:metadata", "f:annotations") and len(path) >= 5:
        return None if path[4][2:] == RESTARTED_AT else ("other", path[4][2:], path[:5])
    n = len(TEMPLATE_SPEC)
    if path[:n] == TEMPLATE_SPEC and len(path) == n + 1 and path[n] in _CONTAINER_LISTS:
        return None  # the list itself (an empty one left behind): its items are the news
    if path[:n] != TEMPLATE_SPEC or len(path) < n + 2 or path[n] not in _CONTAINER_LISTS:
        return ("other", None, path)
    item = path[: n + 2]
    container = str(key_of(path[n + 1]).get("name", ""))
    if path[n] != "f:containers" or container != CONTAINER_NAME:
        return ("container", container, item)
    if len(path) == n + 2:
        return None  # the main container itself: its fields say what changed (and it is
        # never a thing to take back)
    field = path[n + 2]
    kind = _MAIN_FIELDS.get(field, "other")
    if kind == "env" and field == "f:env":
        if len(path) == n + 3:
            return None  # the list itself, as above
        return ("env", str(key_of(path[n + 3]).get("name", "")), path[: n + 4])
    if kind == "resources" or kind == "other":
        return (kind, None, path)
    return (kind, None, path[: n + 3])
