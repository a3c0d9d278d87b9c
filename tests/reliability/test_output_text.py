"""Cluster text cannot drive the operator's terminal (issue 30): every control character (C0,
DEL, C1, ESC sequences) and every bidi, zero-width or other non-printing character, put into
every field the adapter reads from the cluster or from Manager's spec, reaches no human form
(``-o table``, ``-o wide``, ``-o yaml``, ``-o name``, ``describe``'s text, the error lines
and notes on stderr, the ``-v`` log) as itself, whatever the stream's encoding; ``-o json``
carries it exactly, in UTF-8.

In process, through the real CLI (``cli.main``), with a kubectl that answers from files:
the objects are as kubectl prints them (Go's JSON: C0 escaped, DEL, C1 and the rest raw).
``test_output_text_e2e.py`` does the same through the real kubectl against the fake cluster.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kubectl_adapter.cli import app as cli
from kubectl_adapter.cli.yaml_text import dump
from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.spec import parse_spec
from tests.k8s_objects import condition, deployment, event, kubectl_list, pod, replicaset

from .helpers import script
from .test_input_text import go_json

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
SEQUENCES = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b]52;c;ZXZpbA==\x07", "\x1b[1A\x1b[K", "\x9b31m",
             "\x1bP+q\x1b\\", "\r\x1b[K", "\x08\x08\x08", "\x1b7\x1b[H\x1b8"]  # fmt: skip
OTHERS = ["\u202e", "\u202d", "\u2066", "\u2069", "\u200e", "\u061c", "\u200b", "\u2028",
          "\u2029", "\ufeff", "\u00a0", "\ue000", "é", "😀"]  # fmt: skip
HOSTILE = st.lists(st.sampled_from([*C0, "\x7f", *C1, *SEQUENCES, *OTHERS]), min_size=1).map(
    "".join
)
# Where the text goes, by its source: every string the human forms show from the cluster.
FIELDS = [
    "image", "pod name", "node name", "pod ip", "waiting reason", "waiting message",
    "deployment condition message", "deployment condition reason", "pod condition message",
    "event reason", "event message", "event source", "label value", "annotation value",
    "field manager", "node kubelet version", "node allocatable",
]  # fmt: skip
# Read but shown by no form (JSON included): there to prove nothing leaks from them either.
NOT_SHOWN = {"label value", "annotation value"}
ENCODINGS = ["utf-8", "ascii", "latin-1"]


def objects(text: str, field: str) -> dict[str, Any]:
    """A failing workload, its events and its node, with ``text`` in ``field``."""
    at = {name: (f"x{text}y" if name == field else None) for name in FIELDS}
    dep = deployment(
        "web-1",
        available=0,
        image="nginx:latest" if at["image"] is None else at["image"],
        conditions=[
            condition(
                "Available",
                "False",
                at["deployment condition reason"] or "MinimumReplicasUnavailable",
                at["deployment condition message"] or "Deployment lacks minimum availability.",
            ),
            condition("Progressing", "True", "ReplicaSetUpdated"),
        ],
    )  # fmt: skip
    # kubectl-set changed the image: server-side apply moved its ownership from Manager (a
    # field both own has one value, which is no drift).
    dep["metadata"]["managedFields"] = [
        {"manager": "opensource-server-manager", "operation": "Apply", "apiVersion": "apps/v1",
         "time": "2026-11-30T00:00:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:containers": {
             'k:{"name":"main"}': {".": {}, "f:name": {}}}}}}}},
        {"manager": at["field manager"] or "kubectl-set", "operation": "Update",
         "apiVersion": "apps/v1", "time": "2026-11-30T00:01:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:containers": {
             'k:{"name":"main"}': {"f:image": {}}}}}}}},
    ]  # fmt: skip
    if at["label value"]:
        dep["metadata"]["labels"]["team"] = at["label value"]
    if at["annotation value"]:
        dep["metadata"]["annotations"]["note"] = at["annotation value"]
    rs = replicaset(dep)
    waiting = (at["waiting reason"] or "ErrImagePull", at["waiting message"] or "pull failed")
    p = pod(rs, ready=False, ip=at["pod ip"] or "10.244.0.5", waiting=waiting)
    if at["pod name"]:
        p["metadata"]["name"] = at["pod name"]
    p["spec"]["nodeName"] = at["node name"] or "fake-node-1"
    p["status"]["conditions"][-1]["message"] = at["pod condition message"] or "containers not ready"
    p["status"]["containerStatuses"][0]["image"] = dep["spec"]["template"]["spec"]["containers"][0][
        "image"
    ]
    ev = event("Pod", p["metadata"]["name"], at["event reason"] or "Failed",
               at["event message"] or "Error: ErrImagePull")  # fmt: skip
    ev["source"]["component"] = at["event source"] or "kubelet"
    node = {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": at["node name"] or "fake-node-1"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}],
                   "allocatable": {"cpu": at["node allocatable"] or "4", "memory": "8Gi",
                                   "pods": "110"},
                   "nodeInfo": {"kubeletVersion": at["node kubelet version"] or "v1.32.0"},
                   "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]},
    }  # fmt: skip
    return {"workload": [dep, rs, p], "events": [ev], "nodes": [node]}


def go_list(items: list[dict[str, Any]]) -> str:
    """A ``kubectl get -o json`` List, written as kubectl (Go) writes it."""
    return go_json(json.loads(kubectl_list(items)))


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kubectl answering from files: events, nodes, or the workload; a ``fail`` file makes it
    fail with that text on stderr, as kubectl does (exit 1)."""
    where = tmp_path_factory.mktemp("kubectl")
    script(
        where / "kubectl",
        f'cd "{where}"\n'
        'if [ -f fail ]; then cat fail >&2; exit 1; fi\n'
        'case "$*" in\n'
        '  *" events "*) cat events.json ;;\n'
        '  *" nodes "*) cat nodes.json ;;\n'
        '  *) cat workload.json ;;\n'
        "esac\n",
    )  # fmt: skip
    return where


def serve(stub: Path, found: dict[str, Any], failure: str | None = None) -> None:
    for name, items in found.items():
        (stub / f"{name}.json").write_text(go_list(items), encoding="utf-8")
    fail = stub / "fail"
    if failure is None:
        fail.unlink(missing_ok=True)
    else:
        fail.write_bytes(failure.encode("utf-8"))


class Terminal(io.TextIOWrapper):
    """A stream in ``encoding`` that says it is a terminal (describe's default is its text)."""

    def __init__(self, encoding: str, tty: bool = True) -> None:
        super().__init__(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def fileno(self) -> int:  # no descriptor: written through the text layer
        raise io.UnsupportedOperation("fileno")

    def text(self) -> str:
        self.flush()
        data = self.buffer.getvalue()  # type: ignore[attr-defined]
        return str(data.decode(self.encoding))


def run(
    monkeypatch: pytest.MonkeyPatch, stub: Path, encoding: str, *argv: str, tty: bool = True
) -> tuple[int, str, str]:
    out, err = Terminal(encoding, tty), Terminal(encoding, tty)
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        code = cli.main(["--kubectl", str(stub / "kubectl"), "-n", "testns", *argv])
    return code, out.text(), err.text()


def holds(document: Any, text: str) -> bool:
    """Whether some string in the JSON ``document`` carries ``text`` exactly."""
    if isinstance(document, str):
        return text in document
    if isinstance(document, dict):
        return any(holds(k, text) or holds(v, text) for k, v in document.items())
    if isinstance(document, list):
        return any(holds(item, text) for item in document)
    return False


def assert_readable(text: str, encoding: str, what: str) -> None:
    """Nothing a terminal acts on but the line feed; every character in ``encoding``."""
    text.encode(encoding)
    bad = sorted({f"U+{ord(c):04X}" for c in text if c != "\n" and not c.isprintable()})
    assert not bad, f"{what}: {bad} reached the terminal:\n{text}"


HUMAN = [
    ("-o", "table", "status", "testns/web-1"),
    ("-o", "wide", "status", "testns/web-1"),
    ("-o", "yaml", "status", "testns/web-1"),
    ("-o", "name", "list"),
    ("-o", "wide", "list"),
    ("describe", "testns/web-1"),  # a terminal: describe's text
    ("-o", "yaml", "describe", "testns/web-1"),
    ("-o", "table", "nodes"),
    ("-v", "-o", "table", "status", "testns/web-1"),
]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=HOSTILE, field=st.sampled_from(FIELDS), encoding=st.sampled_from(ENCODINGS))
@example(text="\x1b[2J\x1b]0;pwned\x07\x08\r\x7f\x85\x9b\u202e", field="image", encoding="utf-8")
@example(text="é\u202e😀", field="event message", encoding="ascii")
def test_no_cluster_text_drives_the_terminal_and_json_stays_exact(
    monkeypatch: pytest.MonkeyPatch, stub: Path, text: str, field: str, encoding: str
) -> None:
    found = objects(text, field)
    serve(stub, found)
    for argv in HUMAN:
        code, out, err = run(monkeypatch, stub, encoding, *argv)
        assert code == 0, (argv, err)
        assert_readable(out, encoding, f"{argv} stdout")
        assert_readable(err, encoding, f"{argv} stderr")
        if "yaml" in argv:  # valid YAML, the exact value read back
            as_json = run(monkeypatch, stub, encoding, *argv[:1], "json", *argv[2:])[1]
            assert yaml.safe_load(out) == json.loads(as_json)
    # JSON: the text exactly, as json.dumps writes it (ASCII: \u escapes), whatever the locale
    carried = []
    for argv in (("status", "testns/web-1"), ("describe", "testns/web-1"), ("nodes",)):
        code, out, _ = run(monkeypatch, stub, encoding, "-o", "json", *argv, tty=False)
        document = json.loads(out)
        assert out == json.dumps(document) + "\n"
        carried.append(document)
    if field not in NOT_SHOWN:
        assert any(holds(found, f"x{text}y") for found in carried), field


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=HOSTILE, encoding=st.sampled_from(ENCODINGS))
def test_kubectls_error_text_reaches_stderr_escaped(
    monkeypatch: pytest.MonkeyPatch, stub: Path, text: str, encoding: str
) -> None:
    """kubectl's stderr (the API server's message in it) in a person's error line, the -v
    log's kubectl lines; in the JSON error document as json.dumps writes it (what redaction
    leaves of it: redact.py may mask a part that looks like a credential)."""
    serve(stub, objects("", "none"), failure=f"Error from server (InternalError): x{text}y\n")
    code, out, err = run(monkeypatch, stub, encoding, "-vv", "-o", "table", "nodes")
    assert code != 0 and out == ""
    assert "Error (" in err and "# kubectl: " in err
    assert_readable(err, encoding, "error line")
    for argv in (("-o", "yaml", "nodes"), ("-o", "table", "status", "testns/web-1")):
        code, out, err = run(monkeypatch, stub, encoding, *argv)  # status: unknown, and why
        assert_readable(out, encoding, f"{argv} stdout")
        assert_readable(err, encoding, f"{argv} stderr")
    for argv in (("nodes",), ("status", "testns/web-1")):
        code, out, _ = run(monkeypatch, stub, encoding, *argv, tty=False)
        assert out == json.dumps(json.loads(out)) + "\n"
        assert holds(json.loads(out), "Error from server (InternalError): x")


@settings(max_examples=300, deadline=None)
@given(
    document=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=12,
    ),
    encoding=st.sampled_from(ENCODINGS),
)
def test_yaml_for_a_terminal_is_exact_and_shows_nothing_raw(document: Any, encoding: str) -> None:
    """Any JSON document (any text in keys and values): ``-o yaml`` escapes inside double
    quotes only, so it reads back exactly and the terminal door has nothing left to change."""
    from kubectl_adapter.cli.terminal_text import shown

    text = dump(document, encoding=encoding)
    assert shown(text, encoding) == text
    assert_readable(text, encoding, "yaml")
    assert yaml.safe_load(text) == document


SPEC_FIELDS = ["containerId", "nodeId", "hostname", "image", "env value", "env name",
               "entrypoint"]  # fmt: skip


def hostile_spec(text: str, field: str) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containerId": "42", "nodeId": "7", "hostname": "web-1", "image": "nginx:latest",
        "cpus": 1, "memoryMb": 64, "env": {"KEY": "value"}, "entrypoint": ["nginx", "-g", "x"],
    }  # fmt: skip
    if field == "env value":
        spec["env"]["KEY"] = f"x{text}y"
    elif field == "env name":
        spec["env"] = {f"K{text}": "value"}
    elif field == "entrypoint":
        spec["entrypoint"] = ["sh", f"x{text}y"]
    else:
        spec[field] = f"x{text}y"
    return spec


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=HOSTILE, field=st.sampled_from(SPEC_FIELDS), encoding=st.sampled_from(ENCODINGS))
@example(text="\r\u202e\t\u2028\ufeff", field="env value", encoding="ascii")
def test_no_spec_text_drives_the_terminal(
    monkeypatch: pytest.MonkeyPatch, stub: Path, text: str, field: str, encoding: str
) -> None:
    """Manager's spec, accepted (env values may hold tab, CR, LF, bidi controls) or refused
    (its InvalidInput names the value): no human form shows it raw."""
    spec_file = stub / "spec.json"
    spec = hostile_spec(text, field)
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    try:
        parse_spec(spec)
        refused = 0
    except InvalidInput:
        refused = InvalidInput.exit_code
    serve(
        stub,
        objects("", "none"),
        failure='Error from server (NotFound): deployments.apps "web-1" not found\n',
    )
    forms = [("-o", "table", "create"), ("--dry-run", "-o", "yaml", "create"),
             ("--dry-run", "-o", "table", "create"), ("-v", "--dry-run", "-o", "table", "create"),
             ("-o", "table", "reconfigure", "testns/web-1"), ("render",)]  # fmt: skip
    for argv in forms:
        code, out, err = run(monkeypatch, stub, encoding, *argv, "--spec", str(spec_file))
        if "--dry-run" in argv or argv == ("render",):  # written whole, never exit 11
            assert code == refused, (argv, err)
        assert_readable(out, encoding, f"{argv} stdout")
        assert_readable(err, encoding, f"{argv} stderr")
    code, out, _ = run(
        monkeypatch, stub, encoding, "--dry-run", "create", "--spec", str(spec_file), tty=False
    )
    assert out == json.dumps(json.loads(out)) + "\n"
