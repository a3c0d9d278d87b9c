"""One fault, one answer (issue 38): every fault class the adapter types, met by the first
kubectl call of every command, through the real kubectl against the fake API server.

Each row is a fault; each column a command. Whichever kubectl call meets the fault first
(the wait's watches a write starts before it, an apply, a read, a live feed's watch), the
command must end with the same error: type, exit code, message, whether Manager may retry
it, and ``writeSent`` false (no request that changes a workload left). A fault that no
kubectl call reaches (a kubectl that is not there) is typed before any runs.

The API's own refusals (401, 403, 5xx) carry one Status body on every request, as an API
server behind one policy answers, so that kubectl's message is the same whatever it asked.
Clusters are shared per fault (a fault that changes the server gets its own), and the cells
run at once in threads: the whole table is ~200 adapter processes (~50 CPU-seconds), its time
set by the feeds, which try an unreachable API for 30 s before they say so. Forms: status and
describe answer ``unknown`` with the error in their message (exit 0), check its report (``ok``
false, the error's exit code); a message's trailing kubectl command is the command's own words.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import trustme
import yaml

from tests.e2e.conftest import ROOT
from tests.fakecluster import FakeCluster

from .test_kubectl_version import kubectl_of

NAMESPACE = "testns"
NAME = "web"
PID = f"{NAMESPACE}/{NAME}"
SPEC = json.dumps({"containerId": "c-web", "nodeId": "7", "hostname": NAME,
                   "image": "nginx:latest", "cpus": 0.1, "memoryMb": 64})  # fmt: skip

# The first kubectl call of each command differs: the watches of the wait a write starts
# before it (start, stop, create: their first call, create's Deployment watch by name alone
# being its ownership check's read; reconfigure: after the read that builds the write), a
# read by name, a list, a live feed's watches.
COMMANDS: dict[str, tuple[list[str], str | None]] = {
    "create": (["create", "--spec", "-"], SPEC),
    "start": (["start", PID], None),
    "stop": (["stop", PID], None),
    "reconfigure": (["reconfigure", PID, "--spec", "-"], SPEC),
    "delete": (["delete", PID], None),
    "status": (["status", PID], None),
    "list": (["list"], None),
    "describe": (["-o", "json", "describe", PID], None),
    "network": (["network", PID], None),
    "check": (["check"], None),
    "list -w": (["list", "-w"], None),
    "status -w": (["status", "-w", PID], None),
}

# Manager's ``error.retryable`` (integrations/manager/lib/errors.js) for what a first call
# can meet: no Pod diagnostics, no ownership in question.
RETRYABLE = frozenset({"Unavailable", "Timeout", "Conflict", "Interrupted", "OutputFailed"})

STATUS_BODY = "the policy of this API server refuses every request of the fault table"


def status(code: int, reason: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": STATUS_BODY, "reason": reason, "code": code}  # fmt: skip


class Answer(NamedTuple):
    """What one command answered, as the table compares it. ``form``: ``error`` (the error
    document), ``unknown`` (status and describe answer a status ``unknown`` whose message is
    ``TYPE: MESSAGE``, exit 0: their contract), ``report`` (check's document, ``ok`` false,
    exit code as the error's), ``absent`` (the workload reported missing), ``running`` (no
    end within the cell's bound)."""

    form: str
    type: str | None
    code: int
    message: str
    retryable: bool
    write_sent: bool

    @staticmethod
    def of(code: int, doc: Any) -> Answer:
        if isinstance(doc, dict) and isinstance(doc.get("snapshot"), dict):
            doc = doc["snapshot"]  # describe's document: the status is its snapshot's
        error = doc.get("error") if isinstance(doc, dict) else None
        if isinstance(error, dict):
            details = error.get("details") or {}
            return Answer("error", error["type"], code, _own_words(error["message"]),
                          error["type"] in RETRYABLE, bool(details.get("writeSent")))  # fmt: skip
        if isinstance(doc, dict) and doc.get("status") == "unknown":
            kind, _, message = str(doc.get("message")).partition(": ")
            return Answer("unknown", kind, code, _own_words(message), kind in RETRYABLE, False)
        if isinstance(doc, dict) and doc.get("ok") is False:
            return Answer("report", None, code, "", False, False)
        if isinstance(doc, dict) and (doc.get("status") == "missing" or doc.get("alreadyMissing")):
            return Answer("absent", None, code, "", False, False)
        return Answer("other", None, code, json.dumps(doc)[:300], False, False)


# A message that names the kubectl command it ran ends with it: the command's own words
# (its verb, its flags, its fresh --cache-dir) are not the fault's.
_COMMAND = re.compile(r": kubectl --kubeconfig \S+ .*$")


def _own_words(message: str) -> str:
    return _COMMAND.sub(": <the command>", message)


class Fault(NamedTuple):
    """How a fault is set up: the CLI's flags and environment, given the shared cluster."""

    flags: list[str]
    env: dict[str, str]
    pid: str = PID


_runs = itertools.count()
# A cell that runs longer never ends. A feed's bound on an unreachable API is 30 s of
# restarts (live.py's UNREACHABLE_SECONDS); a first call's, at --request-timeout 3, 8 s
# without an answer. The rest is room for a loaded machine: the bar here is the answer, not
# the time (tests/reliability/test_request_bounds.py times the bounds).
CELL_SECONDS = 120
FEED_SECONDS = 90
WATCHING_SECONDS = 40


def run(workdir: Path, fault: Fault, command: str, seconds: float) -> Answer:
    args, stdin = COMMANDS[command]
    args = [fault.pid if arg == PID else arg for arg in args]
    argv = [sys.executable, "-m", "kubectl_adapter", "--cache-dir",
            str(workdir / f"cache-{next(_runs)}"), "--request-timeout", "3", "--timeout", "20",
            *fault.flags, *args]  # fmt: skip
    try:
        proc = subprocess.run(
            argv, input=stdin or "", capture_output=True, text=True, timeout=seconds,
            cwd=ROOT, env={**os.environ, "HOME": str(workdir), **fault.env}, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as running:
        printed = running.stdout or b""
        shown = printed.decode() if isinstance(printed, bytes) else printed
        return Answer("running", None, -1, shown.partition("\n")[0], False, False)
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        doc = {"stdout": proc.stdout, "stderr": proc.stderr[-800:]}
    return Answer.of(proc.returncode, doc)


def _kubeconfig(fake: FakeCluster, path: Path, change: Callable[[dict[str, Any]], None]) -> str:
    config = yaml.safe_load(fake.kubeconfig.read_text())
    change(config)
    path.write_text(json.dumps(config))
    return str(path)


def _users(user: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(config: dict[str, Any]) -> None:
        for entry in config["users"]:
            entry["user"] = dict(user)

    return change


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, Fault]]]:
    root = tmp_path_factory.mktemp("fault-table")
    fakes = {
        name: FakeCluster(root / name, namespaces=(NAMESPACE,), default_namespace=NAMESPACE)
        for name in ("main", "hole", "forbidden", "broken", "slow")
    }
    for fake in fakes.values():
        fake.start()
    try:
        main = fakes["main"]
        conn = ["--kubeconfig", str(main.kubeconfig), "--context", main.context]
        ns = ["-n", NAMESPACE]
        table: dict[str, Fault] = {}
        table["kubeconfig missing"] = Fault(["--kubeconfig", str(root / "nope.yaml"), *ns], {})
        (root / "a-directory").mkdir()
        table["kubeconfig unreadable"] = Fault(["--kubeconfig", str(root / "a-directory"), *ns], {})
        (root / "invalid.yaml").write_text("clusters: [this is: not a kubeconfig\n")
        table["kubeconfig invalid"] = Fault(["--kubeconfig", str(root / "invalid.yaml"), *ns], {})
        table["context missing"] = Fault(
            ["--kubeconfig", str(main.kubeconfig), "--context", "nosuchctx", *ns], {}
        )
        missing = {"client-certificate": str(root / "no-cert.pem"),
                   "client-key": str(root / "no-key.pem")}  # fmt: skip
        table["client certificate missing"] = Fault(
            ["--kubeconfig", _kubeconfig(main, root / "cert.json", _users(missing)), *ns], {}
        )
        key_only = {**missing, "client-certificate": str(root / "cert-a.pem")}
        ca = trustme.CA()
        one, other = ca.issue_cert("one"), ca.issue_cert("other")
        (root / "cert-a.pem").write_bytes(one.cert_chain_pems[0].bytes())
        (root / "key-b.pem").write_bytes(other.private_key_pem.bytes())
        table["client key missing"] = Fault(
            ["--kubeconfig", _kubeconfig(main, root / "key.json", _users(key_only)), *ns], {}
        )
        mismatched = {"client-certificate": str(root / "cert-a.pem"),
                      "client-key": str(root / "key-b.pem")}  # fmt: skip
        table["client certificate and key mismatched"] = Fault(
            ["--kubeconfig", _kubeconfig(main, root / "pair.json", _users(mismatched)), *ns], {}
        )

        def wrong_ca(config: dict[str, Any]) -> None:
            import base64

            for entry in config["clusters"]:
                pem = trustme.CA().cert_pem.bytes()
                entry["cluster"]["certificate-authority-data"] = base64.b64encode(pem).decode()

        table["CA wrong"] = Fault(["--kubeconfig", _kubeconfig(main, root / "ca.json", wrong_ca),
                                   *ns], {})  # fmt: skip
        port = _free_port()

        def refused(config: dict[str, Any]) -> None:
            for entry in config["clusters"]:
                entry["cluster"]["server"] = f"https://127.0.0.1:{port}"

        table["connection refused"] = Fault(
            ["--kubeconfig", _kubeconfig(main, root / "refused.json", refused), *ns], {}
        )
        table["401"] = Fault(
            ["--kubeconfig", _kubeconfig(main, root / "401.json", _users({"token": "revoked"})),
             *ns], {},
        )  # fmt: skip
        table["namespace missing"] = Fault([*conn, "-n", "no-such-ns"], {}, "no-such-ns/web")
        real = shutil.which("kubectl")
        assert real is not None
        table["kubectl missing"] = Fault([*conn, *ns, "--kubectl", str(root / "no-kubectl")], {})
        old = kubectl_of(root, "1.16.15", ["--show-managed-fields", "--cascade"])
        table["kubectl too old"] = Fault([*conn, *ns, "--kubectl", old], {})

        def of(name: str) -> list[str]:
            fake = fakes[name]
            return ["--kubeconfig", str(fake.kubeconfig), "--context", fake.context, *ns]

        fakes["hole"].black_hole(True)
        table["black hole"] = Fault(of("hole"), {})
        fakes["forbidden"].fail_next(1_000_000, 403, body=status(403, "Forbidden"))
        table["403"] = Fault(of("forbidden"), {})
        fakes["broken"].fail_next(1_000_000, 503, body=status(503, "ServiceUnavailable"))
        table["5xx"] = Fault(of("broken"), {})
        fakes["slow"].latency(5)
        table["answers slower than the bound"] = Fault(of("slow"), {})
        yield {name: (root, fault) for name, fault in table.items()}
    finally:
        fakes["hole"].black_hole(False)
        for fake in fakes.values():
            fake.stop()


@pytest.fixture(scope="module")
def answers(faults: dict[str, tuple[Path, Fault]]) -> dict[str, dict[str, Answer]]:
    """Every fault by every command, run at once."""
    cells = [(fault, command) for fault in faults for command in COMMANDS]
    feeds = [cell for cell in cells if cell[1] in FEEDS]
    quick = [cell for cell in cells if cell[1] not in FEEDS]

    def answer(cell: tuple[str, str]) -> Answer:
        return run(*faults[cell[0]], cell[1], _bound(*cell))

    # The feeds mostly wait (30 s of restarts, or no end): a thread each, beside the quick
    # cells, which share a few (each starts an interpreter and a kubectl or three).
    with ThreadPoolExecutor(len(feeds)) as slow, ThreadPoolExecutor(6) as fast:
        waiting = slow.map(answer, feeds)
        found = dict(zip(quick, fast.map(answer, quick), strict=True))
        found.update(zip(feeds, waiting, strict=True))
    found = {cell: found[cell] for cell in cells}
    table: dict[str, dict[str, Answer]] = {fault: {} for fault in faults}
    for (fault, command), answer_of_cell in found.items():
        table[fault][command] = answer_of_cell
    if os.environ.get("FAULT_TABLE_DUMP"):
        Path(os.environ["FAULT_TABLE_DUMP"]).write_text(
            "\n".join(f"{f}\n{_shown(row)}" for f, row in table.items())
        )
    return table


def _bound(fault: str, command: str) -> float:
    if command not in FEEDS:
        return CELL_SECONDS
    return WATCHING_SECONDS if (fault, command) in STILL_WATCHING else FEED_SECONDS


FAULTS = [
    "kubeconfig missing",
    "kubeconfig unreadable",
    "kubeconfig invalid",
    "context missing",
    "client certificate missing",
    "client key missing",
    "client certificate and key mismatched",
    "CA wrong",
    "connection refused",
    "black hole",
    "401",
    "403",
    "namespace missing",
    "5xx",
    "answers slower than the bound",
    "kubectl missing",
    "kubectl too old",
]


def _shown(row: dict[str, Answer]) -> str:
    return "\n" + "\n".join(f"  {command:12} {answer}" for command, answer in row.items())


FEEDS = ("list -w", "status -w")

# Rows that do not meet the bar yet, each with why (strict: a row that passes fails the run).
KNOWN: dict[str, str] = {}

# A live feed ends on every fault, within its bound when the API goes silent (live.py), but
# one that is none for it: status -w in a namespace that does not exist answers as status
# does (the workload missing) and waits for it to appear, as for any missing workload.
STILL_WATCHING = frozenset({("namespace missing", "status -w")})


def _params(known: dict[str, str]) -> list[Any]:
    return [
        pytest.param(fault, marks=pytest.mark.xfail(reason=known[fault], strict=True))
        if fault in known
        else fault
        for fault in FAULTS
    ]


@pytest.mark.parametrize("fault", _params(KNOWN))
def test_a_fault_is_typed_the_same_whichever_call_meets_it(
    answers: dict[str, dict[str, Answer]], fault: str
) -> None:
    row = {c: answer for c, answer in answers[fault].items() if (fault, c) not in STILL_WATCHING}
    shown = _shown(row)
    assert not any(answer.write_sent for answer in row.values()), shown
    assert not any(answer.form in ("running", "other") for answer in row.values()), shown
    typed = [a for a in row.values() if a.form in ("error", "unknown")]
    assert typed, shown
    codes = {a.code for a in row.values() if a.form in ("error", "report")}
    assert len(codes) == 1, shown  # check's report included
    if fault == "namespace missing":
        # The API's 404 for an object in a missing namespace names the object: only the
        # calls that read the namespace (create's apply, list's read of it) can say so.
        assert {(a.type, a.retryable) for a in typed} == {("NotFound", False)}, shown
        return
    assert len({(a.type, a.message, a.retryable) for a in typed}) == 1, shown
    assert typed[0].type != "InternalError", shown
    assert {a.form for a in row.values()} <= {"error", "unknown", "report"}, shown


@pytest.mark.parametrize("fault", FAULTS)
def test_a_feed_ends_on_the_fault(answers: dict[str, dict[str, Answer]], fault: str) -> None:
    row = {command: answers[fault][command] for command in FEEDS}
    shown = _shown(row)
    for command, answer in row.items():
        if (fault, command) in STILL_WATCHING:  # it shows the workload missing, and waits
            assert answer.form == "running", shown
            event = json.loads(answer.message)
            assert event["snapshot"]["status"] == "missing", shown
        else:
            assert answer.form != "running", shown
