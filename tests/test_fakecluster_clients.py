"""The fake API server serves objects real clients accept, and takes what kubectl's typed
clients send.

Every object it serves is checked against Kubernetes 1.32's OpenAPI schemas (the strict JSON
Schema form shipped by ``kubernetes-validate``, a test dependency): the fields a schema
requires are the ones the official clients refuse to go without (the Python client's
``list_node()`` failed on a Node without ``nodeInfo.bootID``). kubectl's typed clients POST
protobuf: ``create namespace``, ``create serviceaccount``, ``create secret`` and
``create token`` must work, and the token must authenticate as the ServiceAccount.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from tests.fakecluster import FakeCluster

KUBERNETES_VERSION = "1.32.0"
KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
LABELS = {
    "org.mieweb.opensource-server.managed": "true",
    "org.mieweb.opensource-server.container-id": "42",
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web-1", "namespace": "default", "labels": LABELS},
    "spec": {
        "selector": {"matchLabels": LABELS},
        "template": {
            "metadata": {"labels": LABELS},
            "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
        },
    },
}
SERVED = [
    ("v1", "Namespace", "namespaces"),
    ("v1", "Node", "nodes"),
    ("v1", "Pod", "pods"),
    ("v1", "Event", "events"),
    ("v1", "ServiceAccount", "serviceaccounts"),
    ("v1", "Secret", "secrets"),
    ("apps/v1", "Deployment", "deployments"),
    ("apps/v1", "ReplicaSet", "replicasets"),
]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[FakeCluster]:
    with FakeCluster(tmp_path, pod_ready_delay=0.1, termination_delay=0.1) as fc:
        yield fc


def kubectl(
    fc: FakeCluster, tmp: Path, *args: str, stdin: str | None = None, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    who = ["--token", token] if token else []
    connection = ["--kubeconfig", str(fc.kubeconfig), "--cache-dir", str(tmp / "cache"), *who]
    return subprocess.run(
        [KUBECTL, *connection, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def served(fc: FakeCluster, tmp: Path, resource: str) -> list[dict[str, Any]]:
    """The objects as kubectl receives them (``get -o json`` of the list)."""
    return list(json.loads(ok(kubectl(fc, tmp, "get", resource, "-A", "-o", "json")))["items"])


def test_every_served_object_has_what_the_openapi_schema_requires(
    cluster: FakeCluster, tmp_path: Path
) -> None:
    ok(kubectl(cluster, tmp_path, "apply", "-f", "-", stdin=json.dumps(DEPLOYMENT)))
    ok(kubectl(cluster, tmp_path, "rollout", "status", "deployment/web-1", "--timeout=30s"))
    ok(kubectl(cluster, tmp_path, "create", "serviceaccount", "robot"))
    ok(kubectl(cluster, tmp_path, "create", "secret", "generic", "s", "--from-literal=k=v"))
    checked: set[str] = set()
    for api_version, kind, resource in SERVED:
        for item in served(cluster, tmp_path, resource):
            document = {"apiVersion": api_version, "kind": kind, **item}
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
            checked.add(kind)
    assert checked == {kind for _, kind, _ in SERVED}  # each kind had at least one object


def test_the_schema_check_catches_a_node_without_its_system_info(
    cluster: FakeCluster, tmp_path: Path
) -> None:
    node = {"apiVersion": "v1", "kind": "Node", **served(cluster, tmp_path, "nodes")[0]}
    del node["status"]["nodeInfo"]["bootID"]
    with pytest.raises(kubernetes_validate.ValidationError, match="bootID"):
        kubernetes_validate.validate(node, KUBERNETES_VERSION, strict=True)


def test_kubectl_create_namespace_serviceaccount_and_secret(
    cluster: FakeCluster, tmp_path: Path
) -> None:
    assert ok(kubectl(cluster, tmp_path, "create", "namespace", "team-a")) == (
        "namespace/team-a created\n"
    )
    assert cluster.get("namespaces", None, "team-a") is not None
    ok(kubectl(cluster, tmp_path, "-n", "team-a", "create", "serviceaccount", "robot"))
    ok(
        kubectl(
            cluster,
            tmp_path,
            "-n",
            "team-a",
            "create",
            "secret",
            "generic",
            "s",
            "--from-literal=k=v",
        )
    )
    secret = cluster.get("secrets", "team-a", "s")
    assert secret is not None and base64.b64decode(secret["data"]["k"]) == b"v"
    again = kubectl(cluster, tmp_path, "create", "namespace", "team-a")
    assert again.returncode == 1
    assert 'namespaces "team-a" already exists' in again.stderr


def test_kubectl_create_token_authenticates_as_the_service_account(
    cluster: FakeCluster, tmp_path: Path
) -> None:
    ok(kubectl(cluster, tmp_path, "create", "serviceaccount", "robot"))
    token = ok(kubectl(cluster, tmp_path, "create", "token", "robot", "--duration", "8760h"))
    token = token.strip()
    assert token.startswith("eyJ")  # JWT-shaped, like a real ServiceAccount token
    whoami = kubectl(cluster, tmp_path, "auth", "can-i", "list", "pods", token=token)
    # Authenticated (no Unauthorized) and, with no Role bound, refused.
    assert whoami.stdout.strip() == "no", whoami.stderr
    cluster.load_rbac(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "robot-view", "namespace": "default"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}],
        }
    )
    cluster.load_rbac(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "view", "namespace": "default"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}],
        }
    )
    allowed = kubectl(cluster, tmp_path, "auth", "can-i", "list", "pods", token=token)
    assert allowed.stdout.strip() == "yes", allowed.stderr
    missing = kubectl(cluster, tmp_path, "create", "token", "nobody")
    assert missing.returncode == 1
    assert 'serviceaccounts "nobody" not found' in missing.stderr
