"""The container spec Manager sends, validated strictly before anything reaches the cluster."""

from __future__ import annotations

import json
import math
import re
import shlex
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
)

from .errors import InvalidInput
from .naming import DNS1123_RULE, LABEL_VALUE_RULE, is_dns1123_label, is_label_value

_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # fullmatch: "$" would allow a final "\n"
_MAX_IMAGE_LENGTH = 4096
# Kubernetes keeps quantities as int64 (millicores, bytes); larger values cannot be honoured.
_MAX_CPUS = Decimal(2**63 - 1) / 1000
_MAX_MEMORY_MB = (2**63 - 1) // 2**20


class ContainerSpec(BaseModel):
    """One Manager container. Unknown fields are rejected: a typo must not pass silently."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    container_id: str = Field(alias="containerId")
    node_id: str = Field(alias="nodeId")
    hostname: str
    image: str
    cpus: Decimal
    memory_mb: int = Field(alias="memoryMb")
    env: dict[str, str] = Field(default_factory=dict)
    entrypoint: tuple[str, ...] | None = None

    @field_serializer("cpus", when_used="json")
    def _cpus_json(self, cpus: Decimal) -> int | float:
        """A JSON number, as Manager sends it (pydantic would write a string)."""
        return int(cpus) if cpus == cpus.to_integral_value() else float(cpus)

    @field_validator("container_id", "node_id", mode="before")
    @classmethod
    def _label_id(cls, value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError("must be a string or an integer")
        if isinstance(value, int) and not -(10**63) < value < 10**63:
            raise ValueError(LABEL_VALUE_RULE)  # str() of a huge int is slow, or refused
        text = str(value)
        if not is_label_value(text):
            raise ValueError(LABEL_VALUE_RULE)
        return text

    @field_validator("hostname", mode="before")
    @classmethod
    def _hostname(cls, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError("must be a string")
        if not is_dns1123_label(value):
            raise ValueError(f"{DNS1123_RULE} (it becomes the Deployment name; never renamed)")
        return value

    @field_validator("image", mode="before")
    @classmethod
    def _image(cls, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError("must be a non-empty OCI image reference")
        if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in value):
            raise ValueError("must not contain whitespace or control characters")
        if len(value) > _MAX_IMAGE_LENGTH:
            raise ValueError(f"must be at most {_MAX_IMAGE_LENGTH} characters")
        _check_text(value)
        return value

    @field_validator("cpus", mode="before")
    @classmethod
    def _cpus(cls, value: Any) -> Decimal:
        # A JSON number only: "0.5" (a string) is as wrong here as "1024" is for memoryMb.
        if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            raise ValueError("must be a number greater than 0")
        if isinstance(value, int):
            # Decided before str(): a huge int is slow to convert, or refused outright.
            value = min(max(value, 0), 2**63)
        # str() of a float is its shortest repr: 0.1 -> Decimal("0.1"), as written in the JSON.
        number = value if isinstance(value, Decimal) else Decimal(str(value))
        if not number.is_finite() or number <= 0:
            raise ValueError("must be a number greater than 0")
        if number > _MAX_CPUS:
            raise ValueError(f"must be at most {_MAX_CPUS} (Kubernetes counts millicores in int64)")
        # Exact (Fraction): Decimal.quantize raises for numbers wider than 28 digits.
        if (Fraction(number) * 1000).denominator != 1:
            raise ValueError("must have at most 3 decimals (Kubernetes counts millicores)")
        return number

    @field_validator("memory_mb", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError("must be an integer number of MiB greater than 0")
        if value > _MAX_MEMORY_MB:
            raise ValueError(f"must be at most {_MAX_MEMORY_MB} (Kubernetes counts bytes in int64)")
        return value

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError("must be an object of NAME: value")
        for key in value:
            if not isinstance(key, str) or not _ENV_KEY.fullmatch(key):
                raise ValueError(f"key {key!r} must match ^[A-Za-z_][A-Za-z0-9_]*$")
        return {key: _env_value(key, value[key]) for key in sorted(value)}

    @field_validator("entrypoint", mode="before")
    @classmethod
    def _entrypoint(cls, value: Any) -> tuple[str, ...] | None:
        if value is None:
            return None
        if isinstance(value, str):
            _check_text(value)
            try:
                parts = shlex.split(value)
            except ValueError as exc:
                raise ValueError(f"cannot be split like a shell command: {exc}") from None
        elif isinstance(value, list | tuple) and all(isinstance(part, str) for part in value):
            parts = list(value)
        else:
            raise ValueError("must be a string, a list of strings, or null")
        for part in parts:
            _check_text(part)
        # An empty entrypoint means "the image's own", exactly like null.
        return tuple(parts) or None


def _check_text(text: str, what: str = "") -> None:
    """Text that cannot reach a container unchanged: NUL (C strings end there) and lone
    surrogates (not encodable as UTF-8; the API server would turn them into U+FFFD)."""
    prefix = f"{what} " if what else ""
    if "\x00" in text:
        raise ValueError(f"{prefix}must not contain NUL characters")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise ValueError(f"{prefix}must be valid Unicode (no lone surrogates)")


def _js_number(value: float) -> str:
    """ECMAScript ``Number::toString``: shortest round-trip digits, like Python's repr, but
    exponent notation only below 1e-6 or from 1e21 on, and written ``1e-7`` / ``1.5e+21``."""
    if value == 0:
        return "0"  # also -0, as String(-0) is "0"
    sign = "-" if value < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    assert isinstance(exponent, int)
    k, n = len(digits), exponent + len(digits)  # value = 0.DIGITS * 10**n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + text


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
            text = _js_number(number)
    else:
        kind = _JSON_KINDS.get(type(value), type(value).__name__)
        raise ValueError(f"value of {key} must be a string, number or boolean, not {kind}")
    _check_text(text, f"value of {key}")
    return text


_SPEC_KEYS = frozenset(field.alias or name for name, field in ContainerSpec.model_fields.items())


def parse_spec(data: Any) -> ContainerSpec:
    """Validate a decoded JSON spec; every problem becomes one InvalidInput naming the field."""
    if not isinstance(data, dict):
        raise InvalidInput("spec must be a JSON object")
    # Only the JSON names: populate_by_name would otherwise let "container_id" through.
    unknown = [key for key in data if key not in _SPEC_KEYS]
    problems = [f"{key}: unknown field" for key in unknown]
    try:
        spec = ContainerSpec.model_validate({k: v for k, v in data.items() if k in _SPEC_KEYS})
    except ValidationError as exc:
        problems += [_describe(error) for error in exc.errors()]
    if problems:
        raise InvalidInput("invalid spec: " + "; ".join(problems), {"problems": problems})
    return spec


def _describe(error: Any) -> str:
    field = ".".join(str(part) for part in error["loc"]) or "spec"
    if error["type"] == "extra_forbidden":
        return f"{field}: unknown field"
    if error["type"] == "missing":
        return f"{field}: required"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{field}: {message}"


def load_spec(source: str) -> ContainerSpec:
    """Read a spec from a file path, or from stdin when ``source`` is ``-``."""
    import sys

    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot read spec {source!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"spec {source!r} is not UTF-8: {exc}") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:  # JSONDecodeError, and ints longer than Python converts
        raise InvalidInput(f"spec {source!r} is not valid JSON: {exc}") from None
    return parse_spec(data)


def _reject_constant(name: str) -> Any:
    """``NaN`` and ``Infinity`` are not JSON, even though Python's json accepts them."""
    raise ValueError(f"{name} is not a JSON value")
