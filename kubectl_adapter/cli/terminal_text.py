"""Text for a person: the one door every human form goes through on its way to a terminal.

Names, images, messages and reasons come from the cluster (and Manager's spec): data, never
terminal input. ``shown`` writes each character a terminal would act on (C0 controls, DEL,
C1 controls such as U+009B CSI and U+0085 NEL, the bidirectional overrides and isolates
U+202A-U+202E and U+2066-U+2069, zero-width and other format characters, line and paragraph
separators, unassigned and private-use code points, lone surrogates: everything Python's
``str.isprintable`` refuses) as a visible escape in Go's ``%q`` style (``\\x1b``, ``\\r``,
``\\u0085``, ``\\u202e``), and each character the stream's encoding cannot carry (``é`` on an
ASCII locale) the same way, instead of failing. kubectl itself escapes only ESC (``^[``) and
CR (cli-runtime ``printers.EscapeTerminal``, kubernetes#101695); this is the same idea,
wider. The escapes are for reading, not reversible (a literal backslash is left as it is):
the exact text is in ``-o json`` and ``-o yaml``.

The only control characters a human form writes are its own: the line feed that ends its
lines and, on a terminal, the progress line's carriage return and erase (``write_control``).
A tab is expanded to spaces, as the terminal would show it.

Where it applies: ``output.put`` (every human form on stdout: tables, ``-o name``,
describe's text, ``-o yaml``, ``--help``) and ``ShownStream``, which ``cli.app.main`` puts
in place of ``sys.stderr`` for the whole command (error lines, notes, progress, the ``-v``
log, usage errors, tracebacks). New human text is covered by writing it there; only
Manager's JSON and ``render``'s manifest go out exact (``output.put_exact``).
"""

from __future__ import annotations

import codecs
import contextlib
import sys
from collections.abc import Iterator
from typing import IO, Any

__all__ = [
    "ShownStream",
    "escape",
    "is_shown",
    "one_line",
    "shown",
    "shown_stderr",
    "shown_stream",
]

# Go's named escapes (strconv.Quote); ``shown`` keeps \n and expands \t, ``one_line`` escapes them.
_NAMED = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
_UTF: dict[str | None, bool] = {}


def escape(char: str) -> str:
    """One character as Go's ``%q`` writes it: ``\\x1b`` (ASCII), ``\\u0085``, ``\\U0001f600``."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _utf(encoding: str | None) -> bool:
    """Whether ``encoding`` carries every character (None: UTF-8, what JSON and pipes get)."""
    known = _UTF.get(encoding)
    if known is None:
        try:
            known = not encoding or codecs.lookup(encoding).name in ("utf-8", "utf-16", "utf-32")
        except LookupError:
            known = False
        _UTF[encoding] = known
    return known


def is_shown(char: str, encoding: str | None = None) -> bool:
    """Whether ``char`` is written as itself: printable, and ``encoding`` can carry it."""
    if not char.isprintable():
        return False
    if char.isascii() or _utf(encoding):
        return True
    try:
        char.encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _unencodable(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler: what ``encoding`` cannot carry, as escapes."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(map(escape, error.object[error.start : error.end])), error.end


codecs.register_error("kubectl_adapter.escape", _unencodable)


def _carried(text: str, encoding: str | None) -> str:
    """``text`` with what ``encoding`` cannot carry escaped (in C: the codec's own loop)."""
    if text.isascii() or _utf(encoding):
        return text
    try:
        return text.encode(str(encoding), "kubectl_adapter.escape").decode(str(encoding))
    except LookupError:  # no such codec: ASCII is what every terminal shows
        return text.encode("ascii", "kubectl_adapter.escape").decode("ascii")


def shown(text: str, encoding: str | None = None) -> str:
    """``text`` as a terminal may show it in ``encoding`` (None: UTF-8); line feeds kept."""
    if "\t" in text:
        text = text.expandtabs()
    # The common case is checked in C: nothing to escape but what the encoding lacks.
    if not text.replace("\n", " ").isprintable():
        text = "".join(c if c == "\n" or c.isprintable() else escape(c) for c in text)
    return _carried(text, encoding)


def one_line(text: str, encoding: str | None = None) -> str:
    """``shown`` kept to one line: a line feed or tab is escaped too (a cell, the progress line)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else escape(c) for c in text)
    return _carried(text, encoding)


class ShownStream:
    """A text stream for a person: what is written goes through ``shown`` in the stream's
    encoding; ``write_control`` is the one way past it, for the adapter's own terminal
    controls (the progress line's erase)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        self.stream.write(shown(text, self.encoding))
        return len(text)

    def write_control(self, sequence: str) -> None:
        self.stream.write(sequence)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return bool(self.stream.isatty())

    def fileno(self) -> int:
        return self.stream.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def shown_stream(stream: IO[str] | ShownStream) -> ShownStream:
    """``stream`` behind the door (once: a ShownStream is returned as it is)."""
    return stream if isinstance(stream, ShownStream) else ShownStream(stream)


@contextlib.contextmanager
def shown_stderr() -> Iterator[None]:
    """``sys.stderr`` behind the door while the command runs: everything written there, by
    any code, is made safe; the stream it wraps is put back afterwards."""
    original = sys.stderr
    if original is None or isinstance(original, ShownStream):
        yield
        return
    sys.stderr = ShownStream(original)
    try:
        yield
    finally:
        sys.stderr = original
