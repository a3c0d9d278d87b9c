"""The one classification point: a kubectl ``Call``, how its process ended and what its log
says (``requests_log.Requests``) in, its result or its one final typed error out.

Nothing re-types the error afterwards: everything it must say is decided here, once. How the
process ended (killed at its bound, stopped for want of an answer, cut by ``--deadline``, or
kubectl's own failure matched against ``kubectl_errors``' table); what the failure is about
(the kubeconfig kubectl read: ``Call.config``; the provider ID an owner-pinned patch is about:
``Call.guarded``); and whether a request that can change the workload left (``writeSent``,
``writeRequest``, ``writeAnswer``: from the log, never from the verb; a permission review's
POST changes nothing). It starts no process (a kubectl that rejects a flag is named by its
path, not asked its version).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ..contract.errors import (
    AdapterError,
    ConfigurationError,
    Conflict,
    InvalidInput,
    NotFound,
    Timeout,
    Unavailable,
)
from .call import Call, Pacing
from .config import kubeconfig_looked_for, kubeconfig_missing, kubeconfig_usable
from .process import Ended
from .requests_log import Requests
from .requests_log import read as read_log

if TYPE_CHECKING:
    from .watches import Unanswered

# What an error means for a change never sent, when the error alone cannot tell.
_AMBIGUOUS = (Unavailable, Timeout)


class KubectlResult(NamedTuple):
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    raw: bytes = b""  # stdout as bytes, instead of ``stdout``, when run with ``raw=True``


def classify(call: Call, ended: Ended, record: Requests) -> KubectlResult | AdapterError:
    """The result of a kubectl that exited 0; otherwise its one typed error."""
    if ended.returncode == 0:
        if isinstance(ended.stdout, bytes):
            return KubectlResult(list(call.argv), 0, "", ended.stderr, ended.stdout)
        return KubectlResult(list(call.argv), 0, ended.stdout, ended.stderr)
    from .kubectl_errors import match

    shown = call.shown
    timed_out = ended.returncode is None
    # kubectl get prints an empty List on stdout even when the LIST failed: only the exit
    # status tells, so stdout is never looked at here.
    code = -1 if ended.returncode is None else ended.returncode
    error = match(shown, code, ended.stderr, record, timed_out=timed_out)
    if timed_out:
        error.details["timeoutSeconds"] = call.bound
    if timed_out and call.cut and not ended.unanswered and isinstance(error, Timeout):
        error.details["reason"] = "deadline"  # killed at what was left of --deadline
        error.details["deadlineSeconds"] = call.deadline
    elif _no_answer(call, ended, record, error):
        error = _unanswered(call, ended, record, error)
    else:
        error = _about(error, call)
    return _written(call, error, record)


def stopped_unanswered(call: Call, silent: Unanswered) -> AdapterError:
    """A watch its caller stopped for want of an answer (a wait's watches before the write,
    paced as a read): typed as any kubectl so stopped, the same error whichever call met the
    silent API server first."""
    stderr = silent.stderrs[silent.index] if silent.index < len(silent.stderrs) else ""
    paced = call._replace(pacing=Pacing(silent.idle, write=False))
    error = classify(paced, Ended(None, "", stderr, unanswered=True), read_log(stderr))
    assert isinstance(error, AdapterError)  # stopped: it did not exit 0
    return error


# kubectl's own words when a request of its own got no answer within --request-timeout.
_CLIENT_TIMEOUT = re.compile(
    r"context deadline exceeded|Client\.Timeout exceeded|request canceled|"
    r"net/http: timeout awaiting"
)
# ... on its first contact: the server's version or its discovery, before any resource.
_FIRST_CONTACT = re.compile(
    r'Unable to connect to the server: |(?:Get|Post) "https?://[^/"]+/(?:api|apis|version|'
    r'openapi/v[23])(?:\?[^"]*)?": '
)
# The table's reasons for a request that failed without the API server's answer.
_UNANSWERED_REASONS = frozenset(
    {"API server unreachable", "API request timed out", "API request failed before an answer"}
)


def _no_answer(call: Call, ended: Ended, record: Requests, error: AdapterError) -> bool:
    """The API server answered none of kubectl's requests in time, however kubectl ended:
    stopped for want of an answer (its pace), killed at a read's bound (which is one
    request's), or given up on its own request timeout at its first contact (its version or
    discovery request). One fault, one error, whichever call meets it first."""
    if ended.unanswered:
        return True
    if record.answered or record.write_sent:
        return False
    if ended.returncode is None:
        return call.kind == "read"
    text = str(error.details.get("stderr", ""))
    return (
        error.details.get("reason") in _UNANSWERED_REASONS
        and bool(_CLIENT_TIMEOUT.search(text))
        and bool(_FIRST_CONTACT.search(text))
    )


def deadline_reached(when: str, call: Call) -> Timeout:
    """The command's ``--deadline`` was reached ``before`` the call started, or ``during`` it."""
    shown = call.shown
    return Timeout(
        f"the command's overall deadline ({call.deadline:g}s, --deadline) "
        f"was reached {when}: {shown}",
        {"command": shown, "reason": "deadline", "deadlineSeconds": call.deadline},
    )


def _unanswered(call: Call, ended: Ended, record: Requests, error: AdapterError) -> Timeout:
    """The API server answered no request of kubectl in time (``_no_answer``): worded the
    same whichever call met it; how far kubectl got is in the details."""
    config = call.config
    seconds = config.request_timeout if config is not None else call.bound
    details = {**error.details, "reason": "no answer from the API server",
               "answered": record.answered}  # fmt: skip
    if call.pacing is not None:
        details["idleSeconds"] = call.pacing.idle
    return Timeout(
        f"the API server did not answer kubectl in time (--request-timeout {seconds:g}s): "
        f"{call.shown}",
        details,
    )


def _about(error: AdapterError, call: Call) -> AdapterError:
    """What the failure is about: the kubeconfig kubectl read, the kubectl that ran, or the
    provider ID an owner-pinned patch names."""
    if call.guarded is not None and isinstance(error, NotFound | InvalidInput):
        return _guarded(error, call.guarded)
    if not isinstance(error, ConfigurationError | Unavailable) or call.config is None:
        return error
    from .kubectl_errors import UNKNOWN_FLAG

    if error.details.get("reason") == UNKNOWN_FLAG:
        # The kubectl that ran, by its path (a --dry-run's argv names it as typed).
        binary = call.argv[0]
        return type(error)(f"kubectl at {binary}: {error.message}",
                           {**error.details, "kubectl": binary})  # fmt: skip
    config = call.config
    return explain_kubeconfig(
        error,
        kubeconfig_looked_for(config),
        kubeconfig_usable(config),
        kubeconfig_missing(config),
    )


def _guarded(error: AdapterError, provider_id: str) -> AdapterError:
    """A patch whose ``test`` operations pin the Deployment's owner labels: its 404 is the
    Deployment's absence, its 422 a test that failed (nothing was changed)."""
    if isinstance(error, NotFound):
        return NotFound(f"deployment {provider_id} not found",
                        {"providerId": provider_id, "kubectl": error.details})  # fmt: skip
    return Conflict(
        f"deployment {provider_id} changed owner labels while it was scaled; nothing was "
        "changed: retry",
        {"providerId": provider_id, "kubectl": error.details},
    )


def owner_test_failed(error: AdapterError) -> bool:
    """The Conflict of a guarded patch whose ownership test failed (``_guarded``): nothing
    was changed, and the operation reads the Deployment once more to say whose it is."""
    return isinstance(error, Conflict) and {"providerId", "kubectl"} <= error.details.keys()


def _written(call: Call, error: AdapterError, record: Requests) -> AdapterError:
    """A call that may change the cluster says whether its change may have been made.

    Sent and not refused (no answer, or a 5xx: the server may have stored it before it
    failed; a 2xx: made, the failure came after): ``writeSent: true`` and the message says
    so. Sent and refused (4xx): the error is that refusal, left as it is. Never sent, for an
    error that does not tell by itself (Unavailable, Timeout): ``writeSent: false``. A log that
    shows no request leave (no ``-v=7``, a wrapper hiding it) proves nothing: left as it is.
    """
    if "writeSent" in error.details:
        return error
    if not call.changes:  # a harmless call: nothing to say, but that nothing was changed
        if not call.harmless:
            return error
        return type(error)(error.message, {**error.details, "writeSent": False})
    write, answer = record.write, record.write_answer
    if write is None:
        if not record.logged or not isinstance(error, _AMBIGUOUS):
            return error
        details = {**error.details, "writeSent": False}
        return type(error)(f"{error.message} (nothing was changed: kubectl had not sent its "
                           "change)", details)  # fmt: skip
    if answer is not None and 400 <= answer < 500:
        return error
    details = {**error.details, "writeSent": True, "writeRequest": write, "writeAnswer": answer}
    if answer is not None and answer < 400:
        note = f"its change was made ({write} answered {answer}) before this failure"
    else:
        lost = "its answer lost" if answer is None else f"answered {answer}"
        note = (
            f"its change may have been made ({write} was sent, {lost}): run the same "
            "command again (it converges), or read status"
        )
    return type(error)(f"{error.message}; {note}", details)


# kubectl's server when no kubeconfig (or no current context) gives it one.
_DEFAULT_SERVER = re.compile(r"\blocalhost:8080\b")


def explain_kubeconfig(
    error: AdapterError, looked_for: str, usable: bool, missing: bool = False
) -> AdapterError:
    """Say which kubeconfig kubectl read when the failure is about configuration.

    With no kubeconfig file (or none naming a current context) kubectl quietly talks to
    ``localhost:8080``; its "connection refused" there is then a configuration problem, not
    an outage. ``usable`` is the runner's finding: some kubeconfig exists and names a context;
    ``missing``: no kubeconfig file kubectl would read exists at all, which kubectl itself
    words as "current-context must exist" (``config view``), so the message says it plainly.
    """
    if isinstance(error, ConfigurationError) and missing:
        details = dict(error.details)
        details["reason"] = "kubeconfig missing"
        details["kubeconfig"] = looked_for
        return ConfigurationError(f"kubeconfig not found: {looked_for}", details)
    if isinstance(error, Unavailable) and not usable and _DEFAULT_SERVER.search(error.message):
        details = dict(error.details)
        details["reason"] = "no kubeconfig: kubectl fell back to localhost:8080"
        details["kubeconfig"] = looked_for
        return ConfigurationError(
            f"no usable kubeconfig (looked for {looked_for}; none exists or none names a "
            f"current context), so kubectl tried its default server: {error.message}",
            details,
        )
    from .kubectl_errors import UNKNOWN_FLAG

    if error.details.get("reason") == UNKNOWN_FLAG:
        return error  # kubectl itself, whatever the kubeconfig
    if isinstance(error, ConfigurationError) and "kubeconfig" not in error.details:
        details = dict(error.details)
        details["kubeconfig"] = looked_for
        return ConfigurationError(f"{error.message} (kubeconfig: {looked_for})", details)
    return error
