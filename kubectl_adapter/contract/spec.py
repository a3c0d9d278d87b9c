"""The container spec Manager sends, validated strictly before anything reaches the cluster.

Plain Python on purpose (no pydantic): ``render``, ``create`` and ``reconfigure`` all load a
spec, and importing pydantic alone would cost more than the CLI's whole start-up budget. Each
field's rule is defined once, in ``spec_rules.FIELDS``, with its JSON Schema beside it;
``docs/schema/spec.json`` is generated from that table.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NamedTuple

from .errors import InvalidInput
from .spec_input import SPEC_WAIT_SECONDS, read_document
from .spec_rules import FIELDS, REQUIRED, Problems


class ContainerSpec(NamedTuple):
    """One Manager container, already validated: build it with ``parse_spec``/``load_spec``.

    The constructor itself does not validate (it is for code and tests that hold values
    known to be good); anything that comes from outside goes through ``parse_spec``.
    A NamedTuple, not a dataclass: immutable all the same, and ``dataclasses`` (which pulls
    in ``inspect``) would cost ``render`` a tenth of its start-up budget.
    """

    container_id: str
    node_id: str
    hostname: str
    image: str
    cpus: Decimal
    memory_mb: int
    env: dict[str, str]
    entrypoint: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The spec in its JSON (wire) form, as Manager sends it; ``parse_spec`` reads it back."""
        return {
            "containerId": self.container_id,
            "nodeId": self.node_id,
            "hostname": self.hostname,
            "image": self.image,
            "cpus": _cpus_json(self.cpus),
            "memoryMb": self.memory_mb,
            "env": dict(self.env),
            "entrypoint": None if self.entrypoint is None else list(self.entrypoint),
        }


def _cpus_json(cpus: Decimal) -> int | float:
    """A JSON number, as Manager sends it (never a string)."""
    return int(cpus) if cpus == cpus.to_integral_value() else float(cpus)


_NAMES = frozenset(field.name for field in FIELDS)


def parse_spec(data: Any) -> ContainerSpec:
    """Validate a decoded JSON spec; every problem becomes one InvalidInput naming the field.

    Only the JSON names are accepted: ``container_id`` is an unknown field, like any typo.
    All problems are reported at once, unknown fields first, then in the fields' order.
    """
    if not isinstance(data, dict):
        raise InvalidInput("spec must be a JSON object")
    # (field path, rule): "env.KEY", "entrypoint[2]" for problems inside a field.
    found: list[tuple[str, str, str]] = [
        (key, key, "unknown field") for key in data if key not in _NAMES
    ]
    values: dict[str, Any] = {}
    for field in FIELDS:
        name = field.name
        if name not in data:
            if field.default is REQUIRED:
                found.append((name, name, "required"))
            else:
                default = field.default
                values[field.attribute] = default() if callable(default) else default
            continue
        try:
            values[field.attribute] = field.validate(data[name])
        except Problems as exc:
            found += [(name, name + below, rule) for below, rule in exc.problems]
        except ValueError as exc:
            found.append((name, name, str(exc)))
    if found:
        problems = [f"{name}: {rule}" for name, _, rule in found]
        raise InvalidInput(
            "invalid spec: " + "; ".join(problems),
            {
                "problems": problems,
                "violations": [{"field": path, "rule": rule} for _, path, rule in found],
            },
        )
    return ContainerSpec(**values)


def parse_node_spec(data: Any, node_id: str | None) -> ContainerSpec:
    """``parse_spec``, for the node ``--node-id`` names (if given): the workload would carry
    the spec's node ID, so another node would never list it and would refuse to touch it,
    while the node the spec names would not know it."""
    spec = parse_spec(data)
    if node_id is not None and spec.node_id != node_id:
        raise InvalidInput(
            f"spec nodeId {spec.node_id!r} differs from --node-id {node_id!r}: a node "
            "only creates and reconfigures its own containers",
            {"field": "nodeId", "spec": spec.node_id, "nodeId": node_id},
        )
    return spec


def load_spec(source: str, *, wait_seconds: float = SPEC_WAIT_SECONDS) -> ContainerSpec:
    """Read a spec from a file path, or from stdin when ``source`` is ``-``, and validate it.

    At most ``spec_input.MAX_SPEC_BYTES`` and ``MAX_SPEC_DEPTH`` levels; a pipe or FIFO must
    deliver it within ``wait_seconds`` (a terminal on stdin is a person typing: no limit).
    Files other than regular files and pipes (devices, directories, sockets) are refused.
    """
    return parse_spec(read_document(source, wait_seconds))
