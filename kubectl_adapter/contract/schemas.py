"""JSON Schemas (Draft 2020-12) of the spec and of every CLI output, for ``docs/schema/``.

The outputs come from the pydantic models ``output_models`` derives from ``models`` (the
documents the CLI prints, defined once); the spec comes from ``spec_rules.FIELDS``, the table
``spec.parse_spec`` validates with, so the spec's rules are written once.
``tests/contract/test_schemas.py`` checks that schema and validator accept the same
documents, and lists the rules a JSON Schema cannot state exactly (``docs/schema/README.md``
repeats them)::

    python -m kubectl_adapter.contract.schemas [DIR]     # rewrite the files (default: docs/schema)

It imports pydantic, so the CLI never imports it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode

from .output_models import (
    Capabilities,
    CheckResult,
    DeleteResult,
    Description,
    DryRunPlan,
    ErrorOutput,
    NetworkInfo,
    NodeList,
    Snapshot,
    SnapshotList,
    WatchEvent,
)
from .spec_rules import json_schema

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_DIR = Path("docs/schema")

SPEC_FILE = "spec.json"
SPEC_USED_BY = "input of `render`, `create` and `reconfigure` (`--spec FILE`, or `-` for stdin)"

# Output file name -> (model, mode, the commands that print it).
SCHEMAS: dict[str, tuple[type[BaseModel], JsonSchemaMode, str]] = {
    "snapshot.json": (
        Snapshot,
        "serialization",
        "`create`, `status`, `start`, `stop`, `reconfigure`",
    ),
    "snapshot-list.json": (SnapshotList, "serialization", "`list`"),
    "watch-event.json": (
        WatchEvent,
        "serialization",
        "`list --watch`, `status --watch`: one per line",
    ),
    "describe.json": (Description, "serialization", "`describe` (`-o json`)"),
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
        [f"| [`{SPEC_FILE}`]({SPEC_FILE}) | ContainerSpec | {SPEC_USED_BY} |"]
        + [
            f"| [`{name}`]({name}) | {model.__name__} | {used_by} |"
            for name, (model, _, used_by) in SCHEMAS.items()
        ]
    )
    differences = "\n".join(f"- {text}" for text in SPEC_DIFFERENCES.values())
    return f"""# JSON Schemas

Generated by `python -m kubectl_adapter.contract.schemas` (run from the repository root)
from the pydantic models in `kubectl_adapter/contract/models.py` (outputs) and from the rules
table the adapter validates specs with, `kubectl_adapter/contract/spec_rules.py` (the spec);
do not edit by hand. `tests/contract/test_schemas.py`
fails when a file is stale. All are JSON Schema Draft 2020-12 and use the JSON (camelCase)
names.

| schema | document | printed on stdout by (read by, for the spec) |
|---|---|---|
{rows}

`render` prints YAML (a Deployment manifest), which has no schema here.

## What `spec.json` does not say

The adapter validates a spec in plain Python, with the validators that sit beside each
field's schema in `spec_rules.FIELDS`. For every document inside the rules below, it accepts
exactly what `spec.json` accepts (a property test checks this). It also refuses, although the
schema allows:

{differences}

{PYTHON_PATTERN_CAVEAT}
"""


def spec_schema() -> dict[str, Any]:
    """spec.json: derived from the validators' own table, never written a second time."""
    return {"$schema": DRAFT, **json_schema()}


def generate() -> dict[str, str]:
    """Every file of ``docs/schema/``, name -> text."""
    files = {SPEC_FILE: dumps(spec_schema())}
    files |= {name: dumps(schema_for(model, mode)) for name, (model, mode, _) in SCHEMAS.items()}
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
