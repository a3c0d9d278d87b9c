"""``kubectl-adapter``: the command Manager spawns. JSON on stdout, logs on stderr.

Exactly one document is printed on stdout, the result or ``{"error": ...}``: JSON on a pipe
unless ``-o`` asks otherwise, a person's view on a terminal (``views``, ``output``), and the
exit code is the error's (see ``errors``). The command itself runs in ``dispatch``. On a
terminal, waits draw one line of progress (``progress``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from time import monotonic
from typing import NamedTuple, Protocol

from ..contract.errors import AdapterError, InternalError, Interrupted, InvalidInput
from ..kubectl.interrupts import Signalled, interrupting
from .dispatch import Streamed, dump, run_command
from .formats import FORMATS, HUMAN, Shown, refusal
from .output import (
    deliver,
    lost,
    say,
    settle,
    stderr_or_null,
    write_error,
    write_result,
)
from .parser import PROG, build_parser
from .terminal_text import shown_stderr
from .views import default_format, is_terminal, shown_prog

__all__ = ["PROG", "build_parser", "main", "run_command"]


class _Sink(Protocol):
    """Where log lines go: stderr, or the progress display that writes above its line."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def main(argv: Sequence[str] | None = None, *, process: bool = False) -> int:
    """Run one command. ``process``: this is the whole process (the entry point), so signals
    stay handled (ignored after the first) until it exits."""
    # A short-lived process that creates no reference cycles worth collecting, while the
    # cyclic GC would rescan kubectl's parsed output (millions of objects for a big list)
    # on every allocation burst: a third of `list`'s time at 5,000 workloads.
    collecting = gc.isenabled()
    gc.disable()
    try:
        # Everything written to stderr (errors, notes, progress, the -v log) is for a person:
        # behind terminal_text's door for the whole command.
        with stderr_or_null(), shown_stderr():
            return _main(list(sys.argv[1:] if argv is None else argv), process)
    finally:
        if collecting:
            gc.enable()
        if process:
            settle()


def _main(argv: list[str], process: bool) -> int:
    started = monotonic()
    if not argv:  # a person trying the command: the help, like kubectl's
        return deliver(build_parser().print_help, 0, "the help", PROG)
    return _run(argv, started, process)


def requested_format(argv: Sequence[str]) -> str:
    """The ``-o`` the arguments ask for, known even when parsing them fails (JSON if unsure)."""
    wanted = "json"
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg in ("-o", "--output") and i + 1 < len(argv):
            wanted = argv[i + 1]
        elif arg.startswith("--output="):
            wanted = arg.partition("=")[2]
        elif arg.startswith("-o") and not arg.startswith("--") and len(arg) > 2:
            wanted = arg[2:].removeprefix("=")
    return wanted if wanted in FORMATS else "json"


class _About(NamedTuple):
    """What an error is about, for a person's next steps: the command and its workload."""

    command: str = ""
    target: str | None = None


def _interrupted(signum: int, fmt: str, about: _About, *, watching: bool = False) -> int:
    name = signal.Signals(signum).name
    if watching and fmt in HUMAN:  # Ctrl-C is how a person ends a watch, as kubectl get -w
        return 128 + signum
    if watching:  # how a watch ends: it only read
        message = f"interrupted by {name}: the watch was stopped (it changes nothing)"
    else:
        read = f": {shown_prog(PROG)} status {about.target}" if about.target else ""
        message = (
            f"interrupted by {name}: kubectl was stopped; the cluster may be part-way "
            f"through the operation (read its status{read})"
        )
    error = Interrupted(message, {"signal": name})
    return _report(error, fmt, 128 + signum, about)


def _report(error: AdapterError, fmt: str, code: int, about: _About | None = None) -> int:
    """The error document on stdout (stderr for ``-o table``); ``code`` unless it is lost."""
    document = error.to_json()
    about = about or _About()
    return deliver(
        lambda out: write_error(
            document,
            fmt,
            out,
            sys.stderr,
            command=about.command,
            target=about.target,
            prog=shown_prog(PROG),
        ),
        code,
        f"the {error.type} error document",
        PROG,
    )


def _about(args: argparse.Namespace | None) -> _About:
    if args is None:
        return _About()
    return _About(str(getattr(args, "command", "") or ""), getattr(args, "target", None))


def _run(argv: list[str], started: float, process: bool) -> int:
    fmt = requested_format(argv)
    watching = False
    args: argparse.Namespace | None = None
    finishing: Callable[[], None] = _nothing
    # The handlers are installed inside the try: a signal at any moment (even one held since
    # the process started, or one while the parser is built) ends in the Interrupted document.
    try:
        with interrupting(until_exit=process) as finishing:
            try:
                args = build_parser().parse_args(argv)
            except SystemExit as exc:  # --help, --version: printed, nothing to run
                finishing()
                return exc.code if isinstance(exc.code, int) else 0
            except OSError as exc:  # the same, on a stdout that cannot take them
                finishing()
                return lost(exc, 0, "the help", PROG)
            args.started = started
            fmt = args.output or default_format(
                args.command, dry_run=args.dry_run, terminal=is_terminal(sys.stdout)
            )
            args.shown_format = fmt
            watching = bool(getattr(args, "watch", False))
            refused = args.output and refusal(args.command, fmt, dry_run=args.dry_run)
            if refused:  # before anything runs: a write is never made only to be refused
                raise InvalidInput(refused, {"field": "output", "output": fmt})
            with _progress(args) as stderr:
                if args.verbose:
                    _log_to(stderr, argv)
                result = run_command(args)
            finishing()
    except AdapterError as exc:
        finishing()
        if exc.type == "InvalidInput" and "usage" in exc.details and is_terminal(sys.stdout):
            # A person mistyped: one message, as kubectl words it. A program reading stdout
            # (Manager) gets the error document, as for any other error.
            from .mistyped import usage_text

            say(usage_text(exc.message, exc.details, PROG).rstrip("\n"))
            return exc.exit_code
        return _report(exc, fmt, exc.exit_code, _about(args))
    except Signalled as exc:
        return _interrupted(exc.signum, fmt, _about(args), watching=watching)
    except KeyboardInterrupt:
        finishing()
        return _interrupted(signal.SIGINT, fmt, _about(args), watching=watching)
    except Exception as exc:  # a bug: still one document, never a traceback on stdout
        finishing()
        error = InternalError(f"unexpected {type(exc).__name__}: {exc}")
        code = _report(error, fmt, error.exit_code)
        import traceback

        from ..contract.redact import redact

        say(redact(traceback.format_exc()).rstrip("\n"))
        return code
    if isinstance(result, Streamed):  # --watch wrote as it went
        return result.code
    if type(result).__name__ == "Several":  # NAME NAME...: each answered as if alone
        several = result
        shown = Shown(fmt, headers=not args.no_headers, prog=shown_prog(PROG))
        return deliver(
            lambda out: several.write(args.command, shown, out, sys.stderr),
            several.exit_code,
            f"the result of {args.command}",
            PROG,
        )
    code = 0
    shown = Shown(fmt, headers=not args.no_headers, prog=shown_prog(PROG))
    if args.command == "check" and not args.dry_run:
        from ..operations.cluster_checks import check_exit_code

        code = check_exit_code(result)  # the document is printed either way
    document = dump(result)
    return deliver(
        lambda out: write_result(args.command, document, shown, out, sys.stderr),
        code,
        f"the result of {args.command}",
        PROG,
    )


def _nothing() -> None:
    """``finishing`` before the handlers are installed."""


@contextlib.contextmanager
def _progress(args: argparse.Namespace) -> Iterator[_Sink]:
    """On a terminal, every wait draws one progress line; yields where log lines go (above
    that line). On a pipe (Manager) nothing changes: stderr as it always was."""
    quiet = args.dry_run or args.command in ("render", "capabilities", "completion")
    if quiet or not is_terminal(sys.stderr):  # checked first: a pipe imports nothing more
        yield sys.stderr
        return
    from ..kubectl.progress import watching
    from .progress import TerminalProgress, enabled

    if not enabled(sys.stderr):
        yield sys.stderr
        return
    display = TerminalProgress(sys.stderr, prog=PROG)
    try:
        with watching(display):
            yield display
    finally:  # whatever ended the command, the error or result is never written onto the line
        display.end()


def _log_to(stream: _Sink, argv: Sequence[str]) -> None:
    """Send the adapter's log (each kubectl command) to stderr, never to stdout.

    The log is bash (see ``kubectl.transcript``): commands bare, everything else comments,
    opened by the adapter command it reproduces. On a terminal ``stream`` writes the lines
    above the progress line."""
    import logging
    import shlex

    from ..contract.redact import redact

    logger = logging.getLogger("kubectl_adapter")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    logger.info(
        "# %s: the kubectl commands it runs, as bash to paste", redact(shlex.join([PROG, *argv]))
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
