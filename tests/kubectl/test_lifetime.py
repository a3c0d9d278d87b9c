"""``lifetime``: a child started with ``dies_with_us`` dies when its parent dies, SIGKILL
included; one whose parent died before it asked kills itself; no death signal from a thread
other than the main one (the kernel would send it when that thread ends)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kubectl_adapter.kubectl.lifetime import dies_with_us

ROOT = Path(__file__).resolve().parents[2]

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")

# A parent that starts `sleep` with the death signal, prints its pid and then waits to be
# killed; the test SIGKILLs it and awaits the sleeper's end through a pidfd.
PARENT = """
import subprocess, sys
from kubectl_adapter.kubectl.lifetime import dies_with_us
child = subprocess.Popen(["sleep", "60"], preexec_fn=dies_with_us(), start_new_session=True)
print(child.pid, flush=True)
sys.stdin.read()
"""

# The parent dies between fork and prctl: the function made in this process runs in a
# grandchild, whose parent is not this process; it must kill itself at once.
LATE = """
import json, os, signal
from kubectl_adapter.kubectl.lifetime import dies_with_us
made_here = dies_with_us()
child = os.fork()
if child == 0:
    grandchild = os.fork()
    if grandchild == 0:
        made_here()
        os._exit(0)
    _, status = os.waitpid(grandchild, 0)
    os._exit(100 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
_, status = os.waitpid(child, 0)
print(json.dumps(os.WEXITSTATUS(status)))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@linux
def test_a_child_dies_when_its_parent_is_sigkilled() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env=_env(), text=True,
    )  # fmt: skip
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    exited = os.pidfd_open(child)
    try:
        parent.kill()
        parent.wait()
        # The pidfd turns readable when the child exits: awaited, not polled.
        ready, _, _ = select.select([exited], [], [], 10)
        assert ready, "the child outlived its SIGKILLed parent by 10 s"
    finally:
        os.close(exited)
        if parent.stdin is not None:
            parent.stdin.close()
        if parent.stdout is not None:
            parent.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)  # only if it survived: this test's own sleeper


@linux
def test_a_child_whose_parent_died_before_it_asked_kills_itself() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LATE], capture_output=True, text=True, env=_env(), timeout=30,
        check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == 100 + signal.SIGKILL, done.stderr  # killed, not exit 0


@linux
def test_the_main_thread_asks_for_it() -> None:
    assert dies_with_us() is not None


def test_no_death_signal_from_another_thread() -> None:
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(dies_with_us()))
    worker.start()
    worker.join()
    assert found == [None]


def test_none_where_the_kernel_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert dies_with_us() is None


CORE_ONLY = """
import errno, json, sys
import _ctypes
from kubectl_adapter.kubectl import lifetime
assert lifetime.dies_with_us() is not None
prctl = lifetime._linux_prctl()
unknown = prctl(-1, 0, 0, 0, 0)  # no such option: -1, errno EINVAL (use_errno kept it)
print(json.dumps({"ctypes": "ctypes" in sys.modules, "type": type(prctl).__name__,
                  "unknown": unknown, "einval": _ctypes.get_errno() == errno.EINVAL}))
"""


@linux
def test_prctl_is_resolved_from_ctypes_core_without_the_package() -> None:
    """The first kubectl's prctl costs _ctypes alone (ctypes' package is 5 modules); the
    death signal itself is proven above, by the children that die."""
    result = subprocess.run(
        [sys.executable, "-c", CORE_ONLY], env=_env(), capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    report = json.loads(result.stdout)
    assert report == {"ctypes": False, "type": "Prctl", "unknown": -1, "einval": True}


@linux
def test_prctl_falls_back_to_ctypes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should _ctypes' names ever change, ctypes' own CDLL resolves it."""
    from kubectl_adapter.kubectl import lifetime

    def gone() -> None:
        raise AttributeError("module '_ctypes' has no attribute 'CFuncPtr'")

    monkeypatch.setattr(lifetime, "_core_prctl", gone)
    monkeypatch.setattr(lifetime, "_resolved", False)
    monkeypatch.setattr(lifetime, "_prctl", None)
    found = lifetime._linux_prctl()
    assert found is not None and type(found).__name__ == "_FuncPtr"
