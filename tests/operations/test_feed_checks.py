"""``operations/feed_checks.py``: the live feed asks, before its first line, for the watches
it runs only once a workload moves (kubectl faked with pytest-subprocess, its answers shaped
as research/kubectl-1.32/wire/authorization-reviews.json)."""

from __future__ import annotations

import json

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.contract import errors
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.runner import KubectlRunner
from kubectl_adapter.operations.feed_checks import FEED_NEEDS, check_feed_permissions

K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]
REVIEWS = [*K, *commands.feed_access_reviews()]
FORBIDDEN = (
    'Error from server (Forbidden): error when creating "STDIN": selfsubjectaccessreviews.'
    'authorization.k8s.io is forbidden: User "u" cannot create resource '
    '"selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope\n'
)


def _answer(denied: tuple[str, ...] = ()) -> str:
    return "\n".join(
        json.dumps({
            "kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
            "spec": {"resourceAttributes": {"namespace": "testns", "verb": need.verb,
                                            "group": need.group, "resource": need.resource}},
            "status": {"allowed": need.resource not in denied},
        }, indent=4)
        for need in FEED_NEEDS
    ) + "\n"  # fmt: skip


@pytest.fixture(autouse=True)
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def test_it_asks_for_the_watches_of_replicasets_and_pods(fp: FakeProcess) -> None:
    assert {(need.verb, need.resource) for need in FEED_NEEDS} == {
        ("watch", "replicasets"), ("watch", "pods"),
    }  # fmt: skip
    fp.register(REVIEWS, stdout=_answer())
    check_feed_permissions(KubectlRunner(ClusterConfig(namespace="testns")), "testns", "list -w")
    assert fp.call_count(REVIEWS) == 1


def test_a_role_without_them_is_forbidden_naming_each(fp: FakeProcess) -> None:
    fp.register(REVIEWS, stdout=_answer(("replicasets",)))
    with pytest.raises(errors.Forbidden) as refused:
        check_feed_permissions(
            KubectlRunner(ClusterConfig(namespace="testns")), "testns", "list --watch"
        )
    assert 'cannot watch resource "replicasets" in API group "apps"' in refused.value.message
    assert refused.value.details["missingPermissions"] == ["watch replicasets (apps)"]
    assert "rbac/role.yaml" in refused.value.message


def test_a_cluster_that_refuses_the_question_lets_the_feed_go_on(fp: FakeProcess) -> None:
    fp.register(REVIEWS, stderr=FORBIDDEN, returncode=1)
    check_feed_permissions(KubectlRunner(ClusterConfig(namespace="testns")), "testns", "list -w")
