"""``cli.mistyped``: a mistyped command, flag or choice is named, with its close matches
(kubectl's "Did you mean this?"), in the InvalidInput the parser raises."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli.mistyped import close_matches, options, usage_text
from kubectl_adapter.cli.parser import build_parser
from kubectl_adapter.contract.errors import InvalidInput

PARSER = build_parser()
COMMANDS: dict[str, argparse.ArgumentParser] = next(
    dict(a.choices)  # type: ignore[arg-type]
    for a in PARSER._actions
    if isinstance(a, argparse._SubParsersAction)
)
FLAGS = sorted({flag for sub in [PARSER, *COMMANDS.values()] for flag in options(sub)})


def refused(*argv: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        build_parser().parse_args(list(argv))
    return caught.value


@pytest.mark.parametrize(
    ("argv", "message", "suggestions"),
    [
        (["lsit"], 'unknown command "lsit" for "kubectl-adapter" (did you mean list?)', ["list"]),
        (["-n", "manager", "statsu", "a/b"], None, ["status", "start"]),
        (["sta"], None, ["start", "status"]),
        (["frobnicate"], 'unknown command "frobnicate" for "kubectl-adapter"', []),
        # before the command: argparse took "7" for the command and said so
        (
            ["--node-idd", "7", "list"],
            "kubectl-adapter: unknown flag: --node-idd (did you mean --node-id?)",
            ["--node-id"],
        ),
        (["list", "--node-idd=7"], "kubectl-adapter list: unknown flag: --node-idd", ["--node-id"]),
        # argparse said the required --spec was missing
        (["create", "--spce", "examples/nginx.json"], None, ["--spec"]),
        (["--kubconfig", "kc", "list"], None, ["--kubeconfig"]),
        (["list", "--spec", "x"], "kubectl-adapter list: unknown flag: --spec", []),
        (["list", "-x"], "kubectl-adapter list: unknown flag: -x", []),
        (["list", "-o", "tabel"], None, ["table"]),
        (["completion", "bsh"], None, ["bash"]),
    ],
)
def test_the_mistake_is_named_with_its_close_matches(
    argv: list[str], message: str | None, suggestions: list[str]
) -> None:
    error = refused(*argv)
    assert error.details["suggestions"] == suggestions
    if message is not None:
        hint = f" (did you mean {' or '.join(suggestions)}?)" if suggestions else ""
        assert error.message == message.removesuffix(hint) + hint
    assert error.details["usage"].startswith("usage: kubectl-adapter")


@pytest.mark.parametrize(
    "argv",
    [
        ["--node", "7", "list"],  # a prefix argparse expands
        ["-n", "list", "list"],  # a namespace named like a command
        ["-vv", "-otable", "--dry-run", "status", "ns/web-1"],
        ["status", "--", "ns/web-1"],
        ["list", "--namespace=ns", "--output", "yaml"],
    ],
)
def test_good_command_lines_still_parse(argv: list[str]) -> None:
    assert build_parser().parse_args(argv).command in COMMANDS


def test_the_document_carries_the_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--node-idd", "7", "list"]) == 2
    out, err = capsys.readouterr()
    error = json.loads(out)["error"]
    assert (error["type"], error["details"]["suggestions"], err) == (
        "InvalidInput",
        ["--node-id"],
        "",
    )


def test_close_matches_compare_flags_without_their_dashes() -> None:
    assert close_matches("--spce", FLAGS) == ["--spec"]  # not --namespace: "--" is shared
    assert close_matches("--timout", FLAGS) == ["--timeout"]
    assert close_matches("--ver", FLAGS) == ["--verbose", "--version"]  # words it starts
    assert close_matches("--v", FLAGS) == []  # a one-letter start says too little
    assert close_matches("xyz", COMMANDS) == []


def test_usage_text_is_kubectls_wording() -> None:
    error = refused("list", "-o", "tabel")
    text = usage_text(error.message, error.details, "kubectl-adapter")
    assert text == (
        "error: -o/--output: invalid value 'tabel' (choose from json, yaml, table, wide, name)\n\n"
        "Did you mean this?\n\ttable\n\n"
        "Run 'kubectl-adapter list --help' for usage and examples.\n"
    )


WORDS = st.one_of(
    st.sampled_from([*COMMANDS, *FLAGS, "-n", "-o", "-v", "-vv", "--", "-", "ns/web-1", "json"]),
    st.text(alphabet="-=abcdeilnopstuvx/", min_size=1, max_size=12),
)


# No deadline: the first examples build the parser and import difflib, slow on a loaded machine.
@settings(deadline=None)
@given(st.lists(WORDS, max_size=6))
def test_any_command_line_parses_or_is_invalid_input(argv: list[str]) -> None:
    """Never another exception; what is suggested is always a real command, flag or choice."""
    try:
        build_parser().parse_args(argv)
    except InvalidInput as error:
        known: set[Any] = {*COMMANDS, *FLAGS, "json", "yaml", "table", "bash", "zsh"}
        assert set(error.details.get("suggestions", [])) <= known, error.details
        assert "usage" in error.details or error.details.get("field") == "namespace"
    except SystemExit:  # --help, --version: printed
        pass
