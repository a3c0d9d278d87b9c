"""Figures and claims the docs state, checked against what the code does now (issue 41: a
doc said `… | head -c 1` ends in exit 11 where it exits 0, and that `stop` makes 4 kubectl
calls in one table and 5 in another). Each claim is read from the doc, then run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import SPEC, adapter_on, counting_kubectl, sh
from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parents[1]
CLI_MD = (ROOT / "docs" / "cli.md").read_text()
PERFORMANCE_MD = (ROOT / "docs" / "performance.md").read_text()
ADAPTER = f"{sys.executable} -m kubectl_adapter"


@pytest.mark.parametrize(
    ("shown", "code"),
    [
        ("kubectl-adapter capabilities | head -c 1", 0),
        ("kubectl-adapter capabilities |\n{ exec 0<&-; sleep 1; }", 11),
        ("status Bad_Name |\n  { exec 0<&-; sleep 1; }", 2),
    ],
)
def test_what_a_pipe_that_leaves_does_is_what_cli_md_says(shown: str, code: int) -> None:
    assert shown in CLI_MD
    line = " ".join(shown.split()).replace("kubectl-adapter", ADAPTER)
    if line.startswith("status"):
        line = f"{ADAPTER} {line}"
    ran = subprocess.run(
        ["bash", "-c", f"{line}; exit ${{PIPESTATUS[0]}}"],
        capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
    )  # fmt: skip
    assert ran.returncode == code, (line, ran.stderr)


def _stop_figures() -> tuple[int, int]:
    """``stop``'s kubectl processes in the comparison table and in the calls table."""
    compared = re.search(
        r"^\| stop \| [\d.]+ \| [\d.]+ \| [\d.]+ \| (\d+) / \d+ \|", PERFORMANCE_MD, re.M
    )
    counted = re.search(r"^\| stop \| (\d+) \|", PERFORMANCE_MD, re.M)
    assert compared and counted, "performance.md has no stop row"
    return int(compared.group(1)), int(counted.group(1))


def test_performance_md_says_how_many_kubectl_calls_stop_makes(tmp_path: Path) -> None:
    """Both tables of the page agree, and with a stop counted now by the benchmark's own
    counting kubectl (benchmarks/calls.py's way)."""
    compared, counted = _stop_figures()
    wrapper, log = counting_kubectl(tmp_path)
    with FakeCluster(tmp_path / "fake", pod_ready_delay=0.1, termination_delay=0.05) as fc:
        base = adapter_on(fc, tmp_path / "cache", "--kubectl", str(wrapper), "--node-id", "7")
        import json

        assert sh([*base, "create", "--spec", "-"], json.dumps(SPEC)).returncode == 0
        log.write_text("")
        stopped = sh([*base, "stop", "default/web-1"])
        assert stopped.returncode == 0, stopped.stderr
        made = len([line for line in log.read_text().splitlines() if line])
    assert (compared, counted) == (made, made)
