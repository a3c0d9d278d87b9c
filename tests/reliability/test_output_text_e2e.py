"""Cluster text cannot drive the operator's terminal, and a locale is not a closed pipe
(issue 30), end to end: the real CLI on real pseudo-terminals, the real kubectl, the fake API
server holding hostile text (an image set by ``kubectl set image``, the kubelet's messages
that echo it, Events, an API server's error message, a readiness probe's and an eviction's
words, a Node's fields).

What reaches a terminal may hold no control character but the adapter's own: the line end
(``\\r\\n`` once the terminal's line discipline has it) and the progress line's ``\\r\\x1b[K``.
Under ``LC_ALL=POSIX`` (Python told not to use UTF-8: an ASCII stream) and a latin-1 locale,
the human forms are written whole, escaped where the locale cannot show a character, exit 0;
JSON stays exact and UTF-8 (``json.dumps``' ASCII) everywhere.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
import yaml

from tests.e2e.conftest import ROOT, WAIT_TIMEOUT, Cluster, spec
from tests.e2e.terminal import _drain

NAME = "org.mieweb.opensource-server.name"
# What a hostile name or message holds: clear screen, window title, OSC 52 clipboard
# write, cursor up + erase, C1 CSI, NEL, BEL, backspace, CR, DEL, a bidi override.
HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[1A\x1b[K\x9b31m\x85\x08\r\x7f\u202e"
IMAGE = f"nginx:1{HOSTILE}é"
OWN = ("\r\x1b[K", "\r\n")  # the progress line's erase; a line end on a terminal


class Seen(NamedTuple):
    code: int
    out: bytes
    err: bytes


def on_terminal(cluster: Cluster, *args: str, env: dict[str, str] | None = None) -> Seen:
    """``kubectl-adapter ARGS`` with stdout and stderr on terminals, as bytes."""
    argv = [sys.executable, "-m", "kubectl_adapter", *cluster._conn_flags(), "-n",
            cluster.namespace, "--cache-dir", cluster._cache_dir(), "--timeout", WAIT_TIMEOUT,
            *args]  # fmt: skip
    terminals = [pty.openpty(), pty.openpty()]
    for _, slave in terminals:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=terminals[0][1], stderr=terminals[1][1],
        cwd=ROOT, env={**os.environ, "TERM": "xterm", **(env or {})},
    )  # fmt: skip
    chunks: list[list[bytes]] = [[], []]
    readers = []
    for (master, slave), into in zip(terminals, chunks, strict=True):
        os.close(slave)
        reader = threading.Thread(target=_drain, args=(master, into), daemon=True)
        reader.start()
        readers.append(reader)
    code = proc.wait(timeout=120)
    for reader in readers:
        reader.join(timeout=30)
    for master, _ in terminals:
        os.close(master)
    return Seen(code, b"".join(chunks[0]), b"".join(chunks[1]))


def readable(data: bytes, encoding: str = "utf-8") -> str:
    """What the terminal got, decoded; fails naming any control character not the adapter's."""
    text = data.decode(encoding)
    rest = text
    for own in OWN:
        rest = rest.replace(own, "\n")
    bad = sorted({f"U+{ord(c):04X}" for c in rest if c != "\n" and not c.isprintable()})
    assert not bad, f"{bad} reached the terminal:\n{text}"
    return text.replace("\r\n", "\n")


@pytest.fixture(scope="module")
def hostile(cluster: Cluster) -> Iterator[dict[str, str]]:
    """A workload whose image, Pods' messages and Events hold ``HOSTILE``: its provider ID,
    name and current Pod."""
    fake = cluster.require_fake()
    name, cid = cluster.workload("hostile")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created.doc
    # Someone (kubectl set image, another controller) puts the text in the cluster.
    cluster.kubectl("set", "image", f"deployment/{name}", f"main={IMAGE}")

    def invalid() -> Any:
        for found in fake.list("pods", cluster.namespace, label_selector=f"{NAME}={name}"):
            for status in found.get("status", {}).get("containerStatuses") or []:
                if status.get("state", {}).get("waiting", {}).get("reason") == "InvalidImageName":
                    return found
        return None

    failing = fake.wait_for(invalid, timeout=30, message=f"{name}: never InvalidImageName")
    pod_name = failing["metadata"]["name"]
    fake.create_object(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{pod_name}.hostile", "namespace": cluster.namespace},
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod_name,
                "namespace": cluster.namespace,
                "uid": failing["metadata"]["uid"],
            },
            "reason": f"Hostile{HOSTILE}",
            "message": f"event says {HOSTILE}",
            "source": {"component": f"kubelet{HOSTILE}"},
            "type": "Warning",
            "count": 2,
            "firstTimestamp": failing["metadata"]["creationTimestamp"],
            "lastTimestamp": failing["metadata"]["creationTimestamp"],
        }
    )
    yield {"pid": f"{cluster.namespace}/{name}", "name": name, "pod": pod_name}


HUMAN_FORMS = [
    ("-o", "table", "status"),
    ("-o", "wide", "status"),
    ("-o", "yaml", "status"),
    ("describe",),  # a terminal: describe's text
    ("-o", "yaml", "describe"),
    ("-vv", "-o", "table", "status"),
]


@pytest.mark.parametrize("form", HUMAN_FORMS, ids=" ".join)
def test_hostile_cluster_text_is_shown_escaped(
    cluster: Cluster, hostile: dict[str, str], form: tuple[str, ...]
) -> None:
    seen = on_terminal(cluster, *form, hostile["pid"])
    assert seen.code == 0, seen
    out = readable(seen.out)
    readable(seen.err)
    assert "\\x1b[2J" in out, out  # visible, never run
    if "yaml" in form:  # still YAML, and the exact value
        document = yaml.safe_load(out)
        snapshot = document.get("snapshot", document)
        assert snapshot["image"] == IMAGE


def test_describe_shows_every_hostile_field_escaped(
    cluster: Cluster, hostile: dict[str, str]
) -> None:
    text = readable(on_terminal(cluster, "describe", hostile["pid"]).out)
    shown = (
        "\\x1b[2J\\x1b]0;pwned\\a\\x1b]52;c;ZXZpbA==\\a\\x1b[1A\\x1b[K"
        "\\u009b31m\\u0085\\b\\r\\x7f\\u202e"
    )
    assert f"Image:         nginx:1{shown}é\n" in text, text
    assert f"event says {shown}" in text and f"Hostile{shown}" in text, text
    assert 'InvalidImageName: Failed to apply default image tag "nginx:1' + shown in text, text


def test_json_carries_the_text_exactly(cluster: Cluster, hostile: dict[str, str]) -> None:
    status = cluster.adapter("status", hostile["pid"])
    assert status.code == 0 and status.doc["image"] == IMAGE
    document = cluster.adapter("describe", hostile["pid"], "-o", "json").doc
    assert any(e["message"] == f"event says {HOSTILE}" for e in document["events"])
    # on a terminal too: JSON is never escaped beyond JSON's own \u escapes
    seen = on_terminal(cluster, "-o", "json", "status", hostile["pid"])
    assert json.loads(seen.out.replace(b"\r\n", b"\n"))["image"] == IMAGE


def test_a_wait_its_progress_and_its_error_lines_show_the_text_escaped(
    cluster: Cluster, hostile: dict[str, str]
) -> None:
    """stop, then start: the wait's progress line (kubectl's words, the Pod's reason) and
    the RolloutFailed lines on stderr, which quote the kubelet's message with the image."""
    stop = cluster.adapter("stop", hostile["pid"])
    assert stop.code == 0, stop.doc
    seen = on_terminal(cluster, "-o", "table", "start", hostile["pid"], "--timeout", "6")
    assert seen.code in (7, 10), seen  # RolloutFailed (or Timeout on a loaded machine)
    err = readable(seen.err)
    assert "Error (" in err and "nginx:1\\x1b[2J" in err, err
    assert "\r\x1b[K" in seen.err.decode(), "no progress line was drawn"


def test_drift_pointer_list_and_names(cluster: Cluster, hostile: dict[str, str]) -> None:
    seen = on_terminal(cluster, "-o", "wide", "list")
    assert seen.code == 0
    readable(seen.out)
    err = readable(seen.err)
    assert f"{hostile['pid']} drifted from what Manager applied" in err
    readable(on_terminal(cluster, "-o", "name", "list").out)


def test_an_api_servers_error_message_reaches_stderr_escaped(cluster: Cluster) -> None:
    fake = cluster.require_fake()
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500,
            "reason": "InternalError", "message": f"etcd says {HOSTILE}"}  # fmt: skip
    fake.fail_next(5, 500, method="GET", path_regex=r"/api/v1/nodes", body=body)
    try:
        seen = on_terminal(cluster, "-vv", "-o", "table", "nodes")
    finally:
        fake.clear_faults()
    assert seen.code == 8, seen  # Unavailable
    err = readable(seen.err)
    assert "etcd says \\x1b[2J" in err, err


def test_a_probes_and_an_evictions_words_are_shown_escaped(cluster: Cluster) -> None:
    fake = cluster.require_fake()
    name, cid = cluster.workload("hostile-ready")
    created = cluster.adapter("create", "--spec", "-", stdin=spec(name, cid))
    assert created.code == 0, created.doc
    (running,) = fake.list("pods", cluster.namespace, label_selector=f"{NAME}={name}")
    fake.set_pod_ready(cluster.namespace, running["metadata"]["name"], False,
                       probe_message=f"probe {HOSTILE}")  # fmt: skip
    text = readable(on_terminal(cluster, "describe", f"{cluster.namespace}/{name}").out)
    assert "Readiness probe failed: probe \\x1b[2J" in text, text
    fake.evict_pod(cluster.namespace, running["metadata"]["name"], message=f"evicted {HOSTILE}",
                   reason=f"Evicted{HOSTILE}")  # fmt: skip
    text = readable(on_terminal(cluster, "describe", f"{cluster.namespace}/{name}").out)
    assert "evicted \\x1b[2J" in text or "Evicted\\x1b[2J" in text, text


def test_a_mistyped_word_is_named_escaped(cluster: Cluster) -> None:
    seen = on_terminal(cluster, f"lsit{HOSTILE}")
    assert seen.code == 2
    err = readable(seen.err)
    assert 'unknown command "lsit\\x1b[2J' in err, err


def test_a_nodes_fields_are_shown_escaped(cluster: Cluster) -> None:
    fake = cluster.require_fake()
    fake.create_object(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "hostile-node"},
            "spec": {"unschedulable": True},
            "status": {
                "conditions": [{"type": "Ready", "status": "False", "reason": HOSTILE}],
                "allocatable": {"cpu": f"4{HOSTILE}", "memory": "8Gi", "pods": "110"},
                "nodeInfo": {"kubeletVersion": f"v1.32.0{HOSTILE}"},
            },
        }
    )
    try:
        seen = on_terminal(cluster, "-o", "table", "nodes")
        assert seen.code == 0, seen
        assert "v1.32.0\\x1b[2J" in readable(seen.out)
        readable(on_terminal(cluster, "-o", "yaml", "nodes").out)
    finally:
        fake.delete_object("nodes", "", "hostile-node")


# -- (b) a locale that is not UTF-8 --------------------------------------------------------


@pytest.fixture(scope="module")
def latin1(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A latin-1 locale, compiled for the test (no system one is installed here)."""
    where = tmp_path_factory.mktemp("locale")
    made = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(where / "en_US.ISO-8859-1")],
        capture_output=True,
        check=False,
    )
    if not (where / "en_US.ISO-8859-1").exists():
        pytest.skip(f"localedef could not build a latin-1 locale: {made.stderr!r}")
    return {"LOCPATH": str(where), "LC_ALL": "en_US.ISO-8859-1"}


LOCALES = {
    # Python's UTF-8 mode would take POSIX for UTF-8 (PEP 540): told not to, as an
    # environment may, its streams are ASCII.
    "POSIX": ({"LC_ALL": "POSIX", "PYTHONUTF8": "0"}, "ascii"),
    "C": ({"LC_ALL": "C", "PYTHONUTF8": "0"}, "ascii"),
    "POSIX, UTF-8 mode": ({"LC_ALL": "POSIX"}, "utf-8"),
    "PYTHONIOENCODING=latin-1": ({"PYTHONIOENCODING": "latin-1"}, "latin-1"),
}


@pytest.mark.parametrize("which", [*LOCALES, "latin-1 locale"])
def test_a_locale_that_cannot_show_the_text_gets_it_escaped_not_exit_11(
    cluster: Cluster, hostile: dict[str, str], which: str, request: pytest.FixtureRequest
) -> None:
    if which == "latin-1 locale":
        env, encoding = request.getfixturevalue("latin1"), "latin-1"
    else:
        env, encoding = LOCALES[which]
    describe = on_terminal(cluster, "-o", "table", "describe", hostile["pid"], env=env)
    assert describe.code == 0, describe
    text = readable(describe.out, encoding)
    image_line = next(line for line in text.splitlines() if line.startswith("Image:"))
    assert image_line.endswith("\\u202eé" if encoding != "ascii" else "\\u202e\\u00e9"), text
    as_yaml = on_terminal(cluster, "-o", "yaml", "describe", hostile["pid"], env=env)
    assert as_yaml.code == 0, as_yaml
    assert yaml.safe_load(readable(as_yaml.out, encoding))["snapshot"]["image"] == IMAGE
    for form in (("-o", "table", "status"), ("-o", "wide", "list")):
        seen = on_terminal(cluster, *form, *([hostile["pid"]] if "status" in form else []), env=env)
        assert seen.code == 0, seen
        readable(seen.out, encoding)
        readable(seen.err, encoding)
    # JSON: UTF-8 (json.dumps' ASCII), exactly the text, whatever the locale
    as_json = on_terminal(cluster, "-o", "json", "status", hostile["pid"], env=env)
    assert as_json.code == 0
    assert json.loads(as_json.out.decode("utf-8"))["image"] == IMAGE


def test_json_on_a_pipe_is_exact_under_every_locale(
    cluster: Cluster, hostile: dict[str, str], latin1: dict[str, str]
) -> None:
    for env in [{}, *(e for e, _ in LOCALES.values()), latin1]:
        proc = subprocess.run(
            [sys.executable, "-m", "kubectl_adapter", *cluster._conn_flags(), "-n",
             cluster.namespace, "--cache-dir", cluster._cache_dir(), "status", hostile["pid"]],
            capture_output=True, cwd=ROOT, env={**os.environ, **env}, timeout=120, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        document = json.loads(proc.stdout.decode("utf-8"))
        assert document["image"] == IMAGE
        assert proc.stdout == (json.dumps(document) + "\n").encode("utf-8"), env
