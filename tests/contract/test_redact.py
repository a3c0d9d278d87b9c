"""No credential survives into a message, a detail, a log line or the CLI's output."""

from __future__ import annotations

import json
import logging
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pytest_subprocess import FakeProcess

from kubectl_adapter.cli import app as cli
from kubectl_adapter.contract import redact as redact_module
from kubectl_adapter.contract.errors import AdapterError, InternalError, Unauthorized, Unavailable
from kubectl_adapter.contract.naming import name_selector
from kubectl_adapter.contract.redact import MASK, redact, redact_value, register_secret
from kubectl_adapter.kubectl import commands
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.kubectl_errors import match
from kubectl_adapter.kubectl.requests_log import read
from kubectl_adapter.kubectl.runner import KubectlRunner

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kubectl-stderr"

JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ"
    ".eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6dGVzdG5zOnNhIn0"
    ".c2lnbmF0dXJlLXNlY3JldC12YWx1ZQ"
)
STATIC = "s3cr3t-static-token-4242"
KEY_DATA = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB"
CERT_DATA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lC"
PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw"
SECRETS = (JWT, STATIC, KEY_DATA, CERT_DATA, PEM_BODY, "hunter2-password", "pa55w0rd-in-url")


@pytest.fixture(autouse=True)
def no_registered_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact_module, "_known_secrets", set())


@pytest.fixture
def kubectl_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


# -- planted secrets ----------------------------------------------------------------------

PLANTED = [
    (f"Authorization: Bearer {STATIC}", STATIC),
    (f"authorization: bearer {STATIC}", STATIC),
    (f'curl -v -XGET -H "Authorization: Bearer {STATIC}" https://10.0.0.1:6443/api', STATIC),
    (f'{{"Authorization": ["Bearer {STATIC}"]}}', STATIC),
    ("Authorization: Bearer abc", "abc"),  # a header hides even a short credential
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    (f"the request carried Bearer {STATIC} and failed", STATIC),
    (f"    token: {STATIC}", STATIC),
    (f'    token: "{STATIC}"', STATIC),
    ('    token: "two words"', "two words"),
    (f'{{"kind": "Config", "token": "{STATIC}"}}', STATIC),
    (f'{{"token":"{STATIC}"}}', STATIC),
    (f"kubectl --token={STATIC} get pods", STATIC),
    (f"kubectl --token {STATIC} get pods", STATIC),
    (f"https://10.0.0.1:6443/api?token={STATIC}", STATIC),
    ("    password: hunter2-password", "hunter2-password"),
    ("    id-token: hunter2-password", "hunter2-password"),
    ("    refresh-token: hunter2-password", "hunter2-password"),
    ("    client-secret: hunter2-password", "hunter2-password"),
    (f"    client-key-data: {KEY_DATA}", KEY_DATA),
    (f"    client-certificate-data: {CERT_DATA}", CERT_DATA),
    (f"--client-key-data={KEY_DATA}", KEY_DATA),
    (
        f"before\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n"
        "-----END RSA PRIVATE KEY-----\nafter",
        PEM_BODY,
    ),
    (f"-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\n(truncated", PEM_BODY),
    (f"token {JWT} expired", JWT),
    (f'error: the token "{JWT}" is not valid', JWT),
    ("Get https://admin:pa55w0rd-in-url@10.0.0.1:6443/api", "pa55w0rd-in-url"),
]


@pytest.mark.parametrize(("text", "secret"), PLANTED)
def test_planted_secret_never_survives(text: str, secret: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert MASK in redacted


def test_the_key_stays_readable() -> None:
    assert redact(f"    token: {STATIC}") == f"    token: {MASK}"
    assert redact(f"kubectl --token={STATIC} get pods") == f"kubectl --token={MASK} get pods"
    assert redact(f"Authorization: Bearer {STATIC}") == f"Authorization: {MASK}"
    assert redact(f"x Bearer {STATIC} y") == f"x Bearer {MASK} y"
    assert redact("https://u:pa55w0rd-in-url@h/") == f"https://u:{MASK}@h/"


def test_a_kubeconfig_dump_keeps_no_credential() -> None:
    kubeconfig = f"""apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: {CERT_DATA}
    server: https://10.0.0.1:6443
  name: prod
users:
- name: sa
  user:
    token: {JWT}
- name: admin
  user:
    client-certificate-data: {CERT_DATA}
    client-key-data: {KEY_DATA}
- name: basic
  user:
    username: admin
    password: hunter2-password
"""
    redacted = redact(kubeconfig)
    assert_clean(redacted)
    assert "server: https://10.0.0.1:6443" in redacted
    assert "username: admin" in redacted


def test_registered_secret_is_masked_anywhere() -> None:
    register_secret("opaque-value-7")
    assert redact("the server said opaque-value-7 is wrong") == f"the server said {MASK} is wrong"


def test_longer_registered_secret_is_masked_before_its_prefix() -> None:
    register_secret("abcdef")
    register_secret("abcdef-and-more")
    assert redact("x abcdef-and-more y") == f"x {MASK} y"


def test_too_short_secrets_are_not_registered() -> None:
    register_secret("abc")
    assert redact("abc is a word") == "abc is a word"


def test_redact_value_walks_json_and_hides_credential_keys() -> None:
    value = {
        "command": f"kubectl --token={STATIC} get pods",
        "nested": [{"stderr": f"token: {STATIC}"}, ("Bearer " + STATIC,)],
        "token": "short",
        "clientSecret": "tiny",
        "count": 3,
        "ok": True,
        "none": None,
    }
    redacted = redact_value(value)
    assert_clean(json.dumps(redacted))
    assert redacted["token"] == MASK
    assert redacted["clientSecret"] == MASK
    assert redacted["count"] == 3 and redacted["ok"] is True and redacted["none"] is None
    assert redacted["command"] == f"kubectl --token={MASK} get pods"


# -- ordinary text is left alone ----------------------------------------------------------


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.stderr.txt")), ids=lambda p: p.name)
def test_kubectl_messages_are_unchanged(path: Path) -> None:
    # None of the recorded stderr carries a credential (research §15), so none may change.
    text = path.read_text(encoding="utf-8")
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "Unable to connect to the server: x509: invalid basic constraints",
        "error: unable to read bearer token file /var/run/secrets/token",
        'Error from server (NotFound): deployments.apps "token-service" not found',
        'Error from server (Forbidden): secrets "db-password" is forbidden: User "u" cannot get',
        'Error: secret "db-credentials" not found',
        'MountVolume.SetUp failed for volume "kube-api-access" : object "ns"/"x" not registered',
        "Authorization failed for user alice",
        'Get "https://10.0.0.1:6443/api?timeout=32s": dial tcp 10.0.0.1:6443: i/o timeout',
        "serviceAccountToken:\n  path: token",
        "",
    ],
)
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert redact(text) == text


# -- properties -----------------------------------------------------------------------------

TOKENISH = st.text(alphabet=string.ascii_letters + string.digits + "._~+/=-", min_size=8)
TEMPLATES = [
    "token: {s}",
    "    token: {s}",
    "    token: '{s}'",
    '"token": "{s}",',
    "id-token: {s}",
    "password: {s}",
    "client-key-data: {s}",
    "Authorization: Bearer {s}",
    "    Authorization: Bearer {s}",
    '-H "Authorization: Bearer {s}"',
    "authorization: Basic {s}",
    "--token={s}",
    "--token {s}",
    "Bearer {s}",
]
AROUND = st.sampled_from(
    [
        "",
        "users:\n- name: sa\n  user:\n",
        "error: You must be logged in to the server (Unauthorized)\n",
        "I1130 01:51:23.455463   21737 round_trippers.go:480] ",
    ]
)


@given(secret=TOKENISH, template=st.sampled_from(TEMPLATES), before=AROUND, after=AROUND)
def test_property_planted_token_never_survives(
    secret: str, template: str, before: str, after: str
) -> None:
    context = before + template.replace("{s}", "") + "\n" + after + MASK
    assume(secret not in context)
    text = before + template.format(s=secret) + "\n" + after
    assert secret not in redact(text)


FRAGMENTS = st.sampled_from(
    [
        "token",
        "Token",
        ": ",
        "=",
        "--",
        '"',
        "'",
        " ",
        "\n",
        "[",
        "]",
        MASK,
        "Bearer ",
        "Authorization",
        "-----BEGIN X-----",
        "-----END X-----",
        "https://u:",
        "@h",
        "eyJabcdefg.",
        "abcdefgh",
        "\x00",
    ]
)


@given(st.lists(FRAGMENTS | st.text(max_size=4), max_size=20).map("".join))
def test_property_redact_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


# -- end to end: kubectl -> error -> JSON / CLI output ---------------------------------------

PLANTED_STDERR = (
    "I1130 01:51:23.455463   21737 round_trippers.go:480]     Authorization: Bearer "
    f"{JWT}\n"
    "users:\n- name: sa\n  user:\n"
    f"    token: {STATIC}\n"
    f"    client-key-data: {KEY_DATA}\n"
    f'error: You must be logged in to the server (token "{JWT}" was rejected)\n'
)
UNREACHABLE_STDERR = (
    'Unable to connect to the server: Get "https://admin:pa55w0rd-in-url@10.0.0.1:6443/api": '
    "dial tcp 10.0.0.1:6443: i/o timeout\n"
)
GET = ["kubectl", "-n", "ns", "--request-timeout", "10s", "get", "deployment", "web-1"]


@pytest.mark.usefixtures("kubectl_on_path")
def test_runner_error_carries_no_secret(fp: FakeProcess) -> None:
    fp.register([*GET, "-o", "json"], stderr=PLANTED_STDERR, returncode=1)
    runner = KubectlRunner(ClusterConfig(namespace="ns"))
    with pytest.raises(Unauthorized) as info:
        runner.run(["get", "deployment", "web-1", "-o", "json"])
    error = info.value
    assert (
        error.message == f'error: You must be logged in to the server (token "{MASK}" was rejected)'
    )
    assert_clean(error.message)
    assert_clean(json.dumps(error.details))
    assert_clean(json.dumps(error.to_json()))
    assert_clean(str(error))
    assert "token: [REDACTED]" in error.details["stderr"]


@pytest.mark.usefixtures("kubectl_on_path")
@pytest.mark.parametrize(
    ("stderr", "kind"), [(PLANTED_STDERR, "Unauthorized"), (UNREACHABLE_STDERR, "Unavailable")]
)
def test_cli_status_unknown_message_carries_no_secret(
    fp: FakeProcess, capsys: pytest.CaptureFixture[str], stderr: str, kind: str
) -> None:
    # status's one read: the Deployment with its ReplicaSets and Pods, by the name label
    named = commands.workload(name_selector("web-1"))
    fp.register([*GET[:5], *named], stderr=stderr, returncode=1)
    code = cli.main(["--kubectl", "kubectl", "status", "ns/web-1"])
    out, err = capsys.readouterr()
    assert code == 0
    document = json.loads(out)
    assert document["status"] == "unknown"
    assert document["message"].startswith(f"{kind}: ")
    assert MASK in document["message"]
    assert_clean(out)
    assert_clean(err)


@pytest.fixture
def restore_logger() -> Iterator[None]:
    """``cli.main(["-v", ...])`` points the adapter's logger at this test's stderr."""
    logger = logging.getLogger("kubectl_adapter")
    handlers, level, propagate = list(logger.handlers), logger.level, logger.propagate
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)
    logger.propagate = propagate


@pytest.mark.usefixtures("kubectl_on_path", "restore_logger")
@pytest.mark.parametrize(
    ("stderr", "error"), [(PLANTED_STDERR, Unauthorized), (UNREACHABLE_STDERR, Unavailable)]
)
def test_cli_error_document_and_log_carry_no_secret(
    fp: FakeProcess,
    capsys: pytest.CaptureFixture[str],
    stderr: str,
    error: type[Unauthorized] | type[Unavailable],
) -> None:
    fp.register([fp.any()], stderr=stderr, returncode=1)
    code = cli.main(["--kubectl", "kubectl", "-n", "ns", "-v", "list"])
    out, err = capsys.readouterr()
    assert code == error.exit_code
    document = json.loads(out)
    assert document["error"]["type"] == error.type
    assert MASK in json.dumps(document)
    assert_clean(out)
    assert_clean(err)
    assert "\nkubectl -n ns" in err  # -v logged the command on stderr


def test_an_unexpected_bug_with_a_secret_in_its_text_is_redacted() -> None:
    stderr = f"panic: token: {STATIC}\n"
    error = match(f"kubectl --token={STATIC} get pods", 1, stderr, read(stderr))
    assert type(error) is InternalError
    assert_clean(json.dumps(error.to_json()))


def test_a_bare_kubeconfig_token_is_masked_once_kubectl_fails(
    tmp_path: Path, fp: FakeProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A static token repeated without its key (no pattern can see it) is masked by value."""
    token = "q7Zx2mLk9PwR4tYv8NbC"  # not a JWT, no "token:" prefix where kubectl prints it
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        f"apiVersion: v1\nkind: Config\nusers:\n  - name: u\n    user:\n      token: {token}\n"
    )
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)
    fp.register(
        ["kubectl", "--kubeconfig", str(kubeconfig), fp.any()],
        stderr=f"error: exec plugin said: credential {token} rejected\n",
        returncode=1,
    )
    runner = KubectlRunner(ClusterConfig(kubeconfig=str(kubeconfig)))
    assert token in redact(f"credential {token} rejected")  # no pattern could catch it
    with pytest.raises(AdapterError) as info:
        runner.run(["get", "nodes"])
    assert token not in json.dumps(info.value.to_json())


# -- exec credential plugins ------------------------------------------------------------------

EXEC_KUBECONFIG = """apiVersion: v1
kind: Config
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      args:
      - --token
      - argsecret-123456
      - password=kvsecret-99999
      - --region
      - us-east-1
      - --api-key=flagsecret-777
      command: /usr/local/bin/cred-plugin
      env:
      - name: PLUGIN_SECRET
        value: envsecret-abcdef
      - value: "quoted secret 1"
        name: OTHER
      interactiveMode: Never
- name: flow
  user:
    exec: {command: x, args: ["--password", 'flow-secret-1'], env: [{name: A, value: flowenv-222}]}
"""
EXEC_SECRETS = [
    "envsecret-abcdef",
    "quoted secret 1",
    "argsecret-123456",
    "kvsecret-99999",
    "flagsecret-777",
    "flowenv-222",
    "flow-secret-1",
]


def test_exec_plugin_env_values_and_secret_args_are_found() -> None:
    found = redact_module.exec_plugin_secrets(EXEC_KUBECONFIG)
    assert sorted(found) == sorted(EXEC_SECRETS)
    for plain in ("us-east-1", "--region", "/usr/local/bin/cred-plugin", "PLUGIN_SECRET"):
        assert plain not in found


def test_exec_plugin_secrets_of_a_json_kubeconfig() -> None:
    kubeconfig = {
        "users": [
            {
                "name": "u",
                "user": {
                    "exec": {
                        "command": "x",
                        "args": ["--token", "jsonarg-1234", "--verbose"],
                        "env": [{"name": "A", "value": "jsonenv-5678"}],
                    }
                },
            }
        ]
    }
    found = redact_module.exec_plugin_secrets(json.dumps(kubeconfig))
    assert sorted(found) == ["jsonarg-1234", "jsonenv-5678"]


def test_an_exec_plugin_echo_is_masked_once_kubectl_fails(
    tmp_path: Path, fp: FakeProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(EXEC_KUBECONFIG)
    monkeypatch.setattr("kubectl_adapter.kubectl.config.which", lambda name: name)
    echo = " ".join(EXEC_SECRETS)
    fp.register(
        ["kubectl", "--kubeconfig", str(kubeconfig), fp.any()],
        # What the plugin printed (its stderr is kubectl's), then kubectl's own line.
        stderr=f"cred-plugin: env and args: {echo}\n"
        "Unable to connect to the server: getting credentials: exec: executable "
        "/usr/local/bin/cred-plugin failed with exit code 1\n",
        returncode=1,
    )
    assert "envsecret-abcdef" in redact(echo)  # no pattern could catch it
    with pytest.raises(AdapterError) as info:
        KubectlRunner(ClusterConfig(kubeconfig=str(kubeconfig))).run(["get", "nodes"])
    document = json.dumps(info.value.to_json())
    for secret in EXEC_SECRETS:
        assert secret not in document
    assert "cred-plugin: env and args:" in document  # the rest of the message stays
