"""``list`` parse scaling and peak memory: the whole CLI process over a stub kubectl's
canned ``get -o json`` output, beside ``json.load`` of the same bytes through a pipe."""

from __future__ import annotations

import shlex
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import ADAPTER, _timed, sh
from tests.k8s_objects import kubectl_list, running_workloads


def canned_list(n: int) -> str:
    return kubectl_list(running_workloads(n))


def parse_scaling(work: Path, sizes: list[int], repeat: int) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        data = work / f"list-{n}.json"
        data.write_text(canned_list(n))
        stub = work / f"kubectl-{n}"
        stub.write_text(f"#!/bin/sh\nexec cat {shlex.quote(str(data))}\n")
        stub.chmod(0o755)
        adapter = [*ADAPTER, "--kubectl", str(stub), "-n", "default", "list"]
        baseline = [sys.executable, "-c", "import json,sys; json.load(sys.stdin)"]

        def run_adapter(adapter: list[str] = adapter) -> None:
            result = sh(adapter)
            assert result.returncode == 0, result.stdout[:500]

        def run_baseline(stub: Path = stub, baseline: list[str] = baseline) -> None:
            # The same stub kubectl printing the same bytes into a pipe, as the adapter reads
            # them (issue 17's definition), not the file as stdin.
            kubectl = subprocess.Popen([str(stub)], stdout=subprocess.PIPE)
            try:
                subprocess.run(baseline, stdin=kubectl.stdout, check=True)
            finally:
                assert kubectl.stdout is not None
                kubectl.stdout.close()
                kubectl.wait()

        # Paired and interleaved: a burst of load on this shared machine hits both alike.
        run_adapter()  # warm: bytecode and the page cache
        adapter_times, json_times = [], []
        for _ in range(repeat):
            adapter_times.append(_timed(run_adapter))
            json_times.append(_timed(run_baseline))
        t_adapter = statistics.median(adapter_times)
        t_json = statistics.median(json_times)
        ratio = statistics.median(a / j for a, j in zip(adapter_times, json_times, strict=True))
        rows.append(
            {
                "n": n,
                "bytes": data.stat().st_size,
                "adapter": t_adapter,
                "json": t_json,
                "ratio": ratio,
                "per_workload_us": t_adapter / n * 1e6,
            }
        )
        if n != max(sizes):
            data.unlink()
    return rows


def peak_memory(work: Path, n: int) -> int:
    """Peak RSS (KiB) of the adapter process running `list` over N workloads."""
    stub = work / f"kubectl-{n}"
    probe = (
        "import resource,subprocess,sys;"
        "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,check=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    result = sh(
        [sys.executable, "-c", probe, *ADAPTER, "--kubectl", str(stub), "-n", "default", "list"]
    )
    assert result.returncode == 0, result.stderr
    return int(result.stdout.strip())
