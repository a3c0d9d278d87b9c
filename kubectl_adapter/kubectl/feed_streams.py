"""The live feed's watches: kubectl processes started and stopped one at a time while the
feed runs, their output read together.

``watches.watch_together`` runs a wait's fixed set of watches until one ends; the feed needs
a set that changes as it runs (its Deployments always, the Pods and ReplicaSets of the
workloads in motion only while there are some), so one stops or starts without the others
listing again. The processes are ``process``'s (its ``spawn``, its group kill: they die with
the adapter); each is decided (``runner.stream_call``) and typed when it exits
(``runner.stream_failure``) by the runner, as any other kubectl. Each stdout line is one
watch event (``--output-watch-events``), decoded with ``watch_fields``; a stderr line saying
the watch request was answered (``commands.watch_listed``) is reported after every line the
same kubectl printed on stdout before it.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
from collections.abc import Sequence
from time import monotonic
from typing import TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import AdapterError
from . import commands
from .interrupts import deferred
from .process import exit_fd, kill_group, spawn, stop, text
from .watch_fields import decode_event

if TYPE_CHECKING:
    from .call import Call
    from .runner import KubectlRunner

__all__ = ["Event", "FeedStreams"]

OBJECTS, LISTED, ENDED = "objects", "listed", "ended"


class Event(NamedTuple):
    """What one watch said: ``objects`` (``kind``: ADDED | MODIFIED | DELETED, ``objects``),
    ``listed`` (its first list is complete), or ``ended`` (``failure``: its typed error when it
    exited non-zero; None when it exited 0 or lived out its bound)."""

    key: str
    serial: int
    what: str
    kind: str = ""
    objects: tuple[dict[str, Any], ...] = ()
    failure: AdapterError | None = None


class _Stream:
    def __init__(self, call: Call, proc: subprocess.Popen[Any], serial: int) -> None:
        self.serial = serial
        self.call = call
        self.proc = proc
        self.deadline = monotonic() + call.bound
        self.out = b""  # an incomplete stdout line
        self.err = b""  # an incomplete stderr line
        self.stderr: list[bytes] = []
        self.listed = False
        self.exit_fd = exit_fd(proc)


class FeedStreams:
    """The watches running now, by key; ``events`` waits for what they say."""

    def __init__(self, runner: KubectlRunner) -> None:
        self.runner = runner
        self.streams: dict[str, _Stream] = {}
        self.serial = 0

    def running(self, key: str) -> bool:
        return key in self.streams

    def current(self, event: Event) -> bool:
        """``event`` comes from the watch of its key running now (or the one that just
        ended), not from one stopped since ``events`` gave it."""
        stream = self.streams.get(event.key)
        return stream.serial == event.serial if stream is not None else event.what == ENDED

    def start(
        self, key: str, args: Sequence[str], *, namespace: str | None, seconds: float,
        first: bool = True,
    ) -> None:  # fmt: skip
        """Start watch ``key`` (stopping the one of that key first)."""
        self.stop(key)
        call = self.runner.stream_call(args, namespace=namespace, seconds=seconds, first=first)
        with deferred():  # a signal now still finds the process in ``streams`` to kill
            proc = spawn(list(call.argv), False, False, lean=True)
            self.serial += 1
            self.streams[key] = _Stream(call, proc, self.serial)

    def stop(self, key: str) -> None:
        """Kill watch ``key`` with its process group; what it had not said is dropped."""
        stream = self.streams.pop(key, None)
        if stream is not None:
            self._close(stream)

    def close(self) -> None:
        for key in list(self.streams):
            self.stop(key)

    def events(self, timeout: float) -> list[Event]:
        """What the watches say within ``timeout`` seconds (at once when one has output)."""
        now = monotonic()
        for key, stream in list(self.streams.items()):
            if now >= stream.deadline:  # its bound: it ends, as one the server closed
                self.stop(key)
                return [Event(key, stream.serial, ENDED)]
        fds: dict[int, tuple[str, str]] = {}
        for key, stream in self.streams.items():
            assert stream.proc.stdout is not None and stream.proc.stderr is not None
            fds[stream.proc.stdout.fileno()] = (key, "out")
            fds[stream.proc.stderr.fileno()] = (key, "err")
            if stream.exit_fd is not None:
                fds[stream.exit_fd] = (key, "exit")
        if not fds:
            return []
        wait = min([timeout, *(s.deadline - now for s in self.streams.values())])
        ready, _, _ = select.select(list(fds), [], [], max(0.0, wait))
        found: list[Event] = []
        # stdout before stderr before exit: what a kubectl printed before its "listed" line
        # is judged first, and an exit after everything it printed.
        order = {"out": 0, "err": 1, "exit": 2}
        for fd in sorted(ready, key=lambda fd: order[fds[fd][1]]):
            key, pipe = fds[fd]
            found_stream = self.streams.get(key)
            if found_stream is None:
                continue
            stream = found_stream
            if pipe == "exit":
                found += self._drain(key, stream)
                found.append(self._ended(key))
                continue
            chunk = os.read(fd, 1 << 20)
            if pipe == "err":
                found += self._drain(key, stream)  # kubectl printed those before this line
                found += self._stderr(key, stream, chunk)
            else:
                found += self._stdout(key, stream, chunk)
            if not chunk and pipe == "out":
                found.append(self._ended(key))
        return found

    # -- one stream's output ---------------------------------------------------------------

    def _drain(self, key: str, stream: _Stream) -> list[Event]:
        """Every stdout byte the stream holds now (a big list takes several reads)."""
        found: list[Event] = []
        pipe = stream.proc.stdout
        assert pipe is not None
        while select.select([pipe.fileno()], [], [], 0)[0]:
            chunk = os.read(pipe.fileno(), 1 << 20)
            if not chunk:
                break
            found += self._stdout(key, stream, chunk)
        return found

    def _stdout(self, key: str, stream: _Stream, chunk: bytes) -> list[Event]:
        data = stream.out + chunk
        *lines, stream.out = data.split(b"\n") if chunk else [*data.split(b"\n"), b""]
        found = []
        for line in lines:
            if line.strip():
                kind, objects = decode_event(line, stream.call.shown)
                if kind:  # an ERROR event (an expired watch): kubectl ends the watch
                    found.append(Event(key, stream.serial, OBJECTS, kind, tuple(objects)))
        return found

    def _stderr(self, key: str, stream: _Stream, chunk: bytes) -> list[Event]:
        stream.stderr.append(chunk)
        *lines, stream.err = (stream.err + chunk).split(b"\n")
        if stream.listed:
            return []
        for line in lines:
            if commands.watch_listed(text(line)):
                stream.listed = True
                return [Event(key, stream.serial, LISTED)]
        return []

    def _ended(self, key: str) -> Event:
        """The stream's kubectl exited: its typed error, with all of its stderr."""
        stream = self.streams.pop(key)
        kill_group(stream.proc)  # what it left behind lets go of the pipes
        assert stream.proc.stderr is not None
        with contextlib.suppress(OSError):
            fd = stream.proc.stderr.fileno()
            while select.select([fd], [], [], 1.0)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                stream.stderr.append(chunk)
        try:
            returncode: int | None = stream.proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            returncode = None
        self._close(stream)
        stderr = text(b"".join(stream.stderr))
        failure = (
            self.runner.stream_failure(stream.call, returncode, stderr) if returncode else None
        )
        return Event(key, stream.serial, ENDED, failure=failure)

    @staticmethod
    def _close(stream: _Stream) -> None:
        if stream.exit_fd is not None:
            with contextlib.suppress(OSError):
                os.close(stream.exit_fd)
            stream.exit_fd = None
        stop(stream.proc)
