"""``kubectl-adapter``: the command Manager spawns. JSON on stdout, logs on stderr.

Exactly one JSON document is printed on stdout, the result or ``{"error": ...}``, and the exit
code is the error's (see ``errors``). Heavy modules are imported only by the commands that
need them, so ``--help`` and ``capabilities`` stay fast.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import signal
import sys
from collections.abc import Callable, Sequence
from time import monotonic
from typing import TYPE_CHECKING, Any, NoReturn

from ..contract.errors import AdapterError, InternalError, Interrupted, InvalidInput
from ..kubectl.bounds import MAX_SECONDS, check_seconds
from ..kubectl.interrupts import Signalled, deferred, interrupting

if TYPE_CHECKING:
    from ..kubectl.config import ClusterConfig
    from ..operations.provider import KubernetesProvider

PROG = "kubectl-adapter"


class _Parser(argparse.ArgumentParser):
    """argparse that raises InvalidInput instead of printing usage and exiting 2."""

    def error(self, message: str) -> NoReturn:
        raise InvalidInput(f"{self.prog}: {message}", {"usage": self.format_usage().strip()})


def _seconds(text: str) -> float:
    """A numeric flag: finite, > 0 and at most a day, refused while parsing (before any call)."""
    try:
        return check_seconds(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds > 0 and <= {MAX_SECONDS:g}"
        ) from None


def _global_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default: Any = argparse.SUPPRESS if suppress else None

    def add(*names: str, **kwargs: Any) -> None:
        if suppress:
            kwargs["default"] = argparse.SUPPRESS
        parser.add_argument(*names, **kwargs)

    add("--kubeconfig", metavar="PATH", default=default, help="kubeconfig (else $KUBECONFIG)")
    add("--context", metavar="NAME", default=default, help="kubeconfig context")
    add("-n", "--namespace", metavar="NS", default=default, help="namespace (else context's)")
    add("--kubectl", metavar="PATH", default=default, help="kubectl binary (else on PATH)")
    add("--timeout", metavar="S", type=_seconds, default=default, help="bound on each wait (300)")
    add(
        "--request-timeout",
        metavar="S",
        type=_seconds,
        default=default,
        help="kubectl --request-timeout per API request (10)",
    )
    add(
        "--call-timeout",
        metavar="S",
        type=_seconds,
        default=default,
        help="bound on any kubectl process that is not a wait (60)",
    )
    add(
        "--deadline",
        metavar="S",
        type=_seconds,
        default=default,
        help="bound on the whole command (reads: --call-timeout; "
        "waits: --timeout + 2 x --call-timeout)",
    )
    add("--cache-dir", metavar="DIR", default=default, help="kubectl --cache-dir")
    add(
        "--node-id",
        metavar="ID",
        default=default,
        help="Manager node ID: only this node's workloads are listed or touched",
    )
    add(
        "-v",
        "--verbose",
        action="store_true",
        default=False if not suppress else default,
        help="log every kubectl command to stderr, shell-quoted",
    )
    add(
        "--dry-run",
        action="store_true",
        default=False if not suppress else default,
        help="run nothing; print the kubectl commands and manifest",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Run Manager containers on Kubernetes, one Deployment each, via kubectl.",
    )
    _global_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        _global_options(sub, suppress=True)
        return sub

    def provider_id(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("provider_id", metavar="PROVIDER_ID", help="namespace/deployment-name")

    def owner(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--container-id",
            metavar="ID",
            help="refuse unless the Deployment belongs to this Manager container",
        )

    command("render", "print the Deployment manifest for a spec (no cluster)").add_argument(
        "--spec", required=True, metavar="FILE", help="spec JSON file, or - for stdin"
    )
    command("create", "create the container and wait until it is available").add_argument(
        "--spec", required=True, metavar="FILE", help="spec JSON file, or - for stdin"
    )
    command("check", "check kubectl, the API connection, namespace and permissions")
    command("nodes", "list the cluster's nodes (discovery)")
    command("list", "status of every Manager workload of this node (one kubectl call)")
    command("capabilities", "what this provider offers Manager's shared jobs")
    for name, text in (
        ("status", "status of one container"),
        ("network", "the container's current (ephemeral) Pod IP; MAC is always null"),
    ):
        provider_id(command(name, text))
    for name, text in (
        ("start", "scale to 1 and wait until available"),
        ("stop", "scale to 0 and wait until the pods are gone"),
        ("delete", "delete the Deployment; Kubernetes removes its ReplicaSets and Pods"),
    ):
        sub = command(name, text)
        provider_id(sub)
        owner(sub)
    sub = command("reconfigure", "re-apply env, entrypoint, CPU and memory; wait for rollout")
    provider_id(sub)
    sub.add_argument("--spec", required=True, metavar="FILE", help="spec JSON file, or - for stdin")
    sub.add_argument(
        "--rollback-on-failure",
        action="store_true",
        help="on a failed rollout run `kubectl rollout undo` and wait for it",
    )
    return parser


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


def _provider(args: argparse.Namespace) -> KubernetesProvider:
    # Held while importing: the provider brings pydantic-core, a Rust extension whose module
    # initialisation imports `datetime` through a capsule and aborts the process (a panic,
    # exit 1, no document) if a signal's exception surfaces inside that import.
    with deferred():
        from ..operations.provider import KubernetesProvider

    return KubernetesProvider(_config(args))


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return {"items": [_dump(item) for item in value]}
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


def run_command(args: argparse.Namespace) -> Any:
    """Dispatch one parsed command; returns what is printed (str for render, else JSON)."""
    command = args.command
    _check_identity_flags(args)
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
    if command == "list" and not args.dry_run:
        # Manager's most frequent call: documents straight from the pure builders, without
        # importing pydantic (the provider's list() validates the same documents).
        from ..kubectl.runner import KubectlRunner
        from ..operations.listing import list_documents

        runner = KubectlRunner(_config(args))
        return {"items": list_documents(runner, runner.context_namespace(), args.node_id)}
    provider = _provider(args)
    if args.dry_run and command in ("list", "status", "network", "check", "nodes"):
        return provider.read_plan(command, getattr(args, "provider_id", None))
    if command == "create":
        return provider.create(spec)
    if command == "reconfigure":
        return provider.reconfigure(
            args.provider_id, spec, rollback_on_failure=args.rollback_on_failure
        )
    if command in ("start", "stop", "delete"):
        operation = getattr(provider, command)
        return operation(args.provider_id, container_id=args.container_id)
    if command in ("status", "network"):
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
        return _run(argv, monotonic(), process)
    finally:
        if collecting:
            gc.enable()


def _interrupted(signum: int) -> int:
    name = signal.Signals(signum).name
    error = Interrupted(
        f"interrupted by {name}: kubectl was stopped; the cluster may be part-way through "
        "the operation (read its status)",
        {"signal": name},
    )
    _print_json(error.to_json())
    return 128 + signum


def _run(argv: Sequence[str] | None, started: float, process: bool) -> int:
    finishing: Callable[[], None] = _nothing
    # The handlers are installed inside the try: a signal at any moment (even one held since
    # the process started, or one while the parser is built) ends in the Interrupted document.
    try:
        with interrupting(until_exit=process) as finishing:
            args = build_parser().parse_args(argv)
            args.started = started
            if args.verbose:
                _log_to_stderr()
            result = run_command(args)
            finishing()
    except AdapterError as exc:
        finishing()
        _print_json(exc.to_json())
        return exc.exit_code
    except Signalled as exc:
        return _interrupted(exc.signum)
    except KeyboardInterrupt:
        finishing()
        return _interrupted(signal.SIGINT)
    except Exception as exc:  # a bug: still one JSON document, never a traceback on stdout
        finishing()
        error = InternalError(f"unexpected {type(exc).__name__}: {exc}")
        _print_json(error.to_json())
        import traceback

        from ..contract.redact import redact

        sys.stderr.write(redact(traceback.format_exc()))
        return error.exit_code
    if isinstance(result, str):
        sys.stdout.write(result)
    else:
        _print_json(_dump(result))
    if args.command == "check" and not args.dry_run:
        from ..operations.cluster_checks import check_exit_code

        return check_exit_code(result)  # the document is printed either way
    return 0


def _nothing() -> None:
    """``finishing`` before the handlers are installed."""


def _log_to_stderr() -> None:
    """Send the adapter's log (each kubectl command) to stderr, never to stdout."""
    import logging

    logger = logging.getLogger("kubectl_adapter")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _print_json(document: Any) -> None:
    # Indented for a person at a terminal; one compact line for a program (Manager), where
    # json's C encoder is ~10x faster than the indenting one on a 5,000-item list.
    indent = 2 if sys.stdout.isatty() else None
    sys.stdout.write(json.dumps(document, indent=indent) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
