"""``list -w`` on stdout (``cli.watching``): the first list held until complete and printed
sorted, a table row only when a row changes, one WatchEvent JSON line per change."""

from __future__ import annotations

import io
import json
from typing import Any

from kubectl_adapter.cli.sorting import check_sort_by
from kubectl_adapter.cli.watching import WatchView


def _snap(name: str, status: str = "running", **fields: Any) -> dict[str, Any]:
    return {"providerId": f"ns/{name}", "name": name, "status": status, "readyReplicas": 1,
            "replicas": 1, "drift": {"state": "in-sync"}, "cpus": 1, "memoryMb": 1024,
            "containerId": name, "node": "7", "message": "1/1 available", **fields}  # fmt: skip


def test_json_lines_one_document_each_after_the_first_list() -> None:
    out, err = io.StringIO(), io.StringIO()
    view = WatchView("json", out, err)
    view("ADDED", _snap("web-2"))
    view("ADDED", _snap("web-1"))
    assert out.getvalue() == ""  # held until the list is complete
    view("SYNCED", None)
    view("MODIFIED", _snap("web-1", "offline"))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(e["type"], (e["snapshot"] or {}).get("name")) for e in lines] == [
        ("ADDED", "web-1"),
        ("ADDED", "web-2"),
        ("SYNCED", None),
        ("MODIFIED", "web-1"),
    ]


def test_a_table_row_only_when_a_cell_changes_columns_fitted_to_the_first_list() -> None:
    out, err = io.StringIO(), io.StringIO()
    view = WatchView("table", out, err, order=check_sort_by("list", "status"))
    view("ADDED", _snap("web-1"))
    view("ADDED", _snap("a-much-longer-name", "offline"))
    view("SYNCED", None)
    view("MODIFIED", _snap("web-1", generation=3))  # no cell changes
    view("MODIFIED", _snap("web-1", "offline", message="stopped (replicas 0)"))
    view("SYNCED", None)  # nothing on a terminal
    view("DELETED", _snap("web-1", "missing", message="deployment does not exist"))
    header, first, second, *changes = out.getvalue().splitlines()
    assert header.startswith("NAME ") and "   STATUS   " in header
    assert [first.split()[1], second.split()[1]] == ["offline", "running"]  # --sort-by status
    assert [line.split()[:2] for line in changes] == [
        ["ns/web-1", "offline"],
        ["ns/web-1", "missing"],
    ]
    assert changes[0].index("offline") == header.index("STATUS")  # the first list's columns
    assert err.getvalue() == ""


def test_an_empty_first_list_says_so_on_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    view = WatchView("table", out, err, headers=False)
    view("SYNCED", None)
    assert out.getvalue() == "" and "No Manager workloads found" in err.getvalue()
    view("ADDED", _snap("web-1"))
    assert out.getvalue().split()[0] == "ns/web-1"
