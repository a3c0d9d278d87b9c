"""When a broken watch is started again: the one policy of every wait and of the live feed.

A watch breaks (a dropped connection, an API server restart, a watch the server closes or
expires); it is started again at once, then after 0.5 s, 1 s, 2 s… (at most 2 s): an API
server restart is over in seconds, and ``kubectl rollout status`` rides it out too. Starting
again lists the current state first, and what reads the watches judges states, not changes,
so nothing is lost. A refusal or a misconfiguration is raised at once (starting again cannot
help); an API server unreachable for ``unreachable_seconds`` in a row is raised too.
"""

from __future__ import annotations

from time import monotonic

from ..contract.errors import AdapterError, Unavailable

RESUME_DELAYS = (0.0, 0.5, 1.0, 2.0)


class Resumption:
    """The state of one wait's (or feed's) watches across their runs."""

    def __init__(self, unreachable_seconds: float) -> None:
        self.unreachable_seconds = unreachable_seconds
        self.failed_in_a_row = 0  # runs that broke before both watches listed
        self.unreachable_since: float | None = None

    def pause(self, failure: AdapterError | None, got_through: bool) -> float:
        """After a run of the watches ended undecided: the seconds to wait before starting
        them again. ``got_through``: every watch listed (a watch ended, not the API server).
        Raises ``failure`` when starting again cannot help, or the API server has been
        unreachable too long."""
        if failure is not None and not isinstance(failure, Unavailable):
            raise failure  # refused, misconfigured
        now = monotonic()
        if got_through:
            self.failed_in_a_row, self.unreachable_since = 0, None
        else:
            self.failed_in_a_row += 1
            if failure is not None:
                if self.unreachable_since is None:
                    self.unreachable_since = now
                elif now - self.unreachable_since >= self.unreachable_seconds:
                    raise failure
        return RESUME_DELAYS[min(self.failed_in_a_row, len(RESUME_DELAYS) - 1)]
