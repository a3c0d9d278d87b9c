"""Spec -> Deployment YAML, through the one Jinja2 template."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from ..contract.errors import InvalidInput
from ..contract.naming import (
    APPLIED_ANNOTATION,
    CONTAINER_NAME,
    DNS1123_RULE,
    identity_labels,
    is_dns1123_label,
    workload_labels,
)
from .quantities import cpu_request, cpus_to_millicores, memory_mb_to_quantity, memory_request

if TYPE_CHECKING:
    import jinja2

    from ..contract.spec import ContainerSpec

TEMPLATE_NAME = "deployment.yaml.j2"


# An escaped backslash (kept as is), or the UTF-16 surrogate pair JSON writes for one character
# outside the Basic Multilingual Plane.
_ESCAPE = re.compile(r"(\\\\)|\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


# A ``$`` Kubernetes would read in ``env[].value``, ``command`` and ``args`` (the kubelet's
# expansion, third_party/forked/golang/expansion): before ``$`` (``$$`` is one ``$``), before
# ``(`` (``$(VAR)`` is VAR's value when VAR is defined), and before a non-ASCII character
# (older kubelets copy ``$`` and the next *byte* as ``string(byte)``, a Latin-1 rune: ``$é``
# arrives mangled; ``$$é`` is ``$é`` for old and new). Any other ``$``, and one at the end,
# is passed on as is.
_READ_DOLLAR = re.compile(r"\$(?=[$(]|[^\x00-\x7f])")


def literal(value: str) -> str:
    """``value`` written so that Kubernetes' expansion gives back exactly ``value``.

    Manager's other providers pass env values and the entrypoint literally, and its users
    write shell (``$HOME``, ``$(date)``, ``costs $$5``). Only the ``$`` Kubernetes would read
    is doubled (``$$`` is its escape): a value it already left alone renders as it always did,
    so a Deployment rendered before this escaping existed re-applies unchanged (no rollout)
    unless Kubernetes was changing its value. ``tests/rules/test_render.py`` holds it to the
    kubelet's algorithm for arbitrary text and any defined variables.
    """
    return _READ_DOLLAR.sub("$$", value) if "$" in value else value


def _pair_to_yaml(match: re.Match[str]) -> str:
    if match[1]:
        return match[1]
    high, low = int(match[2], 16), int(match[3], 16)
    return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08X}"


def yaml_tojson(value: Any) -> str:
    """The template's ``tojson``: a JSON value that YAML reads back unchanged.

    ASCII-only JSON is a valid YAML flow scalar, with one exception: YAML decodes each
    ``\\uXXXX`` on its own, so the surrogate pair JSON writes for an emoji becomes two lone
    surrogates in PyYAML and is refused by go-yaml (kubectl). Those pairs are written as YAML's
    ``\\UXXXXXXXX`` instead. No HTML escaping: this is not HTML.
    """
    return _ESCAPE.sub(_pair_to_yaml, json.dumps(value, ensure_ascii=True, sort_keys=True))


@cache
def _environment() -> jinja2.Environment:
    # Imported here: jinja2 costs start-up time that most commands never need.
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("kubectl_adapter.templates", "."),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )
    environment.filters["tojson"] = yaml_tojson
    environment.filters["literal"] = literal
    return environment


def applied_record(
    env_names: list[str], command: bool, resources: dict[str, str] | None = None
) -> str:
    """The ``applied`` annotation: the env names and whether a command is set (never their
    values), and the CPU and memory quantities as sent (``limits.cpu``: ``1000m``), which
    drift compares by value with what the API server and other writers store (``1``)."""
    record: dict[str, object] = {"command": command, "env": sorted(env_names)}
    if resources:
        record["resources"] = dict(sorted(resources.items()))
    return json.dumps(record, separators=(",", ":"))


def render_manifest(
    spec: ContainerSpec, namespace: str, precondition: dict[str, str] | None = None
) -> str:
    """Render the Deployment for ``spec`` in ``namespace`` (always explicit: see docs).

    ``precondition`` (``uid`` and ``resourceVersion`` of the Deployment just read) pins the
    apply to that object: see ``races.precondition``.
    """
    if not is_dns1123_label(namespace):
        raise InvalidInput(f"namespace {namespace!r} {DNS1123_RULE}", {"namespace": namespace})
    template = _environment().get_template(TEMPLATE_NAME)
    command = list(spec.entrypoint) if spec.entrypoint else None
    resources = {
        "limits.cpu": cpus_to_millicores(spec.cpus),
        "limits.memory": memory_mb_to_quantity(spec.memory_mb),
        "requests.cpu": cpu_request(spec.cpus),
        "requests.memory": memory_request(spec.memory_mb),
    }
    return (
        template.render(
            name=spec.hostname,
            namespace=namespace,
            labels=workload_labels(spec.container_id, spec.node_id, spec.hostname),
            selector=identity_labels(spec.container_id),
            container_name=CONTAINER_NAME,
            image=spec.image,
            command=command,
            env=spec.env,
            cpu=resources["limits.cpu"],
            memory=resources["limits.memory"],
            cpu_request=resources["requests.cpu"],
            memory_request=resources["requests.memory"],
            precondition=precondition,
            applied_annotation=APPLIED_ANNOTATION,
            applied=applied_record(list(spec.env), command is not None, resources),
        ).rstrip("\n")
        + "\n"
    )
