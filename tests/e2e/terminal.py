"""The real CLI as a person runs it: stdout and stderr each on a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import threading
from typing import NamedTuple

from .conftest import ROOT, WAIT_TIMEOUT, Cluster


class Seen(NamedTuple):
    code: int
    out: str  # what the stdout terminal showed, newlines as "\n"
    err: str


def _drain(master: int, into: list[bytes]) -> None:
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            return
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            return
        if not chunk:
            return
        into.append(chunk)


def adapter_argv(cluster: Cluster, *args: str) -> list[str]:
    """``kubectl-adapter ARGS`` against ``cluster``, as a process."""
    return [
        sys.executable,
        "-m",
        "kubectl_adapter",
        *cluster._conn_flags(),
        "-n",
        cluster.namespace,
        "--cache-dir",
        cluster._cache_dir(),
        "--timeout",
        WAIT_TIMEOUT,
        *args,
    ]


def plugin_argv(cluster: Cluster, *args: str) -> list[str]:
    """``kubectl adapter ARGS`` typed in bash: kubectl finds the plugin on PATH."""
    import shlex

    words = ["kubectl", "adapter", *adapter_argv(cluster, *args)[3:]]
    return ["bash", "-c", shlex.join(words)]


def plugin_env() -> dict[str, str]:
    """PATH with this interpreter's bin first: ``kubectl-adapter`` is there."""
    return {"PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}


def on_terminal(
    cluster: Cluster,
    *args: str,
    columns: int = 250,
    argv: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Seen:
    """``kubectl-adapter ARGS`` (or ``argv``) with stdout and stderr on terminals
    (``TERM=xterm``)."""
    argv = argv or adapter_argv(cluster, *args)
    running = OnTerminals(argv, columns, env)
    return running.finish(running.proc.wait(timeout=120))


class OnTerminals:
    """``argv`` started with stdout and stderr on pseudo-terminals ``columns`` wide
    (``TERM=xterm``), in a session of its own; what each shows is read as it comes."""

    def __init__(
        self, argv: list[str], columns: int = 250, env: dict[str, str] | None = None
    ) -> None:
        self.terminals = [pty.openpty(), pty.openpty()]
        for _, slave in self.terminals:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self.terminals[0][1],
            stderr=self.terminals[1][1],
            cwd=ROOT,
            env={**os.environ, "TERM": "xterm", **(env or {})},
            start_new_session=True,
        )
        self.chunks: list[list[bytes]] = [[], []]
        self.readers = []
        for (master, slave), into in zip(self.terminals, self.chunks, strict=True):
            os.close(slave)
            reader = threading.Thread(target=_drain, args=(master, into), daemon=True)
            reader.start()
            self.readers.append(reader)

    def finish(self, code: int) -> Seen:
        """What the terminals showed, once the process ended with ``code``."""
        for reader in self.readers:
            reader.join(timeout=30)
        for master, _ in self.terminals:
            os.close(master)
        out, err = (
            b"".join(c).decode("utf-8", "replace").replace("\r\n", "\n") for c in self.chunks
        )
        return Seen(code, out, err)
