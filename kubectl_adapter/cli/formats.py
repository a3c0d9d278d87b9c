"""What each ``-o`` format means for each command: the formats, which commands have a table
or names, and which combinations are refused before anything runs. Imported by ``output``
and ``tables`` alike (it imports neither), so the writers and the layouts share it without
importing each other.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["FORMATS", "HUMAN", "NAME_COMMANDS", "SNAPSHOT_COMMANDS", "Shown", "refusal"]

FORMATS = ("json", "yaml", "table", "wide", "name")
# For people: errors go to stderr as a line of text (Manager reads json).
HUMAN = frozenset({"table", "wide", "name"})
# The commands answering with Snapshots: the workload tables (tables.py) and -o wide.
SNAPSHOT_COMMANDS = frozenset({"list", "status", "create", "start", "stop", "reconfigure"})
# The commands -o name means something for: their answer names objects (tables.names).
NAME_COMMANDS = SNAPSHOT_COMMANDS | {"delete", "nodes"}


class Shown(NamedTuple):
    """How the result is shown: the format, and ``--no-headers``."""

    format: str
    headers: bool = True
    prog: str = "kubectl-adapter"  # how the hints name the command (``views.shown_prog``)


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
