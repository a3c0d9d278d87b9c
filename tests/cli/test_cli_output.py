"""``-o json|yaml|table`` through the CLI: the same document in every format, errors too."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
import yaml
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli.output import write_result
from kubectl_adapter.cli.tables import table
from tests.k8s_objects import deployment, kubectl_list, kubectl_object, pod, replicaset

from .test_tables import CHECK, NODE

K = ["kubectl", "-n", "testns", "--request-timeout", "10s"]
LIST = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.managed=true",
]
NAMED = [
    *K,
    "get",
    "deployments,replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.managed=true,org.mieweb.opensource-server.name=web-1",
    "-o",
    "json",
    "--show-managed-fields",
    "-v=6",
]
GET = [*K, "get", "deployment", "web-1", "-o", "json", "--show-managed-fields"]
OWNED = [
    *K,
    "get",
    "replicasets,pods",
    "-l",
    "org.mieweb.opensource-server.container-id=42,org.mieweb.opensource-server.managed=true",
    "-o",
    "json",
    "-v=6",
]


@pytest.fixture(autouse=True)
def _kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def register_cluster(fp: FakeProcess) -> None:
    """One running workload, as kubectl prints it; every call may repeat."""
    dep = deployment()
    rs = replicaset(dep)
    fp.register(
        [*LIST, "-o", "json", "--show-managed-fields", "-v=6"],
        stdout=kubectl_list([dep, rs, pod(rs)]),
        occurrences=9,
    )
    fp.register(NAMED, stdout=kubectl_list([dep, rs, pod(rs)]), occurrences=9)
    fp.register(GET, stdout=kubectl_object(dep), occurrences=9)
    fp.register(OWNED, stdout=kubectl_list([rs, pod(rs)]), occurrences=9)


@pytest.fixture
def fake_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """check and nodes answer fixed documents (their kubectl calls are tested elsewhere)."""
    from kubectl_adapter.contract.models import CheckResult, NodeInfo
    from kubectl_adapter.operations.provider import KubernetesProvider

    monkeypatch.setattr(
        KubernetesProvider, "check", lambda self: CheckResult.model_validate(CHECK | {"ok": True})
    )
    monkeypatch.setattr(KubernetesProvider, "nodes", lambda self: [NodeInfo.model_validate(NODE)])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


COMMANDS = [
    ("list", ["list"]),
    ("status", ["status", "testns/web-1"]),
    ("network", ["network", "testns/web-1"]),
    ("check", ["check"]),
    ("nodes", ["nodes"]),
    ("capabilities", ["capabilities"]),
    ("status", ["--dry-run", "status", "testns/web-1"]),
]


@pytest.mark.parametrize(("command", "argv"), COMMANDS, ids=[" ".join(a) for _, a in COMMANDS])
@pytest.mark.usefixtures("fake_reads")
def test_yaml_and_table_show_the_json_document(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, command: str, argv: list[str]
) -> None:
    register_cluster(fp)
    code, out, _ = run(capsys, "-n", "testns", *argv)
    assert code == 0
    document = json.loads(out)
    assert run(capsys, "-n", "testns", *argv, "-o", "json") == (code, out, "")

    code, out, err = run(capsys, "-n", "testns", "-o", "yaml", *argv)
    assert code == 0 and err == ""
    assert yaml.safe_load(out) == document

    code, out, err = run(capsys, "-n", "testns", *argv, "--output=table")
    assert code == 0 and err == ""
    expected = table(command, document)
    if expected is None:  # no layout: YAML
        assert yaml.safe_load(out) == document
    else:
        assert out == expected
        assert out.splitlines()[0].split()[0] in ("PROVIDER", "NAME", "OK:")


def test_list_table_columns(capsys: pytest.CaptureFixture[str], fp: FakeProcess) -> None:
    register_cluster(fp)
    code, out, _ = run(capsys, "-n", "testns", "list", "-o", "table")
    assert code == 0
    header, row = out.splitlines()
    assert re.split(r" {3,}", header)[:4] == ["NAME", "STATUS", "READY", "AGE"]
    assert row.split()[:3] == ["testns/web-1", "running", "1/1"]


def test_an_empty_list_says_so_on_stderr(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    fp.register(
        [*LIST, "-o", "json", "--show-managed-fields", "-v=6"],
        stdout=kubectl_list([]),
        occurrences=2,
    )
    fp.register(
        [*K, "get", "namespace", "testns", "--ignore-not-found", "-o", "name"],
        stdout="namespace/testns\n",
        occurrences=2,
    )
    code, out, err = run(capsys, "-n", "testns", "list", "-o", "table")
    assert (code, out, err) == (0, "", "No Manager workloads found.\n")
    code, out, err = run(capsys, "-n", "testns", "list", "-o", "name")
    assert (code, out, err) == (0, "", "No Manager workloads found.\n")


def test_errors_follow_the_format(capsys: pytest.CaptureFixture[str], fp: FakeProcess) -> None:
    code, out, err = run(capsys, "status", "Not_A_Name")
    assert code == 2
    document = json.loads(out)
    assert document["error"]["type"] == "InvalidProviderId"

    code, out, err = run(capsys, "-o", "yaml", "status", "Not_A_Name")
    assert (code, yaml.safe_load(out), err) == (2, document, "")

    # for a person: the headline and where the whole error is (failure_text)
    code, out, err = run(capsys, "status", "Not_A_Name", "-o", "table")
    assert (code, out) == (2, "")
    assert err == (
        f"Error (InvalidProviderId): {document['error']['message']}\nthe whole error: -o yaml\n"
    )
    assert not fp.calls


def test_a_usage_error_with_yaml_asked_is_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-o", "yaml", "frobnicate")
    assert code == 2
    assert yaml.safe_load(out)["error"]["type"] == "InvalidInput"


def test_render_is_yaml_whatever_is_asked(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    spec = str(Path(__file__).resolve().parents[2] / "examples" / "nginx.json")
    code, manifest, _ = run(capsys, "-n", "testns", "render", "--spec", spec)
    assert code == 0 and manifest.startswith("apiVersion: apps/v1\n")
    assert run(capsys, "-n", "testns", "render", "--spec", spec, "-o", "yaml") == (0, manifest, "")
    for wanted in ("json", "table"):
        code, out, err = run(capsys, "-n", "testns", "-o", wanted, "render", "--spec", spec)
        assert code == 2
        assert "render prints the manifest as YAML" in (out if wanted == "json" else err)


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        ([], "json"),
        (["-o", "yaml", "list"], "yaml"),
        (["list", "--output", "table"], "table"),
        (["--output=yaml"], "yaml"),
        (["-otable"], "table"),
        (["-o=yaml"], "yaml"),
        (["-o", "xml"], "json"),
        (["-o"], "json"),
        (["--", "-o", "yaml"], "json"),
    ],
)
def test_requested_format_is_known_before_parsing(argv: list[str], wanted: str) -> None:
    assert cli.requested_format(argv) == wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_is_indented_on_a_terminal_and_one_line_on_a_pipe() -> None:
    pipe, terminal = io.StringIO(), Terminal()
    write_result("capabilities", {"a": [1]}, "json", pipe, io.StringIO())
    write_result("capabilities", {"a": [1]}, "json", terminal, io.StringIO())
    assert pipe.getvalue() == '{"a": [1]}\n'
    assert terminal.getvalue() == '{\n  "a": [\n    1\n  ]\n}\n'


def test_check_not_ok_keeps_its_exit_code_in_every_format(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kubectl_adapter.contract.models import CheckResult
    from kubectl_adapter.operations.provider import KubernetesProvider

    monkeypatch.setattr(KubernetesProvider, "check", lambda self: CheckResult.model_validate(CHECK))
    codes: dict[str, Any] = {}
    for wanted in ("json", "yaml", "table"):
        code, out, _ = run(capsys, "-n", "testns", "check", "-o", wanted)
        codes[wanted] = code
        assert "patch deployments/scale (apps)" in out
    assert set(codes.values()) == {5}


# -- describe, -o wide, -o name, --no-headers ----------------------------------------------

EVENTS = [*K, "get", "events", "-o", "json"]  # describe reads Normal events too


def test_describe_is_text_on_a_pipe_too_json_when_asked_and_two_calls(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    """Issue 32: ``describe … | less`` and ``| grep`` are how people read it, as kubectl's."""
    register_cluster(fp)
    fp.register(EVENTS, stdout=kubectl_list([]), occurrences=9)
    code, out, _ = run(capsys, "describe", "testns/web-1")
    assert code == 0
    assert out.startswith("Name:          web-1\n")  # not a terminal, still its text
    code, out, _ = run(capsys, "describe", "testns/web-1", "-o", "json")
    assert code == 0
    document = json.loads(out)
    assert document["snapshot"]["status"] == "running"
    assert [p["name"] for p in document["pods"]] == ["web-1-5d8f7c9b6d-abcde"]
    assert [call[:6] for call in fp.calls] == [NAMED[:6], EVENTS[:6]] * 2  # two calls each

    code, out, err = run(capsys, "describe", "testns/web-1", "-o", "table")
    from kubectl_adapter.cli.describe_text import describe_text

    assert (code, err) == (0, "")
    assert out.startswith("Name:          web-1\n")
    # the same document, as text (ages aside: counted when printed)
    assert out.splitlines()[:10] == describe_text(document).splitlines()[:10]
    code, out, _ = run(capsys, "describe", "testns/web-1", "-o", "yaml")
    assert yaml.safe_load(out) == document


def test_describe_of_a_missing_workload_reads_no_events(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    fp.register(NAMED, stdout=kubectl_list([]))
    fp.register(
        GET,
        returncode=1,
        stderr='Error from server (NotFound): deployments.apps "web-1" not found\n',
    )
    code, out, _ = run(capsys, "describe", "testns/web-1", "-o", "json")
    assert code == 0
    assert json.loads(out)["snapshot"]["status"] == "missing"
    assert len(fp.calls) == 2 and all("events" not in call for call in fp.calls)


def test_describe_says_when_it_could_not_read_the_events(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    register_cluster(fp)
    fp.register(
        EVENTS,
        returncode=1,
        stderr='Error from server (Forbidden): events is forbidden: User "system:serviceaccount:'
        'testns:manager" cannot list resource "events" in API group "" in the namespace '
        '"testns"\n',
    )
    code, out, _ = run(capsys, "describe", "testns/web-1", "-o", "table")
    assert code == 0
    assert "Events:        <unknown: Forbidden: " in out


def test_wide_name_and_no_headers_through_the_cli(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess
) -> None:
    register_cluster(fp)
    code, out, err = run(capsys, "-n", "testns", "list", "-o", "wide")
    assert code == 0 and err == ""
    header, row = out.splitlines()
    assert re.split(r" {3,}", header)[-5:] == ["NODE ID", "POD IP", "NODE", "IMAGE", "MESSAGE"]
    assert "10.244.0.5" in row.split()
    assert run(capsys, "-n", "testns", "list", "-o", "name") == (
        0,
        "deployment.apps/web-1\n",
        "",
    )
    code, out, _ = run(capsys, "-n", "testns", "list", "--no-headers")
    assert json.loads(out)["items"]  # JSON ignores it, as kubectl's does
    code, out, _ = run(capsys, "-n", "testns", "list", "-o", "table", "--no-headers")
    assert out.split()[0] == "testns/web-1" and len(out.splitlines()) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "-o", "name"],
        ["network", "testns/web-1", "-o", "name"],
        ["describe", "testns/web-1", "-o", "name"],
        ["describe", "testns/web-1", "-o", "wide"],
        ["nodes", "-o", "wide"],
        ["delete", "testns/web-1", "-o", "wide"],
        ["--dry-run", "delete", "testns/web-1", "-o", "name"],
        ["--dry-run", "status", "testns/web-1", "-o", "name"],
        ["render", "--spec", "-", "-o", "name"],
    ],
    ids=" ".join,
)
def test_a_format_that_means_nothing_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str], fp: FakeProcess, argv: list[str]
) -> None:
    fp.allow_unregistered(False)
    code, out, err = run(capsys, "-n", "testns", *argv)
    assert (code, out) == (2, "")
    assert err.startswith("Error (InvalidInput): ")
    assert "does not apply" in err or "applies to" in err
    assert not fp.calls
