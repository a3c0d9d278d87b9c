"""kubectl output of the wrong shape: InternalError naming the command, never a traceback.

The property tests put arbitrary JSON where kubectl's output goes (the whole output, or one
subtree of a realistic answer) and run the CLI on it: the answer is a valid document or an
InternalError, nothing else.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.contract.models import NodeInfo, Snapshot
from kubectl_adapter.kubectl import seam
from kubectl_adapter.kubectl.shapes import expected_output, output_problem
from tests.fake_kubectl import FakeProcesses
from tests.k8s_objects import condition, deployment, event, kubectl_list, pod, replicaset

K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]
LIST = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.managed=true",
]
MF = "--show-managed-fields"  # drift reads managedFields from the same answer
NAMESPACE = [*K, "get", "namespace", "testns", "--ignore-not-found", "-o", "name"]
GET = [*K, "get", "deployment", "web-1", "-o", "json", "--show-managed-fields"]
NAMED_SELECTOR = "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.name="
NODES = [*K, "get", "nodes", "-o", "json"]
LIST_ARGS = [
    "get",
    "deployments,replicasets,pods",
    "-l",
    "x",
    "-o",
    "json",
    "--show-managed-fields",
    "-v=6",
]
GET_ARGS = ["get", "deployment", "web-1", "-o", "json", "--show-managed-fields"]


def _workload() -> list[dict[str, Any]]:
    dep = deployment("web-1", uid="u1")
    rs = replicaset(dep)
    failing = deployment(
        "web-2",
        container_id="2",
        uid="u2",
        available=None,
        conditions=[condition("Available", "False", "MinimumReplicasUnavailable")],
    )
    failing_rs = replicaset(failing, "bad3333333")
    return [
        dep,
        rs,
        pod(rs),
        failing,
        failing_rs,
        pod(
            failing_rs,
            "ccccc",
            ready=False,
            ip=None,
            waiting=("CrashLoopBackOff", "back-off"),
            last_terminated=("Error", 1),
            restarts=3,
        ),
    ]


# -- the checker, table-driven ------------------------------------------------------------------

IDENTITY = {"uid": "0b7c9d1e", "resourceVersion": "4711"}


@pytest.mark.parametrize(
    ("args", "value", "problem"),
    [
        (LIST_ARGS, {"items": "x"}, ".items is a string, expected a list"),
        (LIST_ARGS, [], " is a list, expected an object"),
        (LIST_ARGS, {"items": [1]}, ".items[0] is a number, expected an object"),
        (LIST_ARGS, {"items": [{"kind": "Deployment"}]}, ".items[0].metadata is missing"),
        (
            LIST_ARGS,
            {"items": [{"kind": "Pod", "metadata": {"name": "p"}, "status": "Running"}]},
            ".items[0].status is a string, expected an object",
        ),
        (
            LIST_ARGS,
            {"items": [{"kind": "Deployment", "metadata": {"name": "d", "labels": {"a": 1}}}]},
            ".items[0].metadata.labels['a'] is a number, expected a string",
        ),
        (
            LIST_ARGS,
            {"items": [{"kind": 7, "metadata": {}}]},
            ".items[0].kind is a number, expected a string",
        ),
        (
            GET_ARGS,
            {"kind": "Pod", "metadata": {"name": "x"}},
            ".kind is 'Pod', expected 'Deployment'",
        ),
        (
            GET_ARGS,
            {"metadata": {"name": "x", **IDENTITY}, "spec": {"replicas": True}},
            ".spec.replicas is a boolean, expected an integer",
        ),
        (
            GET_ARGS,
            {"metadata": {"name": "x", "uid": "u", "resourceVersion": 7}},
            ".metadata.resourceVersion is a number, expected a string",
        ),
        # Kind-less items: one resource's items are checked as that kind (nodes used to end
        # in a pydantic traceback); a List of several kinds must name each item's kind.
        (
            ["get", "nodes", "-o", "json"],
            {"items": [{"metadata": {"name": 5}}]},
            ".items[0].metadata.name is a number, expected a string",
        ),
        (
            ["get", "nodes", "-o", "json"],
            {"items": [{"metadata": {"name": "n"}, "status": {"capacity": []}}]},
            ".items[0].status.capacity is a list, expected an object",
        ),
        (["get", "nodes", "-o", "json"], {"items": [{}]}, ".items[0].metadata is missing"),
        (
            LIST_ARGS,
            {"items": [{"metadata": {"name": "p"}}]},
            ".items[0].kind is missing (a List of several kinds)",
        ),
        (
            ["version", "-o", "json"],
            {"clientVersion": "v1"},
            ".clientVersion is a string, expected an object",
        ),
        (["apply", "-f", "-"], {"kind": "Deployment"}, ".metadata is missing"),
    ],
)
def test_wrong_shapes_are_named_by_path(args: list[str], value: Any, problem: str) -> None:
    assert output_problem(args, value) == problem


@pytest.mark.parametrize(
    "items",
    [
        _workload(),
        [event("Pod", "web-1-abc", "BackOff", "Back-off restarting")],
        [{"kind": "Something", "spec": 1}],  # kinds the adapter ignores are not read
        [],
    ],
)
def test_real_shapes_pass(items: list[dict[str, Any]]) -> None:
    assert output_problem(LIST_ARGS, json.loads(kubectl_list(items))) is None
    assert output_problem(LIST_ARGS, {"kind": "List"}) is None  # no items: none


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (LIST_ARGS, "List"),
        (GET_ARGS, "Deployment"),
        (
            [
                "get",
                "namespace",
                "testns",
                "--ignore-not-found",
                "-o",
                "json",
                "--show-managed-fields",
            ],
            "Namespace",
        ),
        (["get", "nodes", "-o", "json"], "List"),
        (["get", "events", "--field-selector", "type=Warning", "-o", "json"], "List"),
        (["version", "-o", "json"], "version"),
        (["apply", "--server-side", "-f", "-", "-o", "json"], "Deployment"),
        (["create", "-f", "-", "-o", "json"], "object"),
    ],
)
def test_expected_output_follows_the_command(args: list[str], expected: str) -> None:
    assert expected_output(args) == expected


# -- the CLI on arbitrary JSON --------------------------------------------------------------------

KEYS = st.sampled_from(
    [
        "items",
        "kind",
        "metadata",
        "name",
        "namespace",
        "labels",
        "spec",
        "status",
        "replicas",
        "selector",
        "matchLabels",
        "template",
        "containers",
        "conditions",
        "type",
        "reason",
        "ownerReferences",
        "uid",
        "containerStatuses",
        "state",
        "waiting",
        "podIP",
        "generation",
        "clientVersion",
        "gitVersion",
        "capacity",
        "nodeInfo",
        "annotations",
        "resources",
        "limits",
        "restartCount",
        "lastState",
        "terminated",
        "phase",
        "creationTimestamp",
    ]
)
KINDS = st.sampled_from(["Deployment", "ReplicaSet", "Pod", "List", "Node", "Event"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | KINDS
)
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(KEYS | st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module", autouse=True)
def _kubectl_on_path() -> Iterator[None]:
    # Hypothesis runs many examples per test: FakeProcess() per example, not ``fp``; kubectl
    # runs through the seam's in-memory side (tests/fake_kubectl.py), as with ``fp``.
    with (
        patch("kubectl_adapter.kubectl.config.which", lambda name: name),
        patch.object(seam, "DEFAULT", FakeProcesses()),
    ):
        yield


def _cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _assert_document_or_internal_error(
    code: int, document: Any, stderr: str, model: Any, command: str
) -> None:
    assert "Traceback" not in stderr, stderr
    if code == 0:
        items = document.get("items", [document])
        for item in items:
            assert model.model_validate(item).to_json() == item
        return
    error = document["error"]
    assert (code, error["type"]) == (1, "InternalError"), document
    assert not error["message"].startswith("unexpected"), document  # that is a caught bug
    assert command in error["details"]["command"], document


def _output(value: Any) -> str:
    return json.dumps(value)


SUITE = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SUITE
@given(value=JSON)
def test_list_on_any_json(capsys: pytest.CaptureFixture[str], value: Any) -> None:
    with FakeProcess() as fake:
        fake.register([*LIST, "-o", "json", MF, "-v=6"], stdout=_output(value))
        fake.register(NAMESPACE, stdout="namespace/testns\n")
        code, document, err = _cli(capsys, ["-n", "testns", "list"])
    _assert_document_or_internal_error(code, document, err, Snapshot, "get deployments")


def _named(name: str) -> list[str]:
    """status's first read: the Deployment NAME with its ReplicaSets and Pods."""
    return [*LIST[:-1], NAMED_SELECTOR + name, "-o", "json", MF, "-v=6"]


@SUITE
@given(value=JSON, first=st.booleans())
def test_status_on_any_json(capsys: pytest.CaptureFixture[str], value: Any, first: bool) -> None:
    """Any JSON as the answer of the read by the name label, or (that answer holding no such
    Deployment) of the read by name."""
    with FakeProcess() as fake:
        fake.register(_named("web-1"), stdout=_output(value) if first else kubectl_list([]))
        fake.register(GET, stdout=_output(value))
        fake.register([*K, "get", "replicasets,pods", fake.any()], stdout=kubectl_list([]))
        code, document, err = _cli(capsys, ["-n", "testns", "status", "testns/web-1"])
    # An answer without items (``{}``) is an empty List: the read by name follows.
    command = "get deployment" if first else "get deployment web-1"
    _assert_document_or_internal_error(code, document, err, Snapshot, command)


@SUITE
@given(value=JSON)
def test_nodes_on_any_json(capsys: pytest.CaptureFixture[str], value: Any) -> None:
    with FakeProcess() as fake:
        fake.register(NODES, stdout=_output(value))
        code, document, err = _cli(capsys, ["-n", "testns", "nodes"])
    _assert_document_or_internal_error(code, document, err, NodeInfo, "get nodes")


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


BASE = json.loads(kubectl_list(_workload()))
BASE_PATHS = _paths(BASE)[1:]


def _replaced(path: tuple[Any, ...], value: Any) -> Any:
    changed = copy.deepcopy(BASE)
    target = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return changed


@SUITE
@given(path=st.sampled_from(BASE_PATHS), value=JSON)
def test_list_on_a_realistic_answer_with_one_subtree_replaced(
    capsys: pytest.CaptureFixture[str], path: tuple[Any, ...], value: Any
) -> None:
    with FakeProcess() as fake:
        fake.register([*LIST, "-o", "json", MF, "-v=6"], stdout=_output(_replaced(path, value)))
        fake.register(NAMESPACE, stdout="namespace/testns\n")
        code, document, err = _cli(capsys, ["-n", "testns", "list"])
    _assert_document_or_internal_error(code, document, err, Snapshot, "get deployments")


@SUITE
@given(path=st.sampled_from(_paths(BASE["items"][3])[1:]), value=JSON)
def test_status_on_a_realistic_deployment_with_one_subtree_replaced(
    capsys: pytest.CaptureFixture[str], path: tuple[Any, ...], value: Any
) -> None:
    owned = kubectl_list(BASE["items"][4:])
    with FakeProcess() as fake:
        fake.register(_named("web-1"), stdout=kubectl_list([]))
        fake.register(GET, stdout=_output(_replaced((*("items", 3), *path), value)["items"][3]))
        fake.register([*K, "get", "replicasets,pods", fake.any()], stdout=owned)
        code, document, err = _cli(capsys, ["-n", "testns", "status", "testns/web-1"])
    _assert_document_or_internal_error(code, document, err, Snapshot, "get deployment web-1")


@SUITE
@given(path=st.sampled_from(BASE_PATHS), value=JSON)
def test_status_on_a_realistic_labelled_answer_with_one_subtree_replaced(
    capsys: pytest.CaptureFixture[str], path: tuple[Any, ...], value: Any
) -> None:
    """The one read of a labelled Deployment (web-2 with its ReplicaSet and Pod, beside
    web-1's), one subtree replaced; and the reads that follow when it no longer holds web-2."""
    with FakeProcess() as fake:
        fake.register(_named("web-2"), stdout=_output(_replaced(path, value)))
        get = [*K, "get", "deployment", "web-2", "-o", "json", MF]
        fake.register(get, stdout=_output(BASE["items"][3]))
        fake.register([*K, "get", "replicasets,pods", fake.any()], stdout=kubectl_list([]))
        code, document, err = _cli(capsys, ["-n", "testns", "status", "testns/web-2"])
    _assert_document_or_internal_error(code, document, err, Snapshot, "get deployments")
