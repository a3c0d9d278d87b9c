"""The error table: kubectl's stderr matched to the adapter's error type (``match``), for
the one classification point (``classify``), which alone calls it.

Rules are tried in order against kubectl's stderr with klog noise and ``Warning:`` lines
removed (kubectl 1.32 prints 4-5 ``E1130 ... memcache.go`` lines before the real error, and
server warnings are not the failure). The order matters: ``apply`` wraps 401s and
connection failures in "failed to download openapi", so the credential and connection
rules run before the generic validation rule.

``kubectl scale`` reports a failed read of the object it was asked to scale as
``error: no objects passed to scale <cause>``, where the cause is the bare API message (no
``Error from server (...)`` head): the prefix is stripped and the cause classified by the same
table, so the table also knows the bare Status messages.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..contract.errors import (
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
from ..contract.kubectl_support import OLDEST_KUBECTL, shown
from ..contract.redact import redact
from .klog import without_klog
from .requests_log import Requests, watch_refused

# kubectl's words around the cause when the request it failed was the discovery of a
# manifest's kind (``create -f -``) or the manifest's create: the cause is the same fault
# every other call meets, and is typed and worded as they word it.
_WRAPPERS = re.compile(r'(?:^error: )?unable to recognize "[^"]*": |error when creating "[^"]*": ')

# The lines that start kubectl's own error report (cobra prints ``Error:`` for usage errors).
_ERROR_HEADS = (
    "error:",
    "error from server",
    "error in configuration",
    "unable to connect to the server",
    "the ",
)


# kubectl scale/apply/... when the read of the named objects failed: the cause follows.
_NO_OBJECTS = re.compile(r"^error: no objects passed to \S+ (?P<cause>\S.*)$", re.M | re.S)


class Rule(NamedTuple):
    pattern: re.Pattern[str]
    error: type[AdapterError]
    reason: str
    # When set, the error's message: formatted with the pattern's named groups and
    # ``line`` (kubectl's own line), for errors whose kubectl wording misleads.
    message: str | None = None


def _rule(pattern: str, error: type[AdapterError], reason: str, message: str | None = None) -> Rule:
    return Rule(re.compile(pattern, re.S | re.M), error, reason, message)


# The reason of a kubectl that rejected a flag: the runner asks it for its version.
UNKNOWN_FLAG = "kubectl does not know a flag the adapter passes"

# kubectl scale's last words after 5 minutes of 409 retries (and after little else).
_GAVE_UP = _rule(r"^error: context deadline exceeded$", Timeout, "kubectl gave up retrying")

_REFUSED = (
    "The connection to the server {server} was refused - did you specify the right host or port?"
)
_CLIENT_FILES = "a client certificate or key file of the kubeconfig cannot be read"
_CLIENT_FILE = re.compile(r"unable to read client-(?:cert|key) [^,;\]\n]+")

# kubectl's own words for a 401, whichever request met it.
_LOGGED_OUT = (
    "error: You must be logged in to the server (the server has asked for the client to "
    "provide credentials)"
)

ERROR_TABLE: tuple[Rule, ...] = (
    # Credentials: plain 401, raw-body 401, and apply's OpenAPI wrapper around a 401.
    _rule(r"You must be logged in to the server", Unauthorized, "unauthorized"),
    _rule(
        r"asked for the client to provide credentials", Unauthorized, "unauthorized", _LOGGED_OUT
    ),
    _rule(r"Error from server \(Unauthorized\)", Unauthorized, "unauthorized"),
    _rule(r"^Unauthorized$", Unauthorized, "unauthorized"),  # bare, after "no objects passed"
    # Configuration: kubeconfig, context, auth plugins. Before connection rules: a missing
    # kubeconfig named by --kubeconfig is a configuration problem, not an outage, and a
    # missing credential plugin is reported as "Unable to connect to the server: getting
    # credentials: exec: executable ... not found".
    # A client certificate or key file the kubeconfig names that cannot be read: kubectl
    # words it three ways (``invalid configuration: [...]``, ``Error in configuration: ...``,
    # bare after ``error: ``) depending on the call; one message, naming each file.
    _rule(r"unable to read client-(?:cert|key) ", ConfigurationError, _CLIENT_FILES),
    _rule(r"Error in configuration", ConfigurationError, "invalid kubeconfig or context"),
    # Worded with or without kubectl's "error: " depending on the call: one message.
    _rule(
        r'(?P<what>context "[^"]*" does not exist)',
        ConfigurationError,
        "unknown context",
        "error: {what}",
    ),
    _rule(r"^error: cannot locate context ", ConfigurationError, "unknown context"),
    _rule(
        r"^error: current-context must exist",
        ConfigurationError,
        "no current context in the kubeconfig",
    ),
    _rule(
        r"error: stat .*: (?:no such file or directory|not a directory)",
        ConfigurationError,
        "kubeconfig missing",
    ),
    # The kubeconfig's client certificate or key is not PEM (garbage client-certificate-data):
    # before the connection rules, whose "tls: " would call it an outage worth retrying.
    _rule(
        r"tls: failed to find any PEM data|tls: failed to parse private key|"
        r"tls: private key does not match public key|tls: found a certificate rather than a key",
        ConfigurationError,
        "invalid client certificate or key in the kubeconfig",
    ),
    # The API server's certificate failed verification against the kubeconfig's CA (another
    # authority, another host name, expired): the same kubeconfig meets the same certificate
    # on every retry, so it is the node's configuration, not an outage. Before the connection
    # rules, whose "tls: " and "x509: " would call it one.
    _rule(
        r"(?P<cause>(?:tls: failed to verify certificate: )?x509: certificate (?:signed by "
        r"unknown authority|is valid for|is not valid for|has expired|is not trusted)[^\n;]*)",
        ConfigurationError,
        "TLS verification failed",
        "Unable to connect to the server: {cause}",
    ),
    _rule(r"tls: failed to verify certificate", ConfigurationError, "TLS verification failed"),
    _rule(
        r"error loading config file|couldn't get version/kind; json parse error|"
        r"invalid configuration|exec plugin|getting credentials: ",
        ConfigurationError,
        "invalid kubeconfig",
    ),
    # Input kubectl rejected before sending anything (no network involved, so no outage or
    # credential rule can be the real cause).
    _rule(
        r"^error: error parsing |^error: no objects passed to |does not match the namespace|"
        r"^error: invalid namespace ",
        InvalidInput,
        "rejected input",
    ),
    # Authorization.
    _rule(r"Error from server \(Forbidden\)|is forbidden: ", Forbidden, "forbidden"),
    # 429/503 with Retry-After: kubectl waits as told until its request timeout cannot be
    # met, then gives up with its rate limiter's words; the server is throttling us.
    _rule(
        r"client rate limiter Wait returned an error",
        Unavailable,
        "API server throttling (429/503 with Retry-After) outlasted the request timeout",
    ),
    # Connection failures, including the ones apply hides behind "failed to download openapi".
    _rule(r"The connection to the server .* was refused", Unavailable, "connection refused"),
    # The same refusal met by a request kubectl names (discovery, a review's POST): worded as
    # kubectl words it for a get, by the server the URL names.
    _rule(
        r'(?:Get|Post|Put|Patch|Delete) "https?://(?P<server>[^/"]+)[^"]*": '
        r"dial tcp \S+: connect: connection refused",
        Unavailable,
        "connection refused",
        _REFUSED,
    ),
    _rule(
        r"dial tcp (?P<server>\S+): connect: connection refused",
        Unavailable,
        "connection refused",
        _REFUSED,
    ),
    _rule(
        r"no such host|Unable to connect to the server|tls: |x509: |i/o timeout|"
        r"TLS handshake timeout|connection reset by peer|broken pipe|no route to host|"
        r"network is unreachable|http2: client connection lost|(?:: |unexpected )EOF$|dial tcp",
        Unavailable,
        "API server unreachable",
    ),
    _rule(r"Client\.Timeout exceeded|request canceled", Unavailable, "API request timed out"),
    # Go's url.Error: the request itself failed (after "no objects passed to scale", or in
    # the discovery a `create -f -` makes to map its kind: 'unable to recognize "STDIN": ').
    _rule(
        r'^(?:error: unable to recognize "[^"]*": )?(?:Get|Patch|Post|Put|Delete) "[^"]+": ',
        Unavailable,
        "API request failed before an answer",
    ),
    # apply cannot validate without the server's OpenAPI documents (404 or unreachable).
    _rule(
        r"failed to download openapi|"
        r"error validating data: the server could not find the requested resource",
        Unavailable,
        "API server does not serve OpenAPI",
    ),
    _rule(
        r"Error from server \((InternalError|ServiceUnavailable|TooManyRequests|Timeout|"
        r"ServerTimeout|InternalServerError|BadGateway|GatewayTimeout)\)|etcdserver: |"
        # The same Status messages bare (after "no objects passed to scale").
        r"^Internal error occurred: |^the server is currently unable to handle the request|"
        r"^Too many requests|^the server has received too many requests|"
        r"^the server was unable to return a response in the time allotted|"
        r"^an error on the server \(",
        Unavailable,
        "API server error",
    ),
    # 410: the server no longer has what a read asked for (Expired: a resourceVersion or
    # continue token too old; Gone). A fresh read is the remedy, so it is worth retrying.
    _rule(
        r"Error from server \((?:Expired|Gone)\)|^too old resource version: |"
        r"continue parameter is too old",
        Unavailable,
        "API server answered 410 (Expired/Gone): the read is stale, a new one may succeed",
    ),
    # Something other than the API server answered at its URL (a proxy's sign-in or error
    # page, with status 200): kubectl cannot decode the body.
    _rule(
        r"serializer for \S+(?:; charset=\S+)? doesn't exist|"
        r"invalid character '<' looking for beginning of value",
        Unavailable,
        "not the API server: a proxy or load balancer answered with a page kubectl cannot read",
    ),
    # A bare 404 with no object named: the URL does not serve the Kubernetes API (discovery or
    # /version not found). Saying "not found" would claim the Deployment is gone.
    _rule(
        r"^Error from server \(NotFound\): the server could not find the requested resource$",
        Unavailable,
        "API endpoint not served",
    ),
    # Waits.
    _rule(r"exceeded its progress deadline", RolloutFailed, "progress deadline exceeded"),
    _rule(r"timed out waiting for", Timeout, "wait timed out"),
    _GAVE_UP,
    # Object state.
    _rule(r"Apply failed with \d+ conflicts?", Conflict, "server-side apply conflict"),
    _rule(r"Error from server \((Conflict|AlreadyExists)\)", Conflict, "conflict"),
    # Bare after "no objects passed to scale"; apply --server-side rewords any 409 (e.g. a
    # failed uid/resourceVersion precondition) as "error: Operation cannot be fulfilled on".
    _rule(
        r"^(?:error: )?Operation cannot be fulfilled on |^\S+ \"[^\"]*\" already exists$",
        Conflict,
        "conflict",
    ),
    # The selector carries the container ID and is immutable: a 422 on it means another
    # container's create won the race for this name (the loser's read found nothing).
    _rule(
        r'^The Deployment "(?P<name>[^"]*)" is invalid: .*spec\.selector: .*field is immutable',
        Conflict,
        "the Deployment's selector holds another container's ID",
        "a Deployment named {name} now belongs to another container (its immutable selector "
        "holds that container's ID): {line}",
    ),
    _rule(r"error: object has been deleted", NotFound, "deleted while waiting"),
    _rule(r"Error from server \(NotFound\)", NotFound, "not found"),
    _rule(r'^\S+ "[^"]*" not found$', NotFound, "not found"),  # bare
    # Input the server or kubectl rejected.
    _rule(
        r"is invalid|Error from server \((BadRequest|Invalid|UnsupportedMediaType)\)|"
        r"ValidationError\(|admission webhook .* denied the request",
        InvalidInput,
        "rejected input",
    ),
    # A kubectl older than the flags the adapter passes: no input of Manager's can help, the
    # node's kubectl must change. The runner adds the kubectl's version to the message.
    _rule(
        r"^(?i:error): unknown (shorthand )?flag: (?P<flag>[^\n]*)$",
        ConfigurationError,
        UNKNOWN_FLAG,
        "this kubectl does not know a flag the adapter passes ({flag}): the adapter needs "
        f"kubectl {shown(OLDEST_KUBECTL)} or newer",
    ),
    # kubectl refused its command line (flags the adapter built wrong).
    _rule(
        r"unknown flag|unknown shorthand flag|invalid argument|only works with|"
        r"invalid \S+ value|for usage\.$",
        InvalidInput,
        "kubectl usage error",
    ),
)


def clean_stderr(stderr: str) -> str:
    """kubectl's stderr without klog lines, blank lines and repeats, redacted.

    kubectl 1.32 says some errors once per kind it was asked for (``get
    deployments,replicasets,pods`` with an unknown context: the same line three times); each
    distinct line is kept once, where it first came."""
    lines = [line.rstrip() for line in stderr.splitlines()]
    kept = [line for line in without_klog(lines) if line.strip()]
    return redact("\n".join(dict.fromkeys(kept)))


def _is_warning(line: str) -> bool:
    return line.lower().startswith("warning:")


def main_message(cleaned: str) -> str:
    """The line an operator needs: the first ``error``/``Error`` line, else the last line.

    A head line ending in ``:`` is followed by its items (``* field: reason`` for a 422
    with several causes, ``- .spec.replicas`` for several apply conflicts); they are joined
    onto it so the message names every cause.
    """
    lines = [line for line in cleaned.splitlines() if not _is_warning(line)]
    for index, line in enumerate(lines):
        if line.lower().startswith(_ERROR_HEADS):
            if not line.endswith(":"):
                return line
            items = []
            for item in lines[index + 1 :]:
                if not item.startswith(("* ", "- ")):
                    break
                items.append(item[2:].strip())
            return f"{line} {'; '.join(items)}" if items else line
    return lines[-1] if lines else cleaned


def match(
    command: str, returncode: int, stderr: str, record: Requests, *, timed_out: bool = False
) -> AdapterError:
    """The table's error for one failed kubectl run: exit status, stderr, and what its log
    says of its answers (``record``)."""
    cleaned = _WRAPPERS.sub("", clean_stderr(stderr))
    details: dict[str, object] = {"command": redact(command), "exitCode": returncode}
    if cleaned:
        details["stderr"] = cleaned[-4000:]
    retried_409 = 409 in record.codes
    if timed_out:
        # kubectl scale retries a 409 once a second for 5 minutes; with -v=6 the retries show.
        if retried_409:
            details["reason"] = "kubectl kept retrying 409 Conflict"
            return Conflict(
                f"kubectl kept getting 409 Conflict until its time ran out: {command}", details
            )
        details["reason"] = "process timeout"
        return Timeout(f"kubectl did not finish in time and was stopped: {command}", details)
    refused = _wait_refused(redact(command), stderr, details)
    if refused is not None:
        return refused
    decisive = "\n".join(line for line in cleaned.splitlines() if not _is_warning(line))
    no_objects = _NO_OBJECTS.search(decisive)
    if no_objects:
        # Only the cause decides; the bare prefix alone (nothing read, no cause) stays input.
        decisive = no_objects["cause"]
    for rule in ERROR_TABLE:
        found = rule.pattern.search(decisive)
        if found:
            if rule is _GAVE_UP and retried_409:
                # The same 5-minute 409 loop, ended by kubectl itself rather than by us.
                details["reason"] = "kubectl kept retrying 409 Conflict"
                return Conflict(main_message(cleaned), details)
            details["reason"] = rule.reason
            message = main_message(cleaned)
            if rule.message is not None:
                message = rule.message.format(**found.groupdict(), line=message)
            elif rule.reason == _CLIENT_FILES:
                message = "; ".join(dict.fromkeys(_CLIENT_FILE.findall(decisive)))
            return rule.error(message, details)
    message = main_message(cleaned) or f"kubectl exited with status {returncode}"
    answered = record.codes
    if answered and (answered[-1] >= 500 or answered[-1] in (410, 429)):
        # Only -v=6 runs (scale) show this: a 5xx, 410 or 429 whose body no rule recognises.
        details["reason"] = f"API server answered {answered[-1]}"
        return Unavailable(message, details)
    return InternalError(message, details)


def _wait_refused(command: str, stderr: str, details: dict[str, object]) -> AdapterError | None:
    """A wait (``rollout status``) whose watch cannot list any more (``requests_log``)."""
    refusal = watch_refused(stderr)
    if refusal is None:
        return None
    details["stderr"] = redact(refusal)
    if refusal == "Unauthorized":
        details["reason"] = "unauthorized (the wait's watch was refused)"
        return Unauthorized(f"Unauthorized while waiting: {command}", details)
    details["reason"] = "forbidden (the wait's watch was refused)"
    return Forbidden(redact(refusal), details)
