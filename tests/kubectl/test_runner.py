"""KubectlRunner: argv, stdin, exit status, JSON, timeouts, a missing kubectl, logging, streaming.

Most tests fake kubectl with pytest-subprocess. A few run tiny shell scripts standing in for
kubectl, because only a real process shows the real pipes and the real kill.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_subprocess import FakeProcess
from pytest_subprocess.fake_popen import FakePopen

from kubectl_adapter.contract.errors import (
    ConfigurationError,
    Conflict,
    Forbidden,
    InternalError,
    InvalidInput,
    NotFound,
    RolloutFailed,
    Timeout,
    Unauthorized,
    Unavailable,
)
from kubectl_adapter.kubectl import config as config_module
from kubectl_adapter.kubectl.bounds import READ_GRACE_SECONDS
from kubectl_adapter.kubectl.call import (
    WAIT_GRACE_SECONDS,
    default_bound,
    process_bound,
    wait_timeout_args,
)
from kubectl_adapter.kubectl.config import ClusterConfig, kubectl_environment
from kubectl_adapter.kubectl.runner import KubectlRunner
from kubectl_adapter.kubectl.transcript import Wait

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kubectl-stderr"
KUBECTL = "/opt/fake/bin/kubectl"
K = [KUBECTL, "-n", "testns", "--request-timeout", "10s"]
EMPTY_LIST = json.dumps(
    {"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}},
    indent=4,
)
MANIFEST = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-1\n"

# The hanging kubectls below sleep 30 s: one that ends before half of that was killed at its
# bound, however loaded the machine (an idle one takes well under a second past the bound).
KILLED_WITHIN = 15.0


def stderr_of(case: str) -> str:
    return (FIXTURES / f"{case}.stderr.txt").read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``kubectl`` resolves to KUBECTL; anything else (an explicit --kubectl) to itself."""
    looked_up: list[str] = []

    def which(name: str) -> str | None:
        looked_up.append(name)
        return KUBECTL if name == "kubectl" else name

    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", which)
    return looked_up


def runner(**config: Any) -> KubectlRunner:
    config.setdefault("namespace", "testns")
    return KubectlRunner(ClusterConfig(**config))


# -- argv -------------------------------------------------------------------------------------


def test_argv_with_nothing_set_has_only_the_request_timeout() -> None:
    assert KubectlRunner(ClusterConfig()).argv(["get", "pods"]) == [
        KUBECTL,
        "--request-timeout",
        "10s",
        "get",
        "pods",
    ]


def test_argv_puts_global_flags_in_order_before_the_args() -> None:
    r = KubectlRunner(
        ClusterConfig(
            kubeconfig="/etc/kc.yaml",
            context="prod",
            cache_dir="/tmp/cache",
            namespace="testns",
            request_timeout=30,
        )
    )
    assert r.argv(["get", "deployments", "-o", "json"]) == [
        KUBECTL,
        "--kubeconfig",
        "/etc/kc.yaml",
        "--context",
        "prod",
        "--cache-dir",
        "/tmp/cache",
        "-n",
        "testns",
        "--request-timeout",
        "30s",
        "get",
        "deployments",
        "-o",
        "json",
    ]


def test_argv_without_request_timeout_for_waits() -> None:
    argv = runner().argv(["rollout", "status", "deployment/web-1"], request_timeout=False)
    assert argv == [KUBECTL, "-n", "testns", "rollout", "status", "deployment/web-1"]


def test_argv_namespace_override() -> None:
    assert runner().argv(["get", "pods"], namespace="other")[:3] == [KUBECTL, "-n", "other"]
    no_default = KubectlRunner(ClusterConfig())
    assert no_default.argv(["get", "pods"], namespace="other")[:3] == [KUBECTL, "-n", "other"]


@pytest.mark.parametrize(("seconds", "flag"), [(10, "10s"), (0.2, "1s"), (1.6, "2s"), (90, "90s")])
def test_request_timeout_is_whole_seconds_never_zero(seconds: float, flag: str) -> None:
    argv = KubectlRunner(ClusterConfig(request_timeout=seconds)).argv(["version"])
    assert argv[1:3] == ["--request-timeout", flag]


def test_argv_stringifies_arguments() -> None:
    assert runner().argv(["scale", 3], request_timeout=False)[-2:] == ["scale", "3"]  # type: ignore[list-item]


def test_dry_run_argv_never_looks_for_kubectl(kubectl_on_path: list[str]) -> None:
    argv = runner(dry_run=True).argv(["get", "pods"])
    assert argv[0] == "kubectl"
    assert kubectl_on_path == []
    assert runner(dry_run=True, kubectl="/opt/k/kubectl").argv(["x"])[0] == "/opt/k/kubectl"


def test_binary_is_looked_up_once(kubectl_on_path: list[str]) -> None:
    r = runner()
    assert r.binary == KUBECTL
    r.argv(["get", "pods"])
    r.argv(["get", "pods"])
    assert kubectl_on_path == ["kubectl"]


def test_explicit_kubectl_is_used() -> None:
    assert runner(kubectl="/usr/local/bin/kubectl").argv(["version"])[0] == "/usr/local/bin/kubectl"


def test_display_is_what_an_operator_would_paste() -> None:
    argv = [KUBECTL, "-n", "my ns", "get", "pods", "-l", "a=b,c in (x)", "--token=s3cr3t-token"]
    assert KubectlRunner.display(argv) == (
        "kubectl -n 'my ns' get pods -l 'a=b,c in (x)' --token=[REDACTED]"
    )
    # A kubectl that is not called kubectl is shown by its path: that is what must be typed.
    assert KubectlRunner.display(["/opt/kubectl-1.32", "version"]) == "/opt/kubectl-1.32 version"


def test_wait_helpers() -> None:
    assert wait_timeout_args(300) == ["--timeout=300s"]
    assert wait_timeout_args(0.3) == ["--timeout=1s"]
    assert process_bound(10) == 10 + WAIT_GRACE_SECONDS


# -- running ----------------------------------------------------------------------------------


def test_exit_zero_returns_the_output(fp: FakeProcess) -> None:
    fp.register([*K, "get", "pods", "-o", "json"], stdout=EMPTY_LIST, stderr="Warning: x\n")
    result = runner().run(["get", "pods", "-o", "json"])
    assert result.returncode == 0
    assert result.stdout == EMPTY_LIST
    assert result.stderr == "Warning: x\n"
    assert result.argv == [*K, "get", "pods", "-o", "json"]
    assert fp.call_count([*K, "get", "pods", "-o", "json"]) == 1


def test_manifest_goes_to_stdin(fp: FakeProcess) -> None:
    received: list[bytes] = []
    seen: dict[str, Any] = {}
    apply = [*K, "apply", "--server-side", "-f", "-"]

    def remember(process: FakePopen) -> None:
        seen.update(process.kwargs or {})

    fp.register(
        apply,
        stdout="deployment.apps/web-1 serverside-applied\n",
        stdin_callable=received.append,
        callback=remember,
    )
    runner().run(["apply", "--server-side", "-f", "-"], stdin=MANIFEST)
    # Non-streaming calls use byte pipes (no newline translation over big outputs).
    assert received == [MANIFEST.encode()]
    assert seen["stdin"] == subprocess.PIPE


def test_without_a_manifest_stdin_is_closed(fp: FakeProcess) -> None:
    seen: dict[str, Any] = {}

    def remember(process: FakePopen) -> None:
        seen.update(process.kwargs or {})

    fp.register([*K, "version"], stdout="{}", callback=remember)
    runner().run(["version"])
    assert seen["stdin"] == subprocess.DEVNULL
    assert seen["stdout"] == seen["stderr"] == subprocess.PIPE
    assert not isinstance(fp.calls[0], str)  # an argv list, never a shell string


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("err-get-401", Unauthorized),
        ("err-get-403", Forbidden),
        ("get-byname-notfound", NotFound),
        ("err-apply-409", Conflict),
        ("err-get-422", InvalidInput),
        ("conn-get-refused", Unavailable),
        ("conn-get-nocontext", ConfigurationError),
        ("rollout-deadline", RolloutFailed),
        ("rollout-nowatch-support", Timeout),
        ("err-get-200-garbage", Unavailable),  # a proxy answered, not the API server
        ("err-min-list-nokind", InternalError),
    ],
)
def test_failure_raises_the_mapped_error(fp: FakeProcess, case: str, error: type[Any]) -> None:
    fp.register([*K, "get", "x"], stderr=stderr_of(case), returncode=1)
    with pytest.raises(error) as info:
        runner().run(["get", "x"])
    assert type(info.value) is error
    assert info.value.details["command"] == "kubectl -n testns --request-timeout 10s get x"
    assert info.value.details["exitCode"] == 1
    assert "memcache.go" not in info.value.message


def test_failed_list_with_an_empty_list_on_stdout_is_still_an_error(fp: FakeProcess) -> None:
    # kubectl get -o json prints an empty List even when the LIST was refused (research §0.4).
    argv = ["get", "deployments", "-l", "app.example/managed=true", "-o", "json"]
    fp.register([*K, *argv], stdout=EMPTY_LIST, stderr=stderr_of("err-get-403"), returncode=1)
    with pytest.raises(Forbidden) as info:
        runner().run_json(argv)
    assert "cannot list resource" in info.value.message


def test_run_json_parses_stdout(fp: FakeProcess) -> None:
    fp.register([*K, "get", "pods", "-o", "json"], stdout=EMPTY_LIST)
    assert runner().run_json(["get", "pods", "-o", "json"])["kind"] == "List"


@pytest.mark.parametrize("stdout", ["", "\n", "   \n\t"])
def test_run_json_on_empty_output_is_none(fp: FakeProcess, stdout: str) -> None:
    # What `get NAME --ignore-not-found -o json` prints when the object is absent.
    fp.register(
        [*K, "get", "deployment", "web-1", "--ignore-not-found", "-o", "json"], stdout=stdout
    )
    assert (
        runner().run_json(["get", "deployment", "web-1", "--ignore-not-found", "-o", "json"])
        is None
    )


@pytest.mark.parametrize(
    "args",
    [
        ["get", "deployments,replicasets,pods", "-l", "x", "-o", "json", "-v=6"],
        ["get", "nodes", "-o", "json"],
        ["get", "deployment", "web-1", "-o", "json"],
        ["get", "deployment", "web-1", "--ignore-not-found=false", "-o", "json"],
        ["apply", "--server-side", "-f", "-", "-o", "json"],
    ],
)
def test_run_json_on_empty_output_where_json_is_due_is_internal_error(
    fp: FakeProcess, args: list[str]
) -> None:
    """Exit 0 and nothing printed (a broken kubectl or wrapper) is never "absent": it used
    to make `status` say missing and `delete` alreadyMissing while the Deployment ran."""
    fp.register([*K, *args], stdout="\n")
    with pytest.raises(InternalError) as info:
        runner().run_json(args)
    assert info.value.details["problem"] == "output is empty"
    assert "printed nothing where JSON was expected" in info.value.message


def test_run_json_on_garbage_is_internal_error(fp: FakeProcess) -> None:
    fp.register([*K, "get", "pods", "-o", "json"], stdout="this is not json")
    with pytest.raises(InternalError) as info:
        runner().run_json(["get", "pods", "-o", "json"])
    assert "not JSON" in info.value.message
    assert (
        info.value.details["command"] == "kubectl -n testns --request-timeout 10s get pods -o json"
    )


def test_run_json_passes_its_options_on(fp: FakeProcess) -> None:
    received: list[bytes] = []
    fp.register(
        [KUBECTL, "-n", "other", "create", "-f", "-"], stdout="{}", stdin_callable=received.append
    )
    result = runner().run_json(
        ["create", "-f", "-"], namespace="other", stdin="{}", request_timeout=False
    )
    assert result == {}
    assert received == [b"{}"]


# -- timeouts ---------------------------------------------------------------------------------


def test_process_timeout_is_timeout(fp: FakeProcess) -> None:
    # pytest-subprocess 1.6: communicate() never raises TimeoutExpired by itself, so the
    # faked kubectl raises it the way a real Popen does when the bound is reached.
    def hang(process: FakePopen) -> None:
        raise subprocess.TimeoutExpired(process.args, 0.1)

    fp.register([*K, "get", "pods"], stderr="", callback=hang)
    with pytest.raises(Timeout) as info:
        runner().run(["get", "pods"], timeout=0.1)
    assert info.value.details["reason"] == "process timeout"
    assert info.value.details["timeoutSeconds"] == 0.1
    assert info.value.details["exitCode"] == -1
    assert info.value.message.endswith("kubectl -n testns --request-timeout 10s get pods")


def test_default_bound_is_the_call_timeout(fp: FakeProcess) -> None:
    def hang(process: FakePopen) -> None:
        raise subprocess.TimeoutExpired(process.args, 7)

    fp.register([*K, "version"], callback=hang)
    with pytest.raises(Timeout) as info:
        runner(call_timeout=7).run(["version"])
    assert info.value.details["timeoutSeconds"] == 7


# -- real processes: the kill, the pipes, stdin while streaming -------------------------------


def fake_kubectl(tmp_path: Path, script: str) -> str:
    path = tmp_path / "kubectl"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_real_hanging_kubectl_is_killed_and_is_timeout(tmp_path: Path) -> None:
    binary = fake_kubectl(tmp_path, "echo 'Waiting for deployment...'\nexec sleep 30\n")
    started = time.monotonic()
    with pytest.raises(Timeout) as info:
        runner(kubectl=binary).run(["rollout", "status", "x"], timeout=0.3)
    assert time.monotonic() - started < KILLED_WITHIN
    assert info.value.details["reason"] == "process timeout"


def test_real_hanging_streaming_kubectl_is_killed_and_is_timeout(tmp_path: Path) -> None:
    # pytest-subprocess cannot fake this one: its wait() re-raises after the kill.
    binary = fake_kubectl(tmp_path, "echo 'Waiting for deployment...'\nexec sleep 30\n")
    progress = io.StringIO()
    r = KubectlRunner(ClusterConfig(kubectl=binary), progress=progress)
    started = time.monotonic()
    with pytest.raises(Timeout):
        r.run(["rollout", "status", "x"], timeout=0.3, stream=True, request_timeout=False)
    assert time.monotonic() - started < KILLED_WITHIN
    assert progress.getvalue() == "kubectl: Waiting for deployment...\n"


def test_real_kubectl_stuck_on_409_is_conflict(tmp_path: Path) -> None:
    line = (
        "I1130 01:51:24.406915   21725 round_trippers.go:560] PATCH https://127.0.0.1:6443/apis/"
        "apps/v1/namespaces/testns/deployments/web-1/scale 409 Conflict in 2 milliseconds"
    )
    binary = fake_kubectl(tmp_path, f"echo '{line}' >&2\necho '{line}' >&2\nexec sleep 30\n")
    with pytest.raises(Conflict) as info:
        runner(kubectl=binary).run(
            ["scale", "deployment/web-1", "--replicas=0", "-v=6"], timeout=0.5
        )
    assert info.value.details["reason"] == "kubectl kept retrying 409 Conflict"


def test_real_streaming_kubectl_gets_its_stdin(tmp_path: Path) -> None:
    # Before the fix, streaming mode never wrote stdin: kubectl waited on it until killed.
    binary = fake_kubectl(tmp_path, 'while read -r line; do echo "got $line"; done\n')
    progress = io.StringIO()
    r = KubectlRunner(ClusterConfig(kubectl=binary), progress=progress)
    result = r.run(["apply", "-f", "-"], stdin="a\nb\n", stream=True, timeout=10)
    assert result.stdout == "got a\ngot b\n"
    assert progress.getvalue() == "kubectl: got a\nkubectl: got b\n"


def test_real_failure_reads_stderr(tmp_path: Path) -> None:
    binary = fake_kubectl(
        tmp_path, f"cat <<'EOF' >&2\n{stderr_of('conn-get-refused')}EOF\nexit 1\n"
    )
    with pytest.raises(Unavailable):
        runner(kubectl=binary).run(["get", "pods"])


# -- a missing or broken kubectl --------------------------------------------------------------


def test_which_finds_what_shutil_which_finds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """config.which stands in for shutil.which (not imported: it brings zlib, bz2, lzma)."""
    import shutil

    monkeypatch.undo()
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "tool").chmod(0o755)
    (tmp_path / "bin" / "plain").write_text("")
    (tmp_path / "bin" / "folder").mkdir()
    (tmp_path / "later").mkdir()
    (tmp_path / "later" / "plain").write_text("#!/bin/sh\n")
    (tmp_path / "later" / "plain").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{tmp_path / 'later'}")
    names = ["tool", "plain", "folder", "absent", str(tmp_path / "bin" / "tool"),
             str(tmp_path / "bin" / "plain"), str(tmp_path / "bin"), "/nope"]  # fmt: skip
    for name in names:
        assert config_module.which(name) == shutil.which(name), name
    assert config_module.which("plain") == str(tmp_path / "later" / "plain")


def test_missing_explicit_kubectl_is_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real lookup (config.which)
    with pytest.raises(ConfigurationError) as info:
        KubectlRunner(ClusterConfig(kubectl="/nope")).run(["version"])
    assert info.value.exit_code == 9
    assert (
        info.value.message == "kubectl not found at '/nope': install kubectl or pass --kubectl PATH"
    )
    assert info.value.details == {"kubectl": "/nope"}


def test_kubectl_not_on_path_is_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ConfigurationError) as info:
        KubectlRunner(ClusterConfig()).run(["version"])
    assert info.value.exit_code == 9
    assert "kubectl not found on PATH" in info.value.message
    assert "--kubectl" in info.value.message


def test_kubectl_vanishing_after_lookup_is_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not found at"):
        runner(kubectl=str(tmp_path / "gone")).run(["version"])


def test_kubectl_not_executable_is_configuration_error(tmp_path: Path) -> None:
    path = tmp_path / "kubectl"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o644)
    with pytest.raises(ConfigurationError, match="is not executable"):
        runner(kubectl=str(path)).run(["version"])


def test_kubectl_that_is_not_a_program_is_configuration_error(tmp_path: Path) -> None:
    path = tmp_path / "kubectl"
    path.write_bytes(b"\x7fELF garbage")
    path.chmod(0o755)
    with pytest.raises(ConfigurationError, match="cannot be run"):
        runner(kubectl=str(path)).run(["version"])


# -- logging and streaming ---------------------------------------------------------------------


def test_verbose_logs_the_command_shell_quoted_and_its_outcome(
    fp: FakeProcess, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kubectl_adapter")
    argv = ["get", "pods", "-l", "app.example/container in (web-1)", "-o", "json"]
    fp.register([*K, *argv], stdout="{}", stderr="Warning: token: s3cr3t-value-1\n")
    runner(verbose=True).run(argv)
    messages = [r.getMessage() for r in caplog.records if r.name == "kubectl_adapter"]
    assert messages[0] == (
        "kubectl -n testns --request-timeout 10s get pods -l 'app.example/container in (web-1)' "
        "-o json"
    )
    assert re.fullmatch(r"# exit 0 in \d+\.\d\d s", messages[1])
    assert len(messages) == 2  # kubectl's own stderr only from -vv


def test_very_verbose_adds_kubectls_stderr_as_comments(
    fp: FakeProcess, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kubectl_adapter")
    stderr = "I1201 loader.go:402] Config loaded\nWarning: token: s3cr3t-value-1\n"
    fp.register([*K, "version"], stdout="{}", stderr=stderr)
    runner(verbose=2).run(["version"])
    messages = [r.getMessage() for r in caplog.records if r.name == "kubectl_adapter"]
    assert messages[2] == (
        "# kubectl: I1201 loader.go:402] Config loaded\n# kubectl: Warning: token: [REDACTED]"
    )


def test_verbose_logs_a_failure_with_kubectls_first_line(
    fp: FakeProcess, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kubectl_adapter")
    stderr = 'Error from server (NotFound): deployments.apps "web-1" not found\n'
    fp.register([*K, "get", "deployment", "web-1"], returncode=1, stderr=stderr)
    with pytest.raises(NotFound):
        runner(verbose=True).run(["get", "deployment", "web-1"])
    messages = [r.getMessage() for r in caplog.records if r.name == "kubectl_adapter"]
    assert re.fullmatch(
        r'# exit 1 in \d+\.\d\d s: Error from server \(NotFound\): deployments.apps "web-1" '
        "not found",
        messages[1],
    )


def test_quiet_logs_nothing(fp: FakeProcess, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kubectl_adapter")
    fp.register([*K, "version"], stdout="{}", stderr="Warning: x\n")
    runner().run(["version"])
    assert not [r for r in caplog.records if r.name == "kubectl_adapter"]


def test_streaming_echoes_stdout_lines_to_progress(fp: FakeProcess) -> None:
    lines = [
        'Waiting for deployment "web-1" rollout to finish: 0 of 1 updated replicas are available',
        'deployment "web-1" successfully rolled out',
    ]
    argv = ["rollout", "status", "deployment/web-1", "--timeout=10s"]
    fp.register([KUBECTL, "-n", "testns", *argv], stdout=lines, stderr="Warning: not echoed\n")
    progress = io.StringIO()
    r = KubectlRunner(ClusterConfig(namespace="testns"), progress=progress)
    result = r.run(argv, stream=True, request_timeout=False)
    assert progress.getvalue() == "".join(f"kubectl: {line}\n" for line in lines)
    assert result.stdout == "".join(f"{line}\n" for line in lines)
    assert result.stderr == "Warning: not echoed\n"


def test_streaming_echo_is_redacted(fp: FakeProcess) -> None:
    fp.register([*K, "x"], stdout=["token: s3cr3t-value-1"])
    progress = io.StringIO()
    KubectlRunner(ClusterConfig(namespace="testns"), progress=progress).run(["x"], stream=True)
    assert progress.getvalue() == "kubectl: token: [REDACTED]\n"


def test_streaming_failure_is_classified(fp: FakeProcess) -> None:
    argv = ["rollout", "status", "deployment/web-1", "--timeout=5s"]
    fp.register(
        [KUBECTL, "-n", "testns", *argv],
        stdout=['Waiting for deployment "web-1" rollout to finish: 0 of 1 updated replicas'],
        stderr=stderr_of("rollout-deadline-during"),
        returncode=1,
    )
    progress = io.StringIO()
    r = KubectlRunner(ClusterConfig(namespace="testns"), progress=progress)
    with pytest.raises(RolloutFailed):
        r.run(argv, stream=True, request_timeout=False)
    assert progress.getvalue().startswith("kubectl: Waiting for deployment")


def test_progress_defaults_to_stderr() -> None:
    import sys

    assert KubectlRunner(ClusterConfig()).progress is sys.stderr


# -- process groups and the overall deadline --------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize("stream", [False, True], ids=["captured", "streaming"])
def test_real_timeout_kills_kubectls_whole_process_group(tmp_path: Path, stream: bool) -> None:
    # Before the fix only kubectl died; its child (a credential plugin) lived on and held
    # the pipes, so the call also took the whole drain period.
    pidfile = tmp_path / "child.pid"
    binary = fake_kubectl(tmp_path, f"sleep 30 &\necho $! > {pidfile}\nwait\n")
    started = time.monotonic()
    try:
        with pytest.raises(Timeout):
            runner(kubectl=binary).run(
                ["rollout", "status", "x"], timeout=0.5, stream=stream, request_timeout=False
            )
        assert time.monotonic() - started < KILLED_WITHIN
        child = int(pidfile.read_text())
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(child)
    finally:
        if pidfile.exists() and _alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_reads_are_bounded_by_the_request_timeout_plus_grace(fp: FakeProcess) -> None:
    bounds: list[float] = []

    def hang(process: FakePopen) -> None:
        raise subprocess.TimeoutExpired(process.args, 0)

    for verb in ("get", "version", "scale"):
        fp.register([*K, verb], callback=hang)
    r = runner(call_timeout=60, request_timeout=10)
    for verb in ("get", "version", "scale"):
        with pytest.raises(Timeout) as info:
            r.run([verb])
        bounds.append(info.value.details["timeoutSeconds"])
    assert bounds == [10 + READ_GRACE_SECONDS, 10 + READ_GRACE_SECONDS, 60]
    assert default_bound(runner(call_timeout=4, request_timeout=10).config, ["get"]) == 4


def test_every_call_draws_on_the_overall_deadline(fp: FakeProcess) -> None:
    def hang(process: FakePopen) -> None:
        raise subprocess.TimeoutExpired(process.args, 0)

    fp.register([*K, "scale"], callback=hang)
    r = runner(deadline=30.0, started=time.monotonic() - 25.0)
    with pytest.raises(Timeout) as info:
        r.run(["scale"])
    assert info.value.details["timeoutSeconds"] <= 5.0
    assert info.value.details["reason"] == "deadline"
    assert info.value.details["deadlineSeconds"] == 30.0


def test_no_kubectl_runs_once_the_deadline_has_passed(fp: FakeProcess) -> None:
    r = runner(deadline=10.0, started=time.monotonic() - 11.0)
    with pytest.raises(Timeout, match="overall deadline") as info:
        r.run(["get", "pods"])
    assert info.value.details["reason"] == "deadline"
    assert not fp.calls


def test_real_kubectl_is_killed_at_the_deadline(tmp_path: Path) -> None:
    binary = fake_kubectl(tmp_path, "exec sleep 30\n")
    r = runner(kubectl=binary, deadline=0.5)
    started = time.monotonic()
    with pytest.raises(Timeout) as info:
        r.run(["rollout", "status", "x"], timeout=60, request_timeout=False)
    assert time.monotonic() - started < KILLED_WITHIN
    assert info.value.details["reason"] == "deadline"


# -- watch -----------------------------------------------------------------------------------


def _watch_script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "kubectl"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


class Recorder:
    """A ``watches.Watching`` that records what it is told, deciding as ``decide`` says."""

    def __init__(self, decide: Any = lambda seen: False, wake_in: float | None = None) -> None:
        self.seen: list[tuple[int, Any]] = []
        self.decide = decide
        self.wake = None if wake_in is None else time.monotonic() + wake_in
        self.woke = False

    def document(self, index: int, document: Any) -> bool:
        self.seen.append((index, document))
        return bool(self.decide(self.seen))

    def stderr_line(self, index: int, line: str) -> bool:
        self.seen.append((index, f"stderr: {line}"))
        return bool(self.decide(self.seen))

    def wake_at(self) -> float | None:
        return self.wake

    def woken(self) -> bool:
        self.wake, self.woke = None, True
        return True


WAIT = Wait(20, True, ("rollout", "status", "deployment/x"))


def test_watches_feed_each_event_as_it_comes_and_are_killed_when_told(tmp_path: Path) -> None:
    """One-line events in chunks that split them, from two kubectl processes at once; an
    event decides, and the still-running processes are killed, not waited for."""
    event = json.dumps({"type": "MODIFIED", "object": {"n": 2}})
    kubectl = _watch_script(
        tmp_path,
        'if [ "$4" = pods ]; then printf \'{"type":"ADDED","object":{"pod":1}}\\n\'; '
        "exec sleep 30; fi\n"
        f"printf '%s' {_sh(event[:10])}\nsleep 0.3\nprintf '%s\\n' {_sh(event[10:])}\n"
        "exec sleep 30\n",
    )
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    seen = Recorder(decide=lambda seen: len(seen) == 2)
    started = time.monotonic()
    end = runner.watch_together([["get", "deployments"], ["get", "pods"]], seen, seconds=20,
                                wait=WAIT)  # fmt: skip
    assert end == (True, None)
    assert seen.seen == [(1, {"type": "ADDED", "object": {"pod": 1}}),
                         (0, {"type": "MODIFIED", "object": {"n": 2}})]  # fmt: skip
    assert time.monotonic() - started < KILLED_WITHIN


def test_what_a_watch_printed_is_judged_before_its_stderr_after_it(tmp_path: Path) -> None:
    """kubectl prints its list, then logs the watch request (``-v=6``): a list longer than
    one read of the pipe is judged whole before that line says it is complete."""
    big = json.dumps({"type": "ADDED", "object": {"pad": "x" * 200_000}})
    kubectl = _watch_script(
        tmp_path, f"printf '%s\\n' {_sh(big)}\necho listed >&2\nexec sleep 30\n"
    )
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    seen = Recorder(decide=lambda seen: seen[-1][1] == "stderr: listed")
    assert runner.watch_together([["get", "x"]], seen, seconds=20, wait=WAIT) == (True, None)
    assert [index for index, _ in seen.seen] == [0, 0]
    assert seen.seen[0][1]["object"]["pad"] == "x" * 200_000


def test_what_a_watch_printed_while_its_stderr_was_awaited_is_judged_before_that_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kubectl logs its list request, then prints the list and logs the watch request while
    we look from its stdout to its stderr: the stderr read then holds the watch line, and
    the list must still be judged first (judged after it, a listed Deployment read as
    "deleted")."""
    from kubectl_adapter.kubectl import watches

    go, done = tmp_path / "go", tmp_path / "done"
    os.mkfifo(go)
    os.mkfifo(done)
    event = {"type": "ADDED", "object": {"metadata": {"name": "web-1"}}}
    kubectl = _watch_script(
        tmp_path,
        "echo 'round_trippers.go:553] GET https://k/apis/apps/v1/namespaces/testns/deployments"
        "?limit=500 200 OK in 3 milliseconds' >&2\n"
        f"cat {go} >/dev/null\n"  # until our first read of its stderr
        f"printf '%s\\n' {_sh(json.dumps(event))}\n"
        "echo listed >&2\n"
        f"echo >{done}\n"
        "exec sleep 30\n",
    )
    stderrs: set[int] = set()
    real_spawn, real_read = watches.spawn, os.read

    def spawn(*args: Any) -> subprocess.Popen[Any]:
        proc = real_spawn(*args)
        assert proc.stderr is not None
        stderrs.add(proc.stderr.fileno())
        return proc

    class HeldOs:
        """``os`` for watches.py, whose first stderr read lets kubectl print its list and
        log its watch line just before the read (the gap a loaded machine opens)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def read(self, fd: int, size: int) -> bytes:
            if fd in stderrs:
                stderrs.clear()
                with open(go, "w"):
                    pass
                with open(done) as written:
                    written.read()
            return real_read(fd, size)

    monkeypatch.setattr(watches, "spawn", spawn)
    monkeypatch.setattr(watches, "os", HeldOs())
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    seen = Recorder(decide=lambda seen: seen[-1][1] == "stderr: listed")
    assert runner.watch_together([["get", "x"]], seen, seconds=20, wait=WAIT) == (True, None)
    assert seen.seen[0] == (0, event), seen.seen
    assert seen.seen[-1] == (0, "stderr: listed")


def test_watches_that_decide_nothing_end_with_their_bound(tmp_path: Path) -> None:
    kubectl = _watch_script(tmp_path, "printf '{\"n\": 1}\\n'\nexec sleep 30\n")
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    started = time.monotonic()
    end = runner.watch_together([["get", "x"], ["get", "y"]], Recorder(), seconds=1, wait=WAIT)
    assert end == (False, None)
    assert 1 <= time.monotonic() - started < KILLED_WITHIN


def test_watches_wake_their_judge_when_a_grace_ends(tmp_path: Path) -> None:
    kubectl = _watch_script(tmp_path, "exec sleep 30\n")
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    seen = Recorder(wake_in=0.5)
    started = time.monotonic()
    assert runner.watch_together([["get", "x"]], seen, seconds=20, wait=WAIT) == (True, None)
    assert seen.woke and 0.5 <= time.monotonic() - started < KILLED_WITHIN


def test_a_watch_the_server_ended_is_no_error(tmp_path: Path) -> None:
    """kubectl get --watch exits 0 when the server closes the watch or the connection drops:
    the wait starts it again."""
    kubectl = _watch_script(
        tmp_path, 'if [ "$4" = pods ]; then exec sleep 30; fi\nprintf \'{"n": 1}\\n\'\nexit 0\n'
    )
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    seen = Recorder()
    end = runner.watch_together([["get", "x"], ["get", "pods"]], seen, seconds=20, wait=WAIT)
    assert end == (None, None)
    assert seen.seen == [(0, {"n": 1})]


def test_a_watch_whose_kubectl_fails_says_the_mapped_error(tmp_path: Path) -> None:
    kubectl = _watch_script(
        tmp_path, "echo 'error: You must be logged in to the server (Unauthorized)' >&2\nexit 1\n"
    )
    runner = KubectlRunner(ClusterConfig(kubectl=kubectl, namespace="testns"))
    end = runner.watch_together([["get", "x"]], Recorder(), seconds=5, wait=WAIT)
    assert end.decided is None and isinstance(end.failure, Unauthorized)


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# -- the namespace when -n is not given, and kubectl's environment -------------------------------

CONTEXT_NS = [
    KUBECTL,
    "--request-timeout",
    "10s",
    "config",
    "view",
    "--minify",
    "-o",
    "jsonpath={.contexts[0].context.namespace}",
]


def test_context_namespace_is_the_contexts_exactly(fp: FakeProcess) -> None:
    """Not ``{..namespace}``: that also matches a cluster ``extensions`` entry's key."""
    fp.register(CONTEXT_NS, stdout="team-a")
    assert KubectlRunner(ClusterConfig()).context_namespace() == "team-a"


def test_context_without_a_namespace_means_default(fp: FakeProcess) -> None:
    fp.register(CONTEXT_NS, stdout="")
    assert KubectlRunner(ClusterConfig()).context_namespace() == "default"


def test_context_namespace_that_is_no_name_is_configuration_error(fp: FakeProcess) -> None:
    fp.register([KUBECTL, "--kubeconfig", "/etc/kc", *CONTEXT_NS[1:]], stdout="../x")
    with pytest.raises(ConfigurationError) as info:
        KubectlRunner(ClusterConfig(kubeconfig="/etc/kc")).context_namespace()
    assert info.value.details == {"namespace": "../x", "kubeconfig": "--kubeconfig /etc/kc"}


def test_the_namespace_lookup_is_bounded_like_a_read() -> None:
    """A hanging exec credential plugin (the Cloud SDK kubectl runs it even for `config
    view`) costs the read bound, not --call-timeout (60 s by default)."""
    config = ClusterConfig(request_timeout=2, call_timeout=60)
    assert default_bound(config, CONTEXT_NS[3:]) == 2 + READ_GRACE_SECONDS


@pytest.mark.parametrize(
    ("home", "expected"),
    [
        ("/dev/null", "/nonexistent"),
        ("dot-kube-file", "/nonexistent"),
        ("dot-kube-loop", "/nonexistent"),
        ("dot-kube-config-file", None),
        ("dot-kube-empty", None),
        (None, None),
    ],
)
def test_kubectl_gets_a_usable_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: str | None, expected: str | None
) -> None:
    """The Cloud SDK kubectl stats $HOME/.kube/config even with --kubeconfig and fails on any
    error but "no such file" (HOME=/dev/null, ~/.kube a file or a symlink loop); a HOME where
    that lookup works or finds nothing is left alone."""
    kube = tmp_path / ".kube"
    if home == "dot-kube-file":
        kube.write_text("x")
    elif home == "dot-kube-loop":
        kube.symlink_to(kube)
    elif home == "dot-kube-config-file":
        kube.mkdir()
        (kube / "config").write_text("apiVersion: v1\n")
    elif home == "dot-kube-empty":
        kube.mkdir()
    monkeypatch.setenv("HOME", home if home == "/dev/null" else str(tmp_path))
    env = kubectl_environment()
    assert (env["HOME"] if env is not None else None) == expected
