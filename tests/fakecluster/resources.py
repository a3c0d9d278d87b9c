"""Static table of the API resources the fake serves, and discovery documents built from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
AGGREGATED_CT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


@dataclass(frozen=True)
class Subresource:
    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...] = ("get", "patch", "update")


@dataclass(frozen=True)
class ResourceInfo:
    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    singular: str
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[Subresource, ...] = field(default_factory=tuple)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """`deployments.apps` / `pods`: the form used in Status messages."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


_SCALE = Subresource("scale", "autoscaling", "v1", "Scale")
_CREATE_ONLY = ("create",)

RESOURCES: tuple[ResourceInfo, ...] = (
    ResourceInfo(
        "",
        "v1",
        "pods",
        "Pod",
        True,
        "pod",
        ("po",),
        ("all",),
        subresources=(Subresource("status", "", "v1", "Pod"),),
    ),
    ResourceInfo("", "v1", "events", "Event", True, "event", ("ev",)),
    ResourceInfo(
        "",
        "v1",
        "namespaces",
        "Namespace",
        False,
        "namespace",
        ("ns",),
        verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
        subresources=(Subresource("status", "", "v1", "Namespace"),),
    ),
    ResourceInfo(
        "",
        "v1",
        "serviceaccounts",
        "ServiceAccount",
        True,
        "serviceaccount",
        ("sa",),
        subresources=(
            Subresource("token", "authentication.k8s.io", "v1", "TokenRequest", ("create",)),
        ),
    ),
    ResourceInfo("", "v1", "secrets", "Secret", True, "secret"),
    ResourceInfo(
        "",
        "v1",
        "nodes",
        "Node",
        False,
        "node",
        ("no",),
        subresources=(Subresource("status", "", "v1", "Node"),),
    ),
    ResourceInfo(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        True,
        "deployment",
        ("deploy",),
        ("all",),
        subresources=(_SCALE, Subresource("status", "apps", "v1", "Deployment")),
    ),
    ResourceInfo(
        "apps",
        "v1",
        "replicasets",
        "ReplicaSet",
        True,
        "replicaset",
        ("rs",),
        ("all",),
        subresources=(_SCALE, Subresource("status", "apps", "v1", "ReplicaSet")),
    ),
    ResourceInfo(
        "authorization.k8s.io",
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        False,
        "selfsubjectaccessreview",
        verbs=_CREATE_ONLY,
    ),
    ResourceInfo(
        "authorization.k8s.io",
        "v1",
        "selfsubjectrulesreviews",
        "SelfSubjectRulesReview",
        False,
        "selfsubjectrulesreview",
        verbs=_CREATE_ONLY,
    ),
    ResourceInfo("rbac.authorization.k8s.io", "v1", "roles", "Role", True, "role"),
    ResourceInfo(
        "rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", True, "rolebinding"
    ),
    ResourceInfo(
        "rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", False, "clusterrole"
    ),
    ResourceInfo(
        "rbac.authorization.k8s.io",
        "v1",
        "clusterrolebindings",
        "ClusterRoleBinding",
        False,
        "clusterrolebinding",
    ),
)

BY_GVR: dict[tuple[str, str, str], ResourceInfo] = {
    (r.group, r.version, r.resource): r for r in RESOURCES
}
BY_KIND: dict[tuple[str, str], ResourceInfo] = {(r.group_version, r.kind): r for r in RESOURCES}
BY_NAME: dict[str, ResourceInfo] = {r.resource: r for r in RESOURCES}
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(r.group for r in RESOURCES if r.group))


def info_for_object(obj: dict[str, Any]) -> ResourceInfo | None:
    return BY_KIND.get((str(obj.get("apiVersion", "")), str(obj.get("kind", ""))))


def _aggregated_resource(r: ResourceInfo) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "resource": r.resource,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": "Namespaced" if r.namespaced else "Cluster",
        "singularResource": r.singular,
        "verbs": list(r.verbs),
    }
    if r.short_names:
        doc["shortNames"] = list(r.short_names)
    if r.categories:
        doc["categories"] = list(r.categories)
    if r.subresources:
        doc["subresources"] = [
            {
                "subresource": s.name,
                "responseKind": {"group": s.group, "version": s.version, "kind": s.kind},
                "verbs": list(s.verbs),
            }
            for s in r.subresources
        ]
    return doc


def _group_entry(group: str) -> dict[str, Any]:
    res = [_aggregated_resource(r) for r in RESOURCES if r.group == group]
    return {
        "metadata": {"name": group, "creationTimestamp": None},
        "versions": [{"version": "v1", "resources": res, "freshness": "Current"}],
    }


def aggregated_api() -> dict[str, Any]:
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": [_group_entry("")],
    }


def aggregated_apis() -> dict[str, Any]:
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": [_group_entry(g) for g in GROUPS],
    }


def legacy_api_versions() -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
    }


def _legacy_group(group: str) -> dict[str, Any]:
    gv = {"groupVersion": f"{group}/v1", "version": "v1"}
    return {"name": group, "versions": [gv], "preferredVersion": gv}


def legacy_group_list() -> dict[str, Any]:
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [_legacy_group(g) for g in GROUPS],
    }


def legacy_group(group: str) -> dict[str, Any] | None:
    if group not in GROUPS:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_legacy_group(group)}


def legacy_resource_list(group: str, version: str) -> dict[str, Any] | None:
    items = [r for r in RESOURCES if r.group == group and r.version == version]
    if not items:
        return None
    out: list[dict[str, Any]] = []
    for r in items:
        entry: dict[str, Any] = {
            "name": r.resource,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": list(r.verbs),
        }
        if r.short_names:
            entry["shortNames"] = list(r.short_names)
        if r.categories:
            entry["categories"] = list(r.categories)
        out.append(entry)
        for s in r.subresources:
            sub: dict[str, Any] = {
                "name": f"{r.resource}/{s.name}",
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": s.kind,
                "verbs": list(s.verbs),
            }
            if s.group != r.group:
                sub["group"], sub["version"] = s.group, s.version
            out.append(sub)
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}
