"""Wait latency: seconds from the fake marking the Deployment available to the CLI
returning, for create and start."""

from __future__ import annotations

import json
import time
from pathlib import Path

from benchmarks.common import SPEC, adapter_on, sh
from tests.fakecluster import FakeCluster


def wait_latency(work: Path, rounds: int) -> dict[str, list[float]]:
    """Seconds from the fake marking the Deployment available to the CLI returning."""
    latencies: dict[str, list[float]] = {"create": [], "start": []}
    with FakeCluster(
        work / "fake-latency", namespaces=("default",), pod_ready_delay=1.0, termination_delay=0.05
    ) as fc:
        base = adapter_on(fc, work / "cache-latency")
        for i in range(rounds):
            name = f"lat-{i}"
            spec = SPEC | {"hostname": name, "containerId": f"9{i}"}
            result = sh([*base, "create", "--spec", "-"], json.dumps(spec))
            done = time.monotonic()
            assert result.returncode == 0, result.stdout
            latencies["create"].append(done - fc.mark_available_times[name])
            sh([*base, "stop", f"default/{name}"])
            result = sh([*base, "start", f"default/{name}"])
            done = time.monotonic()
            assert result.returncode == 0, result.stdout
            latencies["start"].append(done - fc.mark_available_times[name])
    return latencies
