"""What a piece of code costs, measured so that a loaded machine cannot change the verdict.

CI runs on a shared 2-core machine, beside a second copy of the suite: wall-clock seconds
there measure the neighbours as much as the code. So a test of cost measures CPU seconds,
which waiting for a core does not add to (``time.thread_time`` for code run in this thread,
``getrusage(RUSAGE_CHILDREN)`` for a process it runs), and judges them against a baseline
taken in the same run (``grows_linearly``), or against a bound many times what the code
costs on an idle machine yet far below what the defect it guards against costs.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# 10x the input: a linear scan costs about 10x (up to ~30x when the larger input falls out
# of a cache the smaller fits); a quadratic one 100x. 50 leaves room on both sides.
LINEAR_RATIO = 50.0
# A CPU time below this is noise-sized (timer and cache effects): the ratio uses it instead.
FLOOR_SECONDS = 2e-3


def cpu_seconds(work: Callable[[], Any]) -> float:
    """The CPU time this thread spends in ``work()`` (never time spent waiting for a core)."""
    started = time.thread_time()
    work()
    return time.thread_time() - started


def grows_linearly(
    small: Callable[[], Any], large: Callable[[], Any], *, rounds: int = 5, limit: float = 10.0
) -> tuple[float, float]:
    """The best CPU time of ``small`` and of ``large`` (its input 10x as big) over ``rounds``
    interleaved runs, asserting the large one cost at most ``LINEAR_RATIO`` times the small.

    Interleaved, so a slow spell hits both sizes alike; the best of each, so one unlucky run
    does not count. ``limit``: CPU seconds the small input may cost at most, checked first,
    so that a quadratic defect fails fast instead of running the large input for minutes."""
    best_small = best_large = float("inf")
    for _ in range(rounds):
        best_small = min(best_small, cpu_seconds(small))
        assert best_small < limit, f"the small input took {best_small:.2f} CPU seconds"
        best_large = min(best_large, cpu_seconds(large))
    ratio = best_large / max(best_small, FLOOR_SECONDS)
    assert ratio < LINEAR_RATIO, (
        f"10x the input cost {ratio:.0f}x the CPU time ({best_small:.4f} s -> {best_large:.4f} s)"
    )
    return best_small, best_large


@contextmanager
def child_cpu() -> Iterator[list[float]]:
    """The CPU seconds (user + system) of the child processes waited for inside the block,
    appended to the list it yields when the block ends."""
    seconds: list[float] = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    yield seconds
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds.append(
        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
    )


class Pace:
    """How long a comparable command took on this machine in this run: the baseline a bound
    on a command's seconds scales with. A wait that must end "at once" (on an event, far
    inside its --timeout) is held to ``quick()``: its idle bound, or ``factor`` times the
    slowest baseline noted, whichever is larger, so a loaded machine stretches both alike."""

    def __init__(self, idle_bound: float, factor: float = 3.0) -> None:
        self.idle_bound = idle_bound
        self.factor = factor
        self.seen: list[float] = []

    def note(self, seconds: float) -> None:
        self.seen.append(seconds)

    def quick(self) -> float:
        return max([self.idle_bound, *(self.factor * s for s in self.seen[-3:])])
