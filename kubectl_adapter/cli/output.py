"""How a command's document reaches stdout: ``-o json`` (Manager's contract), ``yaml``, ``table``.

JSON is the default and exactly what it always was. YAML and tables are built from the same
JSON document, so they can never disagree with it. ``yaml_text`` and ``tables`` are imported
only when asked for: Manager's JSON path imports nothing new.
"""

from __future__ import annotations

import json
from typing import IO, Any

__all__ = ["FORMATS", "write_error", "write_result"]

FORMATS = ("json", "yaml", "table")

# What ``-o table`` says on stderr, like kubectl's "No resources found", when a list is empty.
_EMPTY = {"list": "No Manager workloads found.", "nodes": "No nodes found."}


def write_json(document: Any, out: IO[str]) -> None:
    # Indented for a person at a terminal; one compact line for a program (Manager), where
    # json's C encoder is ~10x faster than the indenting one on a 5,000-item list.
    indent = 2 if out.isatty() else None
    # The documents are trees the adapter builds (no cycles to look for): ~17% quicker.
    out.write(json.dumps(document, indent=indent, check_circular=False) + "\n")
    out.flush()


def write_result(command: str, result: Any, fmt: str, out: IO[str], err: IO[str]) -> None:
    """A command's result: ``render``'s manifest as is, any other document in ``fmt``."""
    if isinstance(result, str):
        out.write(result)
    elif fmt == "yaml":
        _write_yaml(result, out)
    elif fmt == "table":
        from .tables import table

        text = table(command, result)
        if text is None:
            _write_yaml(result, out)
        elif text:
            out.write(text)
        else:
            err.write(_EMPTY.get(command, "Nothing found.") + "\n")
    else:
        write_json(result, out)
        return
    out.flush()


def write_error(document: dict[str, Any], fmt: str, out: IO[str], err: IO[str]) -> None:
    """``{"error": ...}`` on stdout in ``fmt``; with ``-o table``, for a person, on stderr."""
    if fmt == "json":
        write_json(document, out)
    elif fmt == "yaml":
        _write_yaml(document, out)
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
