"""``-o table``: kubectl-get-like tables of the JSON documents, for people.

Each layout reads the document Manager gets (the JSON contract), never a model, so a table
can never say something the JSON does not. Columns are left-aligned and three spaces apart
like kubectl's; an absent value is ``<none>``; a cell never spans lines. Commands without a
layout here (delete, network, capabilities, render) and dry-run plans print YAML instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["check_table", "nodes_table", "snapshots_table", "table"]

NONE = "<none>"
GAP = "   "

SNAPSHOT_COLUMNS = (
    "PROVIDER ID",
    "STATUS",
    "READY",
    "POD IP",
    "IMAGE",
    "CPUS",
    "MEMORY",
    "CONTAINER ID",
    "NODE ID",
    "MESSAGE",
)
NODE_COLUMNS = ("NAME", "STATUS", "VERSION", "CPU", "MEMORY", "PODS")
PERMISSION_COLUMNS = ("VERB", "RESOURCE", "ALLOWED", "NEEDED FOR", "REASON")


def render(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Aligned columns; the last one is not padded (no trailing spaces)."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])]
        lines.append(GAP.join([*cells, row[-1]]).rstrip())
    return "\n".join(lines) + "\n"


def cell(value: Any) -> str:
    """One line of text: ``<none>`` for null or empty, control characters as spaces."""
    if value is None or value == "":
        return NONE
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return "".join(" " if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in text)


def _snapshot_row(item: dict[str, Any]) -> list[str]:
    memory = item.get("memoryMb")
    return [
        cell(item.get("providerId")),
        cell(item.get("status")),
        f"{item.get('readyReplicas', 0)}/{item.get('replicas', 0)}",
        cell(item.get("podIp")),
        cell(item.get("image")),
        cell(item.get("cpus")),
        NONE if memory is None else f"{memory}Mi",
        cell(item.get("containerId")),
        cell(item.get("node")),
        cell(item.get("message")),
    ]


def snapshots_table(items: Sequence[dict[str, Any]]) -> str:
    """``list``, ``status`` and the commands that answer with a Snapshot."""
    return render(SNAPSHOT_COLUMNS, [_snapshot_row(item) for item in items])


def nodes_table(items: Sequence[dict[str, Any]]) -> str:
    """``nodes``: CPU, MEMORY and PODS are what Pods may use (allocatable)."""
    rows = []
    for node in items:
        allocatable = node.get("allocatable") or {}
        rows.append(
            [
                cell(node.get("name")),
                "Ready" if node.get("ready") else "NotReady",
                cell(node.get("kubeletVersion")),
                cell(allocatable.get("cpu")),
                cell(allocatable.get("memory")),
                cell(allocatable.get("pods")),
            ]
        )
    return render(NODE_COLUMNS, rows)


def _allowed(value: Any) -> str:
    return "yes" if value is True else "no" if value is False else "unknown"


def check_table(document: dict[str, Any]) -> str:
    """``check``: the findings like ``kubectl describe``, then one row per permission."""
    exists = document.get("namespaceExists")
    namespace = cell(document.get("namespace"))
    state = "exists" if exists is True else "does not exist" if exists is False else "unknown"
    missing = document.get("missingPermissions") or []
    summary = [
        ("OK", cell(document.get("ok"))),
        ("Kubectl", cell(document.get("kubectl"))),
        ("Client version", cell(document.get("clientVersion"))),
        ("Server version", cell(document.get("serverVersion"))),
        ("Context", cell(document.get("context"))),
        ("Namespace", f"{namespace} ({state})"),
        ("Missing", ", ".join(cell(m) for m in missing) if missing else NONE),
    ]
    width = max(len(name) for name, _ in summary) + 1
    head = "".join(f"{(name + ':').ljust(width)}  {value}\n" for name, value in summary)
    rows = []
    for permission in document.get("permissions") or []:
        resource = cell(permission.get("resource"))
        if permission.get("subresource"):
            resource += "/" + cell(permission["subresource"])
        rows.append(
            [
                cell(permission.get("verb")),
                f"{resource} ({permission.get('group') or 'core'})",
                _allowed(permission.get("allowed")),
                ", ".join(cell(n) for n in permission.get("neededFor") or []) or NONE,
                cell(permission.get("reason")),
            ]
        )
    if not rows:
        return head
    return head + "\n" + render(PERMISSION_COLUMNS, rows)


SNAPSHOT_COMMANDS = frozenset({"list", "status", "create", "start", "stop", "reconfigure"})
TABLE_COMMANDS = SNAPSHOT_COMMANDS | {"nodes", "check"}


def table(command: str, document: Any) -> str | None:
    """``command``'s document as a table; None when it has no layout (print YAML instead).

    An empty list is the empty string: the caller says "No workloads found" on stderr, as
    kubectl does.
    """
    if command not in TABLE_COMMANDS or not isinstance(document, dict) or "dryRun" in document:
        return None
    if command == "check":
        return check_table(document)
    items = document.get("items") if command in ("list", "nodes") else [document]
    if not isinstance(items, list):
        return None
    if not items:
        return ""
    return nodes_table(items) if command == "nodes" else snapshots_table(items)
