"""The JSON contract Manager reads, as pydantic models derived from ``models``.

``models`` (plain classes) is the one definition of every output: the CLI builds and
prints those and never imports this module. Here each output class becomes a pydantic model with
the same fields, defaults, wire names and descriptions (``field(metadata=...)``), for the
JSON Schemas in ``docs/schema/`` (``schemas``) and for validating documents in tests.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.alias_generators import to_camel

from . import description_models, models, watch_models


class Output(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, nothing unexpected accepted."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        # Schema titles as the wire names ("podIpEphemeral", not "Podipephemeral").
        field_title_generator=lambda name, info: to_camel(name),
    )

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


_DERIVED: dict[type[models.Output], type[Output]] = {}


def _own_doc(cls: type) -> str | None:
    """The class's docstring (None where it has none: a dataclass used to invent one)."""
    doc = cls.__dict__.get("__doc__")
    return None if doc is None or doc.startswith(f"{cls.__name__}(") else doc


def _swap(hint: Any) -> Any:
    """The type with every output class in it replaced by its pydantic model."""
    if isinstance(hint, type) and issubclass(hint, models.Output):
        return derive(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list:
        return list[_swap(args[0])]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        return Union[tuple(_swap(arg) for arg in args)]  # noqa: UP007
    return hint


def derive(cls: type[models.Output]) -> type[Output]:
    """The pydantic model of one output class (once per class)."""
    if cls in _DERIVED:
        return _DERIVED[cls]
    hints = typing.get_type_hints(cls)
    definitions: dict[str, Any] = {}
    for item in models.fields(cls):
        options: dict[str, Any] = dict(item.metadata)
        if item.default is not models.MISSING:
            options["default"] = item.default
        elif item.default_factory is not models.MISSING:
            options["default_factory"] = item.default_factory
        definitions[item.name] = (_swap(hints[item.name]), Field(**options))
    model: type[Output] = create_model(
        cls.__name__, __base__=Output, __doc__=_own_doc(cls), __module__=__name__, **definitions
    )
    _DERIVED[cls] = model
    return model


DriftChange = derive(models.DriftChange)
Drift = derive(models.Drift)
Snapshot = derive(models.Snapshot)
SnapshotList = derive(models.SnapshotList)
Description = derive(description_models.Description)
NetworkInfo = derive(models.NetworkInfo)
DeleteResult = derive(models.DeleteResult)
Capabilities = derive(models.Capabilities)
Permission = derive(models.Permission)
CheckResult = derive(models.CheckResult)
NodeInfo = derive(models.NodeInfo)
NodeList = derive(models.NodeList)
DryRunPlan = derive(models.DryRunPlan)
ErrorBody = derive(models.ErrorBody)
ErrorOutput = derive(models.ErrorOutput)
WatchEvent = derive(watch_models.WatchEvent)
