"""The CLI contract: one JSON document on stdout, typed exit codes, logs on stderr."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.contract import errors
from kubectl_adapter.contract.errors import ALL_ERRORS
from tests.k8s_objects import deployment, kubectl_list, kubectl_object, pod, replicaset

ROOT = Path(__file__).resolve().parents[2]
NGINX = str(ROOT / "examples" / "nginx.json")
K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]
# status's first read: web-1 with its ReplicaSets and Pods, by the name label
NAMED_WEB1 = [
    "get",
    "deployments,replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.name=web-1",
    "-o",
    "json",
    "--show-managed-fields",
    "-v=6",
]
GET_WEB1 = [
    "get",
    "deployment",
    "web-1",
    "--ignore-not-found",
    "-o",
    "json",
    "--show-managed-fields",
]


@pytest.fixture(autouse=True)
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    try:
        document = json.loads(out)
    except json.JSONDecodeError:
        document = out
    return code, document, err


def test_dry_run_create_prints_commands_and_manifest(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    code, document, _ = run(capsys, "--dry-run", "-n", "testns", "create", "--spec", NGINX)
    assert code == 0
    assert document["dryRun"] is True
    manifest = document["manifest"]
    assert manifest.startswith("apiVersion: apps/v1\nkind: Deployment\n")
    assert document["commands"] == [
        # The adapter's wait is a watch (a comment: pasted, a watch never ends), started
        # before the apply: the API server answering it proves the wait's permissions, and
        # the Deployment's, by its name alone, lists what the ownership check reads.
        "# the adapter watches: kubectl -n testns get deployments --field-selector "
        "metadata.name=web-1 --watch -o json --output-watch-events --show-managed-fields\n"
        "# and at once: kubectl -n testns get pods -l "
        "org.mieweb.opensource-server.container-id=42,org.mieweb.opensource-server.managed=true "
        "--watch -o json --output-watch-events",
        # The manifest follows as a heredoc: the plan pastes into bash as it is.
        "kubectl -n testns --request-timeout 10s apply --server-side "
        "--field-manager=opensource-server-manager --force-conflicts -f - -o json "
        "--show-managed-fields <<'MANIFEST'\n"
        f"{manifest.rstrip()}\nMANIFEST",
        # Then the command that waits for the same end state, as a whole: pasted, it waits
        # as long.
        "# (judging each event, killed once the wait is decided; pasted, a watch never ends: "
        "the next line waits for the same end state)\n"
        "kubectl -n testns rollout status deployment/web-1 --timeout=300s",
        # No read after the wait: the Deployment its last event shows is the answer.
    ]
    assert not fp.calls


def test_render_prints_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    code, document, _ = run(capsys, "-n", "testns", "render", "--spec", NGINX)
    assert code == 0
    assert isinstance(document, str) and 'namespace: "testns"' in document


def test_capabilities(capsys: pytest.CaptureFixture[str]) -> None:
    code, document, _ = run(capsys, "capabilities")
    assert (code, document) == (
        0,
        {
            "stableMacAddress": False,
            "stableIpAddress": False,
            "vmid": False,
            "storage": False,
            "templates": False,
            "registerNetbox": False,
            "registerDns": False,
            "podIpEphemeral": True,
        },
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        ["-n", "ns"],  # flags but no command (no arguments at all prints the help)
        ["-o", "yaml", "-o", "xml", "list"],
        ["status"],
        ["create"],
        ["--timeout", "0", "status", "ns/web-1"],
        ["--timeout", "abc", "status", "ns/web-1"],
        ["--node-id", "not valid!", "list"],
        ["status", "a/b/c"],
    ],
)
def test_usage_errors_are_json_with_exit_2(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, argv: list[str]
) -> None:
    code, document, _ = run(capsys, *argv)
    assert code == 2
    assert document["error"]["type"] in ("InvalidInput", "InvalidProviderId")
    assert not fp.calls


@pytest.mark.parametrize(
    "command",
    [
        ["create"],
        ["-n", "testns", "create"],
        ["reconfigure", "testns/web-1"],
        ["render"],
        ["-n", "testns", "render"],
    ],
)
def test_a_spec_of_another_node_is_refused_before_any_write(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, command: list[str]
) -> None:
    """`--node-id 8 create` of a spec with nodeId 7 used to succeed: node 8 then never listed
    the workload and refused to stop it (its labels said node 7). Refused before anything
    that can write: only the reads its arguments name were started ahead (create's watches
    when the namespace is known, reconfigure's read), and killed, having only read (fp fails
    on any other call)."""
    from kubectl_adapter.contract.naming import identity_labels, selector_string
    from kubectl_adapter.kubectl import commands

    ahead = "-n" in command and "create" in command  # create's names with a namespace
    reads = []
    if "reconfigure" in command:
        reads.append([*K, *commands.get_deployment("web-1")])
    if ahead:
        selector = selector_string(identity_labels("42"))
        watches = commands.wait_watches("web-1", selector, any_labels=True)
        reads += [["kubectl", "-n", "testns", *w] for w in watches]
    for read in reads:
        fp.register(read, wait=60)
    code, document, _ = run(capsys, "--node-id", "8", *command, "--spec", NGINX)
    assert (code, document["error"]["type"]) == (2, "InvalidInput"), document
    assert document["error"]["details"] == {"field": "nodeId", "spec": "7", "nodeId": "8"}
    assert [list(call) for call in fp.calls] == reads


def test_invalid_spec_names_the_field(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = json.loads(Path(NGINX).read_text()) | {"hostname": "Web_1"}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    code, document, _ = run(capsys, "create", "--spec", str(path))
    assert code == 2
    assert document["error"]["message"].startswith("invalid spec: hostname: must be a DNS-1123")


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: e.type)
def test_every_error_prints_one_document_with_its_exit_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, error: type[Any]
) -> None:
    from kubectl_adapter.operations.provider import KubernetesProvider

    def fail(self: Any, provider_id: str, container_id: str | None = None) -> None:
        raise error("it failed", {"why": "test"})

    monkeypatch.setattr(KubernetesProvider, "start", fail)
    code, document, _ = run(capsys, "start", "testns/web-1")
    assert code == error.exit_code
    assert document == {
        "error": {"type": error.type, "message": "it failed", "details": {"why": "test"}}
    }


def test_a_bug_is_internal_error_not_a_traceback_on_stdout(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kubectl_adapter.operations.provider import KubernetesProvider

    def boom(self: Any, provider_id: str) -> None:
        raise KeyError("token: s3cr3t-value")

    monkeypatch.setattr(KubernetesProvider, "status", boom)
    code, document, err = run(capsys, "status", "testns/web-1")
    assert code == 1
    assert document["error"]["type"] == "InternalError"
    assert "s3cr3t-value" not in json.dumps(document) + err


def test_status_unknown_exits_zero(capsys: pytest.CaptureFixture[str], fp: FakeProcess) -> None:
    fp.register(
        [*K, *NAMED_WEB1],
        stderr="The connection to the server 127.0.0.1:6443 was refused - did you specify the "
        "right host or port?\n",
        returncode=1,
    )
    code, document, _ = run(capsys, "-n", "testns", "status", "testns/web-1")
    assert code == 0
    assert document["status"] == "unknown"
    assert document["macAddress"] is None
    assert "refused" in document["message"]


def test_list_prints_items(capsys: pytest.CaptureFixture[str], fp: FakeProcess) -> None:
    dep = deployment()
    rs = replicaset(dep)
    fp.register(
        [
            *K,
            "get",
            "deployments,replicasets,pods",
            "-l",
            "org.mieweb.opensource-server.managed=true",
            "-o",
            "json",
            "--show-managed-fields",
            "-v=6",
        ],
        stdout=kubectl_list([dep, rs, pod(rs)]),
    )
    code, document, _ = run(capsys, "-n", "testns", "list")
    assert code == 0
    (item,) = document["items"]
    assert item["providerId"] == item["vmid"] == "testns/web-1"


def test_global_flags_work_after_the_command(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    argv = [
        "kubectl",
        "--kubeconfig",
        "/k",
        "--context",
        "c",
        "-n",
        "testns",
        "--request-timeout",
        "10s",
    ]
    fp.register([*argv, *NAMED_WEB1], stdout=kubectl_list([]))
    get = ["get", "deployment", "web-1", "-o", "json", "--show-managed-fields"]
    fp.register([*argv, *get], stdout=kubectl_object(deployment(managed=False)))
    code, document, _ = run(
        capsys, "status", "testns/web-1", "--kubeconfig", "/k", "--context", "c", "-n", "testns"
    )
    assert code == 0 and document["status"] == "missing"


def test_verbose_logs_each_command_shell_quoted(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    fp.register([*K, *NAMED_WEB1], stdout=kubectl_list([]))
    fp.register(
        [*K, "get", "deployment", "web-1", "-o", "json", "--show-managed-fields"],
        stderr='Error from server (NotFound): deployments.apps "web-1" not found\n',
        returncode=1,
    )
    code, _, err = run(capsys, "-v", "-n", "testns", "status", "testns/web-1")
    assert code == 0
    lines = err.splitlines()
    assert lines[0] == (
        "# kubectl-adapter -v -n testns status testns/web-1: "
        "the kubectl commands it runs, as bash to paste"
    )
    assert lines[1] == (
        "kubectl -n testns --request-timeout 10s get deployments,replicasets,pods -l "
        "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.name=web-1 "
        "-o json --show-managed-fields"  # the run's -v=6 is left out of the pasted line
    )
    assert lines[2].startswith("# exit 0 in "), lines
    lines = lines[2:]
    # status reads the 404 as "missing": pasted under bash -e, the line goes on too.
    assert lines[1] == (
        "kubectl -n testns --request-timeout 10s get deployment web-1 -o json "
        '--show-managed-fields || true  # a 404 (NotFound) here is "absent" to the adapter, '
        "which goes on"
    )
    assert lines[2].startswith("# exit 1 in "), lines


def test_missing_kubectl_is_a_configuration_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: None)
    code, document, _ = run(capsys, "--kubectl", "/nonexistent/kubectl", "status", "ns/web-1")
    assert code == 9
    assert document["error"]["type"] == "ConfigurationError"
    assert "/nonexistent/kubectl" in document["error"]["message"]


def test_errors_module_exports_every_error() -> None:
    exported = {getattr(errors, name) for name in errors.__all__}
    assert set(ALL_ERRORS) <= exported


def test_capabilities_constant_matches_the_model() -> None:
    from kubectl_adapter.contract.capabilities import CAPABILITIES
    from kubectl_adapter.contract.models import Capabilities

    assert Capabilities().to_json() == CAPABILITIES


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_prints_interrupted_and_exits_128_plus_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}

    def signalled(args: Any) -> Any:
        os.kill(os.getpid(), signum)  # delivered to this (main) thread before kill returns
        raise AssertionError("the signal did not interrupt the command")

    monkeypatch.setattr(cli, "run_command", signalled)
    code, document, _ = run(capsys, "capabilities")
    assert code == 128 + signum
    assert document["error"]["type"] == "Interrupted"
    assert document["error"]["details"] == {"signal": signal.Signals(signum).name}
    # In-process callers (tests, the Python API) get their own handlers back.
    assert {s: signal.getsignal(s) for s in before} == before
