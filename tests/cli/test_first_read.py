"""The CLI starts a command's first read before it imports the operation (``open_read``).

The read must be exactly the one the operation then runs, so it is taken over, not run twice:
each test registers every kubectl call once (pytest-subprocess), and an extra process fails.
A read nobody takes is killed with its process group when the command ends.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli import dispatch
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.runner import KubectlRunner
from tests.k8s_objects import (
    deployment,
    kubectl_list,
    kubectl_object,
    pod,
    replicaset,
    running_workloads,
)

K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]
# kubectl -v=6's line for a watch request: its list has been printed.
LISTED = (
    "I1201 20:13:24.942901   23621 round_trippers.go:560] GET https://127.0.0.1:6443/apis/apps/"
    "v1/namespaces/testns/deployments?fieldSelector=metadata.name%3Dweb-1&resourceVersion=1002&"
    "watch=true 200 OK in 0 milliseconds\n"
)
NOT_FOUND = {
    "stderr": 'Error from server (NotFound): deployments.apps "web-1" not found\n',
    "returncode": 1,
}


@pytest.fixture(autouse=True)
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name, *a, **k: name)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The reads the CLI opened ahead, as argv (the real ``open_read`` still runs)."""
    seen: list[list[str]] = []
    real = KubectlRunner.open_read

    def recording(self: KubectlRunner, args: Any, *, namespace: str | None = None) -> None:
        seen.append(self.argv(args, namespace=namespace))
        real(self, args, namespace=namespace)

    monkeypatch.setattr(KubectlRunner, "open_read", recording)
    return seen


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = cli.main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def test_status_reads_once_and_the_read_was_opened_ahead(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, opened: list[list[str]]
) -> None:
    read = [*K, *commands.named_workload("web-1")]
    dep = deployment("web-1")
    rs = replicaset(dep, "h000000001")
    fp.register(read, stdout=kubectl_list([dep, rs, pod(rs)]))
    code, doc = _run(capsys, "status", "testns/web-1")
    assert (code, doc["status"]) == (0, "running")
    assert opened == [read]
    assert fp.call_count(read) == 1


def test_list_with_a_namespace_opens_its_one_read(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, opened: list[list[str]]
) -> None:
    read = [*K, *commands.list_workloads("7")]
    fp.register(read, stdout=kubectl_list(running_workloads(2)))
    code, doc = _run(capsys, "-n", "testns", "--node-id", "7", "list")
    assert code == 0 and len(doc["items"]) == 2
    assert opened == [read]
    assert fp.call_count(read) == 1


def test_delete_of_a_foreign_deployment_reads_once_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, opened: list[list[str]]
) -> None:
    get = [*K, *commands.get_deployment("web-1")]
    fp.register(get, stdout=kubectl_object(deployment(managed=False)))
    code, doc = _run(capsys, "delete", "testns/web-1")
    assert code != 0 and doc["error"]["type"] == "Conflict"
    assert opened == [get]
    assert len(fp.calls) == 1  # no delete ran


def test_create_without_a_namespace_opens_nothing(
    capsys: pytest.CaptureFixture[str],
    fp: FakeProcess,
    opened: list[list[str]],
    tmp_path: Path,
) -> None:
    """The namespace is the context's, looked up first: nothing is known to open ahead."""
    spec = tmp_path / "spec.json"
    example = json.loads((Path(__file__).parents[2] / "examples" / "nginx.json").read_text())
    spec.write_text(json.dumps(example | {"containerId": "42", "nodeId": "7", "hostname": "web-1"}))
    fp.register(["kubectl", *cli_view()], stdout="testns")
    from kubectl_adapter.contract.naming import identity_labels, selector_string

    selector = selector_string(identity_labels("42"))
    deployments, pods = commands.wait_watches("web-1", selector, any_labels=True)
    foreign = {"type": "ADDED", "object": deployment(managed=False)}
    fp.register(["kubectl", "-n", "testns", *deployments], stdout=json.dumps(foreign) + "\n",
                stderr=LISTED)  # fmt: skip
    fp.register(["kubectl", "-n", "testns", *pods], stderr=LISTED)
    code, doc = _run(capsys, "create", "--spec", str(spec))
    assert code != 0 and doc["error"]["type"] == "Conflict"
    assert doc["error"]["details"]["applied"] is False
    assert opened == []
    assert len(fp.calls) == 3  # the namespace, the two watches: no apply


def cli_view() -> list[str]:
    from kubectl_adapter.kubectl.runner import CONTEXT_NAMESPACE

    return ["--request-timeout", "10s", *CONTEXT_NAMESPACE]


def test_first_read_is_what_each_operation_reads_first() -> None:
    """The reads the CLI names are the operations' own commands (kubectl.commands)."""
    parser = cli.build_parser()
    cases = {
        ("-n", "ns", "list"): commands.list_workloads(None),
        ("status", "ns/web-1"): commands.named_workload("web-1"),
        ("network", "ns/web-1"): commands.named_workload("web-1"),
        ("describe", "ns/web-1"): commands.named_workload("web-1"),
        ("delete", "ns/web-1"): commands.get_deployment("web-1"),
    }
    for argv, read in cases.items():
        assert dispatch.first_read(parser.parse_args(list(argv))) == (read, "ns"), argv
    for argv in (("start", "ns/web-1"), ("stop", "ns/web-1"), ("--dry-run", "describe", "ns/x")):
        # Writes are never started ahead; a dry run runs no kubectl it does not print.
        assert dispatch.first_read(parser.parse_args(list(argv))) is None, argv
    assert dispatch.first_read(parser.parse_args(["status", "not a provider id"])) is None


def _sleeper(tmp_path: Path) -> Path:
    """A kubectl that starts a child (as an exec credential plugin would) and hangs."""
    pids = tmp_path / "pids"
    stub = tmp_path / "kubectl"
    stub.write_text(f"#!/bin/sh\nsleep 60 &\necho $$ $! > {pids}\nwait\n")
    stub.chmod(0o755)
    return stub


def _pids(tmp_path: Path) -> list[int]:
    path = tmp_path / "pids"
    for _ in range(500):  # the stub writes them as it starts: read once it has
        if path.exists() and path.read_text().strip():
            return [int(p) for p in path.read_text().split()]
        subprocess.run(["true"], check=False)
    raise AssertionError("the stub kubectl never started")


def _alive(pid: int) -> bool:
    # A zombie is dead too: only its parent (init, once reparented) has not reaped it yet.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _gone(pids: list[int]) -> bool:
    """SIGKILL is delivered, not awaited: allow the kernel a bounded moment to finish."""
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not any(_alive(pid) for pid in pids)


def test_a_read_nobody_takes_is_killed_with_its_group(tmp_path: Path) -> None:
    runner = KubectlRunner(ClusterConfig(kubectl=str(_sleeper(tmp_path)), namespace="ns"))
    runner.open_read(commands.get_deployment("web-1"))
    kubectl, child = _pids(tmp_path)
    assert _alive(kubectl) and _alive(child)
    runner.close()
    assert _gone([kubectl, child])
    runner.close()  # twice is harmless


def test_a_signal_after_the_read_opened_kills_it(tmp_path: Path) -> None:
    """A SIGTERM while the CLI imports the operation: the Interrupted document, exit 143,
    and the opened kubectl (with its child) is gone."""
    stub = _sleeper(tmp_path)
    pids = str(tmp_path / "pids")
    script = (
        "import os, signal, sys\n"
        "from kubectl_adapter.kubectl.runner import KubectlRunner\n"
        "real = KubectlRunner.open_read\n"
        f"PIDS = {pids!r}\n"
        "def opening(self, args, *, namespace=None):\n"
        "    real(self, args, namespace=namespace)\n"
        "    while not (os.path.exists(PIDS) and os.path.getsize(PIDS)):\n"
        "        os.sched_yield()  # until the stub kubectl has started its child\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "KubectlRunner.open_read = opening\n"
        "from kubectl_adapter.cli.app import main\n"
        "sys.exit(main(sys.argv[1:], process=True))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "--kubectl", str(stub), "status", "ns/web-1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert json.loads(done.stdout)["error"]["type"] == "Interrupted"
    assert _gone(_pids(tmp_path))


def test_a_read_another_call_precedes_waits_for_its_own_run(
    tmp_path: Path, fp: FakeProcess
) -> None:
    """Only the run asking for the same argv takes the opened read over."""
    runner = KubectlRunner(ClusterConfig(kubectl="kubectl", namespace="ns"))
    get = ["kubectl", "-n", "ns", "--request-timeout", "10s", *commands.get_deployment("a")]
    other = ["kubectl", "-n", "ns", "--request-timeout", "10s", "get", "namespace", "ns"]
    fp.register(get, stdout=kubectl_object(deployment(name="a")))
    fp.register(other, stdout="namespace/ns\n")
    runner.open_read(commands.get_deployment("a"))
    assert runner.run(["get", "namespace", "ns"]).stdout == "namespace/ns\n"
    found = runner.run_json(commands.get_deployment("a"))
    assert found["metadata"]["name"] == "a"
    assert fp.call_count(get) == 1 and fp.call_count(other) == 1
    runner.close()


def test_first_watches_are_what_start_and_stop_watch_first() -> None:
    """start's and stop's first kubectl: the watches their wait starts before the patch
    (``lifecycle._scale_steps``), opened by the CLI before the operation is imported."""
    from kubectl_adapter.contract.naming import ProviderId
    from kubectl_adapter.operations.lifecycle import _scale_steps
    from kubectl_adapter.operations.workload import Workloads

    parser = cli.build_parser()
    for verb, replicas in (("start", 1), ("stop", 0)):
        for extra, cid in (([], None), (["--container-id", "42"], "42")):
            args = parser.parse_args([verb, "ns/web-1", *extra])
            config = ClusterConfig(kubectl="kubectl", namespace="ns")
            workloads = Workloads(config, KubectlRunner(config))
            steps = _scale_steps(workloads, ProviderId("ns", "web-1"), replicas, cid)
            watched = [steps.watch.args, *steps.watch.beside]
            assert dispatch.first_watches(args, None) == (watched, "ns"), (verb, extra)
    for argv in (("--dry-run", "stop", "ns/web-1"), ("stop", "web-1"), ("status", "ns/web-1")):
        assert dispatch.first_watches(parser.parse_args(list(argv)), None) is None, argv


def test_create_opens_its_watches_as_its_first_kubectl(tmp_path: Path) -> None:
    """create's first kubectl: its wait's watches (the Deployment's by its name alone, whose
    list the ownership check reads), the ones ``create._steps`` runs."""
    from kubectl_adapter.contract.naming import ProviderId, identity_labels, selector_string
    from kubectl_adapter.contract.spec import load_spec
    from kubectl_adapter.operations.create import _steps
    from kubectl_adapter.operations.workload import Workloads

    example = Path(__file__).parents[2] / "examples" / "nginx.json"
    spec = load_spec(str(example))
    parser = cli.build_parser()
    config = ClusterConfig(kubectl="kubectl", namespace="ns")
    workloads = Workloads(config, KubectlRunner(config))
    selector = selector_string(identity_labels(spec.container_id))
    steps = _steps(workloads, ProviderId("ns", spec.hostname), selector)
    args = parser.parse_args(["-n", "ns", "create", "--spec", str(example)])
    assert dispatch.first_watches(args, spec) == ([steps.watch.args, *steps.watch.beside], "ns")
    for argv in (
        ["create", "--spec", str(example)],
        ["--dry-run", "-n", "ns", "create", "--spec", "-"],
    ):
        assert dispatch.first_watches(parser.parse_args(argv), spec) is None, argv


def test_watches_nobody_takes_are_killed_with_their_groups(tmp_path: Path) -> None:
    runner = KubectlRunner(ClusterConfig(kubectl=str(_sleeper(tmp_path)), namespace="ns"))
    runner.open_watches([commands.watch_pods("a=b")], namespace="ns")
    kubectl, child = _pids(tmp_path)
    assert _alive(kubectl) and _alive(child)
    runner.close()
    assert _gone([kubectl, child])


def _spec_file(tmp_path: Path, **changed: Any) -> Path:
    example = json.loads((Path(__file__).parents[2] / "examples" / "nginx.json").read_text())
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(example | {"containerId": 42, "hostname": "web-1"} | changed))
    return spec


@pytest.mark.parametrize(
    ("changed", "extra"),
    [
        ({"cpus": 0.0005}, []),
        ({"env": {"A": [1]}, "image": ""}, []),
        ({"nodeId": "8"}, ["--node-id", "7"]),
    ],
    ids=["cpus", "env and image", "another node"],
)
def test_create_of_a_refused_spec_has_only_watched_and_says_what_it_always_said(
    capsys: pytest.CaptureFixture[str],
    fp: FakeProcess,
    opened: list[list[str]],
    tmp_path: Path,
    changed: dict[str, Any],
    extra: list[str],
) -> None:
    """The spec's names are enough to open create's watches before the rest of the spec is
    validated (its rules, with decimal, are imported while they run): a refused spec then
    ends the command with those watches killed, nothing else started, the same error as
    validating it alone, and a -v log that names no kubectl command (none was taken)."""
    from kubectl_adapter.contract.errors import InvalidInput
    from kubectl_adapter.contract.naming import identity_labels, selector_string
    from kubectl_adapter.contract.spec import parse_node_spec
    from kubectl_adapter.contract.spec_input import read_document

    spec = _spec_file(tmp_path, **changed)
    with pytest.raises(InvalidInput) as refused:
        parse_node_spec(read_document(str(spec)), extra[-1] if extra else None)
    watches = commands.wait_watches(
        "web-1", selector_string(identity_labels("42")), any_labels=True
    )
    for watch in watches:
        fp.register(["kubectl", "-n", "testns", *watch], wait=60)
    code = cli.main(["-v", "-n", "testns", *extra, "create", "--spec", str(spec)])
    out, log = capsys.readouterr()
    assert (code, json.loads(out)) == (refused.value.exit_code, refused.value.to_json())
    assert opened == []
    started = [["kubectl", "-n", "testns", *watch] for watch in watches]
    assert [list(call) for call in fp.calls] == started
    assert log.count("\n") == 1 and log.startswith("# kubectl-adapter -v ")  # its header only


@pytest.mark.parametrize(
    "changed",
    [{"hostname": "--all"}, {"hostname": "Web_1"}, {"containerId": "-1"}, {"containerId": True}],
    ids=["a flag", "not a DNS label", "not a label value", "a boolean"],
)
def test_a_spec_whose_names_are_not_names_opens_nothing(
    capsys: pytest.CaptureFixture[str],
    fp: FakeProcess,
    opened: list[list[str]],
    tmp_path: Path,
    changed: dict[str, Any],
) -> None:
    """Nothing unvalidated reaches kubectl's argv: without valid names nothing opens ahead,
    and the refused spec runs no kubectl at all (fp fails on any unregistered call)."""
    spec = _spec_file(tmp_path, **changed)
    code, doc = _run(capsys, "-n", "testns", "create", "--spec", str(spec))
    assert code == 2 and doc["error"]["type"] == "InvalidInput"
    assert opened == [] and list(fp.calls) == []
