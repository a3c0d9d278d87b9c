"""One parsed command run against its node: the cluster configuration from the flags, the
read started ahead (before a spec is validated: a refused spec kills it, having only read),
then the operation; returns the document ``app`` prints.

Heavy modules are imported only by the commands that need them, so ``--help`` and
``capabilities`` stay fast.
"""

from __future__ import annotations

import argparse
import math
from time import monotonic
from typing import TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import AdapterError, InvalidInput, InvalidProviderId, NotFound
from ..kubectl.interrupts import deferred
from .parser import build_parser

if TYPE_CHECKING:
    from ..contract.naming import SpecNames
    from ..contract.spec import ContainerSpec
    from ..kubectl.config import ClusterConfig
    from ..kubectl.runner import KubectlRunner
    from ..operations.provider import KubernetesProvider
    from .sorting import Key

    Names = SpecNames | ContainerSpec  # what the reads opened ahead need of a spec

__all__ = [
    "check_identity_flags",
    "config_of",
    "dump",
    "first_read",
    "first_watches",
    "provider_of",
    "run_command",
]


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


def check_identity_flags(args: argparse.Namespace) -> None:
    """``--node-id`` and ``-n`` are checked like any other input, before any kubectl call."""
    from ..contract.naming import DNS1123_RULE, LABEL_VALUE_RULE, is_dns1123_label, is_label_value

    if args.node_id is not None and not is_label_value(args.node_id):
        raise InvalidInput(f"--node-id {LABEL_VALUE_RULE}")
    if args.namespace is not None and not is_dns1123_label(args.namespace):
        raise InvalidInput(
            f"-n/--namespace {args.namespace!r} {DNS1123_RULE}",
            {"field": "namespace", "namespace": args.namespace},
        )


def config_of(args: argparse.Namespace) -> ClusterConfig:
    from ..kubectl.bounds import DEFAULT_CALL_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WAIT_TIMEOUT
    from ..kubectl.config import ClusterConfig

    check_identity_flags(args)
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
        # A watch runs until it is stopped: only --deadline bounds it.
        deadline=None if _watching(args) and not args.deadline else _deadline(args),
        started=getattr(args, "started", None),
    )


def _watching(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "watch", False))


# The commands that take NAME arguments (``targets``).
NAMED_COMMANDS = frozenset(
    {"status", "describe", "network", "start", "stop", "delete", "reconfigure"}
)


class Streamed(NamedTuple):
    """A command that wrote its own output as it ran (``--watch``): its exit code."""

    code: int


def check_query(args: argparse.Namespace) -> Key | None:
    """``-l``, ``-A``, ``--sort-by`` and ``-w``, refused before anything runs when they mean
    nothing; the sort key, if any."""
    queried = [
        flag
        for flag, given in (
            ("-l", getattr(args, "selector", None) is not None),
            ("-A", getattr(args, "all_namespaces", False)),
            ("-w", _watching(args)),
        )
        if given
    ]
    if args.dry_run and queried:
        raise InvalidInput(
            f"--dry-run plans the plain {args.command}: {', '.join(queried)} does not apply",
            {"field": "dry-run"},
        )
    if getattr(args, "exit_with_parent", False) and not _watching(args):
        raise InvalidInput(
            "--exit-with-parent ends a feed: it applies only with -w", {"field": "exit-with-parent"}
        )
    if getattr(args, "selector", None) is not None:
        from ..contract.selectors import check_selector

        check_selector(args.selector)
    if getattr(args, "sort_by", None) is None:
        return None
    from .sorting import check_sort_by

    return check_sort_by(args.command, args.sort_by)


def provider_of(args: argparse.Namespace, runner: KubectlRunner) -> KubernetesProvider:
    # Held while importing: a signal's exception surfacing inside an extension module's
    # initialisation can abort the process (a panic, exit 1, no document); seen with
    # pydantic-core when the provider still imported it, kept for whatever it imports next.
    with deferred():
        from ..operations.provider import KubernetesProvider

    return KubernetesProvider(runner.config, runner)


def first_read(args: argparse.Namespace) -> tuple[list[str], str] | None:
    """The read each command starts with, when its arguments alone name it (a namespace is
    needed: without ``-n`` the context's is looked up first). The operations run these same
    commands (``kubectl.commands``); ``tests/cli/test_first_read.py`` holds them together."""
    from ..kubectl import commands

    command = args.command
    if args.dry_run:
        return None
    if _watching(args):
        return None  # its watches are its reads
    if command == "list":
        read = commands.list_workloads(
            args.node_id, args.selector, all_namespaces=args.all_namespaces
        )
        return (read, args.namespace) if args.namespace or args.all_namespaces else None
    if command in ("status", "describe", "network", "reconfigure", "delete"):
        named = _first_named(args)
        if named is None:
            return None
        name, namespace = named
        if command in ("status", "describe", "network"):
            return commands.named_workload(name), namespace
        return commands.get_deployment(name), namespace
    return None


def first_watches(
    args: argparse.Namespace, spec: Names | None
) -> tuple[list[list[str]], str] | None:
    """The wait's watches a command starts before its write, when the arguments alone name
    them (as ``first_read``): start's, stop's and create's first kubectl (create's Deployment
    watch by its name alone: its list is the ownership check's read). The operations run
    these same watches (``lifecycle._scale_steps``, ``create._steps``)."""
    from ..kubectl import commands

    if args.dry_run or _watching(args):
        return None
    if args.command == "create":
        if spec is None or not args.namespace:
            return None  # the context's namespace is looked up first; or no valid names
        from ..contract.naming import identity_labels, selector_string

        selector = selector_string(identity_labels(spec.container_id))
        return commands.wait_watches(spec.hostname, selector, any_labels=True), args.namespace
    named = _first_named(args) if args.command in ("start", "stop") else None
    if named is None:
        return None
    name, namespace = named
    selector = commands.watch_selector(name, getattr(args, "container_id", None))
    return commands.wait_watches(name, selector), namespace


def _first_named(args: argparse.Namespace) -> tuple[str, str] | None:
    """The first workload named and its namespace; None: none yet, or the context's first."""
    found = getattr(args, "named", None) or _named_or_none(args)
    if not found:
        return None
    namespace = found[0].namespace or args.namespace
    return None if namespace is None else (found[0].name, namespace)


def _named_or_none(args: argparse.Namespace) -> Any:
    from .targets import names_of

    try:
        return names_of(args)
    except AdapterError:
        return None  # the command says why, in its place


def dump(value: Any) -> Any:
    """The printed document: a list of outputs as ``{"items": [...]}``, an output as JSON."""
    if isinstance(value, list):
        return {"items": [dump(item) for item in value]}
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


def run_command(args: argparse.Namespace) -> Any:
    """Dispatch one parsed command; returns what is printed (str for render, else JSON)."""
    command = args.command
    check_identity_flags(args)
    args.sort_key = check_query(args)
    if command == "completion":
        from .completion import script

        return script(build_parser(), args.shell)
    if command == "options":
        from .parser import global_options_text

        return global_options_text()
    if command in NAMED_COMMANDS:
        from .targets import names_of

        try:
            args.named = names_of(args)  # refused before any kubectl call
        except InvalidProviderId as exc:
            from ..kubectl.runner import KubectlRunner
            from .targets import refused_without_namespace

            raise refused_without_namespace(exc, args, KubectlRunner(config_of(args))) from exc
    if command == "capabilities":
        from ..contract.capabilities import CAPABILITIES

        return dict(CAPABILITIES)
    document = None
    if command in ("render", "create", "reconfigure"):
        from ..contract.spec_input import SPEC_WAIT_SECONDS, read_document

        # Reading the spec counts towards the deadline too (a pipe may be slow to deliver).
        started = getattr(args, "started", None)
        left = _deadline(args) - (monotonic() - started) if started is not None else math.inf
        document = read_document(args.spec, max(0.01, min(SPEC_WAIT_SECONDS, left)))
    if command == "render":
        # No provider (and so no pydantic): render is the start-up-critical command.
        from ..contract.spec import parse_node_spec
        from ..rules.render import render_manifest

        spec = parse_node_spec(document, args.node_id)
        if args.namespace:
            return render_manifest(spec, args.namespace)
        from ..kubectl.runner import (
            KubectlRunner,  # only to ask kubectl for the context's namespace
        )

        return render_manifest(spec, KubectlRunner(config_of(args)).context_namespace())
    from ..kubectl.runner import KubectlRunner

    runner = KubectlRunner(config_of(args))
    try:
        # The command's first read starts now: its kubectl runs while the spec's rules and
        # the operation's modules are imported. Killed on every way out if nothing took it.
        from ..contract.naming import spec_names

        names = spec_names(document)
        opening = first_read(args)
        if opening is not None:
            runner.open_read(opening[0], namespace=opening[1])
        watches = first_watches(args, names)
        if watches is not None:
            runner.open_watches(watches[0], namespace=watches[1])
        spec_given = None
        if document is not None:  # validated whole before anything can write
            from ..contract.spec import parse_node_spec

            spec_given = parse_node_spec(document, args.node_id)
        if command in NAMED_COMMANDS:
            result = _on_named(args, runner, spec_given)
        else:
            result = _on_node(args, runner, spec_given)
    finally:
        runner.close()
    if args.sort_key is None or isinstance(result, Streamed):
        return result
    from .sorting import sort_items

    return sort_items(dump(result), args.sort_key)


def _on_named(args: argparse.Namespace, runner: KubectlRunner, spec: ContainerSpec | None) -> Any:
    """A command given NAMEs: each one run as if it were alone. One name answers exactly as
    it always did; several answer ``Several`` (``several``: the document and exit code)."""
    from .targets import provider_ids, words

    pids = provider_ids(args.named, runner)
    if len(pids) == 1 and len(words(args)) == 1:
        args.provider_id = str(pids[0])
        args.target = args.provider_id
        return _for_person(args, runner, spec)
    from .several import Several

    answers: list[Any] = []
    for pid in pids:
        args.provider_id = str(pid)
        args.target = args.provider_id
        try:
            answers.append(dump(_for_person(args, runner, spec)))
        except AdapterError as exc:
            answers.append(exc)
    return Several(tuple(str(pid) for pid in pids), tuple(answers))


def _for_person(args: argparse.Namespace, runner: KubectlRunner, spec: ContainerSpec | None) -> Any:
    """The command on one workload; on a terminal a name that names nothing is NotFound (on a
    pipe Manager's ``missing`` and ``alreadyMissing`` stay as they are)."""
    from ..contract.naming import parse_provider_id
    from .formats import HUMAN
    from .targets import missing_error, names_nothing

    person = getattr(args, "shown_format", "json") in HUMAN and not args.dry_run
    try:
        result = _on_node(args, runner, spec)
    except NotFound as exc:
        if not person or args.command == "reconfigure":
            raise
        raise missing_error(runner, parse_provider_id(args.provider_id), args.command) from exc
    if person and not isinstance(result, Streamed) and names_nothing(args.command, dump(result)):
        raise missing_error(runner, parse_provider_id(args.provider_id), args.command)
    return result


def _on_node(args: argparse.Namespace, runner: KubectlRunner, spec: ContainerSpec | None) -> Any:
    """The commands that talk to the cluster, on the node's runner."""
    command = args.command
    if _watching(args):
        from .feed_command import run_feed

        return Streamed(run_feed(args, runner))
    if command == "list" and not args.dry_run:
        # Manager's most frequent call: documents straight from the pure builders, without
        # importing pydantic (the provider's list() validates the same documents).
        from ..operations.listing import list_documents

        namespace = "" if args.all_namespaces else runner.context_namespace()
        documents = list_documents(
            runner, namespace, args.node_id, args.selector, all_namespaces=args.all_namespaces
        )
        return {"items": documents}
    provider = provider_of(args, runner)
    if args.dry_run and command in ("list", "status", "describe", "network", "check", "nodes"):
        return provider.read_plan(command, getattr(args, "provider_id", None))
    if command == "create":
        assert spec is not None
        # What a failure's next steps name; the provider asks for the context's namespace
        # once, and create reads the same answer.
        args.target = f"{provider.namespace()}/{spec.hostname}"
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
