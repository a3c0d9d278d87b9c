"""``details.stderr`` carries kubectl's own error lines only, never pieces of its ``-v`` log
(issue 32): a write runs with ``-v=7``, whose log prints a refused request's Status body
over many lines, only the first of them marked as a log line.

The real CLI and the real kubectl against the fake API server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakecluster import FakeCluster

from .helpers import timed_cli


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    with FakeCluster(tmp_path_factory.mktemp("stderr") / "fake") as cluster:
        yield cluster


@pytest.mark.parametrize("command", ["stop", "start"])
def test_a_missing_workloads_error_carries_kubectls_error_line_only(
    fake: FakeCluster, tmp_path: Path, command: str
) -> None:
    result = timed_cli(fake, tmp_path, command, "default/nowhere")
    error = result["doc"]["error"]
    assert error["type"] == "NotFound", result
    kubectl = error["details"]["kubectl"]
    assert kubectl["command"].endswith("-v=7"), kubectl  # the patch logs its requests
    assert kubectl["stderr"] == 'Error from server (NotFound): deployments.apps "nowhere" not found'
