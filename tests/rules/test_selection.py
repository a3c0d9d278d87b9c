"""Which ReplicaSets and Pods a read by the name label saw of a Deployment, table-driven."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_adapter.rules.selection import holds_every_pod, select_owned
from tests.k8s_objects import NAME, deployment, pod, replicaset

Objects = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]


def running() -> Objects:
    dep = deployment()
    rs = replicaset(dep)
    return dep, [rs], [pod(rs)]


def rolled_back() -> Objects:
    """``kubectl rollout undo`` to a revision from before the label: the template has none."""
    dep, replicasets, pods = running()
    del dep["spec"]["template"]["metadata"]["labels"][NAME]
    return dep, replicasets, pods


def mid_rollout_from_legacy() -> Objects:
    """Two Pods counted; the old ReplicaSet (no name label) is not in the answer."""
    dep = deployment(total=2, updated=1, generation=2)
    rs = replicaset(dep, "new2222222", revision=2)
    return dep, [rs], [pod(rs)]


def renamed_label() -> Objects:
    """The template's name label names another Deployment (edited by hand)."""
    dep, replicasets, pods = running()
    dep["spec"]["template"]["metadata"]["labels"][NAME] = "web-9"
    return dep, replicasets, pods


def others_replicaset() -> Objects:
    """A ReplicaSet with the label, owned by another uid, does not make up the count."""
    dep = deployment(total=2)
    mine = replicaset(dep)
    other = replicaset(deployment(uid="uid-earlier"), "old1111111")
    return dep, [mine, other], [pod(mine), pod(other, "fghij")]


def stopped() -> Objects:
    dep = deployment(replicas=0, available=None)
    return dep, [replicaset(dep, replicas=0)], []


def no_replicaset_yet() -> Objects:
    """Just created: the controller has not made its ReplicaSet, the Deployment counts none."""
    return deployment(available=None, observed=None, conditions=[]), [], []


@pytest.mark.parametrize(
    ("objects", "complete"),
    [
        (running(), True),
        (stopped(), True),
        (no_replicaset_yet(), True),
        (rolled_back(), False),
        (mid_rollout_from_legacy(), False),
        (renamed_label(), False),
        (others_replicaset(), False),
        ((deployment(legacy=True), [], []), False),
    ],
    ids=[
        "running",
        "stopped",
        "no ReplicaSet yet",
        "rolled back to a revision without the label",
        "mid-rollout from a revision without the label",
        "template label names another Deployment",
        "another uid's ReplicaSet",
        "legacy",
    ],
)
def test_holds_every_pod(objects: Objects, complete: bool) -> None:
    dep, replicasets, pods = objects
    assert holds_every_pod(dep, select_owned(dep, replicasets, pods)) is complete
