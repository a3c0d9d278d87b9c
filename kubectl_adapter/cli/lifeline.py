"""``-w --exit-with-parent``: a feed that ends when the program reading it dies, SIGKILL included.

A program that keeps ``list -w`` running (Manager's node client) cannot be sure to stop it: a
SIGKILL or the OOM killer gives it no moment to, and a feed writes nothing while the cluster
is still, so it would not even meet a closed stdout (``OutputFailed``) until the next change.
The reader holds the adapter's stdin open and never writes to it; the kernel closes it when
the reader exits, whatever ended it. A daemon thread reads stdin to that end of file and then
signals this process with SIGTERM, which ends the feed as any SIGTERM does: every kubectl
killed with its process group, exit 143. Portable (no parent-death signal needed), and free of
the race a parent ID check has: a reader already gone is an end of file at the first read.
"""

from __future__ import annotations

import os
import signal
import threading

__all__ = ["end_with_stdin"]


def _wait_for_end_of_file(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass  # the reader writes nothing; anything it does write is ignored
    except OSError:
        pass  # a stdin that cannot be read is as good as closed
    os.kill(os.getpid(), signal.SIGTERM)


def end_with_stdin(fd: int = 0) -> None:
    """SIGTERM this process once ``fd`` (stdin) reaches end of file."""
    threading.Thread(target=_wait_for_end_of_file, args=(fd,), daemon=True).start()
