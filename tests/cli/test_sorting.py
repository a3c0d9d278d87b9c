"""``--sort-by``: a column of the table (or a JSON path) orders the items, numbers as numbers,
absent values first (as kubectl); an unknown column is refused with the columns named."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.cli.sorting import check_sort_by, sort_items
from kubectl_adapter.contract.errors import InvalidInput


def _item(pid: str, **fields: Any) -> dict[str, Any]:
    return {"providerId": pid, "name": pid.split("/")[1], **fields}


ITEMS = [
    _item("ns/a", status="running", cpus=1.0, memoryMb=1024, readyReplicas=1, replicas=1,
          createdAt="2026-12-01T10:00:00Z", podIp="10.244.0.10", node="7"),
    _item("ns/b", status="offline", cpus=0.25, memoryMb=128, readyReplicas=0, replicas=0,
          createdAt="2026-12-01T09:00:00Z", podIp=None, node="10"),
    _item("ns/c", status="failed", cpus=None, memoryMb=64, readyReplicas=0, replicas=1,
          createdAt="2026-12-01T11:00:00Z", podIp="10.244.0.9", node="9"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("column", "order"),
    [
        ("STATUS", ["ns/c", "ns/b", "ns/a"]),
        ("status", ["ns/c", "ns/b", "ns/a"]),
        ("cpus", ["ns/c", "ns/b", "ns/a"]),  # numbers; the absent one first, as kubectl
        ("MEMORY", ["ns/c", "ns/b", "ns/a"]),  # 64 < 128 < 1024, not as text
        ("ready", ["ns/b", "ns/c", "ns/a"]),  # ready, then desired
        ("AGE", ["ns/b", "ns/a", "ns/c"]),  # oldest first
        ("pod-ip", ["ns/b", "ns/c", "ns/a"]),  # by its parts: .9 before .10
        ("POD IP", ["ns/b", "ns/c", "ns/a"]),
        ("node_id", ["ns/a", "ns/c", "ns/b"]),  # "7" < "9" < "10": naturally
        (".createdAt", ["ns/b", "ns/a", "ns/c"]),
        ("{.memoryMb}", ["ns/c", "ns/b", "ns/a"]),
        ("provider id", ["ns/a", "ns/b", "ns/c"]),
    ],
)
def test_a_column_orders_the_items(column: str, order: list[str]) -> None:
    key = check_sort_by("list", column)
    assert key is not None
    document = sort_items({"items": [dict(item) for item in ITEMS]}, key)
    assert [item["providerId"] for item in document["items"]] == order


def test_nodes_sort_by_their_own_columns() -> None:
    nodes = [
        {"name": "n1", "ready": True, "allocatable": {"memory": "16Gi"}},
        {"name": "n2", "ready": False, "allocatable": {"memory": "8Gi"}},
    ]
    key = check_sort_by("nodes", "memory")
    assert key is not None
    assert [n["name"] for n in sort_items({"items": nodes}, key)["items"]] == ["n2", "n1"]


def test_an_unknown_column_names_the_columns_and_the_close_one() -> None:
    with pytest.raises(InvalidInput) as caught:
        check_sort_by("list", "stauts")
    assert "is not a column of list's table: name, provider-id, status," in caught.value.message
    assert caught.value.details["suggestions"] == ["status"]
    with pytest.raises(InvalidInput, match="applies to the tables of list and nodes"):
        check_sort_by("status", "status")
    assert check_sort_by("list", None) is None
