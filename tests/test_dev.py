"""``./dev`` on a fresh clone: before the long install it says what it is doing (on stderr),
and a command's stdout carries only what the command prints (``eval "$(./dev cluster)"``).

A real install takes about 2 minutes, so ``python3`` (and the virtual environment's Python it
creates) is a stub that logs each call: pip included, which prints on stdout as pip does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = (
    "./dev: creating .venv and installing kubectl-adapter with its test dependencies "
    "(about 2 minutes, once)..."
)

# Plays python3 and, copied into the venv it "creates", the venv's python.
STUB = """#!/bin/sh
echo "python $*" >> "$DEV_STUB_LOG"
case "$*" in
  "-m venv "*) mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pip "*) echo "pip: installing"; echo "Successfully installed kubectl-adapter-0.1.0" ;;
  "-m tests.fakecluster.background"*) echo "export KUBECONFIG=/tmp/kubeconfig" ;;
  "examples/demo.py"*) echo "demo: done" ;;
esac
"""


def clone(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    repo = tmp_path / "clone"
    repo.mkdir()
    for name in ("dev", "pyproject.toml"):
        shutil.copy2(ROOT / name, repo / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(STUB)
    (bin_dir / "python3").chmod(0o755)
    log = tmp_path / "calls.log"
    env = {k: v for k, v in os.environ.items() if k not in ("VENV", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["DEV_STUB_LOG"] = str(log)
    return repo, env, log


def dev(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["./dev", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_first_run_says_what_it_installs_before_it_does(tmp_path: Path) -> None:
    repo, env, log = clone(tmp_path)
    first = dev(repo, env, "cluster")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "export KUBECONFIG=/tmp/kubeconfig\n"  # only the line to eval
    lines = first.stderr.splitlines()
    assert lines[0] == MESSAGE
    # said before pip ran (pip's own output follows it), and the end is said too
    assert lines.index("pip: installing") > 0
    assert lines[-1] == "./dev: .venv is ready"
    calls = log.read_text().splitlines()
    assert calls[0] == "python -m venv .venv" and calls[1].startswith("python -m pip install")

    again = dev(repo, env, "cluster")  # installed: nothing to say, nothing installed
    assert (again.stdout, again.stderr) == (first.stdout, "")
    assert len(log.read_text().splitlines()) == len(calls) + 1


def test_a_changed_pyproject_installs_again_and_says_so(tmp_path: Path) -> None:
    repo, env, log = clone(tmp_path)
    assert dev(repo, env, "demo").returncode == 0
    stamp = repo / ".venv" / ".installed"
    os.utime(stamp, (1, 1))  # older than pyproject.toml
    run = dev(repo, env, "demo")
    assert run.returncode == 0 and run.stdout == "demo: done\n"
    assert run.stderr.splitlines()[0] == (
        "./dev: installing kubectl-adapter with its test dependencies into .venv "
        "(pyproject.toml is newer than the last install; up to 2 minutes)..."
    )
    assert log.read_text().count("-m pip install") == 2


def test_a_fresh_demo_keeps_pips_output_off_stdout(tmp_path: Path) -> None:
    repo, env, _ = clone(tmp_path)
    run = dev(repo, env, "demo")
    assert run.returncode == 0
    assert run.stdout == "demo: done\n"
    assert run.stderr.startswith(MESSAGE + "\n") and "Successfully installed" in run.stderr


def test_the_files_handed_out_first_exist() -> None:
    """conftest.FIRST names files by path: a renamed one would silently lose its place."""
    from tests.conftest import FIRST

    root = Path(__file__).resolve().parent.parent
    assert [path for path in FIRST if not (root / path).is_file()] == []
