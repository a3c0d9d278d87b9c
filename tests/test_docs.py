"""The docs' shell blocks run as written: the README's Quick use on a fresh copy of the
repository (its own `./dev cluster`), and docs/rbac.md's "Set up a node" against the fake
API server as its admin, down to `check` passing as the node's ServiceAccount.

"A fresh copy" is the files git tracks (or would: untracked but not ignored), copied with
their times, beside this test's virtual environment (linked in as `.venv`, with a fresh
install stamp so `./dev` installs nothing). Each block runs in `bash -e`: the first line
that fails fails the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
KUBECTL = shutil.which("kubectl")


def shell_block(document: Path, heading: str) -> str:
    """The first ```sh block under ``heading`` in ``document``."""
    text = document.read_text()
    section = text[text.index(f"\n{heading}\n") :]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found is not None, f"no sh block under {heading!r} in {document}"
    return found.group(1)


def fresh_copy(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the work tree is still listed
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name, follow_symlinks=False)
    # This test's virtual environment seen from the copy: its own pyvenv.cfg (so Python
    # started as .venv/bin/python finds it), its bin and lib, and a fresh install stamp.
    venv = target / ".venv"
    venv.mkdir()
    real = VENV_BIN.parent
    shutil.copy2(real / "pyvenv.cfg", venv / "pyvenv.cfg")
    for name in ("bin", "lib", "lib64"):
        if (real / name).exists():
            (venv / name).symlink_to(real / name, target_is_directory=True)
    (venv / ".installed").touch()  # newer than the copied pyproject.toml: ./dev installs nothing
    return target


def base_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "DEV_CLUSTER_DIR")}
    env["KUBECACHEDIR"] = str(tmp / "kube-cache")
    env.pop("VIRTUAL_ENV", None)
    return env


def run_block(block: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = cwd / ".doc-block.sh"
    script.write_text(block)
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def json_documents(text: str) -> list[object]:
    decoder = json.JSONDecoder()
    documents, at = [], 0
    while (start := text.find("{", at)) != -1:
        try:
            document, at = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            at = start + 1
            continue
        documents.append(document)
    return documents


@pytest.fixture
def repo_copy(tmp_path: Path) -> Iterator[Path]:
    copy = fresh_copy(tmp_path / "clone")
    yield copy
    # Whatever the block did, no fake cluster outlives the test.
    subprocess.run(
        ["./dev", "cluster", "stop"],
        cwd=copy,
        env=base_env(tmp_path),
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
def test_readme_quick_use_runs_as_written(repo_copy: Path, tmp_path: Path) -> None:
    block = shell_block(ROOT / "README.md", "## Quick use")
    assert "./dev cluster" in block and "kubectl-adapter" in block
    done = run_block(block, repo_copy, base_env(tmp_path))
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.startswith("apiVersion: apps/v1\n")  # render
    documents = json_documents(done.stdout)
    check, created, listed, *_, deleted = documents
    assert isinstance(check, dict) and check["ok"] is True, check
    assert isinstance(created, dict) and created["status"] == "running", created
    assert isinstance(listed, dict) and [i["providerId"] for i in listed["items"]] == [
        "manager/web-1"
    ]
    # describe prints its text on a pipe too, as kubectl describe does (issue 32)
    assert "\nName:          web-1\nNamespace:     manager\n" in done.stdout
    assert "\nStatus:        running\n" in done.stdout and "\nPods:\n" in done.stdout
    assert deleted == {"providerId": "manager/web-1", "deleted": True, "alreadyMissing": False}
    # -v start logged its commands as bash, opened by the command it reproduces.
    assert "# kubectl-adapter -v start manager/web-1: " in done.stderr
    # start's one write: the patch of replicas, with its ownership tests on the labels.
    assert "\nkubectl -n manager --request-timeout 10s patch deployment web-1 --type=json" in (
        done.stderr
    )
    assert not (repo_copy / ".dev-cluster" / "pid").exists()  # the last line stopped it


@pytest.fixture
def admin_cluster(tmp_path: Path) -> Iterator[FakeCluster]:
    with FakeCluster(tmp_path / "cluster", namespaces=("default",)) as fc:
        yield fc


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
def test_rbac_node_setup_runs_as_written(
    admin_cluster: FakeCluster, repo_copy: Path, tmp_path: Path
) -> None:
    block = shell_block(ROOT / "docs" / "rbac.md", "## Set up a node")
    env = base_env(tmp_path) | {
        "KUBECONFIG": str(admin_cluster.kubeconfig),
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done = run_block(block, repo_copy, env)
    assert done.returncode == 0, (done.stdout, done.stderr)
    check = json_documents(done.stdout)[-1]
    assert isinstance(check, dict)
    assert check["ok"] is True and check["missingPermissions"] == [], check
    assert check["namespace"] == "manager-node-7"
    # The kubeconfig the docs wrote holds a ServiceAccount token, not the admin's.
    written = (repo_copy / "manager-node-7.kubeconfig").read_text()
    assert admin_cluster.admin_token not in written
    assert (repo_copy / "manager-node-7.kubeconfig").stat().st_mode & 0o077 == 0
    reason = next(p["reason"] for p in check["permissions"] if p["resource"] == "deployments")
    assert 'to ServiceAccount "opensource-server-manager/manager-node-7"' in reason
    nodes = next(p for p in check["permissions"] if p["resource"] == "nodes")
    assert nodes["allowed"] is True  # the optional ClusterRole was applied too
