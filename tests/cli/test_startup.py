"""Start-up: the commands Manager runs most must not import pydantic.

Importing pydantic alone takes longer than the CLI's whole start-up budget (2.5x
``kubectl version --client``), so ``render``, ``--help`` and ``capabilities`` stay clear of
it, and so does validating a spec. Each case runs in a fresh interpreter: in this process
other tests have long since imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "nginx.json"
GOLDEN = ROOT / "tests" / "golden" / "nginx.yaml"

# Runs the CLI in-process, then reports the exit code, stdout and which modules got imported.
PROBE = """
import contextlib, io, json, sys
argv = json.loads(sys.argv[1])
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        from kubectl_adapter.cli.app import main
        code = main(argv)
    except SystemExit as exc:  # --help
        code = exc.code
modules = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core"))
extra = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("yaml", "shtab") or m.startswith("kubectl_adapter.cli.")
)
print(json.dumps({"code": code, "stdout": out.getvalue(), "pydantic": modules, "cli": extra}))
"""

SPEC_ONLY = """
import json, sys
from kubectl_adapter import ContainerSpec, load_spec, parse_spec
spec = load_spec(sys.argv[1])
assert isinstance(spec, ContainerSpec) and parse_spec(spec.to_json()) == spec
modules = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core"))
print(json.dumps({"code": 0, "stdout": "", "pydantic": modules}))
"""


def run_fresh(code: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONSTARTUP", None)
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return report


def run_cli(*argv: str) -> dict[str, object]:
    return run_fresh(PROBE, json.dumps(list(argv)))


def test_render_does_not_import_pydantic() -> None:
    report = run_cli("-n", "default", "render", "--spec", str(EXAMPLE))
    assert report["code"] == 0, report["stdout"]
    assert report["stdout"] == GOLDEN.read_text(encoding="utf-8")
    assert report["pydantic"] == []


def test_render_of_an_invalid_spec_does_not_import_pydantic(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    spec = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**spec, "hostname": "Web_1", "cpus": 0}), encoding="utf-8")
    report = run_cli("-n", "default", "render", "--spec", str(path))
    assert report["code"] == 2
    error = json.loads(str(report["stdout"]))["error"]
    assert error["type"] == "InvalidInput"
    assert len(error["details"]["problems"]) == 2
    assert report["pydantic"] == []


@pytest.mark.parametrize("argv", [["--help"], ["render", "--help"]], ids=" ".join)
def test_help_does_not_import_pydantic(argv: list[str]) -> None:
    report = run_cli(*argv)
    assert report["code"] == 0
    assert "usage:" in str(report["stdout"])
    assert report["pydantic"] == []


def test_capabilities_does_not_import_pydantic() -> None:
    report = run_cli("capabilities")
    assert report["code"] == 0
    assert json.loads(str(report["stdout"]))["podIpEphemeral"] is True
    assert report["pydantic"] == []


def test_loading_a_spec_does_not_import_pydantic() -> None:
    """The package's lazy exports: ``from kubectl_adapter import parse_spec`` stays light."""
    report = run_fresh(SPEC_ONLY, str(EXAMPLE))
    assert report["pydantic"] == []


def test_the_probe_would_see_pydantic() -> None:
    """Not vacuous: importing the output models does show up."""
    code = SPEC_ONLY.replace(
        "spec = load_spec", "import kubectl_adapter.contract.output_models\nspec = load_spec"
    )
    report = run_fresh(code, str(EXAMPLE))
    assert "pydantic" in report["pydantic"]


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "default/web-1"],
        ["describe", "default/web-1"],
        ["list"],
        ["create", "--spec", str(EXAMPLE)],
        ["start", "default/web-1"],
        ["stop", "default/web-1"],
        ["reconfigure", "default/web-1", "--spec", str(EXAMPLE)],
        ["delete", "default/web-1"],
        ["network", "default/web-1"],
        ["--dry-run", "create", "--spec", str(EXAMPLE)],
    ],
    ids=" ".join,
)
def test_no_command_that_talks_to_the_cluster_imports_pydantic(
    tmp_path: Path, argv: list[str]
) -> None:
    """Issue 17: pydantic (~70 ms of imports) is on no command's run path; the outputs are
    plain dataclasses (``contract.models``). kubectl here refuses the connection."""
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(
        "#!/bin/sh\necho 'The connection to the server 127.0.0.1:6443 was refused - did you "
        "specify the right host or port?' >&2\nexit 1\n"
    )
    kubectl.chmod(0o755)
    report = run_cli("--kubectl", str(kubectl), "-n", "default", "--context", "x", *argv)
    assert report["stdout"], report
    assert report["pydantic"] == [], argv


# The CLI modules every command loads; anything else is loaded by the command that needs it
# (mistyped by a mistyped command or flag).
CLI_CORE = [
    "kubectl_adapter.cli.app",
    "kubectl_adapter.cli.dispatch",
    "kubectl_adapter.cli.formats",
    "kubectl_adapter.cli.help_texts",
    "kubectl_adapter.cli.output",
    "kubectl_adapter.cli.parser",
    "kubectl_adapter.cli.terminal_text",
    "kubectl_adapter.cli.views",
]


def test_json_output_loads_no_other_format_nor_completion_nor_progress() -> None:
    report = run_cli("capabilities")
    assert report["code"] == 0
    assert report["cli"] == CLI_CORE


def test_yaml_output_uses_its_own_emitter_not_a_yaml_library() -> None:
    report = run_cli("-o", "yaml", "capabilities")
    assert report["code"] == 0
    assert str(report["stdout"]).startswith("stableMacAddress: false\n")
    assert report["cli"] == sorted([*CLI_CORE, "kubectl_adapter.cli.yaml_text"])
    assert report["pydantic"] == []


def test_only_the_completion_command_imports_shtab() -> None:
    report = run_cli("completion", "bash")
    assert report["code"] == 0
    assert "shtab" in report["cli"]  # the probe would see it
    assert "shtab" not in run_cli("--help")["cli"]


# What a command has imported when it starts its first kubectl: its start-up. Counted, not
# timed (a count does not depend on the machine's load): each module costs ~0.1-2 ms.
FIRST_CALL = """
import contextlib, io, json, subprocess, sys
argv = json.loads(sys.argv[1])
first = []
class Probe(subprocess.Popen):
    def __init__(self, *args, **kwargs):
        if not first:
            first.append(sorted(sys.modules))
        super().__init__(*args, **kwargs)
subprocess.Popen = Probe
with contextlib.redirect_stdout(io.StringIO()):
    from kubectl_adapter.cli.app import main
    main(argv)
print(json.dumps({"modules": first[0] if first else None}))
"""
# Loaded on the first failure, the first -v line or the first big answer, never at start-up;
# the spec's rules (decimal) once create's and reconfigure's reads run; or never at all
# (shutil and the compressors it imports, glob, shlex, fractions, the ctypes package: what
# issue 38 took off the path to the first kubectl).
LATE = [
    "logging",
    "dataclasses",
    "inspect",
    "pydantic",
    "msgspec",
    "jinja2",
    "shutil",
    "zlib",
    "bz2",
    "lzma",
    "glob",
    "shlex",
    "fractions",
    "ctypes",
    "decimal",
    "kubectl_adapter.contract.spec",
    "kubectl_adapter.contract.spec_rules",
    "kubectl_adapter.kubectl.kubectl_errors",
    "kubectl_adapter.kubectl.classify",
    "kubectl_adapter.kubectl.outcome",
    "kubectl_adapter.kubectl.transcript",
    "kubectl_adapter.rules.diagnostics",
    "kubectl_adapter.rules.ownership",
    "kubectl_adapter.contract.redact",
    "kubectl_adapter.contract.output_models",
    "kubectl_adapter.cli.mistyped",
    "kubectl_adapter.cli.several",
]
# Issue 38: no command loads more than BOUND modules by its first kubectl (measured
# 2026-12-06, Python 3.11; the interpreter alone loads 68, this probe 85 before the CLI). list
# 116; create 117; status, describe, delete, start and stop 118; reconfigure 119 (the CLI with
# argparse, the kubectl boundary with _ctypes for the parent-death signal, the NAME; start and
# stop open their wait's watches from the CLI, as the reads are opened, before the operation's
# modules; create and reconfigure read the spec's JSON, open their reads, then import the
# spec's rules (decimal and 4 modules) to validate it). Was 147-153 before issue 38's work.
BOUND = 120
COMMANDS = {
    "list": ["list"],
    "status": ["status", "default/web-1"],
    "describe": ["describe", "default/web-1"],
    "start": ["start", "default/web-1"],
    "stop": ["stop", "default/web-1"],
    "delete": ["delete", "default/web-1"],
    "reconfigure": ["reconfigure", "default/web-1", "--spec", str(EXAMPLE)],
    "create": ["create", "--spec", str(EXAMPLE)],
}


def first_call_modules(tmp_path: Path, argv: list[str], code: str = FIRST_CALL) -> list[str]:
    kubectl = tmp_path / "kubectl"
    kubectl.write_text("#!/bin/sh\necho 'error: You must be logged in to the server' >&2\nexit 1\n")
    kubectl.chmod(0o755)
    modules = run_fresh(code, json.dumps(["--kubectl", str(kubectl), "-n", "default", *argv]))
    found = modules["modules"]
    assert isinstance(found, list), "the command ran no kubectl"
    return found


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_what_a_command_imports_before_its_first_kubectl(tmp_path: Path, command: str) -> None:
    modules = first_call_modules(tmp_path, COMMANDS[command])
    loaded = sorted({m for m in modules for name in LATE if m == name or m.startswith(name + ".")})
    assert loaded == [], command
    assert len(modules) <= BOUND, f"{command}: {len(modules)} modules, bound {BOUND}"


@pytest.mark.parametrize("heavy", ["shutil", "ctypes", "argparse, shlex, glob, fractions"])
def test_the_bound_fails_on_an_eager_heavy_import(tmp_path: Path, heavy: str) -> None:
    """Not vacuous: status (118, two below the bound) goes over it with one more eager heavy
    import (here made before the CLI's, as a module of the package would make it)."""
    code = FIRST_CALL.replace(
        "subprocess.Popen = Probe", f"subprocess.Popen = Probe\nimport {heavy}"
    )
    modules = first_call_modules(tmp_path, COMMANDS["status"], code)
    assert len(modules) > BOUND, heavy


def test_the_first_call_probe_would_see_a_late_module() -> None:
    """Not vacuous: a module imported before the first kubectl shows up."""
    code = FIRST_CALL.replace(
        "subprocess.Popen = Probe", "subprocess.Popen = Probe\nimport logging"
    )
    argv = ["--kubectl", "/bin/false", "-n", "default", "status", "default/web-1"]
    modules = run_fresh(code, json.dumps(argv))["modules"]
    assert isinstance(modules, list) and "logging" in modules


def test_describe_imports_what_status_does_until_its_first_kubectl(tmp_path: Path) -> None:
    """describe starts status's read as early as status does: by then it has imported
    nothing status has not (its operation and text are loaded while kubectl runs)."""
    kubectl = tmp_path / "kubectl"
    kubectl.write_text("#!/bin/sh\necho 'error: You must be logged in to the server' >&2\nexit 1\n")
    kubectl.chmod(0o755)
    loaded = {}
    for command in ("status", "describe"):
        argv = ["--kubectl", str(kubectl), "-n", "default", command, "default/web-1"]
        modules = run_fresh(FIRST_CALL, json.dumps(argv))["modules"]
        assert isinstance(modules, list), command
        loaded[command] = set(modules)
    assert loaded["describe"] - loaded["status"] == set()


# The whole run, first read to printed document: describe loads status's modules and its own.
WHOLE_RUN = """
import contextlib, io, json, sys
argv = json.loads(sys.argv[1])
with contextlib.redirect_stdout(io.StringIO()):
    from kubectl_adapter.cli.app import main
    main(argv)
print(json.dumps({"modules": sorted(sys.modules)}))
"""
DESCRIBE_OWN = {
    "kubectl_adapter.operations.describing",
    "kubectl_adapter.rules.description",
    "kubectl_adapter.rules.template_description",
    "kubectl_adapter.contract.description_models",
    "kubectl_adapter.cli.describe_text",
    "kubectl_adapter.cli.tables",
}


def test_describe_loads_no_more_than_status_beyond_its_own_modules(tmp_path: Path) -> None:
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(
        "#!/bin/sh\necho 'The connection to the server 127.0.0.1:6443 was refused - did you "
        "specify the right host or port?' >&2\nexit 1\n"
    )
    kubectl.chmod(0o755)
    loaded = {}
    for command in ("status", "describe"):
        argv = ["--kubectl", str(kubectl), "-n", "default", command, "default/web-1"]
        loaded[command] = set(run_fresh(WHOLE_RUN, json.dumps([*argv, "-o", "table"]))["modules"])
    assert loaded["describe"] - loaded["status"] <= DESCRIBE_OWN


# A successful read needs none of what names a failed command (shlex, the redaction), a
# drift's fingerprint (hashlib: OpenSSL's libcrypto) or a -v log's requests.
SUCCESS_LATE = ["shlex", "hashlib", "_hashlib", "kubectl_adapter.contract.redact"]


def test_a_successful_status_imports_nothing_a_failure_needs(tmp_path: Path) -> None:
    from tests.k8s_objects import deployment, kubectl_list, pod, replicaset

    dep = deployment("web-1")
    rs = replicaset(dep, "h000000001")
    answer = tmp_path / "answer.json"
    answer.write_text(kubectl_list([dep, rs, pod(rs)]))
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(f"#!/bin/sh\ncat {answer}\n")
    kubectl.chmod(0o755)
    argv = ["--kubectl", str(kubectl), "-n", "testns", "status", "testns/web-1"]
    loaded = set(run_fresh(WHOLE_RUN, json.dumps(argv))["modules"])
    assert "kubectl_adapter.rules.snapshots" in loaded  # the status was built
    assert sorted(loaded & set(SUCCESS_LATE)) == []
    failed = ["--kubectl", "/bin/false", "-n", "testns", "status", "testns/web-1"]
    assert "kubectl_adapter.contract.redact" in run_fresh(WHOLE_RUN, json.dumps(failed))["modules"]
