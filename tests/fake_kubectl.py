"""The in-memory side of the one seam to kubectl (``kubectl_adapter.kubectl.seam.Kubectl``):
kubectl runs as pytest-subprocess's fakes, which have no pipes to select on, so each one is
read whole with ``communicate``, as ``subprocess.run`` reads a process.

Production runs kubectl through ``seam.Subprocesses`` only; a test that asks for ``fp`` gets
this one (``tests/conftest.py``), so no line of the package exists for a test's stand-in.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from typing import Any

from kubectl_adapter.kubectl import process
from kubectl_adapter.kubectl.call import Call
from kubectl_adapter.kubectl.pace import Pace
from kubectl_adapter.kubectl.process import KILL_DRAIN_SECONDS, Ended, kill_group, spawn, text
from kubectl_adapter.kubectl.watches import Watching, WatchRun, judged


class FakeProcesses:
    """``seam.Kubectl`` over pytest-subprocess's fake processes."""

    def run(
        self,
        call: Call,
        began: float,
        *,
        started: Any = None,
        echo: Callable[[str], None] | None = None,
    ) -> Ended:
        if echo is not None:  # line by line from its text pipes: the production path reads them
            return process.run(call, began, started=started, echo=echo)
        proc = started if started is not None else spawn(list(call.argv), call.stdin is not None,
                                                         False)  # fmt: skip
        data = call.stdin.encode("utf-8") if call.stdin is not None else None
        try:
            stdout, stderr = proc.communicate(data, timeout=call.bound)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            try:
                stdout, stderr = proc.communicate(timeout=KILL_DRAIN_SECONDS)
            except subprocess.TimeoutExpired:
                stdout, stderr = b"", b""
            return Ended(None, text(stdout), text(stderr))
        if call.pacing is not None and stderr:
            Pace(call.pacing.idle, write=call.pacing.write, started=began).feed(stderr)
        returncode = proc.returncode
        out = stdout or b"" if call.raw and returncode == 0 else text(stdout)
        return Ended(returncode, out, text(stderr))

    def start(self, argv: list[str], keep: Callable[[Any], None]) -> None:
        keep(spawn(argv, False, False))

    def stop(self, started: Any) -> None:
        process.stop(started)

    def watch(
        self, calls: Sequence[Call], watching: Watching, *, started: Sequence[Any] = ()
    ) -> WatchRun:
        """What each fake printed is there at once: judged stdout then stderr, one after the
        other; then one that failed has exited, and the others watch on, silent, until the
        bound (``False``)."""
        procs = [
            *started,
            *(spawn(list(call.argv), False, False) for call in calls[len(started) :]),
        ]
        err: list[str] = ["" for _ in procs]
        try:
            for index, proc in enumerate(procs):
                for is_stdout, pipe in ((True, proc.stdout), (False, proc.stderr)):
                    data = pipe.read() if pipe is not None else b""
                    raw = data.encode() if isinstance(data, str) else (data or b"")
                    if not is_stdout:
                        err[index] = text(raw)
                    for line in raw.split(b"\n"):
                        if judged(watching, index, is_stdout, line):
                            return True, -1, None, err
            for index, proc in enumerate(procs):
                status = proc.poll()
                if status:
                    return None, index, status, err
            return False, -1, None, err
        finally:
            for proc in procs:
                process.stop(proc)
