"""The container spec Manager sends, validated strictly before anything reaches the cluster."""

from __future__ import annotations

import json
import re
import shlex
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import InvalidInput
from .naming import DNS1123_RULE, LABEL_VALUE_RULE, is_dns1123_label, is_label_value

_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MAX_IMAGE_LENGTH = 4096


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

    @field_validator("container_id", "node_id", mode="before")
    @classmethod
    def _label_id(cls, value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError("must be a string or an integer")
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
        return value

    @field_validator("cpus", mode="before")
    @classmethod
    def _cpus(cls, value: Any) -> Decimal:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError("must be a number greater than 0")
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            raise ValueError("must be a number greater than 0") from None
        if not number.is_finite() or number <= 0:
            raise ValueError("must be a number greater than 0")
        if number != number.quantize(Decimal("0.001")):
            raise ValueError("must have at most 3 decimals (millicores)")
        return number

    @field_validator("memory_mb", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError("must be an integer number of MiB greater than 0")
        return value

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError("must be an object of NAME: value")
        result: dict[str, str] = {}
        for key in sorted(value):
            if not isinstance(key, str) or not _ENV_KEY.match(key):
                raise ValueError(f"key {key!r} must match ^[A-Za-z_][A-Za-z0-9_]*$")
            result[key] = _env_value(key, value[key])
        return result

    @field_validator("entrypoint", mode="before")
    @classmethod
    def _entrypoint(cls, value: Any) -> tuple[str, ...] | None:
        if value is None:
            return None
        if isinstance(value, str):
            try:
                parts = shlex.split(value)
            except ValueError as exc:
                raise ValueError(f"cannot be split like a shell command: {exc}") from None
        elif isinstance(value, list) and all(isinstance(part, str) for part in value):
            parts = list(value)
        else:
            raise ValueError("must be a string, a list of strings, or null")
        if any("\x00" in part for part in parts):
            raise ValueError("must not contain NUL characters")
        # An empty entrypoint means "the image's own", exactly like null.
        return tuple(parts) or None


def _env_value(key: str, value: Any) -> str:
    """Stringify like Manager (JavaScript ``String(v)``); null and objects are errors."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"value of {key} must be a finite number")
        text = str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    else:
        kind = "null" if value is None else type(value).__name__
        raise ValueError(f"value of {key} must be a string, number or boolean, not {kind}")
    if "\x00" in text:
        raise ValueError(f"value of {key} must not contain NUL characters")
    return text


def parse_spec(data: Any) -> ContainerSpec:
    """Validate a decoded JSON spec; every problem becomes one InvalidInput naming the field."""
    if not isinstance(data, dict):
        raise InvalidInput("spec must be a JSON object")
    try:
        return ContainerSpec.model_validate(data)
    except ValidationError as exc:
        problems = [_describe(error) for error in exc.errors()]
        raise InvalidInput("invalid spec: " + "; ".join(problems), {"problems": problems}) from None


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
        raise InvalidInput(f"cannot read spec {source!r}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"spec {source!r} is not valid JSON: {exc}") from None
    return parse_spec(data)
