"""How a command's document reaches stdout: ``-o json`` (Manager's contract), ``yaml``,
``table``, ``wide``, ``name``; ``describe``'s text.

JSON is the default and exactly what it always was. YAML, tables, names and describe's text
are built from the same JSON document, so they can never disagree with it. ``yaml_text``,
``tables`` and ``describe_text`` are imported only when asked for: Manager's JSON path
imports nothing new.
"""

from __future__ import annotations

import json
from typing import IO, Any, NamedTuple

__all__ = ["FORMATS", "Shown", "refusal", "write_error", "write_result"]

FORMATS = ("json", "yaml", "table", "wide", "name")
# For people: errors go to stderr as a line of text (Manager reads json).
HUMAN = frozenset({"table", "wide", "name"})
SNAPSHOT_COMMANDS = frozenset({"list", "status", "create", "start", "stop", "reconfigure"})
# The commands -o name means something for (tables.NAME_COMMANDS: they answer with objects).
NAME_COMMANDS = SNAPSHOT_COMMANDS | {"delete", "nodes"}


class Shown(NamedTuple):
    """How the result is shown: the format, and ``--no-headers``."""

    format: str
    headers: bool = True


def refusal(command: str, fmt: str, *, dry_run: bool) -> str | None:
    """Why ``-o fmt`` means nothing for this command (checked before anything runs), or None."""
    if command == "render" and fmt != "yaml":
        return f"render prints the manifest as YAML: -o {fmt} does not apply"
    if fmt == "name":
        if dry_run:
            return "a --dry-run plan names no object: -o name does not apply (use -o json)"
        if command not in NAME_COMMANDS:
            return (
                f"{command} names no workload: -o name applies to list, status, create, "
                "start, stop, reconfigure, delete and nodes"
            )
    if fmt == "wide" and command not in SNAPSHOT_COMMANDS:
        return (
            f"-o wide applies to the workload tables (list, status, create, start, stop, "
            f"reconfigure), not to {command}"
        )
    if command == "describe" and fmt not in ("json", "yaml", "table"):
        return f"describe prints text, -o json or -o yaml: -o {fmt} does not apply"
    return None


# What ``-o table`` says on stderr, like kubectl's "No resources found", when a list is empty.
_EMPTY = {"list": "No Manager workloads found.", "nodes": "No nodes found."}


def write_json(document: Any, out: IO[str]) -> None:
    # Indented for a person at a terminal; one compact line for a program (Manager), where
    # json's C encoder is ~10x faster than the indenting one on a 5,000-item list.
    indent = 2 if out.isatty() else None
    # The documents are trees the adapter builds (no cycles to look for): ~17% quicker.
    out.write(json.dumps(document, indent=indent, check_circular=False) + "\n")
    out.flush()


def write_result(command: str, result: Any, shown: Shown | str, out: IO[str], err: IO[str]) -> None:
    """A command's result: ``render``'s manifest as is, any other document as ``shown``."""
    shown = Shown(shown) if isinstance(shown, str) else shown
    fmt = shown.format
    if isinstance(result, str):
        out.write(result)
    elif fmt == "yaml":
        _write_yaml(result, out)
    elif command == "describe" and fmt == "table" and "dryRun" not in result:
        from .describe_text import describe_text

        out.write(describe_text(result))
    elif fmt in ("table", "wide"):
        _write_table(command, result, shown, out, err)
    elif fmt == "name":
        from .tables import names

        found = names(command, result)
        out.write("".join(f"{name}\n" for name in found))
        if not found and command in _EMPTY:  # kubectl: "No resources found", on stderr
            err.write(_EMPTY[command] + "\n")
        elif not found:
            err.write(f"{result.get('providerId')}: no such deployment\n")
    else:
        write_json(result, out)
        return
    out.flush()


def _write_table(command: str, result: Any, shown: Shown, out: IO[str], err: IO[str]) -> None:
    from .tables import drifted, table

    wide = None
    if shown.format == "wide":
        from ..rules.clock import utc_now

        wide = utc_now()
    text = table(command, result, wide=wide, headers=shown.headers)
    if text is None:
        _write_yaml(result, out)
    elif text:
        out.write(text)
        if shown.headers:  # a person reading: say where the changes are shown
            for provider_id in drifted(command, result):
                err.write(
                    f"{provider_id} drifted from what Manager applied: "
                    f"kubectl-adapter describe {provider_id} shows what changed\n"
                )
    else:
        err.write(_EMPTY.get(command, "Nothing found.") + "\n")


def write_error(document: dict[str, Any], fmt: str, out: IO[str], err: IO[str]) -> None:
    """``{"error": ...}`` on stdout in ``fmt``; with ``-o table|wide|name``, for a person, on
    stderr."""
    if fmt == "yaml":
        _write_yaml(document, out)
    elif fmt not in HUMAN:
        write_json(document, out)
    else:
        from .yaml_text import dump

        error = document["error"]
        err.write(f"Error ({error['type']}): {error['message']}\n")
        if error.get("details"):
            details = dump({"details": error["details"]})
            err.write("".join(f"  {line}\n" for line in details.splitlines()))
        err.flush()


def _write_yaml(document: Any, out: IO[str]) -> None:
    from .yaml_text import dump

    out.write(dump(document))
