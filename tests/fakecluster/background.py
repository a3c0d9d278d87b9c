"""`./dev cluster [start|stop|status]`: the fake API server in the background, for by-hand use.

`start` serves the namespaces `default` and `manager` (the context's namespace: the README's
Quick use and docs/rbac.md run against it as written), detached from the terminal, and prints
on stdout the one line a shell needs, `export KUBECONFIG=…`, so `eval "$(./dev cluster)"`
points kubectl and kubectl-adapter at it. Run again while it serves, it prints the same line.
`stop` ends it and prints `unset KUBECONFIG`. Its kubeconfig, pid and log live in
`$DEV_CLUSTER_DIR` (default `.dev-cluster/` in the repository, git-ignored).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMESPACES = ("default", "manager")
STOP_SECONDS = 10.0


def _state_dir() -> Path:
    return Path(os.environ.get("DEV_CLUSTER_DIR") or ROOT / ".dev-cluster").resolve()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ours(pid: int, state: Path) -> bool:
    """The process is the fake this state directory started, not a later one with its pid."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return _alive(pid)  # no /proc to ask: trust the pid file
    return b"tests.fakecluster" in argv and str(state).encode() in argv


def _running(state: Path) -> int | None:
    """The pid of the server this state directory started, if it still serves."""
    try:
        pid = int((state / "pid").read_text())
    except (OSError, ValueError):
        return None
    if not _alive(pid) or not _ours(pid, state) or not (state / "kubeconfig").is_file():
        return None
    return pid


def _export(state: Path) -> str:
    return f"export KUBECONFIG={shlex.quote(str(state / 'kubeconfig'))}"


def start(state: Path) -> int:
    pid = _running(state)
    if pid is None:
        state.mkdir(parents=True, exist_ok=True)
        (state / "kubeconfig").unlink(missing_ok=True)
        argv = [sys.executable, "-m", "tests.fakecluster", "--dir", str(state)]
        for ns in NAMESPACES:
            argv += ["--namespace", ns]
        argv += ["--default-namespace", "manager"]
        with open(state / "server.log", "ab") as log:
            proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,  # outlives this shell command; no terminal signals
            )
        assert proc.stdout is not None
        # Its first lines say it serves (kubeconfig path, context, server URL); then it
        # writes nothing more there, so the pipe can close under it.
        lines = [proc.stdout.readline().decode().strip() for _ in range(3)]
        proc.stdout.close()
        if not lines[-1].startswith("server="):
            code = proc.wait(timeout=STOP_SECONDS)
            print(
                f"fake cluster did not start (exit {code}); see {state / 'server.log'}",
                file=sys.stderr,
            )
            return 1
        (state / "pid").write_text(f"{proc.pid}\n")
        pid = proc.pid
        print(f"fake cluster started: {lines[-1]}, pid {pid}", file=sys.stderr)
    else:
        print(f"fake cluster already running, pid {pid}", file=sys.stderr)
    print(
        "namespaces default and manager (the context's); stop it with ./dev cluster stop",
        file=sys.stderr,
    )
    print(_export(state))
    return 0


def stop(state: Path) -> int:
    pid = _running(state)
    if pid is None:
        print("no fake cluster running", file=sys.stderr)
    else:
        os.kill(pid, signal.SIGTERM)
        # Not our child once the starting command has exited: poll until it is gone.
        deadline = time.monotonic() + STOP_SECONDS
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            print(f"fake cluster (pid {pid}) did not stop in {STOP_SECONDS:g} s", file=sys.stderr)
            return 1
        print(f"fake cluster stopped (pid {pid})", file=sys.stderr)
    (state / "pid").unlink(missing_ok=True)
    print("unset KUBECONFIG")
    return 0


def status(state: Path) -> int:
    pid = _running(state)
    if pid is None:
        print("no fake cluster running", file=sys.stderr)
        return 1
    print(f"fake cluster running, pid {pid}", file=sys.stderr)
    print(_export(state))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev cluster", description=__doc__)
    parser.add_argument("action", nargs="?", default="start", choices=("start", "stop", "status"))
    args = parser.parse_args(argv)
    action = {"start": start, "stop": stop, "status": status}[args.action]
    return action(_state_dir())


if __name__ == "__main__":
    sys.exit(main())
