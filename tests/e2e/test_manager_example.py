"""examples/manager: the Node.js provider Manager would use, driven by `node --test` against
the fake cluster (the test starts its own `python -m tests.fakecluster`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_manager_provider_example() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    # The fake cluster runs under this interpreter (it needs trustme and PyYAML); the adapter
    # is the repository's .venv/bin/kubectl-adapter unless KUBECTL_ADAPTER says otherwise.
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", sys.executable)}
    venv_adapter = ROOT / ".venv" / "bin" / "kubectl-adapter"
    if "KUBECTL_ADAPTER" not in env and venv_adapter.exists():
        env["KUBECTL_ADAPTER"] = str(venv_adapter)
    proc = subprocess.run(
        [node, "--test", "examples/manager/test/"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, (
        f"node --test failed:\n{proc.stdout[-8000:]}\n{proc.stderr[-4000:]}"
    )
