"""The one place that builds kubectl argv and runs kubectl.

Every call: a list argv (never a shell string), a timeout, manifests on stdin, stdout and
stderr captured, failures translated by ``kubectl_errors.classify``. With ``verbose`` each
command is logged as bash an operator can paste (``transcript``), followed by its outcome as
a comment; kubectl's own stderr (and its ``-v=N`` on the line) is logged too from ``verbose`` 2
(``-vv``). A wait's watches (``watch_together``) are logged as comments above the one command
that waits for the same end state (``transcript.watches``).

Bounds: a read-only kubectl (``get``, ``version``) lives at most ``--request-timeout`` plus a
grace (one whose ``-v=6`` log shows its requests: that long per unanswered request, see
``pace``), any other non-wait call ``--call-timeout``, a wait its own timeout plus a grace (a
write whose ``-v=7`` log shows its requests is stopped like a read until its change has
left); and
every one of them at most what is left of the command's overall deadline. Each kubectl runs
in its own process group, killed as a whole on every way out (bound, error, signal), so no
``rollout status`` or exec credential plugin outlives the command.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Sequence
from time import monotonic
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import (
    AdapterError,
    ConfigurationError,
    InternalError,
    Timeout,
    Unavailable,
)
from ..contract.naming import DNS1123_RULE, is_dns1123_label
from . import progress
from .bounds import READ_GRACE_SECONDS
from .config import (
    ClusterConfig,
    kubeconfig_looked_for,
    kubeconfig_missing,
    kubeconfig_paths,
    kubeconfig_usable,
)
from .pace import Pace, verbosity
from .processes import (
    Watching,
    discovery_stamp,
    execute,
    start,
    stop,
    text,
    watch_together,
)
from .processes import kubectl_environment as kubectl_environment
from .shapes import output_problem
from .transcript import Wait, kubectl_stderr, outcome, seconds_arg, watched, watches
from .transcript import command as transcript_command
from .transcript import display as transcript_display

if TYPE_CHECKING:
    from subprocess import Popen


def __getattr__(name: str) -> Any:
    # ``runner.shutil``: imported on first use (its archive modules cost start-up time);
    # tests reach ``shutil.which`` through this module.
    if name == "shutil":
        import shutil

        return shutil
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _log(message: str, *args: object) -> None:
    """Log at INFO (only under ``-v``: ``logging`` is imported then, not on every command)."""
    import logging

    logging.getLogger("kubectl_adapter").info(message, *args)


def _register_secrets(config: ClusterConfig) -> None:
    """Before any message is built: kubectl's stderr may repeat a credential bare."""
    from ..contract.redact import register_kubeconfig_secrets

    register_kubeconfig_secrets(kubeconfig_paths(config))


def _classify(command: str, returncode: int, stderr: str, *, timed_out: bool = False) -> Any:
    # The error table (and its patterns) is loaded by the first failure, not at start-up.
    from .kubectl_errors import classify

    return classify(command, returncode, stderr, timed_out=timed_out)


# Extra time a waiting kubectl gets beyond its own --timeout before we kill it: it must be
# allowed to report its own timeout (with its own words) before we call it a hang.
WAIT_GRACE_SECONDS = 15.0

# kubectl verbs that only read: bounded by the request timeout (plus READ_GRACE_SECONDS),
# not by the much longer --call-timeout. ``config view`` reads only the kubeconfig, yet the
# Cloud SDK dispatcher build may run the exec credential plugin for it (to ask the server's
# version): a hanging plugin must cost a read's bound, not --call-timeout.
READ_VERBS = frozenset({"get", "version", "config"})

# kubectl's -v levels that log each answered request (6) and each write as it leaves (7).
ANSWERS_LOGGED = 6
WRITES_LOGGED = 7

# How a kubectl that rejected a flag is asked its version, and for how long at most.
CLIENT_VERSION = ["version", "--client", "-o", "json"]
VERSION_SECONDS = 5.0

# The context's own namespace, exactly: ``{..namespace}`` would also match a ``namespace``
# key anywhere else in the minified kubeconfig (a cluster's ``extensions``), in map order.
CONTEXT_NAMESPACE = [
    "config",
    "view",
    "--minify",
    "-o",
    "jsonpath={.contexts[0].context.namespace}",
]


class _Opened(NamedTuple):
    """A read started ahead of the run that asks for it (``KubectlRunner.open_read``)."""

    argv: list[str]
    proc: Popen[Any]
    began: float
    cold: tuple[int, int] | None


class KubectlResult(NamedTuple):
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    raw: bytes = b""  # stdout as bytes, instead of ``stdout``, when run with ``raw=True``


_seconds = seconds_arg


class WatchEnd(NamedTuple):
    """How a run of watches ended: ``decided`` True (over) / False (time passed) / None
    (a kubectl exited first; ``failure``: its error when it exited non-zero)."""

    decided: bool | None
    failure: AdapterError | None


class KubectlRunner:
    """Runs kubectl for one ClusterConfig; its processes are handled by ``processes``."""

    def __init__(self, config: ClusterConfig, *, progress: IO[str] | None = None) -> None:
        self.config = config
        self.progress = progress if progress is not None else sys.stderr
        self._binary: str | None = None
        self._opened: _Opened | None = None
        self._deadline_at: float | None = None
        if config.deadline is not None:
            started = config.started if config.started is not None else monotonic()
            self._deadline_at = started + config.deadline

    def remaining(self) -> float | None:
        """Seconds left of the command's overall deadline (``None``: no deadline)."""
        return None if self._deadline_at is None else self._deadline_at - monotonic()

    def default_bound(self, args: Sequence[str]) -> float:
        """The process bound of a non-wait call: reads get their request timeout plus grace,
        unless their log shows each request (then that bound is per request: ``_pace``)."""
        cfg = self.config
        if _is_read(args) and verbosity(list(args)) < ANSWERS_LOGGED:
            return min(cfg.call_timeout, cfg.request_timeout + READ_GRACE_SECONDS)
        return cfg.call_timeout

    # -- argv -------------------------------------------------------------------------------

    @property
    def binary(self) -> str:
        """kubectl's path: ``--kubectl`` if given, else the first on PATH."""
        if self._binary is None:
            wanted = self.config.kubectl or "kubectl"
            import shutil  # once per command, and only when kubectl is run

            found = shutil.which(wanted)
            if found is None:
                where = "on PATH" if self.config.kubectl is None else f"at {wanted!r}"
                raise ConfigurationError(
                    f"kubectl not found {where}: install kubectl or pass --kubectl PATH",
                    {"kubectl": wanted},
                )
            self._binary = found
        return self._binary

    def argv(
        self, args: Sequence[str], *, namespace: str | None = None, request_timeout: bool = True
    ) -> list[str]:
        """``kubectl [--kubeconfig P] [--context C] [--cache-dir D] [-n NS] [--request-timeout S]``
        then ``ARGS``; every flag is left out when unset.

        Waits pass ``request_timeout=False``: kubectl applies --request-timeout to the whole
        watch stream too, which would cut a long wait; the process bound covers them instead.
        """
        cfg = self.config
        argv = [self.config.kubectl or "kubectl"] if cfg.dry_run else [self.binary]
        if cfg.kubeconfig:
            argv += ["--kubeconfig", cfg.kubeconfig]
        if cfg.context:
            argv += ["--context", cfg.context]
        if cfg.cache_dir:
            argv += ["--cache-dir", cfg.cache_dir]
        ns = namespace or cfg.namespace
        if ns:
            argv += ["-n", ns]
        if request_timeout:
            argv += ["--request-timeout", _seconds(cfg.request_timeout)]
        argv += [str(arg) for arg in args]
        return argv

    @staticmethod
    def display(argv: Sequence[str]) -> str:
        """The command as an operator would type it (``kubectl``, not its resolved path)."""
        return transcript_display(argv)

    # -- running ----------------------------------------------------------------------------

    def run(
        self,
        args: Sequence[str],
        *,
        namespace: str | None = None,
        stdin: str | None = None,
        timeout: float | None = None,
        stream: bool = False,
        request_timeout: bool = True,
        absent_ok: bool = False,
        raw: bool = False,
    ) -> KubectlResult:
        """Run kubectl; return its output on exit 0, raise the mapped error otherwise.

        ``absent_ok``:
        the caller reads a NotFound as "absent" (a read by name); the log says so, and its
        line goes on after a 404 when pasted under ``bash -e``. ``raw``: stdout comes as bytes,
        in ``raw`` (``stdout`` is then empty)."""
        argv = self.argv(args, namespace=namespace, request_timeout=request_timeout)
        shown = self.display(argv)
        verbose = int(self.config.verbose)
        if verbose:
            _log(
                "%s",
                transcript_command(
                    argv, stdin=stdin, absent=absent_ok, kubectl_verbosity=verbose > 1
                ),
            )
        bound = timeout if timeout is not None else self.default_bound(args)
        remaining = self.remaining()
        cut = remaining is not None and remaining < bound
        if remaining is not None and remaining <= 0:
            if verbose:
                _log("# not run: the command's overall deadline (--deadline) was reached")
            raise self._deadline_reached("before", shown)
        if cut:
            assert remaining is not None
            bound = remaining
        # A read bound covers one request, not kubectl's discovery before it: with a cold
        # cache on a slow API, discovery alone can use the bound up. If the killed run left
        # the discovery cache written, it did get through: once more, now with a warm cache.
        echo = self._echo if stream else None
        opened = self._take_opened(argv) if stdin is None and echo is None else None
        if opened is not None:
            cold, began = opened.cold, opened.began
            # Its bound counts from its start, as every kubectl's does.
            left = max(0.0, bound - (monotonic() - began))
            pace = self._pace(args, began)
            returncode, out, stderr = execute(
                argv, None, left, None, started=opened.proc, raw=raw, pace=pace
            )
        else:
            cold = (
                discovery_stamp(self.config.cache_dir)
                if timeout is None and _is_read(args)
                else None
            )
            began = monotonic()
            pace = self._pace(args, began)
            returncode, out, stderr = execute(argv, stdin, bound, echo, raw=raw, pace=pace)
        if (
            returncode is None
            and pace is None  # a paced read was stopped by one unanswered request, not discovery
            and cold is not None
            and discovery_stamp(self.config.cache_dir) != cold
        ):
            again = self.remaining()
            if again is None or again > 0:
                _log("# kubectl spent its bound on discovery (cold cache): once more")
                bound = bound if again is None else min(bound, again)
                pace = self._pace(args, monotonic())
                returncode, out, stderr = execute(argv, stdin, bound, echo, raw=raw, pace=pace)
        if returncode != 0 or (verbose and stderr.strip()):
            _register_secrets(self.config)
        failure = None
        if returncode:
            # kubectl get prints an empty List on stdout even when the LIST failed:
            # only the exit status tells, so stdout is never looked at here.
            failure = self._explain(_classify(shown, returncode, stderr))
        if verbose:
            _log("%s", outcome(returncode, monotonic() - began, stderr))
            if verbose > 1 and stderr.strip():
                _log("%s", kubectl_stderr(stderr))
        if returncode is None and pace is not None and pace.stalled:
            raise _unanswered(shown, stderr, pace)
        if returncode is None:
            error = _classify(shown, -1, stderr, timed_out=True)
            error.details["timeoutSeconds"] = bound
            if cut and isinstance(error, Timeout):
                error.details["reason"] = "deadline"
                error.details["deadlineSeconds"] = self.config.deadline
            raise _written(args, error, stderr)
        if failure is not None:
            raise _written(args, failure, stderr)
        if isinstance(out, bytes):
            return KubectlResult(argv, returncode, "", stderr, out)
        return KubectlResult(argv, returncode, out, stderr)

    def _pace(self, args: Sequence[str], began: float) -> Pace | None:
        """How a kubectl whose ``-v`` log shows its requests is bounded per request: a read
        (``-v=6``) for as long as it runs, a write (``-v=7``) until its change has left. Each
        gets what a read gets for one request (``--request-timeout`` + grace) to hear an
        answer; against an API that accepts connections and never answers, a write then
        learns it as fast as a read instead of after kubectl's discovery retries (55 s)."""
        level = verbosity(list(args))
        read = _is_read(args)
        if level < ANSWERS_LOGGED or (not read and level < WRITES_LOGGED):
            return None
        idle = self.config.request_timeout + READ_GRACE_SECONDS
        return Pace(idle, write=not read, started=began)

    def open_read(self, args: Sequence[str], *, namespace: str | None = None) -> None:
        """Start a command's first read now, before the imports the rest of the command
        needs: its kubectl (about as long as those imports) runs beside them. The ``run``
        asking for the same command takes it over (logged and bounded as its own); ``close``
        kills it if none does. Best effort: whatever stops it here (no kubectl, a deadline
        already spent) is left for that run to report, in its place."""
        if self._opened is not None or self.config.dry_run or not _is_read(args):
            return
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            return
        try:
            argv = self.argv(args, namespace=namespace)
        except AdapterError:
            return
        cold = discovery_stamp(self.config.cache_dir)
        began = monotonic()

        def keep(proc: Popen[Any]) -> None:
            self._opened = _Opened(argv, proc, began, cold)

        with contextlib.suppress(AdapterError):
            start(argv, keep)

    def _take_opened(self, argv: list[str]) -> _Opened | None:
        opened = self._opened
        if opened is None or opened.argv != argv:
            return None
        self._opened = None
        return opened

    def close(self) -> None:
        """Kill a read ``open_read`` started that no run took (the command ended first)."""
        opened, self._opened = self._opened, None
        if opened is not None:
            stop(opened.proc)

    def _explain(self, error: AdapterError) -> AdapterError:
        """Add what the failure is about: the kubeconfig read, or the kubectl's version."""
        if not isinstance(error, ConfigurationError | Unavailable):
            return error
        from .kubectl_errors import UNKNOWN_FLAG, explain_kubeconfig

        if error.details.get("reason") == UNKNOWN_FLAG:
            return self._name_version(error)
        return explain_kubeconfig(
            error,
            kubeconfig_looked_for(self.config),
            kubeconfig_usable(self.config),
            kubeconfig_missing(self.config),
        )

    def _name_version(self, error: AdapterError) -> AdapterError:
        """A kubectl that rejected a flag: which kubectl it is, asked only now (a local
        ``version --client``, no API request), so that the message says what to replace."""
        remaining = self.remaining()
        bound = VERSION_SECONDS if remaining is None else min(VERSION_SECONDS, remaining)
        version = None
        if bound > 0:
            with contextlib.suppress(AdapterError, ValueError, LookupError, TypeError):
                returncode, out, _ = execute([self.binary, *CLIENT_VERSION], None, bound, None)
                if returncode == 0:
                    version = json.loads(out)["clientVersion"]["gitVersion"]
        if not isinstance(version, str) or not version:
            return error
        from ..contract.redact import redact

        version = redact(version)
        details = {**error.details, "kubectlVersion": version}
        return type(error)(f"kubectl {version} at {self.binary}: {error.message}", details)

    def context_namespace(self) -> str:
        """``-n``, else the context's namespace, else ``default``: the namespace kubectl would use.

        Costs one local kubectl call (no API request) when ``-n`` was not given; a dry run
        assumes ``default`` rather than run anything.
        """
        if self.config.namespace:
            return self.config.namespace
        if self.config.dry_run:
            return "default"
        found = self.run(CONTEXT_NAMESPACE).stdout.strip()
        if not found:
            return "default"
        if not is_dns1123_label(found):
            looked_for = kubeconfig_looked_for(self.config)
            raise ConfigurationError(
                f"the kubeconfig context's namespace {found!r} {DNS1123_RULE} "
                f"(kubeconfig: {looked_for}); fix the context or pass -n",
                {"namespace": found, "kubeconfig": looked_for},
            )
        return found

    def run_json(
        self, args: Sequence[str], *, decode: Callable[[bytes], Any] | None = None, **kwargs: Any
    ) -> Any:
        """Run a kubectl command that prints JSON; empty output (``--ignore-not-found``) is None.

        The JSON is checked against the fields the adapter reads (``shapes``): what the pure
        rules get is typed, and anything else is InternalError naming the command. ``decode``:
        a quicker typed decoder for this answer (``workload_fields``); when it returns None the
        output is decoded and checked as above.
        """
        result = self.run(args, raw=decode is not None, **kwargs)
        shown = self.display(result.argv)
        output: str | bytes = result.raw if decode is not None else result.stdout
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

    def watch_together(
        self,
        commands: Sequence[Sequence[str]],
        watching: Watching,
        *,
        namespace: str | None = None,
        seconds: float,
        wait: Wait,
    ) -> WatchEnd:
        """Run several ``kubectl get … --watch`` at once for at most ``seconds``, their output
        fed to ``watching`` as it comes (``processes.watch_together``).

        ``decided`` True: ``watching`` said the wait is over; False: the time passed. None:
        one kubectl exited first (a watch the server closed, a dropped connection), and
        ``failure`` is its error when it exited non-zero. The others are killed either way.
        """
        argvs = [self.argv(args, namespace=namespace, request_timeout=False) for args in commands]
        shown = self.display(argvs[0])
        verbose = int(self.config.verbose)
        if verbose:
            by_hand = self._by_hand(wait, namespace)
            _log("%s", watches(argvs, wait, by_hand, kubectl_verbosity=verbose > 1))
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            raise self._deadline_reached("before", shown)
        cut = remaining is not None and remaining < seconds
        bound = min(seconds, remaining) if remaining is not None else seconds
        began = monotonic()
        ended, index, returncode, stderrs = watch_together(argvs, watching, bound)
        stderr = stderrs[index] if index >= 0 else "".join(stderrs)
        if returncode:
            _register_secrets(self.config)
        if verbose:
            _log("%s", watched(ended, returncode, monotonic() - began, stderr))
            if verbose > 1 and stderr.strip():
                _log("%s", kubectl_stderr(stderr))
        if ended is False and cut:
            raise self._deadline_reached("during", shown)
        if ended is not None or not returncode:
            return WatchEnd(ended, None)
        error = _classify(self.display(argvs[index]), returncode, stderr)
        return WatchEnd(None, self._explain(error))

    def _by_hand(self, wait: Wait, namespace: str | None) -> list[str] | None:
        if not wait.by_hand:
            return None
        return self.argv(wait.by_hand, namespace=namespace, request_timeout=False)

    def _deadline_reached(self, when: str, shown: str) -> Timeout:
        return Timeout(
            f"the command's overall deadline ({self.config.deadline:g}s, --deadline) "
            f"was reached {when}: {shown}",
            {"command": shown, "reason": "deadline", "deadlineSeconds": self.config.deadline},
        )

    def _echo(self, line: str) -> None:
        """kubectl's progress line: to the progress display, else to our stderr."""
        from ..contract.redact import redact

        if not progress.note(redact(line.rstrip())):
            # Under -v stderr is a pasteable log: progress goes in as comments.
            mark = "# " if self.config.verbose else ""
            self.progress.write(f"{mark}kubectl: {redact(line.rstrip())}\n")
            self.progress.flush()


def _unanswered(shown: str, stderr: str, pace: Pace) -> Timeout:
    """A kubectl stopped for want of an answer, while stopping it lost nothing."""
    error = _classify(shown, -1, stderr, timed_out=True)
    details = dict(error.details)
    details["reason"] = "no answer from the API server"
    details["idleSeconds"] = pace.idle
    if pace.write:
        details["writeSent"] = False
        what = "before it sent its change (nothing was changed)"
    else:
        what = f"after {pace.answered} answered requests" if pace.answered else "at the first"
    return Timeout(
        f"the API server answered no request of kubectl for {pace.idle:g}s; kubectl was "
        f"stopped {what}: {shown}",
        details,
    )


def _written(args: Sequence[str], error: AdapterError, stderr: str) -> AdapterError:
    """A write's error says whether its change may have been made (``writes``)."""
    if _is_read(args):
        return error
    from .writes import said

    return said(error, stderr)


def _ignores_not_found(args: Sequence[str]) -> bool:
    """``--ignore-not-found`` is on: an absent object is printed as nothing at all."""
    flags = [str(arg) for arg in args if str(arg).startswith("--ignore-not-found")]
    return bool(flags) and flags[-1] in ("--ignore-not-found", "--ignore-not-found=true")


def _is_read(args: Sequence[str]) -> bool:
    return bool(args) and str(args[0]) in READ_VERBS


def wait_timeout_args(seconds: float) -> list[str]:
    """``--timeout=Ns`` for kubectl's own waits."""
    return [f"--timeout={_seconds(seconds)}"]


def process_bound(wait_seconds: float) -> float:
    """How long a waiting kubectl may live: its own timeout plus grace to say why."""
    return wait_seconds + WAIT_GRACE_SECONDS
