"""``kubectl.transcript``: what an operator sees of the commands is bash that pastes as is."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from kubectl_adapter.contract.redact import MASK
from kubectl_adapter.kubectl.transcript import (
    Wait,
    command,
    display,
    kubectl_stderr,
    outcome,
    pasteable_manifest,
    watched,
    watches,
    whole_wait,
)

MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: "web-1"
  namespace: "ns"
  uid: "u-1"
  resourceVersion: "1234"
  labels:
    "a": "b"
spec:
  template:
    metadata:
      labels:
        "resourceVersion": "not-this-one"
"""
APPLY = ["/usr/bin/kubectl", "-n", "ns", "apply", "--server-side", "-f", "-"]
ROLLOUT = ["/usr/bin/kubectl", "-n", "ns", "rollout", "status", "deployment/web-1", "--timeout=10s"]


def bash_reads(text: str) -> list[list[str]]:
    """What bash runs of ``text``: each command's argv and its stdin, via a stub kubectl."""
    script = "kubectl() { printf '%s\\0' \"$@\"; printf '\\1'; cat; printf '\\2'; }\n" + text + "\n"
    done = subprocess.run(
        ["bash", "-e", "-c", script], capture_output=True, text=True, timeout=10, check=True
    )
    runs = []
    for chunk in done.stdout.split("\2")[:-1]:
        args, stdin = chunk.split("\1")
        runs.append([*args.split("\0")[:-1], stdin])
    return runs


def test_a_command_is_its_argv_shell_quoted_with_kubectl_not_its_path() -> None:
    argv = ["/usr/bin/kubectl", "-n", "ns", "get", "pods", "-l", "a in (b)", "-o", "json"]
    assert display(argv) == "kubectl -n ns get pods -l 'a in (b)' -o json"
    assert bash_reads(command(argv)) == [[*argv[1:], ""]]


def test_a_note_is_a_comment_after_the_command() -> None:
    line = command(["kubectl", "get", "x"], note="only if it changed")
    assert line == "kubectl get x  # only if it changed"
    assert shlex.split(line, comments=True) == ["kubectl", "get", "x"]


def test_a_manifest_on_stdin_follows_as_a_quoted_heredoc() -> None:
    text = 'kind: X\nvalue: "$HOME `id` \\\\n"\n'
    shown = command(APPLY, stdin=text, note="n")
    first = shown.splitlines()[0]
    assert first == "kubectl -n ns apply --server-side -f - <<'MANIFEST'  # n"
    # Quoted: nothing in it expands; bash hands kubectl exactly the text.
    assert bash_reads(shown) == [[*APPLY[1:], text]]


def test_the_heredoc_delimiter_never_occurs_in_the_manifest() -> None:
    text = "a: 1\nMANIFEST\nMANIFEST2\n"
    shown = command(APPLY, stdin=text)
    assert shown.endswith("\nMANIFEST3")
    assert bash_reads(shown) == [[*APPLY[1:], text]]


def test_a_pasted_apply_keeps_the_uid_and_leaves_out_the_resource_version() -> None:
    pasted, version = pasteable_manifest(MANIFEST)
    assert version == '"1234"'
    assert 'uid: "u-1"' in pasted
    assert '  resourceVersion: "1234"' not in pasted
    assert '"resourceVersion": "not-this-one"' in pasted  # only metadata's own field goes
    shown = command(APPLY, stdin=MANIFEST)
    assert 'the adapter sends resourceVersion "1234" too' in shown.splitlines()[0]
    assert bash_reads(shown)[0][-1] == pasted
    assert pasteable_manifest(pasted) == (pasted, None)


@pytest.mark.parametrize(("total", "shown"), [(0.2, "1s"), (2.5, "2s"), (90.6, "91s")])
def test_whole_wait_keeps_kubectls_whole_seconds(total: float, shown: str) -> None:
    assert whole_wait(ROLLOUT, total)[-1] == f"--timeout={shown}"
    assert whole_wait(["kubectl", "get", "x", "--timeout=foo"], 9)[-1] == "--timeout=foo"


def test_outcomes_are_comments_naming_kubectls_error_line() -> None:
    assert outcome(0, 0.123, "Warning: x\n") == "# exit 0 in 0.12 s"
    assert outcome(None, 25.0, "") == "# killed after 25.0 s (its time bound)"
    klog = 'E1130 01:41:10.384773   14350 memcache.go:265] "Unhandled Error"\n'
    said = outcome(1, 1.5, klog + "The connection to the server was refused\n")
    assert said == "# exit 1 in 1.50 s: The connection to the server was refused"
    assert outcome(1, 0.1, klog) == f"# exit 1 in 0.10 s: {klog.strip()}"


def test_secrets_never_reach_the_transcript() -> None:
    token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
    argv = ["kubectl", "--token", "s3cr3t-value", "get", "x"]
    assert "s3cr3t-value" not in command(argv)
    assert token not in command(APPLY, stdin=f"token: {token}\n")
    assert MASK in outcome(1, 0.1, f"error: token: {token}\n")
    assert kubectl_stderr(f"I1 loader.go] x\nAuthorization: Bearer {token}\n") == (
        f"# kubectl: I1 loader.go] x\n# kubectl: Authorization: {MASK}"
    )


WATCH = ["/usr/bin/kubectl", "-n", "ns", "get", "deployments", "-l", "m=true", "--field-selector",
         "metadata.name=web-1", "--watch", "-o", "json", "--output-watch-events"]  # fmt: skip


PODS = ["/usr/bin/kubectl", "-n", "ns", "get", "pods", "-l", "m=true", "--watch", "-o", "json",
        "--output-watch-events"]  # fmt: skip


def test_a_waits_watches_are_comments_and_the_wait_that_pastes_follows_them() -> None:
    """Pasted, a watch never ends: bash reads only the command that waits the same way,
    with the whole wait's --timeout; the watches that ran are named in comments, and so
    are they alone when started again after one broke off."""
    shown = watches([WATCH, PODS], Wait(300, True), ROLLOUT)
    assert bash_reads(shown) == [["-n", "ns", "rollout", "status", "deployment/web-1",
                                  "--timeout=300s", ""]]  # fmt: skip
    assert shown.startswith(
        f"# the adapter watches: {display(WATCH)}\n# and at once: {display(PODS)}\n"
    )
    again = watches([WATCH, PODS], Wait(300, False), ROLLOUT)
    assert bash_reads(again) == []
    assert again.startswith("# a watch broke off: watching again\n")


def test_a_read_whose_404_means_absent_goes_on_under_bash_e() -> None:
    get = ["/usr/bin/kubectl", "-n", "ns", "get", "deployment", "web-1", "-o", "json"]
    shown = command(get, absent=True)
    assert bash_reads(shown) == [["-n", "ns", "get", "deployment", "web-1", "-o", "json", ""]]
    assert shown.split("  # ", 1)[0].endswith(" -o json || true")
    assert '"absent"' in shown.split("#", 1)[1]
    fake = "kubectl() { echo 'Error from server (NotFound)' >&2; return 1; }\n"
    ran = subprocess.run(["bash", "-ec", fake + shown + "\necho went-on"], capture_output=True,
                         text=True, check=False)  # fmt: skip
    assert ran.returncode == 0 and ran.stdout == "went-on\n"


@pytest.mark.parametrize(
    ("ended", "returncode", "said"),
    [(True, None, "# the watches decided the wait after 1.20 s"),
     (False, None, "# the wait's time ran out after 1.2 s"),
     (None, 0, "# a watch ended after 1.20 s (the server closed it, or the connection)"),
     (None, 1, "# exit 1 in 1.20 s: error: boom")],
)  # fmt: skip
def test_a_waits_watches_end_in_a_comment(
    ended: bool | None, returncode: int | None, said: str
) -> None:
    assert watched(ended, returncode, 1.2, "error: boom\n") == said


PATCH = ["/usr/bin/kubectl", "-n", "ns", "patch", "deployment", "web-1", "-p", "[]", "-v=6"]


def test_kubectls_own_verbosity_is_left_out_of_a_pasted_line() -> None:
    """-v=6 (the run's way to type a 5xx whose body names no reason) would flood a paste."""
    assert command(PATCH) == "kubectl -n ns patch deployment web-1 -p '[]'"
    assert bash_reads(command(PATCH)) == [[*PATCH[1:-1], ""]]
    assert command(["/usr/bin/kubectl", "get", "pods", "--v=8"]) == "kubectl get pods"
    # -vv shows kubectl's stderr, and the command exactly as it ran
    assert command(PATCH, kubectl_verbosity=True).endswith(" -p '[]' -v=6")
    # only the flag: a value that merely looks like it stays
    assert command(["/usr/bin/kubectl", "get", "pods", "-l", "v=6"]) == "kubectl get pods -l v=6"
