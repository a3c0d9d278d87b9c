"""The RBAC proof: rbac/ is enough for every operation, and every permission in it is used.

Runs on the fake API server with RBAC enforced (a real cluster is skipped: the proof swaps
Roles and holds terminating pods back through the fake's internals). The identity is the
ServiceAccount ``opensource-server-manager``, with rbac/*.yaml applied after replacing the
namespace ``manager`` by the test namespace, as docs/rbac.md tells an operator to do.

1. ``test_lifecycle_as_the_service_account``: the whole lifecycle works with exactly
   serviceaccount.yaml + role.yaml + rolebinding.yaml, and the API server refuses nothing
   but ``nodes``, which needs clusterrole-nodes.yaml.
2. ``test_minimality``: for each verb of each rule of role.yaml (parsed, so a new rule gets a
   case of its own), a Role without that one permission makes the operation named in the
   test id fail with ``Forbidden`` (exit 5). The operation is the cheapest of those that
   ``kubectl_adapter.contract.permissions`` says need the permission. Four permissions are not fatal
   when missing, and their cases prove what happens instead (see ``NOT_FATAL``).
3. ``test_check_names_the_missing_permission``: ``check`` under each such Role names
   exactly the missing permission.

The permission -> failing operation table is printed in pytest's terminal summary.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

from kubectl_adapter.contract.permissions import NAMESPACED_NEEDS, WAIT_NEEDS, Need
from kubectl_adapter.contract.spec import parse_spec
from kubectl_adapter.rules.render import render_manifest
from tests.conftest import summary_row
from tests.e2e.conftest import Cluster, Result, selector, spec
from tests.fakecluster import FakeCluster
from tests.fakecluster.controller import NotFoundError

RBAC = Path(__file__).resolve().parents[2] / "rbac"
SERVICE_ACCOUNT = "opensource-server-manager"
FORBIDDEN_EXIT = 5


# -- rbac/ as an operator applies it ------------------------------------------------------------


def manifest(name: str, namespace: str) -> str:
    """An rbac/ file with the namespace ``manager`` replaced, like docs/rbac.md's sed."""
    text = (RBAC / name).read_text()
    return re.sub(r"^(\s*namespace:) manager$", rf"\1 {namespace}", text, flags=re.MULTILINE)


def sa_user(namespace: str) -> str:
    return f"system:serviceaccount:{namespace}:{SERVICE_ACCOUNT}"


class Permission(NamedTuple):
    """One verb on one resource of one rule of role.yaml."""

    verb: str
    group: str
    resource: str  # "deployments" or "deployments/scale"

    @property
    def text(self) -> str:
        return f"{self.verb} {self.resource}"

    def find_need(self) -> Need | None:
        base, _, sub = self.resource.partition("/")
        found = (n for n in NAMESPACED_NEEDS if n[:4] == (self.verb, self.group, base, sub))
        return next(found, None)

    def need(self) -> Need:
        need = self.find_need()
        assert need is not None, f"role.yaml grants {self.text}; permissions.py does not need it"
        return need


def role_permissions() -> list[Permission]:
    role = yaml.safe_load((RBAC / "role.yaml").read_text())
    return [
        Permission(verb, group, resource)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    ]


def role_without(permission: Permission, namespace: str) -> dict[str, Any]:
    """role.yaml (in ``namespace``) with exactly one verb on one resource taken away."""
    role = yaml.safe_load(manifest("role.yaml", namespace))
    rules = []
    for rule in role["rules"]:
        if permission.group in rule["apiGroups"] and permission.resource in rule["resources"]:
            # Split the rule so only this resource loses the verb (a rule may list several).
            others = [r for r in rule["resources"] if r != permission.resource]
            if others:
                rules.append({**copy.deepcopy(rule), "resources": others})
            verbs = [v for v in rule["verbs"] if v != permission.verb]
            if verbs:
                rules.append(
                    {**copy.deepcopy(rule), "resources": [permission.resource], "verbs": verbs}
                )
        else:
            rules.append(rule)
    role["rules"] = rules
    return dict(role)


# -- which operation proves each permission ----------------------------------------------------


@dataclass(frozen=True)
class Operation:
    """An adapter command, and the workload it needs to exist beforehand (made as admin)."""

    command: str
    workload: str = "none"  # "none", "stopped" (replicas 0, no pods) or "running"
    slow_termination: bool = False  # pods linger: `wait --for=delete` has to GET and WATCH them
    # Pods stay unready: the rollout wait has to WATCH the Deployment, whatever the load (on a
    # busy machine the rollout used to be complete at the wait's first LIST, so the refused
    # watch was never asked for and create succeeded without it).
    slow_readiness: bool = False

    @property
    def cost(self) -> int:
        return ("none", "stopped", "running").index(self.workload)


# permissions.py `needed_for` names -> the adapter operation that exercises them. `status` is
# left out: it answers `unknown` instead of failing (status rule 1). `rollout undo` only runs
# after a failed rollout (>= 10 s here); the lifecycle covers the same kubectl calls otherwise.
OPERATIONS: dict[str, Operation] = {
    "create": Operation("create"),
    "wait": Operation("create", slow_readiness=True),  # create waits on the Deployment's watch
    "list": Operation("list"),
    "start": Operation("start", "stopped"),  # from 0 replicas, so it really scales
    "stop": Operation("stop", "running"),
    "stop (wait)": Operation("stop", "running", slow_termination=True),
    "delete": Operation("delete", "stopped"),
    "delete (wait)": Operation("delete", "stopped"),
    "reconfigure": Operation("reconfigure", "running"),
    "network": Operation("network", "running"),
    "check": Operation("check"),
    "list --watch": Operation("list --watch"),  # a refused watch ends it: Forbidden
}


class NotFatal(NamedTuple):
    """A permission whose absence no operation reports as Forbidden, and why."""

    outcome: str  # what the test id says instead of the operation failing
    why: str


NOT_FATAL: dict[str, NotFatal] = {
    # Events are read only to explain a failure, and the adapter swallows any error doing so
    # (Workloads.warning_events: "Diagnostics are best effort"); the operation still reports
    # its own failure, just without the Warning events. Only `check` can show it is missing.
    "list events": NotFatal(
        "diagnostics only", "failure diagnostics are best effort: errors lose their events"
    ),
    # `check` answers namespaceExists=null (and ok=false) instead of failing; kubectl get
    # --ignore-not-found GETs the namespace after a 404 and ignores a 403 there.
    "get namespaces": NotFatal("namespaceExists null", "check cannot tell if the namespace exists"),
}


class Case(NamedTuple):
    permission: Permission
    operation: Operation

    @property
    def id(self) -> str:
        note = NOT_FATAL.get(self.permission.text)
        outcome = f" ({note.outcome})" if note else ""
        return f"{self.permission.text} -> {self.operation.command}{outcome}"


def choose(permission: Permission) -> Case:
    """The cheapest operation that needs ``permission`` (needed_for order breaks ties)."""
    need = permission.find_need()  # None fails the case (not the collection) with a reason
    needed_for = need.needed_for if need else ()
    candidates = [OPERATIONS[n] for n in needed_for if n in OPERATIONS]
    if not candidates:  # only diagnostics need it: check is the one place that shows it
        candidates = [OPERATIONS["check"]]
    return Case(permission, min(candidates, key=lambda op: op.cost))


PERMISSIONS = role_permissions()
CASES = [choose(p) for p in PERMISSIONS]


# -- the proof table, printed in the terminal summary whatever -s says --------------------------

PROOF_SECTION = "RBAC proof: permission removed -> what fails"


class ProofTable:
    """The rows this test adds to the proof table (tests/conftest.py prints it)."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request

    def add(self, permission: str, result: str) -> None:
        summary_row(self.request, PROOF_SECTION, permission, result)


@pytest.fixture
def proof_table(request: pytest.FixtureRequest) -> ProofTable:
    return ProofTable(request)


# -- fixtures -----------------------------------------------------------------------------------


@dataclass
class Identity:
    """The ServiceAccount's kubeconfig context in one namespace."""

    cluster: Cluster
    fake: FakeCluster
    namespace: str
    context: str

    def adapter(self, *args: str, stdin: Any = None) -> Result:
        return self.cluster.adapter(
            *args, stdin=stdin, context=self.context, flags=["-n", self.namespace]
        )

    def apply_rbac(self, role: dict[str, Any] | None = None) -> None:
        """serviceaccount.yaml, rolebinding.yaml and role.yaml (or ``role`` instead)."""
        self.fake.load_rbac(manifest("serviceaccount.yaml", self.namespace))
        self.fake.load_rbac(manifest("rolebinding.yaml", self.namespace))
        self.fake.load_rbac(role or manifest("role.yaml", self.namespace))

    def denied(self) -> list[str]:
        """Each request of this identity answered 403, as "METHOD path[?watch]"."""
        user = sa_user(self.namespace)
        return [
            f"{r.method} {r.path}{'?watch' if r.query.get('watch') == 'true' else ''}"
            for r in self.fake.requests
            if r.user == user and r.status == 403
        ]


def identity(cluster: Cluster, namespace: str) -> Identity:
    fake = cluster.require_fake()
    if fake.get("namespaces", None, namespace) is None:
        fake.create_object(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    token = fake.add_service_account(namespace, SERVICE_ACCOUNT)
    context = fake.add_user_context(f"manager-{namespace}", token, namespace)
    return Identity(cluster, fake, namespace, context)


@pytest.fixture(scope="module")
def sa(cluster: Cluster) -> Iterator[Identity]:
    """The ServiceAccount in the test namespace, with rbac/ applied."""
    me = identity(cluster, cluster.namespace)
    me.apply_rbac()
    yield me
    me.fake.clear_rbac()


_names = iter(range(1, 1000))


def workload(sa: Identity, state: str) -> tuple[str, str]:
    """A Manager Deployment made as admin (no RBAC), as the adapter would render it."""
    n = next(_names)
    name, container_id = f"rbac-{n}", f"rbac-c{n}"
    if state == "none":
        return name, container_id
    rendered = render_manifest(parse_spec(spec(name, container_id)), sa.namespace)
    deployment = yaml.safe_load(rendered)
    if state == "stopped":
        deployment["spec"]["replicas"] = 0
    sa.fake.create_object(deployment)
    if state == "running":
        sa.fake.wait_for(
            lambda: (
                (sa.fake.get("deployments", sa.namespace, name) or {})
                .get("status", {})
                .get("availableReplicas")
                == 1
            ),
            message=f"{name} did not become available",
        )
    return name, container_id


@contextmanager
def pods_linger_until_refused(sa: Identity, container_id: str) -> Iterator[None]:
    """Terminating pods stay (as with a real grace period) until the API server has refused
    the ServiceAccount something, then go at once: `wait --for=delete` surely finds a pod to
    GET and WATCH, whatever the machine's load, and a wait that survives the refusal ends."""
    fake = sa.fake
    kubelet = fake.controller.kubelet
    saved = kubelet.termination_delay
    kubelet.termination_delay = 60.0
    done = threading.Event()

    def remove_terminating_pods() -> None:
        for pod in fake.list("pods", sa.namespace, label_selector=selector(container_id)):
            if pod["metadata"].get("deletionTimestamp"):
                with suppress(NotFoundError):  # the kubelet may have been quicker
                    fake.controller.delete("pods", sa.namespace, pod["metadata"]["name"], grace=0)

    def release() -> None:
        while not done.wait(0.02):
            if sa.denied():
                break
        remove_terminating_pods()

    thread = threading.Thread(target=release, name="release-terminating-pods", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        kubelet.termination_delay = saved
        remove_terminating_pods()


@contextmanager
def pods_stay_unready(sa: Identity) -> Iterator[None]:
    """New Pods become ready only after a minute: a wait for the rollout cannot end at its
    first LIST, so it goes on to WATCH the Deployment (and meets the refusal), however
    long the machine takes to start kubectl."""
    kubelet = sa.fake.controller.kubelet
    saved = kubelet.ready_delay
    kubelet.ready_delay = 60.0
    try:
        yield
    finally:
        kubelet.ready_delay = saved


def conditions_for(sa: Identity, op: Operation, container_id: str) -> AbstractContextManager[None]:
    if op.slow_termination:
        return pods_linger_until_refused(sa, container_id)
    if op.slow_readiness:
        return pods_stay_unready(sa)
    return nullcontext()


def run_operation(sa: Identity, op: Operation, name: str, container_id: str) -> Result:
    pid = f"{sa.namespace}/{name}"
    if op.command == "create":
        return sa.adapter("create", "--spec", "-", stdin=spec(name, container_id))
    if op.command == "reconfigure":
        changed = spec(name, container_id, env={"KEY": "changed"})
        return sa.adapter("reconfigure", pid, "--spec", "-", stdin=changed)
    if op.command in ("list", "check"):
        return sa.adapter(op.command)
    if op.command == "list --watch":
        return sa.adapter("list", "--watch")
    return sa.adapter(op.command, pid)


# -- 1. the lifecycle -----------------------------------------------------------------------


def test_lifecycle_as_the_service_account(
    cluster: Cluster, sa: Identity, proof_table: ProofTable
) -> None:
    fake = sa.fake
    ns = sa.namespace
    fake.clear_requests()

    def ok(*args: str, stdin: Any = None) -> Any:
        result = sa.adapter(*args, stdin=stdin)
        assert result.code == 0, (args, result.doc, result.stderr)
        return result.doc

    checked = ok("check")
    assert checked["ok"] is True, checked
    assert checked["missingPermissions"] == []
    assert checked["namespaceExists"] is True
    assert all(p["allowed"] for p in checked["permissions"] if p["resource"] != "nodes")

    name, cid = "rbac-life", "rbac-life-c"
    pid = f"{ns}/{name}"
    assert ok("create", "--spec", "-", stdin=spec(name, cid))["status"] == "running"
    assert ok("status", pid)["status"] == "running"
    assert [s["providerId"] for s in ok("list")["items"]] == [pid]
    assert ok("stop", pid, "--container-id", cid)["status"] == "offline"
    # No live Pod: stop ends once none counts (a terminating one finishes on its own).
    assert [
        p for p in cluster.pods(selector(cid)) if not p["metadata"].get("deletionTimestamp")
    ] == []
    assert ok("start", pid, "--container-id", cid)["status"] == "running"
    changed = spec(name, cid, env={"KEY": "changed"}, cpus=0.2)
    assert ok("reconfigure", pid, "--spec", "-", stdin=changed)["status"] == "running"
    network = ok("network", pid)
    assert network["podIp"] and network["macAddress"] is None
    assert ok("delete", pid, "--container-id", cid)["deleted"] is True
    assert cluster.deployment(name) is None

    # Not one request of the lifecycle was refused: nothing is missing from the Role.
    assert sa.denied() == []

    refused = sa.adapter("nodes")
    assert (refused.code, refused.error_type) == (FORBIDDEN_EXIT, "Forbidden"), refused
    assert 'cannot list resource "nodes"' in refused.doc["error"]["message"]
    added = fake.load_rbac(manifest("clusterrole-nodes.yaml", ns))
    try:
        nodes = ok("nodes")["items"]
        assert [n["name"] for n in nodes] == ["fake-node-1"]
    finally:
        for obj in added:
            fake.delete_object(f"{obj['kind'].lower()}s", None, obj["metadata"]["name"])
    proof_table.add("list nodes (clusterrole-nodes.yaml)", "nodes: Forbidden (exit 5)")

    # list -A (issue 32): optional, cluster-wide; a Forbidden says what is missing
    refused = sa.adapter("list", "-A")
    assert (refused.code, refused.error_type) == (FORBIDDEN_EXIT, "Forbidden"), refused
    message = refused.doc["error"]["message"]
    assert message.startswith("list --all-namespaces needs list deployments (apps), "), message
    assert "rbac/clusterrole-list-all.yaml" in message and "at the cluster scope" in message
    assert refused.doc["error"]["details"]["role"] == "rbac/clusterrole-list-all.yaml"
    added = fake.load_rbac(manifest("clusterrole-list-all.yaml", ns))
    try:
        assert ok("list", "-A")["items"] == []
    finally:
        for obj in added:
            fake.delete_object(f"{obj['kind'].lower()}s", None, obj["metadata"]["name"])
    proof_table.add(
        "list deployments, replicasets, pods cluster-wide (clusterrole-list-all.yaml)",
        "list -A: Forbidden (exit 5)",
    )


# -- 2. minimality --------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_minimality(sa: Identity, case: Case, proof_table: ProofTable) -> None:
    permission, op = case
    need = permission.need()
    name, container_id = workload(sa, op.workload)
    sa.apply_rbac(role_without(permission, sa.namespace))
    sa.fake.clear_requests()
    try:
        with conditions_for(sa, op, container_id):
            result = run_operation(sa, op, name, container_id)
    finally:
        sa.apply_rbac()
    denied = sa.denied()
    note = NOT_FATAL.get(permission.text)

    if note is None:
        assert (result.code, result.error_type) == (FORBIDDEN_EXIT, "Forbidden"), (
            f"without {need.label}, {op.command} did not fail with Forbidden",
            result,
        )
        message = result.doc["error"]["message"]
        if permission.verb == "create":
            # Server-side apply of an absent object: the PATCH is refused for want of create,
            # with the API server's bare `is forbidden: ` (withAuthorization, no RBAC reason).
            path = f"/apis/apps/v1/namespaces/{sa.namespace}/deployments/{name}"
            assert denied == [f"PATCH {path}"]
            assert f'deployments.apps "{name}" is forbidden' in message
        elif need in WAIT_NEEDS and op.command in ("create", "start", "stop", "reconfigure"):
            # The wait's watches start before the write (issue 38): the API server refusing
            # one of them is the only refusal, and nothing is sent after it.
            assert f"needs {need.label} for its wait" in message, message
            assert "nothing was changed" in message, message
            assert result.doc["error"]["details"]["writeSent"] is False, result
            assert len(denied) == 1 and denied[0].startswith("GET "), denied
            assert f"/{need.resource}" in denied[0], denied
        else:
            assert f'cannot {permission.verb} resource "{permission.resource}"' in message
        proof_table.add(need.label, f"{op.command}: Forbidden (exit {FORBIDDEN_EXIT})")
    elif op.command == "check":
        # ok=false exits non-zero (Forbidden), the check document still printed.
        assert (result.code, result.doc["ok"]) == (FORBIDDEN_EXIT, False), result
        assert result.doc["missingPermissions"] == [need.label]
        if permission.text == "get namespaces":
            assert result.doc["namespaceExists"] is None
        proof_table.add(need.label, f"check: ok=false, exit 5, names it ({note.why})")
    else:
        # The operation succeeds, yet the permission was exercised and refused: every refused
        # request is a watch of that resource.
        assert result.code == 0, result
        assert permission.verb == "watch", "only refused watches are known to be survivable"
        assert denied, f"{op.command} never tried to {permission.text}"
        assert all(d.endswith(f"/{permission.resource}?watch") for d in denied), denied
        proof_table.add(
            need.label,
            f"{op.command}: succeeds after {len(denied)} refused watches ({note.why})",
        )


# -- 3. check names the missing permission ----------------------------------------------------


def _selected_check_cases(request: pytest.FixtureRequest) -> list[Permission]:
    wanted = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and item.originalname == "test_check_names_the_missing_permission":
            wanted.append(callspec.params["permission"])
    return wanted


@pytest.fixture(scope="module")
def check_results(cluster: Cluster, request: pytest.FixtureRequest) -> dict[Permission, Result]:
    """One `check` per Role-minus-one-permission, each in a namespace of its own, so the calls
    run side by side (each ~1.5 s of mostly kubectl start-up)."""
    cluster.require_fake()
    identities: dict[Permission, Identity] = {}
    for i, permission in enumerate(_selected_check_cases(request)):
        me = identity(cluster, f"rbac-check-{i}")
        me.apply_rbac(role_without(permission, me.namespace))
        identities[permission] = me
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = pool.map(lambda me: me.adapter("check"), identities.values())
        return dict(zip(identities, results, strict=True))


@pytest.mark.parametrize("permission", PERMISSIONS, ids=[p.text for p in PERMISSIONS])
def test_check_names_the_missing_permission(
    permission: Permission, check_results: dict[Permission, Result]
) -> None:
    result = check_results[permission]
    assert result.code == FORBIDDEN_EXIT, result  # ok=false is not success
    doc = result.doc
    label = permission.need().label
    assert doc["ok"] is False
    assert doc["missingPermissions"] == [label]
    refused = [
        f"{p['verb']} {p['resource']}{'/' + p['subresource'] if p['subresource'] else ''}"
        for p in doc["permissions"]
        if not p["allowed"] and p["resource"] != "nodes"
    ]
    assert refused == [permission.text]
    assert doc["namespaceExists"] is (None if permission.text == "get namespaces" else True)


def test_every_permission_has_a_case() -> None:
    """A rule added to role.yaml without a permissions.py entry fails here, not silently."""
    assert {p.need() for p in PERMISSIONS} == set(NAMESPACED_NEEDS)
