"""The fake API server is Kubernetes where the rules look, and the rules and waits that judge
those states hold on it, end to end through the real kubectl.

- Quantities are stored in their canonical form (k8s.io/apimachinery pkg/api/resource,
  ``ParseQuantity`` and ``CanonicalizeBytes``): ``1000m`` is ``1``, ``1024Mi`` is ``1Gi``. The
  cases below are from apimachinery's own quantity_test.go (``TestQuantityCanonicalize``,
  ``TestQuantityParse``). So ``kubectl rollout undo`` (which sends the template back through
  Go's typed Quantity, canonical) finds the old revision's ReplicaSet again, as on a real
  cluster; before, the fake kept ``1000m``, the undo's ``1`` made a third ReplicaSet.
- The rolling update keeps the one available ReplicaSet while new ones cannot start
  (pkg/controller/deployment rolling.go: maxUnavailable, unhealthy old ReplicaSets first);
  before, a second broken image after a first scaled the serving ReplicaSet to 0.
- A container's first crash has no ``lastState`` (the kubelet fills it from the previous
  container, kubelet_pods.go ``convertToAPIContainerStatuses``); before, the fake set it at
  once.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.rules.quantities import quantity_value
from tests.e2e.conftest import Cluster, selector, spec
from tests.fakecluster.quantity import canonical

CONTAINER_LABEL = "org.mieweb.opensource-server.container-id"

# (sent, stored): apimachinery quantity_test.go's canonical forms
CANONICAL = [
    ("1000m", "1"),
    ("1024Mi", "1Gi"),
    ("1536Mi", "1536Mi"),  # not a whole Gi: stays in Mi
    ("1.5Gi", "1536Mi"),
    ("0.5", "500m"),
    ("100m", "100m"),
    ("1000", "1k"),
    ("1000M", "1G"),
    ("3000000", "3M"),
    ("1023", "1023"),
    ("1024", "1024"),  # decimal stays decimal
    ("0.5Ki", "512"),  # binary below 1024 is written decimal
    ("1Ki", "1Ki"),
    ("1e3", "1e3"),  # an exponent stays an exponent
    ("12e2", "1200"),
    ("0", "0"),
    ("0.0000000001", "1n"),  # rounded up to 1n, never to 0
    ("-1000m", "-1"),
]


@pytest.mark.parametrize(("sent", "stored"), CANONICAL)
def test_quantities_are_stored_canonical(sent: str, stored: str) -> None:
    assert canonical(sent) == stored


QUANTITIES = st.builds(
    lambda n, frac, suffix: f"{n}{frac}{suffix}",
    st.integers(0, 5000),
    st.sampled_from(["", ".5", ".25", ".125", ".001"]),
    st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "Ti", "e3", "e-3", "n", "u"]),
)


@given(QUANTITIES)
def test_the_canonical_form_is_the_same_amount_and_stable(sent: str) -> None:
    stored = canonical(sent)
    assert stored is not None and canonical(stored) == stored
    value, again = quantity_value(sent), quantity_value(stored)
    assert value is not None and again is not None
    nano = Fraction(1, 10**9)
    assert again >= value and again - value < nano  # only rounded up to a whole nano


def _ready_pods(cluster: Cluster, container_id: str) -> list[dict[str, Any]]:
    return [
        p
        for p in cluster.pods(selector(container_id))
        if not p["metadata"].get("deletionTimestamp")
        and any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in p["status"].get("conditions") or []
        )
    ]


def test_drift_by_value_and_a_rollback_reusing_its_revision(cluster: Cluster) -> None:
    """Manager sends 1000m and 1024Mi; the API server stores 1 and 1Gi: in sync. A crashing
    reconfigure rolled back reuses revision 1's ReplicaSet (now revision 3): two in all."""
    cluster.require_fake()
    name, cid = cluster.workload("canon")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid, cpus=1, memoryMb=1024))
    assert created.code == 0, created
    pid = created.doc["providerId"]
    stored = cluster.deployment(name)
    assert stored is not None
    (main,) = stored["spec"]["template"]["spec"]["containers"]
    assert main["resources"]["limits"] == {"cpu": "1", "memory": "1Gi"}, main["resources"]
    status = cluster.adapter("status", pid)
    assert status.doc["drift"]["state"] == "in-sync", status.doc["drift"]
    assert (status.doc["cpus"], status.doc["memoryMb"]) == (1, 1024)
    (first,) = cluster.replicasets(selector(cid))
    crashing = spec(name, cid, cpus=1, memoryMb=1024, env={"KEY": "crash"})
    crashing["entrypoint"] = "sh -c 'exit 1'"
    failed = cluster.adapter(
        "reconfigure", pid, "--spec", "-", "--rollback-on-failure",
        stdin=crashing, flags=["--timeout", "30"],
    )  # fmt: skip
    assert failed.code != 0 and failed.doc["error"]["details"]["rollback"]["succeeded"], failed
    replicasets = cluster.replicasets(selector(cid))
    assert len(replicasets) == 2, [r["metadata"]["name"] for r in replicasets]
    reused = next(r for r in replicasets if r["metadata"]["uid"] == first["metadata"]["uid"])
    assert reused["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert reused["spec"]["replicas"] == 1
    after = cluster.adapter("status", pid).doc
    assert after["status"] == "running" and after["drift"]["state"] == "in-sync", after["drift"]


def test_a_second_broken_image_keeps_the_app_serving(cluster: Cluster) -> None:
    """Two reconfigures to images that cannot be pulled, one after the other: the first
    ReplicaSet keeps its Ready Pod throughout, and status says running."""
    cluster.require_fake()
    name, cid = cluster.workload("twobad")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created
    pid = created.doc["providerId"]
    (serving,) = _ready_pods(cluster, cid)
    for image in ("registry.invalid/does-not-exist:1", "registry.invalid/does-not-exist:2"):
        failed = cluster.adapter(
            "reconfigure", pid, "--spec", "-", stdin=spec(name, cid, image=image),
            flags=["--timeout", "30"],
        )  # fmt: skip
        assert failed.code != 0, failed
        assert [p["metadata"]["uid"] for p in _ready_pods(cluster, cid)] == [
            serving["metadata"]["uid"]
        ], image
    sets = {
        r["metadata"]["name"]: r["spec"]["replicas"] for r in cluster.replicasets(selector(cid))
    }
    owner = serving["metadata"]["ownerReferences"][0]["name"]
    assert sets[owner] == 1, sets
    status = cluster.adapter("status", pid).doc
    # running: the old Pod serves (podIp follows the newest ReplicaSet only, docs/networking.md)
    assert status["status"] == "running", status


def test_a_first_crash_has_no_last_state(cluster: Cluster) -> None:
    """The crash the waits judge first: terminated, restartCount 0, no lastState; create
    still fails on it (RolloutFailed, naming the exit); the restart moves it to lastState."""
    fake = cluster.require_fake()
    name, cid = cluster.workload("firstcrash")
    crashing = spec(name, cid, env={"KEY": "crash"})
    crashing["entrypoint"] = "sh -c 'exit 1'"
    result = cluster.adapter("create", "--spec", "-", stdin=crashing, flags=["--timeout", "30"])
    assert result.error_type == "RolloutFailed", result
    assert "exit" in result.doc["error"]["message"], result.doc

    def statuses() -> list[dict[str, Any]]:
        """Every container status the Pod went through (the watch log: no state missed)."""
        return [
            cs
            for kind, pod in fake.history("pods", cluster.namespace)
            if pod["metadata"].get("labels", {}).get(CONTAINER_LABEL) == cid
            for cs in pod.get("status", {}).get("containerStatuses") or []
        ]

    restarted = fake.wait_for(
        lambda: [cs for cs in statuses() if cs.get("restartCount")], timeout=30, message="restart"
    )
    first = [cs for cs in statuses() if "terminated" in cs["state"] and not cs["restartCount"]]
    assert first and all(not cs.get("lastState") for cs in first), first
    assert restarted[0]["lastState"]["terminated"]["exitCode"] == 1, restarted
