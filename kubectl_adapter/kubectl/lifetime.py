"""A kubectl dies with the adapter, whatever kills the adapter: SIGKILL included.

The runner kills each kubectl's process group on every way out it sees (a bound, an error,
SIGINT/SIGTERM/SIGHUP); a SIGKILL (Manager's client once SIGTERM's grace has run out, the
OOM killer) leaves it no way out to see, and a ``kubectl get --watch`` lives on until the API
server closes its watch, tens of minutes later. On Linux each kubectl asks the kernel, between
fork and exec, for SIGKILL the moment the adapter dies (``prctl(PR_SET_PDEATHSIG)``; exec
keeps it). Three details make that hold:

- The kernel sends it when the *thread* that forked the child ends, not the process: it is
  asked for only from the main thread, which lives as long as the process does. A kubectl
  started from another thread (none is today) gets no death signal (it would die when that
  thread ends, while still in use) and relies on the group kill alone.
- An adapter killed between the fork and the ``prctl`` would leave a child that never gets the
  signal: the child then finds it has another parent already and kills itself.
- The code that runs in the child between fork and exec calls only what the parent resolved
  before the fork (no import, no lookup, no allocation of ours): other threads may hold locks.

What it costs: a function run before exec makes Python fork where it would use vfork, about
7 ms more per kubectl started on the shared 2-core test machine (``/bin/true``: 2-3 ms to
10-12 ms), and resolving ``prctl`` once, by the first kubectl started: with ctypes' C core
(``_ctypes``) alone, as ctypes itself does it, 0.4 ms and one module (two on Python 3.11,
where it imports struct); the whole ctypes package, its fallback, takes 1.7 ms and five.

Elsewhere (macOS, the BSDs) there is no parent-death signal: a SIGKILLed adapter's kubectl
runs until it ends by itself (a read at its ``--request-timeout``, a write when answered, a
watch when the API server closes it). What kubectl itself starts (an exec credential plugin)
is killed with kubectl's group on every way out the adapter sees, but not on SIGKILL, on any
platform: it is kubectl's child, and the kernel signals only the direct child.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1

_prctl: Any = None
_resolved = False


def _core_prctl() -> Any:
    """libc's ``prctl(int, unsigned long x4) -> int`` (errno kept) from ``_ctypes``, built as
    ``ctypes.CDLL(None, use_errno=True).prctl`` builds it, without ctypes' Python layer
    (its types, ``struct``, ``ctypes._endian``): a command's first kubectl needs only this."""
    import _ctypes

    core: Any = _ctypes  # typeshed types its names as ctypes' public ones take them

    class Int(core._SimpleCData):  # type: ignore[misc]
        _type_ = "i"  # ctypes.c_int

    class ULong(core._SimpleCData):  # type: ignore[misc]
        _type_ = "L"  # ctypes.c_ulong

    class Prctl(core.CFuncPtr):  # type: ignore[misc]
        _flags_ = core.FUNCFLAG_CDECL | core.FUNCFLAG_USE_ERRNO
        _restype_ = Int
        _argtypes_ = (Int, ULong, ULong, ULong, ULong)

    class Libc:  # what CFuncPtr reads of a ctypes.CDLL: its handle
        _handle = core.dlopen(None, os.RTLD_LOCAL)

    return Prctl(("prctl", Libc()))


def _linux_prctl() -> Any:
    """libc's ``prctl``, resolved once (by the first kubectl started, not at start-up); None
    where it cannot be had. ``_core_prctl`` first; ctypes if that core's names ever change."""
    global _prctl, _resolved
    if not _resolved:
        _resolved = True
        try:
            _prctl = _core_prctl()
            return _prctl
        except (ImportError, OSError, AttributeError, TypeError):
            pass
        try:
            import ctypes

            function = ctypes.CDLL(None, use_errno=True).prctl
            function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                                 ctypes.c_ulong, ctypes.c_ulong]  # fmt: skip
            function.restype = ctypes.c_int
            _prctl = function
        except (ImportError, OSError, AttributeError):
            _prctl = None
    return _prctl


def dies_with_us() -> Callable[[], None] | None:
    """What the child runs before exec so that it dies with this process (``preexec_fn``);
    None where the kernel cannot do it (not Linux, not the main thread, no libc ``prctl``)."""
    if not sys.platform.startswith("linux"):
        return None
    if threading.current_thread() is not threading.main_thread():
        return None
    prctl = _linux_prctl()
    if prctl is None:
        return None
    parent = os.getpid()
    kill = signal.SIGKILL.value
    getppid, getpid, send = os.getppid, os.getpid, os.kill

    def set_death_signal() -> None:
        prctl(PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if getppid() != parent:  # the adapter died before the prctl: no signal will come
            send(getpid(), kill)

    return set_death_signal
