"""kubectl output that is valid JSON of the wrong shape, end to end: the CLI answers
InternalError (exit 1) naming the command, and never prints a traceback.

kubectl itself decodes what the API server sends into typed objects, so a wrong shape can only
come from another kubectl build, a wrapper or a plugin: a stub ``--kubectl`` process plays that
part. The CLI runs in-process (``cli.main``) to keep the 19 cases cheap; the kubectl it runs is
a real process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.cli import app as cli
from tests.k8s_objects import deployment

NGINX = Path(__file__).resolve().parents[2] / "examples" / "nginx.json"

SHAPES = {
    "items-string": {"kind": "List", "items": "x"},
    "top-level-list": [],
    "item-not-object": {"kind": "List", "items": [1]},
    "no-metadata": {"kind": "List", "items": [{"kind": "Deployment"}]},
    "status-string": {"kind": "Deployment", "metadata": {"name": "web-1"}, "status": "x"},
    "null": None,
    # Items without `kind`: checked as the one resource asked for (nodes used to end in a
    # pydantic traceback), refused in a List of several kinds.
    "kindless-items": {"kind": "List", "items": [{"metadata": {"name": 5}}]},
}
COMMANDS = {
    "list": (["list"], "get deployments,replicasets,pods"),
    # status's first read: web-1 with its ReplicaSets and Pods, by the name label
    "status": (["status", "testns/web-1"], "get deployments,replicasets,pods -l "),
    "nodes": (["nodes"], "get nodes"),
}


def stub_kubectl(tmp_path: Path, output: object) -> Path:
    """A kubectl printing ``output`` for every command."""
    canned = tmp_path / "out.json"
    canned.write_text(json.dumps(output), encoding="utf-8")
    stub = tmp_path / "kubectl"
    stub.write_text(f"#!/bin/sh\nexec cat '{canned}'\n", encoding="utf-8")
    stub.chmod(0o755)
    return stub


def run(capsys: pytest.CaptureFixture[str], stub: Path, *args: str) -> tuple[int, Any, str]:
    code = cli.main(["--kubectl", str(stub), "-n", "testns", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_wrong_shape_is_internal_error_naming_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str, command: str
) -> None:
    args, named = COMMANDS[command]
    code, document, stderr = run(capsys, stub_kubectl(tmp_path, SHAPES[shape]), *args)
    assert "Traceback" not in stderr, stderr
    error = document["error"]
    assert (code, error["type"]) == (1, "InternalError"), error
    assert named in error["message"] and named in error["details"]["command"], error
    assert "cannot read" in error["message"], error


def test_check_with_a_wrong_version_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub = stub_kubectl(tmp_path, {"clientVersion": "v1.32.4"})
    code, document, _ = run(capsys, stub, "check")
    error = document["error"]
    assert (code, error["type"]) == (1, "InternalError"), error
    assert error["details"]["problem"] == "output.clientVersion is a string, expected an object"


@pytest.mark.parametrize("field", ["uid", "resourceVersion"])
def test_reconfigure_of_a_deployment_without_identity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    """The read is the base of the apply's precondition: without metadata.uid or
    metadata.resourceVersion it used to end in a KeyError traceback (races.precondition)."""
    read = deployment()
    del read["metadata"][field]
    spec = tmp_path / "spec.json"
    spec.write_text(Path(NGINX).read_text(), encoding="utf-8")
    stub = stub_kubectl(tmp_path, read)
    code, document, stderr = run(capsys, stub, "reconfigure", "testns/web-1", "--spec", str(spec))
    assert "Traceback" not in stderr, stderr
    error = document["error"]
    assert (code, error["type"]) == (1, "InternalError"), error
    assert error["details"]["problem"] == f"output.metadata.{field} is missing"
