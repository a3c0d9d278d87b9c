"""How a person names a workload on the command line, read as kubectl reads a Deployment's name.

Accepted for one Deployment (each one checked against kubectl 1.32 by
``tests/e2e/test_names.py``)::

    NAME                      with -n NS, else the context's namespace
    TYPE/NAME                 the same namespace; TYPE is a Deployment type (below)
    TYPE NAME [NAME...]       kubectl's separate-type form
    NS/NAME                   the provider ID Manager stores

A Deployment TYPE is what kubectl resolves to ``deployments.apps``: ``deployment`` or
``deployments`` in any letter case, ``deploy`` (the short name, lowercase only), each alone or
followed by ``.apps`` or ``.v1.apps``.

Two rules settle what could be read two ways:

- ``X/NAME`` where X is a Deployment type is the type, as kubectl reads it, even when a
  namespace is called X (only ``deploy``, ``deployment`` and ``deployments`` can be both: a
  namespace name has no dot or capital). Such a namespace is named with ``-n X NAME``, or with
  ``--provider-ids``, which reads every name as ``namespace/name`` and nothing else (what
  Manager passes: its IDs can never be misread, and each carries its namespace, which -n,
  given by Manager for ``list`` and ``create``, does not override).
- ``-n NS`` with a provider ID in another namespace is refused, as kubectl refuses an object
  whose namespace contradicts ``--namespace``; ``-n NS NS/NAME`` agrees and is taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .errors import InvalidProviderId
from .naming import DNS1123_RULE, ProviderId, is_dns1123_label, parse_provider_id

__all__ = ["Named", "is_deployment_type", "named", "resolved", "suggestion"]

_PLURALS = ("deployment", "deployments")
_SHORT = "deploy"
_GROUPS = ("", ".apps", ".v1.apps")


class Named(NamedTuple):
    """One name as given: its namespace when the words say it (else None: -n's or the
    context's), the Deployment's name, and the words it was read from (for messages)."""

    namespace: str | None
    name: str
    given: str


def is_deployment_type(word: str) -> bool:
    """``word`` is a resource type kubectl resolves to ``deployments.apps``."""
    for group in _GROUPS:
        if group and not word.endswith(group):
            continue
        resource = word[: len(word) - len(group)] if group else word
        if resource == _SHORT or resource.lower() in _PLURALS:
            return True
    return False


def _checked_name(name: str, given: str) -> str:
    if not is_dns1123_label(name):
        raise InvalidProviderId(
            f"{given!r}: the Deployment name {name!r} {DNS1123_RULE}",
            {"providerId": given, "field": "name"},
        )
    return name


def _one(word: str, namespace_flag: str | None, *, as_ids: bool) -> Named:
    if as_ids:  # Manager's stored identity: its own namespace, whatever -n says (list's)
        pid = parse_provider_id(word)
        return Named(pid.namespace, pid.name, word)
    parts = word.split("/")
    if len(parts) == 1:
        return Named(None, _checked_name(word, word), word)
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise InvalidProviderId(
            f"{word!r} is not a workload name: use NAME (with -n), deployment/NAME or "
            "namespace/NAME",
            {"providerId": word},
        )
    first, name = parts
    if is_deployment_type(first):
        return Named(None, _checked_name(name, word), word)
    pid = parse_provider_id(word)
    return _agreeing(Named(pid.namespace, pid.name, word), namespace_flag)


def _agreeing(found: Named, namespace_flag: str | None) -> Named:
    """kubectl's rule: a namespace in the name and a different ``-n`` contradict each other."""
    if namespace_flag is not None and found.namespace != namespace_flag:
        raise InvalidProviderId(
            f"the namespace of {found.given!r} ({found.namespace}) does not match the namespace "
            f"-n gives ({namespace_flag}): drop -n, or pass -n {found.namespace}",
            {"providerId": found.given, "namespace": namespace_flag, "field": "namespace"},
        )
    return found


def named(
    words: Sequence[str], namespace_flag: str | None = None, *, as_ids: bool = False
) -> list[Named]:
    """The workloads ``words`` name, in order, refused as a whole (InvalidProviderId, before
    any kubectl call) when one of them names nothing kubectl could read."""
    words = list(words)
    if not words:
        raise InvalidProviderId("no workload named: give NAME, deployment/NAME or NS/NAME", {})
    if not as_ids and len(words) > 1 and is_deployment_type(words[0]):
        rest = words[1:]
        if any("/" in word for word in rest):
            raise InvalidProviderId(
                f"{words[0]} {' '.join(rest)}: there is no need to give the type as a separate "
                "word with TYPE/NAME (as kubectl says): use deployment/NAME alone",
                {"providerId": " ".join(words)},
            )
        return [Named(None, _checked_name(word, word), word) for word in rest]
    return [_one(word, namespace_flag, as_ids=as_ids) for word in words]


def resolved(found: Named, namespace: str) -> ProviderId:
    """The provider ID: the name's own namespace, else ``namespace`` (-n's or the context's)."""
    return ProviderId(found.namespace or namespace, found.name)


def suggestion(word: str, namespace: str) -> str:
    """The provider ID a bare ``word`` would be in ``namespace`` (``manager/web-1``)."""
    return f"{namespace}/{word}"
