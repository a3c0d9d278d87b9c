"""Operators reproduce the adapter by hand: its ``-v`` log and its ``--dry-run`` plan paste
into bash as they are.

Two fake clusters with the same uid seed start alike. The adapter runs each operation with
``-v`` against the first; its stderr, unchanged, runs in bash against the second; after every
operation both hold the same Deployment (spec, labels, annotations, generation, uid, field
managers), the same ReplicaSets and as many live Pods. The seed stands for "the same
cluster": reconfigure's manifest names the Deployment's uid, which a paste must keep.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import pytest

from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parents[2]
NS = "manager"
PID = f"{NS}/web-1"
SPEC = str(ROOT / "examples" / "nginx.json")
RECONFIGURED = str(ROOT / "examples" / "nginx-reconfigured.json")
REVISION = "deployment.kubernetes.io/revision"


def _env(fc: FakeCluster, cache: Path) -> dict[str, str]:
    # The kubeconfig and cache come from the environment, so the commands logged carry no
    # --kubeconfig: the very same text then reaches the other cluster.
    return {
        **os.environ,
        "KUBECONFIG": str(fc.kubeconfig),
        "KUBECACHEDIR": str(cache),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }


def adapter(fc: FakeCluster, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "-n", NS, "--timeout", "60", *args],
        capture_output=True,
        text=True,
        env=_env(fc, cache),
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def paste(
    fc: FakeCluster, cache: Path, text: str, script: Path
) -> subprocess.CompletedProcess[str]:
    """Run ``text`` as bash against ``fc``, stopping at the first command that fails."""
    script.write_text(text)
    return subprocess.run(
        ["bash", "-e", str(script)],
        capture_output=True,
        text=True,
        env=_env(fc, cache),
        cwd=script.parent,
        timeout=120,
        check=False,
    )


def end_state(fc: FakeCluster) -> dict[str, Any]:
    """What an operation leaves behind, without the fields that name a moment, once the
    cluster has reacted to it: a reconfigure of a stopped workload returns right after its
    apply, before the deployment controller sets the revision (on a real cluster too), so a
    read at that moment may show either cluster a step behind the other."""
    fc.settle(timeout=30)
    deployment = fc.get("deployments", NS, "web-1")
    out: dict[str, Any] = {"deployment": None}
    if deployment is not None:
        md = deployment["metadata"]
        out["deployment"] = {
            "spec": deployment["spec"],
            "labels": md.get("labels"),
            "annotations": md.get("annotations"),
            "generation": md.get("generation"),
            "uid": md["uid"],
            "managedFields": [
                {k: v for k, v in entry.items() if k != "time"}
                for entry in md.get("managedFields") or []
            ],
        }
    out["replicasets"] = sorted(
        (rs["metadata"]["name"], rs["spec"].get("replicas"), rs["spec"]["template"])
        for rs in fc.list("replicasets", NS)
    )
    out["livePods"] = len(
        [p for p in fc.list("pods", NS) if not p["metadata"].get("deletionTimestamp")]
    )
    return out


@pytest.fixture
def twins(tmp_path: Path) -> Iterator[tuple[FakeCluster, FakeCluster]]:
    kwargs: dict[str, Any] = {
        "namespaces": ("default", NS),
        "uid_seed": "pasted-logs",
        "pod_ready_delay": 0.1,
        "termination_delay": 0.05,
    }
    with (
        FakeCluster(tmp_path / "adapter", **kwargs) as first,
        FakeCluster(tmp_path / "by-hand", **kwargs) as second,
    ):
        yield first, second


def test_every_operations_log_pasted_reaches_the_adapters_end_state(
    twins: tuple[FakeCluster, FakeCluster], tmp_path: Path
) -> None:
    first, second = twins
    operations = [
        ("create", ["--node-id", "7", "create", "--spec", SPEC]),
        ("stop", ["stop", PID]),
        ("start", ["start", PID]),
        ("reconfigure", ["reconfigure", PID, "--spec", RECONFIGURED]),
        ("stop again", ["stop", PID]),
        ("reconfigure stopped", ["reconfigure", PID, "--spec", SPEC]),
        ("start again", ["start", PID]),
        ("delete", ["delete", PID]),
    ]
    for number, (what, args) in enumerate(operations):
        ran = adapter(first, tmp_path / "cache-adapter", "-v", *args)
        assert ran.returncode == 0, (what, ran.stdout, ran.stderr)
        log = ran.stderr
        assert log.startswith("# kubectl-adapter -n manager "), log
        # Only commands and their outcomes: kubectl's own -v=6 lines stay out of -v.
        assert "round_trippers" not in log and "loader.go" not in log, log
        # ... and none of its commands asks kubectl for them (start's and stop's patch runs
        # with -v=6): pasted, kubectl prints nothing but what it prints for an operator.
        assert not re.search(r"^kubectl .* --?v=\d", log, re.M), log
        pasted = paste(second, tmp_path / "cache-by-hand", log, tmp_path / f"{number}.sh")
        assert pasted.returncode == 0, (what, log, pasted.stderr)
        assert "round_trippers" not in pasted.stderr, (what, pasted.stderr)
        assert end_state(second) == end_state(first), what
    assert end_state(second)["deployment"] is None


def test_states_are_compared_once_each_cluster_has_reacted(
    twins: tuple[FakeCluster, FakeCluster], tmp_path: Path
) -> None:
    """The paste of a stopped reconfigure ends with its apply, as the adapter does; the
    deployment controller sets the revision after that. Held here, it shows the flake's
    difference (revision 1 against 2) deterministically: no extra rollout on either side,
    only a read before the controller caught up, which the comparison now waits out."""
    first, second = twins
    for number, args in enumerate((["--node-id", "7", "create", "--spec", SPEC], ["stop", PID])):
        ran = adapter(first, tmp_path / "cache-adapter", "-v", *args)
        assert ran.returncode == 0, ran.stderr
        pasted = paste(second, tmp_path / "cache-by-hand", ran.stderr, tmp_path / f"{number}.sh")
        assert pasted.returncode == 0, pasted.stderr
    ran = adapter(
        first, tmp_path / "cache-adapter", "-v", "reconfigure", PID, "--spec", RECONFIGURED
    )
    assert ran.returncode == 0, ran.stderr
    want = end_state(first)
    assert want["deployment"]["annotations"][REVISION] == "2"
    with ThreadPoolExecutor(1) as pool, second.controllers_held():
        pasted = paste(second, tmp_path / "cache-by-hand", ran.stderr, tmp_path / "r.sh")
        assert pasted.returncode == 0, pasted.stderr
        applied = second.get("deployments", NS, "web-1")
        assert applied is not None and applied["metadata"]["generation"] == 3
        assert applied["metadata"]["annotations"][REVISION] == "1"  # not synced yet
        assert len(second.list("replicasets", NS)) == 1  # the new template's: not yet
        reading = pool.submit(end_state, second)
        with pytest.raises(FutureTimeout):
            reading.result(timeout=1)  # no read while the cluster has not reacted
    assert reading.result(timeout=60) == want


def _plan(fc: FakeCluster, cache: Path, *args: str) -> str:
    ran = adapter(fc, cache, "--dry-run", *args)
    assert ran.returncode == 0, ran.stdout
    plan = json.loads(ran.stdout)
    assert plan["dryRun"] is True
    return "\n".join(plan["commands"]) + "\n"


def test_a_reconfigure_plan_applies_later_but_never_to_a_re_created_deployment(
    twins: tuple[FakeCluster, FakeCluster], tmp_path: Path
) -> None:
    fc, _ = twins
    cache = tmp_path / "cache"
    assert adapter(fc, cache, "--node-id", "7", "create", "--spec", SPEC).returncode == 0
    plan = _plan(fc, cache, "reconfigure", PID, "--spec", RECONFIGURED)
    before = fc.get("deployments", NS, "web-1")
    assert before is not None
    assert f'uid: "{before["metadata"]["uid"]}"' in plan
    assert "resourceVersion:" not in plan.split("<<'MANIFEST'", 1)[1]
    # A status change and a scale move the resourceVersion on before the plan is pasted.
    assert adapter(fc, cache, "stop", PID).returncode == 0
    assert adapter(fc, cache, "start", PID).returncode == 0
    pasted = paste(fc, cache, plan, tmp_path / "plan.sh")
    assert pasted.returncode == 0, (plan, pasted.stderr)
    after = fc.get("deployments", NS, "web-1")
    assert after is not None and after["metadata"]["uid"] == before["metadata"]["uid"]
    env = after["spec"]["template"]["spec"]["containers"][0]["env"]
    wanted = json.loads(Path(RECONFIGURED).read_text())["env"]
    assert {e["name"]: e["value"] for e in env} == wanted
    assert after["spec"]["replicas"] == 1  # the plan leaves the count to start/stop

    # The same plan once the Deployment was deleted and re-created: refused, nothing changed.
    plan = _plan(fc, cache, "reconfigure", PID, "--spec", SPEC)
    assert adapter(fc, cache, "delete", PID).returncode == 0
    assert adapter(fc, cache, "--node-id", "7", "create", "--spec", RECONFIGURED).returncode == 0
    recreated = fc.get("deployments", NS, "web-1")
    pasted = paste(fc, cache, plan, tmp_path / "plan-2.sh")
    assert pasted.returncode != 0
    assert "uid mismatch" in pasted.stderr or "field is immutable" in pasted.stderr, pasted.stderr
    assert fc.get("deployments", NS, "web-1") == recreated


def test_the_check_plan_pastes_with_its_access_reviews(
    twins: tuple[FakeCluster, FakeCluster], tmp_path: Path
) -> None:
    fc, _ = twins
    plan = _plan(fc, tmp_path / "cache", "check")
    assert "create -f - -o json <<'MANIFEST'" in plan  # the reviews travel with the command
    pasted = paste(fc, tmp_path / "cache", plan, tmp_path / "check.sh")
    assert pasted.returncode == 0, (plan, pasted.stderr)
    assert pasted.stdout.count('"kind": "SelfSubjectAccessReview"') >= 10
    assert '"allowed": false' not in pasted.stdout  # the admin may do everything
