"""``-o table|wide|name``: kubectl-get-like tables of the JSON documents, for people.

Each layout reads the document Manager gets (the JSON contract), never a model, so a table
can never say something the JSON does not. Columns are left-aligned and three spaces apart
like kubectl's; an absent value is ``<none>``; a cell never spans lines (a line break in it,
like any other non-printing character, is shown escaped: ``terminal_text.one_line``).
``wide`` adds the columns kubectl's ``-o wide`` would (age, Pod IP, node, image); ``name`` prints
``deployment.apps/NAME`` lines for piping into kubectl. Commands without a layout here
(delete, network, capabilities, render) and dry-run plans print YAML instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .formats import SNAPSHOT_COMMANDS
from .terminal_text import one_line

__all__ = [
    "check_table",
    "drift_cell",
    "fitted",
    "names",
    "nodes_table",
    "permission_rows",
    "snapshot_columns",
    "snapshot_row",
    "snapshots_table",
    "table",
]

NONE = "<none>"
GAP = "   "

# kubectl get's order: NAME, then what it is now (STATUS, READY), then AGE; NAME is the
# provider ID (namespace/name), which every command takes back. MESSAGE, the one long,
# free-text column, is last: on a terminal it is what is cut at the screen's edge.
SNAPSHOT_COLUMNS = ("NAME", "STATUS", "READY", "AGE", "DRIFT", "MESSAGE")
AGE_COLUMN = SNAPSHOT_COLUMNS.index("AGE")
# -o wide: Manager's IDs and limits, then kubectl's names for what its -o wide adds (a Pod's
# IP and NODE, a Deployment's IMAGES), before MESSAGE, which stays last.
WIDE_COLUMNS = ("CPUS", "MEMORY", "CONTAINER ID", "NODE ID", "POD IP", "NODE", "IMAGE")
NODE_COLUMNS = ("NAME", "STATUS", "VERSION", "CPU", "MEMORY", "PODS")
# kubectl auth can-i --list's layout: a resource per row, the verbs it allows in brackets.
PERMISSION_COLUMNS = ("RESOURCES", "VERBS", "DENIED", "NEEDED FOR")


def render(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, show_headers: bool = True
) -> str:
    """Aligned columns; the last one is not padded (no trailing spaces). Without headers
    (``--no-headers``) the columns are as wide as the rows alone need, as in kubectl."""
    shown = [headers, *rows] if show_headers else list(rows)
    widths = [max(len(row[i]) for row in shown) for i in range(len(headers))]
    lines = []
    for row in shown:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])]
        lines.append(GAP.join([*cells, row[-1]]).rstrip())
    return "\n".join(lines) + "\n"


def cell(value: Any) -> str:
    """One line of text: ``<none>`` for null or empty; a line break or any other character a
    terminal would act on escaped (``\\n``, ``\\x1b``) here, so the columns are laid out at
    the width they are shown (``output.put`` escapes again what the encoding cannot carry)."""
    if value is None or value == "":
        return NONE
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return f"{value:g}"
    return one_line(str(value))


def drift_cell(drift: Any) -> str:
    """``in-sync``, ``unknown``, or what drifted: the kinds of change, e.g. ``image,env``."""
    if not isinstance(drift, dict):
        return "unknown"
    if drift.get("state") != "drifted":
        return cell(drift.get("state") or "unknown")
    kinds: list[str] = []
    for change in drift.get("changes") or []:
        what = cell(change.get("what"))
        if what not in kinds:
            kinds.append(what)
    return ",".join(kinds) or "drifted"


def _snapshot_row(item: dict[str, Any], wide: datetime | None, now: datetime | None) -> list[str]:
    from ..rules.clock import age, utc_now

    row = [
        cell(item.get("providerId")),
        cell(item.get("status")),
        f"{item.get('readyReplicas', 0)}/{item.get('replicas', 0)}",
        age(item.get("createdAt"), wide or now or utc_now()),
        drift_cell(item.get("drift")),
    ]
    if wide is not None:
        memory = item.get("memoryMb")
        row += [
            cell(item.get("cpus")),
            NONE if memory is None else f"{memory}Mi",
            cell(item.get("containerId")),
            cell(item.get("node")),
            cell(item.get("podIp")),
            cell(item.get("podNode")),
            cell(item.get("image")),
        ]
    return [*row, cell(item.get("message"))]


def snapshot_columns(wide: bool) -> tuple[str, ...]:
    """The workload table's columns (``-o wide``'s before ``MESSAGE``)."""
    return SNAPSHOT_COLUMNS[:-1] + (WIDE_COLUMNS if wide else ()) + SNAPSHOT_COLUMNS[-1:]


def snapshot_row(
    item: dict[str, Any], wide: datetime | None = None, now: datetime | None = None
) -> list[str]:
    """One workload's cells (``list -w`` prints them one change at a time); ages count to
    ``wide`` or ``now`` (else this moment)."""
    return _snapshot_row(item, wide, now)


def fitted(text: str, width: int | None) -> str:
    """Each line of a table at most ``width`` characters, cut with ``…`` (``-o wide``, a pipe
    and a file get it whole: ``width`` None)."""
    if width is None:
        return text
    from .failure_text import cut

    return "".join(cut(line, width) + "\n" for line in text.splitlines())


def snapshots_table(
    items: Sequence[dict[str, Any]],
    *,
    wide: datetime | None = None,
    headers: bool = True,
    now: datetime | None = None,
) -> str:
    """``list``, ``status`` and the commands that answer with a Snapshot; ages count to
    ``wide`` (``-o wide``) or ``now`` (else this moment)."""
    from ..rules.clock import utc_now

    columns = snapshot_columns(wide is not None)
    moment = wide or now or utc_now()
    rows = [_snapshot_row(item, wide, moment) for item in items]
    return render(columns, rows, show_headers=headers)


def nodes_table(items: Sequence[dict[str, Any]], *, headers: bool = True) -> str:
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
    return render(NODE_COLUMNS, rows, show_headers=headers)


def check_table(document: dict[str, Any], *, headers: bool = True) -> str:
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
    rows = permission_rows(document.get("permissions") or [])
    if not rows:
        return head
    return head + "\n" + render(PERMISSION_COLUMNS, rows, show_headers=headers)


def _resource(permission: dict[str, Any]) -> str:
    """``deployments.apps``, ``pods``, ``deployments.apps/scale``: kubectl's resource names."""
    resource = cell(permission.get("resource"))
    group = permission.get("group")
    name = f"{resource}.{cell(group)}" if group else resource
    if permission.get("subresource"):
        name += "/" + cell(permission["subresource"])
    return name


def permission_rows(permissions: Sequence[dict[str, Any]]) -> list[list[str]]:
    """One row per resource, as ``kubectl auth can-i --list``: the verbs allowed, the verbs
    denied (or unknown: ``verb?``) and what the denied ones are needed for. Each denial's
    reason is in the document (``-o yaml``); NEEDED FOR names what the denied verbs block."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for permission in permissions:
        grouped.setdefault(_resource(permission), []).append(permission)
    rows = []
    for resource, found in grouped.items():
        allowed = [cell(p.get("verb")) for p in found if p.get("allowed") is True]
        denied = [
            cell(p.get("verb")) + ("" if p.get("allowed") is False else "?")
            for p in found
            if p.get("allowed") is not True
        ]
        needs: list[str] = []
        for p in found:
            if p.get("allowed") is not True:
                needs += [cell(n) for n in p.get("neededFor") or [] if cell(n) not in needs]
        rows.append(
            [
                resource,
                f"[{' '.join(allowed)}]",
                f"[{' '.join(denied)}]",
                ", ".join(needs) or NONE,
            ]
        )
    return rows


TABLE_COMMANDS = SNAPSHOT_COMMANDS | {"nodes", "check"}


def _items(command: str, document: Any) -> list[Any] | None:
    """The rows of a table or a name list; None when the document has no layout."""
    if not isinstance(document, dict) or "dryRun" in document:
        return None
    items = document.get("items") if command in ("list", "nodes") else [document]
    return items if isinstance(items, list) else None


def table(
    command: str,
    document: Any,
    *,
    wide: datetime | None = None,
    headers: bool = True,
    now: datetime | None = None,
) -> str | None:
    """``command``'s document as a table; None when it has no layout (print YAML instead).

    An empty list is the empty string: the caller says "No workloads found" on stderr, as
    kubectl does. ``wide``: ``-o wide``'s extra columns, ages counted to that moment.
    """
    if command not in TABLE_COMMANDS:
        return None
    if command == "check":
        return check_table(document, headers=headers) if isinstance(document, dict) else None
    items = _items(command, document)
    if items is None:
        return None
    if not items:
        return ""
    if command == "nodes":
        return nodes_table(items, headers=headers)
    return snapshots_table(items, wide=wide, headers=headers, now=now)


def names(command: str, document: Any) -> list[str]:
    """``-o name``: ``deployment.apps/NAME`` per workload (``node/NAME`` per node), as kubectl
    prints them; nothing for a workload that does not exist (missing, already deleted)."""
    items = _items(command, document) or []
    if command == "nodes":
        return [f"node/{cell(node.get('name'))}" for node in items]
    if command == "delete":
        found = [doc for doc in items if not doc.get("alreadyMissing")]
        return [f"deployment.apps/{cell(doc.get('providerId')).partition('/')[2]}" for doc in found]
    return [
        f"deployment.apps/{cell(item.get('name'))}"
        for item in items
        if item.get("status") != "missing"
    ]


def drifted(command: str, document: Any) -> list[str]:
    """The provider IDs of the drifted workloads a snapshot table shows."""
    if command not in SNAPSHOT_COMMANDS:
        return []
    return [
        cell(item.get("providerId"))
        for item in _items(command, document) or []
        if (item.get("drift") or {}).get("state") == "drifted"
    ]
