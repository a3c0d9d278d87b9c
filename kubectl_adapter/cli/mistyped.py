"""Mistyped commands, flags and choices: kubectl's "Did you mean this?", for the adapter.

argparse says ``invalid choice: 'lsit' (choose from …)`` and, for a flag it does not know,
``unrecognized arguments`` (or, when the flag comes before the command, a complaint about the
next word as if it were the command). These helpers name the word that is wrong and the close
matches, for the ``InvalidInput`` the parser raises. Only a failed parse runs them (difflib is
imported then), so a good command line costs nothing more. The parser imports this module,
never the other way round.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import Any

from ..contract.errors import InvalidInput


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser of each command ``parser`` dispatches to (none for a command's own)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def close_matches(word: str, candidates: Iterable[str]) -> list[str]:
    """The candidates ``word`` was probably meant as: close spellings, then longer words it
    starts (``sta`` -> ``start``, ``status``), at most three."""
    import difflib

    # Compared without the dashes every flag shares, which would make any two flags close.
    pool = {candidate.lstrip("-"): candidate for candidate in sorted(set(candidates))}
    stem = word.split("=", 1)[0].lstrip("-")
    found = [pool[c] for c in difflib.get_close_matches(stem, pool, n=3, cutoff=0.7)]
    if len(stem) >= 2:
        found += [pool[c] for c in pool if c.startswith(stem) and pool[c] not in found]
    return [c for c in found if c.lstrip("-") != stem][:3]


def _hint(suggestions: Sequence[str]) -> str:
    return f" (did you mean {' or '.join(suggestions)}?)" if suggestions else ""


def invalid_choice(
    parser: argparse.ArgumentParser, action: argparse.Action, value: Any
) -> InvalidInput:
    """A word that is not one of the choices: a command, an ``-o`` format, a shell."""
    choices = [str(choice) for choice in action.choices or ()]
    suggestions = close_matches(str(value), choices)
    if isinstance(action, argparse._SubParsersAction):
        message = f'unknown command "{value}" for "{parser.prog}"'
    else:
        name = "/".join(action.option_strings) or action.metavar or action.dest
        listed = ", ".join(choices)
        message = f"{parser.prog}: {name}: invalid value {str(value)!r} (choose from {listed})"
    return InvalidInput(
        message + _hint(suggestions),
        {"usage": parser.format_usage().strip(), "unknown": str(value), "suggestions": suggestions},
    )


def unknown_flag(parser: argparse.ArgumentParser, flag: str) -> InvalidInput:
    """A flag that this command does not have."""
    name = flag.split("=", 1)[0]
    suggestions = close_matches(name, options(parser))
    return InvalidInput(
        f"{parser.prog}: unknown flag: {name}{_hint(suggestions)}",
        {"usage": parser.format_usage().strip(), "unknown": name, "suggestions": suggestions},
    )


def options(parser: argparse.ArgumentParser) -> list[str]:
    """The long flags ``parser`` accepts (its own and the global ones)."""
    return [option for option in parser._option_string_actions if option.startswith("--")]


def first_unknown_flag(parser: argparse.ArgumentParser, argv: Sequence[str]) -> InvalidInput | None:
    """The first long flag in ``argv`` that the command it belongs to does not know, before
    argparse reads the word after it as a value or the command (``--node-idd 7 list``).

    A flag belongs to the parser of where it stands: before the command the top level's, after
    it the command's (which has the global flags too). A prefix argparse would expand (``--node``
    for ``--node-id``) is known; an ambiguous one is left to argparse to say so.
    """
    commands = subcommands(parser)
    current = parser
    takes_value = False
    for word in argv:
        if takes_value:
            takes_value = False
            continue
        if word == "--":
            return None
        if word.startswith("--"):
            name, equals, _ = word.partition("=")
            known = [option for option in options(current) if option.startswith(name)]
            if not known:
                return unknown_flag(current, word)
            action = current._option_string_actions.get(name)
            if action is None and len(known) == 1:
                action = current._option_string_actions[known[0]]
            takes_value = action is not None and action.nargs != 0 and not equals
        elif word.startswith("-") and len(word) > 1:
            action = current._option_string_actions.get(word[:2])
            takes_value = action is not None and action.nargs != 0 and len(word) == 2
        elif current is parser and word in commands:
            current = commands[word]
    return None


def usage_text(message: str, details: dict[str, Any], prog: str) -> str:
    """A usage error for a person at a terminal, as kubectl says it: the error, the close
    matches ("Did you mean this?"), the usage when there are none, where to read more."""
    suggestions = list(details.get("suggestions") or ())
    hint = _hint(suggestions)
    if hint and message.endswith(hint):
        message = message[: -len(hint)]
    usage = str(details.get("usage") or "")
    # "usage: kubectl-adapter list [-h] ...": the command the usage is about
    words = usage.removeprefix("usage: ").split(" [", 1)[0].split()
    command = " ".join(word for word in words if not word.startswith(("-", "<"))) or prog
    command = command.split(" COMMAND", 1)[0]
    lines = [f"error: {message.removeprefix(f'{command}: ').removeprefix(f'{prog}: ')}"]
    if suggestions:
        lines += ["", "Did you mean this?", *(f"\t{s}" for s in suggestions), ""]
    elif usage:
        lines += ["", usage, ""]
    lines.append(f"Run '{command} --help' for usage and examples.")
    return "\n".join(lines) + "\n"
