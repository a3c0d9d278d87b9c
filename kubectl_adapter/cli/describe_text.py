"""``describe``'s text: one screen laid out like ``kubectl describe``, from the JSON document.

Read from the document ``-o json`` prints (never a model), so the text cannot say anything
the JSON does not. ``Field:  value`` lines, sections indented by two spaces, aligned tables for
the conditions and the events; absent values are ``<none>`` and no cell spans lines.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..rules.clock import age, utc_now
from .tables import NONE, cell, render

__all__ = ["change_line", "describe_text"]

Document = dict[str, Any]

CONDITION_COLUMNS = ("Type", "Status", "Reason", "Message")
EVENT_COLUMNS = ("Type", "Reason", "Age", "From", "Object", "Message")
# What a reconfigure does about a change (``DriftChange.reconfigure``), said to an operator.
RECONFIGURE = {
    "restores": "reconfigure takes it back",
    "keeps": "reconfigure keeps it (no patch can name that field): remove it by hand",
    "refuses": "reconfigure refuses until it is restored by hand (identity label)",
}


def _fields(pairs: list[tuple[str, str]], indent: str = "") -> list[str]:
    width = max(len(name) for name, _ in pairs) + 1
    return [f"{indent}{(name + ':').ljust(width)}  {value}".rstrip() for name, value in pairs]


def _table(headers: tuple[str, ...], rows: list[list[str]], indent: str = "  ") -> list[str]:
    dashes = ["-" * len(header) for header in headers]
    text = render(headers, [dashes, *rows])
    return [indent + line for line in text.splitlines()]


def change_line(change: Document) -> str:
    """``image changed to nginx:1.27 by kubectl-set: reconfigure takes it back``."""
    what = cell(change.get("what")) + (f" {cell(change['name'])}" if change.get("name") else "")
    value = change.get("value")
    shown = "" if value is None else f" to {str(value).lower() if value is True else cell(value)}"
    if change.get("what") == "labels" and change.get("change") == "added" and value is not None:
        what, shown = f"labels {cell(change.get('name'))}={cell(value)}", ""
    by = change.get("by") or []
    who = f" by {', '.join(cell(b) for b in by)}" if by else ""
    if change.get("change") == "removed" and not by:
        who = " (the API server records no one for a removal)"
    then = RECONFIGURE.get(str(change.get("reconfigure")), "")
    if change.get("what") == "labels" and change.get("change") == "added":
        then = "reconfigure keeps it (Manager applies no such label): remove it by hand"
    return f"{what} {cell(change.get('change'))}{shown}{who}" + (f": {then}" if then else "")


def _drift_lines(drift: Any, document: Document) -> list[str]:
    """The Drift section's body: the rollback that made it, if one did, then each change,
    who made it and what reconfigure does (with the command to restore what it refuses over
    or leaves)."""
    if not isinstance(drift, dict):
        return []
    rollback = document.get("rollback")
    lines = []
    if isinstance(rollback, dict):
        failed = rollback.get("failedRevision")
        lines.append(
            f"  rolled back by {cell(rollback.get('by'))} at {cell(rollback.get('at'))}: "
            f"revision {cell(failed)}, the spec Manager last applied, failed; revision "
            f"{cell(rollback.get('revision'))} runs the template before it"
        )
        lines.append(
            "  the adapter's own change, no drift: a reconfigure with the same spec "
            f"re-applies the spec that failed (revision {cell(failed)}): fix it first"
        )
    for change in drift.get("changes") or []:
        line = f"  {change_line(change)}"
        if isinstance(rollback, dict) and change.get("reconfigure") == "restores":
            line = line.replace(
                ": reconfigure takes it back", ": reconfigure sets the failed spec's value again"
            )
        by_hand = restore_command(change, document)
        lines.append(line + (f": {by_hand}" if by_hand else ""))
    return lines


def restore_command(change: Document, document: Document) -> str | None:
    """The kubectl command that restores a label by hand: an identity label back to the value
    the Pod template still carries (reconfigure refuses until then), or a label added to the
    Deployment removed (reconfigure keeps it)."""
    snap = document.get("snapshot") or {}
    name, namespace = cell(snap.get("name")), cell(snap.get("namespace"))
    label = change.get("name")
    if (
        change.get("what") != "labels"
        or not label
        or not str(change.get("path", "")).startswith("metadata.labels.")
    ):
        return None
    if change.get("reconfigure") == "refuses":
        template = (document.get("template") or {}).get("labels") or {}
        value = template.get(label)
        if value is None:
            return None
        restored = f"{cell(label)}={cell(value)}"
        return f"kubectl label deployment {name} {restored} --overwrite -n {namespace}"
    if change.get("change") == "added":
        return f"kubectl label deployment {name} {cell(label)}- -n {namespace}"
    return None


def _labels(labels: Any) -> str:
    if not isinstance(labels, dict) or not labels:
        return NONE
    return "\n".join(f"{cell(k)}={cell(v)}" for k, v in sorted(labels.items()))


def _multi(pairs: list[tuple[str, str]], indent: str = "") -> list[str]:
    """``_fields`` where a value may hold several lines, each under the first."""
    width = max(len(name) for name, _ in pairs) + 1
    lines = []
    for name, value in pairs:
        first, *rest = value.split("\n")
        lines.append(f"{indent}{(name + ':').ljust(width)}  {first}".rstrip())
        lines += [f"{indent}{' ' * width}  {more}" for more in rest]
    return lines


def _env_text(env: list[Document], env_from: list[Any]) -> str:
    if not env and not env_from:
        return NONE
    items = []
    for var in env:
        if var.get("valueFrom"):
            items.append(f"{cell(var.get('name'))}:  <set to the {cell(var['valueFrom'])}>")
        else:
            items.append(f"{cell(var.get('name'))}:  {cell(var.get('value') or '')}".rstrip())
    items += [f"{cell(source)}  (envFrom)" for source in env_from]
    return "\n".join(items)


def _quantities(values: Any) -> str:
    if not isinstance(values, dict) or not values:
        return NONE
    return "\n".join(f"{cell(k)}: {cell(v)}" for k, v in sorted(values.items()))


def _template_lines(template: Any) -> list[str]:
    """``Pod Template:`` as kubectl describe lays it out."""
    if not isinstance(template, dict):
        return []
    lines = ["Pod Template:", *_multi([("Labels", _labels(template.get("labels")))], "  ")]
    lines.append("  Containers:")
    for container in template.get("containers") or []:
        kind = " (init)" if container.get("init") else ""
        lines.append(f"   {cell(container.get('name'))}{kind}:")
        command, args = container.get("command"), container.get("args")
        pairs = [("Image", cell(container.get("image")))]
        if command:
            pairs.append(("Command", "\n".join(cell(part) for part in command)))
        if args:
            pairs.append(("Args", "\n".join(cell(part) for part in args)))
        pairs += [
            ("Limits", _quantities(container.get("limits"))),
            ("Requests", _quantities(container.get("requests"))),
            ("Environment", _env_text(container.get("env") or [], container.get("envFrom") or [])),
        ]
        lines += _multi(pairs, "    ")
    return lines


def _revision_lines(revisions: Any) -> list[str]:
    if not revisions:
        return []
    rows = [
        [
            cell(r.get("revision")),
            cell(r.get("replicaSet")) + (" (current)" if r.get("current") else ""),
            f"{r.get('readyReplicas', 0)}/{r.get('replicas', 0)}",
            cell(r.get("image")),
        ]
        for r in revisions
    ]
    return [
        "Revisions (newest first):",
        *_table(("Revision", "ReplicaSet", "Ready", "Image"), rows),
    ]


def _drift_state(drift: Any) -> str:
    state = (drift or {}).get("state") if isinstance(drift, dict) else None
    if state == "in-sync":
        return "in-sync (as Manager last applied it)"
    if state == "drifted":
        return "drifted (changed since Manager last applied it)"
    return "unknown (no apply by Manager recorded in managedFields)"


def _since(timestamp: Any, now: datetime) -> str:
    return NONE if not timestamp else f"{cell(timestamp)} ({age(timestamp, now)} ago)"


def _exit(exited: Any, now: datetime) -> str:
    if not isinstance(exited, dict):
        return NONE
    text = f"{cell(exited.get('exitCode'))} ({cell(exited.get('reason'))})"
    if exited.get("message"):
        text += f": {cell(exited['message'])}"
    if exited.get("finishedAt"):
        text += f", {age(exited['finishedAt'], now)} ago"
    return text


def _state(container: Document, now: datetime) -> str:
    state = str(container.get("state") or "unknown")
    if state == "waiting":
        reason = cell(container.get("reason") or "Waiting")
        message = container.get("message")
        return f"Waiting: {reason}" + (f": {cell(message)}" if message else "")
    if state == "running":
        started = container.get("startedAt")
        return "Running" + (f", started {age(started, now)} ago" if started else "")
    if state == "terminated":
        return f"Terminated: {_exit(container.get('terminated'), now)}"
    return "Unknown (the kubelet has not reported it)"


def _container(container: Document, now: datetime) -> list[str]:
    kind = "init container" if container.get("init") else "container"
    head = f"    {kind} {cell(container.get('name'))} ({cell(container.get('image'))}):"
    pairs = [
        ("State", _state(container, now)),
        ("Ready", "True" if container.get("ready") else "False"),
        ("Restarts", str(container.get("restartCount") or 0)),
        ("Last exit", _exit(container.get("lastExit"), now)),
    ]
    return [head, *_fields(pairs, "      ")]


def _conditions_inline(conditions: list[Document]) -> str:
    parts = []
    for condition in conditions:
        text = f"{cell(condition.get('type'))}={cell(condition.get('status'))}"
        if condition.get("status") != "True" and condition.get("reason"):
            text += f" ({cell(condition['reason'])})"
        parts.append(text)
    return ", ".join(parts) or NONE


def _pod(pod: Document, now: datetime) -> list[str]:
    marks = [mark for mark, on in (("current", pod.get("current")),) if on]
    if pod.get("terminating"):
        marks.append("terminating")
    head = f"  {cell(pod.get('name'))}" + (f" ({', '.join(marks)})" if marks else "") + ":"
    phase = cell(pod.get("phase")) + (", ready" if pod.get("ready") else ", not ready")
    if pod.get("reason"):
        phase += f": {cell(pod['reason'])}" + (
            f": {cell(pod['message'])}" if pod.get("message") else ""
        )
    pairs = [
        ("Phase", phase),
        ("Node", cell(pod.get("node"))),
        ("IP", cell(pod.get("podIp"))),
        ("Age", age(pod.get("createdAt"), now)),
        ("Conditions", _conditions_inline(pod.get("conditions") or [])),
    ]
    lines = [head, *_fields(pairs, "    ")]
    for container in pod.get("containers") or []:
        lines += _container(container, now)
    return lines


def _event_age(event: Document, now: datetime) -> str:
    last = age(event.get("lastSeen"), now)
    count = event.get("count") or 1
    if count > 1 and event.get("firstSeen"):
        return f"{last} (x{count} over {age(event['firstSeen'], now)})"
    return last


def describe_text(document: Document, now: datetime | None = None) -> str:
    """The whole screen."""
    now = now or utc_now()
    snap = document.get("snapshot") or {}
    memory = snap.get("memoryMb")
    replicas = (
        f"{snap.get('replicas', 0)} desired | {snap.get('updatedReplicas', 0)} updated | "
        f"{snap.get('readyReplicas', 0)} ready | {snap.get('availableReplicas', 0)} available"
    )
    drift = snap.get("drift")
    lines = _multi(
        [
            ("Name", cell(snap.get("name"))),
            ("Namespace", cell(snap.get("namespace"))),
            ("Provider ID", cell(snap.get("providerId"))),
            ("Status", cell(snap.get("status"))),
            ("Message", cell(snap.get("message"))),
            ("Container ID", cell(snap.get("containerId"))),
            ("Node ID", cell(snap.get("node"))),
            ("Image", cell(snap.get("image"))),
            ("CPUs", cell(snap.get("cpus"))),
            ("Memory", NONE if memory is None else f"{memory}Mi"),
            ("Replicas", replicas),
            ("Created", _since(snap.get("createdAt"), now)),
            ("Labels", _labels(document.get("labels"))),
            ("Selector", cell(document.get("selector"))),
            ("ReplicaSet", cell(document.get("replicaSet"))),
            ("Drift", _drift_state(drift)),
        ]
    )
    lines += _drift_lines(drift, document)
    failing = document.get("failing") or []
    lines.append("Failing:" + ("" if failing else f"       {NONE}"))
    lines += [f"  {cell(failure)}" for failure in failing]
    lines += _template_lines(document.get("template"))
    conditions = document.get("conditions") or []
    lines.append("Conditions:" + ("" if conditions else f"    {NONE}"))
    if conditions:
        rows = [
            [cell(c.get(k)) for k in ("type", "status", "reason", "message")] for c in conditions
        ]
        lines += _table(CONDITION_COLUMNS, rows)
    lines += _revision_lines(document.get("revisions"))
    pods = document.get("pods") or []
    lines.append("Pods:" + ("" if pods else f"          {NONE}"))
    for pod in pods:
        lines += _pod(pod, now)
    events = document.get("events") or []
    if document.get("eventsError"):
        lines.append(f"Events:        <unknown: {cell(document['eventsError'])}>")
    elif not events:
        lines.append(f"Events:        {NONE}")
    else:
        lines.append("Events (newest last):")
        rows = [
            [
                cell(e.get("type")),
                cell(e.get("reason")),
                _event_age(e, now),
                cell(e.get("source")),
                cell(e.get("object")),
                cell(e.get("message")),
            ]
            for e in events
        ]
        lines += _table(EVENT_COLUMNS, rows)
    return "\n".join(lines) + "\n"
