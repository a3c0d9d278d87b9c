"""``check`` and ``nodes``: is this node usable, and what is the cluster made of.

``check`` asks everything in three kubectl calls: ``version`` (client and server), the
namespace, and one ``create`` of a SelfSubjectAccessReview per permission the adapter needs
(``kubectl auth can-i`` speaks protobuf and prints only yes/no, one permission per process).
"""

from __future__ import annotations

import json
from typing import Any

from ..contract.errors import ConfigurationError, Forbidden, InternalError, NotFound
from ..contract.kubectl_support import kubectl_problems, release, supported_range
from ..contract.models import Capabilities, CheckResult, NodeInfo, Permission
from ..contract.permissions import CLUSTER_NEEDS, NAMESPACED_NEEDS, Need
from ..kubectl import commands
from ..kubectl.runner import KubectlRunner
from ..kubectl.shapes import object_problem


def access_reviews(needs: list[Need], namespace: str) -> dict[str, Any]:
    """One SelfSubjectAccessReview per permission, as a List for ``kubectl create -f -``."""
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "spec": {
                    "resourceAttributes": {
                        "namespace": "" if need in CLUSTER_NEEDS else namespace,
                        "verb": need.verb,
                        "group": need.group,
                        "resource": need.resource,
                        "subresource": need.subresource,
                    }
                },
            }
            for need in needs
        ],
    }


def access_review_document(namespace: str) -> str:
    """What ``check`` feeds ``kubectl create -f -``: every permission the adapter needs."""
    return json.dumps(access_reviews([*NAMESPACED_NEEDS, *CLUSTER_NEEDS], namespace), indent=1)


def check_cluster(runner: KubectlRunner, namespace: str, context: str | None) -> CheckResult:
    """kubectl and API reachable, namespace present, and every permission, one by one."""
    version = runner.run_json(["version", "-o", "json"]) or {}
    exists: bool | None
    try:
        exists = (
            runner.run_json(["get", "namespace", namespace, "--ignore-not-found", "-o", "json"])
            is not None
        )
    except Forbidden:
        exists = None
    needs = [*NAMESPACED_NEEDS, *CLUSTER_NEEDS]
    answer = runner.run(commands.access_reviews(), stdin=access_review_document(namespace))
    items = json_documents(answer.stdout)
    permissions = []
    for need, item in zip(needs, items, strict=False):
        status = item.get("status") or {}
        permissions.append(
            Permission(
                verb=need.verb,
                group=need.group,
                resource=need.resource,
                subresource=need.subresource,
                allowed=bool(status.get("allowed")),
                reason=status.get("reason") or status.get("evaluationError"),
                needed_for=list(need.needed_for),
            )
        )
    missing = [
        need.label
        for need, perm in zip(needs, permissions, strict=False)
        if not perm.allowed and need not in CLUSTER_NEEDS
    ]
    client = (version.get("clientVersion") or {}).get("gitVersion")
    server = (version.get("serverVersion") or {}).get("gitVersion")
    problems = kubectl_problems(version.get("clientVersion"), version.get("serverVersion"))
    return CheckResult(
        ok=bool(exists) and not missing and len(permissions) == len(needs) and not problems,
        kubectl=runner.binary,
        client_version=client,
        server_version=server,
        context=context,
        namespace=namespace,
        namespace_exists=exists,
        permissions=permissions,
        missing_permissions=missing,
        capabilities=Capabilities(),
        supported_kubectl=supported_range(release(version.get("serverVersion"))),
        kubectl_problems=problems,
    )


def check_exit_code(result: CheckResult) -> int:
    """``ok:false`` must not exit 0: the exit code of the first failed check.

    A kubectl the adapter cannot use (too old, or outside the skew policy) is
    ConfigurationError (9); a missing namespace is NotFound (3); a permission RBAC denies (or a
    namespace it will not let us read) is Forbidden (5); answers missing from the reviews are
    InternalError (1).
    """
    if result.ok:
        return 0
    if result.kubectl_problems:
        return ConfigurationError.exit_code
    if result.namespace_exists is False:
        return NotFound.exit_code
    if result.namespace_exists is None or result.missing_permissions:
        return Forbidden.exit_code
    return InternalError.exit_code


def list_nodes(runner: KubectlRunner) -> list[NodeInfo]:
    data = runner.run_json(["get", "nodes", "-o", "json"]) or {}
    result = []
    for node in data.get("items") or []:
        status = node.get("status", {})
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in status.get("conditions") or []
        )
        result.append(
            NodeInfo(
                name=node.get("metadata", {}).get("name", ""),
                ready=ready,
                capacity={k: str(v) for k, v in (status.get("capacity") or {}).items()},
                allocatable={k: str(v) for k, v in (status.get("allocatable") or {}).items()},
                kubelet_version=(status.get("nodeInfo") or {}).get("kubeletVersion"),
                internal_ip=_first_address(status, "InternalIP"),
                external_ip=_first_address(status, "ExternalIP"),
            )
        )
    return result


def _first_address(status: dict[str, Any], kind: str) -> str | None:
    """The node's first address of ``kind`` (a dual-stack node lists one per family)."""
    for address in status.get("addresses") or []:
        if address.get("type") == kind and address.get("address"):
            return str(address["address"])
    return None


def json_documents(text: str) -> list[dict[str, Any]]:
    """kubectl ``create -f - -o json`` of a List prints one JSON object per item, back to back
    (not a List); a single List is unpacked too."""
    decoder = json.JSONDecoder()
    documents: list[dict[str, Any]] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            break
        try:
            document, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise InternalError(f"kubectl create printed output that is not JSON: {exc}") from None
        if isinstance(document, dict) and document.get("kind") == "List":
            found = document.get("items") or []
        else:
            found = [document]
        for item in found if isinstance(found, list) else [found]:
            problem = object_problem(item, "SelfSubjectAccessReview")
            if problem is not None:
                raise InternalError(
                    f"kubectl create printed a review the adapter cannot read: it{problem}"
                )
            documents.append(item)
    return documents
