"""Progress on a terminal: one line, redrawn in place, while a wait runs.

``kubectl-adapter: waiting for rollout of ns/web-1 (12s of 300s): 0 of 1 updated replicas
are available...`` — the elapsed time ticks every second, kubectl's latest word follows, and
the line is erased when the wait ends, so the terminal keeps only the result. Used only when
stderr is a terminal (``enabled``); Manager's pipes get nothing extra. No progress library:
one line needs a carriage return and an erase, and a library would cost start-up time.
A terminal that can no longer be written (closed, hung up: EIO) ends the display quietly:
the wait it shows goes on, since losing the picture must never stop the work. Everything it
writes goes through ``terminal_text.ShownStream`` (the line, kubectl's words in it, the ``-v``
log written above it); its carriage return and erase are the only controls it writes itself.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from time import monotonic
from typing import IO

from .terminal_text import ShownStream, one_line, shown_stream

__all__ = ["TerminalProgress", "enabled"]

ERASE = "\r\x1b[K"
# kubectl's rollout lines repeat what the line already says.
_ROLLOUT_PREFIX = re.compile(r'^Waiting for deployment "[^"]*" rollout to finish: ')


def enabled(stream: IO[str]) -> bool:
    """A terminal that understands a carriage return and an erase."""
    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):
        return False


def elapsed(seconds: float) -> str:
    """``7s``, ``1m05s``: whole seconds, as kubectl prints ages."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m{whole % 60:02d}s"


class TerminalProgress:
    """A ``progress.Watcher`` drawing one line on ``stream``; also a stream for log lines,
    which it writes above the progress line."""

    def __init__(
        self,
        stream: IO[str] | ShownStream,
        *,
        prog: str = "kubectl-adapter",
        interval: float = 1.0,
        clock: Callable[[], float] = monotonic,
        width: Callable[[], int] | None = None,
    ) -> None:
        self.stream = stream
        self._out = shown_stream(stream)
        self.prog = prog
        self.interval = interval
        self.clock = clock
        self.width = width or self._terminal_width
        self._lock = threading.RLock()
        self._what: str | None = None
        self._timeout = 0.0
        self._started = 0.0
        self._detail = ""
        self._shown = False
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._broken = False  # the stream failed once: nothing more is written

    # -- progress.Watcher --------------------------------------------------------------

    def begin(self, what: str, timeout: float) -> None:
        with self._lock:
            self._what, self._timeout, self._started, self._detail = what, timeout, self.clock(), ""
            self._draw()
            if self._ticker is None:
                self._stop.clear()
                self._ticker = threading.Thread(target=self._tick, daemon=True)
                self._ticker.start()

    def note(self, line: str) -> None:
        with self._lock:
            self._detail = _ROLLOUT_PREFIX.sub("", line.strip())
            self._draw()

    def end(self) -> None:
        """Stop the ticker and erase the line; safe after a ``begin`` cut short (a signal
        while the ticker thread starts) and when called again."""
        ticker = self._ticker
        self._stop.set()
        if ticker is not None and ticker is not threading.current_thread() and ticker.is_alive():
            ticker.join()
        with self._lock:
            self._ticker = None
            self._what = None
            self._erase()

    # -- a stream for the -v log ---------------------------------------------------------

    def write(self, text: str) -> int:
        with self._lock:
            self._erase()
            self._put(text, flush=False)
            if text.endswith("\n"):
                self._draw()
            return len(text)

    def flush(self) -> None:
        with self._lock:
            self._put("", flush=True)

    # -- drawing -------------------------------------------------------------------------

    def line(self) -> str:
        """The progress line as it stands, cut to the terminal's width."""
        assert self._what is not None
        spent = elapsed(self.clock() - self._started)
        text = f"{self.prog}: waiting for {self._what} ({spent} of {elapsed(self._timeout)})"
        if self._detail:
            text += f": {self._detail}"
        text = one_line(text, self._out.encoding)
        room = max(20, self.width() - 1)
        return text if len(text) <= room else text[: room - 3] + "..."

    def _draw(self) -> None:
        if self._what is None:
            return
        self._shown = self._put(self.line(), flush=True, control=ERASE)

    def _erase(self) -> None:
        if self._shown:
            self._put("", flush=True, control=ERASE)
            self._shown = False

    def _put(self, text: str, *, flush: bool, control: str = "") -> bool:
        """Write ``control`` (the display's own) then ``text`` (made safe), and flush; False,
        and never again, once the terminal cannot take it."""
        if self._broken:
            return False
        try:
            if control:
                self._out.write_control(control)
            if text:
                self._out.write(text)
            if flush:
                self._out.flush()
        except (OSError, ValueError):
            self._broken = True
            return False
        return True

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                self._draw()

    def _terminal_width(self) -> int:
        """The terminal's columns; a terminal that says 0 (no size set) gets $COLUMNS or 80."""
        try:
            columns = os.get_terminal_size(self._out.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        if columns > 0:
            return columns
        try:
            return int(os.environ.get("COLUMNS", "")) or 80
        except ValueError:
            return 80
