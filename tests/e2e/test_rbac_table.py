"""docs/rbac.md's table of what each permission's absence breaks is this proof's output.

For every verb of every rule of rbac/role.yaml, a Role without exactly that one permission
(in a namespace of its own), and under it each of Manager's operations on a workload in the
state it needs (made as admin): what the operation answers. The table is rendered from those
answers and must equal the one in docs/rbac.md between its markers; with
``KUBECTL_ADAPTER_WRITE_RBAC_TABLE=1`` the test writes it there instead (then commit the doc).

A write refused for a missing permission must have written nothing: every Forbidden of
create, start, stop and reconfigure here says ``writeSent: false``.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.conftest import Cluster, Result, spec
from tests.e2e.test_rbac import PERMISSIONS, Identity, Permission, identity, role_without, workload

DOC = Path(__file__).resolve().parents[2] / "docs" / "rbac.md"
BEGIN = "<!-- rbac-proof:begin (tests/e2e/test_rbac_table.py writes this table) -->"
END = "<!-- rbac-proof:end -->"
WRITE = "KUBECTL_ADAPTER_WRITE_RBAC_TABLE"
# Manager's operations, each on a workload in the state it needs.
OPERATIONS = {
    "create": "none",
    "status": "running",
    "list": "none",
    "network": "running",
    "start": "stopped",
    "stop": "running",
    "reconfigure": "running",
    "delete": "stopped",
}
WRITES = ("create", "start", "stop", "reconfigure", "delete")


def _run(me: Identity, operation: str) -> Result:
    name, cid = workload(me, OPERATIONS[operation])
    pid = f"{me.namespace}/{name}"
    if operation == "create":
        return me.adapter("create", "--spec", "-", stdin=spec(name, cid))
    if operation == "reconfigure":
        changed = spec(name, cid, env={"KEY": "changed"})
        return me.adapter("reconfigure", pid, "--spec", "-", stdin=changed)
    if operation == "list":
        return me.adapter("list")
    return me.adapter(operation, pid)


def _answer(operation: str, result: Result) -> str:
    """One cell: what the operation answered under the Role."""
    if result.code == 0:
        status = result.doc.get("status") if isinstance(result.doc, dict) else None
        return f"`{status}`" if operation == "status" and status != "running" else "ok"
    error = result.doc["error"]
    if operation in WRITES and error["type"] == "Forbidden" and operation != "delete":
        assert error["details"].get("writeSent") is not True, (operation, error)
    return f"{error['type']} ({result.code})"


def _row(me: Identity, permission: Permission) -> tuple[Permission, list[str]]:
    return permission, [_answer(op, _run(me, op)) for op in OPERATIONS]


def render(rows: list[tuple[Permission, list[str]]]) -> str:
    head = "| permission removed | " + " | ".join(OPERATIONS) + " |"
    rule = "|---" * (len(OPERATIONS) + 1) + "|"
    body = [f"| {p.text} | " + " | ".join(cells) + " |" for p, cells in rows]
    return "\n".join([head, rule, *body])


def test_the_doc_table_is_what_the_proof_measures(cluster: Cluster) -> None:
    cluster.require_fake()
    identities = []
    for index, permission in enumerate(PERMISSIONS):  # the kubeconfig: one writer at a time
        me = identity(cluster, f"rbac-table-{index}")
        me.apply_rbac(role_without(permission, me.namespace))
        identities.append(me)
    with ThreadPoolExecutor(max_workers=4) as pool:
        rows = list(pool.map(_row, identities, PERMISSIONS))
    table = render(rows) + "\n"
    page = DOC.read_text()
    found = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), page, re.S)
    assert found is not None, f"docs/rbac.md has no {BEGIN} ... {END} section"
    if os.environ.get(WRITE):
        DOC.write_text(page[: found.start(1)] + table + page[found.end(1) :])
        pytest.skip(f"{WRITE}: docs/rbac.md written")
    assert found.group(1) == table, (
        f"docs/rbac.md differs from the proof run; run it with {WRITE}=1 to write it:\n{table}"
    )
