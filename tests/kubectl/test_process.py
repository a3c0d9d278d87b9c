"""``process``: one kubectl process run to its end, whatever it does with its pipes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kubectl_adapter.kubectl.call import Call
from kubectl_adapter.kubectl.process import _close, run

# A kubectl that closes its stdin at once and exits, before its manifest is written.
CLOSES_STDIN = "exec 0<&-\necho closed >&2\nexit 1\n"


def test_closing_a_stdin_whose_reader_is_gone_is_no_broken_pipe() -> None:
    """Issue 39: what the feeder left in our end's buffer is flushed by the close; with the
    child gone the flush fails with EPIPE, and ``_close`` raised BrokenPipeError out of
    ``process.run`` (seen under load, when the child exited before the feeder closed)."""
    proc = subprocess.Popen(["/bin/sh", "-c", CLOSES_STDIN], stdin=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    proc.wait()
    assert proc.stdin is not None
    proc.stdin.write(b"kind: Deployment\n" * 100)  # buffered: no write has failed yet
    _close(proc)
    assert proc.stdin.closed


def test_a_child_that_closes_stdin_at_once_ends_as_it_exited(tmp_path: Path) -> None:
    kubectl = tmp_path / "kubectl"
    kubectl.write_text("#!/bin/sh\n" + CLOSES_STDIN)
    kubectl.chmod(0o755)
    for size in (100, 4096, 1 << 16, 8 << 20):  # buffered, one pipe's worth, far more
        ended = run(Call((str(kubectl),), "write", 10.0, stdin="x" * size), 0.0)
        assert (ended.returncode, ended.stderr) == (1, "closed\n")
