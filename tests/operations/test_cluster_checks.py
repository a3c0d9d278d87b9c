"""check's pieces: the access reviews it sends and the stream kubectl create prints back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubectl_adapter.contract.errors import InternalError
from kubectl_adapter.contract.models import Capabilities, CheckResult
from kubectl_adapter.contract.permissions import CLUSTER_NEEDS, NAMESPACED_NEEDS
from kubectl_adapter.operations.cluster_checks import (
    access_reviews,
    check_exit_code,
    json_documents,
)


def test_one_review_per_permission_namespaced_or_cluster_wide() -> None:
    needs = [*NAMESPACED_NEEDS, *CLUSTER_NEEDS]
    reviews = access_reviews(needs, "testns")["items"]
    assert len(reviews) == len(needs)
    patch = next(r for r in reviews if r["spec"]["resourceAttributes"]["verb"] == "patch")
    assert patch["spec"]["resourceAttributes"] == {
        "namespace": "testns",
        "verb": "patch",
        "group": "apps",
        "resource": "deployments",
        "subresource": "",
    }
    nodes = reviews[-1]["spec"]["resourceAttributes"]
    assert (nodes["resource"], nodes["namespace"]) == ("nodes", "")


def test_stream_of_objects_and_lists_are_both_read() -> None:
    one = {"kind": "SelfSubjectAccessReview", "status": {"allowed": True}}
    two = {"kind": "SelfSubjectAccessReview", "status": {"allowed": False}}
    stream = json.dumps(one, indent=4) + "\n" + json.dumps(two, indent=4) + "\n"
    assert json_documents(stream) == [one, two]
    assert json_documents(json.dumps({"kind": "List", "items": [one, two]})) == [one, two]
    assert json_documents("  \n") == []


def test_garbage_is_an_internal_error() -> None:
    with pytest.raises(InternalError, match="not JSON"):
        json_documents('{"kind": "SelfSubjectAccessReview"}\nerror: oops')


def _result(**changes: Any) -> CheckResult:
    fields: dict[str, Any] = {
        "ok": True,
        "kubectl": "/usr/bin/kubectl",
        "client_version": "v1.32.4",
        "server_version": "v1.32.0",
        "context": None,
        "namespace": "testns",
        "namespace_exists": True,
        "permissions": [],
        "missing_permissions": [],
        "capabilities": Capabilities(),
    }
    return CheckResult(**(fields | changes))


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({}, 0),
        ({"ok": False, "namespace_exists": False}, 3),
        ({"ok": False, "namespace_exists": False, "missing_permissions": ["x"]}, 3),
        ({"ok": False, "missing_permissions": ["patch deployments/scale (apps)"]}, 5),
        ({"ok": False, "namespace_exists": None, "missing_permissions": ["get namespaces"]}, 5),
        ({"ok": False}, 1),  # fewer review answers than questions
    ],
)
def test_check_that_is_not_ok_never_exits_0(changes: dict[str, Any], code: int) -> None:
    assert check_exit_code(_result(**changes)) == code


# -- nodes: Ready and addresses (Manager's issue #460 asks for both) -------------------------


def _node(name: str, ready: str, addresses: list[dict[str, str]]) -> dict[str, Any]:
    """A Node as `kubectl get nodes -o json` prints it (fields trimmed to what is read)."""
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "addresses": addresses,
            "allocatable": {"cpu": "3800m", "memory": "7Gi", "pods": "110"},
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "conditions": [
                {
                    "type": "MemoryPressure",
                    "status": "False",
                    "reason": "KubeletHasSufficientMemory",
                },
                {"type": "Ready", "status": ready, "reason": "KubeletReady"},
            ],
            "nodeInfo": {"kubeletVersion": "v1.32.0"},
        },
    }


@pytest.mark.usefixtures("kubectl_on_path")
def test_nodes_answer_ready_and_the_first_internal_and_external_ip(
    fp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from kubectl_adapter.cli.app import main

    dual_stack = [
        {"type": "InternalIP", "address": "10.0.0.4"},
        {"type": "InternalIP", "address": "fd00::4"},
        {"type": "ExternalIP", "address": "203.0.113.9"},
        {"type": "Hostname", "address": "worker-1"},
    ]
    private = [
        {"type": "Hostname", "address": "kind-worker"},
        {"type": "InternalIP", "address": "172.18.0.3"},
    ]
    listing = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [_node("worker-1", "True", dual_stack), _node("kind-worker", "Unknown", private)],
        "metadata": {"resourceVersion": ""},
    }
    fp.register(
        ["kubectl", "-n", "testns", "--request-timeout", "10s", "get", "nodes", "-o", "json"],
        stdout=json.dumps(listing),
    )
    assert main(["-n", "testns", "nodes"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert [(n["name"], n["ready"], n["internalIp"], n["externalIp"]) for n in items] == [
        ("worker-1", True, "10.0.0.4", "203.0.113.9"),
        ("kind-worker", False, "172.18.0.3", None),
    ]
    assert len(fp.calls) == 1


@pytest.fixture
def kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)
