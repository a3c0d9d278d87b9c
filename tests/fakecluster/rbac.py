"""Authentication (bearer tokens) and RBAC authorization over Role/ClusterRole/bindings.

RBAC objects live in the Store (so `kubectl get roles` works); this module only evaluates.
Built-in rules model the bootstrap `system:discovery`, `system:public-info-viewer` and
`system:basic-user` ClusterRoles (bound to `system:authenticated`), and `system:masters`
as cluster-admin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .store import Store


@dataclass(frozen=True)
class UserInfo:
    name: str
    groups: tuple[str, ...] = ()
    sa_namespace: str = ""
    sa_name: str = ""


def service_account_user(namespace: str, name: str) -> UserInfo:
    return UserInfo(
        f"system:serviceaccount:{namespace}:{name}",
        ("system:serviceaccounts", f"system:serviceaccounts:{namespace}", "system:authenticated"),
        namespace,
        name,
    )


ADMIN = UserInfo(
    "kubernetes-admin", ("kubeadm:cluster-admins", "system:masters", "system:authenticated")
)


@dataclass(frozen=True)
class Attributes:
    verb: str
    resource: str = ""
    group: str = ""
    namespace: str = ""
    name: str = ""
    subresource: str = ""
    path: str = ""

    @property
    def is_resource(self) -> bool:
        return bool(self.resource)


_BUILTIN: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "system:discovery",
        {
            "verbs": ["get"],
            "nonResourceURLs": [
                "/api",
                "/api/*",
                "/apis",
                "/apis/*",
                "/healthz",
                "/livez",
                "/openapi",
                "/openapi/*",
                "/readyz",
                "/version",
                "/version/",
            ],
        },
    ),
    (
        "system:basic-user",
        {
            "verbs": ["create"],
            "apiGroups": ["authorization.k8s.io"],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
        },
    ),
    (
        "system:basic-user",
        {
            "verbs": ["create"],
            "apiGroups": ["authentication.k8s.io"],
            "resources": ["selfsubjectreviews"],
        },
    ),
)


def rule_matches(rule: dict[str, Any], a: Attributes) -> bool:
    verbs = rule.get("verbs") or []
    if "*" not in verbs and a.verb not in verbs:
        return False
    if not a.is_resource:
        for url in rule.get("nonResourceURLs") or []:
            if url == "*" or url == a.path or (url.endswith("*") and a.path.startswith(url[:-1])):
                return True
        return False
    groups = rule.get("apiGroups")
    if groups is None or ("*" not in groups and a.group not in groups):
        return False
    resources = rule.get("resources") or []
    want = f"{a.resource}/{a.subresource}" if a.subresource else a.resource
    ok = any(
        r == "*" or r == want or (a.subresource and r == f"*/{a.subresource}") for r in resources
    )
    if not ok:
        return False
    names = rule.get("resourceNames") or []
    return not names or (bool(a.name) and a.name in names)


def _subject_matches(subj: dict[str, Any], user: UserInfo, binding_ns: str) -> bool:
    kind = subj.get("kind")
    if kind == "User":
        return bool(subj.get("name") == user.name)
    if kind == "Group":
        return subj.get("name") in user.groups
    if kind == "ServiceAccount":
        ns = subj.get("namespace") or binding_ns
        return bool(user.sa_name and ns == user.sa_namespace and subj.get("name") == user.sa_name)
    return False


def _subject_text(subj: dict[str, Any], binding_ns: str) -> str:
    if subj.get("kind") == "ServiceAccount":
        return f'ServiceAccount "{subj.get("name")}/{subj.get("namespace") or binding_ns}"'
    return f'{subj.get("kind")} "{subj.get("name")}"'


@dataclass
class Decision:
    allowed: bool
    reason: str = ""


@dataclass
class Authorizer:
    store: Store
    admin_groups: frozenset[str] = field(default_factory=lambda: frozenset({"system:masters"}))

    def _role_rules(self, ref: dict[str, Any], binding_ns: str) -> list[dict[str, Any]]:
        if ref.get("kind") == "ClusterRole":
            role = self.store.raw("clusterroles", "", str(ref.get("name")))
        else:
            role = self.store.raw("roles", binding_ns, str(ref.get("name")))
        return list((role or {}).get("rules") or [])

    def authorize(self, user: UserInfo, a: Attributes) -> Decision:
        if self.admin_groups & set(user.groups):
            return Decision(
                True,
                'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole '
                '"cluster-admin" to Group "system:masters"',
            )
        if "system:authenticated" in user.groups:
            for name, rule in _BUILTIN:
                if rule_matches(rule, a):
                    return Decision(
                        True,
                        f'RBAC: allowed by ClusterRoleBinding "{name}" of ClusterRole '
                        f'"{name}" to Group "system:authenticated"',
                    )
        with self.store.lock:
            for b in self.store.raw_list("clusterrolebindings"):
                found = self._check_binding(b, "", user, a, "ClusterRoleBinding")
                if found:
                    return found
            if a.namespace:
                for b in self.store.raw_list("rolebindings", a.namespace):
                    found = self._check_binding(b, a.namespace, user, a, "RoleBinding")
                    if found:
                        return found
        return Decision(False, "")

    def _check_binding(
        self, b: dict[str, Any], ns: str, user: UserInfo, a: Attributes, kind: str
    ) -> Decision | None:
        subjects = b.get("subjects") or []
        subj = next((s for s in subjects if _subject_matches(s, user, ns)), None)
        if subj is None:
            return None
        ref = b.get("roleRef") or {}
        for rule in self._role_rules(ref, ns):
            if rule_matches(rule, a):
                bname = b["metadata"]["name"] + (f"/{ns}" if ns else "")
                return Decision(
                    True,
                    f'RBAC: allowed by {kind} "{bname}" of {ref.get("kind")} "{ref.get("name")}" '
                    f"to {_subject_text(subj, ns)}",
                )
        return None

    def rules_for(
        self, user: UserInfo, namespace: str
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(resourceRules, nonResourceRules) for a SelfSubjectRulesReview."""
        if self.admin_groups & set(user.groups):
            return (
                [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            )
        rules: list[dict[str, Any]] = [dict(r) for _, r in _BUILTIN]
        with self.store.lock:
            bindings = [(b, "") for b in self.store.raw_list("clusterrolebindings")]
            bindings += [(b, namespace) for b in self.store.raw_list("rolebindings", namespace)]
            for b, ns in bindings:
                if any(_subject_matches(s, user, ns) for s in b.get("subjects") or []):
                    rules.extend(self._role_rules(b.get("roleRef") or {}, ns))
        res = [r for r in rules if "nonResourceURLs" not in r]
        non = [r for r in rules if "nonResourceURLs" in r]
        return res, non
