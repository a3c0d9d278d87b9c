"""integrations/manager: Manager's Kubernetes node client and a simulator of Manager's jobs,
under ``node --test`` against the fake cluster (the node tests start their own fake API server
through integrations/manager/testing/fake_cluster.py). Nothing is installed from npm: the
client and its tests use only Node's standard library."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A bound that catches a hang, not one that measures the machine: ~100 s on an idle 2-core
# machine, collected first (tests/conftest.py FIRST) so it shares the cores with the suite's
# heaviest files; beside a second copy of the suite it ran past 420 s (twice, at load ~20).
TIMEOUT = 1200


def test_manager_integration_node_tests() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    # The fake cluster runs under this interpreter (it needs trustme and PyYAML); the adapter
    # is the repository's .venv/bin/kubectl-adapter unless KUBECTL_ADAPTER says otherwise.
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", sys.executable)}
    venv_adapter = ROOT / ".venv" / "bin" / "kubectl-adapter"
    if "KUBECTL_ADAPTER" not in env and venv_adapter.exists():
        env["KUBECTL_ADAPTER"] = str(venv_adapter)
    try:
        proc = subprocess.run(
            # The files wait on rollouts and Pod deletions more than they compute: run them
            # together.
            # Each test bounded too: a hang names its test instead of holding the whole run.
            [
                node,
                "--test",
                "--test-concurrency=4",
                "--test-timeout=300000",
                "integrations/manager/test/",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:  # say where it stood, not only that it did
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
        pytest.fail(f"node --test ran over {TIMEOUT} s; its TAP so far ends:\n{out[-6000:]}")
    assert proc.returncode == 0, (
        f"node --test failed:\n{proc.stdout[-8000:]}\n{proc.stderr[-4000:]}"
    )
    # node --test exits 0 when it finds no test files: make sure they all ran.
    assert "# fail 0" in proc.stdout, proc.stdout[-2000:]
    passed = int(proc.stdout.rsplit("# pass ", 1)[1].split()[0])
    assert passed >= 94, f"only {passed} node tests passed:\n{proc.stdout[-2000:]}"
