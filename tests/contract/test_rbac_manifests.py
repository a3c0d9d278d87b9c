"""rbac/ grants exactly what kubectl_adapter.contract.permissions says the adapter needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kubectl_adapter.contract.permissions import CLUSTER_NEEDS, NAMESPACED_NEEDS, Need

RBAC = Path(__file__).resolve().parents[2] / "rbac"


def _documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((RBAC / name).read_text()) if d]


def _grants(rules: list[dict[str, Any]]) -> set[tuple[str, str, str, str]]:
    granted = set()
    for rule in rules:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                base, _, sub = resource.partition("/")
                for verb in rule["verbs"]:
                    granted.add((verb, group, base, sub))
    return granted


def _needs(needs: tuple[Need, ...]) -> set[tuple[str, str, str, str]]:
    return {(n.verb, n.group, n.resource, n.subresource) for n in needs}


def test_role_grants_exactly_the_namespaced_needs() -> None:
    (role,) = _documents("role.yaml")
    assert role["kind"] == "Role"
    assert _grants(role["rules"]) == _needs(NAMESPACED_NEEDS)


def test_cluster_role_grants_exactly_node_discovery() -> None:
    cluster_role = next(
        d for d in _documents("clusterrole-nodes.yaml") if d["kind"] == "ClusterRole"
    )
    assert _grants(cluster_role["rules"]) == _needs(CLUSTER_NEEDS)


def test_no_wildcards_and_no_secrets() -> None:
    for path in RBAC.glob("*.yaml"):
        for document in _documents(path.name):
            for rule in document.get("rules", []):
                for key in ("apiGroups", "resources", "verbs"):
                    assert "*" not in rule[key], path
                assert "secrets" not in rule["resources"], path


def test_bindings_point_at_the_service_account() -> None:
    (sa,) = _documents("serviceaccount.yaml")
    (binding,) = _documents("rolebinding.yaml")
    (subject,) = binding["subjects"]
    assert (subject["name"], subject["namespace"]) == (
        sa["metadata"]["name"],
        sa["metadata"]["namespace"],
    )
    assert binding["roleRef"]["name"] == _documents("role.yaml")[0]["metadata"]["name"]
