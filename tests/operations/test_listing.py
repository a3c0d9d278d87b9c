"""`list`: one kubectl call, documents that satisfy the Snapshot contract, no pydantic import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.contract.models import Snapshot
from kubectl_adapter.rules.snapshots import snapshot_document, snapshot_documents, split_kinds
from tests.k8s_objects import condition, deployment, kubectl_list, pod, replicaset

ROOT = Path(__file__).resolve().parents[2]


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


def _recreated_with_orphans() -> list[dict[str, Any]]:
    """web-4 deleted with --cascade=orphan and created again: the earlier ReplicaSet and its
    failing Pod keep the same names and labels; only their owner UIDs tell them apart."""
    earlier = deployment("web-4", container_id="4", uid="u4-earlier")
    earlier_rs = replicaset(earlier, "old4444444")
    earlier_rs["metadata"]["uid"] = "uid-rs-earlier-web-4"
    current = deployment(
        "web-4",
        container_id="4",
        uid="u4",
        available=None,
        conditions=[condition("Available", "False", "MinimumReplicasUnavailable")],
    )
    current_rs = replicaset(current, "new4444444")
    failing = ("ImagePullBackOff", 'Back-off pulling image "old"')
    return [
        current,
        earlier_rs,
        current_rs,
        pod(earlier_rs, "orphn", ready=False, ip=None, phase="Pending", waiting=failing),
        pod(current_rs, "fresh", ready=False, ip=None, phase="Pending"),
    ]


def test_orphaned_pods_of_an_earlier_deployment_never_decide() -> None:
    (document,) = snapshot_documents(*split_kinds(_recreated_with_orphans()))
    assert (document["status"], document["message"]) == (
        "creating",
        "0/1 available; pod(s) Pending",
    )


def test_list_and_status_build_the_same_document() -> None:
    """One selection and one set of rules: status, given everything its label read returns,
    says exactly what list says about the same Deployment."""
    deployments, replicasets, pods = split_kinds(_objects() + _recreated_with_orphans())
    listed = {d["providerId"]: d for d in snapshot_documents(deployments, replicasets, pods)}
    for dep in deployments:
        alone = snapshot_document(dep, replicasets, pods)
        assert alone == listed[alone["providerId"]]


def test_cli_list_prints_documents_without_importing_pydantic(tmp_path: Path) -> None:
    canned = tmp_path / "list.json"
    canned.write_text(kubectl_list(_objects()))
    stub = tmp_path / "kubectl"
    stub.write_text(f"#!/bin/sh\nexec cat '{canned}'\n")
    stub.chmod(0o755)
    probe = (
        "import sys; from kubectl_adapter.cli.app import main;"
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


# status --dry-run reads the Deployment for its selector: tests/operations/test_provider.py.
@pytest.mark.parametrize("command", [["list"], ["check"], ["nodes"]])
def test_dry_run_reads_run_nothing(
    command: list[str], capsys: pytest.CaptureFixture[str], fp: Any
) -> None:
    from kubectl_adapter.cli.app import main

    assert main(["--dry-run", "-n", "testns", *command]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["dryRun"] is True and plan["commands"]
    assert not fp.calls


# -- an empty answer: empty namespace or missing one ------------------------------------------

K = ["kubectl", "-n", "nons", "--request-timeout", "10s"]
LIST = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.managed=true",
]
NAMESPACE = [*K, "get", "namespace", "nons", "--ignore-not-found", "-o", "name"]
# What kubectl prints when the namespaces GET is refused (the fake API server's wording,
# which is the API server's).
NAMESPACE_FORBIDDEN = (
    'Error from server (Forbidden): namespaces "nons" is forbidden: User '
    '"system:serviceaccount:nons:sa" cannot get resource "namespaces" in API group "" in the '
    'namespace "nons"\n'
)


@pytest.fixture
def kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def _run_list(capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    from kubectl_adapter.cli.app import main

    code = main(["-n", "nons", "list"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.usefixtures("kubectl_on_path")
def test_list_of_a_missing_namespace_is_not_found(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fp.register([*LIST, "-o", "json", "--show-managed-fields", "-v=6"], stdout=kubectl_list([]))
    fp.register(NAMESPACE, stdout="")
    code, document = _run_list(capsys)
    assert code == 3
    assert document["error"]["type"] == "NotFound"
    assert document["error"]["message"] == "namespace nons does not exist"
    assert (
        "get namespace nons --ignore-not-found -o name" in document["error"]["details"]["command"]
    )
    assert len(fp.calls) == 2


@pytest.mark.usefixtures("kubectl_on_path")
def test_list_of_an_empty_namespace_is_empty(fp: Any, capsys: pytest.CaptureFixture[str]) -> None:
    fp.register([*LIST, "-o", "json", "--show-managed-fields", "-v=6"], stdout=kubectl_list([]))
    fp.register(NAMESPACE, stdout="namespace/nons\n")
    assert _run_list(capsys) == (0, {"items": []})
    assert len(fp.calls) == 2


@pytest.mark.usefixtures("kubectl_on_path")
def test_list_with_workloads_makes_no_namespace_call(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fp.register(
        [*LIST, "-o", "json", "--show-managed-fields", "-v=6"], stdout=kubectl_list(_objects())
    )
    code, document = _run_list(capsys)
    assert code == 0 and len(document["items"]) == 3
    assert len(fp.calls) == 1


@pytest.mark.usefixtures("kubectl_on_path")
def test_list_without_rbac_for_namespaces_stays_empty(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/rbac.md: without `get namespaces` an empty list cannot be told from a missing one.
    fp.register([*LIST, "-o", "json", "--show-managed-fields", "-v=6"], stdout=kubectl_list([]))
    fp.register(NAMESPACE, stderr=NAMESPACE_FORBIDDEN, returncode=1)
    assert _run_list(capsys) == (0, {"items": []})


@pytest.mark.usefixtures("kubectl_on_path")
def test_namespace_check_failing_otherwise_is_the_typed_error(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fp.register([*LIST, "-o", "json", "--show-managed-fields", "-v=6"], stdout=kubectl_list([]))
    fp.register(
        NAMESPACE,
        stderr="Unable to connect to the server: net/http: request canceled "
        "(Client.Timeout exceeded while awaiting headers)\n",
        returncode=1,
    )
    code, document = _run_list(capsys)
    # kubectl's own request timeout, nothing answered: the API's silence, typed as any call
    # meeting it first types it (issue 38)
    assert (code, document["error"]["type"]) == (7, "Timeout")
    assert document["error"]["details"]["reason"] == "no answer from the API server"


# -- querying like kubectl: -l, -A (issue 32) -------------------------------------------------

ALL = ["kubectl", "-n", "nons", "--request-timeout", "10s", "get", "deployments,replicasets,pods"]
LIST_ALL_FORBIDDEN = (
    "Error from server (Forbidden): deployments.apps is forbidden: User "
    '"system:serviceaccount:nons:opensource-server-manager" cannot list resource "deployments" '
    'in API group "apps" at the cluster scope\n'
)


@pytest.mark.usefixtures("kubectl_on_path")
def test_a_selector_narrows_manager_s_own_in_the_same_one_call(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    selector = "org.mieweb.opensource-server.managed=true,team=ops,tier in (a,b)"
    fp.register([*ALL, "-l", selector, "-o", "json", "--show-managed-fields", "-v=6"],
                stdout=kubectl_list(_objects()))  # fmt: skip
    from kubectl_adapter.cli.app import main

    assert main(["-n", "nons", "list", "-l", "team=ops,tier in (a,b)"]) == 0
    assert len(json.loads(capsys.readouterr().out)["items"]) == 3
    assert len(fp.calls) == 1


@pytest.mark.usefixtures("kubectl_on_path")
def test_all_namespaces_is_one_call_and_an_empty_answer_needs_no_namespace(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    every = [*ALL, "--all-namespaces", "-l", "org.mieweb.opensource-server.managed=true"]
    fp.register([*every, "-o", "json", "--show-managed-fields", "-v=6"], stdout=kubectl_list([]))
    from kubectl_adapter.cli.app import main

    assert main(["-n", "nons", "list", "-A"]) == 0
    assert json.loads(capsys.readouterr().out) == {"items": []}
    assert len(fp.calls) == 1  # no `get namespace`


@pytest.mark.usefixtures("kubectl_on_path")
def test_all_namespaces_refused_says_what_is_missing(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    fp.register([*ALL, "--all-namespaces", "-l", "org.mieweb.opensource-server.managed=true",
                 "-o", "json", "--show-managed-fields", "-v=6"],
                returncode=1, stderr=LIST_ALL_FORBIDDEN)  # fmt: skip
    from kubectl_adapter.cli.app import main

    assert main(["-n", "nons", "list", "-A"]) == 5
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["type"] == "Forbidden"
    assert error["message"].startswith(
        "list --all-namespaces needs list deployments (apps), list replicasets (apps), list "
        "pods at the cluster scope, which the namespaced Role does not grant (optional: "
        "rbac/clusterrole-list-all.yaml, docs/rbac.md): "
    )
    assert 'cannot list resource "deployments"' in error["message"]  # kubectl's own words
    assert error["details"]["missing"] == [
        "list deployments (apps)",
        "list replicasets (apps)",
        "list pods",
    ]


@pytest.mark.parametrize("selector", ["", "a=b,,c", "team in (ops", "!!x", "a b", "=x"])
def test_a_malformed_selector_is_refused_before_any_call(
    fp: Any, capsys: pytest.CaptureFixture[str], selector: str
) -> None:
    from kubectl_adapter.cli.app import main

    assert main(["-n", "nons", "list", "-l", selector]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["type"] == "InvalidInput" and error["details"]["field"] == "selector"
    assert not fp.calls
