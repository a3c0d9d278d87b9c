"""Who reads stdout decides the default view: a program (Manager) gets JSON, a person at a
terminal gets what kubectl would print there.

``list``, ``status``, ``check`` and ``nodes`` print their table on a terminal and JSON on a
pipe (byte for byte what Manager always read), and so do the writes (``create``, ``start``,
``stop``, ``reconfigure``: the workload's row; ``delete``: its result as YAML), whose errors a
person then reads as kubectl's ``Error …`` line on stderr, not as a JSON document on stdout;
``describe`` prints its text everywhere, as
``kubectl describe`` does (``describe … | less`` and ``| grep`` are how people read it),
unless ``-o json|yaml`` asks. A ``--dry-run`` plan stays JSON (``jq -r '.commands[]'``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["TERMINAL_TABLES", "default_format", "is_terminal", "shown_prog", "terminal_columns"]

# The commands whose default on a terminal is their table (``tables.table``; YAML where a
# document has no table).
TERMINAL_TABLES = frozenset(
    {"list", "status", "check", "nodes", "create", "start", "stop", "reconfigure", "delete"}
)


def is_terminal(stream: Any) -> bool:
    """A stdout that is closed or absent is no terminal."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # None (fd closed at start), or closed
        return False


def default_format(command: str, *, dry_run: bool, terminal: bool) -> str:
    """The ``-o`` a command gets when none is given."""
    if dry_run:
        return "json"
    if command == "describe" or (terminal and command in TERMINAL_TABLES):
        return "table"
    return "json"


def shown_prog(prog: str) -> str:
    """How a person typed this command, for the hints it prints: ``kubectl adapter`` when
    kubectl ran it as its plugin, else ``prog``.

    kubectl execs a plugin in its own process with its own environment and the plugin's
    full path as argv[0], so nothing of kubectl's says so; the shell that started kubectl
    does: bash and zsh put the program they ran in ``$_``, and a plugin inherits it."""
    ran = os.path.basename(os.environ.get("_", ""))
    return "kubectl adapter" if ran == "kubectl" else prog


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil (it brings zlib, bz2
    and lzma): argparse sizes a formatter on every ``add_argument``, so building the parser
    would import them before every command's first kubectl."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80
