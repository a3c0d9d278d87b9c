"""The one seam to kubectl: running a call and watching calls go through ``Kubectl``.

The runner decides every call and classifies what came back; between the two, ``Kubectl``
runs it. Production has one implementation, ``Subprocesses`` (``process`` and ``watches``:
the one ``Popen``, its group, its pipes); tests hand the runner another (an in-memory one over
pytest-subprocess's fakes: ``tests/fake_kubectl.py``), as httpx's tests swap its transport,
so no production line exists for a test's stand-in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from . import process
from .call import Call
from .process import Ended

if TYPE_CHECKING:
    from .watches import Watching, WatchRun


class Kubectl(Protocol):
    """How the runner has a decided call run, and a wait's watches watched."""

    def run(
        self,
        call: Call,
        began: float,
        *,
        started: Any = None,
        echo: Callable[[str], None] | None = None,
    ) -> Ended:
        """Run ``call`` to its end (``started``: the process ``start`` began for it)."""
        ...

    def start(self, argv: list[str], keep: Callable[[Any], None]) -> None:
        """Start a read ahead of the run that takes it over, handing it to ``keep``."""
        ...

    def stop(self, started: Any) -> None:
        """End a read ``start`` began that no run took over."""
        ...

    def watch(
        self, calls: Sequence[Call], watching: Watching, *, started: Sequence[Any] = ()
    ) -> WatchRun:
        """Run a wait's watches at once, their output judged by ``watching`` (``started``:
        the processes ``start`` began for them, one per call, in order)."""
        ...


class Subprocesses:
    """kubectl as processes: ``process`` for a call, ``watches`` for a wait's watches."""

    def run(
        self,
        call: Call,
        began: float,
        *,
        started: Any = None,
        echo: Callable[[str], None] | None = None,
    ) -> Ended:
        return process.run(call, began, started=started, echo=echo)

    def start(self, argv: list[str], keep: Callable[[Any], None]) -> None:
        process.start(argv, keep)

    def stop(self, started: Any) -> None:
        process.stop(started)

    def watch(
        self, calls: Sequence[Call], watching: Watching, *, started: Sequence[Any] = ()
    ) -> WatchRun:
        from .watches import watch_together  # only a wait needs it: not at start-up

        return watch_together(calls, watching, started=started)


# What a runner made without one of its own uses: the seam's default, which a test replaces
# as a whole (never a function inside it).
DEFAULT: Kubectl = Subprocesses()
