"""A namespace that does not exist is an error for `list` (NotFound, not "no containers"),
and `check` with ``ok: false`` exits non-zero while still printing its document."""

from __future__ import annotations

from tests.e2e.conftest import Cluster


def test_list_in_a_missing_namespace_is_not_found(cluster: Cluster) -> None:
    cluster.require_fake()
    for node in ([], ["--node-id", "7"]):
        result = cluster.adapter(*node, "list", flags=["-n", "no-such-ns"])
        assert (result.code, result.error_type) == (3, "NotFound"), result
        assert result.doc["error"]["message"] == "namespace no-such-ns does not exist"


def test_list_in_an_empty_namespace_is_empty(cluster: Cluster) -> None:
    fake = cluster.require_fake()
    fake.clear_requests()
    result = cluster.adapter("list", flags=["-n", "default"])
    assert (result.code, result.doc) == (0, {"items": []}), result
    # The one extra call: a GET of the namespace, after the empty LIST.
    gets = [r.path for r in fake.requests if r.kubectl_command == "kubectl get"]
    assert gets[-1] == "/api/v1/namespaces/default", gets


def test_check_in_a_missing_namespace_exits_3_with_its_document(cluster: Cluster) -> None:
    cluster.require_fake()
    result = cluster.adapter("check", flags=["-n", "no-such-ns"])
    assert result.code == 3, result
    assert result.doc["ok"] is False and result.doc["namespaceExists"] is False, result.doc


def test_check_that_is_ok_exits_0(cluster: Cluster) -> None:
    cluster.require_fake()
    result = cluster.adapter("check")
    assert (result.code, result.doc["ok"]) == (0, True), result
