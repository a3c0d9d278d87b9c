"""``-o table``: the layouts, column by column, read from the JSON documents."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_adapter.cli.tables import (
    check_table,
    drift_cell,
    names,
    nodes_table,
    snapshots_table,
    table,
)


def snapshot(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "providerId": "manager/web-1",
        "vmid": "manager/web-1",
        "name": "web-1",
        "namespace": "manager",
        "node": "7",
        "containerId": "42",
        "status": "running",
        "message": "1 of 1 replicas available",
        "podIp": "10.244.0.7",
        "ipv4Address": "10.244.0.7",
        "macAddress": None,
        "ephemeral": True,
        "image": "nginx:latest",
        "cpus": 0.5,
        "memoryMb": 512,
        "replicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "updatedReplicas": 1,
        "generation": 2,
        "observedGeneration": 2,
        "drift": {"state": "in-sync", "changes": [], "summary": "", "restored": []},
        "podNode": "kind-worker",
        "createdAt": "2026-12-01T20:00:00Z",
    }
    return base | changes


NODE = {
    "name": "kind-control-plane",
    "ready": True,
    "capacity": {"cpu": "8", "memory": "16318460Ki", "pods": "110"},
    "allocatable": {"cpu": "7800m", "memory": "15000000Ki", "pods": "110"},
    "kubeletVersion": "v1.32.0",
}


NOW = datetime(2026, 12, 1, 20, 5, 10, tzinfo=UTC)


def test_snapshots_are_one_aligned_row_each() -> None:
    stopped = snapshot(
        providerId="manager/db",
        status="offline",
        message="stopped (0 replicas)",
        podIp=None,
        cpus=2.0,
        memoryMb=2048,
        replicas=0,
        readyReplicas=0,
        containerId="1234",
    )
    # kubectl get's order: NAME, STATUS, READY, AGE; Manager's IDs and limits are -o wide's
    assert snapshots_table([snapshot(), stopped], now=NOW) == (
        "NAME            STATUS    READY   AGE     DRIFT     MESSAGE\n"
        "manager/web-1   running   1/1     5m10s   in-sync   1 of 1 replicas available\n"
        "manager/db      offline   0/0     5m10s   in-sync   stopped (0 replicas)\n"
    )


def test_unknown_values_are_none_and_a_cell_never_breaks_the_line() -> None:
    unknown = snapshot(
        status="unknown",
        message="Unavailable: connection refused\nretry\tlater",
        image=None,
        cpus=None,
        memoryMb=None,
        node=None,
        containerId=None,
        podIp=None,
        drift={"state": "unknown", "changes": [], "summary": "", "restored": []},
    )
    lines = snapshots_table([unknown], wide=NOW).splitlines()
    assert len(lines) == 2
    cells = lines[1].split()
    assert cells[:12] == [
        "manager/web-1",
        "unknown",
        "1/1",
        "5m10s",
        "unknown",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
        "kind-worker",
        "<none>",
    ]
    # a line break or tab in a value is shown escaped, on the row's one line
    assert lines[1].endswith("Unavailable: connection refused\\nretry\\tlater")


def test_no_line_ends_in_spaces() -> None:
    text = snapshots_table([snapshot(message=""), snapshot(providerId="manager/a-much-longer")])
    assert all(line == line.rstrip() for line in text.splitlines())
    assert text.splitlines()[1].endswith("<none>")


def test_nodes_show_allocatable_resources() -> None:
    not_ready = NODE | {"name": "worker", "ready": False, "kubeletVersion": None}
    assert nodes_table([NODE, not_ready]) == (
        "NAME                 STATUS     VERSION   CPU     MEMORY       PODS\n"
        "kind-control-plane   Ready      v1.32.0   7800m   15000000Ki   110\n"
        "worker               NotReady   <none>    7800m   15000000Ki   110\n"
    )


CHECK = {
    "ok": False,
    "kubectl": "/usr/bin/kubectl",
    "clientVersion": "v1.32.4",
    "serverVersion": "v1.32.0",
    "context": "kind-kind",
    "namespace": "manager",
    "namespaceExists": True,
    "permissions": [
        {
            "verb": "get",
            "group": "apps",
            "resource": "deployments",
            "subresource": "",
            "allowed": True,
            "reason": None,
            "neededFor": ["status", "list"],
        },
        {
            "verb": "patch",
            "group": "apps",
            "resource": "deployments",
            "subresource": "scale",
            "allowed": False,
            "reason": "RBAC: no rule",
            "neededFor": ["start", "stop"],
        },
        {
            "verb": "list",
            "group": "",
            "resource": "nodes",
            "subresource": "",
            "allowed": None,
            "reason": None,
            "neededFor": [],
        },
    ],
    "missingPermissions": ["patch deployments/scale (apps)"],
    "capabilities": {},
}


def test_check_describes_then_lists_every_permission() -> None:
    assert check_table(CHECK) == (
        "OK:              false\n"
        "Kubectl:         /usr/bin/kubectl\n"
        "Client version:  v1.32.4\n"
        "Server version:  v1.32.0\n"
        "Context:         kind-kind\n"
        "Namespace:       manager (exists)\n"
        "Missing:         patch deployments/scale (apps)\n"
        "\n"
        # as kubectl auth can-i --list: a resource a row; a denial's reason is in -o yaml
        "RESOURCES                VERBS   DENIED    NEEDED FOR\n"
        "deployments.apps         [get]   []        <none>\n"
        "deployments.apps/scale   []      [patch]   start, stop\n"
        "nodes                    []      [list?]   <none>\n"
    )


def test_check_of_a_missing_namespace() -> None:
    text = check_table(CHECK | {"namespaceExists": None, "permissions": [], "ok": False})
    assert "Namespace:       manager (unknown)\n" in text
    assert "RESOURCES" not in text


@pytest.mark.parametrize(
    ("command", "document", "expected"),
    [
        ("list", {"items": [snapshot()]}, snapshots_table([snapshot()])),
        ("list", {"items": []}, ""),
        ("status", snapshot(), snapshots_table([snapshot()])),
        ("start", snapshot(), snapshots_table([snapshot()])),
        ("create", snapshot(), snapshots_table([snapshot()])),
        ("reconfigure", snapshot(), snapshots_table([snapshot()])),
        ("stop", snapshot(status="offline"), snapshots_table([snapshot(status="offline")])),
        ("nodes", {"items": [NODE]}, nodes_table([NODE])),
        ("nodes", {"items": []}, ""),
        ("check", CHECK, check_table(CHECK)),
        ("delete", {"providerId": "a/b", "deleted": True, "alreadyMissing": False}, None),
        ("network", {"providerId": "a/b", "podIp": None}, None),
        ("capabilities", {"vmid": False}, None),
        ("status", {"dryRun": True, "commands": ["kubectl get"]}, None),
        ("list", {"dryRun": True, "commands": ["kubectl get"]}, None),
    ],
)
def test_which_commands_have_a_table(command: str, document: Any, expected: str | None) -> None:
    if expected and command not in ("nodes", "check"):
        expected = snapshots_table(document.get("items", [document]), now=NOW)
    assert table(command, document, now=NOW) == expected


# -- drift, -o wide, -o name, --no-headers ------------------------------------------------

DRIFTED = {
    "state": "drifted",
    "changes": [
        {"what": "image", "change": "changed", "by": ["kubectl-set"], "reconfigure": "restores"},
        {"what": "env", "change": "added", "name": "A", "by": ["kubectl-set"]},
        {"what": "env", "change": "added", "name": "B", "by": ["kubectl-set"]},
    ],
    "summary": "image changed to nginx:1.27 by kubectl-set; env A added by kubectl-set",
    "restored": [],
}


@pytest.mark.parametrize(
    ("drift", "shown"),
    [
        (DRIFTED, "image,env"),
        ({"state": "in-sync", "changes": []}, "in-sync"),
        ({"state": "unknown", "changes": []}, "unknown"),
        (None, "unknown"),
    ],
)
def test_the_drift_column_says_what_drifted(drift: Any, shown: str) -> None:
    assert drift_cell(drift) == shown
    row = snapshots_table([snapshot(drift=drift)], now=NOW).splitlines()[1].split()
    assert row[4] == shown


def test_wide_adds_kubectls_columns_before_the_message() -> None:
    now = datetime(2026, 12, 1, 20, 5, 10, tzinfo=UTC)
    failing = snapshot(
        providerId="manager/crash",
        status="failed",
        podIp=None,
        message="CrashLoopBackOff",
        createdAt="2026-11-28T20:00:00Z",
    )
    assert snapshots_table([snapshot(), failing], wide=now) == (
        "NAME            STATUS    READY   AGE     DRIFT     CPUS   MEMORY   CONTAINER ID   "
        "NODE ID   POD IP       NODE          IMAGE          MESSAGE\n"
        "manager/web-1   running   1/1     5m10s   in-sync   0.5    512Mi    42             "
        "7         10.244.0.7   kind-worker   nginx:latest   1 of 1 replicas available\n"
        "manager/crash   failed    1/1     3d      in-sync   0.5    512Mi    42             "
        "7         <none>       kind-worker   nginx:latest   CrashLoopBackOff\n"
    )
    assert table("status", snapshot(), wide=now) == snapshots_table([snapshot()], wide=now)


def test_no_headers_drops_the_header_line_and_its_width() -> None:
    assert snapshots_table([snapshot()], headers=False, now=NOW) == (
        "manager/web-1   running   1/1   5m10s   in-sync   1 of 1 replicas available\n"
    )
    assert table("nodes", {"items": [NODE]}, headers=False) == (
        "kind-control-plane   Ready   v1.32.0   7800m   15000000Ki   110\n"
    )
    assert "VERB" not in (table("check", CHECK, headers=False) or "")


@pytest.mark.parametrize(
    ("command", "document", "expected"),
    [
        ("list", {"items": [snapshot(), snapshot(name="db")]}, ["web-1", "db"]),
        ("list", {"items": []}, []),
        ("status", snapshot(), ["web-1"]),
        ("status", snapshot(status="unknown"), ["web-1"]),
        ("status", snapshot(status="missing"), []),
        ("stop", snapshot(status="offline"), ["web-1"]),
        (
            "delete",
            {"providerId": "manager/web-1", "deleted": True, "alreadyMissing": False},
            ["web-1"],
        ),
        ("delete", {"providerId": "manager/web-1", "deleted": False, "alreadyMissing": True}, []),
    ],
)
def test_names_are_kubectls(command: str, document: Any, expected: list[str]) -> None:
    assert names(command, document) == [f"deployment.apps/{name}" for name in expected]


def test_node_names_are_kubectls() -> None:
    assert names("nodes", {"items": [NODE]}) == ["node/kind-control-plane"]
