"""The plain-class machinery every output is built on (``models`` holds the outputs).

``Output`` reads each class's annotations once and gives it the dataclass behaviour the
outputs use (keyword ``__init__`` with defaults, ``__post_init__``, ``==``, ``repr``),
``field``/``fields``/``MISSING`` as in ``dataclasses``, without importing ``dataclasses``
or ``inspect`` (start-up cost: see ``models``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, TypeVar, dataclass_transform

T = TypeVar("T", bound="Output")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field(NamedTuple):
    """One field of an output class (``dataclasses.Field``'s attributes the callers read)."""

    name: str
    default: Any
    default_factory: Any
    metadata: Mapping[str, Any]


class _Spec(NamedTuple):
    default: Any
    default_factory: Any
    metadata: Mapping[str, Any]


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    metadata: Mapping[str, Any] | None = None,
) -> Any:
    """A field with a default, a default factory and/or metadata (``dataclasses.field``)."""
    return _Spec(default, default_factory, MappingProxyType(dict(metadata or {})))


def fields(output: type[Output] | Output) -> tuple[Field, ...]:
    """The fields of an output class or object, in declaration order (bases first)."""
    return output._FIELDS


def to_camel(name: str) -> str:
    """``pod_ip_ephemeral`` -> ``podIpEphemeral`` (pydantic's ``to_camel``)."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def about(description: str) -> dict[str, str]:
    """A field's description in the JSON Schemas (``output_models`` reads it)."""
    return {"description": description}


def _dump(value: Any) -> Any:
    if isinstance(value, Output):
        return value.to_json()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return [_dump(item) for item in value]
    if isinstance(value, dict):
        return {key: _dump(item) for key, item in value.items()}
    return value


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Output:
    """Base: camelCase on the wire, snake_case in Python, nothing unexpected accepted."""

    # Fields holding other outputs: name -> (class, is a list).
    NESTED: ClassVar[dict[str, tuple[type[Output], bool]]] = {}
    _FIELDS: ClassVar[tuple[Field, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own: dict[str, Field] = {}
        # The class's own annotations (strings: postponed evaluation); not through
        # inspect.get_annotations, whose import is what this module avoids.
        annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, hint in annotations.items():
            if str(hint).startswith(("ClassVar", "typing.ClassVar")):
                continue
            spec = cls.__dict__.get(name, MISSING)
            if not isinstance(spec, _Spec):
                spec = _Spec(spec, MISSING, MappingProxyType({}))
            if spec.default is not MISSING:
                setattr(cls, name, spec.default)
            elif name in cls.__dict__:
                delattr(cls, name)
            own[name] = Field(name, spec.default, spec.default_factory, spec.metadata)
        inherited = tuple(own.pop(f.name, f) for f in cls._FIELDS)
        cls._FIELDS = (*inherited, *own.values())

    def __init__(self, **values: Any) -> None:
        for item in self._FIELDS:
            if item.name in values:
                value = values.pop(item.name)
            elif item.default is not MISSING:
                value = item.default
            elif item.default_factory is not MISSING:
                value = item.default_factory()
            else:
                raise TypeError(
                    f"{type(self).__name__}.__init__() missing 1 required keyword-only "
                    f"argument: '{item.name}'"
                )
            setattr(self, item.name, value)
        if values:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(values))}'"
            )
        self.__post_init__()

    def __post_init__(self) -> None:
        """Normalise fields after ``__init__`` (``Snapshot``: its status)."""

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self._FIELDS)
        return f"{type(self).__qualname__}({shown})"

    def to_json(self) -> dict[str, Any]:
        return {to_camel(f.name): _dump(getattr(self, f.name)) for f in self._FIELDS}

    def model_dump(self, *, mode: str = "json", by_alias: bool = True) -> dict[str, Any]:
        """pydantic's spelling of ``to_json``, for callers written against the old models."""
        return self.to_json()

    @classmethod
    def model_validate(cls: type[T], data: Any) -> T:
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
        names = {to_camel(f.name): f.name for f in cls._FIELDS}
        values: dict[str, Any] = {}
        for key, value in data.items():
            name = names.get(str(key), str(key))
            nested = cls.NESTED.get(name)
            if nested is not None and value is not None:
                kind, many = nested
                value = (
                    [kind.model_validate(item) for item in value]
                    if many
                    else kind.model_validate(value)
                )
            values[name] = value
        return cls(**values)
