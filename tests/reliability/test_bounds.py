"""Overall bounds against an API that accepts connections and never answers (black hole),
with the real kubectl: ``status`` answers ``unknown`` a few seconds after its request
timeout, and every command ends by its ``--deadline``.

Before the fix kubectl retried discovery five times per call: ``status`` took 55 s and
``list`` 60 s at the default ``--request-timeout 10`` (now ~15 s each; see
docs/node-configuration.md).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from kubectl_adapter.kubectl.bounds import READ_GRACE_SECONDS
from tests.fakecluster import FakeCluster

from .helpers import timed_cli

REQUEST_TIMEOUT = 2.0
# Interpreter start-up, the kill and reading the killed kubectl's pipes on a loaded machine.
MARGIN = 6.0
SPEC = {"containerId": "h1", "nodeId": "7", "hostname": "hole", "image": "nginx:latest",
        "cpus": 0.1, "memoryMb": 64}  # fmt: skip


@pytest.fixture(scope="module")
def hole(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    workdir = tmp_path_factory.mktemp("bounds")
    with FakeCluster(workdir / "fake") as fake:
        fake.black_hole(True)
        try:
            yield fake
        finally:
            fake.black_hole(False)


def run(fake: FakeCluster, tmp: Path, *args: str, stdin: str | None = None) -> dict[str, Any]:
    cache = tmp / f"cache-{args[0]}-{time.monotonic_ns()}"
    return timed_cli(fake, cache, "--request-timeout", f"{REQUEST_TIMEOUT:g}", *args, stdin=stdin)


def _dry_run(fake: FakeCluster, tmp: Path) -> float:
    """The seconds of a ``--dry-run create`` (start-up, parse, print, exit; no API) run now."""
    result = run(fake, tmp, "--dry-run", "create", "--spec", "-", stdin=json.dumps(SPEC))
    assert result["code"] == 0, result
    return float(result["seconds"])


def test_black_hole_every_command_ends_by_its_bound(hole: FakeCluster, tmp_path: Path) -> None:
    read_bound = REQUEST_TIMEOUT + READ_GRACE_SECONDS
    cases: dict[str, tuple[list[str], str | None, float]] = {
        # (args, stdin, the bound it must end by)
        "status": (["status", "default/web-1"], None, read_bound),
        "list": (["list"], None, read_bound),
        "network": (["network", "default/web-1"], None, read_bound),
        "check": (["--deadline", "4", "check"], None, 4),
        "nodes": (["nodes"], None, read_bound),
        "create": (["--deadline", "3", "create", "--spec", "-"], json.dumps(SPEC), 3),
        "stop": (["--deadline", "3", "stop", "default/hole"], None, 3),
    }
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        futures = {
            name: pool.submit(run, hole, tmp_path, *args, stdin=stdin)
            for name, (args, stdin, _) in cases.items()
        }
        results = {name: future.result() for name, future in futures.items()}
    # The margin grows with a baseline taken now: seven dry runs at once (the same start-ups
    # and exits, no API), three times their slowest, so load stretches both alike.
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        dry_runs = list(pool.map(lambda _: _dry_run(hole, tmp_path), cases))
    margin = max(MARGIN, 3 * max(dry_runs))
    for name, result in results.items():
        bound = cases[name][2]
        assert result["seconds"] < bound + margin, (name, result, dry_runs)
        if name == "status":
            assert result["code"] == 0, result
            assert result["doc"]["status"] == "unknown"
        else:
            assert result["code"] in (7, 8), (name, result)
            assert result["doc"]["error"]["type"] in ("Timeout", "Unavailable"), (name, result)
    # The deadline, not a call's own bound, is what ended these.
    for name in ("create", "stop"):
        assert results[name]["doc"]["error"]["details"]["reason"] == "deadline", results[name]
