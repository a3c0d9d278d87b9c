"""Shared by the reliability tests: run the real CLI as a process, watch processes by /proc."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def cli_argv(*args: str) -> list[str]:
    """``kubectl-adapter ARGS`` as Manager runs it: a fresh interpreter."""
    return [sys.executable, "-m", "kubectl_adapter", *args]


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def script(path: Path, body: str) -> str:
    """An executable ``/bin/sh`` script standing in for kubectl."""
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def await_true(condition: Callable[[], bool], within: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail saying ``what`` after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within}s: {what}")
        time.sleep(0.02)


def alive(pid: int) -> bool:
    """Running (a zombie is dead: only its parent's wait is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def timed_cli(fake: Any, cache_dir: Path, *args: str, stdin: str | None = None) -> dict[str, Any]:
    """The CLI as a process against ``fake`` in namespace ``default``: its seconds, exit
    code, JSON document and the end of its stderr."""
    argv = cli_argv(
        "--kubeconfig", str(fake.kubeconfig), "--context", fake.context, "-n", "default",
        "--cache-dir", str(cache_dir), *args,
    )  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=cli_env(), cwd=ROOT,
        timeout=120, check=False,
    )  # fmt: skip
    return {
        "seconds": time.monotonic() - started,
        "code": proc.returncode,
        "doc": json.loads(proc.stdout),
        "stderr": proc.stderr[-2000:],
    }
