"""A missing permission is found before anything is written (issue 30).

Every node set up before the Pods' watch has a Role without ``watch`` on pods: create,
start, stop and reconfigure used to write (apply, patch) and then fail Forbidden at their
wait, with nothing saying the change had landed (for create, Manager then tracked nothing).
Now each starts its wait's watches before the write (issue 38): the API server answering
their list and watch proves the wait's permissions at no process of its own, and a refusal
ends the command with nothing changed. Where the Role changes after that, the error after
the write says what was written.

The real CLI as the ServiceAccount of rbac/, through the real kubectl, against the fake API
server with RBAC enforced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import Cluster, Result, spec
from tests.e2e.test_rbac import Identity, Permission, identity, role_without, workload
from tests.fakecluster import FakeCluster

OLD_ROLE_LACKS = Permission("watch", "", "pods")
FORBIDDEN_EXIT = 5


@pytest.fixture(scope="module")
def old_node(cluster: Cluster) -> Iterator[Identity]:
    """The ServiceAccount under a Role from before the Pods' watch."""
    me = identity(cluster, cluster.namespace)
    me.apply_rbac(role_without(OLD_ROLE_LACKS, me.namespace))
    yield me
    me.fake.clear_rbac()


def _writes(fake: FakeCluster, user: str, since: int) -> list[str]:
    """The writes of ``user`` to Deployments the API server accepted, since request ``since``."""
    return [
        f"{r.method} {r.path}"
        for r in fake.requests[since:]
        if r.user == user and "/deployments" in r.path and r.method in ("POST", "PATCH", "PUT")
        and r.status < 400
    ]  # fmt: skip


def _why(result: Result) -> str:
    return f"{result.code} {str(result.doc)[:1500]} {result.stderr[-800:]}"


def _refused_before_writing(result: Result, verb: str) -> dict[str, Any]:
    assert (result.code, result.error_type) == (FORBIDDEN_EXIT, "Forbidden"), _why(result)
    error = result.doc["error"]
    assert "watch pods (core)" in error["message"], _why(result)
    assert "nothing was changed" in error["message"], _why(result)
    assert "apply rbac/role.yaml again" in error["message"], _why(result)
    assert error["details"]["missingPermissions"] == ["watch pods (core)"], _why(result)
    assert error["details"]["writeSent"] is False, _why(result)
    return dict(error["details"])


@pytest.mark.parametrize("verb", ["create", "start", "stop", "reconfigure"])
def test_an_old_role_refuses_before_the_write(old_node: Identity, verb: str) -> None:
    state = {"create": "none", "start": "stopped", "stop": "running", "reconfigure": "running"}
    name, cid = workload(old_node, state[verb])
    fake, user = old_node.fake, f"system:serviceaccount:{old_node.namespace}:" \
        "opensource-server-manager"  # fmt: skip
    before = fake.get("deployments", old_node.namespace, name)
    since = len(fake.requests)
    pid = f"{old_node.namespace}/{name}"
    if verb == "create":
        result = old_node.adapter("create", "--spec", "-", stdin=spec(name, cid))
    elif verb == "reconfigure":
        changed = spec(name, cid, env={"CHANGED": "1"})
        result = old_node.adapter("reconfigure", pid, "--spec", "-", stdin=changed)
    else:
        result = old_node.adapter(verb, pid)
    details = _refused_before_writing(result, verb)
    assert _writes(fake, user, since) == []
    after = fake.get("deployments", old_node.namespace, name)
    if verb == "create":
        assert after is None
        assert details["applied"] is False  # Manager has nothing on the cluster to keep
    else:
        assert before is not None and after is not None
        assert after["metadata"]["generation"] == before["metadata"]["generation"]
        assert after["spec"]["replicas"] == before["spec"]["replicas"]


def test_a_refusal_after_the_write_says_what_was_written(old_node: Identity) -> None:
    """The Role loses ``watch pods`` once stop's watches have proved it and its patch has
    landed: the Pods' watch, started again, is refused, and the error says the Deployment
    is at 0."""
    old_node.apply_rbac()  # this version's Role: the watches before the write get through
    name, _ = workload(old_node, "running")
    fake = old_node.fake

    def revoke() -> None:
        old_node.apply_rbac(role_without(OLD_ROLE_LACKS, old_node.namespace))
        assert fake.close_watches(r"/pods$") >= 1

    hook = fake.on_request(after=revoke, method="PATCH", path_regex=rf"/deployments/{name}$")
    pid = f"{old_node.namespace}/{name}"
    try:
        result = old_node.adapter("stop", pid)
    finally:
        fake.clear_faults()
        old_node.apply_rbac(role_without(OLD_ROLE_LACKS, old_node.namespace))
    assert hook.fired.is_set() and not hook.errors, hook.errors
    assert (result.code, result.error_type) == (FORBIDDEN_EXIT, "Forbidden"), _why(result)
    error = result.doc["error"]
    assert "stop had already written" in error["message"], _why(result)
    assert error["details"]["writeSent"] is True, _why(result)
    assert "spec.replicas 0" in error["details"]["written"], _why(result)
    deployment = fake.get("deployments", old_node.namespace, name)
    assert deployment is not None and deployment["spec"]["replicas"] == 0


def test_a_role_of_this_version_asks_and_goes_on(cluster: Cluster) -> None:
    """rbac/role.yaml as shipped: the wait's watches get through, and the operation runs."""
    me = identity(cluster, cluster.namespace)
    me.apply_rbac()
    since = len(me.fake.requests)
    try:
        name, cid = workload(me, "none")
        created = me.adapter("create", "--spec", "-", stdin=spec(name, cid))
        assert (created.code, created.doc.get("status")) == (0, "running"), _why(created)
        stopped = me.adapter("stop", f"{me.namespace}/{name}")
        assert (stopped.code, stopped.doc.get("status")) == (0, "offline"), _why(stopped)
        refused = [r.path for r in me.fake.requests[since:] if r.status == 403]
        assert refused == [], refused
    finally:
        me.fake.clear_rbac()
