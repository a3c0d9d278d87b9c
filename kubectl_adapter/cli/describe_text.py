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
    by = change.get("by") or []
    who = f" by {', '.join(cell(b) for b in by)}" if by else ""
    if change.get("change") == "removed" and not by:
        who = " (the API server records no one for a removal)"
    then = RECONFIGURE.get(str(change.get("reconfigure")), "")
    return f"{what} {cell(change.get('change'))}{shown}{who}" + (f": {then}" if then else "")


def _drift_lines(drift: Any) -> list[str]:
    """The Drift section's body: each change, who made it and what reconfigure does."""
    if not isinstance(drift, dict):
        return []
    return [f"  {change_line(change)}" for change in drift.get("changes") or []]


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
    lines = _fields(
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
            ("ReplicaSet", cell(document.get("replicaSet"))),
            ("Drift", _drift_state(drift)),
        ]
    )
    lines += _drift_lines(drift)
    failing = document.get("failing") or []
    lines.append("Failing:" + ("" if failing else f"       {NONE}"))
    lines += [f"  {cell(failure)}" for failure in failing]
    conditions = document.get("conditions") or []
    lines.append("Conditions:" + ("" if conditions else f"    {NONE}"))
    if conditions:
        rows = [
            [cell(c.get(k)) for k in ("type", "status", "reason", "message")] for c in conditions
        ]
        lines += _table(CONDITION_COLUMNS, rows)
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
        lines.append("Events (Warning, newest last):")
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
