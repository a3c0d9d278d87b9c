"""Benchmarks (not tests): the adapter beside the hand-typed kubectl sequence and the Python
client, kubectl calls per operation, list parse scaling, CLI start-up and imports, wait
latency and peak memory. Prints a table and writes docs/performance.md.

    ./dev bench            # or: .venv/bin/python benchmarks/run.py [--quick]
    ./dev bench --lifecycle [--rounds N]   # only the lifecycle beside the hand-typed commands

Every figure that depends on machine speed is a ratio measured in the same run against a
baseline on the same bytes (the machines are noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.calls import count_calls  # noqa: E402
from benchmarks.compare import compare, report  # noqa: E402
from benchmarks.latency import wait_latency  # noqa: E402
from benchmarks.notes import NOTES  # noqa: E402
from benchmarks.parsing import parse_scaling, peak_memory  # noqa: E402
from benchmarks.startup import import_times, startup  # noqa: E402
from benchmarks.waits import INTRO, measure  # noqa: E402

# Sections written by another script's figures, kept when this one rewrites the page.
KEPT = (
    "## `list --watch` against polling `list` every 5 s (issue 32)",
    "## The live feed against polling `list` once a second (issue 42)",
    "## Manager's status reads: the node feed against polling (issue 42)",
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller N and fewer repeats")
    parser.add_argument("--no-write", action="store_true", help="do not write docs/performance.md")
    parser.add_argument(
        "--lifecycle",
        action="store_true",
        help="only the lifecycle beside the hand-typed commands (prints it, writes nothing)",
    )
    parser.add_argument("--rounds", type=int, help="rounds of the lifecycle comparison")
    parser.add_argument(
        "--with-site",
        action="store_true",
        help="start the adapter as .venv/bin/python -m kubectl_adapter does (site and the "
        "editable install's import hook), not as the shipped launcher does (-S -P)",
    )
    args = parser.parse_args()
    if args.lifecycle:
        with tempfile.TemporaryDirectory(prefix="adapter-bench-") as tmp:
            for line in report(compare(Path(tmp), ROOT, args.rounds or 3, site=args.with_site)):
                print(line, flush=True)
        return 0
    sizes = [100, 1000, 5000] if args.quick else [100, 1000, 5000, 20000]
    repeat = 3 if args.quick else 5
    lines: list[str] = []

    def out(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory(prefix="adapter-bench-") as tmp:
        work = Path(tmp)
        out("# Performance\n")
        out(
            f"Measured by `./dev bench` (`benchmarks/run.py`) on {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{_kubectl_version()}, {time.strftime('%Y-%m-%d')}, load average "
            f"{os.getloadavg()[0]:.1f} at the start (ratios move with it).\n"
        )
        rounds = args.rounds or (3 if args.quick else 9)
        out("## The adapter beside the commands an operator types\n")
        out(
            f"One fake API server (TCP_NODELAY), medians of {rounds} rounds; each round runs "
            "the whole lifecycle three ways, interleaved: the adapter CLI (started "
            + (
                "as `.venv/bin/python -m kubectl_adapter`: site and the editable install's "
                "import hook; "
                if args.with_site
                else "as the shipped launcher starts it: `python -S -P -m kubectl_adapter`, "
                "the package installed as a tree on PYTHONPATH; "
            )
            + "Pods ready 0.3 s, gone 0.2 s), the fewest kubectl "
            "commands an operator types for the same job and wait (`benchmarks/compare.py` "
            "lists them), and the official Python `kubernetes` client in one process with a "
            "watch (when installed; an optional peer, not a dependency). Processes counted "
            "by a kubectl wrapper, requests by the fake.\n"
        )
        for line in report(compare(work, ROOT, rounds, site=args.with_site)):
            out(line)
        out("\n## kubectl calls per operation (fake API server, counting kubectl wrapper)\n")
        out("| operation | kubectl calls | target — calls made |\n|---|---|---|")
        for label, count, detail in count_calls(work):
            out(f"| {label} | {count} | {detail} |")
        out("\n## `list` parse scaling (stub kubectl serving canned `get -o json` output)\n")
        out(
            "Adapter = the whole `kubectl-adapter list` process; baseline = "
            "`python -c 'import json,sys; json.load(sys.stdin)'` reading the same stub's "
            "output through a pipe; "
            f"medians of {repeat} paired, interleaved runs (ratio: the median of the pairs' "
            "ratios), with bytecode caches as an installed package has them.\n"
        )
        out(
            "| N deployments (+RS +pod each) | bytes | adapter s | json.load s | ratio | "
            "µs per workload | marginal µs per workload |\n|---|---|---|---|---|---|---|"
        )
        scaling = parse_scaling(work, sizes, repeat)
        previous: dict[str, Any] | None = None
        for row in scaling:
            # Marginal: the cost of the workloads added since the previous size, which
            # leaves out the fixed start-up that dominates small N.
            marginal = (
                (row["adapter"] - previous["adapter"]) / (row["n"] - previous["n"]) * 1e6
                if previous
                else float("nan")
            )
            out(
                f"| {row['n']:,} | {row['bytes']:,} | {row['adapter']:.3f} | {row['json']:.3f} | "
                f"{row['ratio']:.2f} | {row['per_workload_us']:.0f} | "
                f"{'-' if previous is None else f'{marginal:.0f}'} |"
            )
            previous = row
        rss = peak_memory(work, max(sizes))
        out(
            f"\nPeak RSS of `list` at N = {max(sizes):,}: {rss / 1024:.0f} MiB "
            f"(input {scaling[-1]['bytes'] / 2**20:.0f} MiB).\n"
        )
        out(f"## CLI start-up (median of {max(21, repeat * 4)} interleaved runs)\n")
        out("| command | seconds | x kubectl version --client |\n|---|---|---|")
        timings = startup(max(21, repeat * 4))
        kubectl_time = timings[0][1]
        for label, seconds in timings:
            out(f"| {label} | {seconds:.3f} | {seconds / kubectl_time:.2f} |")
        out("\n## Imports per command (`python -X importtime`, median of 7)\n")
        out(
            "| command | imports ms until kubectl starts | until its first answer is used "
            "| pydantic imported |\n|---|---|---|---|"
        )
        for label, starting, answered, pydantic in import_times(work, 7):
            out(f"| {label} | {starting:.0f} | {answered:.0f} | {'yes' if pydantic else 'no'} |")
        out("\n## Wait latency (fake marks the Deployment available → CLI returns)\n")
        latencies = wait_latency(work, 3 if args.quick else 5)
        out("| operation | median s | max s |\n|---|---|---|")
        for label, values in latencies.items():
            out(f"| {label} | {statistics.median(values):.3f} | {max(values):.3f} |")
        out(INTRO)
        for line in measure(3):
            out(line)
    if not args.no_write:
        page = ROOT / "docs" / "performance.md"
        kept = kept_sections(page.read_text() if page.exists() else "")
        page.write_text("\n".join(lines) + "\n" + kept + NOTES)
        print("\nwrote docs/performance.md")
    return 0


def kept_sections(page: str) -> str:
    """The sections of the page another script measures (``KEPT``: ``benchmarks/watch.py``
    and ``benchmarks/feed.py`` take minutes at 1,000 workloads), carried over as they are,
    each ending in a blank line."""
    found = []
    for heading in KEPT:
        start = page.find(f"\n{heading}\n")
        if start < 0:
            continue
        end = page.find("\n## ", start + len(heading) + 2)
        found.append(page[start + 1 : end + 1 if end >= 0 else len(page)].rstrip("\n") + "\n\n")
    return "".join(found)


def _kubectl_version() -> str:
    result = subprocess.run(
        ["kubectl", "version", "--client", "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        return "kubectl " + json.loads(result.stdout)["clientVersion"]["gitVersion"]
    except (ValueError, KeyError):
        return "kubectl (unknown version)"


if __name__ == "__main__":
    sys.exit(main())
