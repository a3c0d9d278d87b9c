"""``--help``, ``--version`` and a bare ``kubectl-adapter``: what a person gets first."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli.help_texts import COMMANDS
from kubectl_adapter.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
CLI_MD = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
SPEC_COMMANDS = ("render", "create", "reconfigure")


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert cli.main([*argv, "--help"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def subcommands() -> list[str]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return list(action.choices)  # type: ignore[arg-type]


def test_every_command_has_words() -> None:
    assert sorted(subcommands()) == sorted(COMMANDS)


def test_bare_command_prints_the_help_not_a_json_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main([]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("usage: kubectl-adapter ")
    assert "{" not in out.splitlines()[0] and err == ""
    for name in COMMANDS:
        assert re.search(rf"^    {name} ", out, re.M), name


def test_bare_console_script_prints_the_usage() -> None:
    script = Path(sys.executable).with_name("kubectl-adapter")
    proc = subprocess.run([str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: kubectl-adapter ")
    assert "examples:" in proc.stdout and '"error"' not in proc.stdout


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert cli.main(["--version"]) == 0
    out, err = capsys.readouterr()
    assert out == f"kubectl-adapter {version('kubectl-adapter')}\n"
    assert err == ""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{version("kubectl-adapter")}"' in pyproject


def test_top_level_help_points_the_way(capsys: pytest.CaptureFixture[str]) -> None:
    out = help_of(capsys)
    assert "kubectl-adapter -n manager create --spec examples/nginx.json" in out
    assert "kubectl adapter -n manager list" in out  # flags after the plugin's name
    assert "not: kubectl -n manager adapter list" in out
    assert "docs/cli.md" in out
    assert "10 RolloutFailed" in out and "9  ConfigurationError" in out
    assert "completion" in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_help_has_an_example_exit_codes_and_docs(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    out = help_of(capsys, name)
    assert "examples:\n" in out
    examples = out.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert examples and all(
        line.lstrip().startswith(("kubectl-adapter", "source")) for line in examples
    )
    assert any(f"kubectl-adapter {name}" in line or f" {name} " in line for line in examples)
    assert "docs/cli.md" in out
    if name != "completion":
        assert "exit codes:" in out and "3  NotFound" in out
    if name in SPEC_COMMANDS:
        assert "docs/schema/spec.json" in out
        assert '"hostname": "web-1"' in out and "memoryMb" in out
    else:
        assert "docs/schema/spec.json" not in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_example_parses(name: str) -> None:
    """The examples are real command lines: this parser accepts every one of them."""
    import shlex

    for example in COMMANDS[name].examples:
        line = example.split("#")[0].replace("<(", "").replace(")", "")
        words = shlex.split(line)
        words = words[words.index("kubectl-adapter") + 1 :]
        cut = [i for i, w in enumerate(words) if w.startswith(("<", ">", "|"))]
        args = build_parser().parse_args(words[: cut[0]] if cut else words)
        assert args.command == name


def test_dry_run_help_says_it_still_reads(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["options"]) == 0  # the global flags' help: kubectl-adapter options
    out = " ".join(capsys.readouterr().out.split())
    assert "run nothing; print" not in out
    assert "still run one read, `kubectl get deployment`" in out


def test_the_schema_the_help_points_to_exists() -> None:
    assert (ROOT / "docs" / "schema" / "spec.json").is_file()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_docs_list_every_command(name: str) -> None:
    assert f"`{name}" in CLI_MD


def test_docs_list_every_global_flag() -> None:
    parser = build_parser()
    for action in parser._actions:
        for option in action.option_strings:
            if option.startswith("--") and option != "--help":
                assert f"`{option}" in CLI_MD or f", {option}" in CLI_MD, option


def on_a_terminal(*argv: str, stdout_too: bool = True) -> tuple[int, str, str]:
    """The CLI with stderr (and stdout, unless ``stdout_too`` is False) on a pseudo-terminal:
    its exit code, what a pipe on stdout got, and all the terminal received."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", *argv],
        stdout=slave if stdout_too else subprocess.PIPE,
        stderr=slave,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "TERM": "xterm"},
        check=False,
    )
    os.close(slave)
    received = b""
    while True:  # the child has exited: read what the terminal holds, then EIO
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return proc.returncode, proc.stdout or "", received.decode().replace("\r\n", "\n")


def test_a_mistyped_command_at_a_terminal_gets_one_message_as_kubectl_words_it() -> None:
    """Both the JSON error and the usage were printed; now one message, kubectl's way (its
    tab shown as the terminal shows it: stderr writes no control character but the line end)."""
    code, _, terminal = on_a_terminal("lsit")
    assert code == 2
    assert terminal == (
        'error: unknown command "lsit" for "kubectl-adapter"\n\n'
        "Did you mean this?\n        list\n\n"
        "Run 'kubectl-adapter --help' for usage and examples.\n"
    )
    code, _, terminal = on_a_terminal("--node-idd", "7", "list", "-o", "table")
    assert code == 2
    assert terminal.startswith(
        "error: unknown flag: --node-idd\n\nDid you mean this?\n        --node-id\n"
    )
    # nothing close to say: the usage of the command instead
    code, _, terminal = on_a_terminal("create")
    assert code == 2 and "{" not in terminal
    assert terminal.startswith("error: the following arguments are required: --spec\n\nusage: ")
    assert terminal.endswith("Run 'kubectl-adapter create --help' for usage and examples.\n")


def test_a_mistyped_command_read_by_a_program_gets_the_json_document_only() -> None:
    """Manager reads stdout: the error document, with the suggestions, and nothing else."""
    code, out, terminal = on_a_terminal("lsit", stdout_too=False)
    assert (code, terminal) == (2, "")
    error = json.loads(out)["error"]
    assert error["type"] == "InvalidInput"
    assert error["message"] == 'unknown command "lsit" for "kubectl-adapter" (did you mean list?)'
    assert error["details"]["suggestions"] == ["list"] and error["details"]["unknown"] == "lsit"
    assert error["details"]["usage"].startswith("usage: kubectl-adapter ")

    piped = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "frobnicate"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert piped.returncode == 2 and piped.stderr == ""
    assert json.loads(piped.stdout)["error"]["details"]["suggestions"] == []
