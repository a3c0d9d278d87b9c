"""The command line: flags, commands and their ``--help`` (words in ``help``).

Building the parser imports nothing heavy; the version is looked up only for ``--version``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from ..contract.errors import InvalidInput
from ..kubectl.bounds import MAX_SECONDS, check_seconds
from . import help_texts as texts
from .output import FORMATS, put, stdout
from .views import terminal_columns

__all__ = ["PROG", "build_parser", "global_options_text", "subcommands"]

PROG = "kubectl-adapter"

# shtab's completers for a file and a directory (``shtab.FILE``, ``shtab.DIRECTORY``), spelt
# out so that building the parser never imports shtab; tests/cli/test_completion.py compares.
FILE = {
    "bash": "_shtab_compgen_files",
    "zsh": "_files",
    "tcsh": "f",
    "fish": "(__fish_complete_path (commandline -ct))",
    "powershell": "_shtab_powershell_compgen_files",
}
DIRECTORY = {
    "bash": "_shtab_compgen_dirs",
    "zsh": "_files -/",
    "tcsh": "d",
    "fish": "(__fish_complete_directories)",
    "powershell": "_shtab_powershell_compgen_dirs",
}
SHELLS = ("bash", "zsh")
# A PROVIDER_ID in bash: kubectl_complete-adapter asks the cluster (completion.provider_ids)
# with the words typed so far; its last line is Cobra's directive, dropped here.
PROVIDER_ID = {
    "bash": "_kubectl_adapter_provider_ids",
    "preamble": {
        "bash": """_kubectl_adapter_provider_ids() {
  command -v kubectl_complete-adapter >/dev/null 2>&1 || return 0
  kubectl_complete-adapter "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$1" 2>/dev/null | sed '$d'
}"""
    },
}


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter (descriptions kept as written), its width found as argparse finds
    it (``views.terminal_columns`` - 2)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """argparse that raises InvalidInput instead of printing usage and exiting 2, naming a
    mistyped command, flag or choice with its close matches (``mistyped``)."""

    def error(self, message: str) -> NoReturn:
        raise InvalidInput(f"{self.prog}: {message}", {"usage": self.format_usage().strip()})

    def format_help(self) -> str:
        """A command's own flags only; the global ones are one line at the end, pointing at
        ``options`` (as kubectl's). They stay parsed and completed: only the help hides them."""
        hidden = [a for a in self._actions if getattr(a, "global_flag", False)]
        saved = [action.help for action in hidden]
        for action in hidden:
            action.help = argparse.SUPPRESS
        try:
            return super().format_help()
        finally:
            for action, text in zip(hidden, saved, strict=True):
                action.help = text

    def _print_message(self, message: str, file: Any = None) -> None:
        """--help and --version on stdout, all of it or an OSError the CLI reports (argparse
        would drop a failed write, or print on stderr when stdout is closed)."""
        if message:
            put(file if file is not None else stdout(), message)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            from .mistyped import invalid_choice

            raise invalid_choice(self, action, value)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        try:
            parsed, extras = self.parse_known_args(argv, namespace)
        except InvalidInput:
            # A flag it does not know makes argparse complain about something else (the
            # word after it taken for the command, a required flag "missing"): say the cause.
            from .mistyped import first_unknown_flag

            found = first_unknown_flag(self, argv)
            if found is not None:
                raise found from None
            raise
        if extras:
            from .mistyped import first_unknown_flag, unknown_flag

            found = first_unknown_flag(self, argv)
            flags = [extra for extra in extras if extra.startswith("-") and len(extra) > 1]
            if found is None and flags:
                command = str(getattr(parsed, "command", None) or "")
                found = unknown_flag(subcommands(self).get(command, self), flags[0])
            if found is not None:
                raise found
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """``mistyped.subcommands``: imported when asked (a mistyped flag, completion), not by
    every command's parser before its first kubectl."""
    from .mistyped import subcommands as found

    return found(parser)


class _Version(argparse._VersionAction):
    """``--version``: the installed distribution's version, read only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        parser._print_message(f"{PROG} {version()}\n", None)
        parser.exit()


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("kubectl-adapter")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _seconds(text: str) -> float:
    """A time flag, as kubectl writes one (``durations``): > 0 and at most a day, refused
    while parsing (before any call), the refusal showing an accepted form."""
    from .durations import seconds_of

    try:
        return check_seconds(seconds_of(text, maximum=MAX_SECONDS))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _global_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default: Any = argparse.SUPPRESS if suppress else None

    def add(*names: str, complete: dict[str, str] | None = None, **kwargs: Any) -> None:
        if suppress:
            kwargs["default"] = argparse.SUPPRESS
        action = parser.add_argument(*names, **kwargs)
        action.global_flag = suppress  # type: ignore[attr-defined]
        if complete is not None:
            action.complete = complete  # type: ignore[attr-defined]

    add(
        "--kubeconfig",
        metavar="PATH",
        default=default,
        complete=FILE,
        help="kubeconfig (else $KUBECONFIG)",
    )
    add("--context", metavar="NAME", default=default, help="kubeconfig context")
    add("-n", "--namespace", metavar="NS", default=default, help="namespace (else context's)")
    add(
        "--kubectl",
        metavar="PATH",
        default=default,
        complete=FILE,
        help="kubectl binary (else on PATH)",
    )
    add(
        "-o",
        "--output",
        metavar="FORMAT",
        choices=FORMATS,
        default=default,
        help=texts.OUTPUT_HELP,
    )
    add(
        "--no-headers",
        action="store_true",
        default=False if not suppress else default,
        help="tables (-o table, -o wide) without their header line, as kubectl's",
    )
    add(
        "--timeout",
        metavar="DURATION",
        type=_seconds,
        default=default,
        help="bound on each wait (5m)",
    )
    add(
        "--request-timeout",
        metavar="DURATION",
        type=_seconds,
        default=default,
        help="kubectl --request-timeout per API request (10s)",
    )
    add(
        "--call-timeout",
        metavar="DURATION",
        type=_seconds,
        default=default,
        help="bound on any kubectl process that is not a wait (1m)",
    )
    add(
        "--deadline",
        metavar="DURATION",
        type=_seconds,
        default=default,
        help="bound on the whole command (reads: --call-timeout; waits: --timeout + 0.5)",
    )
    add(
        "--cache-dir",
        metavar="DIR",
        default=default,
        complete=DIRECTORY,
        help="kubectl --cache-dir",
    )
    add(
        "--provider-ids",
        action="store_true",
        default=False if not suppress else default,
        help="read every NAME as a provider ID, namespace/name, and nothing else (what "
        "Manager passes: a namespace called deployment is never read as the type)",
    )
    add(
        "--node-id",
        metavar="ID",
        default=default,
        help="Manager node ID: only this node's workloads are listed or touched",
    )
    add(
        "-v",
        "--verbose",
        action="count",
        default=0 if not suppress else default,
        help="log every kubectl command and its outcome to stderr as bash you can paste "
        "(-vv: with kubectl's own stderr)",
    )
    add(
        "--dry-run",
        action="store_true",
        default=False if not suppress else default,
        help=texts.DRY_RUN_HELP,
    )


def global_options_text() -> str:
    """``kubectl-adapter options``: the flags every command takes, with their help."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} [options] COMMAND [ARGS]",
        description="The following options can be passed to any command:",
        formatter_class=_Formatter,
        add_help=False,
    )
    _global_options(parser, suppress=False)
    return parser.format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=texts.DESCRIPTION,
        epilog=texts.EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    _global_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def command(name: str) -> argparse.ArgumentParser:
        about = texts.COMMANDS[name]
        sub = commands.add_parser(
            name,
            help=about.summary,
            description=about.summary,
            epilog=texts.command_epilog(name),
            formatter_class=_Formatter,
        )
        _global_options(sub, suppress=True)
        return sub

    def provider_id(sub: argparse.ArgumentParser, *, several: bool = False) -> None:
        action = sub.add_argument(
            "provider_id",
            metavar="NAME",
            nargs="+" if several else None,
            help=texts.NAME_HELP + (" (several: each answered as if alone)" if several else ""),
        )
        action.complete = PROVIDER_ID  # type: ignore[attr-defined]

    def owner(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--container-id",
            metavar="ID",
            help="refuse unless the Deployment belongs to this Manager container",
        )

    def spec(sub: argparse.ArgumentParser) -> None:
        action = sub.add_argument(
            "--spec", required=True, metavar="FILE", help="spec JSON file, or - for stdin"
        )
        action.complete = FILE  # type: ignore[attr-defined]

    def watch(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "-w",
            "--watch",
            action="store_true",
            help="after the current state, a row (on a pipe: a JSON line) each time a "
            "workload changes, until interrupted",
        )
        sub.add_argument(
            "--exit-with-parent",
            action="store_true",
            help="with -w: end as on SIGTERM once stdin closes (the reading program holds it "
            "open; it closes when that program dies, SIGKILL included)",
        )

    def sort_by(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--sort-by",
            metavar="COLUMN",
            help="order by a column of the table (status, age, node-id...) or a JSON path "
            "(.createdAt)",
        )

    spec(command("render"))
    spec(command("create"))
    for name in ("check", "nodes", "list", "capabilities"):
        sub = command(name)
        if name == "nodes":
            sort_by(sub)
        if name != "list":
            continue
        sub.add_argument(
            "-l",
            "--selector",
            metavar="SELECTOR",
            help="label selector, within Manager's workloads (e.g. -l team=ops)",
        )
        sub.add_argument(
            "-A",
            "--all-namespaces",
            action="store_true",
            help="every namespace (needs the optional cluster-wide list: docs/rbac.md)",
        )
        sort_by(sub)
        watch(sub)
    sub = command("status")
    provider_id(sub, several=True)
    watch(sub)
    provider_id(command("describe"), several=True)
    provider_id(command("network"))
    for name in ("start", "stop", "delete"):
        sub = command(name)
        provider_id(sub, several=True)
        owner(sub)
    sub = command("reconfigure")
    provider_id(sub)
    spec(sub)
    sub.add_argument(
        "--rollback-on-failure",
        action="store_true",
        help="on a failed rollout run `kubectl rollout undo` and wait for it",
    )
    command("options")
    command("completion").add_argument("shell", metavar="SHELL", choices=SHELLS, help="bash or zsh")
    return parser
