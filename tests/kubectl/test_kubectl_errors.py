"""classify() against the exact stderr kubectl 1.32 printed in every recorded failure.

The fixtures are copies of the research captures (``tests/fixtures/kubectl-stderr``): one
``<case>.stderr.txt`` per run and ``index.tsv`` (case, exit code, command, condition, last
stderr line). Every non-zero case in the index must have an expectation below. The cases the
research did not cover (410, a proxy's HTML page, a non-PEM client certificate, HOME not a
directory, ``-n ../x``) were captured the same way, from the real kubectl 1.32 against the
fake API server; their condition column says so.
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest
from pytest_subprocess import FakeProcess

from kubectl_adapter.contract.errors import (
    AdapterError,
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
from kubectl_adapter.kubectl.classify import explain_kubeconfig
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.kubectl_errors import ERROR_TABLE, clean_stderr, main_message, match
from kubectl_adapter.kubectl.requests_log import read
from kubectl_adapter.kubectl.runner import KubectlRunner


def classify(command: str, code: int, stderr: str, *, timed_out: bool = False) -> AdapterError:
    """The table's error for a run, its log read as the classification reads it."""
    return match(command, code, stderr, read(stderr), timed_out=timed_out)


FIXTURES = Path(__file__).parent.parent / "fixtures" / "kubectl-stderr"
KLOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] ", re.M)


def load_index() -> dict[str, dict[str, str]]:
    with (FIXTURES / "index.tsv").open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        return {row["case"]: row for row in rows}


INDEX = load_index()
FAILED = {case: row for case, row in INDEX.items() if row["exit_code"] != "0"}


def stderr_of(case: str) -> str:
    return (FIXTURES / f"{case}.stderr.txt").read_text(encoding="utf-8")


def _each(template: str, verbs: str, error: type[AdapterError]) -> dict[str, type[AdapterError]]:
    return {template.format(verb): error for verb in verbs.split()}


EXPECTED: dict[str, type[AdapterError]] = {
    # -- apply input errors (kubectl refuses before any request) --------------------------
    "apply-bad-yaml": InvalidInput,
    "apply-empty-stdin": InvalidInput,
    "apply-ns-mismatch-explicit": InvalidInput,
    # Usage errors: the adapter's own command line was wrong (or kubectl too old for it).
    # errors.py puts "bad flag, usage" under InvalidInput; the reason says it was kubectl's.
    "apply-force-without-ssa": InvalidInput,
    "delete-cascade-bogus": InvalidInput,
    # kubectl 1.32's can-i has no -o: a flag this kubectl does not know (issue 26).
    "cani-list-json": ConfigurationError,
    # can-i "no" exits 1 with empty stderr: nothing to recognise, so it stays InternalError
    # (the adapter asks permissions through SelfSubjectAccessReview, never `auth can-i`).
    "cani-no": InternalError,
    "cani-no-reason": InternalError,
    # -- connection and configuration (§14) ----------------------------------------------
    **_each("conn-{}-refused", "apply delete get scale version", Unavailable),
    **_each("conn-{}-nxdomain", "apply delete get scale", Unavailable),
    **_each("conn-{}-tlsonhttp", "apply delete get scale", Unavailable),
    # The server's certificate is not the kubeconfig CA's: the node's configuration, never
    # an outage worth retrying (Manager's issue #460 asks for TLS failures typed).
    **_each("conn-{}-tls-unknown-ca", "apply get", ConfigurationError),
    **_each("conn-{}-hang", "apply delete get scale", Unavailable),
    "conn-get-hang-default": Unavailable,
    # A missing $KUBECONFIG silently means localhost:8080; kubectl only says "refused".
    "conn-get-kubeconfig-env-missing": Unavailable,
    **_each("conn-{}-nocontext", "apply delete get getmulti scale version", ConfigurationError),
    **_each("conn-{}-nokubeconfig", "apply delete get scale", ConfigurationError),
    # -- apply without OpenAPI (the "failed to download openapi" family) -------------------
    "csa-openapi-404": Unavailable,
    "ssa-openapi-404": Unavailable,
    "ssa-create-nofv": Unavailable,
    # -- the status matrix (§13) ----------------------------------------------------------
    **_each("err-{}-401", "apply delete get scale", Unauthorized),
    "err-apply-401-allpaths": Unauthorized,  # wrapped in "failed to download openapi"
    "err-get-401-allpaths": Unauthorized,
    "err-get-401-rawbody": Unauthorized,
    "err-cani-ssar-401": Unauthorized,
    **_each("err-{}-403", "apply delete get scale", Forbidden),
    "err-get-403-discovery": Forbidden,
    "err-cani-ssar-403": Forbidden,
    **_each("err-{}-404", "apply delete get scale", NotFound),
    "err-apply-404-namespace": NotFound,
    **_each("err-{}-409", "apply delete get", Conflict),
    "err-apply-409-multi": Conflict,
    # scale retries 409 for 5 minutes, then says only this: without -v=6 evidence it is a
    # timeout (with it, a Conflict: see test_scale_409_loop_*).
    "err-scale-409": Timeout,
    **_each("err-{}-422", "apply delete get scale", InvalidInput),
    "err-apply-422-multi": InvalidInput,
    "err-apply-400-strict-unknown-field": InvalidInput,
    **_each("err-{}-429", "apply delete get scale", Unavailable),
    "err-get-429-noretryafter": Unavailable,
    **_each("err-{}-500", "apply delete get scale", Unavailable),
    "err-get-500-text": Unavailable,
    "err-get-502-html": Unavailable,
    **_each("err-{}-503", "apply delete get scale", Unavailable),
    "err-get-503-allpaths": Unavailable,
    "err-get-503-html": Unavailable,
    "err-get-503-retryafter": Unavailable,
    **_each("err-{}-hang-op", "apply delete get scale", Unavailable),
    # Something other than the API server answered at its URL with 200 (a proxy's page,
    # text/plain or HTML): kubectl cannot decode it. Not the adapter's bug, and a `status`
    # must answer `unknown` rather than fail, so Unavailable (issue 20).
    "err-get-200-garbage": Unavailable,
    "err-get-200-html": Unavailable,
    "err-get-200-html-allpaths": Unavailable,
    # 410 Expired/Gone: a stale read; a new one may succeed (issue 20: was InternalError).
    "err-get-410-expired": Unavailable,
    "err-get-410-gone": Unavailable,
    "err-scale-410-expired": Unavailable,
    # Not worth retrying: the kubeconfig's client certificate is not PEM (was Unavailable
    # through "tls: "), and HOME is not a directory (the dispatcher stats ~/.kube/config even
    # with --kubeconfig; the runner avoids it, this is the classification if it happens).
    "conn-get-bad-client-cert": ConfigurationError,
    "conn-get-home-devnull": ConfigurationError,
    "get-invalid-namespace": InvalidInput,
    # The wait's watch refused (401) ends in "timed out": typed by the refusal the klog
    # lines show (the runner stops such a wait at the second refusal, not at its timeout).
    "rollout-401-during": Unauthorized,
    **_each("err-min-{}", "delete-empty list-nokind scale-empty ssa-empty-obj", InternalError),
    # -- named objects ----------------------------------------------------------------------
    "delete-notfound": NotFound,
    "get-byname-notfound": NotFound,
    "rollout-notfound": NotFound,
    "rollout-nsnotfound": NotFound,
    "rollout-deleted-during": NotFound,
    # A bare 404 with no object named: discovery or /version is not served at that URL.
    # "NotFound" would claim the Deployment is gone, so it is Unavailable.
    "get-empty-nodisc": Unavailable,
    "probe404-get": Unavailable,
    "version-404": Unavailable,
    # -- waits ------------------------------------------------------------------------------
    "rollout-deadline": RolloutFailed,
    "rollout-deadline-during": RolloutFailed,
    "rollout-nowatch-support": Timeout,
    "rollout-timeout-unobserved": Timeout,
    "scale-timeout": Timeout,
    "delete-fg-timeout": Timeout,
    "wait-delete-timeout": Timeout,
}

# Cases whose message is not simply the last stderr line: the error spans several lines.
MESSAGES = {
    # One fault, one message, whichever call met it (issue 38): apply's OpenAPI wrapper is
    # worded as a get meeting the same refusal, the same certificate, the same 401.
    "conn-apply-refused": "The connection to the server 127.0.0.1:33713 was refused - did you "
    "specify the right host or port?",
    "conn-apply-tls-unknown-ca": "Unable to connect to the server: tls: failed to verify "
    "certificate: x509: certificate signed by unknown authority",
    "conn-getmulti-nocontext": 'error: context "nosuchctx" does not exist',
    "err-apply-401-allpaths": "error: You must be logged in to the server (the server has asked "
    "for the client to provide credentials)",
    "err-apply-409": "error: Apply failed with 1 conflict: conflict with "
    '"kubectl-client-side-apply" using apps/v1: .spec.replicas',
    "err-apply-409-multi": 'error: Apply failed with 2 conflicts: conflicts with "kubectl-client-'
    'side-apply" using apps/v1: .spec.replicas; .spec.template.spec.containers[name="main"].image',
    "err-apply-422-multi": 'The Deployment "web-1" is invalid: spec.replicas: Invalid value: -1: '
    "must be greater than or equal to 0; spec.template.spec.containers[0].image: Required value",
    "cani-list-json": "this kubectl does not know a flag the adapter passes ('o' in -o): the "
    "adapter needs kubectl v1.21 or newer",
    "rollout-401-during": "Unauthorized while waiting: kubectl rollout status deployment/web-1 "
    "--timeout=10s",
    "cani-no": "kubectl exited with status 1",
    "cani-no-reason": "kubectl exited with status 1",
}


def test_every_failed_case_has_an_expectation() -> None:
    assert sorted(FAILED) == sorted(EXPECTED)


def test_every_fixture_is_in_the_index() -> None:
    files = {p.name.removesuffix(".stderr.txt") for p in FIXTURES.glob("*.stderr.txt")}
    assert files == set(INDEX)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_recorded_failure_is_classified(case: str) -> None:
    row = FAILED[case]
    stderr = stderr_of(case)
    error = classify(row["command"], int(row["exit_code"]), stderr)

    assert type(error) is EXPECTED[case]
    assert (error.type, error.exit_code) == (EXPECTED[case].type, EXPECTED[case].exit_code)
    assert error.message == MESSAGES.get(case, row["last_stderr_line"].rstrip())
    assert error.details["command"] == row["command"]
    assert error.details["exitCode"] == int(row["exit_code"])
    if stderr.strip():
        assert error.details["stderr"]
    if type(error) is not InternalError:
        assert error.details["reason"]
    # klog noise never reaches the message or the details.
    assert not KLOG.search(error.message)
    assert not KLOG.search(error.details.get("stderr", ""))
    assert "memcache.go" not in error.message + error.details.get("stderr", "")


def test_klog_lines_are_stripped_and_the_real_line_is_the_message() -> None:
    stderr = stderr_of("conn-get-refused")
    assert stderr.count("memcache.go") == 5
    error = classify("kubectl get deployments", 1, stderr)
    assert isinstance(error, Unavailable)
    assert error.message == (
        "The connection to the server 127.0.0.1:33713 was refused - did you specify the right "
        "host or port?"
    )
    assert error.details["stderr"] == error.message
    assert error.details["reason"] == "connection refused"


def test_command_is_in_details_and_redacted() -> None:
    error = classify("kubectl --token=abcdefgh123 get pods", 1, stderr_of("err-get-403"))
    assert error.details["command"] == "kubectl --token=[REDACTED] get pods"


def test_unknown_failure_is_internal_error_with_the_real_line() -> None:
    error = classify("kubectl get pods", 1, "something odd happened\nand then this\n")
    assert type(error) is InternalError
    assert error.message == "and then this"
    assert error.details["stderr"] == "something odd happened\nand then this"
    assert "reason" not in error.details


def test_empty_stderr_says_the_exit_status() -> None:
    error = classify("kubectl get pods", 3, "")
    assert type(error) is InternalError
    assert error.message == "kubectl exited with status 3"
    assert "stderr" not in error.details


def test_klog_only_stderr_is_internal_error_with_the_exit_status() -> None:
    error = classify("kubectl rollout status", 1, stderr_of("rollout-nowatch-support-done"))
    assert type(error) is InternalError
    assert error.message == "kubectl exited with status 1"


# -- process timeouts and the scale 409 loop -----------------------------------------------

V6_409 = (
    "I1130 01:51:23.194942   21725 loader.go:402] Config loaded from file:  kc\n"
    "I1130 01:51:23.306915   21725 round_trippers.go:560] GET https://127.0.0.1:6443/apis/apps/v1"
    "/namespaces/testns/deployments/web-1 200 OK in 7 milliseconds\n"
    "I1130 01:51:23.406915   21725 round_trippers.go:560] PATCH https://127.0.0.1:6443/apis/apps/"
    "v1/namespaces/testns/deployments/web-1/scale 409 Conflict in 3 milliseconds\n"
    "I1130 01:51:24.406915   21725 round_trippers.go:560] PATCH https://127.0.0.1:6443/apis/apps/"
    "v1/namespaces/testns/deployments/web-1/scale 409 Conflict in 2 milliseconds\n"
)
V6_OK = (
    "I1130 01:51:23.306915   21725 round_trippers.go:560] GET https://127.0.0.1:6443/apis/apps/v1"
    "/namespaces/testns/deployments/web-1 200 OK in 7 milliseconds\n"
)


@pytest.mark.parametrize("stderr", ["", V6_OK, "Waiting for something...\n"])
def test_timed_out_process_is_timeout(stderr: str) -> None:
    error = classify("kubectl rollout status deployment/web-1", -1, stderr, timed_out=True)
    assert type(error) is Timeout
    assert error.exit_code == 7
    assert "kubectl rollout status deployment/web-1" in error.message
    assert error.details["reason"] == "process timeout"
    assert error.details["exitCode"] == -1
    assert "round_trippers" not in error.details.get("stderr", "")


def test_timed_out_process_that_kept_getting_409_is_conflict() -> None:
    error = classify("kubectl scale deployment/web-1 --replicas=0 -v=6", -1, V6_409, timed_out=True)
    assert type(error) is Conflict
    assert error.exit_code == 6
    assert "409 Conflict" in error.message
    assert error.details["reason"] == "kubectl kept retrying 409 Conflict"


def test_timed_out_wins_over_any_stderr_text() -> None:
    # Even if kubectl printed something that looks like another error before it was killed.
    error = classify("kubectl get pods", -1, stderr_of("err-get-401"), timed_out=True)
    assert type(error) is Timeout


def test_scale_409_loop_without_evidence_is_timeout() -> None:
    error = classify("kubectl scale deployment/web-1", 1, stderr_of("err-scale-409"))
    assert type(error) is Timeout
    assert error.message == "error: context deadline exceeded"


def test_scale_409_loop_with_v6_evidence_is_conflict() -> None:
    error = classify("kubectl scale deployment/web-1", 1, V6_409 + stderr_of("err-scale-409"))
    assert type(error) is Conflict
    assert error.message == "error: context deadline exceeded"
    assert error.details["reason"] == "kubectl kept retrying 409 Conflict"


def test_context_deadline_is_recognised_after_other_lines() -> None:
    stderr = "Warning: something harmless\n" + V6_OK + "error: context deadline exceeded\n"
    assert type(classify("kubectl scale", 1, stderr)) is Timeout


# -- warnings, multi-line errors, rules added beyond the captures ------------------------------


def test_warnings_never_decide_the_error() -> None:
    stderr = (
        'Warning: would violate PodSecurity "restricted:latest": pods "x" is forbidden: '
        "tls: x509: EOF\n" + stderr_of("rollout-nowatch-support")
    )
    error = classify("kubectl rollout status", 1, stderr)
    assert type(error) is Timeout
    assert error.message == "error: timed out waiting for the condition"
    assert "Warning: would violate" in error.details["stderr"]


def test_warning_before_a_real_error_is_not_the_message() -> None:
    stderr = stderr_of("err-apply-200-warning-header") + stderr_of("err-apply-401")
    error = classify("kubectl apply", 1, stderr)
    assert type(error) is Unauthorized
    assert error.message == "error: You must be logged in to the server (Unauthorized)"


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        # client-go exec credential plugin missing: a configuration problem, not an outage.
        (
            "Unable to connect to the server: getting credentials: exec: executable "
            "gke-gcloud-auth-plugin not found",
            ConfigurationError,
        ),
        # Client-side schema validation (CSA with OpenAPI v2): the manifest is wrong.
        (
            'error: error validating "STDIN": error validating data: ValidationError('
            'Deployment.spec): unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec; '
            "if you choose to ignore these errors, turn validation off with --validate=false",
            InvalidInput,
        ),
        (
            'Error from server: error when creating "STDIN": admission webhook "policy.example" '
            "denied the request: image registry not allowed",
            InvalidInput,
        ),
        # YAML that ends early is the input's fault even though it says EOF.
        (
            "error: error parsing STDIN: error converting YAML to JSON: yaml: line 3: "
            "unexpected EOF",
            InvalidInput,
        ),
        (
            "Unable to connect to the server: tls: failed to verify certificate: x509: "
            'certificate is valid for kubernetes, kubernetes.default, not "10.0.0.9"',
            ConfigurationError,
        ),
        (
            "Unable to connect to the server: tls: failed to verify certificate: x509: "
            "certificate has expired or is not yet valid: current time 2026-12-01T20:00:00Z is "
            "after 2026-11-30T00:00:00Z",
            ConfigurationError,
        ),
        ("Unable to connect to the server: net/http: TLS handshake timeout", Unavailable),
        ("Unable to connect to the server: EOF", Unavailable),
        ("error: unexpected EOF", Unavailable),
        ("Error from server: etcdserver: leader changed", Unavailable),
        # `create -f -` (the wait's permission review) maps its kind by discovery first: an
        # API that does not answer it is an outage, not the adapter's bug (was InternalError).
        (
            'error: unable to recognize "STDIN": Get "https://127.0.0.1:45171/api?timeout=1s": '
            "context deadline exceeded",
            Unavailable,
        ),
        ('Error from server (AlreadyExists): deployments.apps "web-1" already exists', Conflict),
        ("Error from server (Unauthorized): Unauthorized", Unauthorized),
        # A kubectl older than a flag the adapter passes is the node's configuration (issue 26).
        (
            "Error: unknown flag: --server-side\nSee 'kubectl apply --help' for usage.",
            ConfigurationError,
        ),
    ],
)
def test_other_realistic_failures(stderr: str, expected: type[AdapterError]) -> None:
    assert type(classify("kubectl x", 1, stderr + "\n")) is expected


def test_every_rule_names_a_reason_and_a_real_error() -> None:
    for rule in ERROR_TABLE:
        assert rule.reason
        assert issubclass(rule.error, AdapterError) and rule.error is not AdapterError


# -- the helpers ----------------------------------------------------------------------------


def test_clean_stderr_drops_klog_and_blank_lines_and_redacts() -> None:
    stderr = V6_409 + "\n\nerror: You must be logged in\n   \ntoken: abcdefgh1234\n"
    assert clean_stderr(stderr) == "error: You must be logged in\ntoken: [REDACTED]"


def test_a_line_kubectl_repeats_is_kept_once() -> None:
    """A wrong --context on status's read of three kinds: kubectl says it three times."""
    stderr = stderr_of("conn-getmulti-nocontext")
    assert stderr.count('context "nosuchctx" does not exist') == 3
    error = classify(INDEX["conn-getmulti-nocontext"]["command"], 1, stderr)
    assert type(error) is ConfigurationError
    assert error.details["stderr"] == 'context "nosuchctx" does not exist'
    # worded as a call of one kind words it (issue 38: one fault, one message)
    assert error.message == 'error: context "nosuchctx" does not exist'


def test_distinct_lines_keep_their_order_and_only_repeats_go() -> None:
    klog = "E1130 01:41:10.384773 14350 x.go:1] b"
    stderr = f"error: b\nWarning: a\nerror: b\n{klog}\nc\nWarning: a\n"
    assert clean_stderr(stderr) == "error: b\nWarning: a\nc"
    # a multi-line report (a 422 with several causes) loses nothing
    cleaned = 'The Deployment "web-1" is invalid: \n* a: bad\n* b: worse'
    assert clean_stderr(cleaned) == cleaned.replace(": \n", ":\n")


def test_main_message_prefers_the_first_error_line() -> None:
    assert main_message("some context\nerror: the real one\nmore") == "error: the real one"
    assert main_message("Warning: x\nlast line") == "last line"
    assert main_message("Warning: only a warning") == "Warning: only a warning"
    assert main_message("") == ""


def test_main_message_joins_the_items_of_a_multi_line_error() -> None:
    cleaned = 'The Deployment "web-1" is invalid:\n* a: bad\n* b: worse\nunrelated'
    assert main_message(cleaned) == 'The Deployment "web-1" is invalid: a: bad; b: worse'


# -- captured from kubectl 1.32.4 against tests/fakecluster with injected faults ---------------
# (tests/reliability drives the same faults end to end).

_CAPTURES = json.loads((FIXTURES.parent / "kubectl-fault-captures.json").read_text("utf-8"))
_TYPES = {cls.__name__: cls for cls in (Unauthorized, Forbidden, NotFound, Conflict, Unavailable)}
_TYPES["ConfigurationError"] = ConfigurationError
FAULT_CAPTURES: dict[str, tuple[str, type[AdapterError]]] = {
    case: (row["stderr"], _TYPES[row["type"]]) for case, row in _CAPTURES["cases"].items()
}
V6_SCALE_502 = (
    "I1130 23:15:01.581487    9236 loader.go:402] Config loaded from file:  /tmp/f/kubeconfig\n"
    "I1130 23:15:01.583665    9236 round_trippers.go:560] GET https://127.0.0.1:41701/api"
    "?timeout=3s 200 OK in 1 milliseconds\n"
    "I1130 23:15:01.671842    9236 round_trippers.go:560] GET https://127.0.0.1:41701/apis/apps"
    "/v1/namespaces/testns/deployments/web-1?timeout=3s 502 Bad Gateway in 1 milliseconds\n"
    "error: no objects passed to scale injected failure 502\n"
)


@pytest.mark.parametrize("case", sorted(FAULT_CAPTURES))
def test_injected_fault_is_classified_by_its_cause(case: str) -> None:
    stderr, expected = FAULT_CAPTURES[case]
    error = classify("kubectl scale deployment/web-1 --replicas=1 -v=6", 1, stderr)
    assert type(error) is expected, (case, error.details.get("reason"))
    assert error.details["stderr"] == stderr.strip()


def test_scale_read_failure_is_never_invalid_input() -> None:
    # The prefix alone once made every API fault during scale look like bad input (exit 2).
    for case, (stderr, _) in FAULT_CAPTURES.items():
        if case.startswith("scale-get-"):
            assert not isinstance(classify("kubectl scale", 1, stderr), InvalidInput), case


def test_no_objects_without_a_cause_is_still_input() -> None:
    assert type(classify("kubectl apply -f -", 1, stderr_of("apply-empty-stdin"))) is InvalidInput


def test_a_5xx_no_rule_knows_is_unavailable_by_the_v6_response_line() -> None:
    error = classify("kubectl scale deployment/web-1 --replicas=1 -v=6", 1, V6_SCALE_502)
    assert type(error) is Unavailable
    assert error.details["reason"] == "API server answered 502"
    assert error.message == "error: no objects passed to scale injected failure 502"


def test_immutable_selector_says_the_name_belongs_to_another_container() -> None:
    stderr, _ = FAULT_CAPTURES["apply-selector-immutable"]
    error = classify("kubectl apply --server-side -f -", 1, stderr)
    assert type(error) is Conflict and error.exit_code == 6
    assert error.message.startswith("a Deployment named web-1 now belongs to another container")
    assert "field is immutable" in error.message


def test_other_invalid_deployments_stay_invalid_input() -> None:
    stderr = (
        'The Deployment "web-1" is invalid: spec.template.spec.containers[0].image: '
        "Required value\n"
    )
    assert type(classify("kubectl apply", 1, stderr)) is InvalidInput


# -- which kubeconfig ---------------------------------------------------------------------


def test_no_kubeconfig_turns_localhost_8080_refused_into_configuration_error() -> None:
    refused = classify("kubectl get pods", 1, stderr_of("conn-get-kubeconfig-env-missing"))
    assert type(refused) is Unavailable
    error = explain_kubeconfig(refused, "/home/u/.kube/config", usable=False)
    assert type(error) is ConfigurationError and error.exit_code == 9
    assert "/home/u/.kube/config" in error.message
    assert error.details["kubeconfig"] == "/home/u/.kube/config"
    assert error.details["command"] == "kubectl get pods"


def test_a_kubeconfig_that_does_not_exist_is_named_missing() -> None:
    # kubectl config view words a missing --kubeconfig as "current-context must exist".
    stderr = FAULT_CAPTURES["config-view-no-kubeconfig"][0]
    found = classify("kubectl config view", 1, stderr)
    error = explain_kubeconfig(found, "--kubeconfig /etc/k/none", usable=False, missing=True)
    assert type(error) is ConfigurationError
    assert error.message == "kubeconfig not found: --kubeconfig /etc/k/none"
    assert error.details["reason"] == "kubeconfig missing"
    assert error.details["kubeconfig"] == "--kubeconfig /etc/k/none"


def test_a_tls_failure_says_so_and_carries_no_certificate() -> None:
    error = classify("kubectl get pods", 1, stderr_of("conn-get-tls-unknown-ca"))
    assert type(error) is ConfigurationError and error.exit_code == 9
    assert error.details["reason"] == "TLS verification failed"
    assert "x509: certificate signed by unknown authority" in error.message
    assert "BEGIN CERTIFICATE" not in str(error.details)


def test_a_usable_kubeconfig_keeps_localhost_8080_refused_an_outage() -> None:
    # A kubeconfig may really point at localhost:8080 (kubectl proxy): then it is down.
    refused = classify("kubectl get pods", 1, stderr_of("conn-get-kubeconfig-env-missing"))
    assert explain_kubeconfig(refused, "--kubeconfig kc", usable=True) is refused


def test_another_refused_server_is_never_a_configuration_error() -> None:
    refused = classify("kubectl get pods", 1, stderr_of("conn-get-refused"))
    assert explain_kubeconfig(refused, "~/.kube/config", usable=False) is refused


@pytest.mark.parametrize(
    "case", ["config-view-unknown-context", "config-view-no-kubeconfig", "conn-get-nocontext"]
)
def test_configuration_errors_name_the_kubeconfig(case: str) -> None:
    stderr = FAULT_CAPTURES[case][0] if case in FAULT_CAPTURES else stderr_of(case)
    error = explain_kubeconfig(classify("kubectl config view", 1, stderr), "$KUBECONFIG=a:b", False)
    assert type(error) is ConfigurationError
    assert error.message.endswith("(kubeconfig: $KUBECONFIG=a:b)")
    assert error.details["kubeconfig"] == "$KUBECONFIG=a:b"


# -- through the runner (pytest-subprocess plays kubectl with the captured stderr) ------------


@pytest.fixture
def kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


SCALE = ["scale", "deployment/web-1", "--replicas=0", "-v=6"]


@pytest.mark.usefixtures("kubectl_on_path")
@pytest.mark.parametrize("case", sorted(c for c in FAULT_CAPTURES if c.startswith("scale-")))
def test_runner_types_a_failed_scale_read_by_its_cause(fp: FakeProcess, case: str) -> None:
    stderr, expected = FAULT_CAPTURES[case]
    fp.register(["kubectl", "-n", "testns", fp.any()], stderr=stderr, returncode=1)
    runner = KubectlRunner(ClusterConfig(namespace="testns"))
    with pytest.raises(AdapterError) as info:
        runner.run(SCALE)
    assert type(info.value) is expected, info.value.to_json()


@pytest.mark.usefixtures("kubectl_on_path")
def test_runner_calls_localhost_8080_a_configuration_error_without_a_kubeconfig(
    fp: FakeProcess, tmp_path: Path
) -> None:
    missing = tmp_path / "missing.yaml"
    fp.register(
        ["kubectl", "--kubeconfig", str(missing), fp.any()],
        stderr=stderr_of("conn-get-kubeconfig-env-missing"),
        returncode=1,
    )
    with pytest.raises(ConfigurationError) as info:
        KubectlRunner(ClusterConfig(kubeconfig=str(missing))).run(["get", "pods"])
    assert f"--kubeconfig {missing}" in info.value.message


@pytest.mark.usefixtures("kubectl_on_path")
@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: Config\ncurrent-context: proxy\n",
        '{"apiVersion": "v1", "kind": "Config", "current-context": "proxy"}',
    ],
)
def test_runner_keeps_localhost_8080_an_outage_with_a_current_context(
    fp: FakeProcess, tmp_path: Path, text: str
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(text)
    fp.register(
        ["kubectl", "--kubeconfig", str(kubeconfig), fp.any()],
        stderr=stderr_of("conn-get-kubeconfig-env-missing"),
        returncode=1,
    )
    with pytest.raises(Unavailable):
        KubectlRunner(ClusterConfig(kubeconfig=str(kubeconfig))).run(["get", "pods"])


@pytest.mark.usefixtures("kubectl_on_path")
def test_runner_names_the_kubeconfig_env_list(
    fp: FakeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"
    monkeypatch.setenv("KUBECONFIG", listed)
    fp.register(
        ["kubectl", fp.any()], stderr="error: cannot locate context nosuchctx\n", returncode=1
    )
    with pytest.raises(ConfigurationError) as info:
        KubectlRunner(ClusterConfig(context="nosuchctx")).context_namespace()
    assert info.value.details["kubeconfig"] == f"$KUBECONFIG={listed}"
