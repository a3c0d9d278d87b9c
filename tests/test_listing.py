"""`list`: one kubectl call, documents that satisfy the Snapshot contract, no pydantic import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.models import Snapshot
from kubectl_adapter.snapshots import snapshot_documents, split_kinds

from .k8s_objects import condition, deployment, kubectl_list, pod, replicaset

ROOT = Path(__file__).resolve().parent.parent


def _objects() -> list[dict[str, Any]]:
    running = deployment("web-1", container_id="1", uid="u1")
    old_rs, new_rs = replicaset(running, "old1111111", 1), replicaset(running, "new2222222", 2)
    stopped = deployment("web-2", container_id="2", uid="u2", replicas=0, available=None)
    failing = deployment(
        "web-3",
        container_id="3",
        uid="u3",
        available=None,
        conditions=[condition("Available", "False", "MinimumReplicasUnavailable")],
    )
    failing_rs = replicaset(failing, "bad3333333")
    return [
        running,
        old_rs,
        new_rs,
        pod(old_rs, "aaaaa", ip="10.244.0.1", deleting=True),
        pod(new_rs, "bbbbb", ip="10.244.0.2"),
        stopped,
        failing,
        failing_rs,
        pod(
            failing_rs,
            "ccccc",
            ready=False,
            ip=None,
            phase="Pending",
            waiting=("ImagePullBackOff", 'Back-off pulling image "x"'),
        ),
    ]


def test_documents_satisfy_the_snapshot_contract() -> None:
    documents = snapshot_documents(*split_kinds(_objects()))
    for document in documents:
        assert Snapshot.model_validate(document).to_json() == document
    by_id = {d["providerId"]: d for d in documents}
    assert [d["providerId"] for d in documents] == ["testns/web-1", "testns/web-2", "testns/web-3"]
    assert by_id["testns/web-1"]["podIp"] == "10.244.0.2"
    assert by_id["testns/web-2"]["status"] == "offline"
    assert by_id["testns/web-3"]["status"] == "failed"
    assert "ImagePullBackOff" in by_id["testns/web-3"]["message"]


def test_pods_of_another_deployment_never_leak_in() -> None:
    a = deployment("a", container_id="1", uid="ua")
    b = deployment("b", container_id="2", uid="ub")
    rs_a, rs_b = replicaset(a, "aaaaaaaaaa"), replicaset(b, "bbbbbbbbbb")
    documents = snapshot_documents([a, b], [rs_a, rs_b], [pod(rs_b, ip="10.244.9.9")])
    assert [d["podIp"] for d in documents] == [None, "10.244.9.9"]


def test_cli_list_prints_documents_without_importing_pydantic(tmp_path: Path) -> None:
    canned = tmp_path / "list.json"
    canned.write_text(kubectl_list(_objects()))
    stub = tmp_path / "kubectl"
    stub.write_text(f"#!/bin/sh\nexec cat '{canned}'\n")
    stub.chmod(0o755)
    probe = (
        "import sys; from kubectl_adapter.cli import main;"
        f"code = main(['--kubectl', {str(stub)!r}, '-n', 'testns', 'list']);"
        "sys.stderr.write('pydantic' if 'pydantic' in sys.modules else 'clean');"
        "sys.exit(code)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.returncode == 0, result.stdout
    assert result.stderr == "clean"
    items = json.loads(result.stdout)["items"]
    assert items == snapshot_documents(*split_kinds(_objects()))


# status --dry-run reads the Deployment for its selector: tests/test_provider.py.
@pytest.mark.parametrize("command", [["list"], ["check"], ["nodes"]])
def test_dry_run_reads_run_nothing(
    command: list[str], capsys: pytest.CaptureFixture[str], fp: Any
) -> None:
    from kubectl_adapter.cli import main

    assert main(["--dry-run", "-n", "testns", *command]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["dryRun"] is True and plan["commands"]
    assert not fp.calls
