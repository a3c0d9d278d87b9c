"""The workloads a command's NAME arguments name, and what a person is told when one names
nothing.

The names are read by ``contract.workload_names`` (pure); here they meet the cluster: a name
without a namespace takes ``-n``'s or the context's (one local kubectl call, only then), and
on a terminal a workload that does not exist is an error, as ``kubectl get`` makes it, naming
the namespace when that is what is missing. On a pipe nothing changes: Manager's contract
answers ``missing`` and ``alreadyMissing: true``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..contract.errors import InvalidProviderId, NotFound
from ..contract.naming import ProviderId

if TYPE_CHECKING:
    from ..contract.workload_names import Named
    from ..kubectl.runner import KubectlRunner

__all__ = [
    "missing_error",
    "names_nothing",
    "names_of",
    "provider_ids",
    "refused_without_namespace",
    "words",
]


def words(args: argparse.Namespace) -> list[str]:
    value = args.provider_id
    return list(value) if isinstance(value, list) else [value]


def names_of(args: argparse.Namespace) -> list[Named]:
    """The names as given, refused before any kubectl call when one reads as nothing."""
    from ..contract.workload_names import named

    given = words(args)
    if getattr(args, "watch", False) and len(given) > 1:
        raise InvalidProviderId(
            f"status -w watches one workload: {len(given)} were named", {"providerId": given}
        )
    return named(given, args.namespace, as_ids=bool(getattr(args, "provider_ids", False)))


def refused_without_namespace(
    exc: InvalidProviderId, args: argparse.Namespace, runner: Any
) -> InvalidProviderId:
    """``--provider-ids web-1``: the message offers the ID it would be (``manager/web-1``)."""
    from ..contract.naming import is_dns1123_label

    word = exc.details.get("providerId")
    if not isinstance(word, str) or "/" in word or not is_dns1123_label(word):
        return exc
    namespace = runner.context_namespace()
    return InvalidProviderId(
        f"provider ID {word!r} has no namespace: did you mean {namespace}/{word}? "
        f"(or drop --provider-ids and give -n {namespace} {word})",
        {**exc.details, "suggestion": f"{namespace}/{word}"},
    )


def provider_ids(found: list[Named], runner: KubectlRunner) -> list[ProviderId]:
    """Each name's provider ID; the context's namespace is asked for once, if any needs it."""
    from ..contract.workload_names import resolved

    namespace = ""
    if any(named.namespace is None for named in found):
        namespace = runner.context_namespace()
    return [resolved(named, namespace) for named in found]


def missing_error(runner: KubectlRunner, pid: ProviderId, command: str) -> NotFound:
    """The NotFound a person gets for a workload that does not exist: the namespace's when it is
    the namespace that is missing (one ``kubectl get namespace``; if that read fails, the
    Deployment's words)."""
    from ..contract.errors import AdapterError
    from ..kubectl import commands

    details: dict[str, Any] = {"providerId": str(pid), "namespace": pid.namespace}
    try:
        found = runner.run(commands.get_namespace(pid.namespace)).stdout.strip()
    except AdapterError:
        found = "unknown"
    if not found:
        return NotFound(
            f'namespaces "{pid.namespace}" not found: there is no namespace {pid.namespace}, '
            f"so no deployment {pid}",
            {**details, "missing": "namespace"},
        )
    nothing = {
        "delete": ": nothing was deleted",
        "stop": ": nothing was stopped",
        "start": ": nothing was started",
    }.get(command, "")
    return NotFound(
        f'deployments.apps "{pid.name}" not found in namespace {pid.namespace}{nothing}',
        {**details, "missing": "deployment"},
    )


def names_nothing(command: str, document: Any) -> bool:
    """The answer says the workload does not exist (Manager's ``missing``, ``alreadyMissing``)."""
    if not isinstance(document, dict) or "dryRun" in document:
        return False
    if command == "delete":
        return document.get("alreadyMissing") is True
    if command == "describe":
        document = document.get("snapshot") or {}
    return command in ("status", "describe", "network") and document.get("status") == "missing"
