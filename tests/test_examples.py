"""What the help and docs/cli.md show is what the CLI does: every example runs.

The examples are found, not listed here, so a command or a doc section added later is run too:

- **``--help``**: the ``examples:`` lines of the top-level help and of every command's help
  (``build_parser``), run from the repository's root (their ``examples/`` files exist) against
  a fresh fake cluster, as bash, in a workload's lifecycle order (create before the reads,
  stop/start/reconfigure after them, delete last; a command this file does not know goes
  with the reads). Each must succeed and print its document: JSON that is not an error,
  YAML, a table, the manifest, a help text or a completion script. A zsh line runs in bash
  with ``fpath`` set to a temporary directory. The spec block's resource line is checked
  against what ``render`` makes of the spec shown above it.
- **docs/cli.md** and the **README**: every fenced block holding ``$ `` lines (each
  document on a fresh cluster). Each ``$ COMMAND`` is run as
  bash, in document order, on one fresh fake cluster (``./dev cluster``'s namespaces), on a
  pseudo-terminal as a person sees it (stdout and stderr; the progress line erased), and the
  lines after it, up to the next ``$`` or the block's end, must be what it printed. Compared
  word by word (column widths may differ), where IP addresses, ages (``12s``, ``3h``,
  ``4m59s``), uids and timestamps stand for any value of their kind. Shown output starting
  with ``error``/``Error`` means a non-zero exit, anything else zero. A line ending in
  ``<TAB>`` shows what completion offers: it runs ``kubectl __complete`` with the words
  typed, as the shell does, and compares the offered words.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shlex
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

from kubectl_adapter.cli.parser import build_parser
from tests.fakecluster import FakeCluster

ROOT = Path(__file__).resolve().parents[1]
CLI_MD = ROOT / "docs" / "cli.md"
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not on PATH")


class Example(NamedTuple):
    where: str  # "docs/cli.md:112", "create --help"
    command: str  # a line of bash
    shown: list[str]  # the output the doc shows (help examples show none)


# -- finding the examples ---------------------------------------------------------------------

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```")


def doc_examples(path: Path) -> list[Example]:
    """Each ``$ `` line of a fenced block in ``path``, with the lines that follow it."""
    examples: list[Example] = []
    block: list[tuple[int, str]] | None = None
    indent = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = _FENCE.match(line)
        if fence is not None:
            if block is None:
                block, indent = [], fence["indent"]
            else:
                examples += _block_examples(path, block)
                block = None
            continue
        if block is not None:
            block.append((number, line.removeprefix(indent)))
    assert block is None, f"{path}: a fenced block is not closed"
    return examples


def _block_examples(path: Path, block: list[tuple[int, str]]) -> list[Example]:
    found: list[Example] = []
    for number, line in block:
        if line.startswith("$ "):
            found.append(Example(f"{path.relative_to(ROOT)}:{number}", line[2:], []))
        elif found:
            found[-1].shown.append(line)
    for example in found:
        while example.shown and not example.shown[-1].strip():
            example.shown.pop()
    return found


def help_examples() -> list[Example]:
    """The ``examples:`` lines of the top-level help and of every command's help."""
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    helps = {"--help": parser.format_help()}
    for name, sub in commands.choices.items():  # type: ignore[union-attr]
        helps[f"{name} --help"] = sub.format_help()
    examples = []
    for where, text in helps.items():
        assert "\nexamples:\n" in text, f"{where} shows no example"
        section = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
        examples += [Example(where, line.strip(), []) for line in section.splitlines()]
    return examples


# Create first, then the reads, then what changes the workload, delete last.
LIFECYCLE = ["render", "create", "check", "nodes", "list", "capabilities", "status", "network"]
LIFECYCLE_END = ["stop", "start", "reconfigure", "delete", "completion"]


def command_of(line: str) -> str:
    commands = set(LIFECYCLE + LIFECYCLE_END) | set(_subcommands())
    after = line.split("kubectl-adapter", 1)[1].split("#", 1)[0]
    return next((w for w in re.findall(r"[\w-]+", after) if w in commands), "")


def _subcommands() -> list[str]:
    (commands,) = [a for a in build_parser()._actions if a.dest == "command"]
    return list(commands.choices)  # type: ignore[arg-type]


def lifecycle_order(example: Example) -> int:
    name = command_of(example.command)
    if name in LIFECYCLE:
        return LIFECYCLE.index(name)
    if name in LIFECYCLE_END:
        return len(LIFECYCLE) + 1 + LIFECYCLE_END.index(name)
    return len(LIFECYCLE)  # a command added later: with the reads, while the workload exists


# -- comparing --------------------------------------------------------------------------------

VOLATILE = [
    ("<uid>", r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
    ("<time>", r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b"),
    ("<ip>", r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b"),
    ("<age>", r"\b\d+(?:d\d+h|h\d+m|m\d+s|[dhs])\b"),
    ("<pod>", r"\b(?P<base>[a-z0-9-]+)-[a-z0-9]{6,10}-[a-z0-9]{5}\b"),
]


def words(line: str) -> list[str]:
    """A line as words, each volatile value replaced by the name of its kind."""
    for kind, pattern in VOLATILE:
        replacement = rf"\g<base>-{kind}" if "?P<base>" in pattern else kind
        line = re.sub(pattern, replacement, line)
    return line.split()


def screen(raw: bytes) -> list[str]:
    """What a terminal shows of ``raw``: each carriage return starts the line over (the
    progress line is drawn and erased that way), escape sequences draw nothing."""
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = [
        re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line.rsplit("\r", 1)[-1]) for line in text.split("\n")
    ]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


# -- running ----------------------------------------------------------------------------------


class Ran(NamedTuple):
    code: int
    lines: list[str]


def environment(fc: FakeCluster, tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "VIRTUAL_ENV")}
    env.update(
        KUBECONFIG=str(fc.kubeconfig),
        KUBECACHEDIR=str(tmp / "kube-cache"),
        PATH=f"{VENV_BIN}{os.pathsep}{env['PATH']}",  # kubectl-adapter, kubectl_complete-adapter
        TERM="xterm",
    )
    return env


def on_a_terminal(line: str, env: dict[str, str]) -> Ran:
    """``line`` run by bash with stdout and stderr on a pseudo-terminal (200 columns)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    proc = subprocess.Popen(
        ["bash", "-c", line],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=env,
    )
    os.close(slave)
    received = b""
    deadline = time.monotonic() + 120
    exited = False
    while time.monotonic() < deadline:
        # Once bash has exited, what it wrote is all in the terminal: read it to the end.
        ready, _, _ = select.select([master], [], [], 0 if exited else 1)
        if not ready:
            if exited:
                break
            exited = proc.poll() is not None
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return Ran(proc.wait(timeout=30), screen(received))


def completed(line: str, env: dict[str, str]) -> list[str]:
    """What ``kubectl adapter … <TAB>`` offers: kubectl's completion (Cobra's ``__complete``,
    which the shell script runs) given the words typed, the last one possibly partial."""
    typed = line.removesuffix("<TAB>")
    args = shlex.split(typed)
    assert args[:2] == ["kubectl", "adapter"], line
    partial = "" if typed.endswith(" ") else args.pop()
    proc = subprocess.run(
        ["kubectl", "__complete", *args[1:], partial],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=True,
    )
    offered = proc.stdout.splitlines()[:-1]  # the last line is Cobra's directive, ":4"
    return sorted(word.split("\t", 1)[0] for word in offered if word)


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    # What `./dev cluster` serves: default and manager, the context's namespace.
    with FakeCluster(
        tmp_path_factory.mktemp("examples") / "fake",
        namespaces=("default", "manager"),
        default_namespace="manager",
    ) as fc:
        yield fc


def fresh(fc: FakeCluster) -> None:
    """Each list of examples starts from an empty namespace."""
    for deployment in fc.list("deployments", "manager"):
        fc.delete_object("deployments", "manager", deployment["metadata"]["name"])
    for _ in range(100):
        if not fc.list("pods", "manager"):
            return
        time.sleep(0.1)
    raise AssertionError("the fake did not clear the manager namespace")


@pytest.mark.parametrize("document", [CLI_MD, README], ids=lambda p: p.name)
def test_every_example_in_the_docs_prints_what_it_shows(
    fake: FakeCluster, tmp_path: Path, document: Path
) -> None:
    fresh(fake)
    env = environment(fake, tmp_path)
    examples = doc_examples(document)
    assert len(examples) >= 5, examples
    for example in examples:
        if example.command.endswith("<TAB>"):
            offered = completed(example.command, env)
            shown = sorted(w for line in example.shown for w in line.split())
            assert offered == shown, (example.where, example.command, offered)
            continue
        ran = on_a_terminal(example.command, env)
        failing = bool(example.shown) and example.shown[0].lower().startswith("error")
        assert (ran.code != 0) == failing, (example.where, example.command, ran)
        printed = [words(line) for line in ran.lines]
        documented = [words(line) for line in example.shown]
        assert printed == documented, (
            f"{example.where}: `{example.command}` printed\n"
            + "\n".join(ran.lines)
            + "\n-- where the doc shows --\n"
            + "\n".join(example.shown)
        )


def test_every_help_example_runs(fake: FakeCluster, tmp_path: Path) -> None:
    fresh(fake)
    env = environment(fake, tmp_path)
    fpath = tmp_path / "zsh-functions"
    fpath.mkdir()
    examples = sorted(help_examples(), key=lifecycle_order)
    assert {command_of(e.command) for e in examples} >= set(_subcommands())
    for example in examples:
        line = example.command
        if "${fpath[" in line:  # zsh's function path, as a bash array (zsh counts from 1)
            line = f"fpath=({shlex.quote(str(fpath))} {shlex.quote(str(fpath))}); {line}"
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", line],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
        )
        what = (example.where, example.command, proc.stdout[-2000:], proc.stderr[-2000:])
        assert proc.returncode == 0, what
        _prints_its_document(example.command, proc.stdout, fpath, what)


def _prints_its_document(line: str, out: str, fpath: Path, what: Any) -> None:
    typed = shlex.split(line, comments=True)
    output = next((typed[i + 1] for i, w in enumerate(typed[:-1]) if w in ("-o", "--output")), "")
    if "--help" in typed:
        assert out.startswith("usage: kubectl-adapter"), what
    elif "completion" in typed:
        if ">" in line:
            assert (fpath / "_kubectl-adapter").read_text().startswith("#compdef"), what
        else:
            assert out == "", what  # sourced: the script defined functions, printed nothing
    elif "render" in typed:
        assert yaml.safe_load(out)["kind"] == "Deployment", what
    elif output == "yaml":
        assert isinstance(yaml.safe_load(out), dict) and "error" not in out.split(":", 1)[0], what
    elif output == "table":
        header = out.splitlines()[0]
        assert header.split()[0].isupper() or header.endswith(":"), what
    else:  # JSON by default; a format or a command added later prints something
        assert out.strip(), what
        if out.startswith("{") or output == "json":
            assert "error" not in json.loads(out), what


def test_the_specs_resource_line_is_what_render_makes(tmp_path: Path) -> None:
    """The help said `requests = limits` while render gave requests a quarter of them."""
    from kubectl_adapter.cli.help_texts import SPEC

    shown = "\n".join(line.strip() for line in SPEC.splitlines() if line.strip()[:1] in '{"')
    spec = json.loads(shown)
    line = next(line for line in SPEC.splitlines() if "cpus, memoryMb" in line)
    found = re.search(
        r"limits \((?P<cpus>[\d.]+) -> (?P<cpu>\w+), (?P<mb>\d+) -> (?P<mem>\w+)\); "
        r"requests a quarter \((?P<rcpu>\w+), (?P<rmem>\w+)\)",
        line,
    )
    assert found is not None, line
    assert (float(found["cpus"]), int(found["mb"])) == (spec["cpus"], spec["memoryMb"])
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    proc = subprocess.run(
        [sys.executable, "-m", "kubectl_adapter", "-n", "manager", "render", "--spec", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    resources = yaml.safe_load(proc.stdout)["spec"]["template"]["spec"]["containers"][0][
        "resources"
    ]
    assert resources == {
        "limits": {"cpu": found["cpu"], "memory": found["mem"]},
        "requests": {"cpu": found["rcpu"], "memory": found["rmem"]},
    }


def test_the_readme_says_what_kubectl_adapter_tab_needs() -> None:
    """kubectl's bash completion calls bash-completion's helpers: without the package every
    TAB fails, which the README did not say."""
    script = subprocess.run(
        ["kubectl", "completion", "bash"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "_get_comp_words_by_ref" in script
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "needs the bash-completion package" in readme
    assert "_get_comp_words_by_ref: command not found" in readme
