"""What came back from a kubectl ``Call``, turned into its result or its one typed error.

``check`` is ``subprocess.run``'s ``check=True``: the output on exit 0, else the error of
``failure``, the one function that types how a kubectl ended (killed at its bound, stopped
for want of an answer, cut by ``--deadline``, or kubectl's own failure, translated by
``kubectl_errors`` and told what it is about: the kubeconfig read, or the kubectl's version).
``parse_json`` turns a JSON answer into the plain data the rules read.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from time import monotonic
from typing import Any, NamedTuple

from ..contract.errors import AdapterError, ConfigurationError, InternalError, Timeout, Unavailable
from . import process
from .call import Call
from .config import ClusterConfig, kubeconfig_looked_for, kubeconfig_missing, kubeconfig_usable
from .process import Ended, text
from .shapes import output_problem
from .transcript import display

# How a kubectl that rejected a flag is asked its version, and for how long at most.
CLIENT_VERSION = ["version", "--client", "-o", "json"]
VERSION_SECONDS = 5.0


class KubectlResult(NamedTuple):
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    raw: bytes = b""  # stdout as bytes, instead of ``stdout``, when run with ``raw=True``


class WatchEnd(NamedTuple):
    """How a run of watches ended: ``decided`` True (over) / False (time passed) / None
    (a kubectl exited first; ``failure``: its error when it exited non-zero)."""

    decided: bool | None
    failure: AdapterError | None


def check(
    call: Call, ended: Ended, config: ClusterConfig, *, deadline_at: float | None
) -> KubectlResult:
    """The result of a kubectl that exited 0; otherwise raise ``failure``'s error."""
    error = failure(call, ended, config, deadline_at=deadline_at)
    if error is not None:
        raise error
    if isinstance(ended.stdout, bytes):
        return KubectlResult(list(call.argv), 0, "", ended.stderr, ended.stdout)
    return KubectlResult(list(call.argv), 0, ended.stdout, ended.stderr)


def failure(
    call: Call, ended: Ended, config: ClusterConfig, *, deadline_at: float | None
) -> AdapterError | None:
    """The typed error of a kubectl that did not exit 0 (None when it did)."""
    shown = call.shown
    if ended.returncode is None and ended.unanswered:
        return _unanswered(call, ended)
    if ended.returncode is None:
        error = _classify(shown, -1, ended.stderr, timed_out=True)
        error.details["timeoutSeconds"] = call.bound
        if call.cut and isinstance(error, Timeout):
            error.details["reason"] = "deadline"
            error.details["deadlineSeconds"] = call.deadline
        return _written(call, error, ended.stderr)
    if ended.returncode:
        # kubectl get prints an empty List on stdout even when the LIST failed:
        # only the exit status tells, so stdout is never looked at here.
        error = _classify(shown, ended.returncode, ended.stderr)
        return _written(call, _explain(error, call, config, deadline_at), ended.stderr)
    return None


def _written(call: Call, error: AdapterError, stderr: str) -> AdapterError:
    """A write's error says whether its change may have been made (``writes``)."""
    if not call.changes:
        return error
    from .writes import said

    return said(error, stderr)


def deadline_reached(when: str, call: Call) -> Timeout:
    """The command's ``--deadline`` was reached ``before`` the call started, or ``during`` it."""
    shown = call.shown
    return Timeout(
        f"the command's overall deadline ({call.deadline:g}s, --deadline) "
        f"was reached {when}: {shown}",
        {"command": shown, "reason": "deadline", "deadlineSeconds": call.deadline},
    )


def _unanswered(call: Call, ended: Ended) -> Timeout:
    """A kubectl stopped for want of an answer, while stopping it lost nothing."""
    assert call.pacing is not None
    shown, idle = call.shown, call.pacing.idle
    error = _classify(shown, -1, ended.stderr, timed_out=True)
    details = dict(error.details)
    details["reason"] = "no answer from the API server"
    details["idleSeconds"] = idle
    if call.pacing.write:
        details["writeSent"] = False
        what = "before it sent its change (nothing was changed)"
    else:
        what = f"after {ended.answered} answered requests" if ended.answered else "at the first"
    return Timeout(
        f"the API server answered no request of kubectl for {idle:g}s; kubectl was "
        f"stopped {what}: {shown}",
        details,
    )


def _classify(
    command: str, returncode: int, stderr: str, *, timed_out: bool = False
) -> AdapterError:
    # The error table (and its patterns) is loaded by the first failure, not at start-up.
    from .kubectl_errors import classify

    return classify(command, returncode, stderr, timed_out=timed_out)


def _explain(
    error: AdapterError, call: Call, config: ClusterConfig, deadline_at: float | None
) -> AdapterError:
    """Add what the failure is about: the kubeconfig read, or the kubectl's version."""
    if not isinstance(error, ConfigurationError | Unavailable):
        return error
    from .kubectl_errors import UNKNOWN_FLAG, explain_kubeconfig

    if error.details.get("reason") == UNKNOWN_FLAG:
        import shutil

        # The kubectl that ran, by its path (a --dry-run's argv names it as typed).
        return _name_version(error, shutil.which(call.argv[0]) or call.argv[0], deadline_at)
    return explain_kubeconfig(
        error,
        kubeconfig_looked_for(config),
        kubeconfig_usable(config),
        kubeconfig_missing(config),
    )


def _name_version(error: AdapterError, binary: str, deadline_at: float | None) -> AdapterError:
    """A kubectl that rejected a flag: which kubectl it is, asked only now (a local
    ``version --client``, no API request), so that the message says what to replace."""
    remaining = None if deadline_at is None else deadline_at - monotonic()
    bound = VERSION_SECONDS if remaining is None else min(VERSION_SECONDS, remaining)
    version = None
    if bound > 0:
        asked = Call((binary, *CLIENT_VERSION), "read", bound)
        with contextlib.suppress(AdapterError, ValueError, LookupError, TypeError):
            ended = process.run(asked, monotonic())
            if ended.returncode == 0:
                version = json.loads(ended.stdout)["clientVersion"]["gitVersion"]
    if not isinstance(version, str) or not version:
        return error
    from ..contract.redact import redact

    version = redact(version)
    details = {**error.details, "kubectlVersion": version}
    return type(error)(f"kubectl {version} at {binary}: {error.message}", details)


def parse_json(
    args: Sequence[str],
    argv: Sequence[str],
    output: str | bytes,
    decode: Callable[[bytes], Any] | None,
) -> Any:
    """A JSON answer as the rules read it: ``decode``'s typed answer when it gives one, else
    ``json.loads``, checked by ``shapes``; empty output is None only under
    ``--ignore-not-found``, anything else unreadable an InternalError naming the command
    (``argv``, the one run)."""
    shown = display(argv)
    if not output or output.isspace():  # isspace stops at the first byte
        if _ignores_not_found(args):
            return None  # kubectl's only silent success: the named object is absent
        # Never "absent": a kubectl (or a wrapper) that exits 0 and prints nothing where
        # JSON is due would otherwise turn a running Deployment into "missing".
        raise InternalError(
            f"{shown} exited 0 but printed nothing where JSON was expected",
            {"command": shown, "problem": "output is empty"},
        )
    if isinstance(output, bytes):
        typed = decode(output) if decode is not None else None
        if typed is not None:
            return typed
        output = text(output)
    try:
        data = json.loads(output)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InternalError(
            f"kubectl printed output that is not JSON: {exc}", {"command": shown}
        ) from None
    problem = output_problem(args, data)
    if problem is not None:
        raise InternalError(
            f"{shown} printed JSON the adapter cannot read: the output{problem}",
            {"command": shown, "problem": f"output{problem}"},
        )
    return data


def _ignores_not_found(args: Sequence[str]) -> bool:
    """``--ignore-not-found`` is on: an absent object is printed as nothing at all."""
    flags = [str(arg) for arg in args if str(arg).startswith("--ignore-not-found")]
    return bool(flags) and flags[-1] in ("--ignore-not-found", "--ignore-not-found=true")
