"""`./dev cluster` (tests/fakecluster/background.py): one background fake per state directory,
the same `export` line while it serves, and never a signal to a process it did not start."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakecluster import background

ROOT = Path(__file__).resolve().parents[1]


def dev_cluster(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.fakecluster.background", *args],
        cwd=ROOT,
        env={**os.environ, "DEV_CLUSTER_DIR": str(state), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not on PATH")
def test_start_twice_status_and_stop(tmp_path: Path) -> None:
    state = tmp_path / "state"
    try:
        first = dev_cluster(state, "start")
        assert first.returncode == 0, first.stderr
        assert first.stdout == f"export KUBECONFIG={state / 'kubeconfig'}\n"
        pid = int((state / "pid").read_text())
        again = dev_cluster(state)  # start is the default, and does not start a second one
        assert again.stdout == first.stdout and "already running" in again.stderr
        assert int((state / "pid").read_text()) == pid
        namespaces = subprocess.run(
            ["kubectl", "--kubeconfig", str(state / "kubeconfig"), "get", "ns", "-o", "name"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
            env={**os.environ, "KUBECACHEDIR": str(tmp_path / "cache")},
        ).stdout.split()
        assert namespaces == ["namespace/default", "namespace/manager"]
        assert dev_cluster(state, "status").returncode == 0
    finally:
        stopped = dev_cluster(state, "stop")
    assert stopped.returncode == 0 and stopped.stdout == "unset KUBECONFIG\n", stopped.stderr
    assert dev_cluster(state, "status").returncode == 1


def test_a_pid_file_naming_another_process_is_not_a_running_fake(tmp_path: Path) -> None:
    (tmp_path / "kubeconfig").write_text("")
    (tmp_path / "pid").write_text(f"{os.getpid()}\n")  # alive, but not a fake of this state
    assert background._running(tmp_path) is None
    assert background.stop(tmp_path) == 0  # says none runs, signals nothing: we are alive
