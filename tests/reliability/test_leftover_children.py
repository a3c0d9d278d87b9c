"""A kubectl that exits while a child it started still holds its stdout and stderr (a
wrapper script that backgrounds something) has ended when it exits: the command answers
with kubectl's real result at once, not when the child lets go of the pipes (a finished stop
used to wait until --call-timeout and report Timeout), and the child dies with kubectl's
process group.

The real kubectl runs against the fake API server behind a ``/bin/sh`` wrapper.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakecluster import FakeCluster

from .helpers import alive, script, timed_cli

# Each kubectl the wrapper runs leaves a child holding its pipes for this long, far beyond
# every bound the commands run with: the old wait for the pipes' end could never be met.
CHILD_SECONDS = 300
CALL_TIMEOUT = "8"


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    with FakeCluster(tmp_path_factory.mktemp("leftover") / "fake") as cluster:
        yield cluster


def wrapper(tmp: Path) -> tuple[str, Path]:
    """kubectl behind a script that starts a sleeper holding stdout and stderr, and writes
    down its pid."""
    pids = tmp / "pids"
    kubectl = shutil.which("kubectl")
    assert kubectl is not None
    body = f'sleep {CHILD_SECONDS} &\necho $! >> "{pids}"\nexec "{kubectl}" "$@"\n'
    return script(tmp / "kubectl-wrapper", body), pids


def spec(name: str) -> str:
    return json.dumps({"containerId": name, "nodeId": "7", "hostname": name,
                       "image": "nginx:latest", "cpus": 0.1, "memoryMb": 64})  # fmt: skip


def test_a_finished_stop_answers_with_its_result(fake: FakeCluster, tmp_path: Path) -> None:
    created = timed_cli(fake, tmp_path / "c1", "create", "--spec", "-", stdin=spec("left-1"))
    assert created["code"] == 0, created
    kubectl, pids = wrapper(tmp_path)
    result = timed_cli(
        fake, tmp_path / "c2", "--kubectl", kubectl, "--call-timeout", CALL_TIMEOUT,
        "stop", "default/left-1",
    )  # fmt: skip
    assert result["code"] == 0, result
    assert result["doc"]["status"] == "offline", result
    assert result["seconds"] < float(CALL_TIMEOUT), result
    started = [int(pid) for pid in pids.read_text().split()]
    assert started, "the wrapper ran no kubectl"
    assert not [pid for pid in started if alive(pid)], "a child kubectl left behind lives on"


@pytest.mark.parametrize("command", ["status", "list"])
def test_a_read_answers_with_its_result(fake: FakeCluster, tmp_path: Path, command: str) -> None:
    name = f"left-{command}"
    created = timed_cli(fake, tmp_path / "c1", "create", "--spec", "-", stdin=spec(name))
    assert created["code"] == 0, created
    kubectl, _ = wrapper(tmp_path)
    args = ["status", f"default/{name}"] if command == "status" else ["list"]
    result = timed_cli(fake, tmp_path / "c2", "--kubectl", kubectl, *args)
    assert result["code"] == 0, result
    if command == "status":
        assert result["doc"]["status"] == "running", result
    else:
        assert name in json.dumps(result["doc"]), result
    # A read's bound is --request-timeout + 5 s (15 s): it used to end there, as unknown.
    assert result["seconds"] < 10, result
