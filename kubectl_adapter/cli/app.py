"""``kubectl-adapter``: the command Manager spawns. JSON on stdout, logs on stderr.

Exactly one document is printed on stdout, the result or ``{"error": ...}``, in JSON unless
``-o yaml|table`` asks otherwise (``output``), and the exit code is the error's (see
``errors``). Heavy modules are imported only by the commands that need them, so ``--help``
and ``capabilities`` stay fast. On a terminal, waits draw one line of progress (``progress``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol

from ..contract.errors import AdapterError, InternalError, Interrupted, InvalidInput
from ..kubectl.interrupts import Signalled, deferred, interrupting
from .output import (
    FORMATS,
    Shown,
    deliver,
    lost,
    refusal,
    say,
    settle,
    stderr_or_null,
    write_error,
    write_result,
)
from .parser import PROG, build_parser
from .terminal_text import shown_stderr

if TYPE_CHECKING:
    from ..contract.spec import ContainerSpec
    from ..kubectl.config import ClusterConfig
    from ..kubectl.runner import KubectlRunner
    from ..operations.provider import KubernetesProvider

__all__ = ["PROG", "build_parser", "main", "run_command"]


class _Sink(Protocol):
    """Where log lines go: stderr, or the progress display that writes above its line."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def _deadline(args: argparse.Namespace) -> float:
    """``--deadline``, else the default for this kind of command."""
    from ..kubectl.bounds import DEFAULT_CALL_TIMEOUT, DEFAULT_WAIT_TIMEOUT, default_deadline

    return float(
        args.deadline
        or default_deadline(
            args.command,
            timeout=args.timeout or DEFAULT_WAIT_TIMEOUT,
            call_timeout=args.call_timeout or DEFAULT_CALL_TIMEOUT,
            rollback=bool(getattr(args, "rollback_on_failure", False)),
        )
    )


def _check_identity_flags(args: argparse.Namespace) -> None:
    """``--node-id`` and ``-n`` are checked like any other input, before any kubectl call."""
    from ..contract.naming import DNS1123_RULE, LABEL_VALUE_RULE, is_dns1123_label, is_label_value

    if args.node_id is not None and not is_label_value(args.node_id):
        raise InvalidInput(f"--node-id {LABEL_VALUE_RULE}")
    if args.namespace is not None and not is_dns1123_label(args.namespace):
        raise InvalidInput(
            f"-n/--namespace {args.namespace!r} {DNS1123_RULE}",
            {"field": "namespace", "namespace": args.namespace},
        )


def _config(args: argparse.Namespace) -> ClusterConfig:
    from ..kubectl.bounds import DEFAULT_CALL_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WAIT_TIMEOUT
    from ..kubectl.config import ClusterConfig

    _check_identity_flags(args)
    return ClusterConfig(
        kubeconfig=args.kubeconfig,
        context=args.context,
        namespace=args.namespace,
        kubectl=args.kubectl,
        timeout=args.timeout or DEFAULT_WAIT_TIMEOUT,
        request_timeout=args.request_timeout or DEFAULT_REQUEST_TIMEOUT,
        call_timeout=args.call_timeout or DEFAULT_CALL_TIMEOUT,
        cache_dir=args.cache_dir,
        node_id=args.node_id,
        verbose=args.verbose,
        dry_run=args.dry_run,
        deadline=_deadline(args),
        started=getattr(args, "started", None),
    )


def _provider(args: argparse.Namespace, runner: KubectlRunner) -> KubernetesProvider:
    # Held while importing: a signal's exception surfacing inside an extension module's
    # initialisation can abort the process (a panic, exit 1, no document); seen with
    # pydantic-core when the provider still imported it, kept for whatever it imports next.
    with deferred():
        from ..operations.provider import KubernetesProvider

    return KubernetesProvider(runner.config, runner)


def _first_read(
    args: argparse.Namespace, spec: ContainerSpec | None
) -> tuple[list[str], str] | None:
    """The read each command starts with, when its arguments alone name it (a namespace is
    needed: without ``-n`` the context's is looked up first). The operations run these same
    commands (``kubectl.commands``); ``tests/cli/test_first_read.py`` holds them together."""
    from ..contract.errors import AdapterError as Refused
    from ..contract.naming import parse_provider_id
    from ..kubectl import commands

    command = args.command
    if args.dry_run:
        return None
    if command == "list":
        return (commands.list_workloads(args.node_id), args.namespace) if args.namespace else None
    if command == "create":
        assert spec is not None
        return (commands.get_deployment(spec.hostname), args.namespace) if args.namespace else None
    if command in ("status", "describe", "network", "reconfigure", "delete"):
        try:
            pid = parse_provider_id(args.provider_id)
        except Refused:
            return None  # the operation says why, in its place
        if command in ("status", "describe", "network"):
            return commands.named_workload(pid.name), pid.namespace
        return commands.get_deployment(pid.name), pid.namespace
    return None


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return {"items": [_dump(item) for item in value]}
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


def run_command(args: argparse.Namespace) -> Any:
    """Dispatch one parsed command; returns what is printed (str for render, else JSON)."""
    command = args.command
    _check_identity_flags(args)
    if command == "completion":
        from .completion import script

        return script(build_parser(), args.shell)
    if command == "capabilities":
        from ..contract.capabilities import CAPABILITIES

        return dict(CAPABILITIES)
    if command in ("render", "create", "reconfigure"):
        from ..contract.spec import load_spec
        from ..contract.spec_input import SPEC_WAIT_SECONDS

        # Reading the spec counts towards the deadline too (a pipe may be slow to deliver).
        started = getattr(args, "started", None)
        left = _deadline(args) - (monotonic() - started) if started is not None else math.inf
        spec = load_spec(args.spec, wait_seconds=max(0.01, min(SPEC_WAIT_SECONDS, left)))
        if args.node_id is not None and spec.node_id != args.node_id:
            # The workload would carry the spec's node ID: this node would never list it and
            # would refuse to touch it, while the node the spec names does not know it.
            raise InvalidInput(
                f"spec nodeId {spec.node_id!r} differs from --node-id {args.node_id!r}: a node "
                "only creates and reconfigures its own containers",
                {"field": "nodeId", "spec": spec.node_id, "nodeId": args.node_id},
            )
    if command == "render":
        # No provider (and so no pydantic): render is the start-up-critical command.
        from ..rules.render import render_manifest

        if args.namespace:
            return render_manifest(spec, args.namespace)
        from ..kubectl.runner import (
            KubectlRunner,  # only to ask kubectl for the context's namespace
        )

        return render_manifest(spec, KubectlRunner(_config(args)).context_namespace())
    from ..kubectl.runner import KubectlRunner

    runner = KubectlRunner(_config(args))
    spec_given = spec if command in ("create", "reconfigure") else None
    try:
        # The command's first read starts now: its kubectl runs while the operation's
        # modules are imported. Killed on every way out if nothing took it.
        opening = _first_read(args, spec_given)
        if opening is not None:
            runner.open_read(opening[0], namespace=opening[1])
        return _on_node(args, runner, spec_given)
    finally:
        runner.close()


def _on_node(args: argparse.Namespace, runner: KubectlRunner, spec: ContainerSpec | None) -> Any:
    """The commands that talk to the cluster, on the node's runner."""
    command = args.command
    if command == "list" and not args.dry_run:
        # Manager's most frequent call: documents straight from the pure builders, without
        # importing pydantic (the provider's list() validates the same documents).
        from ..operations.listing import list_documents

        return {"items": list_documents(runner, runner.context_namespace(), args.node_id)}
    provider = _provider(args, runner)
    if args.dry_run and command in ("list", "status", "describe", "network", "check", "nodes"):
        return provider.read_plan(command, getattr(args, "provider_id", None))
    if command == "create":
        assert spec is not None
        return provider.create(spec)
    if command == "reconfigure":
        assert spec is not None
        return provider.reconfigure(
            args.provider_id, spec, rollback_on_failure=args.rollback_on_failure
        )
    if command in ("start", "stop", "delete"):
        operation = getattr(provider, command)
        return operation(args.provider_id, container_id=args.container_id)
    if command in ("status", "describe", "network"):
        return getattr(provider, command)(args.provider_id)
    if command == "list":
        return provider.list()
    if command == "check":
        return provider.check()
    if command == "nodes":
        return provider.nodes()
    raise InvalidInput(f"unknown command {command!r}")  # pragma: no cover - argparse stops it


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


def _interrupted(signum: int, fmt: str) -> int:
    name = signal.Signals(signum).name
    error = Interrupted(
        f"interrupted by {name}: kubectl was stopped; the cluster may be part-way through "
        "the operation (read its status)",
        {"signal": name},
    )
    return _report(error, fmt, 128 + signum)


def _report(error: AdapterError, fmt: str, code: int) -> int:
    """The error document on stdout (stderr for ``-o table``); ``code`` unless it is lost."""
    document = error.to_json()
    return deliver(
        lambda out: write_error(document, fmt, out, sys.stderr),
        code,
        f"the {error.type} error document",
        PROG,
    )


def _run(argv: list[str], started: float, process: bool) -> int:
    fmt = requested_format(argv)
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
            fmt = args.output or _default_format(args.command)
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
        if exc.type == "InvalidInput" and "usage" in exc.details and _is_terminal(sys.stdout):
            # A person mistyped: one message, as kubectl words it. A program reading stdout
            # (Manager) gets the error document, as for any other error.
            from .mistyped import usage_text

            say(usage_text(exc.message, exc.details, PROG).rstrip("\n"))
            return exc.exit_code
        return _report(exc, fmt, exc.exit_code)
    except Signalled as exc:
        return _interrupted(exc.signum, fmt)
    except KeyboardInterrupt:
        finishing()
        return _interrupted(signal.SIGINT, fmt)
    except Exception as exc:  # a bug: still one document, never a traceback on stdout
        finishing()
        error = InternalError(f"unexpected {type(exc).__name__}: {exc}")
        code = _report(error, fmt, error.exit_code)
        import traceback

        from ..contract.redact import redact

        say(redact(traceback.format_exc()).rstrip("\n"))
        return code
    code = 0
    shown = Shown(fmt, headers=not args.no_headers)
    if args.command == "check" and not args.dry_run:
        from ..operations.cluster_checks import check_exit_code

        code = check_exit_code(result)  # the document is printed either way
    document = _dump(result)
    return deliver(
        lambda out: write_result(args.command, document, shown, out, sys.stderr),
        code,
        f"the result of {args.command}",
        PROG,
    )


def _default_format(command: str) -> str:
    """JSON (Manager's contract), except ``describe`` for a person at a terminal: its text,
    as ``kubectl describe`` prints. A stdout that is closed or absent is no terminal."""
    return "table" if command == "describe" and _is_terminal(sys.stdout) else "json"


def _nothing() -> None:
    """``finishing`` before the handlers are installed."""


@contextlib.contextmanager
def _progress(args: argparse.Namespace) -> Iterator[_Sink]:
    """On a terminal, every wait draws one progress line; yields where log lines go (above
    that line). On a pipe (Manager) nothing changes: stderr as it always was."""
    quiet = args.dry_run or args.command in ("render", "capabilities", "completion")
    if quiet or not _is_terminal(sys.stderr):  # checked first: a pipe imports nothing more
        yield sys.stderr
        return
    from ..kubectl.progress import watching
    from .progress import TerminalProgress, enabled

    if not enabled(sys.stderr):
        yield sys.stderr
        return
    display = TerminalProgress(sys.stderr, prog=PROG)
    with watching(display):
        yield display


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # None (fd closed at start), or closed
        return False


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
