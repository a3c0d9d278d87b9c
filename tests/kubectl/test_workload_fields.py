"""``list``'s typed, pruned decode (msgspec) reads the same as the whole JSON, and is never more
lenient than the shape checks.

The rules read dicts with defaults, so a field the pruned decode leaves out would read as
absent without an error: these tests build every list document twice, from ``json.loads`` and
from the pruned decode, over realistic objects in many states (the drift cases, the status
oracle, failing and terminating Pods) and over arbitrary JSON.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.kubectl.commands import list_workloads
from kubectl_adapter.kubectl.shapes import output_problem
from kubectl_adapter.kubectl.workload_fields import (
    MSGSPEC_FROM_BYTES,
    WorkloadList,
    decode_pruned,
    decode_workloads,
)
from kubectl_adapter.rules.snapshots import snapshot_documents, split_kinds
from tests.k8s_objects import (
    condition,
    deployment,
    kubectl_list,
    pod,
    replicaset,
    running_workloads,
)
from tests.kubectl.test_shapes import BASE, BASE_PATHS, JSON, SUITE, _replaced, _workload
from tests.rules import test_drift
from tests.rules.test_oracle import NOW, _require_oracle

ARGS = list_workloads(None)
AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def documents(data: Any, now: datetime = AT) -> list[dict[str, Any]]:
    return snapshot_documents(*split_kinds((data or {}).get("items") or []), now=now)


def assert_same_reading(items: list[dict[str, Any]], now: datetime = AT) -> None:
    text = kubectl_list(items)
    pruned = decode_pruned(text)
    assert pruned is not None, "a real answer must pass the typed decode"
    assert documents(pruned, now) == documents(json.loads(text), now)


def _states() -> list[dict[str, Any]]:
    """Workloads in the states the status rules tell apart."""
    items: list[dict[str, Any]] = []
    for name, dep, pods in (
        ("crash", deployment("crash", available=0), [{"waiting": ("CrashLoopBackOff", "x")}]),
        ("oom", deployment("oom", available=0), [{"last_terminated": ("OOMKilled", 137),
                                                  "restarts": 3, "ready": False}]),
        ("exit", deployment("exit", available=0), [{"terminated": ("Error", 1), "ready": False}]),
        ("pending", deployment("pending", available=0),
         [{"unschedulable": "0/1 nodes are available", "phase": "Pending", "ip": None}]),
        ("deleting", deployment("deleting", deleting=True), [{"deleting": True}]),
        ("stopped", deployment("stopped", replicas=0, available=0), []),
        ("stuck", deployment("stuck", available=0, conditions=[
            condition("Progressing", "False", "ProgressDeadlineExceeded", "too slow")]), []),
    ):  # fmt: skip
        rs = replicaset(dep, template_hash=f"h{name}")
        items += [dep, rs, *(pod(rs, **options) for options in pods)]
    return items


@pytest.mark.parametrize("case", test_drift.CASES, ids=[case[0] for case in test_drift.CASES])
def test_drift_cases_read_the_same(case: tuple[str, dict[str, Any], Any]) -> None:
    dep = case[1]
    rs = replicaset(dep)
    assert_same_reading([dep, rs, pod(rs)])


def test_workloads_in_many_states_read_the_same() -> None:
    assert_same_reading([*_workload(), *_states(), *running_workloads(20)])


def test_the_status_oracle_reads_the_same() -> None:
    oracle = _require_oracle()
    for case in oracle["cases"]:
        deployments = [d for d in [case["deployment"], *case.get("other_deployments", [])] if d]
        items = [
            {"kind": kind, **obj}
            for kind, objs in (
                ("Deployment", deployments),
                ("ReplicaSet", case["replicasets"]),
                ("Pod", case["pods"]),
            )
            for obj in objs
        ]
        assert_same_reading(items, NOW)


def _edge_cases() -> list[dict[str, Any]]:
    """Fields only some states read: each changes a document when it is dropped."""
    items: list[dict[str, Any]] = []
    # A recovered container (ready again after a crash) is no failure; ``ready`` tells.
    dep = deployment("recovered", available=0)
    rs = replicaset(dep, template_hash="hrecovered")
    items += [dep, rs, pod(rs, last_terminated=("Error", 1), restarts=2, ready=True)]
    # An evicted Pod: phase Failed, the reason and message on the Pod's status.
    dep = deployment("evicted", available=0)
    rs = replicaset(dep, template_hash="hevicted")
    evicted = pod(rs, phase="Failed", ready=False)
    evicted["status"].update(reason="Evicted", message="The node was low on memory.")
    items += [dep, rs, evicted]
    # Unschedulable moments ago: still in its grace (lastTransitionTime, not creation).
    dep = deployment("fresh", available=0)
    rs = replicaset(dep, template_hash="hfresh")
    fresh = pod(rs, unschedulable="0/1 nodes are available", phase="Pending", ip=None)
    fresh["status"]["conditions"][0]["lastTransitionTime"] = "2026-12-01T11:59:50Z"
    fresh["metadata"]["creationTimestamp"] = "2026-11-30T00:00:00Z"
    items += [dep, rs, fresh]
    # Two owner references of the kind: the controlling one is not the first.
    dep = deployment("adopted")
    rs = replicaset(dep, template_hash="hadopted")
    adopted = pod(rs)
    stray = {"kind": "ReplicaSet", "name": "other", "uid": "uid-other", "controller": False}
    adopted["metadata"]["ownerReferences"].insert(0, stray)
    items += [dep, rs, adopted]
    # A command where Manager applied none (seen against the applied record) and a pause.
    dep = test_drift.workload()
    dep["spec"]["template"]["spec"]["containers"][0]["command"] = ["sh", "-c", "sleep 1d"]
    dep["spec"]["paused"] = True
    rs = replicaset(dep)
    items += [dep, rs, pod(rs)]
    return items


def test_fields_only_some_states_read_are_kept() -> None:
    assert_same_reading(_edge_cases())


def test_conditions_with_every_field_read_the_same() -> None:
    dep = deployment()
    dep["status"]["conditions"].append(condition("ReplicaFailure", "True", "FailedCreate", "quota"))
    rs = replicaset(dep)
    assert_same_reading([dep, rs, pod(rs)])


@SUITE
@given(value=JSON)
def test_never_more_lenient_than_the_shape_checks(value: Any) -> None:
    text = json.dumps(value)
    pruned = decode_pruned(text)
    if pruned is not None:
        assert output_problem(ARGS, json.loads(text)) is None
        assert documents(pruned) == documents(json.loads(text))


@SUITE
@given(path=st.sampled_from(BASE_PATHS), value=JSON)
def test_one_subtree_replaced_reads_the_same_or_falls_back(path: Any, value: Any) -> None:
    text = json.dumps(_replaced(path, value))
    pruned = decode_pruned(text)
    if pruned is not None:
        assert output_problem(ARGS, json.loads(text)) is None
        assert documents(pruned) == documents(json.loads(text))


def test_a_wrong_type_falls_back_to_the_shape_checks() -> None:
    text = json.dumps({**BASE, "items": [{**BASE["items"][0], "status": "x"}]})
    assert decode_pruned(text) is None
    assert (
        output_problem(ARGS, json.loads(text)) == ".items[0].status is a string, expected an object"
    )


def test_only_big_answers_pay_for_msgspec() -> None:
    small = kubectl_list(running_workloads(2))
    assert len(small) < MSGSPEC_FROM_BYTES
    assert decode_workloads(small) is None  # json.loads + shapes read it
    big = kubectl_list(running_workloads(200))
    assert len(big) >= MSGSPEC_FROM_BYTES
    assert decode_workloads(big) == decode_pruned(big) is not None


def test_a_list_of_another_kind_is_left_to_the_shape_checks() -> None:
    text = json.dumps({"kind": "Deployment", "metadata": {"name": "x"}, "items": []})
    assert decode_pruned(text) is None
    assert output_problem(ARGS, json.loads(text)) == ".kind is 'Deployment', expected a List"


# -- a rule that starts reading a new field must declare it -------------------------------------

# The modules that build list's documents (rules/snapshots.py and what it imports).
LIST_RULES = [
    "snapshots", "status", "pods", "pod_failures", "selection", "drift", "quantities", "clock"
]  # fmt: skip
# Literal keys those modules read that are not fields of a Kubernetes object declared in
# workload_fields, each with the reason it needs none.
NOT_OBJECT_FIELDS = {
    "cpu": "a key of resources.limits, kept whole (dict[str, Any])",
    "memory": "a key of resources.limits, kept whole (dict[str, Any])",
    "running": "a container state, kept whole and checked after the decode",
    "waiting": "a container state, kept whole and checked after the decode",
    "terminated": "a container state, kept whole and checked after the decode",
    "exitCode": "inside a container state, kept whole",
    "startedAt": "inside a container state, kept whole",
    "exponent": "a regex group (quantities)",
    "number": "a regex group (quantities)",
    "suffix": "a regex group (quantities)",
    "providerId": "a snapshot document's own key",
}


def _declared(hint: Any, seen: set[Any]) -> set[str]:
    if hint in seen:
        return set()
    seen.add(hint)
    found: set[str] = set()
    if isinstance(hint, type) and issubclass(hint, dict) and hint is not dict:
        for key, sub in get_type_hints(hint).items():
            found |= {key} | _declared(sub, seen)
    for arg in get_args(hint):
        found |= _declared(arg, seen)
    return found


def test_every_field_the_list_rules_read_is_declared() -> None:
    """A static guard beside the tests above: ``.get("x")`` or ``["x"]`` in a list rule names
    a field the pruned decode must keep (else it would read as absent, silently)."""
    root = Path(__file__).resolve().parents[2] / "kubectl_adapter" / "rules"
    read: set[str] = set()
    for module in LIST_RULES:
        source = (root / f"{module}.py").read_text(encoding="utf-8")
        read |= set(re.findall(r'\.get\(\s*"([A-Za-z0-9_.-]+)"', source))
        read |= set(re.findall(r'\[\s*"([A-Za-z]+)"\s*\]', source))
    undeclared = read - _declared(WorkloadList, set()) - set(NOT_OBJECT_FIELDS)
    assert not undeclared, f"declare these in kubectl/workload_fields.py: {sorted(undeclared)}"
    assert set(NOT_OBJECT_FIELDS) <= read, "an allowance no rule needs any more"


def test_list_of_a_big_answer_prints_what_the_whole_json_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end through the runner (kubectl's bytes, no text copy) and the CLI."""
    from kubectl_adapter.cli import app as cli

    items = [*running_workloads(200), *_states(), *_edge_cases()]
    answer = kubectl_list(items)
    assert len(answer) >= MSGSPEC_FROM_BYTES
    (tmp_path / "out.json").write_text(answer, encoding="utf-8")
    stub = tmp_path / "kubectl"
    stub.write_text(f"#!/bin/sh\nexec cat '{tmp_path / 'out.json'}'\n", encoding="utf-8")
    stub.chmod(0o755)
    code = cli.main(["--kubectl", str(stub), "-n", "testns", "list"])
    printed = json.loads(capsys.readouterr().out)["items"]
    assert code == 0
    whole = documents(json.loads(answer), now=datetime.now(UTC))
    assert [d["providerId"] for d in printed] == [d["providerId"] for d in whole]
    # The clock moves between the two: compare all but the time-dependent messages.
    assert [{**d, "message": ""} for d in printed] == [{**d, "message": ""} for d in whole]
