"""CLI start-up beside ``kubectl version --client``, and each command's imports until its
first kubectl starts and until its first answer is used (``python -X importtime``)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import ADAPTER, ENV, ROOT, sh


def startup(repeat: int) -> list[tuple[str, float]]:
    kubectl = shutil.which("kubectl") or "kubectl"
    spec = str(ROOT / "examples" / "nginx.json")
    commands = {
        "kubectl version --client": [kubectl, "version", "--client"],
        "kubectl-adapter --help": [*ADAPTER, "--help"],
        "kubectl-adapter capabilities": [*ADAPTER, "capabilities"],
        "kubectl-adapter render": [*ADAPTER, "-n", "default", "render", "--spec", spec],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    # Interleaved rounds: a burst of load on this shared machine hits every command alike.
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(repeat):
        for label, argv in commands.items():
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=False, env=ENV)
            samples[label].append(time.perf_counter() - started)
    return [(label, statistics.median(values)) for label, values in samples.items()]


def import_times(work: Path, repeat: int) -> list[tuple[str, float, float, bool]]:
    """Milliseconds of imports (``python -X importtime``, cumulative of the top-level
    modules) per command's run path, and whether pydantic is among them; two ways:

    * until kubectl starts: a stub kubectl that SIGKILLs the adapter at once (``$PPID``),
      so only the imports done by then are printed (plus the stub's own ~1 ms start);
    * until the first answer is used: a stub that fails at once; the command imports what it
      needs to take that answer (a read started ahead runs beside these imports).
    """
    starts = work / "kubectl-kill-parent"
    starts.write_text("#!/bin/sh\nkill -9 $PPID\n")
    fails = work / "kubectl-false"
    fails.write_text("#!/bin/sh\nexit 1\n")
    for stub in (starts, fails):
        stub.chmod(0o755)
    spec = str(ROOT / "examples" / "nginx.json")
    commands = {
        "list": ["list"],
        "status": ["status", "default/web-1"],
        "create": ["create", "--spec", spec],
        "start": ["start", "default/web-1"],
        "stop": ["stop", "default/web-1"],
        "reconfigure": ["reconfigure", "default/web-1", "--spec", spec],
        "delete": ["delete", "default/web-1"],
    }
    rows = []
    sh([*ADAPTER, "--kubectl", str(fails), "-n", "default", "list"])  # warm the bytecode
    for label, args in commands.items():
        samples: dict[Path, list[float]] = {starts: [], fails: []}
        pydantic = False
        for _ in range(repeat):
            for stub in (starts, fails):
                result = sh([sys.executable, "-X", "importtime", *ADAPTER[1:], "--kubectl",
                             str(stub), "-n", "default", *args])  # fmt: skip
                total = 0
                for line in result.stderr.splitlines():
                    if not line.startswith("import time:") or "cumulative" in line:
                        continue
                    _, cumulative, name = (part.strip() for part in line.split("|"))
                    pydantic = pydantic or name.startswith("pydantic")
                    if not line.split("|")[2].startswith("  "):  # a top-level import
                        total += int(cumulative)
                samples[stub].append(total / 1000)
        rows.append(
            (
                label,
                statistics.median(samples[starts]),
                statistics.median(samples[fails]),
                pydantic,
            )
        )
    return rows
