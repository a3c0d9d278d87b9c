"""Property: a wait judges exactly the Pods the Deployment owns, for any mix of Pods its
watch may show, and learns their owners in at most one read (issue 30).

The Pods a label selects may be the Deployment's (of any of its ReplicaSets, live,
terminating or ended), made by hand (no ownerReference), another ReplicaSet's (named like
the Deployment's, another uid), or an earlier Deployment's. Whatever the mix and order, the
stop verdict over ``PodOwners`` equals the verdict over ``select_owned``'s Pods (the
selection ``status`` and ``list`` use), the ReplicaSets read at most once; a rollout's never
reads, and is over exactly when it is over the workload's Pods.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.contract.naming import ProviderId
from kubectl_adapter.operations.pod_owners import PodOwners
from kubectl_adapter.rules.selection import select_owned
from kubectl_adapter.rules.wait_verdicts import Seen, rollout_verdict, stop_verdict
from tests.k8s_objects import deployment, pod, replicaset

PID = ProviderId("testns", "web-1")
NOW = datetime(2026, 12, 2, 6, 0, 0, tzinfo=UTC)
DEP = deployment(replicas=0, generation=2, observed=2, available=None)
OLD, NEW = replicaset(DEP, "oldhash111", 1), replicaset(DEP, "newhash222", 2)
# Another Deployment's ReplicaSet of the same name (an earlier web-1, deleted --cascade=orphan).
ORPHANED = copy.deepcopy(NEW)
ORPHANED["metadata"]["uid"] = "uid-rs-of-an-earlier-web-1"
ORPHANED["metadata"].pop("ownerReferences", None)

KINDS = ("old", "new", "orphaned", "by-hand")
STATES = ("running", "terminating", "failed", "crashing")


def _pod(kind: str, state: str, index: int) -> dict[str, Any]:
    rs = {"old": OLD, "new": NEW, "orphaned": ORPHANED, "by-hand": NEW}[kind]
    made = pod(
        rs,
        f"{kind}-{index}",
        ready=state == "running",
        phase="Failed" if state == "failed" else "Running",
        deleting=state == "terminating",
        waiting=("CrashLoopBackOff", "back-off 10s") if state == "crashing" else None,
        restarts=3 if state == "crashing" else 0,
    )
    if kind == "by-hand":
        made["metadata"].pop("ownerReferences", None)
    return made


pods_shown = st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(STATES)), max_size=12).map(
    lambda drawn: [_pod(kind, state, i) for i, (kind, state) in enumerate(drawn)]
)


@settings(max_examples=300, deadline=None)
@given(pods=pods_shown, replicas=st.sampled_from([0, 1]), splits=st.integers(0, 12))
def test_a_wait_judges_the_pods_the_deployment_owns(
    pods: list[dict[str, Any]], replicas: int, splits: int
) -> None:
    dep = copy.deepcopy(DEP)
    dep["spec"]["replicas"] = replicas
    reads: list[int] = []

    def read() -> list[dict[str, Any]]:
        reads.append(1)
        return [OLD, NEW, ORPHANED]  # what `get replicasets -l SEL` lists

    owners = PodOwners(read)
    owned = select_owned(dep, [OLD, NEW, ORPHANED], pods).pods

    def verdicts(seen: Seen, now: datetime) -> Any:
        if replicas == 0:
            return stop_verdict(PID, seen, None)
        return rollout_verdict(PID, seen, None, "start", now)

    # The watch shows the Pods a few at a time: every state on the way is judged.
    for end in sorted({min(splits, len(pods)), len(pods)}):
        shown = pods[:end]
        mine = [p for p in shown if p in owned]  # in the order the watch showed them
        expected = verdicts(Seen(dep, True, mine, True), NOW)
        got = owners.judge(verdicts, Seen(dep, True, shown, True), NOW, read=replicas == 0)
        if replicas == 0:
            assert got == expected
        else:
            # A rollout never reads: it is over or not as over the workload's Pods, and a
            # failure of another ReplicaSet's Pod is only a suspect, which the confirming
            # read (it selects by owner) clears.
            assert got.done == expected.done
            assert expected.suspect is None or got.suspect is not None
    assert len(reads) <= (1 if replicas == 0 else 0)
    # A Pod no ReplicaSet controls never costs a read.
    if all(p["metadata"]["name"].startswith("by-hand") for p in pods):
        assert reads == []
