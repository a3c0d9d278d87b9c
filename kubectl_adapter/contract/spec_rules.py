"""The spec's rules, defined once: each field's validator and JSON Schema side by side.

``spec.parse_spec`` runs the validators; ``schemas`` writes ``docs/schema/spec.json`` from the
schema fragments of the same table (``json_schema``). Patterns and bounds are constants both
read, so a rule changes in one place. Plain Python (no pydantic): every command that loads a
spec imports this module. Where one JSON Schema keyword cannot say exactly what a validator
checks, the difference is listed in ``schemas.SPEC_DIFFERENCES`` and tested.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, NamedTuple

from .naming import (
    CONTAINER_ID_LABEL,
    DNS1123_PATTERN,
    DNS1123_RULE,
    LABEL_VALUE_PATTERN,
    LABEL_VALUE_RULE,
    NAME_LABEL,
    NODE_ID_LABEL,
    is_dns1123_label,
    is_label_value,
)
from .shell_words import split as split_words
from .storable_text import TEXT_PATTERN, UNSTORABLE_BMP, check_text, js_number

# ------------------------------------------------------------------------ shared constants
# Patterns are ECMA-262 (what JSON Schema specifies), written to mean the same in Python's
# ``re`` with ``fullmatch`` of the part between ``^`` and ``$`` (Python's ``$`` would also
# match before a final newline).
ENV_KEY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_ENV_KEY = re.compile(ENV_KEY_PATTERN[1:-1])

# What an image reference refuses before the storable-text rule: str.isspace() and the C0
# controls and DEL. The image pattern is this class and the BMP part of the unstorable one.
SPACE_OR_CONTROL = r"\x00-\x20\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_IMAGE_SPACE = re.compile(f"[{SPACE_OR_CONTROL}]")
IMAGE_PATTERN = f"^[^{SPACE_OR_CONTROL}{UNSTORABLE_BMP}]+$"
MAX_IMAGE_LENGTH = 4096

# Kubernetes keeps quantities as int64 (millicores, bytes); larger values cannot be honoured.
INT64_MAX = 2**63 - 1
MAX_CPUS = Decimal(INT64_MAX) / 1000
# The exact cpus bound, 9223372036854775.807, is no double; this integer bound is exact all
# the same for the schema, as no double lies between the two (doubles are 2 apart there) and
# any integer above it is over.
MAX_CPUS_INTEGER = INT64_MAX // 1000
MAX_MEMORY_MB = INT64_MAX // 2**20
MAX_LABEL_INTEGER = 10**63 - 1  # 63 digits: the longest label value


# ------------------------------------------------------------------------ one rule per field
# Each validator takes the decoded JSON value and returns the Python value, or raises
# ValueError with the rule the value breaks (the message after "field: ").


def _label_id(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError("must be a string or an integer")
    if isinstance(value, int) and not -(10**63) < value < 10**63:
        raise ValueError(LABEL_VALUE_RULE)  # str() of a huge int is slow, or refused
    text = str(value)
    if not is_label_value(text):
        raise ValueError(LABEL_VALUE_RULE)
    return text


def _hostname(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    if not is_dns1123_label(value):
        raise ValueError(f"{DNS1123_RULE} (it becomes the Deployment name; never renamed)")
    return str(value)


def _image(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("must be a non-empty OCI image reference")
    if _IMAGE_SPACE.search(value):
        raise ValueError("must not contain whitespace or control characters")
    if len(value) > MAX_IMAGE_LENGTH:
        raise ValueError(f"must be at most {MAX_IMAGE_LENGTH} characters")
    check_text(value)
    return str(value)


def _cpus(value: Any) -> Decimal:
    # A JSON number only: "0.5" (a string) is as wrong here as "1024" is for memoryMb.
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError("must be a number greater than 0")
    if isinstance(value, int):
        # Decided before str(): a huge int is slow to convert, or refused outright.
        value = int(min(max(value, 0), 2**63))
    # str() of a float is its shortest repr: 0.1 -> Decimal("0.1"), as written in the JSON.
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    if not number.is_finite() or number <= 0:
        raise ValueError("must be a number greater than 0")
    if number > MAX_CPUS:
        raise ValueError(f"must be at most {MAX_CPUS} (Kubernetes counts millicores in int64)")
    # Exact (the number's ratio in lowest terms, as Fraction would take it, without importing
    # fractions): Decimal.quantize raises for numbers wider than 28 digits.
    numerator, denominator = number.as_integer_ratio()
    if numerator * 1000 % denominator:
        raise ValueError("must have at most 3 decimals (Kubernetes counts millicores)")
    return number


def _memory(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("must be an integer number of MiB greater than 0")
    if value > MAX_MEMORY_MB:
        raise ValueError(f"must be at most {MAX_MEMORY_MB} (Kubernetes counts bytes in int64)")
    return int(value)


class Problems(ValueError):
    """Several problems inside one field: ``(path below the field, rule)`` each, so that every
    bad env entry or entrypoint part is reported, not only the first."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(message for _, message in problems))
        self.problems = problems


def _env(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("must be an object of NAME: value")
    problems: list[tuple[str, str]] = []
    env: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not _ENV_KEY.fullmatch(key):
            problems.append(("", f"key {key!r} must match {ENV_KEY_PATTERN}"))
            continue
        try:
            env[key] = _env_value(key, item)
        except ValueError as exc:
            problems.append((f".{key}", str(exc)))
    if problems:
        raise Problems(problems)
    return {key: env[key] for key in sorted(env)}


def _entrypoint(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        check_text(value)
        try:
            parts = split_words(value)
        except ValueError as exc:
            raise ValueError(f"cannot be split like a shell command: {exc}") from None
    elif isinstance(value, list | tuple) and all(isinstance(part, str) for part in value):
        parts = [str(part) for part in value]
        problems: list[tuple[str, str]] = []
        for index, part in enumerate(parts):
            try:
                check_text(part)
            except ValueError as exc:
                problems.append((f"[{index}]", f"[{index}] {exc}"))
        if problems:
            raise Problems(problems)
    else:
        raise ValueError("must be a string, a list of strings, or null")
    # An empty entrypoint means "the image's own", exactly like null.
    return tuple(parts) or None


_JSON_KINDS = {type(None): "null", dict: "an object", list: "an array", tuple: "an array"}


def _env_value(key: str, value: Any) -> str:
    """Stringify like Manager (JavaScript ``String(v)``); null and objects are errors."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int | float):
        # Manager's JSON numbers are doubles: integers beyond 2**53 lose digits there too.
        if isinstance(value, int) and abs(value) < 2**53:
            text = str(value)
        else:
            try:
                number = float(value)
            except OverflowError:
                number = float("inf")
            if not math.isfinite(number):
                raise ValueError(f"value of {key} must be a finite number")
            text = js_number(number)
    else:
        kind = _JSON_KINDS.get(type(value), type(value).__name__)
        raise ValueError(f"value of {key} must be a string, number or boolean, not {kind}")
    check_text(text, f"value of {key}")
    return text


# ------------------------------------------------------------------------ the table
REQUIRED = object()


class FieldRule(NamedTuple):
    """One field of the spec: its names, its validator, its default and its JSON Schema."""

    name: str  # the JSON (wire) name; the only one accepted
    attribute: str  # the ContainerSpec attribute
    validate: Callable[[Any], Any]
    default: Any  # REQUIRED, a value, or a callable making one
    schema: dict[str, Any]  # the JSON Schema of the value (without title and default)


_LABEL_ID_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "maxLength": 63, "pattern": LABEL_VALUE_PATTERN},
        {"type": "integer", "minimum": 0, "maximum": MAX_LABEL_INTEGER},
    ]
}
_TEXT_SCHEMA: dict[str, Any] = {"type": "string", "pattern": TEXT_PATTERN}

# In the order problems are reported.
FIELDS: tuple[FieldRule, ...] = (
    FieldRule(
        "containerId",
        "container_id",
        _label_id,
        REQUIRED,
        {
            **_LABEL_ID_SCHEMA,
            "description": (
                "Manager's container ID. A string or an integer, that is a Kubernetes label "
                "value: 1 to 63 characters, letters, digits, '-', '_' or '.', starting and "
                "ending with a letter or digit (so no negative integer). Becomes the "
                f"immutable selector label {CONTAINER_ID_LABEL}."
            ),
        },
    ),
    FieldRule(
        "nodeId",
        "node_id",
        _label_id,
        REQUIRED,
        {
            **_LABEL_ID_SCHEMA,
            "description": (
                "Manager's node ID, with the same rule as containerId. Becomes the label "
                f"{NODE_ID_LABEL}."
            ),
        },
    ),
    FieldRule(
        "hostname",
        "hostname",
        _hostname,
        REQUIRED,
        {
            "type": "string",
            "maxLength": 63,
            "pattern": DNS1123_PATTERN,
            "description": (
                "A DNS-1123 label: at most 63 characters, lowercase letters, digits and '-', "
                "starting and ending with a letter or digit. The Deployment's name (and the "
                f"value of its label {NAME_LABEL}) and the pod's hostname; never renamed."
            ),
        },
    ),
    FieldRule(
        "image",
        "image",
        _image,
        REQUIRED,
        {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_IMAGE_LENGTH,
            "pattern": IMAGE_PATTERN,
            "description": (
                "OCI image reference, passed to Kubernetes as is: non-empty, no whitespace or "
                "control characters."
            ),
        },
    ),
    FieldRule(
        "cpus",
        "cpus",
        _cpus,
        REQUIRED,
        {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_CPUS_INTEGER,
            "description": (
                "CPUs, a JSON number greater than 0 with at most 3 decimals (Kubernetes "
                "counts millicores: 0.5 becomes 500m). Requests and limits are both set to "
                "it. The 3-decimal rule is not stated as multipleOf: binary floating point "
                "would refuse valid values such as 0.043."
            ),
        },
    ),
    FieldRule(
        "memoryMb",
        "memory_mb",
        _memory,
        REQUIRED,
        {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_MEMORY_MB,
            "description": (
                "Memory in MiB, an integer of at least 1 (1024 becomes 1024Mi). Requests and "
                "limits are both set to it."
            ),
        },
    ),
    FieldRule(
        "env",
        "env",
        _env,
        dict,
        {
            "anyOf": [
                {
                    "type": "object",
                    "propertyNames": {"pattern": ENV_KEY_PATTERN},
                    "additionalProperties": {
                        "anyOf": [_TEXT_SCHEMA, {"type": ["number", "boolean"]}]
                    },
                },
                {"type": "null"},
            ],
            "description": (
                f"Environment variables: names match {ENV_KEY_PATTERN}; values are "
                "strings, or numbers and booleans turned into text like JavaScript's "
                "String(). Null or absent means none. Set in name order."
            ),
        },
    ),
    FieldRule(
        "entrypoint",
        "entrypoint",
        _entrypoint,
        None,
        {
            "anyOf": [_TEXT_SCHEMA, {"type": "array", "items": _TEXT_SCHEMA}, {"type": "null"}],
            "description": (
                "The container's command: a list of arguments, or a string split like a "
                "POSIX shell would (quotes must balance). Null, absent, empty or blank means "
                "the image's own entrypoint."
            ),
        },
    ),
)

SPEC_DESCRIPTION = (
    "One Manager container, as Manager sends it to render, create and reconfigure (--spec "
    "FILE). Unknown fields are rejected, the snake_case spellings of these names included."
)


def json_schema() -> dict[str, Any]:
    """The spec's JSON Schema (without ``$schema``), from the same table ``parse_spec`` runs."""
    properties: dict[str, Any] = {}
    for field in FIELDS:
        prop = {**field.schema, "title": field.name}
        if field.default is not REQUIRED:
            prop["default"] = None  # absent and null mean the same: no env, own entrypoint
        properties[field.name] = prop
    return {
        "title": "ContainerSpec",
        "description": SPEC_DESCRIPTION,
        "type": "object",
        "properties": properties,
        "required": [field.name for field in FIELDS if field.default is REQUIRED],
        "additionalProperties": False,
    }
