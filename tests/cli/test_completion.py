"""Shell completion: the generated bash and zsh scripts, and kubectl's plugin completion.

The bash script is sourced into a real bash and asked to complete, the way bash does on TAB
(COMP_WORDS, COMP_CWORD). ``kubectl adapter <TAB>`` goes through the real kubectl, which
finds ``kubectl_complete-adapter`` on PATH. zsh is not installed here: its script is
checked for every command and flag instead.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import shtab

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli import parser as cli_parser
from kubectl_adapter.cli.completion import (
    DEFAULT,
    FILTER_DIRS,
    NO_FILE,
    candidates,
    cobra_lines,
    kubectl_complete,
)
from kubectl_adapter.cli.help_texts import COMMANDS
from kubectl_adapter.cli.parser import build_parser

BIN = Path(sys.executable).parent
COMMAND_NAMES = list(COMMANDS)


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["completion", shell]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def bash_complete(script_path: Path, line: str, function: str, setup: str = "") -> list[str]:
    """What bash offers for ``line`` (completing its last word), as on a TAB."""
    words = shlex.split(line) + ([""] if line.endswith(" ") else [])
    previous = words[-2] if len(words) > 1 else ""
    call = " ".join(shlex.quote(w) for w in (words[0], words[-1], previous))
    program = f"""
{setup}
source {shlex.quote(str(script_path))}
COMP_WORDS=({" ".join(shlex.quote(w) for w in words)})
COMP_CWORD={len(words) - 1}
COMP_LINE={shlex.quote(line)}
COMP_POINT=${{#COMP_LINE}}
{function} {call}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    # A TAB in a terminal-less bash: no width. kubectl's script lays out descriptions beside
    # the words when $COLUMNS is set (pytest-xdist's workers set COLUMNS=80, so may a shell).
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [word.strip() for word in proc.stdout.splitlines() if word.strip()]


@pytest.fixture
def bash_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "kubectl-adapter.bash"
    path.write_text(script("bash", capsys), encoding="utf-8")
    return path


def test_the_file_completers_are_shtabs() -> None:
    assert cli_parser.FILE == shtab.FILE
    assert cli_parser.DIRECTORY == shtab.DIRECTORY


def test_both_scripts_name_every_command_and_flag(capsys: pytest.CaptureFixture[str]) -> None:
    bash, zsh = script("bash", capsys), script("zsh", capsys)
    assert "complete -o bashdefault -F _shtab_kubectl_adapter kubectl-adapter" in bash
    assert zsh.startswith("#compdef kubectl-adapter")
    for name in COMMAND_NAMES:
        assert name in bash and name in zsh
    for flag in ("--kubeconfig", "--namespace", "--output", "--dry-run", "--rollback-on-failure"):
        assert flag in bash and flag in zsh
    assert "json" in zsh and "table" in zsh


def test_bash_syntax(bash_script: Path) -> None:
    proc = subprocess.run(["bash", "-n", str(bash_script)], capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("kubectl-adapter st", ["status", "start", "stop"]),
        ("kubectl-adapter re", ["render", "reconfigure"]),
        ("kubectl-adapter de", ["describe", "delete"]),
        ("kubectl-adapter list --no-h", ["--no-headers"]),
        ("kubectl-adapter -n manager li", ["list"]),
        ("kubectl-adapter list -o ", ["json", "yaml", "table", "wide", "name"]),
        ("kubectl-adapter -o t", ["table"]),
        ("kubectl-adapter stop --containe", ["--container-id"]),
        ("kubectl-adapter reconfigure --roll", ["--rollback-on-failure"]),
        ("kubectl-adapter completion ", ["bash", "zsh"]),
    ],
)
def test_bash_completes(bash_script: Path, line: str, offered: list[str]) -> None:
    assert sorted(bash_complete(bash_script, line, "_shtab_kubectl_adapter")) == sorted(offered)


def test_bash_completes_spec_file_names(bash_script: Path, tmp_path: Path) -> None:
    (tmp_path / "web-1.json").write_text("{}")
    line = f"kubectl-adapter create --spec {tmp_path}/web"
    assert bash_complete(bash_script, line, "_shtab_kubectl_adapter") == [f"{tmp_path}/web-1.json"]


# -- kubectl's plugin completion -----------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "found", "directive"),
    [
        ([""], [f"{n}\t{c.summary}" for n, c in COMMANDS.items()], NO_FILE),
        (["st"], ["status", "start", "stop"], NO_FILE),
        (["-n", "manager", "li"], ["list"], NO_FILE),
        (["--kubeconfig", "/k", "--context", "c", "del"], ["delete"], NO_FILE),
        (["list", "-o", ""], ["json", "yaml", "table", "wide", "name"], NO_FILE),
        (["-o", "w"], ["wide"], NO_FILE),
        (["d"], ["describe", "delete"], NO_FILE),
        (["describe", ""], [], NO_FILE),
        (["list", "--no-"], ["--no-headers"], NO_FILE),
        (["list", "--output", "y"], ["yaml"], NO_FILE),
        (["--output=t"], ["--output=table"], NO_FILE),
        (["-o"], ["-o"], NO_FILE),
        (["create", "--spec", ""], [], DEFAULT),
        (["--kubeconfig", ""], [], DEFAULT),
        (["--cache-dir", ""], [], FILTER_DIRS),
        (["-n", ""], [], NO_FILE),
        (["status", ""], [], NO_FILE),
        (["status", "ns/web-1", ""], [], NO_FILE),
        (["completion", ""], ["bash", "zsh"], NO_FILE),
        (["stop", "--cont"], ["--context", "--container-id"], NO_FILE),
        (["--bogus=x"], [], NO_FILE),
    ],
)
def test_candidates(words: list[str], found: list[str], directive: int) -> None:
    got, got_directive = candidates(build_parser(), words)
    assert [g.split("\t")[0] for g in got] == [f.split("\t")[0] for f in found]
    if any("\t" in f for f in found):
        assert got == found
    assert got_directive == directive


def test_flags_come_with_their_help() -> None:
    got, _ = candidates(build_parser(), ["list", "--dry"])
    assert got == [
        "--dry-run\twrite nothing: print the kubectl commands the run would execute (an..."
    ]


def test_cobra_format() -> None:
    assert cobra_lines(["a\tx", "b"], NO_FILE) == "a\tx\nb\n:4\n"
    assert cobra_lines([], DEFAULT) == ":0\n"


def test_entry_point_prints_cobra_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert kubectl_complete(["list", "-o", ""]) == 0
    assert capsys.readouterr().out == "json\nyaml\ntable\nwide\nname\n:4\n"


def test_the_executable_is_installed_beside_the_plugin() -> None:
    helper = BIN / "kubectl_complete-adapter"
    assert os.access(helper, os.X_OK)
    assert os.access(BIN / "kubectl-adapter", os.X_OK)
    proc = subprocess.run([str(helper), "st"], capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines()[-1] == ":4"


def _kubectl() -> str:
    found = shutil.which("kubectl")
    assert found is not None, "the e2e tests need kubectl on PATH"
    return found


@pytest.mark.parametrize(
    ("typed", "offered"),
    [
        (["adapter", "st"], ["status", "start", "stop"]),
        (["adapter", "-n", "manager", "list", "-o", ""], ["json", "yaml", "table", "wide", "name"]),
        (["adapter", "de"], ["describe", "delete"]),
        (["adapter", "completion", "z"], ["zsh"]),
    ],
)
def test_kubectl_completes_the_plugin(typed: list[str], offered: list[str]) -> None:
    """kubectl's own ``__complete`` (what its bash, zsh and fish scripts call on TAB) runs
    ``kubectl_complete-adapter`` from PATH and relays its answer."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [_kubectl(), "__complete", *typed],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    *lines, directive = proc.stdout.splitlines()
    assert [line.split("\t")[0] for line in lines] == offered
    assert directive == ":4"


# kubectl's bash script reads the words with bash-completion's _get_comp_words_by_ref.
# bash-completion is not installed here; this stands in for it with what that function
# does for kubectl's call (`-n =: cur prev words cword`, no word splitting at = or :).
GET_COMP_WORDS = """
_get_comp_words_by_ref() {
  while [[ $1 == -* ]]; do shift 2; done
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  words=("${COMP_WORDS[@]}")
  cword=$COMP_CWORD
}
"""


def test_bash_completes_kubectl_adapter(tmp_path: Path) -> None:
    """`kubectl adapter st<TAB>` in bash, through kubectl's own completion script."""
    kubectl_script = tmp_path / "kubectl.bash"
    proc = subprocess.run(
        [_kubectl(), "completion", "bash"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    kubectl_script.write_text(proc.stdout, encoding="utf-8")
    offered = bash_complete(kubectl_script, "kubectl adapter st", "__start_kubectl", GET_COMP_WORDS)
    assert sorted(offered) == ["start", "status", "stop"]
    offered = bash_complete(
        kubectl_script,
        "kubectl adapter -n manager list --output ",
        "__start_kubectl",
        GET_COMP_WORDS,
    )
    assert sorted(offered) == ["json", "name", "table", "wide", "yaml"]


# -- provider IDs from the cluster ---------------------------------------------------------


def test_a_provider_id_slot_asks_the_lookup_with_the_words_typed() -> None:
    seen: list[list[str]] = []

    def lookup(words: Any) -> list[str]:
        seen.append(list(words))
        return ["ns/web-1", "ns/web-2", "ns/db"]

    parser = build_parser()
    assert candidates(parser, ["-n", "ns", "status", "ns/w"], lookup) == (
        ["ns/web-1", "ns/web-2"],
        NO_FILE,
    )
    assert seen == [["-n", "ns", "status"]]
    assert candidates(parser, ["describe", "ns/d"], lookup) == (["ns/db"], NO_FILE)
    assert candidates(parser, ["list", ""], lookup) == ([], NO_FILE)  # no slot: not asked
    # status takes several names (as kubectl): each is completed, the same lookup asked
    assert candidates(parser, ["status", "ns/db", "ns/w"], lookup) == (
        ["ns/web-1", "ns/web-2"],
        NO_FILE,
    )
    assert candidates(parser, ["network", "ns/db", ""], lookup) == ([], NO_FILE)  # one name
    assert len(seen) == 3


@pytest.fixture(scope="module")
def workloads(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A fake cluster holding two Manager workloads (nodes 7 and 8) and one other Deployment."""
    import json

    from tests.fakecluster import FakeCluster

    workdir = tmp_path_factory.mktemp("complete")
    with FakeCluster(
        workdir / "fake", namespaces=("default", "testns"), default_namespace="testns"
    ) as fake:
        kubeconfig = str(fake.kubeconfig)
        for name, node in (("web-1", "7"), ("web-2", "8")):
            spec = {"containerId": f"c-{name}", "nodeId": node, "hostname": name}
            spec |= {"image": "nginx:latest", "cpus": 0.1, "memoryMb": 64}
            render = subprocess.run(
                [sys.executable, "-m", "kubectl_adapter", "-n", "testns", "render", "--spec", "-"],
                input=json.dumps(spec),
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            )
            subprocess.run(
                [_kubectl(), "--kubeconfig", kubeconfig, "apply", "-f", "-"],
                input=render.stdout,
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            )
        other = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "not-managed", "namespace": "testns"},
            "spec": {
                "selector": {"matchLabels": {"app": "x"}},
                "template": {
                    "metadata": {"labels": {"app": "x"}},
                    "spec": {"containers": [{"name": "x", "image": "nginx"}]},
                },
            },
        }
        subprocess.run(
            [_kubectl(), "--kubeconfig", kubeconfig, "apply", "-f", "-"],
            input=json.dumps(other),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        yield kubeconfig


def test_provider_ids_are_manager_workloads_where_the_flags_point(workloads: str) -> None:
    from kubectl_adapter.cli.completion import provider_ids

    assert provider_ids(["--kubeconfig", workloads, "-n", "testns"]) == [
        "testns/web-1",
        "testns/web-2",
    ]
    assert provider_ids([f"--kubeconfig={workloads}", "--node-id", "8", "status"]) == [
        "testns/web-2"
    ]
    assert provider_ids(["--kubeconfig", workloads, "-n", "default"]) == []
    assert provider_ids(["--kubeconfig", "/nonexistent/kubeconfig"]) == []


def test_kubectl_adapter_tab_lists_the_workloads(workloads: str) -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [_kubectl(), "__complete", "adapter", "--kubeconfig", workloads, "stop", "testns/web"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["testns/web-1", "testns/web-2", ":4"]


def test_bash_completes_provider_ids(bash_script: Path, workloads: str) -> None:
    line = f"kubectl-adapter --kubeconfig {workloads} --node-id 7 status testns/"
    assert bash_complete(bash_script, line, "_shtab_kubectl_adapter") == ["testns/web-1"]
