"""Is the workload still what Manager last applied? A pure reading of one Deployment dict.

Server-side apply records, per field manager, which fields it set (``metadata.managedFields``,
printed by ``kubectl get --show-managed-fields``). Manager applies with one field manager; any
other writer (``kubectl edit`` is ``kubectl-edit``, ``kubectl set`` is ``kubectl-set``, a hand
``kubectl apply`` is ``kubectl-client-side-apply``, ``kubectl apply --server-side`` is
``kubectl``, ``kubectl rollout`` is ``kubectl-rollout``…) that changes a field takes it over.
So a tracked field owned by another manager and not by Manager's is a change, and that manager
is who made it. This reads nothing but the Deployment that ``list`` and ``status`` already
read: drift costs no kubectl call.

What managedFields cannot say, values say:
- ``spec.replicas`` is Manager's through ``start``/``stop`` (``kubectl scale``, manager
  ``kubectl``, like a hand scale): any value but 0 or 1 is a change.
- ``spec.paused: true`` is a change (Manager never pauses).
- A removed field belongs to nobody any more. Removals of fields Manager always sets
  (ownership labels, CPU and memory) are seen by their absence; removals of env vars and of the
  command are seen against the ``org.mieweb.opensource-server.applied`` annotation, which
  records the env names Manager applied and whether it set a command (never values: env values
  may be secrets). Who removed a field is not recorded anywhere: ``by`` is empty.

The kinds of change: image, command (``command``/``args``), env (``env``/``envFrom``),
resources, replicas, paused, container (a container or init container added or removed),
labels (the ownership labels, on the Deployment or its Pod template; the name label's absence
from both is a Deployment applied before it existed, not a change), other (any other field of
the spec). ``kubectl rollout restart``'s ``restartedAt`` template annotation is a
restart, not configuration: ignored. Values are never reported for env or command.

A change the adapter made itself is never drift, whatever field manager the API server
records for it: a restart (``restartedAt``, above), a scale by start/stop (0 or 1), the
restore patch (it removes fields and sets 1 replica), and ``reconfigure
--rollback-on-failure``'s ``kubectl rollout undo``, whose fields are recorded by value in its
mark (``rollback_mark``): a field still holding what the rollback left is not reported; one
someone changed since is, with who changed it.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ..contract.naming import (
    APPLIED_ANNOTATION,
    CONTAINER_NAME,
    NAME_LABEL,
)
from .managed_fields import (
    OWNERSHIP_LABELS,
    TEMPLATE_SPEC,
    classify,
    human_path,
    ownership,
    value_at,
)
from .quantities import same_quantity
from .rollback_mark import rollback_of, rolled_back_fields
from .rollback_mark import words as rollback_words
from .takeback import by_reconfigure

Path = tuple[str, ...]
Document = dict[str, Any]

IN_SYNC = "in-sync"
DRIFTED = "drifted"
UNKNOWN = "unknown"

# Fields Manager always sets on the main container (docs: "What Manager applies").
_RESOURCE_KEYS = (
    ("limits", "cpu"),
    ("limits", "memory"),
    ("requests", "cpu"),
    ("requests", "memory"),
)


class Change(NamedTuple):
    what: str
    change: str  # changed | added | removed
    path: str
    name: str | None
    by: tuple[str, ...]
    value: str | int | bool | None = None
    at: Path = ()  # the FieldsV1 path, for restoring; () when the apply restores it

    def document(self) -> Document:
        return {
            "what": self.what,
            "change": self.change,
            "path": self.path,
            "name": self.name,
            "by": list(self.by),
            "value": self.value,
            "reconfigure": by_reconfigure(self.what, self.change, self.at, self.path, self.name),
        }


class Drift(NamedTuple):
    state: str
    changes: tuple[Change, ...]
    rollback: Document | None = None  # rollback_mark.rollback_of: what made these changes

    def document(self, restored: list[Document] | None = None) -> Document:
        said = summary(self.changes)
        if self.rollback is not None and self.changes:
            said = f"{rollback_words(self.rollback)}; {said}"
        return {
            "state": self.state,
            "changes": [change.document() for change in self.changes],
            "summary": said,
            "restored": restored or [],
        }


UNKNOWN_DRIFT = Drift(UNKNOWN, ())


def _owned_changes(
    ours: set[Path], others: dict[str, set[Path]], record: Document | None, live: Document
) -> list[Change]:
    """Tracked fields another manager set and Manager does not own (any more)."""
    groups: dict[tuple[str, str | None, Path], set[str]] = {}
    for manager, paths in others.items():
        for path in paths:
            if path in ours:
                continue  # both applied the same value: no change
            found = classify(path)
            if found is None:
                continue
            if found[0] == "other" and any(mine[: len(path)] == path for mine in ours):
                continue  # a node holding Manager's own fields (spec, labels) is no change
            groups.setdefault(found, set()).add(manager)
    changes = []
    for (kind, name, at), by in groups.items():
        change = _change(kind, at, ours, others, record)
        if kind == "resources":
            name = ".".join(segment[2:] for segment in at[-2:])
            if _as_applied(name, at, live, record):
                continue  # another writer set the same quantity (1 for 1000m): no change
        changes.append(Change(kind, change, human_path(at), name, tuple(sorted(by)), None, at))
    return changes


def _as_applied(name: str, at: Path, main: Document, record: Document | None) -> bool:
    """A CPU or memory quantity whose live value equals, by value, the one Manager's record
    says it sent."""
    sent = ((record or {}).get("resources") or {}).get(name)
    group, _, key = name.partition(".")
    live = ((main.get("resources") or {}).get(group) or {}).get(key)
    return len(at) > 2 and same_quantity(live, sent)


def _change(
    kind: str, at: Path, ours: set[Path], others: dict[str, set[Path]], record: Document | None
) -> str:
    """``added`` for what Manager never set, else ``changed``."""
    if kind == "container":
        return "added"  # Manager's Pod has one container, ``main``
    if kind == "env":
        # Another manager owns the item itself: it created it (else it changed a value).
        created = any(at in paths for paths in others.values()) and at not in ours
        return "added" if created else "changed"
    if kind == "command":
        never = at[-1] == "f:args" or (record is not None and not record.get("command"))
        return "added" if never else "changed"
    if kind == "resources":
        keys = {(f"f:{group}", f"f:{key}") for group, key in _RESOURCE_KEYS}
        return "changed" if tuple(at[-2:]) in keys else "added"
    if kind == "labels" and at[:2] == ("f:metadata", "f:labels"):
        return "changed" if at[2][2:] in OWNERSHIP_LABELS else "added"
    return "changed"


# -- values -------------------------------------------------------------------------------------


def _main(deployment: Document) -> Document | None:
    template = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    for container in template.get("containers") or []:
        if isinstance(container, dict) and container.get("name") == CONTAINER_NAME:
            return container
    return None


def _owners(others: dict[str, set[Path]], path: Path) -> tuple[str, ...]:
    return tuple(sorted(m for m, paths in others.items() if path in paths))


def _record(deployment: Document) -> Document | None:
    annotations = (deployment.get("metadata") or {}).get("annotations") or {}
    try:
        record = json.loads(annotations.get(APPLIED_ANNOTATION) or "null")
    except (TypeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _value_changes(deployment: Document, others: dict[str, set[Path]]) -> list[Change]:
    spec = deployment.get("spec") or {}
    changes: list[Change] = []
    replicas = spec.get("replicas", 1)
    if replicas not in (0, 1):
        by = _owners(others, ("f:spec", "f:replicas"))
        at = ("f:spec", "f:replicas")
        changes.append(Change("replicas", "changed", "spec.replicas", None, by, replicas, at))
    if spec.get("paused") is True:
        by = _owners(others, ("f:spec", "f:paused"))
        at = ("f:spec", "f:paused")
        changes.append(Change("paused", "changed", "spec.paused", None, by, True, at))
    meta_labels = (deployment.get("metadata") or {}).get("labels") or {}
    template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    named = NAME_LABEL in meta_labels or NAME_LABEL in template_labels
    for where, labels in (
        ("metadata.labels", meta_labels),
        ("spec.template.metadata.labels", template_labels),
    ):
        for label in OWNERSHIP_LABELS:
            if label not in labels and (named or label != NAME_LABEL):
                changes.append(Change("labels", "removed", f"{where}.{label}", label, ()))
    main = _main(deployment)
    base = f"spec.template.spec.containers[name={CONTAINER_NAME}]"
    if main is None:
        changes.append(Change("container", "removed", base, CONTAINER_NAME, ()))
        return changes
    resources = main.get("resources") or {}
    for group, key in _RESOURCE_KEYS:
        if key not in (resources.get(group) or {}):
            changes.append(
                Change("resources", "removed", f"{base}.resources.{group}.{key}", None, ())
            )
    record = _record(deployment)
    if record is not None:
        changes += _against_record(deployment, main, record, others)
    return changes


def _against_record(
    deployment: Document, main: Document, record: Document, others: dict[str, set[Path]]
) -> list[Change]:
    """Removals only the record shows, and additions it shows even when Manager's manager
    came to own them (kubectl's client-side-to-server-side apply migration hands fields set by
    a hand ``kubectl apply`` to the next server-side applier: Manager's reconfigure)."""
    changes: list[Change] = []
    base = f"spec.template.spec.containers[name={CONTAINER_NAME}]"
    main_at = (*TEMPLATE_SPEC, "f:containers", _item_key(CONTAINER_NAME))
    applied_env = {str(name) for name in record.get("env") or []}
    live_env = [str(e.get("name")) for e in main.get("env") or [] if isinstance(e, dict)]
    for name in sorted(applied_env - set(live_env)):
        changes.append(Change("env", "removed", f"{base}.env[name={name}]", name, ()))
    for name in live_env:
        if name not in applied_env:
            at = (*main_at, "f:env", _item_key(name))
            by = _owners(others, at)
            changes.append(Change("env", "added", f"{base}.env[name={name}]", name, by, None, at))
    if record.get("command") and not main.get("command"):
        changes.append(Change("command", "removed", f"{base}.command", None, ()))
    if not record.get("command") and main.get("command"):
        at = (*main_at, "f:command")
        by = _owners(others, at)
        changes.append(Change("command", "added", f"{base}.command", None, by, None, at))
    template = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    for key in ("containers", "initContainers"):
        for container in template.get(key) or []:
            name = str((container or {}).get("name"))
            if key == "containers" and name == CONTAINER_NAME:
                continue
            at = (*TEMPLATE_SPEC, f"f:{key}", _item_key(name))
            path = f"spec.template.spec.{key}[name={name}]"
            changes.append(Change("container", "added", path, name, _owners(others, at), None, at))
    return changes


def _item_key(name: str) -> str:
    return "k:" + json.dumps({"name": name}, separators=(",", ":"))


def _with_values(deployment: Document, changes: list[Change]) -> list[Change]:
    """The live value where it is no secret: the image, an ownership label's value."""
    main = _main(deployment) or {}
    labels = (deployment.get("metadata") or {}).get("labels") or {}
    template = ((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}
    out = []
    for change in changes:
        if change.what == "image":
            change = change._replace(value=main.get("image"))
        elif change.what == "labels" and change.at[:1] == ("f:metadata",):
            change = change._replace(value=labels.get(change.name))
        elif change.what == "labels":
            change = change._replace(value=(template.get("labels") or {}).get(change.name))
        out.append(change)
    return out


def _all_changes(deployment: Document) -> list[Change] | None:
    """Every difference from Manager's last apply, the adapter's own rollback included."""
    owned = ownership(deployment)
    if owned is None:
        return None
    ours, others = owned
    changes = _with_values(
        deployment, _owned_changes(ours, others, _record(deployment), _main(deployment) or {})
    )
    seen = {(c.what, c.path) for c in changes}
    changes += [c for c in _value_changes(deployment, others) if (c.what, c.path) not in seen]
    changes.sort(key=lambda c: (c.what, c.path))
    return changes


def fingerprint(deployment: Document, change: Change) -> str:
    """What a change left in place, hashed (env values may be secrets): its value where it
    has a field, else the kind of change (a removal)."""
    value = value_at(deployment, change.at) if change.at else change.change
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    import hashlib  # here: a read without drift (most) never loads _hashlib (~2 ms)

    return hashlib.sha256(text.encode()).hexdigest()[:16]


def rollback_fields(deployment: Document) -> dict[str, str]:
    """For the mark of a rollback just made: each field it put in place (what drift reports
    right after ``kubectl rollout undo``), by path, with its fingerprint. Only what the undo
    writes: the template, and the annotations it copies back from the old ReplicaSet (the
    applied record among them); a label someone added before stays theirs."""
    return {
        change.path: fingerprint(deployment, change)
        for change in _all_changes(deployment) or []
        if change.path.startswith(("spec.template.", "metadata.annotations."))
    }


def drift(deployment: Document | None) -> Drift:
    """Whether ``deployment`` is still what Manager last applied, and if not what changed and
    by whom. ``unknown`` when it carries no managedFields from Manager's apply."""
    if deployment is None:
        return UNKNOWN_DRIFT
    changes = _all_changes(deployment)
    if changes is None:
        return UNKNOWN_DRIFT
    own = rolled_back_fields(deployment)
    changes = [c for c in changes if own.get(c.path) != fingerprint(deployment, c)]
    return Drift(DRIFTED if changes else IN_SYNC, tuple(changes), rollback_of(deployment))


def summary(changes: tuple[Change, ...] | list[Change]) -> str:
    """One line for Manager to show: "image changed by kubectl-edit; env FOO added by …"."""
    parts = []
    for change in changes:
        what = change.what + (f" {change.name}" if change.name else "")
        value = change.value
        shown = "" if value is None else f" to {str(value).lower() if value is True else value}"
        who = f" by {', '.join(change.by)}" if change.by else ""
        parts.append(f"{what} {change.change}{shown}{who}")
    return "; ".join(parts)
