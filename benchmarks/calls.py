"""kubectl calls per operation: every operation run through a kubectl wrapper that logs
each call, against the fake API server; a target is a bound the run asserts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.common import SPEC, adapter_on, counting_kubectl, sh
from tests.fakecluster import FakeCluster


def count_calls(work: Path) -> list[tuple[str, int, str]]:
    wrapper, log = counting_kubectl(work)
    rows = []
    with FakeCluster(
        work / "fake", namespaces=("default",), pod_ready_delay=0.1, termination_delay=0.05
    ) as fc:
        base = adapter_on(fc, work / "cache", "--kubectl", str(wrapper), "--node-id", "7")
        pid = "default/web-1"
        changed = SPEC | {"env": {"KEY": "changed"}}

        def op(label: str, args: list[str], stdin: dict[str, Any] | None, target: str) -> None:
            log.write_text("")
            result = sh([*base, *args], json.dumps(stdin) if stdin else None)
            assert result.returncode == 0, (label, result.stdout, result.stderr)
            calls = [line for line in log.read_text().splitlines() if line]
            verbs = ", ".join(_verb(line) for line in calls)
            # A target is a bound: a read that comes back fails the benchmark, not just a row.
            assert not target or len(calls) <= int(target.removeprefix("<= ")), (label, verbs)
            rows.append((label, len(calls), f"{target} — {verbs}"))

        op("list (no workloads)", ["list"], None, "<= 2")
        op("create", ["create", "--spec", "-"], SPEC, "<= 3")
        op("status", ["status", pid], None, "<= 1")
        op("network", ["network", pid], None, "<= 1")
        op("describe", ["describe", pid], None, "<= 2")
        op("list (1 workload)", ["list"], None, "<= 2")
        for i in range(2, 51):
            sh(
                [*base, "create", "--spec", "-"],
                json.dumps(SPEC | {"hostname": f"web-{i}", "containerId": str(100 + i)}),
            )
        op("list (50 workloads)", ["list"], None, "<= 2")
        op("stop", ["stop", pid], None, "<= 5")
        op("reconfigure (stopped)", ["reconfigure", pid, "--spec", "-"], changed, "<= 2")
        op("start (stopped)", ["start", pid], None, "<= 4")
        op("start (already running)", ["start", pid], None, "<= 3")
        op("reconfigure (running)", ["reconfigure", pid, "--spec", "-"], SPEC, "<= 5")
        op("reconfigure (no change)", ["reconfigure", pid, "--spec", "-"], SPEC, "<= 4")
        op("delete", ["delete", pid], None, "<= 2")
        op("delete (already missing)", ["delete", pid], None, "<= 1")
        op("check", ["check"], None, "")
    return rows


def _verb(line: str) -> str:
    words = line.split()
    for skip in ("--kubeconfig", "--context", "--cache-dir", "-n", "--request-timeout"):
        while skip in words:
            index = words.index(skip)
            del words[index : index + 2]
    return " ".join(words[:2])
