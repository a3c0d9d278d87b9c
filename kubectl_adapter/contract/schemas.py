"""JSON Schemas (Draft 2020-12) of the spec and of every CLI output, for ``docs/schema/``.

Generated from pydantic models: the outputs from ``models`` (exactly what the CLI prints), the
spec from ``SpecSchema`` below, a description of the wire format Manager sends. The adapter
validates specs with ``spec.parse_spec`` (plain Python, so the CLI never imports pydantic);
``tests/test_schemas.py`` checks that the two accept the same documents, and lists the rules
a JSON Schema cannot state exactly (``docs/schema/README.md`` repeats them)::

    python -m kubectl_adapter.contract.schemas [DIR]     # rewrite the files (default: docs/schema)

It imports pydantic, so the CLI never imports it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, WithJsonSchema
from pydantic.json_schema import JsonSchemaMode

from .models import (
    Capabilities,
    CheckResult,
    DeleteResult,
    DryRunPlan,
    ErrorOutput,
    NetworkInfo,
    NodeList,
    Snapshot,
    SnapshotList,
)

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_DIR = Path("docs/schema")

# ECMA-262 patterns (what JSON Schema specifies), written to mean the same in Python's ``re``
# except for ``$``, which Python also matches before a final newline (see the README). They
# match what spec.py checks with ``fullmatch``.
LABEL_VALUE_PATTERN = r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
DNS1123_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
ENV_KEY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
# Text the API server can store (spec.unstorable_characters), as far as one pattern means
# the same in ECMA-262 and Python: C0 controls but tab/LF/CR, DEL, C1, the BMP noncharacters.
# Astral noncharacters (U+1FFFE, ...) and lone surrogates are a documented difference.
_UNSTORABLE_BMP = r"\ufdd0-\ufdef\ufffe\uffff"
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + _UNSTORABLE_BMP + "]*$"
# Not "^\S+$": ECMA's and Python's \s differ (U+0085, U+FEFF), and control characters are
# refused too. Exactly the characters spec.py refuses: str.isspace(), C0, DEL, C1 (U+0080 to
# U+009F) and the BMP noncharacters.
IMAGE_PATTERN = (
    r"^[^\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
    + _UNSTORABLE_BMP
    + "]+$"
)
MAX_IMAGE_LENGTH = 4096
MAX_LABEL_INTEGER = 10**63 - 1  # 63 digits: the longest label value
# Kubernetes keeps millicores and bytes as int64. The exact cpus bound, 9223372036854775.807,
# is no double; this integer bound is exact all the same, as no double lies between the two
# (doubles are 2 apart there) and any integer above it is over.
MAX_CPUS = (2**63 - 1) // 1000
MAX_MEMORY_MB = (2**63 - 1) // 2**20

_LABEL_TEXT = Annotated[str, StringConstraints(pattern=LABEL_VALUE_PATTERN, max_length=63)]
_TEXT = Annotated[str, StringConstraints(pattern=TEXT_PATTERN)]
_LABEL_INTEGER = Annotated[int, Field(ge=0, le=MAX_LABEL_INTEGER)]
_ENV_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {
            "type": "object",
            "propertyNames": {"pattern": ENV_KEY_PATTERN},
            "additionalProperties": {
                "anyOf": [
                    {"type": "string", "pattern": TEXT_PATTERN},
                    {"type": ["number", "boolean"]},
                ]
            },
        },
        {"type": "null"},
    ]
}


class SpecSchema(BaseModel):
    """One Manager container, as Manager sends it to render, create and reconfigure (--spec
    FILE). Unknown fields are rejected, the snake_case spellings of these names included."""

    # Titles are the JSON names; the docstring above is the schema's description.
    model_config = ConfigDict(
        extra="forbid",
        title="ContainerSpec",
        field_title_generator=lambda name, field: field.alias or name,
    )

    container_id: _LABEL_TEXT | _LABEL_INTEGER = Field(
        alias="containerId",
        description=(
            "Manager's container ID. A string or an integer, that is a Kubernetes label "
            "value: 1 to 63 characters, letters, digits, '-', '_' or '.', starting and "
            "ending with a letter or digit (so no negative integer). Becomes the immutable "
            "selector label org.mieweb.opensource-server.container-id."
        ),
    )
    node_id: _LABEL_TEXT | _LABEL_INTEGER = Field(
        alias="nodeId",
        description=(
            "Manager's node ID, with the same rule as containerId. Becomes the label "
            "org.mieweb.opensource-server.node-id."
        ),
    )
    hostname: str = Field(
        max_length=63,
        pattern=DNS1123_PATTERN,
        description=(
            "A DNS-1123 label: at most 63 characters, lowercase letters, digits and '-', "
            "starting and ending with a letter or digit. The Deployment's name and the pod's "
            "hostname; never renamed."
        ),
    )
    image: str = Field(
        min_length=1,
        max_length=MAX_IMAGE_LENGTH,
        pattern=IMAGE_PATTERN,
        description=(
            "OCI image reference, passed to Kubernetes as is: non-empty, no whitespace or "
            "control characters."
        ),
    )
    cpus: float = Field(
        gt=0,
        le=MAX_CPUS,
        description=(
            "CPUs, a JSON number greater than 0 with at most 3 decimals (Kubernetes counts "
            "millicores: 0.5 becomes 500m). Requests and limits are both set to it. The "
            "3-decimal rule is not stated as multipleOf: binary floating point would refuse "
            "valid values such as 0.043."
        ),
    )
    memory_mb: int = Field(
        alias="memoryMb",
        ge=1,
        le=MAX_MEMORY_MB,
        description=(
            "Memory in MiB, an integer of at least 1 (1024 becomes 1024Mi). Requests and "
            "limits are both set to it."
        ),
    )
    env: Annotated[dict[str, str | float | bool] | None, WithJsonSchema(_ENV_SCHEMA)] = Field(
        default=None,
        description=(
            "Environment variables: names match ^[A-Za-z_][A-Za-z0-9_]*$; values are "
            "strings, or numbers and booleans turned into text like JavaScript's String(). "
            "Null or absent means none. Set in name order."
        ),
    )
    entrypoint: _TEXT | list[_TEXT] | None = Field(
        default=None,
        description=(
            "The container's command: a list of arguments, or a string split like a POSIX "
            "shell would (quotes must balance). Null, absent, empty or blank means the "
            "image's own entrypoint."
        ),
    )


# File name -> (model, mode, the commands that print or read it).
SCHEMAS: dict[str, tuple[type[BaseModel], JsonSchemaMode, str]] = {
    "spec.json": (
        SpecSchema,
        "validation",
        "input of `render`, `create` and `reconfigure` (`--spec FILE`, or `-` for stdin)",
    ),
    "snapshot.json": (
        Snapshot,
        "serialization",
        "`create`, `status`, `start`, `stop`, `reconfigure`",
    ),
    "snapshot-list.json": (SnapshotList, "serialization", "`list`"),
    "network.json": (NetworkInfo, "serialization", "`network`"),
    "delete.json": (DeleteResult, "serialization", "`delete`"),
    "capabilities.json": (Capabilities, "serialization", "`capabilities`"),
    "check.json": (CheckResult, "serialization", "`check`"),
    "nodes.json": (NodeList, "serialization", "`nodes`"),
    "dry-run.json": (
        DryRunPlan,
        "serialization",
        "`create`, `start`, `stop`, `delete`, `reconfigure` with `--dry-run`",
    ),
    "error.json": (ErrorOutput, "serialization", "every command, on failure (exit code > 0)"),
}

# Rules of the adapter that spec.json does not state: documents these describe pass the
# schema yet are refused by the adapter. Keys name the test example of each (test_schemas).
SPEC_DIFFERENCES: dict[str, str] = {
    "cpus-decimals": (
        "`cpus` with more than 3 decimals (`0.0005`, `1e-300`): Kubernetes counts millicores. "
        "`multipleOf: 0.001` would say it, but binary floating point makes validators refuse "
        "valid values with it (`0.043 / 0.001` is not an integer in a double)."
    ),
    "integral-float-id": (
        "`containerId` or `nodeId` written as a number with a zero fraction (`42.0`): JSON "
        "Schema calls it an integer, the adapter wants a JSON integer or a string. "
        "(`JSON.stringify` never writes one.)"
    ),
    "astral-noncharacter-or-lone-surrogate": (
        "noncharacters beyond the Basic Multilingual Plane (`U+1FFFE`, `U+10FFFF`, ...) and "
        "lone UTF-16 surrogates (`\\ud800` not part of a pair) in `image`, `env` values or "
        "`entrypoint`: text the API server cannot store, which no pattern can name alike in "
        "ECMA-262 and Python (the patterns refuse the other control characters and "
        "noncharacters)."
    ),
    "entrypoint-shell": (
        "an `entrypoint` string that cannot be split like a POSIX shell command: unbalanced "
        "quotes or a trailing backslash."
    ),
    "env-number-range": (
        "`env` numbers beyond the range of a double (`1e400`, a 400-digit integer): they "
        "have no finite JavaScript `String()`."
    ),
}

PYTHON_PATTERN_CAVEAT = (
    "JSON Schema patterns are ECMA-262 regular expressions, where `$` matches only at the very "
    "end. Validators built on Python's `re` (the `jsonschema` package) also let `$` match "
    'before a final newline, so they accept e.g. a `hostname` of `"web-1\\n"` that the '
    "adapter (and an ECMA-262 validator such as Ajv) refuses."
)


def schema_for(model: type[BaseModel], mode: JsonSchemaMode) -> dict[str, Any]:
    """One model's JSON Schema, with the ``$schema`` keyword of Draft 2020-12."""
    return {"$schema": DRAFT, **model.model_json_schema(by_alias=True, mode=mode)}


def dumps(schema: dict[str, Any]) -> str:
    """Pretty-printed, sorted keys, trailing newline: stable for diffs and for the test."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def readme() -> str:
    rows = "\n".join(
        f"| [`{name}`]({name}) | {model.__name__ if model is not SpecSchema else 'ContainerSpec'}"
        f" | {used_by} |"
        for name, (model, _, used_by) in SCHEMAS.items()
    )
    differences = "\n".join(f"- {text}" for text in SPEC_DIFFERENCES.values())
    return f"""# JSON Schemas

Generated by `python -m kubectl_adapter.contract.schemas` (run from the repository root)
from the pydantic models in `kubectl_adapter/contract/models.py` (outputs) and
`kubectl_adapter/contract/schemas.py` (the spec); do not edit by hand. `tests/test_schemas.py`
fails when a file is stale. All are JSON Schema Draft 2020-12 and use the JSON (camelCase)
names.

| schema | document | printed on stdout by (read by, for the spec) |
|---|---|---|
{rows}

`render` prints YAML (a Deployment manifest), which has no schema here.

## What `spec.json` does not say

The adapter validates a spec in plain Python (`kubectl_adapter/contract/spec.py`). For every
document inside the rules below, it accepts exactly what `spec.json` accepts (a property test checks
this). It also refuses, although the schema allows:

{differences}

{PYTHON_PATTERN_CAVEAT}
"""


def generate() -> dict[str, str]:
    """Every file of ``docs/schema/``, name -> text."""
    files = {name: dumps(schema_for(model, mode)) for name, (model, mode, _) in SCHEMAS.items()}
    files["README.md"] = readme()
    return files


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generate().items():
        path = directory / name
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.stderr.write(
            "usage: python -m kubectl_adapter.contract.schemas [DIR]  (default: docs/schema)\n"
        )
        return 2
    for path in write(Path(args[0]) if args else DEFAULT_DIR):
        sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
